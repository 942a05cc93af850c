"""`graphit agent install|uninstall|status`: each client's own file, merged, never clobbered.

Every client's file is written with content of its own first (another server, another key, its
own indentation, TOML comments); install must keep all of it, a second install must change no
byte, uninstall must give the original bytes back, and a malformed file is refused untouched.
The Claude Code SessionStart hook is run for real in a subprocess. (Teams, layouts, the
per-prompt hook and the files a team commits: tests/test_agent_teams.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.agents import files
from graphit_cli.formats import guidance
from tests.conftest import PROJECT_ID

TOML_BEFORE = """\
# my Codex settings: this comment must survive
model = "o3"  # an inline comment too

[mcp_servers.other]
command = "other-server"
args = ["--flag"]
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME (and CODEX_HOME) of the test's own: user-level files go there."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / "codex-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


# (client, --user?, config path relative to the project or HOME, key, instructions file)
CASES = [
    ("claude-code", False, "P/.mcp.json", "mcpServers", "P/CLAUDE.md"),
    ("claude-code", True, "H/.claude.json", "mcpServers", "H/.claude/CLAUDE.md"),
    ("cursor", False, "P/.cursor/mcp.json", "mcpServers", "P/AGENTS.md"),
    ("cursor", True, "H/.cursor/mcp.json", "mcpServers", None),
    ("vscode", False, "P/.vscode/mcp.json", "servers", "P/AGENTS.md"),
    ("vscode", True, "H/.config/Code/User/mcp.json", "servers", None),
    ("codex", False, "P/.codex/config.toml", "mcp_servers", "P/AGENTS.md"),
    ("codex", True, "H/codex-home/config.toml", "mcp_servers", "H/codex-home/AGENTS.md"),
    ("gemini", False, "P/.gemini/settings.json", "mcpServers", "P/GEMINI.md"),
    ("gemini", True, "H/.gemini/settings.json", "mcpServers", "H/.gemini/GEMINI.md"),
]


def _where(spec: str, project: Path, home: Path) -> Path:
    base, rest = spec.split("/", 1)
    return (project if base == "P" else home) / rest


def _json_before(key: str, indent: int | str) -> str:
    data = {"theme": "dark", key: {"other": {"command": "other-server", "args": ["-x"]}}}
    return json.dumps(data, indent=indent) + "\n"


def _entry(path: Path, key: str) -> Any:
    if path.suffix == ".toml":
        return files.toml_entry(path, path.read_text(), key, "graphit")
    return json.loads(path.read_text())[key]["graphit"]


def _snapshot(*roots: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(("name", "user", "config", "key", "guide"), CASES)
def test_install_merges_is_idempotent_and_uninstall_restores_every_byte(
    cli,
    project_dir: Path,
    home: Path,
    name: str,
    user: bool,
    config: str,
    key: str,
    guide: str | None,
) -> None:
    path = _where(config, project_dir, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    before = TOML_BEFORE if path.suffix == ".toml" else _json_before(key, 4 if user else "\t")
    path.write_text(before)
    guide_path = _where(guide, project_dir, home) if guide else None
    if guide_path is not None:
        guide_path.parent.mkdir(parents=True, exist_ok=True)
        guide_path.write_text("# Our project\n\nHand-written notes stay.\n")
    level = ["--user"] if user else []

    result = cli("agent", "install", name, *level)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    entry = _entry(path, key)
    assert entry["args"] == ["memory", "mcp"]
    if user:  # the user's own file pins this graphit and its home
        assert Path(entry["command"]).is_absolute() and Path(entry["command"]).name == "graphit"
        assert entry["env"] == {"GRAPHIT_HOME": os.environ["GRAPHIT_HOME"]}
    else:  # the team's file: `graphit` from PATH, the project's id, nothing of this machine
        assert entry["command"] == "graphit"
        assert entry["env"] == {"GRAPHIT_PROJECT_ID": PROJECT_ID}
    assert ("type" in entry) is (name in ("claude-code", "vscode"))
    text = path.read_text()
    if path.suffix == ".toml":
        assert text.startswith(TOML_BEFORE)  # comments and the other server, as written
    else:
        data = json.loads(text)
        assert data["theme"] == "dark" and data[key]["other"]["args"] == ["-x"]
        indent = "    " if user else "\t"
        assert f'\n{indent}"theme": "dark"' in text  # the file's own indentation
    if guide_path is not None:
        written = guide_path.read_text()
        assert written.startswith("# Our project\n\nHand-written notes stay.\n\n" + files.BEGIN)
        assert guidance.markdown("mcp").strip() in written

    installed = _snapshot(project_dir, home)
    again = cli("agent", "install", name, *level)
    assert again.exit_code == 0 and "Nothing to change" in again.stderr
    assert _snapshot(project_dir, home) == installed  # not one byte

    removed = cli("agent", "uninstall", name, *level)
    assert removed.exit_code == 0, removed.stderr
    assert path.read_text() == before
    if guide_path is not None:
        assert guide_path.read_text() == "# Our project\n\nHand-written notes stay.\n"
    assert (
        not (project_dir / ".claude").exists() and not (home / ".claude" / "settings.json").exists()
    )


@pytest.mark.parametrize(("name", "user", "config", "key", "guide"), CASES)
def test_install_into_nothing_and_uninstall_leaves_nothing(
    cli,
    project_dir: Path,
    home: Path,
    name: str,
    user: bool,
    config: str,
    key: str,
    guide: str | None,
) -> None:
    level = ["--user"] if user else []
    start = _snapshot(project_dir, home)
    assert cli("agent", "install", name, *level).exit_code == 0
    path = _where(config, project_dir, home)
    assert _entry(path, key)["args"] == ["memory", "mcp"]
    if path.suffix == ".json":
        assert path.read_text().startswith('{\n  "')  # two spaces for a new file
    assert cli("agent", "uninstall", name, *level).exit_code == 0
    assert _snapshot(project_dir, home) == start
    # A .cursor/ (or .claude/, ...) made for the file goes with it; CODEX_HOME and VS Code's
    # profile directory are the clients' own.
    assert not path.parent.exists() or path.parent in (
        project_dir,
        home,
        home / "codex-home",
        home / ".config" / "Code" / "User",
    )


@pytest.mark.parametrize("name", ["claude-code", "cursor", "vscode", "codex", "gemini"])
def test_dry_run_prints_the_diff_and_writes_nothing(
    cli, project_dir: Path, home: Path, name: str
) -> None:
    start = _snapshot(project_dir, home)
    result = cli("agent", "install", name, "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert _snapshot(project_dir, home) == start
    assert result.stdout.startswith("--- /dev/null\n+++ ")
    assert '"memory"' in result.stdout or "memory" in result.stdout
    assert "nothing was written" in result.stderr
    cli("agent", "install", name)
    installed = _snapshot(project_dir, home)
    dry = cli("agent", "uninstall", name, "--dry-run")
    assert dry.exit_code == 0 and dry.stdout.count("+++ /dev/null") >= 1
    assert _snapshot(project_dir, home) == installed


@pytest.mark.parametrize(
    ("name", "relative", "bad"),
    [
        ("claude-code", ".mcp.json", '{"mcpServers": {'),
        ("cursor", ".cursor/mcp.json", "[1, 2]"),
        ("vscode", ".vscode/mcp.json", '{"servers": []}'),
        ("gemini", ".gemini/settings.json", "{'single': 'quotes'}"),
        ("codex", ".codex/config.toml", "[mcp_servers\nbroken = "),
    ],
)
def test_a_malformed_file_is_refused_and_nothing_is_written(
    cli, project_dir: Path, home: Path, name: str, relative: str, bad: str
) -> None:
    path = project_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(bad)
    start = _snapshot(project_dir, home)
    result = cli("agent", "install", name)
    assert result.exit_code == 3
    [line] = [x for x in result.stderr.splitlines() if not x.startswith("Warning:")]
    assert line.startswith(f"Error: {path}") and line.endswith("nothing was changed"), line
    assert _snapshot(project_dir, home) == start  # not the hook, not the guidance either
    # Uninstall refuses what it cannot parse (a "servers" list holds nothing of ours: exit 0).
    assert cli("agent", "uninstall", name).exit_code == (0 if name == "vscode" else 3)
    assert _snapshot(project_dir, home) == start


def test_every_client_has_both_levels_and_bad_arguments_are_refused(
    cli, project_dir: Path, home: Path
) -> None:
    assert cli("agent", "install", "codex", "--project", "--dry-run").exit_code == 0
    assert cli("agent", "install", "vscode", "--user", "--dry-run").exit_code == 0
    assert cli("agent", "install", "vscode", "--user", "--project").exit_code == 2
    unknown = cli("agent", "install", "emacs")
    assert unknown.exit_code == 2 and "claude-code" in unknown.stderr
    assert list(project_dir.iterdir()) == [project_dir / "graphit.lock.json"]


def test_the_shared_agents_md_block_stays_while_another_client_uses_it(
    cli, project_dir: Path, home: Path
) -> None:
    cli("agent", "install", "cursor")
    cli("agent", "install", "vscode")
    agents_md = project_dir / "AGENTS.md"
    assert agents_md.read_text().count(files.BEGIN) == 1  # one block, not two
    cli("agent", "uninstall", "cursor")
    assert files.BEGIN in agents_md.read_text()  # vscode still reads it
    cli("agent", "uninstall", "vscode")
    assert not agents_md.exists()


def test_an_outdated_block_and_entry_are_replaced_not_repeated(
    cli, project_dir: Path, home: Path
) -> None:
    cli("agent", "install", "gemini")
    guide = project_dir / "GEMINI.md"
    guide.write_text(guide.read_text().replace("Recall", "Old recall") + "\nAfter the block.\n")
    settings = project_dir / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"]["graphit"]["command"] = "/old/venv/bin/graphit"
    settings.write_text(json.dumps(data, indent=2) + "\n")
    status = cli("agent", "status", "-f", "json").json()
    [row] = [r for r in status if r["client"] == "gemini" and r["level"] == "project"]
    assert row["server"] == "outdated" and row["guidance"] == "outdated"
    cli("agent", "install", "gemini")
    text = guide.read_text()
    assert text.count(files.BEGIN) == 1 and "Old recall" not in text
    assert text.endswith("\nAfter the block.\n")
    assert (
        json.loads(settings.read_text())["mcpServers"]["graphit"]["command"]
        != "/old/venv/bin/graphit"
    )


def test_status_shows_what_is_installed_where(cli, project_dir: Path, home: Path) -> None:
    cli("agent", "install", "claude-code")
    cli("agent", "install", "codex", "--user")
    rows = {(r["client"], r["level"]): r for r in cli("agent", "status", "-f", "json").json()}
    assert set(rows) == {
        ("claude-code", "project"),
        ("claude-code", "user"),
        ("cursor", "project"),
        ("cursor", "user"),
        ("vscode", "project"),
        ("vscode", "user"),
        ("codex", "project"),
        ("codex", "user"),
        ("gemini", "project"),
        ("gemini", "user"),
    }
    claude = rows[("claude-code", "project")]
    assert claude == {
        "client": "claude-code",
        "level": "project",
        "config": str(project_dir / ".mcp.json"),
        "server": "installed",
        "hook": "installed",
        "prompt_hook": "installed",
        "capture_hooks": "installed",
        "instructions": str(project_dir / "CLAUDE.md"),
        "guidance": "installed",
    }
    assert rows[("codex", "user")]["server"] == "installed"
    assert rows[("cursor", "project")]["server"] == "absent"
    assert rows[("claude-code", "user")]["hook"] == "absent"
    table = cli("agent", "status").stdout
    assert f"claude-code  project  {project_dir / '.mcp.json'}\n" in table
    assert (
        "server installed; hook installed; prompt hook installed; capture hooks installed; "
        "guidance installed"
    ) in table


def test_the_hook_keeps_other_hooks_and_settings(cli, project_dir: Path, home: Path) -> None:
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
            ]
        },
    }
    before = json.dumps(theirs, indent=2) + "\n"
    settings.write_text(before)
    cli("agent", "install", "claude-code")
    groups = json.loads(settings.read_text())["hooks"]["SessionStart"]
    assert groups[0] == theirs["hooks"]["SessionStart"][0]
    assert groups[1]["hooks"][0]["command"] == (
        "command -v graphit >/dev/null 2>&1 || exit 0; graphit agent hook session-start || exit 1"
    )
    cli("agent", "uninstall", "claude-code")
    assert settings.read_text() == before


def test_the_session_start_hook_prints_the_mandatory_memories(
    cli, project_dir: Path, home: Path
) -> None:
    written = cli(
        "memory",
        "upsert",
        "--title",
        "Deploys go through the staging bucket",
        "--body",
        "Never push straight to production.",
        "--type",
        "convention",
        "--mandatory",
    )
    assert written.exit_code == 0, written.stderr
    cli("memory", "upsert", "--title", "An ordinary note", "--body", "Not loaded at start.")
    assert cli("agent", "install", "claude-code").exit_code == 0
    settings = json.loads((project_dir / ".claude" / "settings.json").read_text())
    [group] = settings["hooks"]["SessionStart"]
    [hook] = group["hooks"]
    assert hook == {
        "type": "command",
        "command": (
            "command -v graphit >/dev/null 2>&1 || exit 0; "
            "graphit agent hook session-start || exit 1"
        ),
        "timeout": 5,  # seconds, for Claude Code
    }
    # Claude Code runs the hook through a shell in the project, with the user's environment
    # (graphit on PATH, GRAPHIT_HOME if they set one); its stdout joins the context. A generous
    # budget: what is checked is what the hook says, not how fast (tests/test_hot_path.py).
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GRAPHIT_HOOK_BUDGET": "120",
    }
    done = subprocess.run(
        hook["command"],
        shell=True,
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Deploys go through the staging bucket" in done.stdout
    assert "Never push straight to production." in done.stdout
    assert "An ordinary note" not in done.stdout


def test_an_entry_already_there_leaves_a_hand_formatted_file_alone(
    cli, project_dir: Path, home: Path
) -> None:
    assert cli("agent", "install", "cursor").exit_code == 0
    path = project_dir / ".cursor" / "mcp.json"
    compact = json.dumps(json.loads(path.read_text()), separators=(",", ":"))  # one line
    path.write_text(compact)
    again = cli("agent", "install", "cursor")
    assert again.exit_code == 0 and "Nothing to change" in again.stderr
    assert path.read_text() == compact  # not re-indented: nothing to change means no write
