"""Concurrent writers on one scope's table (the design notes' "The revision chain", the LanceDB
notes' "Concurrency").

The first tests start real OS processes (`python -c WRITER`) that open the same project table,
wait at a file barrier and then write at the same time: different keys, one hot key, and the
same new ids, and an updater against a deleter. The last tests replay, deterministically and
in one process, interleavings that real processes hit only by chance: a second (or third)
handle commits between the first writer's read of the chain heads and its merge, or between
its merge and its check of what landed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from ulid import ULID

from graphit_cli.core.models import Memory, MemoryDraft, WriteAction
from graphit_cli.errors import Conflict, NotFound

# One writer process. Parameters come through the environment (GRAPHIT_HOME and
# GRAPHIT_PROJECT_ID select the table, like for the real CLI); it prints one JSON line.
WRITER = r"""
import json, os, sys, time
from pathlib import Path

from graphit_cli.core.models import MemoryDraft
from graphit_cli.access.providers import resolve_scope
from graphit_cli.service.memory import MemoryService
from graphit_cli.opening import open_service

mode = os.environ["WRITER_MODE"]
tag = os.environ["WRITER_TAG"]
count = int(os.environ.get("WRITER_COUNT", "0"))
ids = os.environ.get("WRITER_IDS", "").split()

service = open_service(resolve_scope("project"), create=False)
service.store.count()  # the first read opens the dataset: pay for it before the barrier
Path(os.environ["WRITER_READY"]).touch()
go = Path(os.environ["WRITER_GO"])
deadline = time.monotonic() + 120  # bounds a hang only
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("no start signal")
    time.sleep(0.001)

results = []


def first_write_done():
    # After its first write, each writer waits for every other's first write: their busy
    # periods overlap by construction, not by luck of the scheduler.
    if len(results) != 1:
        return
    Path(os.environ["WRITER_FIRST"]).touch()
    peers = [Path(p) for p in os.environ["WRITER_PEERS"].split()]
    deadline = time.monotonic() + 120
    while not all(p.exists() for p in peers):
        if time.monotonic() > deadline:
            sys.exit("a peer never wrote")
        time.sleep(0.001)


started = time.time()
if mode == "create":
    for i in range(count):
        r = service.upsert(MemoryDraft(title=f"{tag} note {i}", body=f"{tag} body {i}"))
        results.append({"id": r.memory.id, "action": str(r.action), "title": r.memory.title})
        first_write_done()
elif mode == "update":
    (memory_id,) = ids
    for i in range(count):
        body = f"{tag} update {i}"
        r = service.upsert(MemoryDraft(id=memory_id, body=body))
        results.append({"body": body, "action": str(r.action), "revision": r.memory.revision})
        first_write_done()
elif mode == "create_same":
    for i, memory_id in enumerate(ids):
        # even ids: both writers send the same content; odd ids: each its own body
        body = f"shared body {i}" if i % 2 == 0 else f"{tag} body {i}"
        r = service.upsert(MemoryDraft(id=memory_id, title=f"shared {i}", body=body))
        results.append({"id": memory_id, "body": body, "action": str(r.action),
                        "revision": r.memory.revision})
        first_write_done()
elif mode == "churn":
    # delete the memory and write it back, again and again
    from graphit_cli.errors import NotFound
    (memory_id,) = ids
    for i in range(count):
        try:
            r = service.delete(memory_id)
            results.append({"action": str(r.action), "revision": r.memory.revision})
            first_write_done()
        except NotFound:  # the other writer may not have written it back yet
            pass
        body = f"{tag} revive {i}"
        r = service.upsert(MemoryDraft(id=memory_id, body=body))
        results.append({"body": body, "action": str(r.action), "revision": r.memory.revision})
        first_write_done()
else:
    sys.exit(f"unknown mode {mode}")
print(json.dumps({"results": results, "started": started, "finished": time.time()}))
"""

TIMEOUT = 120


def run_writers(workdir: Path, project_id: str, jobs: list[dict[str, str]]) -> list[dict]:
    """Start one process per job, release them together, and return their JSON reports."""
    go = workdir / "go"
    procs = []
    for n, job in enumerate(jobs):
        env = {
            **os.environ,
            "GRAPHIT_PROJECT_ID": project_id,
            "GRAPHIT_AUTHOR": f"writer-{n}",
            "WRITER_READY": str(workdir / f"ready-{n}"),
            "WRITER_GO": str(go),
            "WRITER_FIRST": str(workdir / f"first-{n}"),
            "WRITER_PEERS": " ".join(str(workdir / f"first-{m}") for m in range(len(jobs))),
            **job,
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WRITER],
                cwd=workdir,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        deadline = time.monotonic() + 120
        while not all((workdir / f"ready-{n}").exists() for n in range(len(jobs))):
            for proc in procs:
                if proc.poll() is not None:
                    _, err = proc.communicate()
                    pytest.fail(f"writer exited before the barrier ({proc.returncode}): {err}")
            assert time.monotonic() < deadline, "writers never became ready"
            time.sleep(0.01)
        go.touch()
        reports = []
        for proc in procs:
            out, err = proc.communicate(timeout=TIMEOUT)
            assert proc.returncode == 0, f"writer failed ({proc.returncode}):\n{err}"
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # The barriers worked: the writers' busy periods overlap.
    assert max(r["started"] for r in reports) < min(r["finished"] for r in reports)
    return reports


def assert_chain_intact(chain: list[Memory], memory_id: str, *, live: bool) -> None:
    """Contiguous revisions 1..N, archive columns, one live row (or none), links both ways."""
    assert [m.revision for m in chain] == list(range(1, len(chain) + 1)), [
        (m.revision, m.key) for m in chain
    ]
    assert len({m.key for m in chain}) == len(chain), "duplicate keys"
    live_rows = [m for m in chain if m.revision_id == ""]
    assert len(live_rows) == (1 if live else 0), "live rows"
    archived = chain[:-1] if live else chain
    for row in archived:
        assert row.revision_id and row.superseded and row.key == f"{memory_id}/{row.revision_id}"
    if live:
        head = chain[-1]
        assert (head.key, head.superseded, head.next) == (memory_id, False, None)
    assert chain[0].previous is None
    for older, newer in pairwise(chain):
        assert older.next == newer.key, f"revision {older.revision}: next"
        assert newer.previous == older.key, f"revision {newer.revision}: previous"
    if archived:
        assert archived[-1].next == (memory_id if live else None)
    by_key = {m.key: m for m in chain}
    walked, key = [], chain[0].key
    while key is not None and len(walked) <= len(chain):
        walked.append(key)
        key = by_key[key].next
    assert walked == [m.key for m in chain], "next links"
    walked, key = [], chain[-1].key
    while key is not None and len(walked) <= len(chain):
        walked.append(key)
        key = by_key[key].previous
    assert walked == [m.key for m in reversed(chain)], "previous links"


# --- real processes -----------------------------------------------------------------------


@pytest.mark.slow
def test_two_processes_creating_different_keys_lose_nothing(service, tmp_path: Path) -> None:
    reports = run_writers(
        tmp_path,
        service.scope.id,
        [
            {"WRITER_MODE": "create", "WRITER_TAG": "alpha", "WRITER_COUNT": "40"},
            {"WRITER_MODE": "create", "WRITER_TAG": "beta", "WRITER_COUNT": "40"},
        ],
    )
    written = [r for report in reports for r in report["results"]]
    assert len(written) == 80
    assert {r["action"] for r in written} == {"created"}
    ids = [r["id"] for r in written]
    assert len(set(ids)) == 80

    live = service.store.live()
    assert Counter(m.id for m in live) == Counter(ids), "each memory present exactly once"
    assert Counter(m.title for m in live) == Counter(r["title"] for r in written)
    assert all((m.revision, m.previous, m.next) == (1, None, None) for m in live)
    assert service.store.count() == 80, "no archive or duplicate rows"


@pytest.mark.slow  # two processes, 50 updates; the same-ids race below stays
def test_two_processes_updating_one_key_keep_a_contiguous_chain(service, tmp_path: Path) -> None:
    memory_id = service.upsert(MemoryDraft(title="hot key", body="initial")).memory.id
    reports = run_writers(
        tmp_path,
        service.scope.id,
        [
            {"WRITER_MODE": "update", "WRITER_TAG": "alpha", "WRITER_COUNT": "25",
             "WRITER_IDS": memory_id},
            {"WRITER_MODE": "update", "WRITER_TAG": "beta", "WRITER_COUNT": "25",
             "WRITER_IDS": memory_id},
        ],
    )  # fmt: skip
    written = [r for report in reports for r in report["results"]]
    assert {r["action"] for r in written} == {"updated"}

    chain = service.store.chain(memory_id)
    assert len(chain) == 51
    assert_chain_intact(chain, memory_id, live=True)
    assert chain[-1].revision == 51 and chain[-1].key == memory_id
    assert all(m.superseded and m.revision_id for m in chain[:50])
    assert service.store.count() == 51, "no orphan archives, no duplicate live row"

    # No lost update: every body written is one revision, and the one its writer was told.
    bodies = Counter(m.body for m in chain)
    assert bodies == Counter(["initial", *(r["body"] for r in written)])
    assert sorted(r["revision"] for r in written) == list(range(2, 52))
    for r in written:
        assert chain[r["revision"] - 1].body == r["body"]
    for report in reports:  # each writer's own updates land in the order it made them
        revisions = [r["revision"] for r in report["results"]]
        assert revisions == sorted(revisions)


def test_two_processes_creating_the_same_ids_leave_one_live_row(service, tmp_path: Path) -> None:
    ids = [str(ULID()) for _ in range(12)]
    reports = run_writers(
        tmp_path,
        service.scope.id,
        [
            {"WRITER_MODE": "create_same", "WRITER_TAG": "alpha", "WRITER_IDS": " ".join(ids)},
            {"WRITER_MODE": "create_same", "WRITER_TAG": "beta", "WRITER_IDS": " ".join(ids)},
        ],
    )
    by_id: dict[str, list[dict]] = {i: [] for i in ids}
    for report in reports:
        for r in report["results"]:
            by_id[r["id"]].append(r)

    total = 0
    for index, memory_id in enumerate(ids):
        chain = service.store.chain(memory_id)
        total += len(chain)
        assert_chain_intact(chain, memory_id, live=True)
        outcomes = by_id[memory_id]
        actions = Counter(r["action"] for r in outcomes)
        if index % 2 == 0:
            # Same content from both writers: one memory, one revision.
            assert len(chain) == 1
            assert chain[0].body == f"shared body {index}"
            assert actions["created"] >= 1 and actions["updated"] == 0, actions
        else:
            # Different bodies: one creates, the other's write becomes revision 2; none lost.
            assert len(chain) == 2
            assert actions == Counter({"created": 1, "updated": 1}), actions
            assert Counter(m.body for m in chain) == Counter(r["body"] for r in outcomes)
            for r in outcomes:
                assert chain[r["revision"] - 1].body == r["body"]
    assert service.store.count() == total
    assert sorted(m.id for m in service.store.live()) == sorted(ids)


@pytest.mark.slow
def test_an_updater_and_a_deleter_on_one_key_keep_the_chain(service, tmp_path: Path) -> None:
    """One process updates a key while another deletes it and writes it back, over and over.

    Whatever the interleaving, the chain must stay one contiguous, linked history holding every
    write that was reported done. (This race is timing-dependent; the deterministic tests
    below replay the interleavings that break it.)"""
    memory_id = service.upsert(MemoryDraft(title="churned key", body="initial")).memory.id
    reports = run_writers(
        tmp_path,
        service.scope.id,
        [
            {"WRITER_MODE": "update", "WRITER_TAG": "alpha", "WRITER_COUNT": "40",
             "WRITER_IDS": memory_id},
            {"WRITER_MODE": "churn", "WRITER_TAG": "beta", "WRITER_COUNT": "20",
             "WRITER_IDS": memory_id},
        ],
    )  # fmt: skip
    chain = service.store.chain(memory_id)
    assert_chain_intact(chain, memory_id, live=chain[-1].revision_id == "")
    assert service.store.count() == len(chain)
    written = [r for report in reports for r in report["results"]]
    writes = [r for r in written if r["action"] == "updated"]
    deletes = [r for r in written if r["action"] == "deleted"]
    # every write made exactly one revision, the one its writer was told (deletes make none)
    assert len(chain) == 1 + len(writes)
    assert sorted(r["revision"] for r in writes) == list(range(2, len(chain) + 1))
    for r in writes:
        assert chain[r["revision"] - 1].body == r["body"]
    for r in deletes:  # a deleted revision is followed by a write-back, or is the end
        row = chain[r["revision"] - 1]
        assert row.revision == len(chain) or chain[row.revision].previous == row.key


# --- deterministic interleavings (two handles, one process) -------------------------------


def commit_between_read_and_merge(service, meanwhile: Callable[[], object]) -> Callable[[], None]:
    """Make `meanwhile` (another writer's commits) run right after the service's next read of
    the chain heads, before it merges what it planned from that read. Returns an undo."""
    real = service.store.heads
    state = {"fired": False}

    def heads(*args, **kwargs):
        found = real(*args, **kwargs)
        if not state["fired"]:
            state["fired"] = True
            meanwhile()
        return found

    service.store.heads = heads
    return lambda: setattr(service.store, "heads", real)


@pytest.fixture
def other(service):
    """A second, independent handle on the same table (another writer)."""
    from graphit_cli.opening import open_service

    return open_service(service.scope)


def assert_write_kept(service, memory_id: str, body: str, result) -> None:
    chain = service.store.chain(memory_id)
    live = chain[-1].revision_id == "" if chain else False
    assert_chain_intact(chain, memory_id, live=live)
    if result is not None:  # reported written: it is the live revision
        assert live and chain[-1].body == body and result.memory.revision == chain[-1].revision


def test_create_racing_a_create_and_delete_keeps_the_chain(service, other) -> None:
    memory_id = str(ULID())
    undo = commit_between_read_and_merge(
        service,
        lambda: (
            other.upsert(MemoryDraft(id=memory_id, title="t", body="theirs")),
            other.delete(memory_id),
        ),
    )
    try:
        result = service.upsert(MemoryDraft(id=memory_id, title="t", body="mine"))
    except Conflict:
        result = None
    finally:
        undo()
    assert_write_kept(service, memory_id, "mine", result)


def test_update_racing_an_update_and_delete_keeps_the_chain(service, other) -> None:
    memory_id = service.upsert(MemoryDraft(title="t", body="v1")).memory.id
    undo = commit_between_read_and_merge(
        service,
        lambda: (
            other.upsert(MemoryDraft(id=memory_id, body="v2 theirs")),
            other.delete(memory_id),
        ),
    )
    try:
        result = service.upsert(MemoryDraft(id=memory_id, body="v2 mine"))
    except Conflict:
        result = None
    finally:
        undo()
    assert_write_kept(service, memory_id, "v2 mine", result)


def test_two_creates_of_one_new_id_leave_one_live_row(service, other) -> None:
    """Another handle creates the same new id between our read and our merge: the insert must
    not land twice. (A create's merge scans keys; through the key index it would not see the
    racing row and both inserts would commit.)"""
    service.upsert_many([MemoryDraft(title=f"t{i}", body=f"b{i}") for i in range(20)])
    service.store.optimize()  # the key index covers the table, as after maintenance
    memory_id = str(ULID())
    undo = commit_between_read_and_merge(
        service, lambda: other.upsert(MemoryDraft(id=memory_id, title="t", body="theirs"))
    )
    try:
        result = service.upsert(MemoryDraft(id=memory_id, title="t", body="mine"))
    finally:
        undo()
    chain = service.store.chain(memory_id)
    assert_chain_intact(chain, memory_id, live=True)
    assert [m.body for m in chain] == ["theirs", "mine"]
    assert result.memory.revision == 2


def test_two_updates_of_one_revision_keep_one_chain(service, other) -> None:
    """Both handles update revision 2 (their merges find keys through the key index): one
    wins, the other re-plans on top of it; no duplicate archive, no second live row."""
    memory_id = service.upsert(MemoryDraft(title="t", body="v1")).memory.id
    service.upsert(MemoryDraft(id=memory_id, body="v2"))
    service.store.optimize()  # the key index covers the chain, as after maintenance
    undo = commit_between_read_and_merge(
        service, lambda: other.upsert(MemoryDraft(id=memory_id, body="v3 theirs"))
    )
    try:
        result = service.upsert(MemoryDraft(id=memory_id, body="v3 mine"))
    finally:
        undo()
    chain = service.store.chain(memory_id)
    assert_chain_intact(chain, memory_id, live=True)
    assert [m.body for m in chain] == ["v1", "v2", "v3 theirs", "v3 mine"]
    assert result.memory.revision == 4


def test_delete_losing_to_an_update_does_not_touch_the_chain(service, other) -> None:
    """A delete that lost the compare-and-swap must leave the table as the winner wrote it:
    other readers see the chain between the delete's attempts."""
    memory_id = service.upsert(MemoryDraft(title="t", body="v1")).memory.id
    service.upsert(MemoryDraft(id=memory_id, body="v2"))
    seen: list[list[Memory]] = []
    real = service.store.heads

    def heads(*args, **kwargs):
        seen.append(other.store.chain(memory_id))  # what a reader sees before each attempt
        found = real(*args, **kwargs)
        if len(seen) == 1:
            other.upsert(MemoryDraft(id=memory_id, body="v3 theirs"))
        return found

    service.store.heads = heads
    try:
        result = service.delete(memory_id)
    finally:
        service.store.heads = real
    assert result.action is WriteAction.DELETED
    assert len(seen) >= 2
    assert_chain_intact(seen[1], memory_id, live=True)  # after the lost attempt
    final = service.store.chain(memory_id)
    assert_chain_intact(final, memory_id, live=False)
    assert [m.body for m in final] == ["v1", "v2", "v3 theirs"]


@pytest.fixture
def third(service):
    """A third handle on the same table."""
    from graphit_cli.opening import open_service

    return open_service(service.scope)


def test_write_landing_while_a_raced_insert_is_repaired_keeps_the_chain(
    service, other, third
) -> None:
    """A stale update inserts its live row into a chain a racing delete has just closed; before
    it can notice and take the row back, a third writer updates the memory."""
    memory_id = service.upsert(MemoryDraft(title="t", body="v1")).memory.id
    service.upsert(MemoryDraft(id=memory_id, body="v2"))
    undo = commit_between_read_and_merge(
        service,
        lambda: (
            other.upsert(MemoryDraft(id=memory_id, body="v3 theirs")),
            other.delete(memory_id),
        ),
    )
    real_merge = service.store.merge
    merged: list[object] = []
    third_result: list[object] = []

    def merge(*args, **kwargs):
        counts = real_merge(*args, **kwargs)
        merged.append(counts)
        if len(merged) == 1:  # right after the first commit, before any check or repair
            third_result.append(third.upsert(MemoryDraft(id=memory_id, body="v4 third")))
        return counts

    service.store.merge = merge
    try:
        result = service.upsert(MemoryDraft(id=memory_id, body="v3 mine"))
    except Conflict:
        result = None
    finally:
        service.store.merge = real_merge
        undo()
    assert_write_kept(service, memory_id, "v3 mine", result)
    chain = service.store.chain(memory_id)
    # the third writer was told its update landed: it is in the history, once
    assert [m.body for m in chain].count("v4 third") == 1
    assert service.store.count() == len(chain)


def test_failure_while_repairing_a_raced_insert_leaves_no_broken_chain(service, other) -> None:
    """Storage fails (or the process is interrupted) after a stale update's insert landed in a
    chain a racing delete had closed: the write fails, and nothing half-written is visible.

    The stray live row (a phantom) can stay in storage, but every read ignores it, and the next
    write to the id removes it before continuing the chain."""
    from graphit_cli.errors import StorageUnavailable

    memory_id = service.upsert(MemoryDraft(title="t", body="v1")).memory.id
    service.upsert(MemoryDraft(id=memory_id, body="v2"))
    undo = commit_between_read_and_merge(
        service,
        lambda: (
            other.upsert(MemoryDraft(id=memory_id, body="v3 theirs")),
            other.delete(memory_id),
        ),
    )
    real_merge = service.store.merge
    state = {"merged": 0}

    def merge(*args, **kwargs):
        state["merged"] += 1
        if state["merged"] > 1:
            raise StorageUnavailable("write failed: connection lost")
        return real_merge(*args, **kwargs)

    def broken(*args, **kwargs):
        raise StorageUnavailable("write failed: connection lost")

    service.store.merge = merge
    real_remove = service.store.remove_exact
    service.store.remove_exact = broken
    try:
        with pytest.raises(StorageUnavailable):
            service.upsert(MemoryDraft(id=memory_id, body="v3 mine"))
    finally:
        service.store.merge = real_merge
        service.store.remove_exact = real_remove
        undo()
    history = service.history(memory_id)
    assert_chain_intact(history, memory_id, live=False)
    with pytest.raises(NotFound, match="was deleted"):
        service.source(memory_id)
    assert memory_id not in {m.id for m in service.catalogue()}
    hits = service.search("v3", mode="fts").hits
    assert all(h.deleted for h in hits if h.memory.id == memory_id)
    # The next write removes the phantom and continues the chain.
    service.upsert(MemoryDraft(id=memory_id, body="v4 after repair"))
    chain = service.store.chain(memory_id)
    assert_chain_intact(chain, memory_id, live=True)
    assert chain[-1].body == "v4 after repair"


def test_a_write_superseded_before_its_check_is_not_written_twice(service, other, third) -> None:
    """Found by the soak (tests/test_reliability.py): an update's commit lands on top of
    another writer's unrelated commit (so it is not a clean compare-and-swap), and a third
    writer updates the same memory before the first checks what landed. The first write did
    land, as revision 2: it must be reported so, not applied a second time."""
    memory_id = service.upsert(MemoryDraft(title="t", body="v1")).memory.id
    undo = commit_between_read_and_merge(
        service, lambda: other.upsert(MemoryDraft(title="unrelated", body="another memory"))
    )
    real_merge = service.store.merge

    def merge(*args, **kwargs):
        counts = real_merge(*args, **kwargs)
        if not getattr(merge, "fired", False):
            merge.fired = True
            third.upsert(MemoryDraft(id=memory_id, body="v3 third"))
        return counts

    service.store.merge = merge
    try:
        result = service.upsert(MemoryDraft(id=memory_id, body="v2 mine"))
    finally:
        service.store.merge = real_merge
        undo()
    chain = service.store.chain(memory_id)
    assert_chain_intact(chain, memory_id, live=True)
    assert [m.body for m in chain] == ["v1", "v2 mine", "v3 third"]
    assert (result.action, result.memory.revision) == (WriteAction.UPDATED, 2)
