"""The audit: who wrote, proposed, approved, rejected, deleted, restored or redacted which
memory, and when, read from every chain of a scope's table (the revisions' provenance and the
proposal rows, core/provenance.py). Must not import Typer or Rich."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from graphit_cli.core.models import AuditEvent, Memory
from graphit_cli.core.provenance import ACCEPTED, PROPOSED, REJECTED, Provenance

if TYPE_CHECKING:
    from graphit_cli.store.base import Store


def audit(
    store: Store, *, since: datetime | None = None, author: str | None = None
) -> list[AuditEvent]:
    """Every event of the table's chains, oldest first; `since`, `author`: only those."""
    rows = store.export_rows(archived=True) + store.proposals()
    events: list[AuditEvent] = []
    for row in rows:
        events += _events(row)
    if since is not None:
        events = [e for e in events if e.at >= since]
    if author:
        wanted = author.strip().casefold()
        events = [e for e in events if e.actor.casefold() == wanted]
    return sorted(events, key=lambda e: (e.at, e.key, e.action))


def _stamp_of(row: Memory) -> Provenance:
    return row.provenance or Provenance(author=row.updated_by, via="")


def _moment(text: str | None, fallback: datetime) -> datetime:
    if not text:
        return fallback
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return fallback


def _events(row: Memory) -> list[AuditEvent]:
    """The events one row records."""
    stamp = _stamp_of(row)

    def event(action: str, actor: str, at: datetime, **more: str | None) -> AuditEvent:
        via = more.pop("via", stamp.via or None)
        return AuditEvent(at, action, actor, row.id, row.key, row.revision, row.title, via, **more)

    found: list[AuditEvent] = []
    if row.status in (PROPOSED, REJECTED, ACCEPTED):
        action = "proposed-delete" if stamp.change == "delete" else "proposed"
        found.append(event(action, stamp.author, _moment(stamp.proposed_at, row.updated_at)))
        if row.status == REJECTED and stamp.rejected_by:
            at = _moment(stamp.rejected_at, row.updated_at)
            found.append(event("rejected", stamp.rejected_by, at, via=None, reason=stamp.reason))
        if row.status == ACCEPTED and stamp.approved_by:
            at = _moment(stamp.approved_at, row.updated_at)
            found.append(event("approved", stamp.approved_by, at, via=None))
        return found
    found.append(
        event("restored" if stamp.via == "restore" else "wrote", stamp.author, row.updated_at)
    )
    if stamp.deletion is not None or (not row.is_live and row.next is None):
        deleter = stamp.deletion or {}
        at = _moment(str(deleter.get("at") or ""), row.updated_at)
        actor = str(deleter.get("author") or "unknown")
        found.append(event("deleted", actor, at, via=deleter.get("via")))
    if stamp.redaction is not None:
        at = _moment(str(stamp.redaction.get("at") or ""), row.updated_at)
        found.append(event("redacted", str(stamp.redaction.get("author") or "?"), at, via=None))
    return found
