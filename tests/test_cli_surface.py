"""One surface: every command is held to the options cli/common.py defines.

The test walks the live Typer app (every command and group callback, hidden ones too), so a
command added later (by any module) is checked the day it is registered.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest
import typer.main

from graphit_cli.cli.app import app
from graphit_cli.cli.common import PANELS
from graphit_cli.cli.plain import Format

pytestmark = pytest.mark.smoke  # `make check`: a new command is held to the surface at once

# Commands that print no records (a server, a stream, a hook's answer, a one-line notice, a
# Markdown text to paste), each with why; every other command takes the common -f/--format.
NO_RECORDS = {
    "init": "prints the project id, one line",
    "memory mcp": "speaks MCP on stdin/stdout",
    "memory daemon": "runs in the foreground; its log goes to stderr",
    "memory explorer": "serves a web page",
    "memory instructions": "prints guidance text to paste",
    "memory prune": "prints the pruned scope, one line",
    "memory redact": "prints nothing on stdout",
    "memory review on": "prints nothing on stdout (the policy goes into graphit.lock.json)",
    "memory review off": "prints nothing on stdout",
    "memory context remove": "prints the pruned context, one line",
    "provider add": "prints nothing on stdout",
    "provider use": "prints nothing on stdout",
    "provider remove": "prints nothing on stdout",
    "agent install": "prints a diff or nothing",
    "agent uninstall": "prints a diff or nothing",
    "agent hook session-start": "the agent client's own hook format",
    "agent hook prompt": "the agent client's own hook format",
    "agent hook capture": "the agent client's own hook format",
}

# What each short flag means, wherever it appears.
SHORT_FLAGS = {
    "-f": "--format",
    "-n": "--limit",
    "-k": "--top-k",
    "-s": "--scope",
    "-u": "--user",
    "-t": "--type",
    "-y": "--yes",
    "-o": "--output",
    "-i": "--input-format",
    "-V": "--version",
}


def _commands() -> list[tuple[str, Any]]:
    """(path, command) for every command and group of the app, the root's path ''."""
    found: list[tuple[str, Any]] = []

    def walk(cmd: Any, path: str) -> None:
        found.append((path, cmd))
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(typer.main.get_command(app), "")
    return found


def _options(cmd: Any) -> list[Any]:
    return [p for p in cmd.params if p.param_type_name == "option"]


def _format_option(cmd: Any) -> Any:
    return next((p for p in _options(cmd) if "--format" in p.opts), None)


def _leaves() -> list[tuple[str, Any]]:
    """Commands that run: leaves, and groups that run without a subcommand (consolidate)."""
    return [
        (path, cmd)
        for path, cmd in _commands()
        if path and (not getattr(cmd, "commands", None) or _format_option(cmd) is not None)
    ]


def test_every_command_that_prints_records_takes_the_one_format_option() -> None:
    leaves = dict(_leaves())
    assert set(NO_RECORDS) <= set(leaves), set(NO_RECORDS) - set(leaves)
    missing, odd = [], []
    for path, cmd in leaves.items():
        option = _format_option(cmd)
        if path in NO_RECORDS:
            assert option is None, f"{path} prints records after all: drop it from NO_RECORDS"
            continue
        if option is None:
            missing.append(path)
            continue
        annotation = option.type_descriptor.annotation
        if sorted(option.opts) != ["--format", "-f"] or annotation is not Format:
            odd.append(f"{path}: {option.opts} {annotation}")
        help_text = option.help or ""
        assert help_text.startswith("Output format: table, markdown, json or ndjson. Default: ")
        assert option.envvar == "GRAPHIT_FORMAT", path
    assert missing == [], f"commands printing records without -f/--format: {missing}"
    assert odd == [], odd
    assert [f.value for f in Format] == ["table", "markdown", "json", "ndjson"]


def test_no_short_flag_has_two_meanings() -> None:
    meanings: dict[str, set[str]] = defaultdict(set)
    for path, cmd in _commands():
        for option in _options(cmd):
            longs = [o for o in option.opts if o.startswith("--")]
            for short in (o for o in option.opts if not o.startswith("--")):
                if short == "-h":
                    continue
                meanings[short].add(longs[0] if longs else f"(only {short} in {path})")
    twice = {short: sorted(longs) for short, longs in meanings.items() if len(longs) > 1}
    assert twice == {}
    unknown = {s: m for s, m in meanings.items() if SHORT_FLAGS.get(s) not in m}
    assert unknown == {}, "a new short flag: give it one meaning in SHORT_FLAGS and cli/common"


def test_memory_help_lists_the_commands_by_task_with_the_daily_ones_first(cli) -> None:
    memory = dict(_commands())["memory"]
    unplaced = [
        name
        for name, cmd in memory.commands.items()
        if not cmd.hidden and getattr(cmd, "rich_help_panel", None) not in PANELS
    ]
    assert unplaced == [], "give each memory command a panel (cli/common.py PANELS)"
    result = cli("memory", "--help")
    assert result.exit_code == 0
    headings = [line[:-1] for line in result.stdout.splitlines() if line and line[0] != " "]
    assert headings[-len(PANELS) :] == list(PANELS)
    daily = result.stdout.split("Find and read:")[1].splitlines()[1:4]
    assert [line.split()[0] for line in daily] == ["search", "recall", "list"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("memory", "source", "--help"), "Default: markdown, on a terminal or piped."),
        (("memory", "list", "--help"), "Default: table on a terminal, markdown when piped."),
        (("memory", "upsert", "--help"), "Default: table, on a terminal or piped."),
        (("provider", "list", "--help"), "Default: table on a terminal, json when piped."),
    ],
)
def test_the_format_help_says_what_the_command_does_when_piped(cli, args, expected) -> None:
    text = " ".join(cli(*args).stdout.split())
    assert expected in text


def test_piped_defaults_are_the_ones_the_help_states(cli) -> None:
    """CliRunner's stdout is not a terminal: each command prints its stated piped default."""
    assert cli("memory", "upsert", "--title", "T", "--body", "b").exit_code == 0
    listed = cli("memory", "list")  # markdown: frontmatter
    assert listed.stdout.startswith("---\n")
    written = cli("memory", "upsert", "--title", "U", "--body", "c")  # table: a header row
    assert written.stdout.split()[0] == "ACTION"
    providers = cli("provider", "list")  # json
    assert isinstance(providers.json(), list)


def test_import_tells_an_input_format_given_to_f_where_it_goes(cli, tmp_path) -> None:
    source = tmp_path / "AGENTS.md"
    source.write_text("# Rules\n\n## Lint\n\nRun ruff.\n")
    wrong = cli("memory", "import", str(source), "-f", "agents")
    assert wrong.exit_code == 2
    assert "--input-format" in wrong.stderr
    right = cli("memory", "import", str(source), "-i", "agents", "-f", "ndjson")
    assert right.exit_code == 0, right.stderr
    [item] = [json.loads(line) for line in right.stdout.splitlines()]
    assert (item["action"], item["title"]) == ("created", "Lint")


def test_export_prints_its_rows_in_every_format(cli) -> None:
    assert cli("memory", "upsert", "--title", "T", "--body", "b").exit_code == 0
    assert cli("memory", "upsert", "--title", "U", "--body", "c").exit_code == 0
    lines = cli("memory", "export").stdout.splitlines()  # ndjson: what `import` reads back
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 2 and cli("memory", "export", "-f", "json").json() == rows
    table = cli("memory", "export", "-f", "table").stdout.splitlines()
    assert table[0].split() == ["ID", "REVISION", "ROW", "TITLE"]
    assert sorted(line.split()[-1] for line in table[1:]) == ["T", "U"]
    refused = cli("memory", "export", "-f", "markdown")  # a folder: needs -o
    assert refused.exit_code == 2 and "-o FOLDER" in refused.stderr
