"""The prompt and the resource the server offers: a recall prompt and the mandatory memories.

Both are useful on their own: a client shows the prompt as a command that puts the memories in
the conversation, and can attach the resource. Only `graphit memory mcp` imports this module.
"""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from graphit_cli.errors import GraphitError
from graphit_cli.mcp.recall import recall
from graphit_cli.mcp.replies import mcp_message
from graphit_cli.mcp.tools import MemoryTools

MANDATORY_URI = "graphit://memory/mandatory"


def _recall_text(tools: MemoryTools, context: str | None) -> str:
    try:
        with tools.lock:
            return recall(tools, context, scope="all").text
    except GraphitError as exc:
        raise ToolError(mcp_message(exc.message)) from None


def register_prompt_and_resource(server: MCPServer[Any], tools: MemoryTools) -> None:
    """A recall prompt (a client's /command that loads the memories into the conversation)
    and the mandatory memories as a resource a client can attach."""

    @server.prompt(
        "graphit_recall",
        title="Recall graphit memory",
        description="Load every mandatory memory, and the memories about the task, into the chat.",
    )
    def recall_prompt(task: str = "") -> str:
        return (
            "Graphit memory recall for this session (mandatory memories apply to every "
            "session; read them all):\n\n" + _recall_text(tools, task or None)
        )

    @server.resource(
        MANDATORY_URI,
        name="mandatory-memories",
        title="Mandatory memories",
        description="Every mandatory memory of the project, the user and recall contexts.",
        mime_type="text/markdown",
    )
    def mandatory_resource() -> str:
        try:
            with tools.lock:
                return tools.mandatory(scope="all", types=None, tags=None).text
        except GraphitError as exc:
            raise ToolError(mcp_message(exc.message)) from None
