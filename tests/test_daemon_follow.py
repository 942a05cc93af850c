"""A daemon that follows its scopes: a removed, pruned or deleted scope loses its loops at once,
and a loop's error is in words (no lance file, no Rust source location). Real daemon
subprocesses with short intervals; every wait is generous (the machine is shared)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.daemon.process import Daemon
from graphit_cli.daemon.supervisor import DaemonSettings, EventLog, Loop, Supervisor
from graphit_cli.opening import open_service
from tests.embedders import HashingEmbedder
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parent.parent


def ping() -> dict[str, Any] | None:
    from graphit_cli.daemon import process as daemon

    return daemon.ping()


def loop_scopes() -> set[str]:
    reply = ping()
    return {x["scope"] for x in reply["loops"]} if reply else set()


@pytest.fixture
def daemon_proc(project_dir: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    log = tmp_path / "daemon.log"
    env = {
        **os.environ,
        "GRAPHIT_EMBED_INTERVAL": "0.3",
        "GRAPHIT_MAINTAIN_INTERVAL": "0.3",
        "GRAPHIT_BACKOFF_MAX": "0.3",
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "PYTHONPATH": str(ROOT),
    }
    with open(log, "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graphit_cli", "memory", "daemon"],
            cwd=project_dir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
    try:
        yield proc, log
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _lines_about(log: Path, name: str) -> list[str]:
    return [line for line in log.read_text().splitlines() if f"scope={name}" in line]


# A directory removed outright in the default tier; by graphit's own commands in the slow one.
@pytest.mark.parametrize(
    "how",
    [
        pytest.param("context remove", marks=pytest.mark.slow),
        pytest.param("prune", marks=pytest.mark.slow),
        "rm -rf",
    ],
)
def test_a_scope_that_goes_away_loses_its_loops_at_once(
    how: str, cli: Any, daemon_proc: tuple[subprocess.Popen[str], Path], graphit_home: Path
) -> None:
    proc, log = daemon_proc
    team = Scope("context", "team")
    open_service(team).upsert_many([MemoryDraft(title=f"t{n}", body="team note") for n in range(3)])
    wait_for(lambda: "context:team" in loop_scopes())
    wait_for(lambda: any("embed.done" in line for line in _lines_about(log, "context:team")))
    if how == "context remove":
        result = cli("memory", "context", "remove", "team", "--yes")
        assert result.exit_code == 0, result.stderr
    elif how == "prune":
        result = cli("memory", "prune", "context:team", "--yes")
        assert result.exit_code == 0, result.stderr
    else:
        # Deleted behind graphit's back (the lock keeps it). The daemon may be writing an
        # index file into the table at that moment, as with a user's `rm -rf`: delete until
        # the directory is gone.
        path = team.local_path()
        wait_for(lambda: shutil.rmtree(path, ignore_errors=True) or not path.exists())
    wait_for(lambda: "context:team" not in loop_scopes())
    wait_for(lambda: any("scope.dropped" in line for line in _lines_about(log, "context:team")))
    if how == "rm -rf":
        # A write that was in flight as the directory went may have landed after it (an index
        # file): the user's `rm -rf` again; from now on nothing may bring the directory back.
        path = team.local_path()
        wait_for(lambda: shutil.rmtree(path, ignore_errors=True) or not path.exists())
    dropped = len(_lines_about(log, "context:team"))
    time.sleep(2.0)  # many loop intervals: a loop left behind would have logged by now
    assert proc.poll() is None
    assert len(_lines_about(log, "context:team")) == dropped
    text = log.read_text()
    assert ".rs:" not in text and ".lance/" not in text and "lance-table" not in text
    assert not (graphit_home / "memory" / "memory-context-team").exists()  # not recreated


def test_a_loop_error_is_in_words_and_names_the_scope() -> None:
    log = StringIO()
    stop = __import__("threading").Event()
    supervisor = Supervisor(DaemonSettings(backoff_max=0.01), EventLog(log), stop)
    lance_text = (
        "lance error: Not found: /home/u/.graphit/memory/memory-context-team/memory.lance/"
        "_versions/18446744073709551604.manifest, /root/.cargo/registry/src/index.crates.io-"
        "1949cf8c6b5b557f/lance-table-13.0.0/src/io/commit.rs:653:26"
    )

    def broken() -> None:
        raise OSError(lance_text)

    loop = Loop("maintain", "context:team", 0.05, broken)
    supervisor.start(loop)
    wait_for(lambda: loop.failures >= 1)
    stop.set()
    assert loop.last_error == "Not found: a file of the table"
    line = next(x for x in log.getvalue().splitlines() if "loop.error" in x)
    assert "scope=context:team" in line and 'error="Not found: a file of the table"' in line
    assert ".rs:" not in log.getvalue() and "memory.lance" not in log.getvalue()


def test_retired_loops_never_run_again(scope: Scope) -> None:
    daemon = Daemon(
        DaemonSettings(0.05, 0.05, backoff_max=0.05),
        scopes_named=[scope],
        embedder=HashingEmbedder,
        log=EventLog(StringIO()),
    )
    open_service(scope).upsert(MemoryDraft(title="t", body="b"))
    daemon.start()
    try:
        wait_for(lambda: all(x["runs"] >= 1 for x in daemon.supervisor.snapshot()))
        retired = daemon.supervisor.retire(str(scope))
        assert {loop.kind for loop in retired} == {"embed", "maintain"}
        assert daemon.supervisor.snapshot() == []
        for loop in retired:
            assert loop.thread is not None
            loop.thread.join(timeout=120)  # a hang bound; the status check follows
        runs = [loop.runs for loop in retired]
        time.sleep(0.5)
        assert [loop.runs for loop in retired] == runs
        assert {loop.status for loop in retired} == {"stopped"}
    finally:
        daemon.shutdown()


def test_warm_path_serves_an_attached_context_from_its_project(
    cli: Any, scope: Scope, graphit_home: Path
) -> None:
    import json

    from graphit_cli.access.fingerprint import fingerprint
    from graphit_cli.warm import wire

    memory_id = open_service(scope).upsert(MemoryDraft(title="P", body="b")).memory.id
    added = cli("memory", "context", "add", "other", "--project", scope.id)
    assert added.exit_code == 0, added.stderr
    daemon = Daemon(
        DaemonSettings(3600, 3600),
        scopes_named=[],
        embedder=HashingEmbedder,
        log=EventLog(StringIO()),
    )
    request = {
        "protocol": wire.PROTOCOL,
        "op": "source",
        "scope": "context:other",
        "ref": memory_id,
        "fingerprint": fingerprint([Scope("context", "other")]),
    }
    reply = daemon.answer(json.dumps(request).encode())
    assert reply["ok"] and reply["result"]["title"] == "P", reply
    assert not (graphit_home / "memory" / "memory-context-other").exists()  # no empty table
    assert daemon.service(Scope("context", "other")) is None  # no background work on it
