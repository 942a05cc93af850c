"""JSON shapes of the /api/memories contract (the project's Explorer contract), built from
service results.

Pure functions over Memory rows: no I/O, no memory logic (the service decided what the rows are).
"""

from __future__ import annotations

from typing import Any

from graphit_cli.core.models import CatalogueEntry, CataloguePage, Memory
from graphit_cli.core.provenance import shown_status
from graphit_cli.explorer import markdown
from graphit_cli.formats.render import format_time, stale_of


def item(memory: Memory, snippet: str | None = None, score: float | None = None) -> dict[str, Any]:
    """A catalogue entry: what the list shows of one memory."""
    shaped: dict[str, Any] = {
        "id": memory.id,
        "title": memory.title,
        "type": memory.type,
        "tags": list(memory.tags),
        "important": memory.important,
        "mandatory": memory.mandatory,
        "created_at": format_time(memory.created_at, precise=True),
        "updated_at": format_time(memory.updated_at, precise=True),
        "revision": memory.revision,
        # null, or the anchors that no longer hold in the Explorer's checkout (never stored)
        "stale": stale_of(memory),
    }
    if snippet is not None:
        shaped["snippet"] = snippet
    if score is not None:
        shaped["score"] = round(score, 6)
    return shaped


def entry(found: CatalogueEntry) -> dict[str, Any]:
    return item(found.memory, found.snippet, found.score)


def page(found: CataloguePage) -> dict[str, Any]:
    return {
        "results": [entry(e) for e in found.entries],
        "total": found.total,
        "types": found.types,
        "tags": found.tags,
    }


def scope_name(memory: Memory) -> str:
    """The `scope` query value that selects the row's scope: project, user or context:NAME."""
    return f"context:{memory.scope_id}" if memory.scope_kind == "context" else memory.scope_kind


def row(memory: Memory) -> dict[str, Any]:
    """One row in full: the item fields, the Markdown source and its rendering, and the
    authoritative metadata (scope identity, author, hash, chain links, address)."""
    return {
        **item(memory),
        "body": memory.body,
        "body_html": markdown.render(memory.body),
        "updated_by": memory.updated_by,
        "scope": scope_name(memory),
        "scope_id": memory.scope_id,
        "content_hash": memory.content_hash,
        "previous": memory.previous,
        "next": memory.next,
        "key": memory.key,
        "revision_id": memory.revision_id,
        "superseded": memory.superseded,
        "anchors": list(memory.anchors),
        "verified_at": format_time(memory.verified_at, precise=True)
        if memory.verified_at
        else None,
        "status": shown_status(memory.status),
        "provenance": memory.provenance.to_dict() if memory.provenance else None,
    }


def revision(memory: Memory) -> dict[str, Any]:
    return {
        "revision_id": memory.revision_id,
        "revision": memory.revision,
        "title": memory.title,
        "updated_at": format_time(memory.updated_at, precise=True),
        "updated_by": memory.updated_by,
        "superseded": memory.superseded,
        "key": memory.key,
        "provenance": memory.provenance.to_dict() if memory.provenance else None,
    }


def trace(history: list[Memory]) -> dict[str, Any]:
    """The trace view of a chain (oldest first, as `MemoryService.history` returns it): the
    current row, or the final archive of a deleted memory, and every revision newest first."""
    head = history[-1]
    return {
        "memory": row(head),
        "revisions": [revision(m) for m in reversed(history)],
        "current": head.is_live,
    }
