"""Search cursors of the MCP tools: an opaque token for the next page, bound to its search.

A cursor carries the offset to continue from and a digest of everything that shapes the result
(scope, query, filters, top_k, mode), so a cursor from another search is refused. No MCP SDK,
Typer or Rich imports here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryFilter
from graphit_cli.errors import InvalidInput

_CURSOR_VERSION = 1


def search_binding(
    scope: Scope,
    query: str,
    flt: MemoryFilter,
    top_k: int,
    exclude_mandatory: bool,
    mode: str,
    include_deleted: bool,
) -> str:
    """What a cursor is bound to: the scope, the query and everything that shapes the result."""
    parts = [
        str(scope),
        " ".join(query.split()),
        sorted(flt.types),
        sorted(flt.tags),
        top_k,
        exclude_mandatory,
        mode,
        include_deleted,
    ]
    canonical = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def encode_cursor(offset: int, binding: str) -> str:
    payload = json.dumps({"v": _CURSOR_VERSION, "o": offset, "b": binding}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, binding: str) -> int:
    """The offset a cursor continues from; InvalidInput unless it came from this same search."""
    try:
        raw = cursor.strip()
        data = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        offset, bound = data["o"], data["b"]
        valid = data.get("v") == _CURSOR_VERSION and isinstance(bound, str)
        valid = valid and isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0
    except (ValueError, binascii.Error, KeyError, TypeError):
        valid = False
    if not valid:
        raise InvalidInput(
            "invalid cursor: pass the next_cursor of a graphit_memory_search result unchanged"
        )
    if bound != binding:
        raise InvalidInput(
            "this cursor belongs to another search (a different query, filters, top_k or "
            "scope): repeat the search without a cursor"
        )
    return int(offset)
