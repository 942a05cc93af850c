"""The files people already keep agent memory in, read as memory drafts with stable keys.

- `AGENTS.md` / `CLAUDE.md` / `GEMINI.md`: one memory per second-level section (heading =
  title, section text = body), mandatory (these files load into every session), type
  convention unless a `Type: ...` first line or the heading ("Decisions", "Constraints", ...)
  says otherwise; tagged with the file name. Text before the first section is one more memory
  under the file's first heading.
- Cursor rules: `.cursor/rules/*.mdc` (frontmatter `description`, `globs`, `alwaysApply`;
  always applied -> mandatory, otherwise important; globs become tags) and a legacy
  `.cursorrules` file (mandatory; split by sections when it has them).
- The MCP reference memory server's `memory.jsonl` / `memory.json`: one fact per entity, its
  observations as a list, its relations appended, its entityType as a tag.
- Markdown notes with YAML frontmatter (`title`, `type`, `tags`, dates); a note without
  frontmatter takes its first heading (or its file name) as title.

Each parser returns (items, problems): a broken record is reported with its file and line and
the others still import. Keys are stable (file + heading, entity name), so a re-import
updates the same memory instead of adding one. (Over 400 lines: four small parsers that share
their record and type helpers, kept together so those stay private to this module.)
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from graphit_cli import revisions
from graphit_cli.errors import InvalidInput
from graphit_cli.models import MEMORY_TYPES, MemoryDraft
from graphit_cli.portability.markdown import (
    FrontmatterError,
    read_document,
    sections,
    strip_title_heading,
)
from graphit_cli.portability.model import Item, Problem

Parsed = tuple[list[Item], list[Problem]]

AGENT_FILES = ("agents.md", "claude.md", "gemini.md")
# Words in a heading that name a memory type ("Decisions", "Known constraints", ...).
_TYPE_WORDS = {**{t: t for t in MEMORY_TYPES}, **{f"{t}s": t for t in MEMORY_TYPES}}
# Types other tools write that mean one of ours.
_TYPE_SYNONYMS = {"note": "fact", "notes": "fact", "rule": "convention", "rules": "convention"}


class AtLine(InvalidInput):
    """A problem inside a record, at a line of its own."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def read_text(path: Path, rel: str) -> tuple[str | None, list[Problem]]:
    try:
        return path.read_text(encoding="utf-8"), []
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(rel, 0, f"cannot read: {exc}")]


def _type_of(value: str) -> str:
    lowered = value.strip().lower()
    return revisions.validate_type(_TYPE_SYNONYMS.get(lowered, lowered))


def _section_type(heading: str, body: str, default: str) -> tuple[str, str]:
    """(type, body): a first line `Type: X` wins (and is dropped), then a type word in the
    heading, then `default`."""
    lines = body.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].strip().lower().startswith("type:"):
        value = lines[first].split(":", 1)[1]
        return _type_of(value), "\n".join(lines[:first] + lines[first + 1 :])
    for word in "".join(c if c.isalnum() else " " for c in heading.lower()).split():
        if word in _TYPE_WORDS:
            return _TYPE_WORDS[word], body
    return default, body


def _item(
    items: list[Item],
    problems: list[Problem],
    seen: dict[str, int],
    *,
    key: str,
    rel: str,
    line: int,
    build: Any,
) -> None:
    """Build one draft; a bad one becomes a problem, a repeated key too."""
    if key in seen:
        problems.append(Problem(rel, line, f"repeats the record at line {seen[key]}: skipped"))
        return
    try:
        draft = build()
        _validate(draft)
    except InvalidInput as exc:
        problems.append(Problem(rel, getattr(exc, "line", line), exc.message))
        return
    seen[key] = line
    items.append(Item(key, rel, line, draft))


def _validate(draft: MemoryDraft) -> None:
    revisions.validate_title(draft.title or "")
    revisions.normalise_body(draft.body or "")
    revisions.validate_type(draft.type or "fact")
    revisions.normalise_tags(draft.tags or ())


# --- AGENTS.md / CLAUDE.md / GEMINI.md ----------------------------------------------------


def agent_file(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    return _sectioned(text, rel, prefix="agents", tag=path.name.lower(), mandatory=True)


def _sectioned(text: str, rel: str, *, prefix: str, tag: str, mandatory: bool) -> Parsed:
    items: list[Item] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    preamble, found = sections(text.replace("\r\n", "\n"), level=2)
    title, rest = strip_title_heading(preamble)
    if rest.strip():
        _item(
            items,
            problems,
            seen,
            key=f"{prefix}:{rel}#",
            rel=rel,
            line=1,
            build=lambda: _section_draft(title or Path(rel).name, rest, tag, mandatory),
        )
    for heading, body in found:
        line = heading.line + 1
        if not body.strip():
            problems.append(Problem(rel, line, f"section {heading.text!r} is empty: skipped"))
            continue
        _item(
            items,
            problems,
            seen,
            key=f"{prefix}:{rel}#{heading.text}",
            rel=rel,
            line=line,
            build=lambda h=heading.text, b=body: _section_draft(h, b, tag, mandatory),
        )
    return items, problems


def _section_draft(heading: str, body: str, tag: str, mandatory: bool) -> MemoryDraft:
    memory_type, body = _section_type(heading, body, "convention")
    return MemoryDraft(title=heading, body=body, type=memory_type, tags=(tag,), mandatory=mandatory)


# --- Cursor rules -------------------------------------------------------------------------


def cursor_rule(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    items: list[Item] = []
    seen: dict[str, int] = {}
    try:
        document = read_document(text)
    except FrontmatterError as exc:
        return [], [Problem(rel, exc.line, exc.message)]

    def build() -> MemoryDraft:
        meta = document.meta
        always = meta.get("alwaysApply", False)
        if not isinstance(always, bool):
            raise InvalidInput("alwaysApply must be true or false")
        globs = _globs(meta.get("globs"))
        description = meta.get("description")
        if description is not None and not isinstance(description, str):
            raise InvalidInput("description must be a string")
        heading, _ = strip_title_heading(document.body)
        title = (description or "").strip() or heading or path.stem
        body = document.body
        if globs:
            body = body.rstrip() + "\n\nApplies to: " + ", ".join(f"`{g}`" for g in globs)
        tags = ("cursor", *(t for t in (_glob_tag(g) for g in globs) if t))
        return MemoryDraft(
            title=title,
            body=body,
            type="convention",
            tags=tags,
            important=not always,
            mandatory=always,
        )

    _item(items, problems, seen, key=f"cursor:{rel}", rel=rel, line=1, build=build)
    return items, problems


def _globs(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [g.strip() for g in value.split(",") if g.strip()]
    if isinstance(value, list) and all(isinstance(g, str) for g in value):
        return [g.strip() for g in value if g.strip()]
    raise InvalidInput("globs must be a string or a list of strings")


def _glob_tag(glob: str) -> str | None:
    """A tag for a glob: `**/*.py` -> `py`, `src/api/**` -> `src/api` (None if nothing left)."""
    parts = []
    for part in glob.split("/"):
        kept = "".join(c for c in part if c not in "*?[]{}!")
        kept = kept.lstrip(".") if part.startswith("*") else kept
        if kept:
            parts.append(kept)
    candidate = "/".join(parts).replace(",", "-")
    try:
        return revisions.validate_tag(candidate) if candidate else None
    except InvalidInput:
        return None


def cursorrules(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    _, found = sections(text, level=2)
    if found:
        return _sectioned(text, rel, prefix="cursor", tag="cursor", mandatory=True)
    items: list[Item] = []
    seen: dict[str, int] = {}
    title, body = strip_title_heading(text)
    _item(
        items,
        problems,
        seen,
        key=f"cursor:{rel}",
        rel=rel,
        line=1,
        build=lambda: MemoryDraft(
            title=title or "Cursor rules",
            body=body,
            type="convention",
            tags=("cursor",),
            mandatory=True,
        ),
    )
    return items, problems


# --- the MCP reference memory server ------------------------------------------------------


def mcp_memory(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    records = _json_records(text, rel, problems)
    entities: dict[str, tuple[int, dict[str, Any]]] = {}
    relations: dict[str, list[str]] = {}
    first_relation: dict[str, int] = {}
    for line, record in records:
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "entity":
            name = record.get("name")
            if not isinstance(name, str) or not name.strip():
                problems.append(Problem(rel, line, "entity without a name: skipped"))
            elif name in entities:
                problems.append(
                    Problem(rel, line, f"entity {name!r} repeats line {entities[name][0]}: skipped")
                )
            else:
                entities[name] = (line, record)
        elif kind == "relation":
            ends = [record.get(k) for k in ("from", "relationType", "to")]
            if not all(isinstance(v, str) and v.strip() for v in ends):
                problems.append(Problem(rel, line, "relation needs from, relationType and to"))
                continue
            source, verb, target = (str(v) for v in ends)
            relations.setdefault(source, []).append(f"- {source} {verb} {target}")
            first_relation.setdefault(source, line)
        else:
            problems.append(Problem(rel, line, 'expected "type": "entity" or "relation"'))
    items: list[Item] = []
    seen: dict[str, int] = {}
    for name, (line, record) in entities.items():
        _item(
            items,
            problems,
            seen,
            key=f"mcp-memory:{name}",
            rel=rel,
            line=line,
            build=lambda n=name, r=record: _entity_draft(n, r, relations.get(n, [])),
        )
    for source in sorted(set(relations) - set(entities)):
        problems.append(
            Problem(
                rel, first_relation[source], f"relation from unknown entity {source!r}: skipped"
            )
        )
    return items, problems


def _json_records(text: str, rel: str, problems: list[Problem]) -> list[tuple[int, Any]]:
    """JSON Lines (what the server writes, whatever the file is called), or one JSON document:
    a list of records or `{"entities": [...], "relations": [...]}`."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, list):
        return [(0, r) for r in whole]
    if isinstance(whole, dict) and ("entities" in whole or "relations" in whole):
        entities = whole.get("entities") or []
        links = whole.get("relations") or []
        return [(0, {"type": "entity", **e}) for e in entities if isinstance(e, dict)] + [
            (0, {"type": "relation", **r}) for r in links if isinstance(r, dict)
        ]
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(rel, number, f"invalid JSON: {exc.msg}"))
    return records


def _entity_draft(name: str, record: dict[str, Any], relations: list[str]) -> MemoryDraft:
    observations = record.get("observations", [])
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        raise InvalidInput(f"entity {name!r}: observations must be a list of strings")
    entity_type = record.get("entityType")
    if entity_type is not None and not isinstance(entity_type, str):
        raise InvalidInput(f"entity {name!r}: entityType must be a string")
    lines = [f"- {o.strip()}" for o in observations if o.strip()]
    if relations:
        lines += ["", "Relations:", *relations]
    if not lines:
        raise InvalidInput(f"entity {name!r} has no observations and no relations")
    tags = ["mcp-memory"]
    memory_type = "fact"
    if entity_type:
        slug = "-".join(entity_type.strip().lower().split())
        if slug in MEMORY_TYPES:
            memory_type = slug
        try:
            tags.append(revisions.validate_tag(slug))
        except InvalidInput:
            pass
    return MemoryDraft(title=name, body="\n".join(lines), type=memory_type, tags=tuple(tags))


# --- Markdown notes -----------------------------------------------------------------------


def note(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    items: list[Item] = []
    seen: dict[str, int] = {}
    try:
        document = read_document(text)
    except FrontmatterError as exc:
        return [], [Problem(rel, exc.line, exc.message)]
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
                memory_type = _type_of(memory_type)
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

    _item(items, problems, seen, key=f"notes:{rel}", rel=rel, line=1, build=build)
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
