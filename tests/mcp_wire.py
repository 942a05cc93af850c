"""The JSON-RPC lines a test client sends an MCP server over stdio: the opening handshake and
a tool call, as the clients write them."""

from __future__ import annotations

from typing import Any


def opening(version: str = "2025-11-25") -> list[dict[str, Any]]:
    """`initialize` (id 1) and the `initialized` notification."""
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def insert(request_id: int, title: str, body: str) -> dict[str, Any]:
    """A `graphit_memory_insert` tool call."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": "graphit_memory_insert",
            "arguments": {"title": title, "body": body},
        },
    }
