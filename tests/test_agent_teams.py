"""Agents for teams: files a team commits, files kept as written, per-prompt recall.

- The project-level files name nothing of the machine that wrote them, and a teammate's install
  on another machine changes none of them.
- The layouts each client's documentation uses (compact `"args": [...]`, comments, trailing
  commas) stay byte for byte around graphit's entry, and uninstall gives the bytes back.
- The defects found with the real clients, each with its test.
- The hooks, run as Claude Code runs them: a shell command in the project, the event as JSON
  on stdin, stdout into the context.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.formats import guidance
from tests.conftest import PROJECT_ID

CLIENTS = ["claude-code", "cursor", "vscode", "codex", "gemini"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


def _snapshot(*roots: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file()
    }


def _shell_env(**extra: str) -> dict[str, str]:
    """The environment a client gives its hooks: the user's, with graphit on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    # What the hooks print, not their budget (tests/test_hot_path.py): a cold hook on a busy
    # test machine may pass the default 0.9 s and would then rightly print nothing.
    return {**os.environ, "PATH": path, "GRAPHIT_HOOK_BUDGET": "120", **extra}


def _guarded(command: str) -> str:
    """A project-level hook command as install writes it: silent without graphit, never 2."""
    return f"command -v graphit >/dev/null 2>&1 || exit 0; {command} || exit 1"


def _run_hook(command: str, cwd: Path, event: dict[str, object], **env: str):
    """Run `command` as Claude Code does (`/bin/sh -c`; Gemini CLI's `bash -c` is tested in
    test_agent_hooks_shell.py)."""
    return subprocess.run(
        command,
        shell=True,
        cwd=cwd,
        env=_shell_env(**env),
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=180,
    )


# --- files a team commits --------------------------------------------------------------------


@pytest.mark.parametrize("name", CLIENTS)
def test_project_files_name_nothing_of_this_machine_and_a_teammate_changes_none(
    cli, project_dir: Path, home: Path, tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = cli("agent", "install", name)
    assert result.exit_code == 0, result.stderr
    written = _snapshot(project_dir)
    for path, data in written.items():
        text = data.decode()
        assert str(tmp_path) not in text, path  # no absolute path: not the venv, not the home
        assert "GRAPHIT_HOME" not in text, path
        assert sys.executable not in text, path
    assert "Commit " in result.stderr and "Next: " in result.stderr
    # A teammate clones the project elsewhere, with another home and another GRAPHIT_HOME.
    clone = tmp_path / "elsewhere" / "project"
    shutil.copytree(project_dir, clone)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("HOME", str(tmp_path / "teammate"))
    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path / "teammate" / ".graphit"))
    again = cli("agent", "install", name)
    assert again.exit_code == 0 and "Nothing to change" in again.stderr, again.stderr
    assert cli("agent", "status", "-f", "json").json()[0]["server"] in (
        "installed",
        "absent",
    )


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("claude-code", "approve the graphit server"),
        ("gemini", "trust this folder"),
        ("codex", "trust the project"),
        ("vscode", "trust the graphit server"),
    ],
)
def test_install_says_what_to_commit_and_the_first_run_step(
    cli, project_dir: Path, home: Path, name: str, words: str
) -> None:
    result = cli("agent", "install", name)
    assert result.exit_code == 0
    assert words in result.stderr
    commit = next(line for line in result.stderr.splitlines() if line.startswith("Commit "))
    assert str(project_dir) not in commit  # named relative to the project
    user = cli("agent", "install", name, "--user")
    assert "do not commit" in user.stderr and "Commit " not in user.stderr


def test_install_outside_a_project_warns(
    cli, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = tmp_path / "not-a-project"
    bare.mkdir()
    monkeypatch.chdir(bare)
    result = cli("agent", "install", "gemini", "--dry-run")
    assert result.exit_code == 0
    assert "Warning: no graphit project here" in result.stderr
    assert "graphit init" in result.stderr


# --- layouts each client's documentation uses ------------------------------------------------

CLAUDE_DOC = """\
{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    }
  }
}
"""

VSCODE_DOC = """\
{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    }
  ],
  "servers": {
    // https://github.com/ppl-ai/modelcontextprotocol/
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {
        "PERPLEXITY_API_KEY": "${input:perplexity-key}"
      }
    },
  }
}
"""

GEMINI_DOC = """\
{
  "theme": "GitHub", // my theme
  /* servers */
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
  },
}
"""

CURSOR_COMPACT = '{"mcpServers":{"web":{"command":"npx","args":["-y","web-mcp"]}}}'

CODEX_DOC = """\
model = "gpt-5"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]  # the docs' example
"""


@pytest.mark.parametrize(
    ("name", "relative", "text"),
    [
        ("claude-code", ".mcp.json", CLAUDE_DOC),
        ("vscode", ".vscode/mcp.json", VSCODE_DOC),
        ("gemini", ".gemini/settings.json", GEMINI_DOC),
        ("cursor", ".cursor/mcp.json", CURSOR_COMPACT),
        ("codex", ".codex/config.toml", CODEX_DOC),
    ],
)
def test_the_documented_layouts_stay_as_written(
    cli, project_dir: Path, home: Path, name: str, relative: str, text: str
) -> None:
    path = project_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    result = cli("agent", "install", name)
    assert result.exit_code == 0, result.stderr
    installed = path.read_text()
    if relative.endswith(".toml"):
        assert installed.startswith(text) and "[mcp_servers.graphit]" in installed
    else:
        # Every line of theirs is still there, in order, byte for byte.
        lines = text.splitlines(keepends=True)
        kept = iter(installed.splitlines(keepends=True))
        if name == "cursor":  # one line: graphit's entry is spliced into it
            assert installed.startswith(
                '{"mcpServers":{"web":{"command":"npx","args":["-y","web-mcp"]}'
            )
        else:
            for line in lines:
                if line.strip() in (
                    "}",
                    "},",
                ):  # a closing brace may gain graphit's entry before it
                    continue
                assert any(line == other for other in kept), line
        from graphit_cli.agents import jsonc

        assert jsonc.loads(installed)[("servers" if name == "vscode" else "mcpServers")]["graphit"]
    assert cli("agent", "uninstall", name).exit_code == 0
    assert path.read_text() == text


# --- the defects found with the real clients -------------------------------------------------


def test_uninstall_keeps_a_pre_existing_empty_servers_file(
    cli, project_dir: Path, home: Path
) -> None:
    path = project_dir / ".mcp.json"
    path.write_text('{"mcpServers": {}}\n')
    cli("agent", "install", "claude-code")
    assert cli("agent", "uninstall", "claude-code").exit_code == 0
    assert path.read_text() == '{"mcpServers": {}}\n'


def test_uninstall_keeps_an_empty_session_start_list(cli, project_dir: Path, home: Path) -> None:
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    before = '{\n  "hooks": {\n    "SessionStart": []\n  }\n}\n'
    settings.write_text(before)
    cli("agent", "install", "claude-code")
    assert (
        "graphit"
        in json.loads(settings.read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    )
    assert cli("agent", "uninstall", "claude-code").exit_code == 0
    assert settings.read_text() == before


def test_the_users_claude_json_keeps_its_missing_final_newline(
    cli, project_dir: Path, home: Path
) -> None:
    path = home / ".claude.json"
    before = json.dumps({"numStartups": 3, "projects": {}, "mcpServers": {}}, indent=2)
    path.write_text(before)  # Claude Code writes it without one
    assert cli("agent", "install", "claude-code", "--user").exit_code == 0
    assert not path.read_text().endswith("\n")
    assert cli("agent", "uninstall", "claude-code", "--user").exit_code == 0
    assert path.read_text() == before


def test_another_clients_broken_file_does_not_block_this_uninstall(
    cli, project_dir: Path, home: Path
) -> None:
    cli("agent", "install", "cursor")
    cli("agent", "install", "vscode")
    (project_dir / ".vscode" / "mcp.json").write_text("{ broken")
    result = cli("agent", "uninstall", "cursor")
    assert result.exit_code == 0, result.stderr
    assert not (project_dir / ".cursor").exists()
    # vscode may still read the shared guidance: it stays.
    assert "graphit:begin" in (project_dir / "AGENTS.md").read_text()


def test_status_calls_a_file_install_refuses_unreadable(cli, project_dir: Path, home: Path) -> None:
    path = project_dir / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"servers": []}')
    assert cli("agent", "install", "vscode").exit_code == 3
    rows = cli("agent", "status", "-f", "json").json()
    [row] = [r for r in rows if (r["client"], r["level"]) == ("vscode", "project")]
    assert row["server"].startswith("unreadable: ") and "'servers'" in row["server"]


def test_jsonc_files_are_read_and_written_with_their_comments(
    cli, project_dir: Path, home: Path
) -> None:
    path = project_dir / ".gemini" / "settings.json"
    path.parent.mkdir()
    before = '{\n  // keep me\n  "theme": "Default",\n}\n'
    path.write_text(before)
    assert cli("agent", "install", "gemini").exit_code == 0
    assert "// keep me" in path.read_text()
    assert cli("agent", "uninstall", "gemini").exit_code == 0
    assert path.read_text() == before


# --- instructions within the strictest client's limit ----------------------------------------


def test_server_instructions_fit_claude_codes_limit_and_the_file_has_the_rest(
    cli, project_dir: Path, home: Path
) -> None:
    short = guidance.server_instructions()
    assert len(short) <= guidance.SERVER_INSTRUCTIONS_LIMIT
    flat = " ".join(short.split())
    for needed in (
        '`graphit_memory_mandatory` with `scope: "all"`',
        "`exclude_mandatory: true`",
        "`graphit_memory_recall`",
        "unasked",
        "From the user",
        "From your work",
        "update it (`graphit_memory_update`)",
        "never write a duplicate",
        "`mandatory: true`",
        "CLAUDE.md, AGENTS.md or GEMINI.md",
    ):
        assert needed in flat, needed
    cli("agent", "install", "claude-code")
    full = (project_dir / "CLAUDE.md").read_text()
    assert guidance.markdown("mcp").strip() in full and len(full) > len(short)


# --- the hooks -------------------------------------------------------------------------------


def _write(cli, title: str, body: str, *flags: str) -> str:
    done = cli("memory", "upsert", "--title", title, "--body", body, *flags, "-f", "json")
    assert done.exit_code == 0, done.stderr
    return str(done.json()[0]["id"]) if done.stdout.startswith("[") else str(done.json()["id"])


def _hooks(project_dir: Path) -> dict[str, str]:
    settings = json.loads((project_dir / ".claude" / "settings.json").read_text())
    return {
        event: group["hooks"][0]["command"]
        for event, groups in settings["hooks"].items()
        for group in groups
    }


def test_the_prompt_hook_prints_only_the_few_memories_the_prompt_is_about(
    cli, project_dir: Path, home: Path
) -> None:
    _write(cli, "Deploys go through the staging bucket", "Never push to production.", "--mandatory")
    _write(
        cli,
        "The CI pip cache lives in the ci-cache bucket",
        "Runners restore it; clear it when wheels change.",
    )
    for n in range(5):
        _write(cli, f"Flaky pip cache note {n}", f"The pip cache went stale in run {n}.")
    assert cli("agent", "install", "claude-code").exit_code == 0
    hooks = _hooks(project_dir)
    assert hooks == {
        "SessionStart": _guarded("graphit agent hook session-start"),
        "UserPromptSubmit": _guarded("graphit agent hook prompt"),
        "PreCompact": _guarded("graphit agent hook capture --event PreCompact"),
        "Stop": _guarded("graphit agent hook capture --event Stop"),
        "SessionEnd": _guarded("graphit agent hook capture --event SessionEnd"),
    }
    event = {"hook_event_name": "UserPromptSubmit", "cwd": str(project_dir)}
    done = _run_hook(
        hooks["UserPromptSubmit"], project_dir, {**event, "prompt": "why is the pip cache stale?"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Memories on this prompt (graphit)\n")
    assert 1 <= done.stdout.count("\n- **") <= 3  # a few at most
    assert "staging bucket" not in done.stdout  # mandatory: loaded at session start already
    for quiet in ("thanks, that is all", "   ", "/clear"):
        nothing = _run_hook(hooks["UserPromptSubmit"], project_dir, {**event, "prompt": quiet})
        assert (nothing.returncode, nothing.stdout) == (0, ""), quiet
    muted = _run_hook(
        hooks["UserPromptSubmit"],
        project_dir,
        {**event, "prompt": "why is the pip cache stale?"},
        GRAPHIT_PROMPT_RECALL="0",
    )
    assert (muted.returncode, muted.stdout) == (0, "")
    start = _run_hook(hooks["SessionStart"], project_dir, {"source": "startup"})
    assert start.returncode == 0 and "Deploys go through the staging bucket" in start.stdout
    assert "pip cache" not in start.stdout


def test_hooks_are_silent_outside_a_project_and_never_recall_twice(
    cli, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    _write(cli, "Deploys go through the staging bucket", "Never push to production.", "--mandatory")
    assert cli("agent", "install", "claude-code", "--user").exit_code == 0
    user_hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    start = user_hooks["SessionStart"][0]["hooks"][0]["command"]
    assert start.endswith("agent hook session-start --user || exit 1")
    assert Path(start.split()[2]).is_absolute()  # [ -x /abs/graphit ] || exit 0; ...
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside = _run_hook(start, elsewhere, {"source": "startup"})
    assert (outside.returncode, outside.stdout, outside.stderr) == (0, "", "")
    alone = _run_hook(start, project_dir, {"source": "startup"})
    assert "Deploys go through the staging bucket" in alone.stdout  # user level, no project hook
    assert cli("agent", "install", "claude-code").exit_code == 0  # the project's own, too
    project_start = _hooks(project_dir)["SessionStart"]
    both = [_run_hook(c, project_dir, {"source": "startup"}).stdout for c in (start, project_start)]
    assert [bool(out) for out in both] == [False, True]  # one recall a session, not two


def test_a_failing_hook_exits_1_never_2(cli, project_dir: Path, home: Path) -> None:
    """Exit 2 from a UserPromptSubmit hook would make Claude Code drop the user's prompt."""
    (project_dir / "graphit.lock.json").write_text("{ not json")
    for which in ("prompt", "session-start"):
        done = _run_hook(f"graphit agent hook {which}", project_dir, {"prompt": "the pip cache"})
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith("Error: graphit hook: ")


def test_no_prompt_recall_installs_only_the_session_start_hook(
    cli, project_dir: Path, home: Path
) -> None:
    assert cli("agent", "install", "claude-code", "--no-prompt-recall").exit_code == 0
    assert set(_hooks(project_dir)) == {"SessionStart", "PreCompact", "Stop", "SessionEnd"}
    assert cli("agent", "install", "claude-code", "--no-capture").exit_code == 0
    assert set(_hooks(project_dir)) == {"SessionStart", "UserPromptSubmit"}
    assert cli("agent", "install", "claude-code").exit_code == 0
    every = {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"}
    assert set(_hooks(project_dir)) == every


@pytest.fixture
def daemon(scope: Scope, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    from graphit_cli.daemon.process import Daemon
    from graphit_cli.daemon.supervisor import DaemonSettings, EventLog
    from tests.embedders import HashingEmbedder

    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder")
    settings = DaemonSettings(
        embed_interval=0.2,
        maintain_interval=0.3,
        backoff_max=0.05,
        stable_seconds=60,
        max_failures=10,
    )
    running = Daemon(
        settings, scopes_named=[scope], embedder=HashingEmbedder, log=EventLog(StringIO())
    )
    yield running
    running.shutdown()


def test_the_prompt_hook_goes_through_a_running_daemon(
    cli, project_dir: Path, home: Path, scope: Scope, daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(cli, "The CI pip cache lives in the ci-cache bucket", "Clear it when wheels change.")
    _write(cli, "Deploys go through staging", "Always.", "--mandatory")
    from graphit_cli.opening import open_service
    from graphit_cli.service.memory import MemoryService
    from tests.embedders import HashingEmbedder

    MemoryService(open_service(scope).store, scope, embedder=HashingEmbedder).embed()
    daemon.start()
    served = daemon.requests_served
    event = json.dumps({"prompt": "where does the pip cache live?"})
    warm = cli("agent", "hook", "prompt", input=event)
    assert warm.exit_code == 0, warm.stderr
    assert daemon.requests_served > served
    monkeypatch.setenv("GRAPHIT_NO_DAEMON", "1")
    cold = cli("agent", "hook", "prompt", input=event)
    assert "ci-cache bucket" in warm.stdout and "staging" not in warm.stdout
    assert "ci-cache bucket" in cold.stdout


def test_the_project_id_in_the_entry_is_the_teams(cli, project_dir: Path, home: Path) -> None:
    cli("agent", "install", "claude-code")
    entry = json.loads((project_dir / ".mcp.json").read_text())["mcpServers"]["graphit"]
    assert entry == {
        "type": "stdio",
        "command": "graphit",
        "args": ["memory", "mcp"],
        "env": {"GRAPHIT_PROJECT_ID": PROJECT_ID},
    }


def test_gemini_gets_the_same_hooks_as_json_it_reads(cli, project_dir: Path, home: Path) -> None:
    _write(cli, "Deploys go through the staging bucket", "Never push to production.", "--mandatory")
    _write(cli, "The CI pip cache lives in the ci-cache bucket", "Clear it when wheels change.")
    assert cli("agent", "install", "gemini").exit_code == 0
    settings = json.loads((project_dir / ".gemini" / "settings.json").read_text())
    assert settings["mcpServers"]["graphit"]["command"] == "graphit"
    hooks = {e: g[0]["hooks"][0]["command"] for e, g in settings["hooks"].items()}
    assert hooks == {
        "SessionStart": _guarded("graphit agent hook session-start --for gemini"),
        "BeforeAgent": _guarded("graphit agent hook prompt --for gemini"),
        "PreCompress": _guarded("graphit agent hook capture --event PreCompress --for gemini"),
        "SessionEnd": _guarded("graphit agent hook capture --event SessionEnd --for gemini"),
    }
    timeouts = {e: g[0]["hooks"][0]["timeout"] for e, g in settings["hooks"].items()}
    assert timeouts == {  # milliseconds
        "SessionStart": 5000,
        "BeforeAgent": 3000,
        "PreCompress": 3000,
        "SessionEnd": 3000,
    }
    # Gemini CLI sends the event as JSON on stdin and reads stdout as JSON.
    event = {"hook_event_name": "BeforeAgent", "cwd": str(project_dir)}
    done = _run_hook(hooks["BeforeAgent"], project_dir, {**event, "prompt": "the pip cache?"})
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["hookSpecificOutput"]
    assert found["hookEventName"] == "BeforeAgent"
    assert "ci-cache bucket" in found["additionalContext"]
    assert "staging" not in found["additionalContext"]
    quiet = _run_hook(hooks["BeforeAgent"], project_dir, {**event, "prompt": "thanks"})
    assert (quiet.returncode, quiet.stdout) == (0, "")
    start = _run_hook(hooks["SessionStart"], project_dir, {"source": "startup"})
    assert "staging bucket" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    rows = cli("agent", "status", "-f", "json").json()
    [row] = [r for r in rows if (r["client"], r["level"]) == ("gemini", "project")]
    assert (row["server"], row["hook"], row["prompt_hook"]) == ("installed",) * 3
    assert row["capture_hooks"] == "installed"  # PreCompress and SessionEnd
    assert cli("agent", "uninstall", "gemini").exit_code == 0
    assert not (project_dir / ".gemini").exists()
