"""The daemon's shutdown and stalls, with real daemon processes and real signals.

SIGTERM drains (the write being carried out is answered, every thread joined, exit 0); a daemon
stopped with SIGSTOP hangs no command (reads work in-process, a write it had not taken is done
once in-process, one it took is exit 7 and applied once, by the daemon). The waits here are
bounds against a hang, never speed checks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access import runstate
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.daemon.process import Daemon, DaemonSettings, EventLog
from graphit_cli.opening import open_service
from graphit_cli.warm import wire
from tests.embedders import HashingEmbedder
from tests.polling import wait_for

REPO = Path(__file__).resolve().parent.parent
SLOW = "tests.embedders:SlowHashingEmbedder"


def env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "PYTHONPATH": str(REPO),
        **extra,
    }


class Running:
    """A daemon process for the project scope, its log in a file (a pipe nobody reads could
    block it mid-shutdown)."""

    def __init__(self, project_dir: Path, log_path: Path, *args: str, **extra: str) -> None:
        self.log_path = log_path
        self._log = log_path.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project", *args],
            cwd=project_dir,
            env=env(**extra),
            stdout=subprocess.DEVNULL,
            stderr=self._log,
        )
        deadline = time.monotonic() + 120
        while wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is None:
            assert self.proc.poll() is None, self.log()
            assert time.monotonic() < deadline, "the daemon did not answer"
            time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text()

    def end(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()
        self._log.close()


@pytest.fixture
def start(project_dir: Path, tmp_path: Path) -> Iterator[Any]:
    started: list[Running] = []

    def run(**extra: str) -> Running:
        daemon = Running(project_dir, tmp_path / f"daemon{len(started)}.log", **extra)
        started.append(daemon)
        return daemon

    yield run
    for daemon in started:
        daemon.end()


def cli(project_dir: Path, *args: str, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", *args],
        cwd=project_dir,
        env=env(**extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def feed(proc: subprocess.Popen[str], text: str) -> None:
    """Write `text` to the process's stdin and close it (`communicate` then only reads)."""
    assert proc.stdin is not None
    proc.stdin.write(text)
    proc.stdin.close()
    proc.stdin = None


def batch(n: int, tag: str = "batch") -> str:
    return "".join(
        json.dumps({"title": f"{tag} {i}", "body": f"row {i} of the {tag}"}) + "\n"
        for i in range(n)
    )


def taken(graphit_home: Path) -> bool:
    """The daemon took a forwarded write (renamed its claim) and is carrying it out."""
    found = graphit_home / "run" / "requests"
    return found.is_dir() and any(p.suffix == ".taken" for p in found.iterdir())


def titles(scope: Scope) -> list[str]:
    return sorted(m.title for m in open_service(scope).catalogue())


def test_sigterm_during_a_forwarded_batch_answers_it_and_exits_0(
    start: Any, project_dir: Path, graphit_home: Path, scope: Scope
) -> None:
    daemon = start(GRAPHIT_EMBEDDER=SLOW, TEST_EMBED_DELAY="0.05")
    # The command runs with the daemon's embedder, or the daemon would decline it (fingerprint).
    writer = cli(project_dir, "memory", "upsert", "-f", "json", GRAPHIT_EMBEDDER=SLOW)
    feed(writer, batch(600))
    wait_for(lambda: taken(graphit_home))
    daemon.proc.send_signal(signal.SIGTERM)
    assert daemon.proc.wait(timeout=180) == 0, daemon.log()
    out, err = writer.communicate(timeout=180)
    # The write in flight was finished and answered: reported ok, not "may have been written";
    # the rows the stopping daemon did not embed are named, for the next embedding pass.
    assert writer.returncode == 0, err
    assert err.endswith("600 created\n") and "may have been written" not in err, err
    assert "the embedding model failed" not in err, err
    assert len(json.loads(out)) == 600
    assert len(titles(scope)) == 600  # once each: nothing to retry, nothing doubled
    log = daemon.log()
    assert "daemon.stopping requests=1" in log and "daemon.stopped" in log
    assert "terminate called" not in log and "Traceback" not in log
    assert not taken(graphit_home)  # the CLI left no claim behind


def test_a_stopped_daemon_does_not_hang_a_read(start: Any, project_dir: Path, scope: Scope) -> None:
    open_service(scope).upsert(MemoryDraft(title="Kept", body="read while the daemon is stopped"))
    daemon = start()
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        reader = cli(project_dir, "memory", "list", "-f", "json", GRAPHIT_DAEMON_ANSWER_TIMEOUT="2")
        out, err = reader.communicate(timeout=90)  # today: 120 s, then in-process
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    assert reader.returncode == 0, err
    assert [m["title"] for m in json.loads(out)] == ["Kept"]
    assert "the daemon did not answer" in err and "working in-process" in err


def test_a_write_to_a_stopped_daemon_is_done_once_in_process(
    start: Any, project_dir: Path, scope: Scope
) -> None:
    daemon = start()
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        writer = cli(
            project_dir,
            "memory",
            "upsert",
            "--title",
            "Once",
            "--body",
            "written while the daemon was stopped",
            GRAPHIT_DAEMON_ANSWER_TIMEOUT="2",
        )
        _, err = writer.communicate(timeout=90)  # today: up to an hour
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    # The daemon never took it: the CLI wrote it itself, and says why it took longer.
    assert writer.returncode == 0, err
    assert "the daemon did not answer" in err
    # Resumed, the daemon reads the queued request and refuses it: its caller gave up.
    wait_for(lambda: "request.declined op=upsert" in daemon.log())
    assert titles(scope) == ["Once"]
    assert open_service(scope).catalogue()[0].revision == 1  # never applied a second time


def test_a_write_the_daemon_took_and_did_not_answer_is_exit_7_and_applied_once(
    start: Any, project_dir: Path, graphit_home: Path, scope: Scope
) -> None:
    daemon = start(GRAPHIT_EMBEDDER=SLOW, TEST_EMBED_DELAY="0.1")
    writer = cli(
        project_dir, "memory", "upsert", GRAPHIT_DAEMON_ANSWER_TIMEOUT="2", GRAPHIT_EMBEDDER=SLOW
    )
    feed(writer, batch(200))
    wait_for(lambda: taken(graphit_home))
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        _, err = writer.communicate(timeout=90)
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    assert writer.returncode == 7, err
    assert "took the write but gave no answer" in err and "may have been written" in err
    # Resumed, the daemon finishes the write it took; the CLI never ran it itself.
    wait_for(lambda: len(titles(scope)) >= 200)
    assert len(titles(scope)) == 200
    assert daemon.proc.poll() is None


@pytest.mark.slow
def test_a_drain_that_runs_out_of_time_exits_1_and_the_write_is_answered_or_exit_7(
    start: Any, project_dir: Path, graphit_home: Path, scope: Scope
) -> None:
    # The model is stuck in a 30 s slice: the drain (1 s) abandons its thread (exit 1). The
    # write it took either committed its rows before that slice (the stop cuts their
    # embedding short and the write is answered: written, vectors later) or is still in it
    # (its thread is abandoned too: exit 7, "may have been written"). Which one depends on
    # whether the model was loaded when the write came; never a silent loss, never an abort.
    daemon = start(GRAPHIT_EMBEDDER=SLOW, TEST_EMBED_DELAY="30", GRAPHIT_DRAIN_SECONDS="1")
    writer = cli(project_dir, "memory", "upsert", GRAPHIT_EMBEDDER=SLOW)
    feed(writer, batch(100))
    wait_for(lambda: taken(graphit_home))
    daemon.proc.send_signal(signal.SIGTERM)
    assert daemon.proc.wait(timeout=180) == 1
    log = daemon.log()
    assert "daemon.abandoned" in log and "terminate called" not in log, log
    _, err = writer.communicate(timeout=180)
    if "threads=model requests=0" in log:
        assert writer.returncode == 0, err
        assert "100 rows written without a vector (the daemon is stopping)" in err, err
        assert titles(scope) == sorted(f"batch {i}" for i in range(100))
    else:
        assert writer.returncode == 7 and "may have been written" in err, (err, log)


# --- the daemon's side of a write's deadline and claim (in this process) -------------------


@pytest.fixture
def daemon(scope: Scope) -> Iterator[Daemon]:
    running = Daemon(
        DaemonSettings(embed_interval=60, maintain_interval=60),
        scopes_named=[scope],
        embedder=HashingEmbedder,
        log=EventLog(StringIO()),
    )
    running.start()
    yield running
    assert running.shutdown()


def _raw(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        sock.sendall(json.dumps(request).encode() + b"\n")
        reply: dict[str, Any] = json.loads(sock.makefile().readline())
        return reply


def test_a_late_or_abandoned_write_is_refused_never_applied(daemon: Daemon, scope: Scope) -> None:
    draft = {"title": "Late", "body": "must not land"}
    from graphit_cli.access.fingerprint import fingerprint

    base = {"protocol": wire.PROTOCOL, "op": "upsert", "scope": str(scope), "author": "t"}
    base |= {"drafts": [draft], "fingerprint": fingerprint([scope])}
    run_dir = daemon.socket_path.parent

    def claimed() -> wire.Claim:
        claim = wire.Claim(run_dir, wire.new_request_id())
        claim.create()
        return claim

    late = claimed()
    reply = _raw(
        daemon.socket_path,
        {**base, "request_id": late.request_id, "deadline": time.monotonic() - 1},
    )
    assert reply == wire.declined("the write arrived after its deadline")
    abandoned = claimed()
    assert abandoned.give_up()  # the CLI stopped waiting before the daemon read it
    reply = _raw(
        daemon.socket_path,
        {**base, "request_id": abandoned.request_id, "deadline": time.monotonic() + 60},
    )
    assert reply == wire.declined("the caller no longer waits for this write")
    for bad in ({}, {"request_id": "../x", "deadline": time.monotonic() + 60}):
        refused = _raw(daemon.socket_path, {**base, **bad})
        assert refused["error"]["type"] == "InvalidInput"
    assert open_service(scope).catalogue() == []
    fine = claimed()
    reply = _raw(
        daemon.socket_path,
        {**base, "request_id": fine.request_id, "deadline": time.monotonic() + 60},
    )
    assert reply["ok"] and not fine.give_up()  # taken: the CLI must not run it again
    assert titles(scope) == ["Late"]
    fine.clear()
    late.clear()


def test_a_write_declined_after_it_was_taken_goes_back_to_the_cli(
    daemon: Daemon, scope: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision to decline made after the claim was taken (and before anything is written)
    hands the claim back: the command writes in-process, not exit 7."""
    from graphit_cli.daemon import warmpath

    def decline(*_: object, **__: object) -> dict[str, Any]:
        raise wire.Declined("served in-process")

    monkeypatch.setattr(warmpath, "answer", decline)
    claim = wire.Claim(daemon.socket_path.parent, wire.new_request_id())
    claim.create()
    request = {"protocol": wire.PROTOCOL, "op": "delete", "scope": str(scope), "ref": "x"}
    request |= {"author": "t", "request_id": claim.request_id, "deadline": time.monotonic() + 60}
    assert _raw(daemon.socket_path, request) == wire.declined("served in-process")
    assert claim.give_up()  # the claim is the CLI's again


def test_a_daemon_with_an_idle_exit_stops_by_itself(project_dir: Path, tmp_path: Path):
    """`--idle-exit` (what the prompt hook gives a daemon it starts on its own): nobody asks,
    and it stops by itself, cleanly."""
    daemon = Running(project_dir, tmp_path / "idle.log", "--idle-exit", "1")
    try:
        code = daemon.proc.wait(timeout=120)
    finally:
        daemon.end()
    assert code == 0, daemon.log()
    assert "daemon.idle" in daemon.log()


@pytest.mark.slow
def test_a_daemon_with_an_idle_exit_stops_once_nobody_asks(project_dir: Path, tmp_path: Path):
    """Requests keep a daemon with `--idle-exit` running past the idle time; without them it
    stops by itself, cleanly."""
    daemon = Running(project_dir, tmp_path / "idle.log", "--idle-exit", "4")
    try:
        asked_until = time.monotonic() + 8  # twice the idle time, a request every second
        while time.monotonic() < asked_until:
            assert wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=5.0) is not None
            time.sleep(1.0)
        assert daemon.proc.poll() is None, daemon.log()
        code = daemon.proc.wait(timeout=120)
    finally:
        daemon.end()
    assert code == 0, daemon.log()
    assert "daemon.idle" in daemon.log()
