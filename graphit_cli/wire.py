"""The daemon's socket protocol: one JSON request line, one JSON response line.

Results travel with every field, so the CLI renders a daemon answer exactly as it renders
an in-process one. Only the standard library here: the client side runs in a cold CLI.
"""

from __future__ import annotations

import json
import socket
from datetime import datetime
from pathlib import Path
from typing import Any

from graphit_cli import errors
from graphit_cli.models import (
    Memory,
    MemoryFilter,
    RecallResult,
    SearchHit,
    SearchResult,
)

PROTOCOL = 1
CONNECT_TIMEOUT = 0.25  # a daemon that does not answer at once is treated as absent
REPLY_TIMEOUT = 120.0


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


def filter_from_wire(data: dict[str, Any]) -> MemoryFilter:
    return MemoryFilter(
        types=tuple(data.get("types", ())),
        tags=tuple(data.get("tags", ())),
        important=data.get("important"),
        mandatory=data.get("mandatory"),
    )


def error_to_wire(exc: errors.GraphitError) -> dict[str, Any]:
    return {"ok": False, "error": {"type": type(exc).__name__, "message": exc.message}}


def raise_wire_error(data: dict[str, Any]) -> None:
    """Re-raise a daemon-side GraphitError as the same class, with the same message."""
    kind = data.get("type", "GraphitError")
    cls = getattr(errors, kind, errors.GraphitError)
    if not (isinstance(cls, type) and issubclass(cls, errors.GraphitError)):
        cls = errors.GraphitError
    raise cls(str(data.get("message", "daemon error")))


# --- the client ---------------------------------------------------------------------------


def call(
    path: Path, request: dict[str, Any], timeout: float = REPLY_TIMEOUT
) -> dict[str, Any] | None:
    """Send one request to the daemon; None when no daemon answers (the caller falls back)."""
    if not path.exists():
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.connect(str(path))
            sock.settimeout(timeout)
            sock.sendall(json.dumps({"protocol": PROTOCOL, **request}).encode() + b"\n")
            reply = _read_line(sock)
    except OSError:
        return None
    if not reply:
        return None
    data: dict[str, Any] = json.loads(reply)
    if not data.get("ok"):
        raise_wire_error(data.get("error", {}))
    return data


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
