"""The Memory Explorer: a local web UI at /memory/explorer/<scope>/<id> and the /api/memories API.

An adapter like `cli/` and `mcp/`: handlers parse a request, call MemoryService and shape JSON;
no memory logic lives here. Starlette and uvicorn are imported only by the command that serves
it, never by `graphit --help`.
"""
