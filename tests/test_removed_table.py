"""A table removed while a process works on it stays removed: no commit of a
handle opened before the removal (the daemon's maintenance pass, its embedding pass, a write)
brings any part of the directory back, and the daemon lets the scope go at once.

Deterministic: the directory is removed between the maintenance pass's rewrite and its commit
(store/engine.py BEFORE_COMMIT), the moment a `rm -rf` raced the pass in the probe: there,
lance's commit wrote a new manifest into the removed directory and the table "existed" again."""

from __future__ import annotations

import shutil
import threading
from io import StringIO
from pathlib import Path

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.daemon.process import Daemon
from graphit_cli.daemon.scopes import present
from graphit_cli.daemon.supervisor import DaemonSettings, EventLog
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from graphit_cli.store import engine, open_store
from graphit_cli.store.paths import local_table_exists
from tests.embedders import HashingEmbedder
from tests.polling import wait_for

TEAM = Scope("context", "team")


def _filled(rows: int = 5) -> Path:
    open_service(TEAM).upsert_many(
        [MemoryDraft(title=f"t{n}", body="team note") for n in range(rows)]
    )
    return TEAM.local_path()


def _with_work_for_the_pass() -> Path:
    """Rows folded by a first pass, then single writes: the next pass compacts the fragments
    the indexes do not cover, then merges them with the indexed one (a compaction commit)."""
    path = _filled(6)
    first = open_service(TEAM)
    svc = MemoryService(first.store, TEAM, embedder=HashingEmbedder)
    svc.embed()  # nothing left for a daemon's embedding loop: its maintenance is what runs
    svc.maintain(force=True)
    for n in range(6):
        svc.upsert(MemoryDraft(title=f"later {n}", body="written after the pass"))
    svc.embed()
    assert svc.store.count("embedding IS NULL") == 0
    return path


def _kept() -> MemoryService:
    """The scope as the daemon holds it: a handle kept on LanceDB's table, opened once."""
    store = open_store(str(TEAM.local_path()), create=False, keep=True)
    return MemoryService(store, TEAM, embedder=HashingEmbedder)


def test_a_maintenance_commit_never_recreates_a_removed_table(project_dir: Path) -> None:
    path = _with_work_for_the_pass()
    svc = _kept()
    removed: list[Path] = []

    def remove() -> None:
        shutil.rmtree(path)
        removed.append(path)

    engine.BEFORE_COMMIT.append(remove)
    try:
        with pytest.raises(Exception):  # noqa: B017 - the commit fails; what is left matters
            svc.maintain(force=True)
    finally:
        engine.BEFORE_COMMIT.remove(remove)
    assert removed == [path]  # the pass reached its commit
    assert not path.exists()
    assert not present(str(TEAM))


@pytest.mark.parametrize("how", ["upsert", "embed", "fold"])
def test_no_commit_of_an_open_handle_recreates_a_removed_table(project_dir: Path, how: str) -> None:
    """The pinned directory, without the pass's own check: each commit after the removal
    fails, and leaves no directory behind."""
    path = _filled()
    svc = _kept()
    assert svc.store.count() == 5
    shutil.rmtree(path)
    with pytest.raises(Exception):  # noqa: B017 - any failure; what matters is what is left
        if how == "upsert":
            svc.upsert(MemoryDraft(title="late", body="written after the removal"))
        elif how == "embed":
            svc.embed()
        else:
            svc.store.compact_small_fragments()
    assert not path.exists()
    assert not local_table_exists(str(path))


def test_the_daemon_lets_a_table_removed_mid_pass_go(
    project_dir: Path, graphit_home: Path, tmp_path: Path
) -> None:
    log = StringIO()
    daemon = Daemon(
        DaemonSettings(0.05, 0.05, backoff_max=0.05),
        embedder=HashingEmbedder,
        log=EventLog(log),
        socket_path=tmp_path / "d.sock",
    )
    path = _with_work_for_the_pass()  # used after the daemon's start time: an active scope
    removed = threading.Event()

    def remove() -> None:
        if not removed.is_set():
            shutil.rmtree(path)
            removed.set()

    engine.BEFORE_COMMIT.append(remove)
    daemon.start()
    try:
        wait_for(removed.is_set, seen=log.getvalue)
        daemon.follow()
        assert str(TEAM) not in {x["scope"] for x in daemon.supervisor.snapshot()}
        assert "scope.dropped" in log.getvalue()
        for _ in range(20):  # many loop intervals: nothing may bring the directory back
            daemon.stop.wait(0.05)
            assert not path.exists()
        assert ".rs:" not in log.getvalue() and "/proc/" not in log.getvalue()
    finally:
        engine.BEFORE_COMMIT.remove(remove)
        daemon.shutdown()
    assert not path.exists()
