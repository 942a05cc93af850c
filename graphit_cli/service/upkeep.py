"""The service's upkeep: the embedding pass, embedding fresh writes, maintenance, status.

`Upkeep` is one of `MemoryService`'s collaborators (see memory.py); callers use it
through `MemoryService`. What a write embeds before it commits is `service/vectors.py`.
Must not import Typer or Rich.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from graphit_cli.access import runstate
from graphit_cli.core import maintenance, revisions
from graphit_cli.core.models import EmbedReport, MaintenanceReport
from graphit_cli.errors import CommitContention, InvalidInput
from graphit_cli.service.common import MAX_ATTEMPTS, EmbedderFactory, backoff

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import TableState
    from graphit_cli.embed import Embedder
    from graphit_cli.store.base import Store

EMBED_BATCH = 64


class Upkeep:
    """Keeps one scope's table embedded and maintained, and reports its state."""

    def __init__(self, store: Store, scope: Scope, embedder: EmbedderFactory) -> None:
        self.store = store
        self.scope = scope
        self._embedder_factory = embedder

    # --- embeddings ------------------------------------------------------------------------

    def embed(
        self,
        embedder: Embedder | None = None,
        *,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        reembed: bool = False,
    ) -> EmbedReport:
        """Fill every row (live and archived) whose vector is missing.

        Each vector is written only if the row's content hash still matches the embedded
        text. Vectors of two models are never mixed in a table. A local table embedded by
        another model is re-embedded whole: its vectors are dropped, the table records this
        model, then the rows are filled in batches, so an interrupted pass resumes where it
        stopped (the rows without a vector) and no search meanwhile compares a vector with
        another model's. A shared (remote) table is filled with its own model, when that is
        installed, and rewritten with this process's model only when `reembed` asks for it
        (other machines then search it with that model); else this is an InvalidInput.
        """
        from graphit_cli.embed import document_text

        model = embedder or self._embedder_factory()
        if model is None:
            from graphit_cli.embed import unavailable_reason

            raise InvalidInput(unavailable_reason())
        started = time.perf_counter()
        current = self.store.embedding_model()
        model, reembed = self._pass_model(model, current, reembed=reembed)
        if reembed:
            self.store.clear_embeddings()
        if current != model.model_id:
            self.store.set_embedding_model(model.model_id)
        total = self.store.missing_vectors()
        done = skipped = 0
        if progress:
            progress(0, total)
        while not (should_stop and should_stop()):
            rows = self.store.rows_to_embed(EMBED_BATCH)
            if not rows:
                break
            vectors = model.embed_documents([document_text(r.title, r.body) for r in rows])
            written = self.store.write_embeddings(
                [(r.key, r.content_hash, v) for r, v in zip(rows, vectors, strict=True)]
            )
            done += written
            skipped += len(rows) - written
            if progress:
                progress(min(done, total), total)
            if written == 0:  # every row changed underneath: leave them to the next pass
                break
        if done:
            self.store.fold_if_needed()
        return EmbedReport(model.model_id, done, skipped, time.perf_counter() - started, reembed)

    def shared(self) -> bool:
        """Whether the table is shared (remote: other machines read and embed it too)."""
        from graphit_cli.access.scopes import is_remote_uri

        return is_remote_uri(str(getattr(self.store, "uri", "")))

    def _pass_model(
        self, own: Embedder, current: str | None, *, reembed: bool
    ) -> tuple[Embedder, bool]:
        """The model the embedding pass writes with, and whether it first drops the table's
        vectors (see `embed`)."""
        if current is None or current == own.model_id:
            return own, False
        if reembed or not self.shared():
            return own, True
        from graphit_cli.service.common import embedder_for

        theirs = embedder_for(lambda: own, current)
        if theirs is None:
            raise InvalidInput(
                f"this shared table's vectors come from {current}, which is not installed "
                f"here; `graphit memory embed --reembed` rewrites them all with "
                f"{own.model_id} (every machine then searches the table with that model)"
            )
        return theirs, False

    def embed_step(
        self,
        embedder: Embedder,
        limit: int,
        hold: Callable[[], AbstractContextManager[object]] = nullcontext,
    ) -> int | None:
        """One bounded step of the embedding pass for a process that also serves reads (the
        MCP server): read up to `limit` rows lacking a vector and write their vectors, each
        inside `hold()` (the caller's lock), with the model call between them outside it.

        Returns rows written (a row edited meanwhile keeps its new text and is skipped), 0
        when none waits, None when the table's vectors come from another model (re-embedding
        a whole table is the daemon's pass, `embed`).
        """
        from graphit_cli.embed import document_text

        with hold():
            current = self.store.embedding_model()
            if current not in (None, embedder.model_id):
                return None
            rows = self.store.rows_to_embed(limit)
        if not rows:
            return 0
        vectors = embedder.embed_documents([document_text(r.title, r.body) for r in rows])
        with hold():
            if self.store.embedding_model() is None:
                self.store.set_embedding_model(embedder.model_id)
            elif self.store.embedding_model() != embedder.model_id:
                return None  # another process re-embedded the table meanwhile
            written = self.store.write_embeddings(
                [(r.key, r.content_hash, v) for r, v in zip(rows, vectors, strict=True)]
            )
            if written:
                self.store.fold_if_needed(written_rows=written)
        return written

    def needs_embedding(self, model_id: str | None = None) -> bool:
        """Whether any row (live or archived) still waits for its vector, or (given the
        model the pass would use) a local table's vectors come from another model."""
        if self.store.missing_vectors() > 0:
            return True
        current = self.store.embedding_model()
        return model_id is not None and current not in (None, model_id) and not self.shared()

    def is_empty(self) -> bool:
        return self.store.rows() == 0

    def has_vectors(self) -> bool:
        """Whether the table's memories have been embedded (by any model)."""
        return self.store.embedding_model() is not None

    def query_vector(self, text: str) -> list[float] | None:
        """`text`'s query embedding in the space of the model that embedded the table (the
        process's model, else that model's installed backend); None when the table has no
        vectors or no backend of its model is installed. Loads the model on first use."""
        from graphit_cli.service.common import embedder_for

        model = self.store.embedding_model()
        if model is None:
            return None
        embedder = embedder_for(self._embedder_factory, model)
        return None if embedder is None else embedder.embed_query(text)

    def embed_now(self, memory_ids: Sequence[str], embedder: Embedder) -> int:
        """Embed these just-written memories' live rows before returning, when the table's
        vectors come from `embedder`'s model (the MCP server, which holds a warm model).

        Fusion already ranks an unembedded row by its full-text match; this makes it findable
        by meaning too, without waiting for the embedding pass. Returns rows embedded.
        """
        from graphit_cli.embed import document_text

        if not memory_ids:
            return 0
        current = self.store.embedding_model()
        if current is None:
            # A table no model has embedded yet (a project written only through the MCP
            # server or the daemon): it takes this one's, nothing can be mixed.
            self.store.set_embedding_model(embedder.model_id)
        elif current != embedder.model_id:
            return 0
        keys = [revisions.validate_id(memory_id) for memory_id in memory_ids]
        rows = [r for r in self.store.rows_for_keys(keys, vectors=True) if r.embedding is None]
        if not rows:
            return 0
        vectors = embedder.embed_documents([document_text(r.title, r.body) for r in rows])
        return self.store.write_embeddings(
            [(r.key, r.content_hash, v) for r, v in zip(rows, vectors, strict=True)]
        )

    # --- maintenance -----------------------------------------------------------------------

    def maintain(
        self,
        *,
        force: bool = False,
        thresholds: maintenance.GateThresholds | None = None,
    ) -> MaintenanceReport:
        """One maintenance pass behind the due-time gate (`force` skips the gate).

        Folds unindexed rows into the indexes, compacts fragments, prunes old versions, and
        builds the vector index once enough rows have vectors. A commit conflict with a
        writer is retried: writers always win, and never fail because of maintenance.
        """
        started = time.perf_counter()
        scope_name = str(self.scope)
        self.store.refresh()
        before = self.store.state()
        if force:
            reasons = ["forced"]
        else:
            since = runstate.seconds_since_pass(scope_name)
            reasons = maintenance.due_reasons(before, since, thresholds)
        if not reasons:
            return MaintenanceReport(
                scope_name, False, [], [], before, before, time.perf_counter() - started
            )
        retries = 0

        def with_retry(step: Callable[[], None]) -> None:
            nonlocal retries
            for attempt in range(MAX_ATTEMPTS):
                try:
                    step()
                    return
                except CommitContention:
                    if attempt == MAX_ATTEMPTS - 1:
                        raise
                    retries += 1
                    backoff(attempt)
                    self.store.refresh()

        with_retry(self.store.optimize)
        wants_index = before.rows_with_vectors >= maintenance.VECTOR_INDEX_MIN_ROWS
        built = wants_index and not self.store.has_vector_index()
        if built:
            with_retry(lambda: self.store.build_vector_index(before.rows_with_vectors))
        runstate.record_pass(scope_name)
        after = self.store.state()
        actions = maintenance.actions_taken(before, after)
        if built:
            actions.append(f"built the vector index over {before.rows_with_vectors} rows")
        return MaintenanceReport(
            scope_name,
            True,
            reasons,
            actions,
            before,
            after,
            time.perf_counter() - started,
            retries,
        )

    # --- background work (status) -----------------------------------------------------------

    def table_state(self) -> TableState:
        return self.store.state()

    # --- consolidation ---------------------------------------------------------------------

    def live_vectors(self) -> tuple[list[str], Any]:
        """The stored vectors of live rows: (ids, float32 matrix), for consolidation.

        A phantom live row (see `MemoryStore.deleted_ids`) may be among them: callers pair
        the ids with `catalogue()`, which leaves phantoms out.
        """
        return self.store.live_vectors()
