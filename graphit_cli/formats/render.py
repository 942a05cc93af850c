"""Presentation: Markdown with YAML frontmatter, JSON, NDJSON and plain tables.

Rendering is byte-stable (scripts diff it). No Rich, no Typer: the CLI decides where the text
goes (`cli/output.py` picks a rendering per --format). Shared by every adapter (CLI, MCP,
Explorer, import/export). Reading that format back is `parse.py`: `source`, edit, `upsert`
must round-trip (tests/test_chain_properties.py checks it).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from graphit_cli.core.models import Memory, SearchHit, WriteResult
from graphit_cli.core.provenance import APPROVED, is_proposal, shown_status
from graphit_cli.formats.visible import json_text, visible

# --- output -------------------------------------------------------------------------------

# The read-time staleness of the memories being rendered (graphit_cli.anchors.check, for the
# caller's checkout): set by an adapter around its rendering, never stored.
Checker = Callable[[Memory], Sequence[Any] | None]
_STALE: ContextVar[Checker | None] = ContextVar("graphit_stale", default=None)


@contextmanager
def staleness(found: Mapping[str, Sequence[Any]] | Checker) -> Iterator[None]:
    """Render inside with each memory's broken anchors (`anchors.Stale`, from a mapping of
    memory id -> list, or a checker called per memory) as its `stale` (JSON) and a `stale:`
    line (Markdown)."""
    checker = found if callable(found) else (lambda memory: found.get(memory.id))
    token = _STALE.set(checker)
    try:
        yield
    finally:
        _STALE.reset(token)


def stale_of(memory: Memory) -> list[dict[str, Any]] | None:
    """The JSON contract: None when every anchor holds (or there is none), else a list of
    {"anchor", "reason", "renamed_to"}. Only a live memory is checked."""
    checker = _STALE.get()
    broken = checker(memory) if checker is not None and memory.is_live else None
    return [s.to_dict() for s in broken] if broken else None


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
    if memory.provenance is not None:  # JSON is a YAML flow mapping; ASCII keeps it printable
        known = {k: v for k, v in memory.provenance.to_dict().items() if v is not None}
        fields.append(("provenance", json.dumps(known, sort_keys=True)))
    if shown_status(memory.status) != APPROVED:
        fields.append(("status", _q(shown_status(memory.status))))
    if memory.anchors:
        fields.append(("anchors", "[" + ", ".join(_q(a) for a in memory.anchors) + "]"))
    if memory.verified_at is not None:
        fields.append(("verified_at", format_time(memory.verified_at)))
    stale = stale_of(memory)
    if stale:
        notes = "; ".join(f"{s['anchor']}: {s['reason']}" for s in stale)
        fields.append(("stale", _q(f"may be stale: {notes}")))
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
    lines += ["---", "", f"# {visible(memory.title)}", "", visible(memory.body), ""]
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
        "anchors": list(memory.anchors),
        "verified_at": format_time(memory.verified_at, precise=True)
        if memory.verified_at
        else None,
        "stale": stale_of(memory),
        "status": shown_status(memory.status),
        "provenance": memory.provenance.to_dict() if memory.provenance else None,
        "body": memory.body,
    }


def dumps_json(value: Any) -> str:
    """JSON for scripts. A list puts one compact record per line: valid JSON, easy to diff,
    and written by the C encoder (`indent` falls back to a pure-Python one, ~10x slower)."""
    if isinstance(value, list):
        if not value:
            return "[]\n"
        rows = ",\n".join(json.dumps(v, ensure_ascii=False) for v in value)
        return json_text(f"[\n{rows}\n]\n")
    return json_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def dumps_ndjson(values: Iterable[Any]) -> str:
    return json_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values))


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
    cells = [[visible(cell) for cell in row] for row in (headers, *rows)]
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
    from graphit_cli.core.revisions import closed_by_delete

    deleted = closed_by_delete([m for m in chain if not is_proposal(m.status)])
    rows = [
        [
            m.key,
            str(m.revision),
            _state(m, deleted),
            short_time(m.updated_at),
            m.updated_by,
            m.provenance.via if m.provenance else "",
            m.title,
        ]
        for m in chain
    ]
    return table(["KEY", "REV", "STATE", "UPDATED", "BY", "VIA", "TITLE"], rows)


def _state(memory: Memory, deleted: set[str]) -> str:
    if is_proposal(memory.status):
        return "proposal " + shown_status(memory.status)
    if memory.is_live:
        return "current"
    return "deleted" if memory.key in deleted else "superseded"


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
        "status": shown_status(memory.status),
        "provenance": memory.provenance.to_dict() if memory.provenance else None,
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


# --- search hits ---------------------------------------------------------------------------


def hit_state(hit: SearchHit) -> str:
    if is_proposal(hit.memory.status):
        return shown_status(hit.memory.status)
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
        "replaced_by": hit.replaced_by,
        "score": round(hit.score, 6),
        "rank": hit.rank,
        "snippet": hit.snippet,
        "scope": f"{memory.scope_kind}:{memory.scope_id}",
        "stale": stale_of(memory),
    }


def hit_to_markdown(hit: SearchHit, *, with_scope: bool = False) -> str:
    extra = [
        ("match", _q(hit_state(hit))),
        ("matched_key", _q(hit.matched.key)),
        ("score", f"{hit.score:.6f}"),
        ("rank", str(hit.rank)),
    ]
    if hit.replaced_by:
        extra.append(("replaced_by", _q(hit.replaced_by)))
    if with_scope:  # results from several scopes say which each came from
        extra.append(("scope", _q(f"{hit.memory.scope_kind}:{hit.memory.scope_id}")))
    return to_markdown(hit.memory, extra)


def scope_field(memory: Memory) -> tuple[str, str]:
    """The `scope` frontmatter line of a memory shown beside memories of other scopes."""
    return ("scope", _q(f"{memory.scope_kind}:{memory.scope_id}"))


def relevance_cell(hit: SearchHit, best: float) -> str:
    """How well a hit matched, for people: its rank by relevance and a bar against the best
    hit's score (the rows themselves are in canonical order, not by score)."""
    share = hit.score / best if best > 0 else 0.0
    filled = round(max(0.0, min(1.0, share)) * 5)
    return f"#{hit.rank:<3} {'█' * filled}{'·' * (5 - filled)} {hit.score:.2f}"


def hits_table(hits: list[SearchHit]) -> str:
    best = max((h.score for h in hits), default=0.0)
    rows = [
        [
            h.memory.id,
            h.memory.type,
            flags(h.memory),
            relevance_cell(h, best),
            hit_state(h) + (f", replaced by {h.replaced_by}" if h.replaced_by else ""),
            short_time(h.memory.updated_at),
            f"{h.memory.title} — {h.snippet}",
        ]
        for h in hits
    ]
    return table(["ID", "TYPE", "FLAGS", "RELEVANCE", "MATCH", "UPDATED", "TITLE — SNIPPET"], rows)
