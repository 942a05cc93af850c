"""Presentation of review: the queue (each proposal with its change against the memory as it
now reads) and the audit, as JSON, Markdown and plain tables. No Rich, no Typer."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from graphit_cli.formats.render import format_time, short_time, table, to_dict, to_markdown

if TYPE_CHECKING:
    from graphit_cli.core.models import AuditEvent, Memory, Proposal


def change_of(proposal: Memory, current: Memory | None) -> dict[str, Any]:
    """What the proposal changes: "create", "update" (each changed field as [now, proposed],
    the body as a unified diff) or "delete"."""
    stamp = proposal.provenance
    if stamp is not None and stamp.change == "delete":
        return {"kind": "delete"}
    if current is None:
        return {"kind": "create"}
    fields: dict[str, Any] = {}
    for name in ("title", "type", "important", "mandatory"):
        before, after = getattr(current, name), getattr(proposal, name)
        if before != after:
            fields[name] = [before, after]
    if current.tags != proposal.tags:
        fields["tags"] = [list(current.tags), list(proposal.tags)]
    diff = ""
    if current.body != proposal.body:
        diff = "".join(
            difflib.unified_diff(
                (current.body + "\n").splitlines(keepends=True),
                (proposal.body + "\n").splitlines(keepends=True),
                fromfile=f"{current.key} (revision {current.revision})",
                tofile=proposal.key,
            )
        )
    return {"kind": "update", "fields": fields, "body_diff": diff}


def proposal_to_dict(item: Proposal) -> dict[str, Any]:
    return {
        "proposal": to_dict(item.row),
        "current": to_dict(item.current) if item.current is not None else None,
        "change": change_of(item.row, item.current),
    }


def proposal_to_markdown(item: Proposal) -> str:
    change = change_of(item.row, item.current)
    extra = [("change", f'"{change["kind"]}"')]
    text = to_markdown(item.row, extra)
    if change.get("body_diff"):
        text += "\n```diff\n" + change["body_diff"] + "```\n"
    return text


def queue_table(items: list[Proposal]) -> str:
    rows = [
        [
            p.row.key,
            p.row.provenance.author if p.row.provenance else p.row.updated_by,
            p.row.provenance.via if p.row.provenance else "",
            short_time(p.row.updated_at),
            change_of(p.row, p.current)["kind"],
            p.row.title,
        ]
        for p in items
    ]
    return table(["PROPOSAL", "AUTHOR", "VIA", "PROPOSED", "CHANGE", "TITLE"], rows)


def event_to_dict(event: AuditEvent) -> dict[str, Any]:
    return {
        "at": format_time(event.at, precise=True),
        "action": event.action,
        "actor": event.actor,
        "via": event.via,
        "id": event.id,
        "key": event.key,
        "revision": event.revision,
        "title": event.title,
        "reason": event.reason,
    }


def event_to_markdown(event: AuditEvent) -> str:
    reason = f" ({event.reason})" if event.reason else ""
    via = f" via {event.via}" if event.via else ""
    return (
        f"- {format_time(event.at)} {event.actor} {event.action} {event.key}{via}: "
        f"{event.title}{reason}\n"
    )


def audit_table(events: list[AuditEvent]) -> str:
    rows = [
        [
            short_time(e.at),
            e.action,
            e.actor,
            e.via or "",
            e.key,
            e.title + (f" ({e.reason})" if e.reason else ""),
        ]
        for e in events
    ]
    return table(["AT", "ACTION", "ACTOR", "VIA", "KEY", "TITLE"], rows)
