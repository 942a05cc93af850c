"""The warm process's one model, shared fairly by its loops and the requests it answers.

A query goes first: a search waits at most for the slice being embedded (~0.2 s), not for a
whole backlog. `threading.Lock` is not fair (the thread that releases it usually takes it
again at once: a query waited up to 94 slices, benchmarks/model_turns.py), so documents wait
while a query is waiting. Used by the daemon (`process.py`) and by an agent session's warm
server (`session.py`). Standard library only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder


class EmbeddingStopped(Exception):
    """The process is stopping: a document batch ends between two slices. The rows a write
    committed stay without vectors until the next embedding pass (its answer is not held up).
    `interrupted` tells a writer it was stopped, not that the model failed."""

    interrupted = True


class FairEmbedder:
    """Serialises calls into the model: the loops and socket clients share one instance."""

    SLICE = 8

    def __init__(self, inner: Embedder, stopping: threading.Event | None = None) -> None:
        self._inner = inner
        self._lock = threading.Lock()
        self._turn = threading.Condition()
        self._queries = 0  # waiting for the model, or in it
        self._stopping = stopping
        self.model_id = inner.model_id
        self.dim = inner.dim

    def embed_documents(self, texts: Any) -> list[list[float]]:
        # Small slices, the lock released between them, each after the waiting queries.
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.SLICE):
            if self._stopping is not None and self._stopping.is_set():
                raise EmbeddingStopped("the daemon is stopping")
            with self._turn:
                self._turn.wait_for(lambda: self._queries == 0)
            with self._lock:
                vectors += self._inner.embed_documents(texts[start : start + self.SLICE])
        return vectors

    def embed_query(self, text: str) -> list[float]:
        with self._turn:
            self._queries += 1
        try:
            with self._lock:
                return self._inner.embed_query(text)
        finally:
            with self._turn:
                self._queries -= 1
                self._turn.notify_all()


class SharedModel:
    """The process's model, loaded once on first use (by a loop, a request or the warm-up);
    None when no model can load (the callers say so)."""

    def __init__(
        self,
        factory: Callable[[], Embedder | None] | None = None,
        stopping: threading.Event | None = None,
    ) -> None:
        self._factory = factory
        self._stopping = stopping
        self._model: FairEmbedder | None = None
        self._lock = threading.Lock()

    def __call__(self) -> FairEmbedder | None:
        with self._lock:
            if self._model is None:
                from graphit_cli.embed import load_default

                inner = (self._factory or load_default)()
                self._model = FairEmbedder(inner, self._stopping) if inner is not None else None
            return self._model

    def loaded(self) -> FairEmbedder | None:
        """The model when it is loaded already (a write never waits for a load)."""
        return self._model

    def model_id(self) -> str | None:
        """The model this process embeds with, without loading it when it can be named."""
        if self._model is not None:
            return self._model.model_id
        if self._factory is None:
            from graphit_cli.embed import chosen_model_id

            return chosen_model_id()
        return None
