"""What the memory commands print, per `--format`: data on stdout, notices on stderr.

`render` turns rows into text (shared with the MCP server); this module picks which
rendering a format means for each kind of result, and says so on stderr when a listing is
empty (stdout stays empty, so scripts see no data rather than a message). Kept apart from
`render`, which is shared by every adapter and already holds input parsing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from graphit_cli.cli.plain import Format, note, out

if TYPE_CHECKING:
    from graphit_cli.core.models import (
        EmbedReport,
        Memory,
        RecallResult,
        SearchHit,
        WriteResult,
    )

T = TypeVar("T")


def emit(
    items: Sequence[T],
    fmt: Format,
    *,
    as_dict: Callable[[T], dict[str, Any]],
    as_markdown: Callable[[T], str],
    as_table: Callable[[list[T]], str],
    empty: str,
) -> None:
    """Print records in `fmt`; when there are none, `empty` goes to stderr."""
    from graphit_cli.formats import render

    if fmt is Format.json:
        out(render.dumps_json([as_dict(i) for i in items]))
    elif fmt is Format.ndjson:
        out(render.dumps_ndjson(as_dict(i) for i in items))
    elif fmt is Format.markdown:
        out("\n".join(as_markdown(i) for i in items))
    else:
        out(as_table(list(items)))
    if not items:
        note(empty)


@contextmanager
def checked(items: Iterable[Memory], fmt: Format) -> Iterator[None]:
    """Render inside with each memory's anchors checked against this checkout (`stale` in
    JSON, a `stale:` line in Markdown, a line on stderr under a table)."""
    from graphit_cli import anchors
    from graphit_cli.formats import render

    # Only a live memory is checked: an archived revision is history, not a belief.
    found = anchors.check([m for m in items if m.is_live], anchors.checkout_root())
    with render.staleness(found):
        yield
    if fmt is Format.table:
        for memory_id, broken in found.items():
            note(f"{memory_id} may be stale: " + "; ".join(s.describe() for s in broken))


def memories(items: list[Memory], fmt: Format, empty: str = "No memories.") -> None:
    with checked(items, fmt):
        _memories(items, fmt, empty)


def _memories(items: list[Memory], fmt: Format, empty: str) -> None:
    from graphit_cli.formats import render

    emit(
        items,
        fmt,
        as_dict=render.to_dict,
        as_markdown=render.to_markdown,
        as_table=render.memory_table,
        empty=empty,
    )


def hits(items: list[SearchHit], fmt: Format) -> None:
    with checked([h.memory for h in items], fmt):
        _hits(items, fmt)


def _hits(items: list[SearchHit], fmt: Format) -> None:
    from graphit_cli.formats import render

    emit(
        items,
        fmt,
        as_dict=render.hit_to_dict,
        as_markdown=render.hit_to_markdown,
        as_table=render.hits_table,
        empty="No matches.",
    )


def writes(results: list[WriteResult], fmt: Format) -> None:
    """What upsert, delete and restore did; a batch also gets a count on stderr."""
    from graphit_cli.core.models import WriteAction
    from graphit_cli.formats import render

    emit(
        results,
        fmt,
        as_dict=render.write_to_dict,
        as_markdown=render.write_to_markdown,
        as_table=render.writes_table,
        empty="Nothing written.",
    )
    if len(results) > 1:
        counts = [(a, sum(1 for r in results if r.action is a)) for a in WriteAction]
        note(", ".join(f"{n} {a.value}" for a, n in counts if n))


def one(memory: Memory, fmt: Format) -> None:
    """A single record: JSON as one object, table as FIELD/VALUE lines."""
    from graphit_cli.formats import render

    with checked([memory], fmt):
        if fmt is Format.json:
            out(render.dumps_json(render.to_dict(memory)))
        elif fmt is Format.table:
            out(render.record_table(memory))
        else:
            _memories([memory], fmt, "No memories.")


def history(chain: list[Memory], fmt: Format) -> None:
    from graphit_cli.formats import render

    if fmt is Format.table:
        out(render.history_table(chain))
    else:
        memories(chain, fmt)


def recall(result: RecallResult, fmt: Format) -> None:
    found = result.search.hits if result.search else []
    with checked([*result.mandatory, *(h.memory for h in found)], fmt):
        _recall(result, fmt)


def _recall(result: RecallResult, fmt: Format) -> None:
    from graphit_cli.formats import render

    found = result.search.hits if result.search else []
    if result.search and result.search.notice:
        note(result.search.notice)
    if fmt is Format.json:
        search = None
        if result.search is not None:
            search = {"mode": result.search.mode, "hits": [render.hit_to_dict(h) for h in found]}
        mandatory = [render.to_dict(m) for m in result.mandatory]
        out(render.dumps_json({"mandatory": mandatory, "search": search}))
    elif fmt is Format.markdown:
        parts = [f"## Mandatory memories ({len(result.mandatory)})\n"]
        parts += [render.to_markdown(m) for m in result.mandatory]
        if result.search is not None:
            parts.append(f"## Relevant memories ({len(found)})\n")
            parts += [render.hit_to_markdown(h) for h in found]
        out("\n".join(parts))
    else:
        note(f"Mandatory memories ({len(result.mandatory)}):")
        _memories(result.mandatory, fmt, "No mandatory memories.")
        if result.search is not None:
            note(f"Relevant memories ({len(found)}):")
            _hits(found, fmt)


def embed_report(report: EmbedReport, fmt: Format) -> None:
    from graphit_cli.formats import render

    rate = report.embedded / report.seconds if report.seconds else 0.0
    if fmt in (Format.json, Format.ndjson):
        payload = {
            "model": report.model_id,
            "embedded": report.embedded,
            "skipped": report.skipped,
            "reembedded": report.reembedded,
            "seconds": round(report.seconds, 3),
            "rows_per_second": round(rate, 1),
        }
        out(render.dumps_json(payload) if fmt is Format.json else render.dumps_ndjson([payload]))
        return
    out(
        f"embedded {report.embedded} rows with {report.model_id} in {report.seconds:.1f} s "
        f"({rate:.1f} rows/s)"
        + (f"; {report.skipped} changed meanwhile" if report.skipped else "")
        + ("; re-embedded from another model" if report.reembedded else "")
        + "\n"
    )
