"""The server's answers to `initialize` and `tools/list`, without the MCP SDK.

The SDK costs one to two seconds to import, and a client waits for the `initialize` answer
before anything else; that answer depends on nothing the SDK computes: the protocol version
(the client's when the SDK negotiates it, else the newest), the capabilities (tools, prompts
and resources, none of them changing), the server's name, version and instructions.
`stdio.py` sends this answer at once and still hands the request to the SDK, whose own answer
it drops after comparing the two: a difference (a newer SDK) is logged, and a test holds them
equal for every protocol version. `tools/list` likewise: its answer is static data
(schemas.tools_list(), generated from the SDK's own answer and tested equal to it), so a client
that lists the tools right after the handshake (Gemini CLI's `mcp list` probe gives up after a
few seconds) does not wait for the SDK either. And a request the SDK cannot read (`refusal`) is
answered here in words. Standard library only (the SDK's parser is imported where it is used).
"""

from __future__ import annotations

import json
from typing import Any

from graphit_cli import __version__
from graphit_cli.mcp import schemas

SERVER_NAME = "graphit-memory"
SERVER_TITLE = "Graphit memory"

# mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS of the SDK this was written against (a test
# holds them equal): the versions an `initialize` can negotiate, oldest to newest.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "tools": {"listChanged": False},
}


def request_id(message: Any) -> int | str | None:
    """The id of a well-formed `initialize` request this module can answer, else None.

    Anything unusual (another method, a batch, odd params) is left to the SDK, which answers
    it or says what is wrong with it."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if message.get("method") != "initialize":
        return None
    ident = message.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return None
    if not isinstance(params.get("capabilities"), dict):
        return None
    info = params.get("clientInfo")
    if not isinstance(info, dict):
        return None
    if not isinstance(info.get("name"), str) or not isinstance(info.get("version"), str):
        return None
    return ident


def answer(message: dict[str, Any], ident: int | str) -> dict[str, Any]:
    """The JSON-RPC response the SDK gives to this `initialize` request."""
    from graphit_cli.formats import guidance

    requested = message["params"]["protocolVersion"]
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "result": {
            "capabilities": CAPABILITIES,
            "instructions": guidance.server_instructions(),
            "protocolVersion": version,
            "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": __version__},
        },
    }


_SPEC_META = "io.modelcontextprotocol/"  # the stateless protocol's per-request keys


def listing_id(message: Any) -> int | str | None:
    """The id of a `tools/list` request for the first (only) page, else None: a cursor, a
    request of the stateless protocol (its version in `_meta`: the answer's shape differs), or
    anything unusual, is left to the SDK."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if message.get("method") != "tools/list":
        return None
    ident = message.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    params = message.get("params")
    if params is not None and (not isinstance(params, dict) or set(params) - {"_meta"}):
        return None
    meta = params.get("_meta") if params else None
    if meta is not None and (
        not isinstance(meta, dict) or any(str(k).startswith(_SPEC_META) for k in meta)
    ):
        return None
    return ident


def tools_answer(ident: int | str) -> dict[str, Any]:
    """The JSON-RPC response the SDK gives to a `tools/list` request for the first page."""
    return {"jsonrpc": "2.0", "id": ident, "result": schemas.tools_list()}


def refusal(line: str) -> str | None:
    """The error answer to a request in `line` that the SDK cannot read; None when it can (or
    when there is no request to answer: the SDK then says what it says)."""
    from mcp import types

    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except Exception:  # pydantic's ValidationError, in any of its forms
        pass
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    ident = message.get("id") if isinstance(message, dict) else None
    if "method" not in message or isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    messages = [message]
    if _lone_surrogate(messages[0]):
        why = "it holds a lone surrogate escape (such as \\ud800), which is not Unicode text"
    else:
        why = "it is not a well-formed JSON-RPC request"
    reply = {
        "jsonrpc": "2.0",
        "id": messages[0]["id"],
        "error": {"code": -32600, "message": f"Invalid request: {why}"},
    }
    return json.dumps(reply, ensure_ascii=True)


def _lone_surrogate(message: dict[str, Any]) -> bool:
    """Whether a parsed message holds a lone surrogate (Python's JSON reads one; UTF-8 and the
    SDK's parser do not)."""
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# The client's name as its `initialize` said it (clientInfo.name): the `client` of the
# provenance of every write this server makes (core/provenance.py). None until it is known.
client_name: str | None = None


def remember_client(message: dict[str, Any]) -> None:
    """Keep the name an `initialize` request (checked by `request_id`) gives its client."""
    global client_name
    name = message["params"]["clientInfo"]["name"].strip()
    client_name = name[:100] or None
