"""Machine-local state: the scope-reference lock, run state, atomic JSON, logging."""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphit_cli.access import runstate, scopes, statefile
from graphit_cli.access.scopes import Scope
from tests.conftest import PROJECT_ID


def _set_last_used(memory_root: Path, ref: str, moment: datetime) -> None:
    path = memory_root / "scopes.lock"
    data = json.loads(path.read_text())
    data["scopes"][ref]["last_used"] = moment.isoformat(timespec="seconds")
    path.write_text(json.dumps(data))


def _last_used(memory_root: Path, ref: str) -> datetime:
    data = json.loads((memory_root / "scopes.lock").read_text())
    return datetime.fromisoformat(data["scopes"][ref]["last_used"])


def test_last_used_moves_when_a_scope_is_used(cli, graphit_home: Path) -> None:
    ref = f"project:{PROJECT_ID}"
    cli("memory", "upsert", "--title", "T", "--body", "b")
    earlier = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    _set_last_used(graphit_home / "memory", ref, earlier)
    assert cli("memory", "list", "-f", "json").exit_code == 0
    assert _last_used(graphit_home / "memory", ref) > earlier
    shown = cli("memory", "scopes", "-f", "json").json()
    assert shown[0]["last_used"] != earlier.isoformat()


def test_scope_lock_write_failure_leaves_no_temp_file(
    graphit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scopes.record_scope_use(Scope("context", "a"), "/tmp/a")
    before = (graphit_home / "memory" / "scopes.lock").read_text()

    def full_disk(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        scopes.record_scope_use(Scope("context", "b"), "/tmp/b")
    monkeypatch.undo()
    left = sorted(p.name for p in (graphit_home / "memory").iterdir())
    assert left == ["scopes.lock", "scopes.lock.guard"]  # no .tmp left behind
    assert (graphit_home / "memory" / "scopes.lock").read_text() == before


def test_run_state_updates_from_many_threads_are_never_lost() -> None:
    """Daemon threads record passes at once: every update survives, every forget applies."""
    batches = [[f"context:t{n}-{i}" for i in range(15)] for n in range(6)]

    def work(mine: list[str]) -> None:
        for name in mine:
            runstate.record_pass(name)
        for name in mine[::3]:
            runstate.forget_pass(name)

    threads = [threading.Thread(target=work, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [name for batch in batches for name in batch]
    kept = {name for name in everything if runstate.seconds_since_pass(name) is not None}
    assert kept == {name for batch in batches for name in batch if name not in batch[::3]}


def test_run_state_readers_never_see_half_a_file(graphit_home: Path) -> None:
    path = graphit_home / "memory" / "maintenance.json"
    for n in range(50):
        runstate.record_pass(f"context:seed{n}")
    stop = threading.Event()
    bad: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            try:
                json.loads(path.read_text())
            except ValueError as exc:
                bad.append(str(exc))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(100):
            runstate.record_pass("context:x")
            runstate.forget_pass("context:x")
    finally:
        stop.set()
        thread.join()
    assert bad == []


def test_atomic_json_writer_cleans_up_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "state" / "x.json"
    statefile.write_json(target, {"a": 1}, mode=0o600)
    assert json.loads(target.read_text()) == {"a": 1}
    assert target.stat().st_mode & 0o777 == 0o600
    with pytest.raises(TypeError):
        statefile.write_json(target, {"a": object()})  # not serialisable: nothing written
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


def test_recent_scopes_window_and_used_since(graphit_home: Path) -> None:
    now = datetime.now(UTC)
    for name, age in (("old", 40), ("recent", 1), ("fresh", 0)):
        scopes.record_scope_use(Scope("context", name), f"/t/{name}", now=now - timedelta(days=age))
    window = timedelta(days=30)
    assert [s.id for s in scopes.recent_scopes(window, now=now)] == ["fresh", "recent"]
    assert [s.id for s in scopes.recent_scopes(timedelta(days=60), now=now)] == [
        "fresh",
        "old",
        "recent",
    ]
    since = now - timedelta(hours=1)
    assert [
        s.id for s in scopes.recent_scopes(timedelta(seconds=1), used_since=since, now=now)
    ] == ["fresh"]
