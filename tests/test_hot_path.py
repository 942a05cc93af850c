"""The agent's hot path: the hooks on the thin path, their budgets, the stuck-daemon
marker, and an agent session's warm server, with real processes and real signals.

Timing here is only ever a budget the product enforces (the hook's 1 s, asserted with a wide
margin) or a bound against a hang; never a speed claim (benchmarks/prompt_hook.py has those).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphit_cli.access import runstate
from graphit_cli.core.models import MemoryDraft, WriteAction
from graphit_cli.warm import values, wire
from tests.conftest import PROJECT_ID
from tests.polling import wait_for

REPO = Path(__file__).resolve().parent.parent
EMBEDDER = "tests.embedders:HashingEmbedder"
PROMPT = {"hook_event_name": "UserPromptSubmit", "prompt": "where does the pip cache live?"}


@pytest.fixture(autouse=True)
def same_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process asks the warm processes too (`_ask_hook`): the same settings as theirs."""
    monkeypatch.setenv("GRAPHIT_EMBEDDER", EMBEDDER)


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "GRAPHIT_EMBEDDER": EMBEDDER, "PYTHONPATH": str(REPO), **extra}


def hook(cwd: Path, event: str = "prompt", given: object = PROMPT, **extra: str):
    """`graphit agent hook EVENT` as a client runs it: its own process, the event on stdin."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "agent", "hook", event],
        cwd=cwd,
        env=env(**extra),
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=180,
    )
    return done, time.monotonic() - started


def _write_command(project_dir: Path, title: str, body: str, *flags: str) -> None:
    """`graphit memory upsert` in its own process."""
    upsert = [sys.executable, "-m", "graphit_cli", "memory", "upsert"]
    done = subprocess.run(
        [*upsert, "--title", title, "--body", body, *flags],
        cwd=project_dir,
        env=env(GRAPHIT_NO_DAEMON="1"),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture
def memories(project_dir: Path) -> Path:
    """Two memories, written in this process (with the warm processes' embedder, `EMBEDDER`):
    what the hooks find is the subject here, not how the table was written."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID))
    service.upsert(
        MemoryDraft(
            title="The CI pip cache lives in the ci-cache bucket", body="Clear it on new wheels."
        )
    )
    service.upsert(MemoryDraft(title="Deploys go through staging", body="Always.", mandatory=True))
    return project_dir


class Process:
    """A warm process (`graphit memory daemon`, or `graphit memory mcp` with its stdin held
    open like a client's), its stderr in a file (a pipe nobody reads could block it)."""

    def __init__(self, args: list[str], cwd: Path, log: Path) -> None:
        self._log = log.open("w")
        self.log_path = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphit_cli", *args],
            cwd=cwd,
            env=env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
        )

    def end(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(timeout=60)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self._log.close()


@pytest.fixture
def processes() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in started:
        process.end()


def _daemon(project_dir: Path, tmp_path: Path, processes: list[Process]) -> Process:
    daemon = Process(["memory", "daemon", "--scope", "project"], project_dir, tmp_path / "d.log")
    processes.append(daemon)
    wait_for(
        lambda: wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is not None,
        seen=lambda: daemon.log_path.read_text(),
    )
    return daemon


def _ask_hook(root: Path) -> dict[str, object] | None:
    from graphit_cli.warm import client

    fields = {
        "op": "hook",
        "event": "prompt",
        "client": "claude-code",
        "prompt": PROMPT["prompt"],
        "session_id": None,
        "root": str(root),
        "project": f"project:{PROJECT_ID}",
        "user_level": False,
    }
    return client.ask(fields, time.monotonic() + 30)


# --- the thin path --------------------------------------------------------------------------


def test_the_thin_client_loads_no_adapter_provider_or_credential_module() -> None:
    """What a hook imports before it knows a socket exists: the standard library and the
    light fingerprint; not Typer, urllib's client, the broker or the credential chain."""
    code = (
        "import sys\n"
        "from graphit_cli.warm import hook, client\n"
        "from graphit_cli.access import fingerprint\n"
        "fingerprint.inputs(); hook.project(); client.sockets(client.run_dir())\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env(), capture_output=True, text=True, timeout=120
    )
    loaded = set(done.stdout.split())
    assert "graphit_cli.warm.client" in loaded
    heavy = {
        "typer",
        "click",
        "urllib.request",
        "http.client",
        "graphit_cli.access.providers.broker",
        "graphit_cli.access.credentials",
        "graphit_cli.access.providers.aws",
        "graphit_cli.config",
        "graphit_cli.core.models",
        "lancedb",
        "pyarrow",
        "numpy",
        "dataclasses",
        "logging",
        "typing",
    }
    assert not loaded & heavy, loaded & heavy


def test_the_thin_fingerprint_follows_what_changes_an_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from graphit_cli.access.fingerprint import inputs

    base = inputs()
    monkeypatch.setenv("GRAPHIT_AUTHOR", "someone else")  # per command: no other answer
    monkeypatch.setenv("GRAPHIT_EMBED_INTERVAL", "5")  # the daemon's loops only
    assert inputs() == base
    for name, value in (
        ("GRAPHIT_PROVIDER", "local"),
        ("GRAPHIT_FOLD_THRESHOLD", "8"),
        ("AWS_PROFILE", "other"),
        ("GRAPHIT_SOMETHING_NEW", "1"),  # a future setting counts until it is named here
    ):
        monkeypatch.setenv(name, value)
        assert inputs() != base, name
        monkeypatch.delenv(name)
    assert inputs() == base


def test_the_protocol_version_is_the_wires() -> None:
    from graphit_cli.warm import client

    assert client.PROTOCOL == wire.PROTOCOL


def test_a_hook_is_answered_by_the_daemon_with_the_in_process_answer(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    cold, _ = hook(memories, GRAPHIT_NO_DAEMON="1", GRAPHIT_HOOK_BUDGET="120")
    start, _ = hook(memories, "session-start", {}, GRAPHIT_NO_DAEMON="1", GRAPHIT_HOOK_BUDGET="120")
    _daemon(memories, tmp_path, processes)
    assert _ask_hook(memories) is not None  # the daemon answers the hook's operation
    warm, _ = hook(memories, GRAPHIT_HOOK_BUDGET="120")
    warm_start, _ = hook(memories, "session-start", {}, GRAPHIT_HOOK_BUDGET="120")
    assert cold.returncode == warm.returncode == 0, cold.stderr + warm.stderr
    assert "ci-cache bucket" in cold.stdout and "staging" not in cold.stdout
    assert warm.stdout == cold.stdout  # one match: hybrid in the daemon, lexical cold
    assert warm_start.stdout == start.stdout and "Deploys go through staging" in start.stdout


def test_a_declined_hook_request_runs_in_process(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    """Another environment (a setting that changes answers): the daemon declines the thin
    request and the hook answers from this process, the same answer."""
    _daemon(memories, tmp_path, processes)
    done, _ = hook(memories, GRAPHIT_FOLD_THRESHOLD="64", GRAPHIT_HOOK_BUDGET="120")
    assert done.returncode == 0 and "ci-cache bucket" in done.stdout, done.stderr


# --- budgets: a frozen daemon, a missing one ----------------------------------------------------


def test_a_frozen_daemon_costs_one_hook_its_answer_and_the_next_ones_nothing(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    daemon = _daemon(memories, tmp_path, processes)
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    first, seconds = hook(memories)
    assert first.returncode == 0 and first.stderr == ""
    assert seconds < 3.0  # the budget is 0.9 s; a wide margin for a busy machine
    # The hook sees the daemon is stopped as soon as it connects (its state in /proc): a marker
    # names it, so the next hooks ask an agent session's server, or search here, at once (the
    # daemon's ask used to wait and be dropped with the process when the search here won).
    markers = list((runstate.run_dir()).glob("stuck-*.json"))
    assert [m.name for m in markers] == ["stuck-daemon.sock.json"]
    assert json.loads(markers[0].read_text())["pid"] == daemon.proc.pid
    # With a long budget, a hook that waited for the daemon alone would take 17 s (its warm
    # share): the marker, or the search in its own process, answers it well before.
    later, seconds = hook(memories, GRAPHIT_HOOK_BUDGET="20")
    assert later.returncode == 0 and "ci-cache bucket" in later.stdout, later.stderr
    assert seconds < 10.0
    # Thawed, the daemon is asked again and the marker goes.
    os.kill(daemon.proc.pid, signal.SIGCONT)
    assert _ask_hook(memories) is not None
    assert not list(runstate.run_dir().glob("stuck-*.json"))


def test_a_hook_with_no_answer_in_its_budget_prints_nothing_and_exits_0(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    daemon = _daemon(memories, tmp_path, processes)
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    # A budget no process meets (1 ms from its spawn; 2 ms at session start): with 50 ms, a
    # session start answered from its own process within its 100 ms on a fast machine (CI).
    for event in ("prompt", "session-start"):
        done, seconds = hook(memories, event, GRAPHIT_HOOK_BUDGET="0.001")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert seconds < 3.0


def test_a_client_that_never_closes_stdin_holds_no_prompt(project_dir: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "agent", "hook", "prompt"],
        cwd=project_dir,
        env=env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    started = time.monotonic()
    try:
        code = proc.wait(timeout=60)  # stdin stays open: the budget ends it
        seconds = time.monotonic() - started
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    assert proc.stdout is not None and proc.stderr is not None
    with proc.stdout, proc.stderr:
        out, err = proc.stdout.read(), proc.stderr.read()
    assert (code, out, err) == (0, b"", b"")
    assert seconds < 3.0


def test_a_missing_daemon_leaves_the_hook_in_process(memories: Path) -> None:
    """A socket file nobody listens on (a daemon killed outright): in-process, in budget."""
    run = runstate.run_dir()
    run.mkdir(parents=True, exist_ok=True)
    import socket

    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(run / "daemon.sock"))  # bound, never listening: connect is refused
    done, seconds = hook(memories, GRAPHIT_HOOK_BUDGET="120")
    assert done.returncode == 0 and "ci-cache bucket" in done.stdout, done.stderr
    quick, seconds = hook(memories)
    assert quick.returncode == 0 and seconds < 3.0


def test_a_hook_never_exits_2_and_says_a_broken_project_in_one_line(project_dir: Path) -> None:
    (project_dir / "graphit.lock.json").write_text("{ not json")
    for event in ("prompt", "session-start"):
        done, _ = hook(project_dir, event)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith("Error: graphit hook: ") and done.stderr.count("\n") == 1


# --- an agent session's warm server -----------------------------------------------------------


def _session_sockets() -> list[Path]:
    return sorted((runstate.run_dir() / "s").glob("*.sock"))


def test_an_agent_session_serves_its_hooks_warm_and_leaves_nothing_behind(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    session = Process(["memory", "mcp"], memories, tmp_path / "mcp.log")
    processes.append(session)
    wait_for(lambda: bool(_session_sockets()), seen=lambda: session.log_path.read_text())
    assert [p.name for p in _session_sockets()] == [f"{session.proc.pid}.sock"]
    wait_for(lambda: _ask_hook(memories) is not None)  # answered by the session's process
    warm, _ = hook(memories, GRAPHIT_HOOK_BUDGET="120")
    assert warm.returncode == 0 and "ci-cache bucket" in warm.stdout, warm.stderr
    # A write is not the session server's: declined, the command writes in-process.
    _write_command(memories, "Written beside a session", "body")
    # The session ends (the client closes the server's stdin): the process exits, its socket
    # goes, and no process of graphit's is left.
    assert session.proc.stdin is not None
    session.proc.stdin.close()
    assert session.proc.wait(timeout=120) == 0
    assert _session_sockets() == []
    assert _ask_hook(memories) is None


def test_a_session_killed_outright_leaves_a_socket_the_next_hook_removes(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    session = Process(["memory", "mcp"], memories, tmp_path / "mcp.log")
    processes.append(session)
    wait_for(lambda: bool(_session_sockets()), seen=lambda: session.log_path.read_text())
    session.proc.kill()
    session.proc.wait(timeout=60)
    assert _session_sockets()  # left behind
    done, _ = hook(memories, GRAPHIT_HOOK_BUDGET="120")
    assert done.returncode == 0 and "ci-cache bucket" in done.stdout, done.stderr
    assert _session_sockets() == []


def test_no_session_server_without_the_warm_path(
    memories: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.daemon.session import serve_session

    monkeypatch.setenv("GRAPHIT_NO_DAEMON", "1")
    assert serve_session(memories) is None
    monkeypatch.delenv("GRAPHIT_NO_DAEMON")
    server = serve_session(memories)
    assert server is not None
    try:
        assert _session_sockets() == [server.path]
    finally:
        server.close()
    assert _session_sockets() == []


# --- the thin read path ---------------------------------------------------------------------


def _thin(args: list[str]) -> tuple[int | None, str, str]:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from graphit_cli.cli import thin

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = thin.main(args)
    return code, out.getvalue(), err.getvalue()


def _missing_vectors() -> int:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    return open_service(Scope("project", PROJECT_ID)).store.missing_vectors()


@pytest.mark.parametrize("warm", [False, True], ids=["in-process", "daemon"])
def test_the_thin_reads_print_what_the_commands_print(
    cli, memories: Path, tmp_path: Path, processes: list[Process], warm: bool
) -> None:
    if warm:
        _daemon(memories, tmp_path, processes)
        # The daemon embeds what was written without a vector: compare once it did (a search
        # between its passes says "lexical only" one time and not the next).
        wait_for(lambda: _missing_vectors() == 0)
    listed = cli("memory", "list", "-f", "json")
    some_id = json.loads(listed.stdout)[0]["id"]
    for args in (
        ["search", "pip cache", "-f", "json"],
        ["search", "pip cache", "--mode", "fts", "-k", "1", "--format=markdown"],
        ["search", "nothing like it", "-t", "FACT", "--tag", "ci"],
        ["source", some_id],
        ["source", some_id, "-f", "table"],
        ["list", "-n", "1", "-f", "ndjson"],
        ["important"],
        ["mandatory", "--user"],
        ["recall", "pip cache", "--scope", "project", "-f", "json"],
    ):
        code, out, err = _thin(["memory", *args])
        full = cli("memory", *args)
        assert (code, out, err) == (full.exit_code, full.stdout, full.stderr), args


def test_the_thin_reads_leave_what_they_do_not_know_to_the_command(memories: Path) -> None:
    for args in (
        ["search", "x", "--scope", "all"],  # across scopes
        ["search", "x", "--scope", "context:team"],
        ["search", "x", "-k", "-1"],  # refused by the command, in its words
        ["search", "x", "--mode", "clever"],
        ["search", "x", "--help"],
        ["search"],
        ["source", "not-an-id"],  # the command's error, exit code and message
        ["recall", "x"],  # across the recall scopes
        ["list", "--user", "--scope", "project"],
        ["upsert", "--title", "t"],  # never a write
    ):
        assert _thin(["memory", *args])[0] is None, args


# --- one codec ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Later:
    """A model with the kinds of field a later issue adds (types resolved from this module)."""

    anchors: tuple[str, ...] = ()
    verified_at: datetime | None = None
    action: WriteAction = WriteAction.CREATED
    scores: list[float] = field(default_factory=list)


def test_the_codec_reads_back_every_field_by_its_type() -> None:
    """A field a model gains (a tuple, a time that may be None) crosses the socket as the
    same value, with no line of codec for it: a forwarded answer equals the in-process one."""
    from graphit_cli.core import codec

    value = Later(("a.py:1", "b.py"), datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), scores=[1, 0.5])
    sent = json.loads(json.dumps(codec.encode(value)))
    assert codec.decode(Later, sent) == value
    assert codec.decode(Later, {}) == Later()  # a field left out: its default
    assert codec.decode(Later, {"verified_at": None}).verified_at is None


def test_a_forwarded_memory_is_the_memory(cli, project_dir: Path) -> None:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_reader

    assert cli("memory", "upsert", "--title", "T", "--body", "B", "--tag", "x").exit_code == 0
    memory = open_reader(Scope("project", PROJECT_ID)).catalogue()[0]
    crossed = values.memory_from_wire(json.loads(json.dumps(values.memory_to_wire(memory))))
    assert crossed == memory.__class__(**{**memory.__dict__, "embedding": None})
    assert "embedding" not in values.memory_to_wire(memory)
