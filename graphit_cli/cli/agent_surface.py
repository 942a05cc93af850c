"""`graphit memory mcp` and `graphit memory instructions`: the commands agents are pointed at
(the `graphit agent` group, which sets agents up, is cli/agents.py).

Registered on the `memory` group; `cli/app.py` imports this module so the commands exist. The
MCP SDK and the service are imported inside the commands, so `--help` stays fast.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from graphit_cli.cli.common import AGENTS, choice, handle_errors, out
from graphit_cli.cli.memory import memory_app


class Surface(StrEnum):
    cli = "cli"
    mcp = "mcp"


@memory_app.command("mcp", rich_help_panel=AGENTS)
@handle_errors
def mcp_() -> None:
    """Serve the graphit_memory_* tools to an agent over MCP (stdio).

    An MCP client starts it as a subprocess and talks JSON-RPC on stdin/stdout; it runs
    until the client disconnects. The server keeps each scope's table and the embedding
    model loaded between calls. Tools: graphit_memory_recall, _mandatory, _search,
    _source, _list, _important, _insert, _update, _delete, _promote, _demote,
    _mark_mandatory, _unmark_mandatory, _consolidate, _apply_consolidation; every tool
    takes a scope (project by default, or user). The project is found from the working
    directory the client starts it in, or GRAPHIT_PROJECT_ID.

    `graphit agent install CLIENT` writes the client's configuration (for the project:
    `graphit` from PATH; with --user: this graphit's path and GRAPHIT_HOME) and the
    recall guidance.
    """
    from graphit_cli.mcp.stdio import serve

    serve()


@memory_app.command(rich_help_panel=AGENTS)
def instructions(
    surface: Annotated[
        Surface,
        typer.Option(
            "--for",
            parser=choice(Surface, "surface"),
            help="cli: name the graphit commands; mcp: name the graphit_memory_* tools.",
        ),
    ] = Surface.cli,
) -> None:
    """Print the recall protocol and when and how to write memories, as Markdown.

    For agents that are not MCP clients: paste it into AGENTS.md or a system prompt. The
    MCP server gives its clients the same text (`--for mcp`) as its instructions.

    Example:

      graphit memory instructions >> AGENTS.md
    """
    from graphit_cli.formats import guidance

    out(guidance.markdown(surface.value))
