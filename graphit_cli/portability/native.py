"""graphit's own export formats, written and read back with ids, revisions, links and dates.

- NDJSON: one full row per line, the stable JSON shape of `render.to_dict` (live rows; with
  history the archived revisions too; with vectors the embedding and its model).
- Markdown: a folder with `<id>.md` per live memory (the byte-stable `source` rendering) and
  `history/<id>/<revision_id>.md` per archived revision.

Reading them back gives Memory rows; `plan_rows` decides, against what the table already
holds, which rows to write so that importing the same export twice changes nothing and a
newer export moves each chain forward (never backward).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphit_cli.access.scopes import Scope
from graphit_cli.core import provenance, revisions
from graphit_cli.core.models import Memory
from graphit_cli.errors import InvalidInput
from graphit_cli.formats import render
from graphit_cli.portability.markdown import Document

HISTORY_DIR = "history"


# --- export -------------------------------------------------------------------------------


def row_to_dict(memory: Memory, model: str | None = None) -> dict[str, Any]:
    data = render.to_dict(memory)
    if memory.embedding is not None and model:
        data["embedding"] = list(memory.embedding)
        data["embedding_model"] = model
    return data


def ndjson_lines(rows: Iterable[Memory], model: str | None = None) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row_to_dict(row, model), ensure_ascii=False) + "\n"


def write_markdown_folder(rows: Iterable[Memory], folder: Path) -> int:
    """Write `<id>.md` and `history/<id>/<revision_id>.md` files; returns how many."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InvalidInput(f"{folder} exists and is not an empty folder: choose a new path")
    written = 0
    for row in rows:
        if row.is_live:
            target = folder / f"{row.id}.md"
        else:
            target = folder / HISTORY_DIR / row.id / f"{row.revision_id}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render.to_markdown(row), encoding="utf-8")
        written += 1
    return written


# --- reading rows back --------------------------------------------------------------------


def looks_native(data: Any) -> bool:
    """An NDJSON record written by `export` (rather than a draft to upsert)."""
    return isinstance(data, dict) and "key" in data and "content_hash" in data


def looks_native_meta(meta: dict[str, Any]) -> bool:
    """Frontmatter printed by `source` / written by `export --format markdown`."""
    return {"id", "revision", "updated_by", "created_at", "updated_at"} <= set(meta)


def row_from_dict(data: Any, scope: Scope) -> Memory:
    if not isinstance(data, dict):
        raise InvalidInput("expected a JSON object per line")
    memory = _row(data, data.get("body"), scope)
    embedding = data.get("embedding")
    if embedding is not None:
        if not isinstance(embedding, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in embedding
        ):
            raise InvalidInput("embedding must be a list of numbers")
        memory = replace(memory, embedding=tuple(float(v) for v in embedding))
    return memory


def row_from_document(document: Document) -> tuple[dict[str, Any], str]:
    """The frontmatter and the body of an exported Markdown file (the `# Title` line and the
    blank line after it are presentation, not body)."""
    lines = document.body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    title = document.meta.get("title")
    if lines and isinstance(title, str) and lines[0] == f"# {title}":
        lines.pop(0)
    return document.meta, "\n".join(lines)


def row_from_markdown(document: Document, scope: Scope) -> Memory:
    meta, body = row_from_document(document)
    return _row(meta, body, scope)


def _row(data: dict[str, Any], body: Any, scope: Scope) -> Memory:
    def text(name: str, *, optional: bool = False) -> str | None:
        value = data.get(name)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise InvalidInput(f"{name} must be a string")
        return value

    def flag(name: str) -> bool:
        value = data.get(name, False)
        if not isinstance(value, bool):
            raise InvalidInput(f"{name} must be true or false")
        return value

    memory_id = revisions.validate_id(text("id") or "")
    revision_id = text("revision_id", optional=True) or ""
    if revision_id:
        revision_id = revisions.validate_id(revision_id)
    key = revisions.archive_key(memory_id, revision_id) if revision_id else memory_id
    if data.get("key") not in (None, key):
        raise InvalidInput(f"key {data.get('key')!r} does not match id and revision_id")
    revision = data.get("revision")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise InvalidInput("revision must be a positive whole number")
    title = revisions.validate_title(text("title") or "")
    if not isinstance(body, str):
        raise InvalidInput("body must be a string")
    body = revisions.normalise_body(body)
    memory_type = revisions.validate_type(text("type") or "")
    tags_value = data.get("tags", [])
    if not isinstance(tags_value, list) or not all(isinstance(t, str) for t in tags_value):
        raise InvalidInput("tags must be a list of strings")
    tags = revisions.normalise_tags(tags_value)
    created = _time(data.get("created_at"), "created_at")
    updated = _time(data.get("updated_at"), "updated_at")
    anchors = data.get("anchors") or []
    if not isinstance(anchors, list) or not all(isinstance(a, str) for a in anchors):
        raise InvalidInput("anchors must be a list of strings")
    verified = data.get("verified_at")
    stamp = data.get("provenance")
    if stamp is not None and not isinstance(stamp, dict):
        raise InvalidInput("provenance must be an object")
    status = data.get("status")
    if status not in (None, "approved"):
        raise InvalidInput("status: only approved revisions are exported and imported")
    previous = text("previous", optional=True)
    successor = text("next", optional=True)
    for link in (previous, successor):
        if link is not None:
            revisions.parse_ref(link)
    return Memory(
        key=key,
        id=memory_id,
        revision_id=revision_id,
        revision=revision,
        previous=previous,
        next=successor,
        superseded=bool(revision_id),
        title=title,
        body=body,
        type=memory_type,
        tags=tags,
        important=flag("important"),
        mandatory=flag("mandatory"),
        created_at=created,
        updated_at=updated,
        scope_kind=scope.kind,
        scope_id=scope.id,
        updated_by=text("updated_by") or "",
        content_hash=revisions.content_hash(title, body, memory_type, tags),
        anchors=tuple(anchors),
        verified_at=_time(verified, "verified_at") if verified is not None else None,
        provenance=provenance.from_json(json.dumps(stamp, default=str)) if stamp else None,
    )


def _time(value: Any, name: str) -> datetime:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(f"{name} is not an ISO 8601 timestamp: {value!r}") from None
    else:
        raise InvalidInput(f"{name} must be an ISO 8601 timestamp")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


# --- planning the write -------------------------------------------------------------------


def _link_rank(row: Memory) -> int:
    """How far along the chain an archived row's `next` link is: deleted here (no successor),
    then followed by the live row, then by a newer archive. Links only move forward."""
    if row.next is None:
        return 0
    return 1 if row.next == row.id else 2


def _same(a: Memory, b: Memory) -> bool:
    """The same revision (a vector, and a status that only says "approved", aside)."""
    return replace(a, embedding=None, status=None) == replace(b, embedding=None, status=None)


@dataclass
class RowPlan:
    """Which rows to write for an import, and what happened to each chain."""

    created: set[str] = field(default_factory=set)
    updated: set[str] = field(default_factory=set)
    conflicts: dict[str, str] = field(default_factory=dict)

    def __call__(
        self, incoming: list[Memory], existing: list[Memory]
    ) -> tuple[list[Memory], list[str]]:
        have = {m.key: m for m in existing}
        known_ids = {m.id for m in existing}
        closed_at: dict[str, int] = {}
        for row in existing:
            if not row.is_live and row.next is None:
                closed_at[row.id] = max(closed_at.get(row.id, 0), row.revision)
        incoming_live = {m.id for m in incoming if m.is_live}
        write: list[Memory] = []
        remove: list[str] = []

        def changed(row: Memory, new: Memory) -> None:
            write.append(new)
            (self.updated if row.id in known_ids else self.created).add(row.id)

        for row in incoming:
            old = have.get(row.key)
            if old is None:
                if row.is_live and closed_at.get(row.id, 0) >= row.revision:
                    continue  # deleted here after the revision the export holds
                changed(row, row)
            elif row.is_live and row.revision > old.revision:
                changed(row, row)
            elif row.is_live and row.revision == old.revision and not _same(row, old):
                self.conflicts[row.id] = (
                    f"revision {row.revision} differs from this table's; kept this table's"
                )
            elif row.is_live and row.revision < old.revision:
                self.conflicts[row.id] = (
                    f"this table is at revision {old.revision}, the import at {row.revision}"
                )
            elif not row.is_live and _link_rank(row) > _link_rank(old):
                changed(row, replace(old, next=row.next))
            elif old.embedding is None and row.embedding is not None and _same(row, old):
                changed(row, replace(old, embedding=row.embedding))
        for row in incoming:
            if row.is_live or row.next is not None or row.id in incoming_live:
                continue
            live = have.get(row.id)
            if live is not None and live.revision <= row.revision:
                remove.append(live.key)  # the export's chain was deleted at or after it
                self.updated.add(row.id)
        return write, remove
