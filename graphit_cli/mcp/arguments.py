"""What every graphit_memory_* tool shares: its argument types (the JSON schema a client sees),
its annotations, and `respond`, which turns one call's reply or failure into a tool result.

`server.py` registers the memory tools and `consolidation.py` the consolidation tools, both
with these; keeping them here lets both import them without importing each other.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Annotated

from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from graphit_cli import config, environ
from graphit_cli.core.models import MEMORY_TYPES
from graphit_cli.core.relevance import MAX_TOP_K
from graphit_cli.core.revisions import MAX_TITLE
from graphit_cli.errors import GraphitError, internal_error_text
from graphit_cli.formats import render
from graphit_cli.mcp.replies import ToolReply, mcp_message
from graphit_cli.mcp.replies import check_format as _check_format
from graphit_cli.mcp.tools import MemoryTools

# --- argument types (the JSON schema a client sees) -----------------------------------------

# Shared wording: each argument is described once, here, in a few words; a default is never
# restated in prose (the schema carries it), and what a scope or a type means is said once in
# the server instructions. Every client pays for this text in every session (see
# tests/test_mcp.py::test_tool_surface_fits_its_budget).
ScopeArg = str  # "project", "user" or context:NAME: the instructions say it once for all tools
FormatArg = Annotated[str, Field(json_schema_extra={"enum": ["text", "json"]})]
IdArg = str  # a memory id: its name says it
TypesArg = list[str] | None  # only memories of these types
TagsArg = Annotated[list[str] | None, Field(description="Only with all these tags.")]
LimitArg = Annotated[int, Field(ge=0, description="At most this many; 0 = all.")]
TopKArg = Annotated[int, Field(ge=0, le=MAX_TOP_K, description="Memories to select; 0 = all.")]
# The limits the tools enforce, stated in the schema so a client can check before it calls.
TitleArg = Annotated[str, Field(min_length=1, max_length=MAX_TITLE, pattern=r"^[^\r\n]+$")]
TYPE_ENUM = {"enum": list(MEMORY_TYPES)}
AnchorsArg = Annotated[
    list[str] | None,
    Field(description="What it depends on: repo paths, symbols, `make TARGET`; default: found."),
]

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# Omitted hints take the protocol's defaults: not read-only, not idempotent.
WRITE = ToolAnnotations(destructive_hint=False, open_world_hint=False)
FLAG = ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DELETE = ToolAnnotations(destructive_hint=True, open_world_hint=False)


def text_result(text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def respond(tools: MemoryTools, fmt: str, call: Callable[[], ToolReply]) -> CallToolResult:
    """Run one tool call; every failure becomes an error result, never a dead server."""
    try:
        chosen = _check_format(fmt)  # before any write: a bad format must not half-succeed
        with tools.lock, render.staleness(tools.stale_of):
            reply = call()
    except GraphitError as exc:
        return text_result(f"Error: {mcp_message(exc.message)}", error=True)
    except Exception as exc:
        if config.debug():
            traceback.print_exc(file=sys.stderr)
        return text_result(internal_error_text(exc, environ.ENV_DEBUG), error=True)
    # structuredContent always (its shape is the tool's outputSchema); `format` picks the text.
    text = json.dumps(reply.data, ensure_ascii=False, indent=2) if chosen == "json" else reply.text
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=reply.data
    )
