"""The daemon's socket protocol: one JSON request line, one JSON response line.

Results travel with every field, so the CLI renders a daemon answer exactly as it renders
an in-process one. Only the standard library here: the client side runs in a cold CLI.

Versioned: every request and every reply carries `protocol`. A daemon refuses a request of
another version, and the client ignores a reply of another version (or none, as daemons
before version 2 sent), so an old daemon never answers a newer CLI: the CLI says so once on
stderr and does the work in-process. The socket is an input like any other: the daemon
validates what arrives exactly as the CLI validates its options.
"""

from __future__ import annotations

import json
import logging
import socket
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli import errors
from graphit_cli.core.models import (
    Memory,
    MemoryDraft,
    MemoryFilter,
    RecallResult,
    SearchHit,
    SearchResult,
    WriteAction,
    WriteResult,
)
from graphit_cli.errors import InvalidInput

# 2: replies carry the protocol; the daemon validates filters and refuses other versions.
# 3: the daemon carries writes (upsert, delete, restore, import).
# 4: a request carries `fingerprint` (access/fingerprint.py: which table each scope resolves to,
#    under which grant, with which settings); a daemon that would answer otherwise replies
#    `declined` (nothing done) and the CLI works in-process.
PROTOCOL = 4
CONNECT_TIMEOUT = 0.25  # a daemon that does not answer at once is treated as absent
REPLY_TIMEOUT = 120.0
WRITE_TIMEOUT = 3600.0  # an import of many records; the daemon answers once it committed
DRAFT_FIELDS = tuple(MemoryDraft.__dataclass_fields__)
FILTER_FIELDS = ("types", "tags", "important", "mandatory")

if TYPE_CHECKING:
    from graphit_cli.portability.model import ImportReport

log = logging.getLogger(__name__)


# --- values -------------------------------------------------------------------------------


def memory_to_wire(memory: Memory) -> dict[str, Any]:
    return {
        **{k: getattr(memory, k) for k in Memory.__dataclass_fields__ if k != "embedding"},
        "tags": list(memory.tags),
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
    }


def memory_from_wire(data: dict[str, Any]) -> Memory:
    fields = {k: data[k] for k in Memory.__dataclass_fields__ if k in data}
    fields["tags"] = tuple(data["tags"])
    fields["created_at"] = datetime.fromisoformat(data["created_at"])
    fields["updated_at"] = datetime.fromisoformat(data["updated_at"])
    fields["embedding"] = None  # vectors stay in the daemon; reads never carry them
    return Memory(**fields)


def search_to_wire(result: SearchResult) -> dict[str, Any]:
    return {
        "mode": result.mode,
        "notice": result.notice,
        "hits": [
            {
                "memory": memory_to_wire(h.memory),
                "matched": memory_to_wire(h.matched),
                "score": h.score,
                "rank": h.rank,
                "snippet": h.snippet,
            }
            for h in result.hits
        ],
    }


def search_from_wire(data: dict[str, Any]) -> SearchResult:
    hits = [
        SearchHit(
            memory=memory_from_wire(h["memory"]),
            matched=memory_from_wire(h["matched"]),
            score=float(h["score"]),
            rank=int(h["rank"]),
            snippet=h["snippet"],
        )
        for h in data["hits"]
    ]
    return SearchResult(hits, data["mode"], data.get("notice"))


def recall_to_wire(result: RecallResult) -> dict[str, Any]:
    return {
        "mandatory": [memory_to_wire(m) for m in result.mandatory],
        "search": None if result.search is None else search_to_wire(result.search),
    }


def recall_from_wire(data: dict[str, Any]) -> RecallResult:
    found = data.get("search")
    return RecallResult(
        [memory_from_wire(m) for m in data["mandatory"]],
        None if found is None else search_from_wire(found),
    )


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
    for name in ("created_at", "updated_at"):
        stamp = fields[name]
        if isinstance(stamp, str):
            try:
                fields[name] = datetime.fromisoformat(stamp)
            except ValueError:
                raise InvalidInput(f"record {name} must be an ISO 8601 time") from None
    return MemoryDraft(**fields)


def write_to_wire(result: WriteResult) -> dict[str, Any]:
    return {"action": result.action.value, "memory": memory_to_wire(result.memory)}


def write_from_wire(data: dict[str, Any]) -> WriteResult:
    return WriteResult(WriteAction(data["action"]), memory_from_wire(data["memory"]))


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
    from graphit_cli.portability.model import ImportReport, Outcome, Problem

    return ImportReport(
        data["source"],
        data["format"],
        bool(data["dry_run"]),
        [Outcome(**o) for o in data["outcomes"]],
        [Problem(**p) for p in data["problems"]],
    )


class ProtocolMismatch(errors.GraphitError):
    """Client and daemon speak different protocol versions."""


def text_field(request: dict[str, Any], name: str, *, optional: bool = False) -> str | None:
    value = request.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value


def int_field(request: dict[str, Any], name: str, default: int | None) -> int | None:
    """A whole number >= 0 (as the CLI's `min=0` options), or the default when absent."""
    value = request.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{name} must be a whole number >= 0")
    return value


def id_list_field(request: dict[str, Any], name: str, limit: int = 1000) -> list[str]:
    """A list of memory ids (validated as the CLI validates them)."""
    from graphit_cli.core.revisions import validate_id

    value = request.get(name)
    if not isinstance(value, list) or len(value) > limit:
        raise InvalidInput(f"{name} must be a list of at most {limit} memory ids")
    return [
        validate_id(item) if isinstance(item, str) else validate_id(str(item)) for item in value
    ]


def bool_field(request: dict[str, Any], name: str) -> bool:
    value = request.get(name, False)
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false")
    return value


def declined(reason: str) -> dict[str, Any]:
    """Daemon side: the reply to a request this daemon would answer otherwise than the CLI
    in-process (nothing was read or written)."""
    return {"ok": False, "protocol": PROTOCOL, "declined": reason}


def check_protocol(request: dict[str, Any]) -> None:
    """Daemon side: refuse a request from a client that speaks another protocol version."""
    theirs = request.get("protocol")
    if theirs != PROTOCOL:
        raise ProtocolMismatch(
            f"this daemon speaks protocol {PROTOCOL}, the client {theirs}: "
            "restart the daemon with the same graphit version"
        )


def error_to_wire(exc: errors.GraphitError) -> dict[str, Any]:
    return {
        "ok": False,
        "protocol": PROTOCOL,
        "error": {"type": type(exc).__name__, "message": exc.message},
    }


def raise_wire_error(data: dict[str, Any]) -> None:
    """Re-raise a daemon-side GraphitError as the same class, with the same message."""
    kind = data.get("type", "GraphitError")
    cls = getattr(errors, kind, errors.GraphitError)
    if not (isinstance(cls, type) and issubclass(cls, errors.GraphitError)):
        cls = errors.GraphitError
    raise cls(str(data.get("message", "daemon error")))


# --- the client ---------------------------------------------------------------------------


def call(
    path: Path, request: dict[str, Any], timeout: float = REPLY_TIMEOUT, *, write: bool = False
) -> dict[str, Any] | None:
    """Send one request to the daemon; None when no daemon of this protocol answers, or when
    it declines (it would resolve the request's scopes to another table, grant or settings:
    nothing was done), and the caller then works in-process.

    A `write` that reached a daemon which then gave no answer may have been committed: that
    is an error (StorageUnavailable), never a second attempt in-process (it could write twice).
    """
    data = exchange(path, request, timeout, write=write)
    if data is None:
        return None
    theirs = data.get("protocol")
    if theirs != PROTOCOL:
        log.warning(
            "the running daemon speaks protocol %s, this graphit %s: working in-process "
            "(restart `graphit memory daemon` to use the warm path again)",
            theirs if theirs is not None else 1,
            PROTOCOL,
        )
        return None
    if data.get("declined"):
        log.debug("the daemon declined (%s): working in-process", data["declined"])
        return None
    if not data.get("ok"):
        raise_wire_error(data.get("error", {}))
    return data


def exchange(
    path: Path, request: dict[str, Any], timeout: float = REPLY_TIMEOUT, *, write: bool = False
) -> dict[str, Any] | None:
    """One raw request/reply, whatever protocol the daemon speaks; None when none answers."""
    if not path.exists():
        return None
    sent = False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.connect(str(path))
            sock.settimeout(timeout)
            sock.sendall(json.dumps({"protocol": PROTOCOL, **request}).encode() + b"\n")
            sent = True
            reply = _read_line(sock)
    except OSError as exc:
        if write and sent:
            raise _lost_write(path, exc) from None
        log.debug("no daemon answered on %s: %s", path, exc)
        return None
    if not reply:
        if write:
            raise _lost_write(path, "the connection closed")
        return None
    try:
        data = json.loads(reply)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        if write:
            raise _lost_write(path, "an unreadable answer")
        return None
    return data


def _lost_write(path: Path, why: object) -> errors.StorageUnavailable:
    return errors.StorageUnavailable(
        f"the daemon on {path} took the write but gave no answer ({why}); it may have been "
        "written: check with `graphit memory list` before writing again"
    )


def _read_line(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)
