"""A `memory redact` killed (SIGKILL) at a random point is finished by running it again: the
table's files no longer hold the value, `scan` is clean, and until then `scan` says so. Ten
kill points drawn over the time a whole redaction takes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphit_cli.core.models import MemoryDraft
from tests.conftest import run_graphit

GHP = "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"  # fake, real-format
AWS = "AKIAZ3MHALDLTPRWQV7K"


def _holding(root: Path) -> list[str]:
    needles = [v.encode() for v in (GHP, AWS)] + [v.lower().encode() for v in (GHP, AWS)]
    return [
        str(p)
        for p in root.rglob("*")
        if p.is_file() and "redactions" not in p.parts and any(n in p.read_bytes() for n in needles)
    ]


def _seed(service) -> str:
    allowed = service.writing(secrets="allow")
    memory = allowed.upsert(MemoryDraft(title="Keys", body=f"aws {AWS}")).memory
    allowed.upsert(MemoryDraft(id=memory.id, body=f"aws {AWS}\nand token {GHP}"))
    service.upsert_many([MemoryDraft(title=f"n{i}", body=f"plain note {i}") for i in range(30)])
    service.store.optimize()
    return memory.id


def _redact(memory_id: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "redact", memory_id, "--yes"],
        cwd=cwd,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.mark.slow
def test_a_killed_redact_is_finished_by_running_it_again(
    project_dir: Path, graphit_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service
    from tests.conftest import PROJECT_ID

    rng = random.Random(47)
    durations = []
    finished = interrupted = 0
    for trial in range(11):
        home = tmp_path / f"home{trial}"
        monkeypatch.setenv("GRAPHIT_HOME", str(home))
        service = open_service(Scope("project", PROJECT_ID))
        memory_id = _seed(service)
        assert _holding(home)
        started = time.monotonic()
        process = _redact(memory_id, project_dir)
        if trial == 0:  # a whole redaction: how long the kill points may range over
            _, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
            durations.append(time.monotonic() - started)
            assert _holding(home) == []
            continue
        time.sleep(rng.uniform(0.3, 1.0) * durations[0])
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=30)  # its pipes closed
        journal = home / "state" / "redactions"
        if journal.is_dir() and list(journal.glob("*.json")):
            interrupted += 1
            scan = run_graphit("memory", "scan", cwd=project_dir)
            assert scan.returncode == 11
            assert "interrupted redaction" in scan.stdout
        again = run_graphit("memory", "redact", memory_id, "--yes", cwd=project_dir)
        assert again.returncode == 0, again.stderr
        held = _holding(home)
        assert held == [], (trial, held)
        assert run_graphit("memory", "scan", cwd=project_dir).returncode == 0
        finished += 1
    assert finished == 10
    print(f"10 of 10 finished; {interrupted} kills landed inside the journaled redaction")
