"""scope "all" through the MCP SDK's stdio client: the one-call start over every scope."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from graphit_cli.portability.importer import source_id
from tests.conftest import PROJECT_ID


def add(cli, *args: str) -> str:
    result = cli("memory", "upsert", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return str(result.json()[0]["id"])


def test_mandatory_and_search_over_all_scopes(cli, graphit_home: Path, tmp_path: Path) -> None:
    rule = add(cli, "--title", "Lint first", "--body", "Run ruff before commits.", "--mandatory")
    note = add(cli, "--title", "Ruff config", "--body", "ruff settings live in pyproject.")
    pref = add(cli, "--user", "--title", "Terse", "--body", "Short answers.", "--mandatory")
    habit = add(cli, "--user", "--title", "Editor", "--body", "I run ruff on save.")
    team = tmp_path / "team"
    team.mkdir()
    (team / "AGENTS.md").write_text("## Reviews\n\nOne approving review; ruff green.\n")
    assert cli("memory", "context", "add", "team", "--from", str(team), "--recall").exit_code == 0
    reviews = source_id("agents:AGENTS.md#Reviews")

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphit_cli", "memory", "mcp"],
        env={
            "GRAPHIT_HOME": str(graphit_home),
            "GRAPHIT_PROJECT_ID": PROJECT_ID,
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),  # this checkout's code
        },
        cwd=tmp_path,
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120)) as client,
    ):

        def call(tool: str, **arguments: Any) -> tuple[str, Any]:
            text_result = portal.call(client.call_tool, tool, arguments)
            assert not text_result.is_error, text_result.content
            data = portal.call(client.call_tool, tool, {**arguments, "format": "json"})
            return text_result.content[0].text, json.loads(data.content[0].text)

        scopes = f"project:{PROJECT_ID}, user:anonymous, context:team"
        text, data = call("graphit_memory_mandatory", scope="all")
        assert text.startswith(f"3 mandatory memories in all scopes ({scopes}); read all")
        assert [(m["id"], m["scope"]) for m in data["memories"]] == [
            (rule, f"project:{PROJECT_ID}"),
            (pref, "user:anonymous"),
            (reviews, "context:team"),
        ]
        assert 'scope: "user:anonymous"' in text and "# Terse\n\nShort answers.\n" in text

        text, data = call(
            "graphit_memory_search", query="ruff", scope="all", exclude_mandatory=True
        )
        assert {(h["id"], h["scope"]) for h in data["hits"]} == {
            (note, f"project:{PROJECT_ID}"),
            (habit, "user:anonymous"),
        }
        assert "scope: user:anonymous" in text and rule not in text

        # A hit's scope label reads it back; another user's label is refused.
        source, _ = call("graphit_memory_source", ref=habit, scope="user:anonymous")
        assert source.startswith(f'---\nid: "{habit}"\n')
        refused = portal.call(
            client.call_tool, "graphit_memory_source", {"ref": habit, "scope": "user:mallory"}
        )
        assert refused.is_error
        assert "is not this user's" in refused.content[0].text
