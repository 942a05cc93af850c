"""`graphit memory mcp` answers `tools/list` without the MCP SDK.

The tool list is static data (graphit_cli/mcp/tools_list.json, written by
scripts/gen_mcp_tools.py): equal to what the SDK's server sends for every protocol version a
handshake can negotiate, and sent by the main thread while the SDK is still being imported. The
SDK's own answer to the same request is dropped, never sent twice (and compared: a difference is
logged, which the lifecycle tests look for).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from graphit_cli.mcp import handshake, schemas
from tests import mcp_wire
from tests.conftest import PROJECT_ID

REPO = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, "-m", "graphit_cli", "memory", "mcp"]
INITIALIZE, INITIALIZED = mcp_wire.opening("2025-06-18")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_mcp_tools", REPO / "scripts/gen_mcp_tools.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("version", handshake.HANDSHAKE_VERSIONS)
def test_the_static_tool_list_is_the_sdks(version: str) -> None:
    """Run `.venv/bin/python scripts/gen_mcp_tools.py` when a tool changed and this fails."""
    assert _generator().sdk_answer(version) == schemas.tools_list()


def test_the_static_list_is_valid_for_the_sdk_client() -> None:
    import mcp_types as types

    listed = types.ListToolsResult.model_validate(schemas.tools_list())
    assert len(listed.tools) == 15
    assert all(t.name.startswith("graphit_memory_") and t.output_schema for t in listed.tools)


def test_only_a_first_page_listing_is_answered_early() -> None:
    ok = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    assert handshake.listing_id(ok) == 7
    assert handshake.listing_id({**ok, "params": {}}) == 7
    assert handshake.listing_id({**ok, "params": {"_meta": {"progressToken": 1}}}) == 7
    for other in (
        {**ok, "params": {"cursor": "abc"}},  # a later page: the SDK's
        # the stateless protocol (the SDK's own client): the answer's shape is its version's
        {**ok, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}},
        {**ok, "id": True},
        {**ok, "jsonrpc": "1.0"},
        {**ok, "method": "prompts/list"},
        {"jsonrpc": "2.0", "method": "tools/list"},  # a notification has no answer
        [ok],  # a batch
    ):
        assert handshake.listing_id(other) is None, other
    assert handshake.tools_answer("x") == {
        "jsonrpc": "2.0",
        "id": "x",
        "result": schemas.tools_list(),
    }


def test_a_fresh_server_lists_its_tools_before_the_sdk_is_imported(tmp_path: Path) -> None:
    """An `mcp` package that takes a minute to import stands in for the SDK: the server
    still answers `initialize` and `tools/list` (the SDK's own answer, exactly) at once."""
    slow = tmp_path / "slow"
    (slow / "mcp").mkdir(parents=True)
    (slow / "mcp" / "__init__.py").write_text("import time\ntime.sleep(60)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    env |= {
        "GRAPHIT_HOME": str(tmp_path / "home"),
        "GRAPHIT_PROJECT_ID": PROJECT_ID,
        "GRAPHIT_NO_DAEMON": "1",
        "PYTHONPATH": os.pathsep.join([str(slow), os.environ.get("PYTHONPATH") or str(REPO)]),
    }
    process = subprocess.Popen(
        SERVER,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        started = time.monotonic()
        process.stdin.write(json.dumps(INITIALIZE) + "\n")
        process.stdin.write(json.dumps(INITIALIZED) + "\n")
        process.stdin.write('{"jsonrpc":"2.0","id":"list","method":"tools/list"}\n')
        process.stdin.flush()
        first = json.loads(process.stdout.readline())
        listed = json.loads(process.stdout.readline())
        assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "graphit-memory"
        assert listed == {"jsonrpc": "2.0", "id": "list", "result": _generator().sdk_answer()}
        # A hang bound well under the stand-in's minute: the answers did not wait for it.
        assert time.monotonic() - started < 45
    finally:
        process.kill()
        process.communicate(timeout=60)


def test_the_sdks_own_answers_are_dropped(tmp_path: Path) -> None:
    """With the real SDK: one answer per request (an id reused after its answer included),
    the early ones first, and no logged difference from the SDK's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    env |= {
        "GRAPHIT_HOME": str(tmp_path / "home"),
        "GRAPHIT_PROJECT_ID": PROJECT_ID,
        "GRAPHIT_NO_DAEMON": "1",
        "PYTHONPATH": os.environ.get("PYTHONPATH") or str(REPO),
    }
    lines = [
        json.dumps(INITIALIZE),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}',
        '{"jsonrpc":"2.0","id":4,"method":"prompts/list"}',
    ]
    done = subprocess.run(
        SERVER,
        input="\n".join(lines) + "\n",
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4]
    assert answers[1]["result"] == answers[2]["result"] == schemas.tools_list()
    assert "otherwise" not in done.stderr, done.stderr
