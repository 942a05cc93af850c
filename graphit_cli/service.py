"""MemoryService: the memory use-cases (upsert, delete, source, history, list, ...).

The CLI, and later the MCP server and the Explorer, call these methods and render what they
return. Business rules live here and in the pure modules (`revisions`, `ordering`); LanceDB
lives in `store/`. Must not import Typer or Rich.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from graphit_cli import config, ordering, revisions, scopes
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, NotFound
from graphit_cli.models import (
    BatchResult,
    Memory,
    MemoryDraft,
    MemoryFilter,
    WriteAction,
    WriteResult,
)
from graphit_cli.scopes import Scope

if TYPE_CHECKING:
    from graphit_cli.store.lance import MemoryStore

MAX_ATTEMPTS = 30


def utcnow() -> datetime:
    return datetime.now(UTC)


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
        store: MemoryStore,
        scope: Scope,
        *,
        author: str | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.scope = scope
        self.author = author or config.author()
        self.clock = clock

    @classmethod
    def open(cls, scope: Scope, *, create: bool = True) -> MemoryService:
        from graphit_cli.store import open_store

        uri = scope.uri()
        store = open_store(uri, create=create)
        scopes.record_scope_use(scope, uri)
        return cls(store, scope)

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
        if any(r.action is not WriteAction.UNCHANGED for r in results.values()):
            self.store.fold_if_needed()
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
            heads = self.store.heads([d.id for _, d in pending if d.id])
            plans = [self._plan(i, d, heads.get(d.id or "", (None, None))) for i, d in pending]
            writes = [p for p in plans if p.rows]
            for plan in plans:
                if not plan.rows:
                    done[plan.index] = WriteResult(plan.action, plan.result)
            if not writes:
                return done
            try:
                counts = self.store.merge([row for p in writes for row in p.rows])
                lost = counts.inserted < len(writes)
            except Conflict:  # contention on the table: retry the whole wave
                lost = True
            if not lost:
                done.update({p.index: WriteResult(p.action, p.result) for p in writes})
                return done
            # Some writes lost the compare-and-swap: keep the winners, re-plan the others.
            after = self.store.heads([p.result.id for p in writes])
            pending = []
            for plan in writes:
                live = after.get(plan.result.id, (None, None))[0]
                if live is not None and _same_state(live, plan.result):
                    done[plan.index] = WriteResult(plan.action, live)
                else:
                    pending.append((plan.index, plan.draft))
            if not pending:
                return done
            _backoff(attempt)
        raise Conflict(
            f"gave up after {MAX_ATTEMPTS} attempts: other writers kept changing "
            f"{len(pending)} of these memories; nothing was written for them"
        )

    def _plan(
        self, index: int, draft: MemoryDraft, head: tuple[Memory | None, Memory | None]
    ) -> _Plan:
        live, tail = head
        now = self.clock()
        assert draft.id is not None
        try:
            if live is not None:
                if draft.expected_revision is not None and draft.expected_revision != live.revision:
                    raise Conflict(
                        f"memory {live.id} is at revision {live.revision}, not "
                        f"{draft.expected_revision}: it changed since it was read; "
                        "read it again with `graphit memory source`"
                    )
                revised = revisions.revise(live, draft, author=self.author, now=now)
                if revised is None:
                    return _Plan(index, draft, WriteAction.UNCHANGED, [], live)
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

    def source(self, ref: str) -> Memory:
        """`<id>` (the live row) or `<id>/<revision_id>` (an archived revision)."""
        memory_id, revision_id = revisions.parse_ref(ref)
        if not revision_id:
            live = self.store.get(memory_id)
            if live is None:
                tail = self.store.heads([memory_id]).get(memory_id, (None, None))[1]
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
        if not chain:
            raise NotFound(f"no memory {memory_id} in {self.scope}")
        return chain

    def list(self, flt: MemoryFilter | None = None, limit: int | None = None) -> list[Memory]:
        """Live memories in canonical order (mandatory, important, normal; newest first)."""
        if limit is not None and limit < 0:
            raise InvalidInput("limit must not be negative")
        rows = ordering.canonical_sort(self.store.live(flt), lambda m: m)
        return rows[:limit] if limit else rows


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
