"""The hook entries install writes, run through the shell each client runs them with.

Claude Code runs a hook's command with `/bin/sh -c` (Node's `shell: true`: dash on Debian, bash
in POSIX mode on macOS); Gemini CLI with `bash -c`. Each written command is run here the same
way, with the event's JSON on stdin:
- without graphit (a teammate who cloned the project without it, or a user-level entry whose
  pinned graphit was removed): exit 0, nothing on stdout or stderr (Gemini CLI reads 127 as
  "deny", so the prompt would be blocked);
- with a graphit that fails, even with exit 2 (Claude Code's "block", an older graphit's usage
  error): exit 1, never 2;
- with graphit: the hook runs (session start, prompt, capture).
Every entry carries the client's timeout (seconds for Claude Code, ms for Gemini CLI), and the
entries earlier versions wrote are recognised: replaced by install, removed by uninstall.
Then the capture request itself: once per session and event, silent when the session wrote
memories, opted out by GRAPHIT_CAPTURE=0, in the form each client's event reads.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

SHELLS = {"claude-code": ["/bin/sh", "-c"], "gemini": ["bash", "-c"]}
EVENTS = {
    "claude-code": ["SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"],
    "gemini": ["SessionStart", "BeforeAgent", "PreCompress", "SessionEnd"],
}
TIMEOUTS = {  # what each client reads: seconds (Claude Code), milliseconds (Gemini CLI)
    "claude-code": {
        "SessionStart": 5,
        "UserPromptSubmit": 3,
        "PreCompact": 3,
        "Stop": 3,
        "SessionEnd": 3,
    },
    "gemini": {"SessionStart": 5000, "BeforeAgent": 3000, "PreCompress": 3000, "SessionEnd": 3000},
}
SETTINGS = {"claude-code": ".claude/settings.json", "gemini": ".gemini/settings.json"}
BIN = Path(sys.executable).parent  # where the graphit script of this venv lives


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def _entries(settings: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(settings.read_text())
    return {event: groups[0]["hooks"][0] for event, groups in data["hooks"].items()}


def _base_path() -> str:
    """PATH without any graphit: the system's directories only."""
    return os.pathsep.join(d for d in ("/usr/local/bin", "/usr/bin", "/bin") if Path(d).is_dir())


def _run(
    client: str, command: str, cwd: Path, event: dict[str, Any], path: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SHELLS[client], command],
        cwd=cwd,
        # A generous budget: what is checked is what the hooks say, not how fast.
        env={**os.environ, "PATH": path, "GRAPHIT_HOOK_BUDGET": "120", **env},
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=180,
    )


def _transcript_line() -> str:
    """A Claude Code transcript entry: a tool use (a Bash command)."""
    return (
        '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{}}]}}'
    )


def _transcript(path: Path, tool_calls: int, *extra: str) -> Path:
    """A Claude Code transcript (JSONL) with `tool_calls` tool uses (a Bash command each)."""
    path.write_text("\n".join([*([_transcript_line()] * tool_calls), *extra]) + "\n")
    return path


def _fake_graphit(directory: Path, code: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "graphit"
    script.write_text(f"#!/bin/sh\necho 'Usage: graphit ... no such command' >&2\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.parametrize("client", ["claude-code", "gemini"])
def test_every_project_entry_has_a_timeout_and_is_silent_without_graphit(
    cli, client: str, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    assert cli("agent", "install", client).exit_code == 0
    entries = _entries(project_dir / SETTINGS[client])
    assert set(entries) == set(EVENTS[client])
    assert {e: h["timeout"] for e, h in entries.items()} == TIMEOUTS[client]
    for event, hook in entries.items():
        payload = {"hook_event_name": event, "session_id": "s1", "prompt": "the pip cache?"}
        missing = _run(client, hook["command"], project_dir, payload, _base_path())
        assert (missing.returncode, missing.stdout, missing.stderr) == (0, "", ""), event
        if client == "claude-code":  # macOS's /bin/sh is bash; Debian's is dash: both
            for shell in ("dash", "bash"):
                done = subprocess.run(
                    [shell, "-c", hook["command"]],
                    cwd=project_dir,
                    env={**os.environ, "PATH": _base_path()},
                    input="{}",
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                assert (done.returncode, done.stdout) == (0, ""), (shell, event)
        for code in (2, 127):  # an older graphit's usage error; a broken install
            fake = _fake_graphit(tmp_path / f"fake-{code}", code)
            path = f"{fake.parent}{os.pathsep}{_base_path()}"
            failed = _run(client, hook["command"], project_dir, payload, path)
            assert failed.returncode == 1, (event, code, failed.stderr)  # never 2: no block
            assert failed.stdout == ""


def test_with_graphit_the_entries_run_the_hooks(cli, project_dir: Path, home: Path) -> None:
    done = cli(
        "memory",
        "upsert",
        "--title",
        "Deploys go through staging",
        "--body",
        "Always.",
        "--mandatory",
    )
    assert done.exit_code == 0, done.stderr
    assert cli("agent", "install", "claude-code").exit_code == 0
    assert cli("agent", "install", "gemini").exit_code == 0
    path = f"{BIN}{os.pathsep}{_base_path()}"
    claude = _entries(project_dir / SETTINGS["claude-code"])
    start = _run("claude-code", claude["SessionStart"]["command"], project_dir, {}, path)
    assert start.returncode == 0 and "Deploys go through staging" in start.stdout, start.stderr
    long = _transcript(project_dir.parent / "long.jsonl", 12)
    stop = {"hook_event_name": "Stop", "session_id": "s1", "transcript_path": str(long)}
    asked = _run("claude-code", claude["Stop"]["command"], project_dir, stop, path)
    assert asked.returncode == 0, asked.stderr
    said = json.loads(asked.stdout)["hookSpecificOutput"]
    assert said["hookEventName"] == "Stop" and "graphit_memory_insert" in said["additionalContext"]
    again = _run("claude-code", claude["Stop"]["command"], project_dir, stop, path)
    assert (again.returncode, again.stdout) == (0, "")  # once per session and event
    gemini = _entries(project_dir / SETTINGS["gemini"])
    start = _run("gemini", gemini["SessionStart"]["command"], project_dir, {}, path)
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Deploys go through staging" in context
    ask = {"hook_event_name": "BeforeAgent", "prompt": "Deploys through staging?"}
    asked = _run("gemini", gemini["BeforeAgent"]["command"], project_dir, ask, path)
    assert asked.returncode == 0, asked.stderr
    assert not asked.stdout or "hookSpecificOutput" in json.loads(asked.stdout)  # JSON or nothing


def test_a_user_entry_whose_graphit_is_gone_exits_0(
    cli, project_dir: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned = tmp_path / "venv" / "bin" / "graphit"
    pinned.parent.mkdir(parents=True)
    pinned.write_text(f'#!/bin/sh\nexec "{BIN / "graphit"}" "$@"\n')
    pinned.chmod(0o755)
    from graphit_cli.agents import entries as written

    monkeypatch.setattr(written, "graphit_command", lambda: [str(pinned)])
    for client in ("claude-code", "gemini"):
        assert cli("agent", "install", client, "--user").exit_code == 0
    user = {
        "claude-code": _entries(home / ".claude" / "settings.json"),
        "gemini": _entries(home / ".gemini" / "settings.json"),
    }
    for client, entries in user.items():
        assert set(entries) == set(EVENTS[client])
        for hook in entries.values():
            assert hook["command"].startswith(f"[ -x {pinned} ] || exit 0; ")
            assert hook["command"].endswith(" --user || exit 1")
    start = user["claude-code"]["SessionStart"]["command"]
    assert _run("claude-code", start, project_dir, {}, _base_path()).returncode == 0
    pinned.unlink()  # graphit uninstalled, the user's settings stay
    for client, entries in user.items():
        for event, hook in entries.items():
            gone = _run(client, hook["command"], project_dir, {"prompt": "x"}, _base_path())
            assert (gone.returncode, gone.stdout, gone.stderr) == (0, "", ""), (client, event)


OLD = {  # what graphit wrote before the guard and the timeouts
    "SessionStart": "graphit agent hook session-start",
    "UserPromptSubmit": "graphit agent hook prompt",
}


def test_entries_of_earlier_versions_are_upgraded_and_removed(
    cli, project_dir: Path, home: Path
) -> None:
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {"type": "command", "command": "echo hi"}
    data = {
        "theme": "dark",
        "hooks": {
            "SessionStart": [
                {"hooks": [theirs]},
                {"hooks": [{"type": "command", "command": OLD["SessionStart"]}]},
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": OLD["UserPromptSubmit"]}]}
            ],
        },
    }
    settings.write_text(json.dumps(data, indent=2) + "\n")
    rows = cli("agent", "status", "-f", "json").json()
    [row] = [r for r in rows if (r["client"], r["level"]) == ("claude-code", "project")]
    assert (row["hook"], row["prompt_hook"], row["capture_hooks"]) == (
        "outdated",
        "outdated",
        "absent",
    )
    assert cli("agent", "install", "claude-code").exit_code == 0
    hooks = json.loads(settings.read_text())["hooks"]
    ours = [
        h["command"] for groups in hooks.values() for g in groups for h in g["hooks"] if h != theirs
    ]
    assert len(ours) == 5 and all(c.startswith("command -v graphit ") for c in ours)
    assert hooks["SessionStart"][0] == {"hooks": [theirs]}
    assert cli("agent", "uninstall", "claude-code").exit_code == 0
    left = json.loads(settings.read_text())
    assert left == {"theme": "dark", "hooks": {"SessionStart": [{"hooks": [theirs]}]}}


def test_install_then_uninstall_gives_back_every_byte_with_capture_hooks(
    cli, project_dir: Path, home: Path
) -> None:
    for client in ("claude-code", "gemini"):
        settings = project_dir / SETTINGS[client]
        settings.parent.mkdir(exist_ok=True)
        before = (
            '{\n  // mine\n  "hooks": {\n'
            '    "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]\n  }\n}\n'
        )
        settings.write_text(before)
        assert cli("agent", "install", client).exit_code == 0
        assert cli("agent", "install", client).exit_code == 0  # again: nothing changes
        assert cli("agent", "uninstall", client).exit_code == 0
        assert settings.read_text() == before, client


# --- the capture request ---------------------------------------------------------------------


def _capture(cli, event: str, payload: dict[str, Any], *flags: str):
    return cli("agent", "hook", "capture", "--event", event, *flags, input=json.dumps(payload))


def test_capture_asks_once_per_session_and_event(
    cli, project_dir: Path, graphit_home: Path
) -> None:
    first = _capture(cli, "PreCompact", {"session_id": "session-a", "trigger": "auto"})
    assert first.exit_code == 0, first.stderr
    assert "To save in graphit" in first.stdout and "never a secret" in first.stdout
    assert not first.stdout.lstrip().startswith("{")  # plain: Claude Code's summariser reads it
    # The client did not compact (it said "Not enough messages to compact."): asked again.
    again = _capture(cli, "PreCompact", {"session_id": "session-a"})
    assert again.stdout == first.stdout
    # It compacted: its session start says so, and the request is spent.
    start = cli(
        "agent", "hook", "session-start", input='{"session_id": "session-a", "source": "compact"}'
    )
    assert start.exit_code == 0, start.stderr
    assert _capture(cli, "PreCompact", {"session_id": "session-a"}).stdout == ""
    long = str(_transcript(graphit_home.parent / "long.jsonl", 12))
    other = _capture(cli, "Stop", {"session_id": "session-a", "transcript_path": long})
    assert json.loads(other.stdout)["hookSpecificOutput"]["hookEventName"] == "Stop"
    assert _capture(cli, "PreCompact", {"session_id": "b"}).stdout != ""  # another session
    state = graphit_home / "state" / "capture.json"
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    assert "session-a" not in state.read_text()  # no raw session id


def test_capture_at_stop_counts_the_turn_claude_code_has_not_written_yet(
    cli, project_dir: Path, tmp_path: Path
) -> None:
    """Claude Code starts Stop hooks before the turn's last entries reach the transcript
    (anthropics/claude-code#15813; 1 Stop in 3 here, with `claude -p`): the count waits until
    the event's last_assistant_message is in it, so the eighth tool call counts at this Stop."""
    said = "It lives in the ci-cache bucket."
    answer = json.dumps(
        {"type": "assistant", "message": {"content": [{"type": "text", "text": said}]}}
    )
    transcript = _transcript(tmp_path / "t.jsonl", 6)
    stop = {
        "session_id": "late",
        "transcript_path": str(transcript),
        "last_assistant_message": f'It lives in the "ci-cache" bucket.\n\n{said}',
    }

    def flush() -> None:
        time.sleep(0.2)
        with transcript.open("a") as handle:
            handle.write("\n".join([*[_transcript_line()] * 2, answer]) + "\n")

    writer = threading.Thread(target=flush)
    writer.start()
    asked = _capture(cli, "Stop", stop)
    writer.join()
    assert asked.exit_code == 0, asked.stderr
    assert (
        "graphit_memory_insert"
        in json.loads(asked.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    # The message is in the transcript and the session is short: no wait, and not asked yet.
    _transcript(transcript, 6, answer)
    assert _capture(cli, "Stop", {**stop, "session_id": "short"}).stdout == ""
    # A message that never reaches the transcript: the count gives up, on what it has.
    _transcript(transcript, 6)
    assert _capture(cli, "Stop", {**stop, "session_id": "never"}).stdout == ""


def test_capture_is_silent_when_it_should_be(
    cli, project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _capture(cli, "Stop", {}).stdout == ""  # no session id: nothing to count once
    assert _capture(cli, "Stop", {"session_id": "s", "stop_hook_active": True}).stdout == ""
    insert = (
        '{"type":"assistant","message":{"content":[{"type":"tool_use",'
        '"name":"mcp__graphit__graphit_memory_insert","input":{}}]}}'
    )
    transcript = _transcript(tmp_path / "t.jsonl", 12, insert)
    wrote = {"session_id": "w", "transcript_path": str(transcript)}
    assert _capture(cli, "Stop", wrote).stdout == ""  # the session saved memories already
    assert _capture(cli, "PreCompact", wrote).stdout == ""
    _transcript(transcript, 3)  # a short session: asked at a later Stop, not yet
    assert _capture(cli, "Stop", wrote).stdout == ""
    assert _capture(cli, "Stop", {"session_id": "w"}).stdout == ""  # no transcript to judge
    _transcript(transcript, 12)
    assert _capture(cli, "Stop", wrote).stdout != ""
    monkeypatch.setenv("GRAPHIT_CAPTURE", "0")
    assert _capture(cli, "PreCompact", {"session_id": "muted"}).stdout == ""
    monkeypatch.delenv("GRAPHIT_CAPTURE")
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert _capture(cli, "PreCompact", {"session_id": "out"}).stdout == ""  # no project


def test_gemini_capture_speaks_at_a_manual_compression_only(cli, project_dir: Path) -> None:
    """Gemini CLI fires PreCompress with trigger "auto" before every turn, compression or not:
    silent there; a manual /compress gets the only field its PreCompress reads, and so does
    its SessionEnd (the user sees both). Claude Code's SessionEnd reaches nobody: silent."""
    auto = _capture(cli, "PreCompress", {"session_id": "g", "trigger": "auto"}, "--for", "gemini")
    assert (auto.exit_code, auto.stdout) == (0, "")
    done = _capture(cli, "PreCompress", {"session_id": "g", "trigger": "manual"}, "--for", "gemini")
    assert done.exit_code == 0, done.stderr
    assert set(json.loads(done.stdout)) == {"systemMessage"}
    end = _capture(cli, "SessionEnd", {"session_id": "g", "reason": "exit"}, "--for", "gemini")
    assert "saved no memories" in json.loads(end.stdout)["systemMessage"]
    assert _capture(cli, "SessionEnd", {"session_id": "c", "reason": "exit"}).stdout == ""


def test_user_level_capture_is_silent_where_the_project_has_its_own(
    cli, project_dir: Path, home: Path
) -> None:
    event = {"session_id": "both", "trigger": "auto"}
    assert cli("agent", "install", "claude-code", "--user").exit_code == 0
    assert _capture(cli, "PreCompact", event, "--user").stdout != ""  # no project hook yet
    assert cli("agent", "install", "claude-code").exit_code == 0
    other = {**event, "session_id": "both-2"}
    assert _capture(cli, "PreCompact", other, "--user").stdout == ""  # the project's speaks
    assert _capture(cli, "PreCompact", other).stdout != ""


def test_a_failing_capture_exits_1_never_2(
    cli, project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where GRAPHIT_HOME should be")
    monkeypatch.setenv("GRAPHIT_HOME", str(blocked))
    done = _capture(cli, "PreCompact", {"session_id": "x"})
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr.startswith("Error: graphit hook: ")
