"""Write graphit_cli/mcp/tools_list.json: the `tools/list` answer, as the MCP SDK gives it.

`graphit memory mcp` answers `tools/list` from this file before the SDK is imported (it takes
one to two seconds), so a client's first listing does not wait for it. Regenerate after
changing a tool (its name, title, description, arguments, annotations or output schema):

    .venv/bin/python scripts/gen_mcp_tools.py           # writes the file
    .venv/bin/python scripts/gen_mcp_tools.py --check   # exit 1 when the file is stale

tests/test_mcp_static.py fails while the committed file differs from the SDK's answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def sdk_answer(version: str | None = None) -> dict[str, Any]:
    """The result the SDK sends for `tools/list` on a connection that negotiated `version`
    (the newest by default): what its runner does with the handler's ListToolsResult (dumped
    by alias, in JSON mode, without None, then sieved by the version's result shape)."""
    import anyio
    import mcp_types as types
    from mcp_types import methods

    from graphit_cli.mcp.handshake import HANDSHAKE_VERSIONS
    from graphit_cli.mcp.server import build_server
    from graphit_cli.mcp.tools import MemoryTools

    async def listed() -> list[Any]:
        return await build_server(MemoryTools()).list_tools()

    result = types.ListToolsResult(tools=anyio.run(listed))
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    found: dict[str, Any] = methods.serialize_server_result(
        "tools/list", version or HANDSHAKE_VERSIONS[-1], dumped
    )
    return found


def text(answer: dict[str, Any]) -> str:
    return json.dumps(answer, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args()
    from graphit_cli.mcp.schemas import TOOLS_LIST_FILE

    wanted = text(sdk_answer())
    current = TOOLS_LIST_FILE.read_text(encoding="utf-8") if TOOLS_LIST_FILE.exists() else ""
    if args.check:
        if current != wanted:
            print(f"stale: {TOOLS_LIST_FILE.relative_to(REPO)}", file=sys.stderr)
            return 1
        return 0
    if current != wanted:
        TOOLS_LIST_FILE.write_text(wanted, encoding="utf-8")
        print(f"wrote {TOOLS_LIST_FILE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
