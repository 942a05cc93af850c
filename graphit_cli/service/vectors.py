"""What one write embeds before it commits: `WriteVectors` (the Writer asks it for the vectors
of the rows it is about to write, so a row and its vector land in one `merge_insert`), and the
bound on how many rows a write embeds. Used by a cold CLI write and the daemon's warm path.
Must not import Typer or Rich.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from graphit_cli.core import revisions
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import InvalidInput

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.threads import Pending

# The rows one write embeds before it commits (a cold CLI, the daemon's warm path): a memory
# or an AGENTS.md import is written with its vectors, while a bulk batch does not wait minutes
# for the model (a 10k batch ~80 s with MiniLM, ~12 min with e5); the rest is the embedding
# pass's (`graphit memory embed`, the daemon's loop):
# docs/decisions/0008-every-write-embedded-bounded.md.
WRITE_EMBED_ROWS = 64
WRITE_EMBED_SLICE = 8  # texts per model call: progress moves, and a lock is never held long


def texts_ahead(drafts: Sequence[MemoryDraft], limit: int = WRITE_EMBED_ROWS) -> list[str]:
    """The texts of a batch's first new memories (no id, a title and a body), as the model
    will embed them: what a cold write can embed before it has read its table."""
    from graphit_cli.embed import document_text

    texts: list[str] = []
    for draft in drafts:
        if len(texts) >= limit:
            break
        if draft.id is not None or draft.title is None or draft.body is None:
            continue
        try:
            title = revisions.validate_title(draft.title)
            body = revisions.normalise_body(draft.body)
        except InvalidInput:
            continue  # the write reports it
        texts.append(document_text(title, body))
    return texts


class WriteVectors:
    """The vectors one write gives the rows it commits, computed before the commit and outside
    any lock, so the row and its vector land in the same `merge_insert`.

    `model` is called once, when the first text needs a vector (or ahead, by `start`, on a
    thread of its own while the table opens); it may return None (no model installed, or none
    loaded in a process that never loads one): the rows are then written without vectors,
    silently. A model that raises does not fail the write either: its rows are written without
    vectors and `notice()` says why and how to fill them. At most `limit` texts are embedded;
    beyond that, rows wait for the embedding pass and `notice()` says so. One write's object:
    not shared between threads (its ahead-thread is joined before any use).
    """

    def __init__(
        self,
        model: Callable[[], Embedder | None],
        *,
        limit: int = WRITE_EMBED_ROWS,
        progress: Callable[[int, int], None] | None = None,
        later: str = "until `graphit memory embed` runs (or a daemon embeds them)",
    ) -> None:
        self._factory = model
        self._model: Embedder | None = None
        self._loaded = False
        self.limit = limit
        self.progress = progress
        self.later = later  # where the rows without a vector get one (for the notice)
        self._vectors: dict[str, list[float]] = {}
        self._ahead: Pending[None] | None = None
        self.embedded = 0  # texts embedded by this write
        self.left = 0  # texts that wanted a vector and were left for the embedding pass
        self.failure: str | None = None  # why the model could not load or embed
        self.interrupted = False  # the process stopped its model (a daemon stopping)

    def start(self, texts: Sequence[str] = (), *, expected: int | None = None) -> None:
        """Load the model, and embed `texts` (the batch's first ones), on a thread of its own,
        while the caller opens its table (the model's session build and its runs leave the
        GIL). A one-shot process passes `expected`, the most documents this write can embed:
        a backend that can (the light runtime) then embeds a few without building the
        session meant for many."""
        from graphit_cli.threads import Pending

        wanted = list(dict.fromkeys(texts))[: self.limit]
        count = min(self.limit, expected if expected is not None else self.limit)

        def ahead() -> None:
            model = self._load()
            few = getattr(model, "expect_documents", None)  # a capability, not the protocol
            if few is not None:
                few(count)
            self._embed(wanted)

        self._ahead = Pending(ahead, name="write-vectors")

    def model(self) -> Embedder | None:
        """The model, loaded on first use; None when there is none (or it failed to load)."""
        self._join()
        return self._load()

    def _load(self) -> Embedder | None:
        if not self._loaded:
            self._loaded = True
            try:
                self._model = self._factory()
            except Exception as exc:  # the write goes on without vectors; notice() says why
                from graphit_cli.errors import in_words

                self.failure = in_words(exc)
        return self._model

    def fill(self, texts: Sequence[str]) -> None:
        """Embed the texts that have no vector yet, up to the bound (the rest are the
        embedding pass's: the writer counts the rows it commits without one, `wrote`)."""
        self._join()
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        self._embed(todo[: max(0, self.limit - self.embedded)])

    def wrote(self, without_vector: int) -> None:
        """The writer committed `without_vector` rows that wanted a vector and got none."""
        self.left += without_vector

    def _embed(self, texts: list[str]) -> None:
        if not texts:
            return
        model = self._load()
        if model is None:
            return
        done = 0
        try:
            for start in range(0, len(texts), WRITE_EMBED_SLICE):
                chunk = texts[start : start + WRITE_EMBED_SLICE]
                for text, vector in zip(chunk, model.embed_documents(chunk), strict=True):
                    self._vectors[text] = vector
                done += len(chunk)
                self.embedded += len(chunk)
                progress = self.progress  # may be set while the thread ahead runs
                if progress is not None:
                    progress(done, len(texts))
        except Exception as exc:  # committed rows must not depend on the model: no vectors
            from graphit_cli.errors import in_words

            self.failure = in_words(exc)
            # A process that stops its model (the daemon's shutdown) is no failure of it.
            self.interrupted = bool(getattr(exc, "interrupted", False))

    def _join(self) -> None:
        if self._ahead is not None:
            ahead, self._ahead = self._ahead, None
            ahead.join()  # _embed records its own failures; nothing is raised here

    def vector(self, text: str) -> list[float] | None:
        return self._vectors.get(text)

    @property
    def model_id(self) -> str | None:
        return self._model.model_id if self._model is not None else None

    def notice(self) -> str | None:
        """One line for stderr when some written rows have no vector, else None."""
        if self.failure is not None and self.left and self.interrupted:
            rows = "1 row" if self.left == 1 else f"{self.left} rows"
            return (
                f"Note: {rows} written without a vector ({self.failure}); the next embedding "
                "pass fills them (`graphit memory embed`, or the daemon once it runs again)"
            )
        if self.failure is not None and self.left:
            rows = "1 row" if self.left == 1 else f"{self.left} rows"
            return (
                f"Note: {rows} written without a vector (the embedding model failed: "
                f"{self.failure}); `graphit memory embed` fills them once it loads"
            )
        if self.left:
            total = self.embedded + self.left
            return (
                f"Note: embedded {self.embedded} of {total} rows now; the other {self.left} "
                f"are found by their words {self.later}"
            )
        return None
