"""The graphit_memory_* tools as an MCP server, with the official MCP SDK.

Each tool parses its arguments (the SDK builds the JSON schema from the signatures below), runs
one `MemoryTools` call and answers text or JSON. A GraphitError becomes an MCP error result
(`isError`) carrying the CLI's one-line `Error: ...` message, and the server keeps serving; so
does an unexpected exception, reported as an internal error. The SDK costs one to two seconds
to import, so only the server thread of `graphit memory mcp` imports this module (stdio.py runs
the process and answers `initialize` meanwhile; ruff TID253 bans `mcp` elsewhere).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult
from mcp.types import Tool as MCPTool
from pydantic import Field, ValidationError

from graphit_cli import __version__
from graphit_cli.formats import guidance
from graphit_cli.mcp.arguments import (
    DELETE,
    FLAG,
    READ,
    TYPE_ENUM,
    WRITE,
    AnchorsArg,
    FormatArg,
    IdArg,
    LimitArg,
    ScopeArg,
    TagsArg,
    TitleArg,
    TopKArg,
    TypesArg,
    respond,
    text_result,
)
from graphit_cli.mcp.handshake import SERVER_NAME, SERVER_TITLE
from graphit_cli.mcp.recall import recall as recall_reply
from graphit_cli.mcp.schemas import OUTPUT_SCHEMAS, compact_schema
from graphit_cli.mcp.tools import DEFAULT_LIST_LIMIT, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MemoryTools


class GraphitMCPServer(MCPServer[Any]):
    """MCPServer whose argument errors read like the CLI's: one line, and no silent extras."""

    _arguments: dict[str, set[str]] | None = None

    async def serve_streams(self, stdin: Any, stdout: Any) -> None:
        """Serve one client over these async line streams (stdio.py's Inbox and Wire) instead
        of the process's stdin and stdout: the SDK's stdio transport, handed its files."""
        from mcp.server.stdio import stdio_server

        lowlevel = self._lowlevel_server  # what MCPServer.run_stdio_async serves
        async with stdio_server(stdin, stdout) as (read, write):
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        compact = [
            {
                "input_schema": compact_schema(t.input_schema),
                "output_schema": OUTPUT_SCHEMAS[t.name],
            }
            for t in tools
        ]
        return [t.model_copy(update=c) for t, c in zip(tools, compact, strict=True)]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        _remember_client(context)
        if name == "graphit_memory_source" and "ref" in arguments and "id" not in arguments:
            arguments = {**arguments, "id": arguments["ref"]}  # the old name, still accepted
            del arguments["ref"]
        if self._arguments is None:
            listed = await self.list_tools()
            self._arguments = {t.name: set(t.input_schema.get("properties", {})) for t in listed}
        known = self._arguments.get(name)
        unknown = sorted(set(arguments) - known) if known is not None else []
        if known is not None and unknown:
            return text_result(
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
            return text_result(f"Error: invalid arguments for {name}: {problems}", error=True)


def _remember_client(context: Context[Any, Any] | None) -> None:
    """The client's name as the SDK's connection knows it (from `initialize`, or a newer
    protocol's request envelope), for the provenance of the writes (handshake.client_name)."""
    from graphit_cli.mcp import handshake

    if handshake.client_name is not None or context is None:
        return
    try:
        request = context.request_context
    except ValueError:
        return
    for holder in (getattr(request, "connection", None), getattr(request, "session", None)):
        info = getattr(getattr(holder, "client_params", None), "client_info", None)
        name = getattr(info, "name", None)
        if isinstance(name, str) and name.strip():
            handshake.client_name = name.strip()[:100]
            return


def build_server(tools: MemoryTools | None = None) -> GraphitMCPServer:
    """The MCP server with every graphit_memory_* tool registered on `tools`."""
    tools = tools or MemoryTools()
    server = GraphitMCPServer(
        SERVER_NAME,
        title=SERVER_TITLE,
        version=__version__,
        instructions=guidance.server_instructions(),
        log_level="WARNING",
    )
    describe = guidance.TOOL_DESCRIPTIONS

    @server.tool(
        "graphit_memory_recall",
        title="Recall at session start",
        description=describe["graphit_memory_recall"],
        annotations=READ,
    )
    def recall(
        context: str | None = None,  # the current task, in words (the description says it)
        scope: ScopeArg = "all",
        top_k: TopKArg = 10,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools, format, lambda: recall_reply(tools, context, scope=scope, top_k=top_k)
        )

    from graphit_cli.mcp.prompts import register_prompt_and_resource  # imports this module

    register_prompt_and_resource(server, tools)

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
        query: Annotated[str, Field(min_length=1, description="The current task, in words.")],
        scope: ScopeArg = "project",
        top_k: TopKArg = 10,
        # exclude_mandatory and include_deleted: the tool's description says what they do.
        exclude_mandatory: bool = False,
        include_deleted: bool = False,
        types: TypesArg = None,
        tags: TagsArg = None,
        page_size: Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE, description="Hits per call.")] = (
            DEFAULT_PAGE_SIZE
        ),
        cursor: str | None = None,  # next_cursor of the last page (the description says it)
        mode: Annotated[
            str, Field(json_schema_extra={"enum": ["auto", "hybrid", "fts", "vector"]})
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
        id: str,  # <id> or <id>/<revision-id>: the description says it
        scope: ScopeArg = "project",
        start_line: Annotated[int, Field(ge=1, description="First line.")] = 1,
        end_line: Annotated[int, Field(ge=0, description="Last line; 0 = the end.")] = 0,
        format: FormatArg = "text",
    ) -> CallToolResult:
        return respond(
            tools,
            format,
            lambda: tools.source(id, scope=scope, start_line=start_line, end_line=end_line),
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
        limit: LimitArg = DEFAULT_LIST_LIMIT,
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
        limit: LimitArg = DEFAULT_LIST_LIMIT,
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
        title: TitleArg,
        body: Annotated[str, Field(min_length=1, description="Markdown: what, and why.")],
        type: Annotated[str, Field(json_schema_extra=TYPE_ENUM)] = "fact",
        tags: list[str] | None = None,
        important: bool = False,
        mandatory: bool = False,
        force: Annotated[bool, Field(description="Write despite a live duplicate.")] = False,
        anchors: AnchorsArg = None,
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
                anchors_given=anchors,
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
        title: TitleArg | None = None,
        body: Annotated[str | None, Field(min_length=1)] = None,
        type: Annotated[str | None, Field(json_schema_extra=TYPE_ENUM)] = None,
        tags: Annotated[list[str] | None, Field(description="Replace the tags.")] = None,
        important: bool | None = None,
        mandatory: bool | None = None,
        expected_revision: Annotated[
            int | None, Field(ge=1, description="Fail unless still at this revision.")
        ] = None,
        anchors: AnchorsArg = None,
        verify: Annotated[
            bool, Field(description="It still holds: record it verified (alone: no new revision).")
        ] = False,
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
                anchors_given=anchors,
                verify=verify,
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

    def flag_tool(name: str, flag: str, value: bool) -> None:
        def set_flag(
            id: IdArg, scope: ScopeArg = "project", format: FormatArg = "text"
        ) -> CallToolResult:
            return respond(
                tools, format, lambda: tools.set_flag(id, scope=scope, flag=flag, value=value)
            )

        # No title: the description says it in as few words (every session pays for both).
        server.add_tool(set_flag, name=name, description=describe[name], annotations=FLAG)

    flag_tool("graphit_memory_promote", "important", True)
    flag_tool("graphit_memory_demote", "important", False)
    flag_tool("graphit_memory_mark_mandatory", "mandatory", True)
    flag_tool("graphit_memory_unmark_mandatory", "mandatory", False)
    from graphit_cli.mcp.consolidation import register

    register(server, tools)
    return server
