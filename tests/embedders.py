"""A fast, deterministic embedder for unit tests: hashed bag of words, L2-normalised.

Texts sharing words get close vectors, so vector search behaves sensibly without loading
the real model (which tests/test_search_real_model.py covers).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence


class HashingEmbedder:
    def __init__(self, model_id: str = "test/hashing-384", dim: int = 384) -> None:
        self.model_id = model_id
        self.dim = dim
        self.calls = 0

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for word in re.findall(r"\w+", text.lower()):
            bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
            vector[bucket % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


class SlowHashingEmbedder(HashingEmbedder):
    """HashingEmbedder that takes TEST_EMBED_DELAY seconds (default 0.1) per batch: a daemon
    given it is still carrying out a forwarded write well after it took it (SIGTERM, SIGSTOP)."""

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        import os
        import time

        time.sleep(float(os.environ.get("TEST_EMBED_DELAY", "0.1")))
        return super().embed_documents(texts)


def no_model() -> None:
    """`GRAPHIT_EMBEDDER=tests.embedders:no_model`: a process with no embedding model."""
    return None


def slow_to_load() -> HashingEmbedder:
    """`GRAPHIT_EMBEDDER=tests.embedders:slow_to_load`: a model whose loading takes
    TEST_MODEL_LOAD_SECONDS (default 300): a process still loading it when asked to stop.
    TEST_MODEL_LOADING names a file created as the loading begins."""
    import os
    import time
    from pathlib import Path

    if os.environ.get("TEST_MODEL_LOADING"):
        Path(os.environ["TEST_MODEL_LOADING"]).touch()
    time.sleep(float(os.environ.get("TEST_MODEL_LOAD_SECONDS", "300")))
    return HashingEmbedder()
