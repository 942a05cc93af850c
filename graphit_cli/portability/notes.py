"""Markdown notes with YAML frontmatter (`title`, `type`, `tags`, dates), read as drafts.

A note without frontmatter takes its first heading (or its file name) as title. The key is the
file's path, so a re-import updates the same memory. See `foreign` for the other formats and
the helpers they share.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import InvalidInput
from graphit_cli.portability.foreign import Parsed, add_item, read_frontmatter_file, type_of
from graphit_cli.portability.markdown import strip_title_heading
from graphit_cli.portability.model import Item


class AtLine(InvalidInput):
    """A problem inside a record, at a line of its own."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def note(path: Path, rel: str) -> Parsed:
    document, problems = read_frontmatter_file(path, rel)
    if document is None:
        return [], problems
    items: list[Item] = []
    seen: dict[str, int] = {}
    meta = document.meta
    line_of = document.meta_lines

    def build() -> MemoryDraft:
        heading, body = strip_title_heading(document.body)
        title = meta.get("title")
        if title is None:
            title = heading or path.stem
            if not heading:
                body = document.body
        elif not isinstance(title, str):
            raise InvalidInput("title must be a string")
        elif heading is not None and heading.strip() != title.strip():
            body = document.body
        memory_type = meta.get("type")
        if memory_type is not None:
            at = line_of.get("type", 1)
            if not isinstance(memory_type, str):
                raise AtLine(at, "type must be a string")
            try:
                memory_type = type_of(memory_type)
            except InvalidInput as exc:
                raise AtLine(at, exc.message) from None
        return MemoryDraft(
            title=title,
            body=body,
            type=memory_type,
            tags=_note_tags(meta.get("tags", meta.get("tag"))),
            important=_flag(meta, "important"),
            mandatory=_flag(meta, "mandatory"),
            created_at=_date(meta, ("created_at", "created", "date")),
            updated_at=_date(meta, ("updated_at", "updated", "modified")),
        )

    add_item(items, problems, seen, key=f"notes:{rel}", rel=rel, line=1, build=build)
    return items, problems


def _note_tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise InvalidInput("tags must be a list of strings")
    return tuple(t.strip().lstrip("#") for t in value if t.strip().lstrip("#"))


def _flag(meta: dict[str, Any], name: str) -> bool | None:
    value = meta.get(name)
    if value is None or isinstance(value, bool):
        return value
    raise InvalidInput(f"{name} must be true or false")


def _date(meta: dict[str, Any], names: tuple[str, ...]) -> datetime | None:
    for name in names:
        value = meta.get(name)
        if value is None:
            continue
        if isinstance(value, datetime):
            moment = value
        elif isinstance(value, date):
            moment = datetime(value.year, value.month, value.day)
        elif isinstance(value, str):
            try:
                moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                raise InvalidInput(f"{name} is not a date: {value!r}") from None
        else:
            raise InvalidInput(f"{name} is not a date")
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    return None
