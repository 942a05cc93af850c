"""Input parsing: Markdown with YAML frontmatter, JSON and NDJSON text into MemoryDrafts.

The inverse of `render.py`'s Markdown (`source`, edit, `upsert` must round-trip:
tests/test_chain_properties.py checks it). Malformed input is refused with one-line
InvalidInput errors naming where it is wrong. Also the filters a user or an agent types.
PyYAML is imported inside the functions that read frontmatter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphit_cli.core.models import MemoryDraft, MemoryFilter
from graphit_cli.core.revisions import normalise_tags, validate_type
from graphit_cli.errors import InvalidInput

DRAFT_FIELDS = {
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
    "anchors",
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
    "verified_at",  # set by a write or `graphit memory verify`, never by an input
    "stale",  # read-time, for this checkout: never written
    "status",  # review: set by the review gate, never by an input
    "provenance",  # stamped by graphit on every write, never by an input
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


class NotUtf8(InvalidInput):
    """Input that is not UTF-8: `line` is where the first wrong byte is (1-based)."""

    def __init__(self, origin: str, byte: int, line: int) -> None:
        super().__init__(
            f"{origin} is not UTF-8 text: byte 0x{byte:02x} on line {line} "
            "(convert it first, e.g. `iconv -f latin1 -t utf-8`)"
        )
        self.byte = byte
        self.line = line


def decode_text(data: bytes, origin: str) -> str:
    """UTF-8 input as text; anything else is refused with the line and byte that are wrong
    (`upsert`'s stdin and file, and every file `import` reads)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotUtf8(origin, data[exc.start], line) from None


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
    """Markdown with frontmatter (one memory, or a stream of them), a JSON object or array, or
    NDJSON lines."""
    stripped = text.lstrip("\ufeff").lstrip()
    if not stripped:
        raise InvalidInput(f"{origin} is empty")
    if stripped.startswith(("---", "#")):
        skipped = text.count("\n", 0, len(text) - len(stripped))
        documents = split_documents(stripped, origin, first_line=1 + skipped)
        if len(documents) == 1:
            return [parse_markdown(stripped, origin)]
        # A stream of documents (what `list` or `mandatory` print, or a hand-written file of
        # several memories): a batch, one per memory.
        return [
            parse_markdown(doc, f"{origin} document {n} (line {line + skipped})")
            for n, (line, doc) in enumerate(documents, start=1)
        ]
    if stripped[0] in "[{":
        return parse_json(stripped, origin)
    raise InvalidInput(
        f"{origin}: expected Markdown with YAML frontmatter, a JSON object or array, or NDJSON"
    )


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FIELD_LINE = re.compile(r"^([a-z_]+)\s*:")


def split_documents(
    text: str, origin: str = "input", *, first_line: int = 1
) -> list[tuple[int, str]]:
    """Split a stream of Markdown documents with frontmatter into (first line, document) pairs.

    A document starts at the top of the stream, or, outside a fenced code block, at a `---`
    line opening a frontmatter block (closed by the next `---` line) that is a YAML mapping of
    graphit's memory fields. A horizontal rule, a setext heading, a YAML-looking block of other
    keys between rules or a fenced frontmatter example inside a body stays part of that body.
    Anything between the two (a block mixing graphit fields with other keys, a block that
    starts like frontmatter but is not closed or not a mapping, an empty block before a
    `# Title`) is refused with its line number: two memories are never merged silently.
    Line numbers are 1-based (`first_line` is the number of the text's first line).
    """
    lines = text.split("\n")
    starts = [0]
    first_end = _frontmatter_end(lines, 0) if lines[0].rstrip() == "---" else None
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
            verdict = _block_kind(lines, index, end)
            if verdict == "document":
                assert end is not None
                starts.append(index)
                index = end
            elif verdict != "body":
                raise InvalidInput(
                    f"{origin}: line {index + first_line}: {verdict}; nothing was written "
                    "(separate the memories with complete frontmatter of graphit fields, or "
                    "write a rule in a body as `***`)"
                )
        index += 1
    stops = [*starts[1:], len(lines)]
    return [
        (start + 1, "\n".join(lines[start:stop])) for start, stop in zip(starts, stops, strict=True)
    ]


def _frontmatter_end(lines: list[str], start: int) -> int | None:
    """The index of the `---` line closing a frontmatter block opened at `start`."""
    return next((i for i in range(start + 1, len(lines)) if lines[i].rstrip() == "---"), None)


def _block_kind(lines: list[str], start: int, end: int | None) -> str:
    """What the `---` line at `start` opens: "document" (frontmatter of graphit fields),
    "body" (a horizontal rule or text of the body), or why it is ambiguous."""
    import yaml

    field_keys = DRAFT_FIELDS | _IGNORED_FIELDS
    first = next((ln for ln in lines[start + 1 : end] if ln.strip()), None)
    looks_like = first is not None and (
        (m := _FIELD_LINE.match(first)) is not None and m.group(1) in field_keys
    )
    if end is None:
        if looks_like:
            return "a `---` line followed by graphit fields opens frontmatter that is never closed"
        return "body"
    block = "\n".join(lines[start + 1 : end])
    try:
        loaded = yaml.safe_load(block)
    except (yaml.YAMLError, RecursionError):
        loaded = None
        if looks_like:
            return "a `---` block starting with graphit fields is not valid YAML"
    if isinstance(loaded, dict) and loaded:
        keys = {str(k) for k in loaded}
        ours = keys & field_keys
        if ours == keys:
            return "document"
        if ours:
            return (
                f"a `---` block mixes graphit fields ({', '.join(sorted(ours))}) with other "
                f"keys ({', '.join(sorted(keys - ours))})"
            )
        return "body"
    if looks_like:
        return "a `---` block starting with graphit fields is not a YAML mapping"
    if not block.strip():
        after = next((ln for ln in lines[end + 1 :] if ln.strip()), "")
        if after.startswith("# "):
            return "an empty `---` block before a `# Title` looks like a second memory"
    return "body"


def parse_json(text: str, origin: str) -> list[MemoryDraft]:
    try:
        data = json.loads(text)
        records = data if isinstance(data, list) else [data]
    except RecursionError:
        raise InvalidInput(f"{origin}: JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise InvalidInput(f"{origin}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
        records = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except RecursionError:
                raise InvalidInput(f"{origin}: JSON nested too deeply at line {number}") from None
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
_TEXT_FIELDS |= {"anchors", "stale"}  # `stale` is read-time output, read back and ignored
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
    except RecursionError:
        raise InvalidInput(f"{origin}: malformed frontmatter: nested too deeply") from None
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
    unknown = set(record) - DRAFT_FIELDS - _IGNORED_FIELDS
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
    anchors = record.get("anchors")
    if anchors is not None:
        if isinstance(anchors, str):
            anchors = [anchors]
        if not isinstance(anchors, list) or not all(isinstance(a, str) for a in anchors):
            raise InvalidInput(f"{origin}: anchors must be a list of strings")
        anchors = tuple(a.strip() for a in anchors if a.strip())
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
        anchors=anchors,
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
