"""graphit_memory_recall: the initial recall protocol in one call, over the other tools.

Every mandatory memory in full, then a search for the context with the mandatory memories left
out: the two steps of the spec's "Initial recall protocol", answered as one ToolReply. No MCP SDK,
Typer or Rich imports here.
"""

from __future__ import annotations

from graphit_cli.errors import InvalidInput
from graphit_cli.mcp.replies import ToolReply
from graphit_cli.mcp.tools import MAX_PAGE_SIZE, MemoryTools


def recall(
    tools: MemoryTools, context: str | None, *, scope: str | None = "all", top_k: int = 10
) -> ToolReply:
    if top_k < 0:
        raise InvalidInput("top_k must not be negative (0 means no limit)")
    loaded = tools.mandatory(scope=scope, types=None, tags=None)
    found = None
    if context and context.strip():
        page = min(top_k or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        found = tools.search(
            context, scope=scope, top_k=top_k, page_size=page, exclude_mandatory=True
        )
    text = loaded.text + "\n"
    text += (
        found.text
        if found
        else "No context given: pass context (the current task) to search for it too.\n"
    )
    data = {
        "scope": loaded.data["scope"],
        "mandatory": loaded.data["memories"],
        "search": found.data if found else None,
    }
    return ToolReply(text, data)
