"""Mixed operations with kills: a race is never called damage.

A few worker processes (tests/chaos_worker.py) run creates, updates (their own memories and
two shared hot ones), deletes, searches and listings against one project table, local and on
S3 (moto's server on 127.0.0.1); workers are killed with SIGKILL at random moments and
replaced until the campaign has run its operations (CHAOS_OPS, 1,000 by default). The table
folds small fragments often, so kills also land inside the write path's compaction.

During the campaign no operation is refused as damaged or with exit 7, and none is an
internal error; afterwards `memory doctor` says the table is whole (exit 0) and every
acknowledged write is there: each revision with the body it wrote, each acknowledged delete
gone, each memory created and not being deleted still live. `CHAOS_SEED` replays a run.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from tests.conftest import PROJECT_ID, run_graphit

WORKER = Path(__file__).with_name("chaos_worker.py")
BUCKET = "graphit-chaos"
SEED = int(os.environ.get("CHAOS_SEED") or random.randrange(1 << 30))
OPS = int(os.environ.get("CHAOS_OPS", "1000"))
WORKERS = 3  # the machine's cores are few: more processes only wait for each other
WRITES = ("create", "update", "hot")
STALL_SECONDS = 300


class Worker:
    """One worker process; a thread collects its lines as they arrive."""

    def __init__(self, seed: int, hot_ids: list[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), str(seed), "100000", *hot_ids],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[dict[str, Any]] = []
        self.said = ""  # its stderr's end, once it ended
        self.done = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if raw.endswith("\n"):  # a line cut by the kill was never fully reported
                self.lines.append(json.loads(raw))
        self.done.set()

    def kill(self) -> list[dict[str, Any]]:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=120)
        self.done.wait(timeout=120)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        if not self.proc.stderr.closed:  # read to the end (it ended) and closed, as stdout
            self.said = self.proc.stderr.read()[-2000:]
            self.proc.stderr.close()
            self.proc.stdout.close()
        return self.lines

    def stderr(self) -> str:
        return self.said


def make_hot_ids() -> list[str]:
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID))
    return [
        service.upsert(MemoryDraft(title=f"hot {n}", body=f"hot key {n}")).memory.id
        for n in range(2)
    ]


def campaign(rng: random.Random) -> list[dict[str, Any]]:
    """Run the workers until OPS operations were reported; every line any of them printed."""
    hot_ids = make_hot_ids()
    lines: list[dict[str, Any]] = []
    live: list[tuple[Worker, int]] = []  # each with the line count at which it is killed
    kills = 0
    seen, quiet_since = 0, time.monotonic()
    while True:
        running = sum(len(w.lines) for w, _ in live)
        if len(lines) + running >= OPS:
            break
        while len(live) < WORKERS:
            live.append((Worker(rng.randrange(1 << 30), hot_ids), rng.randint(3, 60)))
        for worker, kill_at in list(live):
            if worker.done.is_set():  # it stopped by itself: an internal error, or exhausted
                lines += worker.kill()
                live.remove((worker, kill_at))
                if worker.proc.returncode != 0:
                    errors = [line for line in worker.lines if "code" in line]
                    pytest.fail(f"worker failed: {errors[-1:]} {worker.stderr()}")
            elif len(worker.lines) >= kill_at:
                lines += worker.kill()
                kills += 1
                live.remove((worker, kill_at))
        # A deadline, not a timing assumption: workers reporting nothing for minutes are stuck.
        now = len(lines) + sum(len(w.lines) for w, _ in live)
        if now != seen:
            seen, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since > STALL_SECONDS:
            pytest.fail(f"no operation reported for {STALL_SECONDS} s")
        live[0][0].done.wait(0.05)  # a poll: wakes early when the first worker ends
    for worker, _ in live:
        lines += worker.kill()
        kills += 1
    print(f"\nchaos: {len(lines)} operations, {kills} kills, seed {SEED}")
    return lines


def check(lines: list[dict[str, Any]], project_dir: Path) -> dict[str, int]:
    from graphit_cli.opening import open_service

    refused = [line for line in lines if "code" in line]
    damage = [r for r in refused if r["code"] == 7 or "damaged" in r["error"]]
    internal = [r for r in refused if r["code"] == 1]
    assert not damage, f"{len(damage)} operations reported damage: {damage[:3]}"
    assert not internal, f"{len(internal)} internal errors: {internal[:3]}"
    # Contention that outlasted the writer's retries is said in words (exit 5); nothing else.
    assert {r["code"] for r in refused} <= {5}, refused[:3]

    doctor = run_graphit("memory", "doctor", cwd=project_dir)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "damaged" not in doctor.stdout + doctor.stderr

    writes = [line for line in lines if line["op"] in WRITES and "code" not in line]
    deleting = {line["id"] for line in lines if line["op"] == "deleting"}
    deleted = {line["id"] for line in lines if line["op"] == "deleted"}
    service = open_service(Scope("project", PROJECT_ID))
    store = service.store
    with store.snapshot():
        live = {m.id for m in store.live()}
        chains = {i: store.chain(i) for i in {w["id"] for w in writes}}
    for write in writes:
        bodies = {m.revision: m.body for m in chains[write["id"]]}
        assert bodies.get(write["revision"]) == write["body"], f"lost write {write}"
    created = {w["id"] for w in writes if w["op"] == "create"}
    assert not (live & deleted), f"deleted memories back: {sorted(live & deleted)[:3]}"
    missing = created - deleting - live
    assert not missing, f"acknowledged memories gone: {sorted(missing)[:3]}"
    return {"operations": len(lines), "writes": len(writes), "refused": len(refused)}


@pytest.fixture
def local(project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIT_PROJECT_ID", PROJECT_ID)
    monkeypatch.setenv("GRAPHIT_NO_DAEMON", "1")
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder")
    monkeypatch.setenv("GRAPHIT_FOLD_THRESHOLD", "4")


@pytest.fixture
def on_s3(local: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")
    from tests.s3_harness import MotoServer, use_moto

    server = MotoServer()
    try:
        server.client("s3").create_bucket(Bucket=BUCKET)
        use_moto(monkeypatch, server.endpoint, BUCKET, f"c-{uuid.uuid4().hex[:12]}", tmp_path)
        yield
    finally:
        server.stop()


@pytest.mark.slow
def test_mixed_operations_with_kills_local(local: None, project_dir: Path) -> None:
    figures = check(campaign(random.Random(SEED)), project_dir)
    print(f"chaos local: {figures}")


@pytest.mark.slow
def test_mixed_operations_with_kills_s3(on_s3: None, project_dir: Path) -> None:
    figures = check(campaign(random.Random(SEED)), project_dir)
    print(f"chaos s3: {figures}")
