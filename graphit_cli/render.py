"""Presentation and input parsing: Markdown with YAML frontmatter, JSON, NDJSON and plain tables.

Rendering is byte-stable (scripts diff it). Parsing turns Markdown/JSON/NDJSON text into
MemoryDrafts and rejects malformed input with one-line InvalidInput errors. No Rich, no Typer:
the CLI decides where the text goes (`cli/output.py` picks a rendering per --format).

Longer than 400 lines on purpose: the two halves are one format read both ways (`source`,
edit, `upsert` must round-trip), so they change together. Shared by every adapter (CLI, MCP,
Explorer, import/export).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphit_cli.errors import InvalidInput
from graphit_cli.models import Memory, MemoryDraft, MemoryFilter, SearchHit, WriteResult
from graphit_cli.revisions import normalise_tags, validate_type

# --- output -------------------------------------------------------------------------------


def format_time(moment: datetime, *, precise: bool = False) -> str:
    """RFC 3339 in UTC; seconds for people (frontmatter, tables), microseconds for JSON."""
    moment = moment.astimezone(UTC)
    if precise and moment.microsecond:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def short_time(moment: datetime) -> str:
    """Minutes in UTC, for table columns: `2026-08-24 12:00`."""
    return format_time(moment)[:16].replace("T", " ")


def _q(value: str) -> str:
    """A YAML double-quoted scalar: JSON's escaping, plus YAML's own non-printables escaped."""
    return "".join(
        ch
        if _yaml_printable(ch)
        else (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        for ch in json.dumps(value, ensure_ascii=False)
    )


def _yaml_printable(ch: str) -> bool:
    # YAML's printable set, less the characters PyYAML treats as line breaks (NEL, LS, PS).
    code = ord(ch)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code not in (0xFEFF,))
        or 0x10000 <= code <= 0x10FFFF
    ) and code not in (0x2028, 0x2029)


def frontmatter_fields(memory: Memory) -> list[tuple[str, str]]:
    fields = [
        ("id", _q(memory.id)),
        ("title", _q(memory.title)),
        ("type", _q(memory.type)),
        ("tags", "[" + ", ".join(_q(t) for t in memory.tags) + "]"),
        ("created_at", format_time(memory.created_at)),
        ("updated_at", format_time(memory.updated_at)),
        ("important", _bool(memory.important)),
        ("mandatory", _bool(memory.mandatory)),
        ("revision", str(memory.revision)),
        ("updated_by", _q(memory.updated_by)),
    ]
    if not memory.is_live:
        fields += [
            ("revision_id", _q(memory.revision_id)),
            ("superseded", _bool(memory.superseded)),
            ("previous", _q(memory.previous) if memory.previous else "null"),
            ("next", _q(memory.next) if memory.next else "null"),
        ]
    return fields


def _bool(value: bool) -> str:
    return "true" if value else "false"


def to_markdown(memory: Memory, extra: Iterable[tuple[str, str]] = ()) -> str:
    """The spec's presentation format: YAML frontmatter, `# Title`, then the Markdown body."""
    lines = ["---"]
    lines += [f"{name}: {value}" for name, value in (*frontmatter_fields(memory), *extra)]
    lines += ["---", "", f"# {memory.title}", "", memory.body, ""]
    return "\n".join(lines)


def to_dict(memory: Memory) -> dict[str, Any]:
    """Stable, snake_case JSON shape of a row (an interface for scripts)."""
    return {
        "id": memory.id,
        "key": memory.key,
        "revision_id": memory.revision_id or None,
        "revision": memory.revision,
        "title": memory.title,
        "type": memory.type,
        "tags": list(memory.tags),
        "category": memory.category.value,
        "important": memory.important,
        "mandatory": memory.mandatory,
        "superseded": memory.superseded,
        "current": memory.is_live,
        "previous": memory.previous,
        "next": memory.next,
        "created_at": format_time(memory.created_at, precise=True),
        "updated_at": format_time(memory.updated_at, precise=True),
        "updated_by": memory.updated_by,
        "scope": f"{memory.scope_kind}:{memory.scope_id}",
        "content_hash": memory.content_hash,
        "body": memory.body,
    }


def dumps_json(value: Any) -> str:
    """JSON for scripts. A list puts one compact record per line: valid JSON, easy to diff,
    and written by the C encoder (`indent` falls back to a pure-Python one, ~10x slower)."""
    if isinstance(value, list):
        if not value:
            return "[]\n"
        rows = ",\n".join(json.dumps(v, ensure_ascii=False) for v in value)
        return f"[\n{rows}\n]\n"
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def dumps_ndjson(values: Iterable[Any]) -> str:
    return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)


def flags(memory: Memory) -> str:
    return ("M" if memory.mandatory else "-") + ("I" if memory.important else "-")


def table(headers: list[str], rows: list[list[str]], width: int | None = None) -> str:
    """A plain aligned table. On a terminal the last column is cut to its width; piped
    (or with `width=0`) nothing is ever cut, so `grep` sees every character. A value with
    line breaks continues on the next lines, under its column."""
    if not rows:
        return ""
    if width is None:
        width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 0
    cells = [headers, *rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers) - 1)]
    used = sum(widths) + 2 * len(widths)
    last = max(20, width - used) if width else 0
    out = []
    for row in cells:
        head = "".join(cell.ljust(w + 2) for cell, w in zip(row, widths, strict=False))
        first, *more = row[-1].split("\n")
        tail = first if not last or len(first) <= last else _cut(first, last)
        out.append((head + tail).rstrip())
        out += [(" " * used + line).rstrip() for line in more]
    return "\n".join(out) + "\n"


def _cut(text: str, width: int) -> str:
    """`text` in `width` characters, ending in "…", cut at a space rather than inside a word."""
    kept = text[: width - 1]
    space = kept.rfind(" ")
    if space > width // 2:
        kept = kept[:space]
    return kept.rstrip() + "…"


def memory_table(memories: list[Memory]) -> str:
    rows = [
        [
            m.id if m.is_live else m.key,
            m.type,
            flags(m),
            str(m.revision),
            short_time(m.updated_at),
            m.title + (f"  [{', '.join(m.tags)}]" if m.tags else ""),
        ]
        for m in memories
    ]
    return table(["ID", "TYPE", "FLAGS", "REV", "UPDATED", "TITLE"], rows)


def record_table(memory: Memory) -> str:
    """One row as FIELD/VALUE lines: the frontmatter fields, then the body."""
    rows = [[name, _plain(value)] for name, value in frontmatter_fields(memory)]
    return table(["FIELD", "VALUE"], [*rows, ["body", memory.body]])


def _plain(value: str) -> str:
    """A frontmatter value without its YAML quoting (for tables)."""
    if value.startswith('"'):
        return str(json.loads(value))
    if value.startswith("["):
        return ", ".join(json.loads(value))
    return value


def history_table(chain: list[Memory]) -> str:
    rows = [
        [
            m.key,
            str(m.revision),
            "current" if m.is_live else ("deleted" if m.next is None else "superseded"),
            short_time(m.updated_at),
            m.updated_by,
            m.title,
        ]
        for m in chain
    ]
    return table(["KEY", "REV", "STATE", "UPDATED", "BY", "TITLE"], rows)


def write_to_dict(result: WriteResult) -> dict[str, Any]:
    """Stable JSON of a write (upsert, delete, restore): what happened to which memory."""
    memory = result.memory
    return {
        "action": result.action.value,
        "id": memory.id,
        "key": memory.key,
        "revision": memory.revision,
        "title": memory.title,
        "important": memory.important,
        "mandatory": memory.mandatory,
        "scope": f"{memory.scope_kind}:{memory.scope_id}",
    }


def write_to_markdown(result: WriteResult) -> str:
    """The written row in the presentation format, with what happened as `action`."""
    return to_markdown(result.memory, [("action", _q(result.action.value))])


def writes_table(results: list[WriteResult]) -> str:
    rows = [
        [r.action.value, r.memory.key, str(r.memory.revision), flags(r.memory), r.memory.title]
        for r in results
    ]
    return table(["ACTION", "KEY", "REV", "FLAGS", "TITLE"], rows)


# --- input --------------------------------------------------------------------------------

_DRAFT_FIELDS = {
    "id",
    "title",
    "body",
    "type",
    "tags",
    "important",
    "mandatory",
    "revision",
    "created_at",
    "updated_at",
}
# Presentation-only fields that `source` prints; accepted on input and ignored.
_IGNORED_FIELDS = {
    "updated_by",
    "revision_id",
    "superseded",
    "previous",
    "next",
    "key",
    "category",
    "current",
    "scope",
    "content_hash",
    "has_embedding",
}


def filter_from(
    types: Iterable[str] | None,
    tags: Iterable[str] | None,
    *,
    important: bool | None = None,
    mandatory: bool | None = None,
) -> MemoryFilter:
    """A validated MemoryFilter from what a user or an agent typed (CLI and MCP alike)."""
    return MemoryFilter(
        types=tuple(sorted({validate_type(t) for t in types or ()})),
        tags=normalise_tags(list(tags or ())),
        important=important,
        mandatory=mandatory,
    )


def decode_text(data: bytes, origin: str) -> str:
    """UTF-8 input as text; anything else is refused with the line and byte that are wrong."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InvalidInput(
            f"{origin} is not UTF-8 text: byte 0x{data[exc.start]:02x} on line {line} "
            "(convert it first, e.g. `iconv -f latin1 -t utf-8`)"
        ) from None


def undecodable(text: str) -> str | None:
    """What makes `text` unusable as UTF-8 (a byte the OS could not decode, or a lone
    surrogate), or None when it is fine."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        if 0xDC80 <= code <= 0xDCFF:  # Python's stand-in for an undecodable byte
            return f"byte 0x{code - 0xDC00:02x}"
        return f"lone surrogate U+{code:04X}"
    return None


def parse_input(text: str, origin: str = "input") -> list[MemoryDraft]:
    """Markdown with frontmatter (one memory), a JSON object or array, or NDJSON lines."""
    stripped = text.lstrip("\ufeff").lstrip()
    if not stripped:
        raise InvalidInput(f"{origin} is empty")
    if stripped.startswith("---"):
        documents = split_documents(stripped)
        if len(documents) == 1:
            return [parse_markdown(stripped, origin)]
        # A stream of documents (what `list` or `mandatory` print): a batch, one per memory.
        skipped = text.count("\n", 0, len(text) - len(stripped))
        return [
            parse_markdown(doc, f"{origin} document {n} (line {line + skipped})")
            for n, (line, doc) in enumerate(documents, start=1)
        ]
    if stripped.startswith("#"):
        return [parse_markdown(stripped, origin)]
    if stripped[0] in "[{":
        return parse_json(stripped, origin)
    raise InvalidInput(
        f"{origin}: expected Markdown with YAML frontmatter, a JSON object or array, or NDJSON"
    )


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def split_documents(text: str) -> list[tuple[int, str]]:
    """Split a stream of Markdown documents with frontmatter into (first line, document) pairs.

    A document starts at a `---` line that opens the stream, or, outside a fenced code block,
    at a `---` line opening a frontmatter block (closed by the next `---` line) that is a YAML
    mapping of memory fields with an `id` (or a `title`, after a blank line). A horizontal
    rule or a fenced frontmatter example inside a body stays part of that body. Line numbers
    are 1-based.
    """
    lines = text.split("\n")
    starts = [0]
    first_end = _frontmatter_end(lines, 0)
    index = first_end + 1 if first_end is not None else 1
    fence: str | None = None
    while index < len(lines):
        line = lines[index]
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and line.strip() == opening.group(1) and opening.group(1).startswith(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif line.rstrip() == "---":
            end = _frontmatter_end(lines, index)
            after_blank = not lines[index - 1].strip()
            if end is not None and _memory_fields(lines[index + 1 : end], after_blank):
                starts.append(index)
                index = end
        index += 1
    stops = [*starts[1:], len(lines)]
    return [
        (start + 1, "\n".join(lines[start:stop])) for start, stop in zip(starts, stops, strict=True)
    ]


def _frontmatter_end(lines: list[str], start: int) -> int | None:
    """The index of the `---` line closing a frontmatter block opened at `start`."""
    return next((i for i in range(start + 1, len(lines)) if lines[i].rstrip() == "---"), None)


def _memory_fields(lines: list[str], after_blank: bool) -> bool:
    """Whether `lines` are a memory's frontmatter: an id (or, after a blank line, a title)."""
    import yaml

    try:
        loaded = yaml.safe_load("\n".join(lines))
    except yaml.YAMLError:
        return False
    return (
        isinstance(loaded, dict)
        and ("id" in loaded or (after_blank and "title" in loaded))
        and set(loaded) <= _DRAFT_FIELDS | _IGNORED_FIELDS
    )


def parse_json(text: str, origin: str) -> list[MemoryDraft]:
    try:
        data = json.loads(text)
        records = data if isinstance(data, list) else [data]
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise InvalidInput(f"{origin}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
        records = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as line_exc:
                raise InvalidInput(
                    f"{origin}: invalid NDJSON at line {number}: {line_exc.msg}"
                ) from None
    if not records:
        raise InvalidInput(f"{origin} holds no records (an empty JSON array)")
    return [draft_from_mapping(r, f"{origin} record {i}") for i, r in enumerate(records, start=1)]


def parse_markdown(text: str, origin: str) -> MemoryDraft:
    meta: dict[str, Any] = {}
    rest = text
    if text.startswith("---"):
        lines = text.split("\n")
        if lines[0].strip() != "---":
            raise InvalidInput(f"{origin}: frontmatter must start with a line '---'")
        try:
            end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
        except StopIteration:
            raise InvalidInput(f"{origin}: frontmatter is not closed by a line '---'") from None
        meta = load_frontmatter("\n".join(lines[1:end]), origin)
        rest = "\n".join(lines[end + 1 :])
    body_lines = rest.strip("\n").split("\n")
    if body_lines[0].startswith("# ") and "body" not in meta:
        # The heading that opens the body is the title, as `source` prints it: editing it
        # renames the memory (it wins over a frontmatter `title:`, which then disagrees).
        meta["title"] = body_lines[0][2:].strip()
        body_lines = body_lines[1:]
    meta.setdefault("body", "\n".join(body_lines))
    return draft_from_mapping(meta, origin)


# Fields whose values are text however they are spelled: YAML 1.1 would read `title: no` as
# false, `title: 1.10` as 1.1 and `tags: [no, ci]` as [False, "ci"].
_TEXT_FIELDS = {"id", "title", "body", "type", "tags", "updated_by", "revision_id", "key"}
_YAML_NULLS = {"", "~", "null", "Null", "NULL"}


def load_frontmatter(text: str, origin: str) -> dict[str, Any]:
    """The frontmatter mapping; text fields keep their source spelling (no YAML 1.1 coercion).

    Other fields (flags, revision, timestamps) are read the usual YAML way.
    """
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is None:
            return {}
        if not isinstance(root, yaml.MappingNode):
            raise InvalidInput(f"{origin}: frontmatter must be a YAML mapping")
        constructor = yaml.SafeLoader("")
        meta: dict[str, Any] = {}
        for key_node, value_node in root.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                raise InvalidInput(f"{origin}: frontmatter keys must be plain names")
            if key in _TEXT_FIELDS:
                meta[key] = _yaml_text(value_node, constructor)
            else:
                meta[key] = constructor.construct_document(value_node)
        return meta
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise InvalidInput(f"{origin}: malformed frontmatter{where}: {problem}") from None


def _yaml_text(node: Any, constructor: Any) -> Any:
    """A scalar as written (None for a plain null), a list item by item; else as YAML reads."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        if node.style is None and node.value in _YAML_NULLS:
            return None
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return [_yaml_text(item, constructor) for item in node.value]
    return constructor.construct_document(node)


def draft_from_mapping(record: Any, origin: str) -> MemoryDraft:
    if not isinstance(record, dict):
        raise InvalidInput(f"{origin}: expected an object with title and body")
    unknown = set(record) - _DRAFT_FIELDS - _IGNORED_FIELDS
    if unknown:
        raise InvalidInput(f"{origin}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")

    def text(name: str) -> str | None:
        value = record.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            raise InvalidInput(f"{origin}: {name} must be a string")
        return value

    def flag(name: str) -> bool | None:
        value = record.get(name)
        if value is None or isinstance(value, bool):
            return value
        raise InvalidInput(f"{origin}: {name} must be true or false")

    tags = record.get("tags")
    if tags is not None:
        if isinstance(tags, str):
            tags = [tags]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InvalidInput(f"{origin}: tags must be a list of strings")
        tags = tuple(tags)
    revision = record.get("revision")
    if revision is not None and (
        isinstance(revision, bool) or not isinstance(revision, int) or revision < 1
    ):
        raise InvalidInput(f"{origin}: revision must be a positive whole number")
    return MemoryDraft(
        id=text("id"),
        title=text("title"),
        body=text("body"),
        type=text("type"),
        tags=tags,
        important=flag("important"),
        mandatory=flag("mandatory"),
        expected_revision=revision,
        created_at=_time(record.get("created_at"), "created_at", origin),
        updated_at=_time(record.get("updated_at"), "updated_at", origin),
    )


def _time(value: Any, name: str, origin: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                f"{origin}: {name} is not an ISO 8601 timestamp: {value!r}"
            ) from None
    else:
        raise InvalidInput(f"{origin}: {name} must be an ISO 8601 timestamp")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # naive timestamps are read as UTC
    return moment.astimezone(UTC)


# --- search hits ---------------------------------------------------------------------------


def hit_state(hit: SearchHit) -> str:
    if hit.deleted:
        return "deleted"
    return "superseded" if hit.superseded else "current"


def hit_to_dict(hit: SearchHit) -> dict[str, Any]:
    """Stable JSON of a hit: the current memory plus what matched and how well."""
    memory = hit.memory
    return {
        "id": memory.id,
        "key": hit.matched.key,
        "title": memory.title,
        "type": memory.type,
        "tags": list(memory.tags),
        "category": memory.category.value,
        "important": memory.important,
        "mandatory": memory.mandatory,
        "created_at": format_time(memory.created_at, precise=True),
        "updated_at": format_time(memory.updated_at, precise=True),
        "revision": memory.revision,
        "matched_revision": hit.matched.revision,
        "superseded": hit.superseded,
        "deleted": hit.deleted,
        "current": hit.current_id,
        "score": round(hit.score, 6),
        "rank": hit.rank,
        "snippet": hit.snippet,
        "scope": f"{memory.scope_kind}:{memory.scope_id}",
    }


def hit_to_markdown(hit: SearchHit, *, with_scope: bool = False) -> str:
    extra = [
        ("match", _q(hit_state(hit))),
        ("matched_key", _q(hit.matched.key)),
        ("score", f"{hit.score:.6f}"),
        ("rank", str(hit.rank)),
    ]
    if with_scope:  # results from several scopes say which each came from
        extra.append(("scope", _q(f"{hit.memory.scope_kind}:{hit.memory.scope_id}")))
    return to_markdown(hit.memory, extra)


def scope_field(memory: Memory) -> tuple[str, str]:
    """The `scope` frontmatter line of a memory shown beside memories of other scopes."""
    return ("scope", _q(f"{memory.scope_kind}:{memory.scope_id}"))


def hits_table(hits: list[SearchHit]) -> str:
    rows = [
        [
            h.memory.id,
            h.memory.type,
            flags(h.memory),
            f"{h.score:.4f}",
            hit_state(h),
            short_time(h.memory.updated_at),
            f"{h.memory.title} — {h.snippet}",
        ]
        for h in hits
    ]
    return table(["ID", "TYPE", "FLAGS", "SCORE", "MATCH", "UPDATED", "TITLE — SNIPPET"], rows)
