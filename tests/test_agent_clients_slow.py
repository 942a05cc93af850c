"""The real clients accept every file `graphit agent install` writes (slow tier).

Claude Code, Codex and Gemini CLI are installed from npm into a cache directory (once; then
reused): `$GRAPHIT_AGENT_CLIENTS`, else ~/.cache/graphit-agent-clients. Each test installs graphit
at one level into a HOME of its own and asks the client's own command to list the server: `claude
mcp get graphit` and `claude mcp list`, `codex mcp list`, `gemini mcp list`. No model answers:
`claude -p` and `gemini -p` run the hooks install wrote, then fail at the model call (no
account).
The project is trusted the way each client's user trusts it (Codex's projects table, Gemini's
trustedFolders.json); Claude Code lists a project server as pending approval until the user
approves it in `claude`. Skipped only when npm itself is missing.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.polling import wait_for

pytestmark = pytest.mark.slow

PACKAGES = [
    "@anthropic-ai/claude-code@2.1.197",
    "@openai/codex@0.171.0",
    "@google/gemini-cli@0.61.0",
]
BINARIES = ("claude", "codex", "gemini")


@pytest.fixture(scope="module")
def clients_bin() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real clients are installed from npm")
    raw = os.environ.get("GRAPHIT_AGENT_CLIENTS", "").strip()
    cache = Path(raw) if raw else Path.home() / ".cache" / "graphit-agent-clients"
    found = cache / "node_modules" / ".bin"
    if not all((found / name).exists() for name in BINARIES):
        cache.mkdir(parents=True, exist_ok=True)
        # A registry that drops a request fails npm on a fresh machine (CI saw it once): a few
        # tries, and npm's own words when none succeeds.
        for attempt in range(3):
            done = subprocess.run(
                [npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund", *PACKAGES],
                capture_output=True,
                text=True,
                timeout=1800,
            )
            if done.returncode == 0:
                break
            time.sleep(5 * (attempt + 1))
        else:
            pytest.fail(f"npm install failed 3 times; its last words:\n{done.stderr[-3000:]}")
    return found


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    return home


def _client(clients_bin: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": os.pathsep.join(
            [str(Path(sys.executable).parent), str(clients_bin), os.environ["PATH"]]
        ),
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [str(clients_bin / argv[0]), *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_claude_code_lists_the_project_and_the_user_server(
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:
    assert cli("agent", "install", "claude-code").exit_code == 0
    got = _client(clients_bin, project_dir, "claude", "mcp", "get", "graphit")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "Project config" in got.stdout and "Command: graphit" in got.stdout, got.stdout
    assert "Args: memory mcp" in got.stdout
    listed = _client(clients_bin, project_dir, "claude", "mcp", "list")
    assert listed.returncode == 0 and "graphit" in listed.stdout, listed.stdout + listed.stderr
    assert "nvalid" not in listed.stderr, listed.stderr  # the settings.json with our hooks too
    assert cli("agent", "uninstall", "claude-code").exit_code == 0

    assert cli("agent", "install", "claude-code", "--user").exit_code == 0
    got = _client(clients_bin, project_dir, "claude", "mcp", "get", "graphit")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "User config" in got.stdout and "memory mcp" in got.stdout, got.stdout
    command = next(line for line in got.stdout.splitlines() if "Command:" in line)
    assert Path(command.split("Command:")[1].strip()).is_absolute()


def test_codex_lists_the_project_server_in_a_trusted_project_and_the_user_server(
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{project_dir}"]\ntrust_level = "trusted"\n')  # as Codex asks
    result = cli("agent", "install", "codex")
    assert result.exit_code == 0 and "trust the project" in result.stderr
    assert (project_dir / ".codex" / "config.toml").is_file()
    listed = _client(clients_bin, project_dir, "codex", "mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.startswith("graphit ")]
    assert "memory mcp" in row and "enabled" in row, listed.stdout
    assert cli("agent", "uninstall", "codex").exit_code == 0

    assert cli("agent", "install", "codex", "--user").exit_code == 0
    assert config.read_text().startswith(f'[projects."{project_dir}"]\ntrust_level = "trusted"\n')
    listed = _client(clients_bin, project_dir, "codex", "mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.startswith("graphit ")]
    assert "memory mcp" in row


def test_gemini_lists_the_server_from_settings_with_comments(  # not trailing commas: it refuses
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{project_dir}": "TRUST_FOLDER"}}')
    settings = project_dir / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n  // the team\'s settings\n  "mcpServers": {\n'
        '    "other": {"command": "true", "args": ["-x"]} /* compact */\n  }\n}\n'
    )
    result = cli("agent", "install", "gemini")
    assert result.exit_code == 0 and "trust this folder" in result.stderr
    listed = _client(clients_bin, project_dir, "gemini", "mcp", "list")
    said = listed.stdout + listed.stderr  # Gemini CLI prints the list on stderr
    assert listed.returncode == 0, said
    # Listed from the file; whether it connects within Gemini's probe is the server's start.
    assert "graphit: graphit memory mcp (stdio)" in said, said
    assert "other: true -x (stdio)" in said  # theirs, read from the same file
    assert "Error in" not in said and "fix the configuration" not in said, said
    assert cli("agent", "uninstall", "gemini").exit_code == 0

    assert cli("agent", "install", "gemini", "--user").exit_code == 0
    listed = _client(clients_bin, project_dir, "gemini", "mcp", "list")
    said = listed.stdout + listed.stderr
    assert listed.returncode == 0, said
    [row] = [line for line in said.splitlines() if "graphit:" in line]
    assert "/graphit memory mcp (stdio)" in row, row  # the user's file pins the path


# --- the hooks, run by the real clients --------------------------------------------------------
# `claude -p` and `gemini -p` run the session-start and prompt hooks before their model call;
# with no account the call fails, after the hooks ran (a wrapper `graphit` notes each call).
# A hook that blocked would show instead: Claude Code prints "operation blocked by hook",
# Gemini CLI "Agent execution blocked" (what an unguarded entry did without graphit: exit 127).

SYSTEM_PATH = os.pathsep.join(d for d in ("/usr/local/bin", "/usr/bin", "/bin") if Path(d).is_dir())


def _logging_graphit(directory: Path, log: Path, code: int | None = None) -> Path:
    """A `graphit` that notes its arguments in `log`, then runs this venv's graphit (or exits
    `code`: an older or broken graphit)."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "graphit"
    real = Path(sys.executable).parent / "graphit"
    tail = f"exit {code}" if code is not None else f'exec "{real}" "$@"'
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n{tail}\n')
    script.chmod(0o755)
    return directory


def _headless(
    clients_bin: Path,
    cwd: Path,
    argv: list[str],
    path: str,
    until: Callable[[str], bool],
    **env: str,
) -> str:
    """Run a client's headless mode until `until(output so far)` or 150 s; its output."""
    # No account unless `env` gives one: the model call fails, after the hooks ran.
    mine = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN")
    }
    full_env = {
        **mine,
        "PATH": os.pathsep.join([path, str(clients_bin), SYSTEM_PATH]),
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "NO_COLOR": "1",
        **env,
    }
    with tempfile.TemporaryFile("w+") as sink:
        process = subprocess.Popen(
            [str(clients_bin / argv[0]), *argv[1:]],
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 150
        try:
            while process.poll() is None and time.monotonic() < deadline:
                sink.seek(0)
                if until(sink.read()):
                    break
                time.sleep(0.5)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
        sink.seek(0)
        return sink.read()


def test_claude_code_runs_the_hooks_and_none_blocks_a_prompt(
    cli, clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    assert cli("agent", "install", "claude-code").exit_code == 0
    log = tmp_path / "calls.log"
    ask = ["claude", "-p", "where does the pip cache live?"]
    done = lambda said: "Not logged in" in said or "blocked" in said  # noqa: E731

    said = _headless(
        clients_bin, project_dir, ask, str(_logging_graphit(tmp_path / "a", log)), done
    )
    calls = log.read_text().splitlines()
    assert "agent hook session-start" in calls and "agent hook prompt" in calls, (calls, said)
    assert "blocked" not in said and "nvalid" not in said, said  # the capture entries too

    said = _headless(clients_bin, project_dir, ask, str(tmp_path / "empty"), done)  # no graphit
    assert "Not logged in" in said and "blocked" not in said and "hook" not in said, said
    old = _logging_graphit(tmp_path / "old", tmp_path / "old.log", code=2)  # an older graphit
    said = _headless(clients_bin, project_dir, ask, str(old), done)
    assert (tmp_path / "old.log").read_text().count("agent hook") >= 2
    assert "Not logged in" in said and "blocked" not in said, said


def test_gemini_runs_the_hooks_and_none_blocks_a_prompt(
    cli, clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{project_dir}": "TRUST_FOLDER"}}')
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}'
    )
    assert cli("agent", "install", "gemini").exit_code == 0
    account = {"GEMINI_API_KEY": "no-such-key", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    ask = ["gemini", "-p", "where does the pip cache live?"]
    # The model call is attempted (and fails: no server there), or the prompt was blocked.
    done = lambda said: "Attempt 1 failed" in said or "blocked" in said  # noqa: E731
    log = tmp_path / "calls.log"

    path = str(_logging_graphit(tmp_path / "a", log))
    said = _headless(clients_bin, project_dir, ask, path, done, **account)
    calls = log.read_text().splitlines()
    assert "agent hook session-start --for gemini" in calls, (calls, said)
    assert "agent hook prompt --for gemini" in calls, (calls, said)
    assert "Attempt 1 failed" in said and "blocked" not in said, said

    said = _headless(clients_bin, project_dir, ask, str(tmp_path / "empty"), done, **account)
    assert "Attempt 1 failed" in said and "blocked" not in said, said  # no graphit: not denied
    old = _logging_graphit(tmp_path / "old", tmp_path / "old.log", code=2)
    said = _headless(clients_bin, project_dir, ask, str(old), done, **account)
    assert "agent hook prompt" in (tmp_path / "old.log").read_text()
    assert "Attempt 1 failed" in said and "blocked" not in said, said


def test_gemini_lists_graphit_connected_on_a_busy_machine(
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:
    """Gemini CLI's probe gives the server 5 s to answer `initialize`: with every core kept
    busy (scripts/busy.sh) the answer still comes in time."""
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{project_dir}": "TRUST_FOLDER"}}')
    assert cli("agent", "install", "gemini").exit_code == 0
    sleeper = subprocess.Popen(["sleep", "600"])
    busy = subprocess.Popen(
        [
            "bash",
            str(Path(__file__).resolve().parent.parent / "scripts" / "busy.sh"),
            str(sleeper.pid),
            str(os.cpu_count() or 2),
            "600",
        ]
    )
    try:
        listed = _client(clients_bin, project_dir, "gemini", "mcp", "list")
    finally:
        sleeper.kill()
        sleeper.wait()
        busy.wait(timeout=60)
    said = listed.stdout + listed.stderr
    [row] = [line for line in said.splitlines() if "graphit:" in line]
    assert row.endswith("Connected"), said


# --- the capture hooks, end to end with Claude Code --------------------------------------------
# A stand-in for the Anthropic API on 127.0.0.1 (ANTHROPIC_BASE_URL) answers `claude -p`: eight
# Bash tool calls (`true`), then a text answer. Claude Code then runs the Stop hook, and what the
# hook adds must reach the model (it is in the next request); `/compact` runs the PreCompact
# hook, whose text must be in the summary request's instructions.


class _FakeAnthropic(http.server.BaseHTTPRequestHandler):
    bodies: list[str]
    tool_calls = 8  # Bash calls before the text answer

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
        self.bodies.append(body)
        request = json.loads(body)
        uses = sum(
            1
            for m in request.get("messages", [])
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"
        )
        tools = [t.get("name") for t in request.get("tools", [])]
        if uses < self.tool_calls and "Bash" in tools:
            block = {"type": "tool_use", "id": f"toolu_{uses:04d}", "name": "Bash", "input": {}}
            delta = {"type": "input_json_delta", "partial_json": '{"command": "true"}'}
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": ""}, "end_turn"
            delta = {"type": "text_delta", "text": "The pip cache lives in the ci-cache bucket."}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        message = {"id": f"msg_{len(self.bodies)}", "type": "message", "role": "assistant"}
        message |= {"model": request.get("model"), "content": [], "stop_reason": None}
        message |= {"usage": {"input_tokens": 10, "output_tokens": 1}}
        for event in (
            {"type": "message_start", "message": message},
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ):
            self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())


def test_claude_code_delivers_the_capture_requests_to_the_model(
    cli, clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    assert cli("agent", "install", "claude-code").exit_code == 0
    bodies: list[str] = []
    handler = type("Handler", (_FakeAnthropic,), {"bodies": bodies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    log = tmp_path / "calls.log"
    path = str(_logging_graphit(tmp_path / "bin", log))
    api = {
        "ANTHROPIC_API_KEY": "sk-ant-not-a-key",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
    }
    finished = lambda said: '"type":"result"' in said  # noqa: E731
    try:
        ask = ["claude", "-p", "where does the pip cache live?", "--output-format", "json"]
        said = _headless(clients_bin, project_dir, ask, path, finished, **api)
        assert '"is_error":false' in said, said
        told = [b for b in bodies if "Stop hook additional context: Before this context" in b]
        assert len(told) >= 1 and "graphit_memory_insert" in told[0], said  # reached the model
        assert log.read_text().count("agent hook capture --event Stop") >= 1

        before = len(bodies)
        compact = ["claude", "-p", "/compact", "--continue", "--output-format", "json"]
        said = _headless(clients_bin, project_dir, compact, path, finished, **api)
        assert "agent hook capture --event PreCompact" in log.read_text(), said
        summary = [b for b in bodies[before:] if "To save in graphit" in b]
        assert summary and "Additional Instructions" in summary[0], said
    finally:
        server.shutdown()
        server.server_close()


def test_gemini_fires_precompress_before_a_turn_that_compresses_nothing(
    clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    """Why install writes no capture hook for Gemini CLI (docs/guides/agents.md): 0.61 runs
    PreCompress hooks on a one-prompt session, where nothing is compressed. When this fails,
    Gemini CLI fires it only when it compresses: a capture hook there may then be worth its
    cost."""
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{project_dir}": "TRUST_FOLDER"}}')
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}'
    )
    fired = tmp_path / "fired"
    hook = {"type": "command", "command": f"cat > {fired}", "timeout": 3000}
    (project_dir / ".gemini").mkdir()
    (project_dir / ".gemini" / "settings.json").write_text(
        json.dumps({"hooks": {"PreCompress": [{"hooks": [hook]}]}})
    )
    account = {"GEMINI_API_KEY": "no-such-key", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    done = lambda said: "Attempt 1 failed" in said  # noqa: E731
    said = _headless(
        clients_bin, project_dir, ["gemini", "-p", "hi"], str(tmp_path), done, **account
    )
    assert fired.exists(), said
    assert json.loads(fired.read_text())["trigger"] == "auto"


# --- delivery: what the hooks print reaches the model, and only that is recorded as shown -------


def _fake_api(bodies: list[str], tool_calls: int) -> http.server.ThreadingHTTPServer:
    handler = type("Handler", (_FakeAnthropic,), {"bodies": bodies, "tool_calls": tool_calls})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _recalls(
    until: Callable[[list[dict[str, object]]], bool] | None = None,
) -> list[dict[str, object]]:
    """The recalls log once the entries a test waits for are there (`until`; the hooks'
    children write them just after the hooks exited, later still on a loaded machine) and it
    stopped changing."""
    from graphit_cli.recall import log

    if until is not None:
        wait_for(lambda: until(log.read()), timeout=90, seen=log.read)
    seen = log.read()
    while True:
        time.sleep(0.5)
        now = log.read()
        if now == seen:
            return now
        seen = now


def _both(sid: str) -> Callable[[list[dict[str, object]]], bool]:
    """Whether a session's prompt and its session start are both in the log."""
    wanted = {"prompt", "session-start"}
    return lambda calls: wanted <= {c["event"] for c in calls if c.get("session") == sid}


def test_a_fresh_claude_session_delivers_its_first_prompt_or_logs_it_late(
    cli, clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    """Ten fresh `claude -p` sessions, no daemon, the project's MCP server approved (Claude
    Code starts it with the session): each first prompt's memory reaches the model (it is in
    the API request) and is recorded as shown, or is logged late and recorded as nothing."""
    from graphit_cli.recall import session

    body = "Clear it whenever the wheels change."
    assert cli("memory", "upsert", "--title", "The CI pip cache lives in the ci-cache bucket",
               "--body", body).exit_code == 0  # fmt: skip
    assert cli("memory", "upsert", "--title", "Deploys go through staging", "--body",
               "Always, never straight to production.", "--mandatory").exit_code == 0  # fmt: skip
    assert cli("agent", "install", "claude-code").exit_code == 0
    (project_dir / ".claude" / "settings.local.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True})
    )
    path = str(Path(sys.executable).parent)
    finished = lambda said: '"type":"result"' in said  # noqa: E731
    outcomes = []
    for run in range(10):
        bodies: list[str] = []
        server = _fake_api(bodies, tool_calls=0)
        api = {
            "ANTHROPIC_API_KEY": "sk-ant-not-a-key",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
        }
        try:
            ask = ["claude", "-p", "where does the CI pip cache live?", "--output-format", "json"]
            said = _headless(clients_bin, project_dir, ask, path, finished, **api)
        finally:
            server.shutdown()
            server.server_close()
        sid = json.loads(said[said.index('{"type":"result"') :].splitlines()[0])["session_id"]
        calls = {str(c["event"]): c for c in _recalls(_both(sid)) if c.get("session") == sid}
        prompt, start = calls["prompt"], calls["session-start"]
        sent = "".join(bodies)
        assert start["outcome"] == "shown" and "never straight to production" in sent, start
        state = session.load("claude-code", sid)
        shown = {} if state is None else state.shown
        if prompt["outcome"] == "shown":
            assert body in sent, (run, prompt)  # printed, so the model got it
            [memory_id] = [i["id"] for i in list(prompt["injected"])]
            assert memory_id in shown
        else:
            assert prompt["outcome"] == "late", (run, prompt)
            assert body not in sent and len(shown) == 1  # the mandatory one only
        outcomes.append(prompt["outcome"])
    _stop_started_daemons()
    print("first prompts:", outcomes)  # for the record (`pytest -s`): shown or late, each
    assert len(outcomes) == 10, outcomes


def _stop_started_daemons() -> None:
    """A daemon the hooks started (two late prompts) is stopped with the test."""
    for call in _recalls():
        started = str(call.get("started") or "")
        if "(pid " in started:
            pid = int(started.split("(pid ")[1].split(")")[0])
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def test_gemini_logs_every_hook_call_with_its_outcome(
    cli, clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{project_dir}": "TRUST_FOLDER"}}')
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}'
    )
    assert cli("memory", "upsert", "--title", "The CI pip cache lives in the ci-cache bucket",
               "--body", "Clear it.").exit_code == 0  # fmt: skip
    assert cli("agent", "install", "gemini").exit_code == 0
    account = {"GEMINI_API_KEY": "no-such-key", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    done = lambda said: "Attempt 1 failed" in said  # noqa: E731
    ask = ["gemini", "-p", "where does the CI pip cache live?"]
    said = _headless(
        clients_bin, project_dir, ask, str(Path(sys.executable).parent), done, **account
    )
    asked = lambda calls: any(c["event"] == "prompt" for c in calls)  # noqa: E731
    calls = [c for c in _recalls(asked) if c.get("client") == "gemini"]
    [prompt] = [c for c in calls if c["event"] == "prompt"]
    _stop_started_daemons()
    assert prompt["outcome"] in ("shown", "late"), (prompt, said)
    assert "blocked" not in said


def test_after_claude_code_compacts_what_was_shown_is_shown_again(
    cli, clients_bin: Path, project_dir: Path, home: Path, tmp_path: Path
) -> None:
    """A prompt's memory shown in a session is not repeated; once Claude Code compacted the
    session (its SessionStart with source "compact"), the same prompt gets it again, and the
    mandatory memories are printed again with the compaction."""
    body = "Clear it whenever the wheels change."
    assert cli("memory", "upsert", "--title", "The CI pip cache lives in the ci-cache bucket",
               "--body", body).exit_code == 0  # fmt: skip
    assert cli("memory", "upsert", "--title", "Deploys go through staging", "--body",
               "Always, never straight to production.", "--mandatory").exit_code == 0  # fmt: skip
    assert cli("agent", "install", "claude-code").exit_code == 0
    # The delivery is under test here, not the budget: a daemon answers the hooks warm, and
    # they may take as long as the client lets them run (3 s, what install writes).
    daemon = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project"],
        cwd=project_dir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    from graphit_cli.access import runstate
    from graphit_cli.warm import wire

    deadline = time.monotonic() + 180
    while wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is None:
        assert time.monotonic() < deadline and daemon.poll() is None, "the daemon did not start"
        time.sleep(0.5)
    bodies: list[str] = []
    server = _fake_api(bodies, tool_calls=0)
    api = {
        "ANTHROPIC_API_KEY": "sk-ant-not-a-key",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
        "GRAPHIT_HOOK_BUDGET": "2.5",
    }
    path = str(Path(sys.executable).parent)
    finished = lambda said: '"type":"result"' in said  # noqa: E731
    ask = ["claude", "-p", "where does the CI pip cache live?", "--output-format", "json"]
    try:
        for argv in (ask, [*ask, "--continue"]):
            _headless(clients_bin, project_dir, argv, path, finished, **api)
        compact = ["claude", "-p", "/compact", "--continue", "--output-format", "json"]
        _headless(clients_bin, project_dir, compact, path, finished, **api)
        _headless(clients_bin, project_dir, [*ask, "--continue"], path, finished, **api)
    finally:
        server.shutdown()
        server.server_close()
        daemon.terminate()
        daemon.wait(timeout=120)
    calls = _recalls(lambda calls: sum(c["event"] == "prompt" for c in calls) >= 3)
    prompts = [c for c in calls if c["event"] == "prompt"]
    first, before, after = prompts
    assert first["outcome"] == "shown", prompts
    assert before["outcome"] in ("nothing", "late"), prompts  # shown already: not again
    assert after["outcome"] == "shown", prompts  # compacted: shown again
    assert len({c["session"] for c in prompts}) == 1, prompts  # one session throughout
    starts = [c for c in calls if c["event"] == "session-start"]
    assert any(c.get("source") == "compact" and c["outcome"] == "shown" for c in starts), starts
