"""`graphit memory mcp`: the graphit_memory_* tools over stdio, with the official MCP SDK.

Each tool parses its arguments (the SDK builds the JSON schema from the signatures below), runs
one `MemoryTools` call and answers text or JSON. A GraphitError becomes an MCP error result
(`isError`) carrying the CLI's one-line `Error: ...` message, and the server keeps serving; so
does an unexpected exception, reported as an internal error. The SDK costs about a second to
import, so only the `mcp` command imports this module (ruff TID253 bans `mcp` elsewhere).
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from graphit_cli import __version__, config, guidance
from graphit_cli.errors import GraphitError, internal_error_text
from graphit_cli.mcp.tools import DEFAULT_LIST_LIMIT, DEFAULT_PAGE_SIZE, MemoryTools, Reply
from graphit_cli.mcp.tools import check_format as _check_format

log = logging.getLogger(__name__)

# --- argument types (the JSON schema a client sees) -----------------------------------------

ScopeArg = Annotated[
    str,
    Field(
        description='"project" (default): this project\'s memory. "user": personal '
        "preferences that apply across projects. (Also context:NAME for an imported context; "
        '"all" for mandatory and search: the project, the user and recall contexts together.)'
    ),
]
FormatArg = Annotated[
    str,
    Field(
        description='"text" (default): compact text to read. "json": the same result as JSON.',
        json_schema_extra={"enum": ["text", "json"]},
    ),
]
IdArg = Annotated[str, Field(description="The memory's id (a 26-character ULID).")]
TypesArg = Annotated[
    list[str] | None,
    Field(
        description="Only these types: fact, decision, convention, correction, preference, "
        "constraint, procedure, skill, tension."
    ),
]
TagsArg = Annotated[list[str] | None, Field(description="Only memories carrying all these tags.")]

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
FLAG = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DELETE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


def _text(text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def respond(tools: MemoryTools, fmt: str, call: Callable[[], Reply]) -> CallToolResult:
    """Run one tool call; every failure becomes an error result, never a dead server."""
    try:
        chosen = _check_format(fmt)  # before any write: a bad format must not half-succeed
        with tools.lock:
            reply = call()
    except GraphitError as exc:
        return _text(f"Error: {exc.message}", error=True)
    except Exception as exc:
        if config.debug():
            traceback.print_exc(file=sys.stderr)
        return _text(internal_error_text(exc), error=True)
    if chosen == "json":
        payload = json.dumps(reply.data, ensure_ascii=False, indent=2)
        return CallToolResult(
            content=[TextContent(type="text", text=payload)], structured_content=reply.data
        )
    return _text(reply.text)


class GraphitMCPServer(MCPServer[Any]):
    """MCPServer whose argument errors read like the CLI's: one line, and no silent extras."""

    _arguments: dict[str, set[str]] | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self._arguments is None:
            listed = await self.list_tools()
            self._arguments = {t.name: set(t.input_schema.get("properties", {})) for t in listed}
        known = self._arguments.get(name)
        unknown = sorted(set(arguments) - known) if known is not None else []
        if known is not None and unknown:
            return _text(
                f"Error: unknown argument(s) {', '.join(unknown)} for {name}; it takes "
                f"{', '.join(sorted(known))}",
                error=True,
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                for err in exc.__cause__.errors()
            )
            return _text(f"Error: invalid arguments for {name}: {problems}", error=True)


def build_server(tools: MemoryTools | None = None) -> MCPServer[Any]:
    """The MCP server with every graphit_memory_* tool registered on `tools`."""
    tools = tools or MemoryTools()
    server = GraphitMCPServer(
        "graphit-memory",
        title="Graphit memory",
        version=__version__,
        instructions=guidance.server_instructions(),
        log_level="WARNING",
    )
    describe = guidance.TOOL_DESCRIPTIONS

    @server.tool(
        "graphit_memory_mandatory",
        title="Load mandatory memories",
        description=describe["graphit_memory_mandatory"],
        annotations=READ,
    )
    def mandatory(
        scope: ScopeArg = "project",
        types: TypesArg = None,
        tags: TagsArg = None,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(tools, format, lambda: tools.mandatory(scope=scope, types=types, tags=tags))

    @server.tool(
        "graphit_memory_search",
        title="Search memories",
        description=describe["graphit_memory_search"],
        annotations=READ,
    )
    def search(
        query: Annotated[str, Field(description="What the current task is about, in words.")],
        scope: ScopeArg = "project",
        top_k: Annotated[
            int, Field(description="How many memories to select; 0 = every match.")
        ] = 10,
        exclude_mandatory: Annotated[
            bool, Field(description="Leave out mandatory memories (already loaded in full).")
        ] = False,
        include_deleted: Annotated[
            bool, Field(description="Also return deleted memories, marked deleted.")
        ] = False,
        types: TypesArg = None,
        tags: TagsArg = None,
        page_size: Annotated[
            int, Field(description="How many results per call (1-100).")
        ] = DEFAULT_PAGE_SIZE,
        cursor: Annotated[
            str | None,
            Field(description="next_cursor from the previous page of this same search."),
        ] = None,
        mode: Annotated[
            str,
            Field(
                description="auto (default: hybrid when vectors exist, else full-text), "
                "hybrid, fts or vector.",
                json_schema_extra={"enum": ["auto", "hybrid", "fts", "vector"]},
            ),
        ] = "auto",
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.search(
                query,
                scope=scope,
                top_k=top_k,
                page_size=page_size,
                cursor=cursor,
                exclude_mandatory=exclude_mandatory,
                include_deleted=include_deleted,
                types=types,
                tags=tags,
                mode=mode,
            ),
        )

    @server.tool(
        "graphit_memory_source",
        title="Read a memory",
        description=describe["graphit_memory_source"],
        annotations=READ,
    )
    def source(
        ref: Annotated[
            str,
            Field(description="<id> for the current memory, <id>/<revision-id> for a revision."),
        ],
        scope: ScopeArg = "project",
        start_line: Annotated[int, Field(description="First line to return (1-based).")] = 1,
        end_line: Annotated[
            int, Field(description="Last line to return (inclusive); 0 = to the end.")
        ] = 0,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.source(ref, scope=scope, start_line=start_line, end_line=end_line),
        )

    @server.tool(
        "graphit_memory_list",
        title="List memories",
        description=describe["graphit_memory_list"],
        annotations=READ,
    )
    def list_(
        scope: ScopeArg = "project",
        types: TypesArg = None,
        tags: TagsArg = None,
        limit: Annotated[
            int, Field(description="At most this many memories; 0 = no limit.")
        ] = DEFAULT_LIST_LIMIT,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.catalogue(scope=scope, types=types, tags=tags, limit=limit),
        )

    @server.tool(
        "graphit_memory_important",
        title="List important memories",
        description=describe["graphit_memory_important"],
        annotations=READ,
    )
    def important(
        scope: ScopeArg = "project",
        types: TypesArg = None,
        tags: TagsArg = None,
        limit: Annotated[
            int, Field(description="At most this many memories; 0 = no limit.")
        ] = DEFAULT_LIST_LIMIT,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.catalogue(
                scope=scope,
                types=types,
                tags=tags,
                important=True,
                limit=limit,
                what="important memories",
            ),
        )

    @server.tool(
        "graphit_memory_insert",
        title="Write a new memory",
        description=describe["graphit_memory_insert"],
        annotations=WRITE,
    )
    def insert(
        title: Annotated[str, Field(description="One line that states the memory.")],
        body: Annotated[
            str, Field(description="Markdown: what, and why (keep the user's rationale).")
        ],
        type: Annotated[
            str,
            Field(
                description="fact (default), decision, convention, correction, preference, "
                "constraint, procedure, skill or tension."
            ),
        ] = "fact",
        tags: Annotated[list[str] | None, Field(description="Tags, e.g. areas or tools.")] = None,
        important: Annotated[
            bool, Field(description="Curated reference material, relevant in some tasks.")
        ] = False,
        mandatory: Annotated[
            bool, Field(description="Needed in full in every session (loaded at start).")
        ] = False,
        force: Annotated[
            bool, Field(description="Write even if a live memory already says the same thing.")
        ] = False,
        scope: ScopeArg = "project",
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.insert(
                scope=scope,
                title=title,
                body=body,
                type=type,
                tags=tags,
                important=important,
                mandatory=mandatory,
                force=force,
            ),
        )

    @server.tool(
        "graphit_memory_update",
        title="Update a memory",
        description=describe["graphit_memory_update"],
        annotations=WRITE,
    )
    def update(
        id: IdArg,
        title: Annotated[str | None, Field(description="New title.")] = None,
        body: Annotated[str | None, Field(description="New Markdown body (replaces it).")] = None,
        type: Annotated[str | None, Field(description="New type.")] = None,
        tags: Annotated[list[str] | None, Field(description="New tags (replace them).")] = None,
        important: Annotated[bool | None, Field(description="Set the important flag.")] = None,
        mandatory: Annotated[bool | None, Field(description="Set the mandatory flag.")] = None,
        expected_revision: Annotated[
            int | None,
            Field(description="Fail unless the memory is still at this revision."),
        ] = None,
        scope: ScopeArg = "project",
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.update(
                id,
                scope=scope,
                title=title,
                body=body,
                type=type,
                tags=tags,
                important=important,
                mandatory=mandatory,
                expected_revision=expected_revision,
            ),
        )

    @server.tool(
        "graphit_memory_delete",
        title="Delete a memory",
        description=describe["graphit_memory_delete"],
        annotations=DELETE,
    )
    def delete(
        id: IdArg, scope: ScopeArg = "project", format: FormatArg = "text"
    ) -> CallToolResult:
        return respond(tools, format, lambda: tools.delete(id, scope=scope))

    def flag_tool(name: str, title: str, flag: str, value: bool) -> None:
        def set_flag(
            id: IdArg, scope: ScopeArg = "project", format: FormatArg = "text"
        ) -> CallToolResult:
            return respond(
                tools, format, lambda: tools.set_flag(id, scope=scope, flag=flag, value=value)
            )

        server.add_tool(
            set_flag, name=name, title=title, description=describe[name], annotations=FLAG
        )

    flag_tool("graphit_memory_promote", "Mark a memory important", "important", True)
    flag_tool("graphit_memory_demote", "Clear the important flag", "important", False)
    flag_tool("graphit_memory_mark_mandatory", "Mark a memory mandatory", "mandatory", True)
    flag_tool("graphit_memory_unmark_mandatory", "Clear the mandatory flag", "mandatory", False)
    from graphit_cli.mcp.consolidation import register  # imports this module: no cycle

    register(server, tools)
    return server


def serve() -> None:
    """Serve over stdin/stdout until the client closes the connection."""
    tools = MemoryTools()
    server = build_server(tools)

    def warm() -> None:
        # The first search should not pay for opening the table and loading the model.
        try:
            tools.warm("project")
        except Exception as exc:  # e.g. not inside a project: the tools will say so
            log.debug("warm-up skipped: %s", exc)

    threading.Thread(target=warm, name="graphit-warm-up", daemon=True).start()
    server.run("stdio")
