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
  observations as a list, its relations appended, its entityType as a tag (`mcp_memory.py`).
- Markdown notes with YAML frontmatter (`title`, `type`, `tags`, dates); a note without
  frontmatter takes its first heading (or its file name) as title (`notes.py`).

Each parser returns (items, problems): a broken record is reported with its file and line and
the others still import. Keys are stable (file + heading, entity name), so a re-import
updates the same memory instead of adding one. This module holds the instruction files (the
first two) and the record and type helpers every parser shares (`read_text`, `add_item`,
`type_of`); the other two formats have a module each.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from graphit_cli.core import revisions
from graphit_cli.core.models import MEMORY_TYPES, MemoryDraft
from graphit_cli.errors import InvalidInput
from graphit_cli.portability.markdown import (
    Document,
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


def read_text(path: Path, rel: str) -> tuple[str | None, list[Problem]]:
    """The file's text, or None and why: a file that is not UTF-8 is named with the line and
    byte that are wrong, as `upsert` names them."""
    from graphit_cli.formats.parse import NotUtf8, decode_text

    try:
        return decode_text(path.read_bytes(), rel), []
    except NotUtf8 as exc:  # the line is the Problem's: "notes.md:4: not UTF-8 text: ..."
        why = (
            f"not UTF-8 text: byte 0x{exc.byte:02x} "
            "(convert it first, e.g. `iconv -f latin1 -t utf-8`)"
        )
        return None, [Problem(rel, exc.line, why)]
    except OSError as exc:
        return None, [Problem(rel, 0, f"cannot read: {exc}")]


def read_frontmatter_file(path: Path, rel: str) -> tuple[Document | None, list[Problem]]:
    """A Markdown file with optional YAML frontmatter, or None and why it cannot be read."""
    text, problems = read_text(path, rel)
    if text is None:
        return None, problems
    try:
        return read_document(text), []
    except FrontmatterError as exc:
        return None, [Problem(rel, exc.line, exc.message)]


def type_of(value: str) -> str:
    lowered = value.strip().lower()
    return revisions.validate_type(_TYPE_SYNONYMS.get(lowered, lowered))


def _section_type(heading: str, body: str, default: str) -> tuple[str, str]:
    """(type, body): a first line `Type: X` wins (and is dropped), then a type word in the
    heading, then `default`."""
    lines = body.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].strip().lower().startswith("type:"):
        value = lines[first].split(":", 1)[1]
        return type_of(value), "\n".join(lines[:first] + lines[first + 1 :])
    for word in "".join(c if c.isalnum() else " " for c in heading.lower()).split():
        if word in _TYPE_WORDS:
            return _TYPE_WORDS[word], body
    return default, body


def add_item(
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


# The block `graphit agent install` writes into CLAUDE.md / GEMINI.md / AGENTS.md
# (agents/files.py BEGIN and END; tests/test_import_identity.py holds the two together): it is
# graphit's own guidance, never a memory to import.
_MANAGED_BLOCK = re.compile(r"<!-- graphit:begin\b.*?-->.*?<!-- graphit:end -->", re.DOTALL)


def without_managed_block(text: str) -> str:
    """`text` without graphit's managed blocks; their lines stay as blank lines, so the line
    numbers of everything after them are the file's own."""
    return _MANAGED_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def agent_file(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    text = without_managed_block(text.replace("\r\n", "\n"))
    return _sectioned(text, rel, prefix="agents", tag=path.name.lower(), mandatory=True)


def _sectioned(text: str, rel: str, *, prefix: str, tag: str, mandatory: bool) -> Parsed:
    items: list[Item] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    preamble, found = sections(text.replace("\r\n", "\n"), level=2)
    title, rest = strip_title_heading(preamble)
    if rest.strip():
        add_item(
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
        add_item(
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
    document, problems = read_frontmatter_file(path, rel)
    if document is None:
        return [], problems
    items: list[Item] = []
    seen: dict[str, int] = {}

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

    add_item(items, problems, seen, key=f"cursor:{rel}", rel=rel, line=1, build=build)
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
    add_item(
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
