"""The rows a write plans on a chain's head, and after a commit that raced with other writers,
which of them landed. The Writer's attempt (service/writes.py) plans, commits and verifies
with these. Must not import Typer or Rich.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from graphit_cli.core import revisions
from graphit_cli.core.models import Memory, MemoryDraft, WriteAction
from graphit_cli.errors import Conflict, GraphitError
from graphit_cli.service.common import phantom
from graphit_cli.service.write_checks import Stamp, at

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.store.base import Store

Head = tuple[Memory | None, Memory | None]


@dataclass
class Plan:
    """One record's pending write: the rows to merge and what the live row must look like after."""

    index: int
    draft: MemoryDraft
    action: WriteAction
    rows: list[Memory]
    result: Memory  # the live row once committed (or the current one when unchanged)


def verify(store: Store, writes: list[Plan]) -> list[tuple[Plan, Memory | None]]:
    """After a commit that raced with other writers: which plans landed intact?

    A plan landed when the live row is the one it wrote and sits at the head of an intact
    chain. A live row it wrote into a chain that a racing delete had just closed (the
    insert cannot be made conditional) is removed again, and the write is re-planned: it
    then continues the chain like any write to a deleted id.
    """
    after = store.heads([p.result.id for p in writes], vectors=False)
    outcome: list[tuple[Plan, Memory | None]] = []
    for plan in writes:
        live, tail = after.get(plan.result.id, (None, None))
        if _superseded(store, plan.result, live or tail):
            outcome.append((plan, plan.result))  # it landed; a later write followed it
        elif live is None or not revisions.same_state(live, plan.result):
            outcome.append((plan, None))
        elif revisions.linked(live, tail):
            outcome.append((plan, live))
        else:
            store.remove_exact(live)
            outcome.append((plan, None))
    return outcome


def _superseded(store: Store, written: Memory, current: Memory | None) -> bool:
    """Whether `written` (a live row this process committed) is in the chain already
    archived under a newer revision: another writer updated (or deleted) the memory
    between our commit and this check. Retrying it would apply the write twice."""
    if current is None or current.revision <= written.revision:
        return False
    revision_id = revisions.revision_id_for(written.id, written.revision, written.updated_at)
    archived = store.get(revisions.archive_key(written.id, revision_id))
    return archived is not None and (
        archived.revision,
        archived.content_hash,
        archived.updated_at,
        archived.updated_by,
    ) == (written.revision, written.content_hash, written.updated_at, written.updated_by)


def plan(
    store: Store,
    scope: Scope,
    index: int,
    draft: MemoryDraft,
    head: Head,
    stamp: Stamp,
    now: datetime,
) -> Plan:
    """The rows writing `draft` (validated, with its id) on chain `head` plans, as `stamp`'s
    author at `now`: an update, a deleted chain continued, a new memory, or nothing."""
    live, tail = head
    assert draft.id is not None
    if phantom(live, tail):
        assert live is not None
        store.remove_exact(live)  # left by a writer that lost to a delete
        live = None
    try:
        if live is not None:
            revised = revisions.revise(live, draft, author=stamp.author, now=now)
            if revised is None:  # already what the draft says, whatever revision it names
                return Plan(index, draft, WriteAction.UNCHANGED, [], live)
            if draft.expected_revision is not None and draft.expected_revision != live.revision:
                raise Conflict(
                    f"memory {live.id} is at revision {live.revision}, not "
                    f"{draft.expected_revision}: it changed since it was read; "
                    "read it again with `graphit memory source`"
                )
            rows = revisions.plan_update(live, tail, revised)
            return Plan(index, draft, WriteAction.UPDATED, rows, rows[1])
        if tail is not None:  # deleted: the chain continues
            rows = revisions.plan_revive(tail, draft, author=stamp.author, now=now)
            return Plan(index, draft, WriteAction.UPDATED, rows, rows[1])
        created = revisions.new_memory(
            draft,
            memory_id=draft.id,
            scope_kind=scope.kind,
            scope_id=scope.id,
            author=stamp.author,
            now=now,
        )
        return Plan(index, draft, WriteAction.CREATED, [created], created)
    except GraphitError as exc:
        raise at(index, exc) from None


def stamped(plan: Plan, stamp: Stamp) -> Plan:
    """`plan` with its new live row carrying `stamp`'s provenance and status."""
    row = replace(plan.result, provenance=stamp.provenance, status=stamp.status)
    rows = [row if r is plan.result else r for r in plan.rows]
    return replace(plan, rows=rows, result=row) if plan.rows else plan


def newest(heads: dict[str, tuple[Memory | None, Memory | None]], memory_id: str) -> Memory | None:
    """The live row, or for a deleted memory its final revision."""
    live, tail = heads.get(memory_id, (None, None))
    return live or tail
