"""Writes through the warm path: a real daemon process carries out `upsert`, `delete`, `restore`
and `import`; without one (or with one of another protocol) the CLI writes in-process, with the
same output, messages and exit codes either way."""

from __future__ import annotations

import json
import os
import signal
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphit_cli.access import runstate
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryFilter
from graphit_cli.opening import open_service
from graphit_cli.warm import wire
from tests.conftest import run_cli
from tests.embedders import HashingEmbedder

REPO = Path(__file__).resolve().parent.parent
EMBEDDER = "tests.embedders:HashingEmbedder"
# Runs `graphit` and says on stderr's last line whether this process imported lancedb.
PROBE = (
    "import runpy, sys\n"
    "sys.argv = ['graphit', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('graphit_cli', run_name='__main__')\n"
    "finally:\n"
    "    print('LANCEDB', 'lancedb' in sys.modules, file=sys.stderr)\n"
)


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "GRAPHIT_EMBEDDER": EMBEDDER, "PYTHONPATH": str(REPO), **extra}


def graphit(
    project_dir: Path, *args: str, input: str | None = None, **extra: str
) -> tuple[int, str, str, bool]:
    """(exit code, stdout, stderr without the probe line, whether lancedb was imported)."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=project_dir,
        env=env(**extra),
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )
    *rest, probe = proc.stderr.splitlines(keepends=True)
    assert probe.startswith("LANCEDB ")
    return proc.returncode, proc.stdout, "".join(rest), probe.strip() == "LANCEDB True"


def cold(project_dir: Path, *args: str, input: str | None = None) -> tuple[int, str, str, bool]:
    """The same command without the daemon, the CLI's in-process path, run in this process
    (in `project_dir`, with the daemon's embedder): what the warm answer must equal. The last
    item says the table was opened here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project_dir)
        patch.setenv("GRAPHIT_NO_DAEMON", "1")
        patch.setenv("GRAPHIT_EMBEDDER", EMBEDDER)
        done = run_cli(list(args), input=input)
    return done.exit_code, done.stdout, done.stderr, True


@pytest.fixture
def daemon(project_dir: Path) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project"],
        cwd=project_dir,
        env=env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120  # the bounds here only stop a hang
    while wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is None:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the daemon did not answer"
        time.sleep(0.1)
    yield proc
    proc.send_signal(signal.SIGTERM)
    # A loaded machine took over 20 s to schedule an exiting daemon (test_daemon.py).
    _, err = proc.communicate(timeout=180)  # its exit, its stderr pipe closed
    assert proc.returncode == 0, err


def vector_of(scope: Scope, memory_id: str) -> list[float] | None:
    row = open_service(scope).store.get(memory_id, vectors=True)
    assert row is not None
    return row.embedding


def test_writes_go_through_the_daemon_durable_and_embedded(
    project_dir: Path, scope: Scope, daemon: subprocess.Popen[str]
) -> None:
    code, out, err, heavy = graphit(
        project_dir, "memory", "upsert", "--title", "Gateway", "--body", "mutual TLS", "-f", "json"
    )
    assert (code, err, heavy) == (0, "", False), err  # the CLI process never imported lancedb
    created = json.loads(out)[0]
    assert (created["action"], created["revision"]) == ("created", 1)
    # Durable on return, and embedded by the daemon's model before it answered.
    assert vector_of(scope, created["id"]) is not None
    code, out, err, heavy = graphit(
        project_dir, "memory", "upsert", "--id", created["id"], "--body", "mTLS everywhere"
    )
    assert (code, heavy) == (0, False)
    code, out, _, heavy = graphit(project_dir, "memory", "history", created["id"], "-f", "json")
    revision_id = next(h["revision_id"] for h in json.loads(out) if h["revision"] == 1)
    code, out, err, heavy = graphit(project_dir, "memory", "delete", created["id"], "--yes")
    assert (code, err, heavy) == (0, "", False)
    assert created["id"] in out and "deleted" in out
    ref = f"{created['id']}/{revision_id}"
    code, out, err, heavy = graphit(project_dir, "memory", "restore", ref, "-f", "json")
    assert (code, err, heavy) == (0, "", False)
    restored = json.loads(out)[0]
    assert restored["action"] in ("created", "updated")
    live = open_service(scope).source(created["id"])
    assert (live.body, live.revision) == ("mutual TLS", restored["revision"])
    assert restored["revision"] > 2


# Each case costs two CLI processes: the default tier checks one case per exit code.
@pytest.mark.parametrize(
    "picked",
    [
        pytest.param((0, 2, 5), id="one-per-exit-code"),
        pytest.param((1, 3, 4, 6), id="the-rest", marks=pytest.mark.slow),
    ],
)
def test_the_daemon_answers_errors_as_the_cli_does(
    project_dir: Path, daemon: subprocess.Popen[str], picked: tuple[int, ...]
) -> None:
    seeded = cold(project_dir, "memory", "upsert", "--title", "Seed", "--body", "b", "-f", "json")
    memory_id = json.loads(seeded[1])[0]["id"]
    stale = cold(project_dir, "memory", "source", memory_id)[1]  # revision 1, as a file
    assert cold(project_dir, "memory", "upsert", "--id", memory_id, "--body", "newer")[0] == 0
    cases: list[tuple[tuple[str, ...], str | None, int]] = [
        (("memory", "delete", "01JD0000000000000000000999", "--yes"), None, 4),  # not found
        (("memory", "restore", "01JD0000000000000000000999/01JD0000000000000000000998"), None, 4),
        (("memory", "restore", memory_id), None, 3),  # no revision given
        (("memory", "upsert", "-"), '{"title": "t", "body": "b", "type": "bogus"}', 3),
        (("memory", "upsert", "--id", "not-an-id", "--body", "x"), None, 3),
        (("memory", "upsert", "-"), stale.replace("# Seed", "# Seed\n\nedited"), 5),  # conflict
        (("memory", "import", "no/such/file.md"), None, 3),
    ]
    for args, stdin, exit_code in [cases[n] for n in picked]:
        warm = graphit(project_dir, *args, input=stdin)
        alone = cold(project_dir, *args, input=stdin)
        assert warm[:3] == alone[:3], args
        assert warm[0] == exit_code, (args, warm)
        assert warm[3] is False, args  # answered by the daemon: no lancedb in the CLI
    # The duplicate warning comes back from the daemon word for word (and it writes anyway).
    warm = graphit(project_dir, "memory", "upsert", "--title", "Seed", "--body", "newer")
    assert (warm[0], warm[3]) == (0, False)
    assert warm[2] == (
        f"Warning: memory {memory_id} ('Seed') already says this; to change it, use "
        f"`graphit memory upsert --id {memory_id}` (written anyway as a new memory)\n"
    )


def test_import_through_the_daemon_reports_like_in_process(
    project_dir: Path, daemon: subprocess.Popen[str]
) -> None:
    (project_dir / "AGENTS.md").write_text(
        "# Agents\n\n## Testing\n\nRun pytest -q.\n\n## Style\n\nUse ruff.\n", encoding="utf-8"
    )
    dry_warm = graphit(project_dir, "memory", "import", "AGENTS.md", "--dry-run")
    dry_cold = cold(project_dir, "memory", "import", "AGENTS.md", "--dry-run")
    assert dry_warm[:3] == dry_cold[:3] and dry_warm[3] is False
    assert dry_warm[2].startswith("AGENTS.md (agents): 2 would be created, 0 would be updated")
    code, out, err, heavy = graphit(project_dir, "memory", "import", "AGENTS.md")
    assert (code, heavy) == (0, False)
    assert err == "AGENTS.md (agents): 2 created, 0 updated, 0 skipped.\n"
    assert [line.split("\t")[0] for line in out.splitlines()] == ["created", "created"]
    again = cold(project_dir, "memory", "import", "AGENTS.md")
    assert again[2] == "AGENTS.md (agents): 0 created, 0 updated, 2 skipped.\n"


def test_no_daemon_writes_in_process(project_dir: Path, scope: Scope) -> None:
    code, out, err, heavy = graphit(
        project_dir, "memory", "upsert", "--title", "Alone", "--body", "no daemon", "-f", "json"
    )
    assert (code, err, heavy) == (0, "", True)  # in-process: it opened the table itself
    memory_id = json.loads(out)[0]["id"]
    # Embedded before the command returned, by the process's own model, in the same commit.
    expected = HashingEmbedder().embed_query("Alone\n\nno daemon")
    assert list(vector_of(scope, memory_id) or []) == pytest.approx(expected, abs=1e-6)


@contextmanager
def old_daemon(protocol: int) -> Iterator[list[dict[str, object]]]:
    """A daemon of an older graphit on the socket: it refuses every request (ProtocolMismatch,
    in its own protocol) and records what it was asked."""
    path = runstate.socket_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    asked: list[dict[str, object]] = []

    class Old(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            asked.append(json.loads(self.rfile.readline()))
            refusal = {"ok": False, "protocol": protocol, "error": {"type": "ProtocolMismatch"}}
            self.wfile.write(json.dumps(refusal).encode() + b"\n")

    server = socketserver.ThreadingUnixStreamServer(str(path), Old)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield asked
    finally:
        server.shutdown()
        server.server_close()


# 2: before writes went to the daemon; 4: before the daemon checked writes for secrets.
@pytest.mark.parametrize("protocol", [2, 4])
def test_a_daemon_of_another_protocol_is_not_used_for_writes(
    project_dir: Path, scope: Scope, protocol: int
) -> None:
    """A daemon speaking an older protocol refuses the request; the CLI says so once and writes
    in-process: the memory is written exactly once."""
    with old_daemon(protocol) as asked:
        code, _out, err, heavy = graphit(
            project_dir, "memory", "upsert", "--title", "Old", "--body", "daemon", "-f", "json"
        )
    assert asked and asked[0]["op"] == "upsert"  # it was asked ...
    assert (code, heavy) == (0, True)  # ... and the write happened here
    assert err == (
        f"graphit: WARNING: the running daemon speaks protocol {protocol}, this graphit "
        f"{wire.PROTOCOL}: working in-process (restart `graphit memory daemon` to use the warm "
        "path again)\n"
    )
    listed = open_service(scope, embedder=HashingEmbedder).catalogue(MemoryFilter())
    assert [m.title for m in listed] == ["Old"]


def test_a_secret_is_refused_while_a_daemon_from_before_the_check_runs(
    project_dir: Path, scope: Scope
) -> None:
    """A protocol-4 daemon would write a secret unchecked: the CLI checks it in-process."""
    body = "aws_access_key_id = AKIA" + "Q3VZ7XK2MRT4PLNB" + "\n"
    with old_daemon(4) as asked:
        code, out, err, _heavy = graphit(
            project_dir, "memory", "upsert", "--title", "Keys", "--body", body
        )
    assert asked and code == 3 and out == ""
    assert "aws-access-key in the body at 1:21" in err and "Q3VZ7XK2MRT4PLNB" not in err
    assert open_service(scope, embedder=HashingEmbedder).catalogue(MemoryFilter()) == []


@pytest.mark.parametrize("takes", [True, False], ids=["took-it", "never-took-it"])
def test_a_daemon_that_reads_a_write_and_dies_is_never_a_second_write(
    project_dir: Path, scope: Scope, takes: bool
) -> None:
    """A daemon that took the write (its claim) and closed without an answer: exit 7, nothing
    written in-process. One that read it and closed without taking it: the CLI writes it once."""
    path = runstate.socket_path()
    path.parent.mkdir(parents=True, exist_ok=True)

    class Silent(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            request = json.loads(self.rfile.readline())
            if takes:
                assert wire.Claim(path.parent, request["request_id"]).take()
            # ... and closes without an answer

    server = socketserver.ThreadingUnixStreamServer(str(path), Silent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        code, out, err, _ = graphit(project_dir, "memory", "upsert", "--title", "T", "--body", "B")
    finally:
        server.shutdown()
        server.server_close()
    if takes:
        assert code == 7 and out == ""  # storage unavailable
        assert err.startswith("Error: the daemon on ") and "may have been written" in err
        assert open_service(scope).store.rows() == 0  # nothing written in-process
    else:
        assert (code, err) == (0, ""), err
        assert [m.title for m in open_service(scope).catalogue()] == ["T"]
    assert not list((path.parent / "requests").iterdir())  # no claim left behind
