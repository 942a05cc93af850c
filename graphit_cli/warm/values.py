"""How each value crosses the warm socket: memories, results, filters, drafts, write results
and import reports, to the JSON a request or a reply carries and back.

The results cross as `core/codec.py` writes them (every field by name, read back by its type);
a filter and a draft that arrive are validated as the CLI validates its options. The protocol
that carries them (versions, deadlines, claims) is `wire.py`'s. Standard library and the pure
core only: the client side runs in a cold CLI.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphit_cli.core import codec
from graphit_cli.core.models import (
    Memory,
    MemoryDraft,
    MemoryFilter,
    RecallResult,
    SearchResult,
    WriteResult,
)
from graphit_cli.errors import InvalidInput

if TYPE_CHECKING:
    from graphit_cli.portability.model import ImportReport

DRAFT_FIELDS = tuple(MemoryDraft.__dataclass_fields__)
FILTER_FIELDS = ("types", "tags", "important", "mandatory")

# The results cross as `core/codec.py` writes them (every field by name); the vectors stay in
# the warm process: reads never carry them.
NO_VECTORS = frozenset({"embedding"})


def memory_to_wire(memory: Memory) -> dict[str, Any]:
    return codec.encode(memory, NO_VECTORS)  # type: ignore[no-any-return]


def memory_from_wire(data: dict[str, Any]) -> Memory:
    return codec.decode(Memory, data)


def search_to_wire(result: SearchResult) -> dict[str, Any]:
    return codec.encode(result, NO_VECTORS)  # type: ignore[no-any-return]


def search_from_wire(data: dict[str, Any]) -> SearchResult:
    return codec.decode(SearchResult, data)


def recall_to_wire(result: RecallResult) -> dict[str, Any]:
    return codec.encode(result, NO_VECTORS)  # type: ignore[no-any-return]


def recall_from_wire(data: dict[str, Any]) -> RecallResult:
    return codec.decode(RecallResult, data)


def filter_to_wire(flt: MemoryFilter) -> dict[str, Any]:
    return {
        "types": list(flt.types),
        "tags": list(flt.tags),
        "important": flt.important,
        "mandatory": flt.mandatory,
    }


def filter_from_wire(data: object) -> MemoryFilter:
    """A filter from a request, validated as the CLI validates `--type`, `--tag`, `--important`
    and `--mandatory` (same functions, same messages); anything else is refused."""
    from graphit_cli.core.revisions import normalise_tags, validate_type

    if data is None:
        return MemoryFilter()
    if not isinstance(data, dict):
        raise InvalidInput("filter must be a JSON object")
    unknown = sorted(set(data) - set(FILTER_FIELDS))
    if unknown:
        raise InvalidInput(f"unknown filter field {unknown[0]!r}")
    types, tags = data.get("types") or [], data.get("tags") or []
    for name, values in (("types", types), ("tags", tags)):
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise InvalidInput(f"filter {name} must be a list of strings")
    flags = {name: data.get(name) for name in ("important", "mandatory")}
    for name, flag in flags.items():
        if flag is not None and not isinstance(flag, bool):
            raise InvalidInput(f"filter {name} must be true, false or null")
    return MemoryFilter(
        types=tuple(validate_type(t) for t in types),
        tags=normalise_tags(tags),
        important=flags["important"],
        mandatory=flags["mandatory"],
    )


def draft_to_wire(draft: MemoryDraft) -> dict[str, Any]:
    """Every field of a draft (None keeps the memory's value; dates as ISO strings)."""
    fields = {k: getattr(draft, k) for k in DRAFT_FIELDS}
    if draft.tags is not None:
        fields["tags"] = list(draft.tags)
    if draft.anchors is not None:
        fields["anchors"] = list(draft.anchors)
    for name in ("created_at", "updated_at"):
        if fields[name] is not None:
            fields[name] = fields[name].isoformat()
    return fields


def draft_from_wire(data: object) -> MemoryDraft:
    """A draft from a request: each field of the type the CLI gives it; the service then
    validates the content (ids, types, tags, sizes) with the CLI's own messages."""
    if not isinstance(data, dict):
        raise InvalidInput("a record must be a JSON object")
    unknown = sorted(set(data) - set(DRAFT_FIELDS))
    if unknown:
        raise InvalidInput(f"unknown record field {unknown[0]!r}")
    fields = {k: data.get(k) for k in DRAFT_FIELDS}
    for name in ("id", "title", "body", "type", "created_at", "updated_at"):
        if fields[name] is not None and not isinstance(fields[name], str):
            raise InvalidInput(f"record {name} must be a string")
    for name in ("important", "mandatory"):
        if fields[name] is not None and not isinstance(fields[name], bool):
            raise InvalidInput(f"record {name} must be true, false or null")
    revision = fields["expected_revision"]
    if revision is not None and (isinstance(revision, bool) or not isinstance(revision, int)):
        raise InvalidInput("record expected_revision must be a whole number")
    tags = fields["tags"]
    if tags is not None:
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InvalidInput("record tags must be a list of strings")
        fields["tags"] = tuple(tags)
    anchors = fields["anchors"]
    if anchors is not None:
        if not isinstance(anchors, list) or not all(isinstance(a, str) for a in anchors):
            raise InvalidInput("record anchors must be a list of strings")
        fields["anchors"] = tuple(anchors)
    for name in ("created_at", "updated_at"):
        stamp = fields[name]
        if isinstance(stamp, str):
            try:
                fields[name] = datetime.fromisoformat(stamp)
            except ValueError:
                raise InvalidInput(f"record {name} must be an ISO 8601 time") from None
    return MemoryDraft(**fields)


def write_to_wire(result: WriteResult) -> dict[str, Any]:
    return codec.encode(result, NO_VECTORS)  # type: ignore[no-any-return]


def write_from_wire(data: dict[str, Any]) -> WriteResult:
    return codec.decode(WriteResult, data)


def report_to_wire(report: ImportReport) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "source": report.source,
        "format": report.format,
        "dry_run": report.dry_run,
        "outcomes": [asdict(o) for o in report.outcomes],
        "problems": [asdict(p) for p in report.problems],
    }


def report_from_wire(data: dict[str, Any]) -> ImportReport:
    from graphit_cli.portability.model import ImportOutcome, ImportReport, Problem

    return ImportReport(
        data["source"],
        data["format"],
        bool(data["dry_run"]),
        [ImportOutcome(**o) for o in data["outcomes"]],
        [Problem(**p) for p in data["problems"]],
    )
