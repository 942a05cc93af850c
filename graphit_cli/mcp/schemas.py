"""The schemas tools/list shows: compacted input schemas, and every tool's output schema.

The whole `tools/list` answer is also committed as data (tools_list.json, written by
scripts/gen_mcp_tools.py from the SDK's own answer, and tested equal to it), so the server
answers a client's first listing before the SDK is imported (stdio.py, handshake.py).

Input schemas lose what pydantic adds for nothing and refuse unknown arguments. The output
schema of every graphit_memory_* tool is the shape of its structuredContent.

Every tool answers structuredContent (the JSON document of its ToolReply) whatever `format` says;
these schemas name the fields a client can rely on, compactly (every session pays for the
tools/list text): every listed field is `required` (always present), and the documents may
carry more. Each type is one `type` (a nullable field is `anyOf` a type and null): a type
array such as ["string", "null"] is legal JSON Schema, but clients that map schemas onto a
single-type dialect (Gemini's function declarations) may reject it, and the MCP Inspector's
`--strict` reports it. No MCP SDK imports here.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

TOOLS_LIST_FILE = Path(__file__).with_name("tools_list.json")


@functools.cache
def tools_list() -> dict[str, Any]:
    """The `tools/list` result the SDK sends (read once; the caller must not change it)."""
    found: dict[str, Any] = json.loads(TOOLS_LIST_FILE.read_text(encoding="utf-8"))
    return found


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema without what pydantic adds for nothing: titles, `null` branches of
    optional arguments, `default: null` (an argument left out is the same) and the `type` of
    an enum (its values say it)."""
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = {k: v for k, v in prop.items() if k != "title"}
        branches = prop.pop("anyOf", None)
        if branches is not None:
            kept = [b for b in branches if b.get("type") != "null"]  # constraints included
            prop = {**(kept[0] if len(kept) == 1 else {"anyOf": kept}), **prop}
        if prop.get("default", 0) is None:
            del prop["default"]
        if "enum" in prop:
            prop.pop("type", None)
        properties[name] = prop
    compact: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        compact["required"] = schema["required"]
    compact["additionalProperties"] = False  # an unknown argument is refused (call_tool)
    return compact


S: dict[str, Any] = {"type": "string"}
N: dict[str, Any] = {"type": "integer"}
A: dict[str, Any] = {"type": "array"}
NULL: dict[str, Any] = {"type": "null"}
OPT_S: dict[str, Any] = {"anyOf": [S, NULL]}
OPT_O: dict[str, Any] = {"anyOf": [{"type": "object"}, NULL]}


def shape(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object with these properties, every one of them present."""
    return {"type": "object", "properties": properties, "required": list(properties)}


OPT_A: dict[str, Any] = {"anyOf": [A, NULL]}
_WRITE = shape(id=S, revision=N)
_LIST = shape(total=N, memories=A)

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "graphit_memory_recall": shape(mandatory=A, search=OPT_O),
    "graphit_memory_mandatory": shape(memories=A),
    "graphit_memory_search": shape(hits=A, next_cursor=OPT_S),
    # `stale`: null when every anchor holds in the server's checkout, else [{anchor, reason}]
    # (every memory in every document carries it; listed here where the memory is the document).
    "graphit_memory_source": shape(id=S, text=S, stale=OPT_A),
    "graphit_memory_list": _LIST,
    "graphit_memory_important": _LIST,
    # A refused duplicate answers the existing memory's id, with written: false.
    "graphit_memory_insert": _WRITE,
    "graphit_memory_update": _WRITE,
    "graphit_memory_delete": _WRITE,
    "graphit_memory_promote": _WRITE,
    "graphit_memory_demote": _WRITE,
    "graphit_memory_mark_mandatory": _WRITE,
    "graphit_memory_unmark_mandatory": _WRITE,
    "graphit_memory_consolidate": shape(groups=A, stale=A),
    "graphit_memory_apply_consolidation": shape(applied=A, refused=A),
}
