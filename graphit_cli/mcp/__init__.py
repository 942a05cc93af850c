"""The agent tool surface: the graphit_memory_* tools, served over MCP.

`tools` turns tool calls into MemoryService calls and renders compact text or JSON; it imports
no protocol library. `server` registers those tools with the MCP Python SDK and serves them over
stdio. Like `cli/`, this package is an adapter over the service: no business rules, and nothing
here imports Typer or Rich. Importing the package itself is free; only `server` loads the SDK.
"""
