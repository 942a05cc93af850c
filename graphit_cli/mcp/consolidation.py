"""The consolidation tools: graphit_memory_consolidate and graphit_memory_apply_consolidation.

Adapters over `consolidate.Consolidator` (which holds the guards, shared with the CLI and the
Explorer), registered on the server by `register`. Only `graphit memory mcp` imports this module.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from graphit_cli.formats import guidance
from graphit_cli.mcp.arguments import FormatArg, ScopeArg, respond
from graphit_cli.mcp.replies import ToolReply
from graphit_cli.mcp.tools import MemoryTools

FIND = ToolAnnotations(read_only_hint=True, open_world_hint=False)
APPLY = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


def candidates(tools: MemoryTools, *, scope: str | None, threshold: float | None) -> ToolReply:
    from graphit_cli.consolidate.consolidator import Consolidator
    from graphit_cli.consolidate.render import report_dict, report_markdown

    report = Consolidator(tools.service(scope)).report(threshold or None, tools.root)
    text = report_markdown(report, bodies=True)
    if report.groups:
        text += (
            "\nNext: write a plan (one merge per group you agree with, the revisions above) and "
            "check it with graphit_memory_apply_consolidation before passing apply=true.\n"
        )
    return ToolReply(text, report_dict(report))


def apply_plan(
    tools: MemoryTools,
    *,
    scope: str | None,
    plan: dict[str, Any],
    apply: bool,
    allow_mass_removal: bool,
) -> ToolReply:
    from graphit_cli.consolidate.consolidator import Consolidator
    from graphit_cli.consolidate.render import outcome_markdown

    outcome = Consolidator(tools.service(scope)).apply(
        plan, apply=apply, allow_mass_removal=allow_mass_removal
    )
    if apply:
        tools.wake()  # merged memories have new text: the backfill embeds them
    return ToolReply(outcome_markdown(outcome), outcome.to_dict())


def register(server: MCPServer[Any], tools: MemoryTools) -> None:
    describe = guidance.TOOL_DESCRIPTIONS

    @server.tool(
        "graphit_memory_consolidate",
        title="Find memories to consolidate",
        description=describe["graphit_memory_consolidate"],
        annotations=FIND,
    )
    def consolidate(
        scope: ScopeArg = "project",
        threshold: Annotated[
            float | None, Field(gt=0, le=1, description="Near-duplicate cosine.")
        ] = None,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(tools, format, lambda: candidates(tools, scope=scope, threshold=threshold))

    @server.tool(
        "graphit_memory_apply_consolidation",
        title="Apply a consolidation plan",
        description=describe["graphit_memory_apply_consolidation"],
        annotations=APPLY,
    )
    def apply_consolidation(
        plan: dict[str, Any],
        apply: bool = False,
        allow_mass_removal: Annotated[
            bool, Field(description="Permit removing over 1/4 (or 20) of the memories.")
        ] = False,
        scope: ScopeArg = "project",
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: apply_plan(
                tools,
                scope=scope,
                plan=plan,
                apply=apply,
                allow_mass_removal=allow_mass_removal,
            ),
        )
