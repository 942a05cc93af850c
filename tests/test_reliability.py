"""Reliability: crash safety and a multi-process soak,
on a local table and on S3 (moto's server on 127.0.0.1).

- kill -9: a writer (tests/reliability_writer.py) prints each write once `upsert` returned and
  is killed at random points, inside writes and inside the write path's fragment compaction.
  Afterwards the table opens, every printed write is there with its content, every chain is
  contiguous and linked, and no key (so no live row) exists twice.
- soak: 4 writers at once, creates and hot-key updates mixed; nothing lost, no duplicate, and
  every chain holds exactly the writes its writers were told were done.

The default suite runs a few kills and a short soak; the `slow` tests run the full campaign
(figures in benchmarks/README.md, "The reliability campaigns"). `RELIABILITY_SEED` replays a run.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from tests.conftest import PROJECT_ID
from tests.s3_harness import moto_with_bucket
from tests.test_concurrency import assert_chain_intact

WRITER = Path(__file__).with_name("reliability_writer.py")
BUCKET = "graphit-reliability"
SEED = int(os.environ.get("RELIABILITY_SEED") or random.randrange(1 << 30))
LINE_TIMEOUT = 120.0  # seconds for one write under load (contention retries included)

# --- a writer process ---------------------------------------------------------------------


class Writer:
    """One writer subprocess; its stdout lines are collected by a thread as they arrive."""

    def __init__(self, seed: int, count: int, hot_ids: list[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WRITER), str(seed), str(count), *hot_ids],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[dict[str, Any]] = []
        self.said = ""
        self._arrived: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if raw.endswith("\n"):  # a line cut by the kill was never fully reported
                self._arrived.put(json.loads(raw))
        self._arrived.put(None)

    def wait_for(self, count: int) -> None:
        """Block until `count` writes have been reported (not a timing bound: a deadline)."""
        while len(self.lines) < count:
            try:
                line = self._arrived.get(timeout=LINE_TIMEOUT)
            except queue.Empty:
                self.kill()
                pytest.fail(f"writer reported nothing for {LINE_TIMEOUT:.0f} s")
            if line is None:
                pytest.fail(f"writer exited early ({self.proc.wait()}): {self._stderr()}")
            self.lines.append(line)

    def kill(self) -> list[dict[str, Any]]:
        """SIGKILL, then every line it printed before dying."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)
        return self._drain()

    def finish(self) -> list[dict[str, Any]]:
        code = self.proc.wait(timeout=1800)
        lines = self._drain()
        assert code == 0, f"writer failed ({code}): {self._stderr()}"
        return lines

    def _drain(self) -> list[dict[str, Any]]:
        self._reader.join(timeout=60)
        self._stderr()  # read to the end (the process ended) and closed, as stdout
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        while True:
            line = self._arrived.get_nowait() if not self._arrived.empty() else None
            if line is None:
                break
            self.lines.append(line)
        return self.lines

    def _stderr(self) -> str:
        """The end of what it said on stderr, once it ended."""
        assert self.proc.stderr is not None
        if not self.proc.stderr.closed:
            self.said = self.proc.stderr.read()[-2000:]
            self.proc.stderr.close()
        return self.said


# --- checking a table ---------------------------------------------------------------------


def open_service() -> Any:
    from graphit_cli.opening import open_service

    return open_service(Scope("project", PROJECT_ID), create=False)


def check_table(
    reported: list[dict[str, Any]], *, exact: list[str] | None = None
) -> dict[str, int]:
    """The campaign's invariants on a freshly opened handle.

    Every reported write is its chain's revision `revision`, with the title and body it wrote;
    no key twice; every chain contiguous and linked with one live row. With `exact` (no
    writer was killed; the ids created before the writers started) the table holds nothing
    else: one revision per reported write.
    """
    service = open_service()
    store = service.store
    by_id: dict[str, list[dict[str, Any]]] = {}
    with store.snapshot():  # one view of the table for the whole check
        ids = {m.id for m in store.live()} | {line["id"] for line in reported}
        for memory_id in ids:
            chain = store.chain(memory_id)
            # Two live rows (or any key twice) fail here: "duplicate keys", "live rows".
            assert_chain_intact(chain, memory_id, live=True)
            by_id[memory_id] = [
                {"key": m.key, "revision": m.revision, "title": m.title, "body": m.body}
                for m in chain
            ]
        total = store.rows()
    rows = [r for chain_rows in by_id.values() for r in chain_rows]
    assert total == len(rows), "rows outside the chains of known memories"
    for line in reported:
        chain = sorted(by_id[line["id"]], key=lambda r: int(r["revision"]))
        assert len(chain) >= line["revision"], f"lost write {line}"
        landed = chain[line["revision"] - 1]
        assert (landed["title"], landed["body"]) == (line["title"], line["body"]), line
    if exact is not None:
        # No writer was killed: each revision past a hot id's first is one reported write.
        written = Counter(line["id"] for line in reported)
        told = {(line["id"], line["revision"]) for line in reported}
        for memory_id, chain_rows in by_id.items():
            expected = written[memory_id] + (1 if memory_id in exact else 0)
            extra = [
                (r["revision"], r["body"])
                for r in chain_rows
                if (memory_id, r["revision"]) not in told and r["revision"] > 1
            ]
            assert len(chain_rows) == expected, f"{memory_id}: revisions nobody reported {extra}"
    return {"rows": len(rows), "memories": len(by_id), "reported": len(reported)}


def make_hot_ids(count: int) -> list[str]:
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID))
    return [
        service.upsert(MemoryDraft(title=f"hot {n}", body=f"hot key {n}")).memory.id
        for n in range(count)
    ]


# --- the campaigns ------------------------------------------------------------------------


def kill_campaign(kills: int, *, rng: random.Random, max_pause: float) -> dict[str, int]:
    """`kills` writer lives, each killed after a random number of reported writes plus a
    random pause (so the kill lands inside the next write, its verification or a compaction).
    The table is checked after every kill, and a last writer must then run to completion."""
    hot_ids = make_hot_ids(2)
    reported: list[dict[str, Any]] = []
    for _ in range(kills):
        writer = Writer(rng.randrange(1 << 30), 100_000, hot_ids)
        writer.wait_for(rng.randint(1, 6))
        time.sleep(rng.uniform(0, max_pause))  # where the kill lands, not a check
        reported += writer.kill()
        check_table(reported)
    survivor = Writer(rng.randrange(1 << 30), 5, hot_ids)
    reported += survivor.finish()
    figures = check_table(reported)
    # Every write adds exactly one row: rows past the reported writes are writes that
    # committed but whose writer was killed before it could print (the kill hit the window
    # between the commit and the report).
    unreported = figures["rows"] - len(reported) - len(hot_ids)
    assert unreported >= 0
    return {"kills": kills, **figures, "committed_unreported": unreported}


def soak(writers: int, writes: int, *, rng: random.Random) -> dict[str, int]:
    hot_ids = make_hot_ids(2)
    procs = [Writer(rng.randrange(1 << 30), writes, hot_ids) for _ in range(writers)]
    reported = [line for proc in procs for line in proc.finish()]
    assert len(reported) == writers * writes
    return check_table(reported, exact=hot_ids)


def record(name: str, figures: dict[str, Any]) -> None:
    """Print the campaign's figures (pytest -s shows them; benchmarks/README.md keeps them)."""
    print(f"\nreliability {name}: {json.dumps({**figures, 'seed': SEED})}")


# --- local ----------------------------------------------------------------------------------


@pytest.fixture
def local(project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIT_PROJECT_ID", PROJECT_ID)
    # Fold small fragments often, so kills also land inside the write path's compaction.
    monkeypatch.setenv("GRAPHIT_FOLD_THRESHOLD", "4")


def test_kill_during_local_writes(local: None) -> None:
    record("kill local", kill_campaign(2, rng=random.Random(SEED), max_pause=0.05))


@pytest.mark.slow
def test_kill_during_local_writes_campaign(local: None) -> None:
    record("kill local", kill_campaign(14, rng=random.Random(SEED), max_pause=0.1))


@pytest.mark.slow
def test_soak_local(local: None) -> None:
    record("soak local", soak(4, 10, rng=random.Random(SEED)))


@pytest.mark.slow
def test_soak_local_campaign(local: None) -> None:
    writes = int(os.environ.get("RELIABILITY_SOAK_WRITES", "250"))
    record("soak local", soak(4, writes, rng=random.Random(SEED)))


# --- S3 (moto) --------------------------------------------------------------------------------


moto = moto_with_bucket(BUCKET)


@pytest.fixture
def on_s3(moto: Any, local: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tests.s3_harness import use_moto

    use_moto(monkeypatch, moto.endpoint, BUCKET, f"r-{uuid.uuid4().hex[:12]}", tmp_path)


@pytest.mark.slow
def test_kill_during_s3_writes(on_s3: None) -> None:
    figures = kill_campaign(2, rng=random.Random(SEED), max_pause=0.1)
    assert open_service().store.uri.startswith("s3://")
    record("kill s3", figures)


@pytest.mark.slow
def test_kill_during_s3_writes_campaign(on_s3: None) -> None:
    record("kill s3", kill_campaign(8, rng=random.Random(SEED), max_pause=0.2))


@pytest.mark.slow
def test_soak_s3(on_s3: None) -> None:
    record("soak s3", soak(4, 6, rng=random.Random(SEED)))


@pytest.mark.slow
def test_soak_s3_campaign(on_s3: None) -> None:
    writes = int(os.environ.get("RELIABILITY_SOAK_S3_WRITES", "50"))
    record("soak s3", soak(4, writes, rng=random.Random(SEED)))


# --- freshness: the economy of reads must not cost read-your-writes -------------------------


def _fresh_reads(writer: Any, reader: Any) -> None:
    """`reader` is a long-lived handle (a daemon's, an MCP server's); `writer` another
    process's. Every use-case the reader runs after a write returned sees that write."""
    from graphit_cli.errors import NotFound

    assert reader.catalogue() == []  # the reader's handle is open and warm
    made = writer.upsert(MemoryDraft(title="fresh", body="written by another process")).memory
    assert [m.id for m in reader.catalogue()] == [made.id]
    assert reader.source(made.id).body == "written by another process"
    assert [h.memory.id for h in reader.search("another process", mode="fts").hits] == [made.id]
    writer.upsert(MemoryDraft(id=made.id, body="second revision"))
    assert reader.source(made.id).revision == 2
    assert [m.revision for m in reader.history(made.id)] == [1, 2]
    # The reader writes on top of the latest revision (not a stale one) and sees its own write.
    mine = reader.upsert(MemoryDraft(id=made.id, body="the reader's revision")).memory
    assert mine.revision == 3
    assert reader.source(made.id).body == "the reader's revision"
    assert writer.source(made.id).revision == 3
    writer.delete(made.id)
    with pytest.raises(NotFound):
        reader.source(made.id)
    assert reader.catalogue() == []
    # Inside one use-case the reads share a look; the next use-case looks again.
    store = reader.store
    with store.snapshot():
        before = store.rows()
        writer.upsert(MemoryDraft(title="during", body="a snapshot"))
        assert store.rows() == before  # one view for the whole use-case
    assert store.rows() == before + 1


def test_reads_see_other_processes_writes_local(local: None) -> None:
    from graphit_cli.opening import open_service

    writer = open_service(Scope("project", PROJECT_ID))
    _fresh_reads(writer, open_service(Scope("project", PROJECT_ID)))


def test_reads_see_other_processes_writes_s3(on_s3: None) -> None:
    from graphit_cli.opening import open_service

    writer = open_service(Scope("project", PROJECT_ID))
    _fresh_reads(writer, open_service(Scope("project", PROJECT_ID)))


def test_s3_requests_per_warm_upsert_and_search(moto: Any, on_s3: None) -> None:
    """The economy, pinned: a warm handle's upsert and full-text search on a small S3 table
    (counted by a proxy in front of moto). Before: 21 requests per upsert and 22 per search,
    mostly LISTs of `_versions/` (a consistency check before every internal read)."""
    from graphit_cli.opening import open_service
    from tests.s3_harness import Proxy

    proxy = Proxy(moto.port)
    try:
        os.environ["GRAPHIT_S3_ENDPOINT"] = proxy.endpoint  # restored by monkeypatch
        service = open_service(Scope("project", PROJECT_ID))
        drafts = [MemoryDraft(title=f"note {i}", body=f"body about topic {i}") for i in range(40)]
        service.upsert_many(drafts)
        service.store.optimize()
        service.search("topic", mode="fts")  # warm: index metadata loaded once per handle
        proxy.reset_counts()
        # On a folded table (rows written since the last fold are scanned, a few GETs each).
        service.search("topic", mode="fts")
        search = proxy.reset_counts()
        service.upsert(MemoryDraft(title="warm", body="the first write loads the schema"))
        proxy.reset_counts()
        service.upsert(MemoryDraft(title="counted", body="one more memory"))
        upsert = proxy.reset_counts()
    finally:
        proxy.stop()
    record("s3 requests", {"upsert": dict(upsert), "search": dict(search)})
    assert sum(upsert.values()) <= 8, upsert
    assert upsert["LIST"] <= 2, upsert
    assert sum(search.values()) <= 4, search
    assert search["LIST"] <= 1, search


@pytest.mark.slow
def test_s3_warm_handle_searches_read_no_index_pages(moto: Any, on_s3: None) -> None:
    """A handle that keeps serving searches (the daemon, the MCP server) on a table as the
    daemon leaves it: once warm, a full-text or hybrid search with words it has not searched
    before costs at most 4 requests (before: 7-25 and 9-91, index pages and rows read from S3
    on every query). Fails without the index prewarm or the row cache."""
    from graphit_cli.opening import open_service
    from tests.embedders import HashingEmbedder
    from tests.s3_harness import Proxy

    rng = random.Random(SEED)
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words = sorted({"".join(rng.sample(syllables, 3)) for _ in range(3000)})
    drafts = [
        MemoryDraft(title=" ".join(rng.sample(words, 3)), body=" ".join(rng.choices(words, k=60)))
        for _ in range(1000)
    ]
    proxy = Proxy(moto.port)
    try:
        os.environ["GRAPHIT_S3_ENDPOINT"] = proxy.endpoint  # restored by monkeypatch
        service = open_service(Scope("project", PROJECT_ID), embedder=HashingEmbedder)
        service.upsert_many(drafts)
        service.embed(HashingEmbedder())
        service.maintain(force=True)  # indexes folded, vector index built: the daemon's work
        assert service.store.has_vector_index()
        queries = [" ".join(rng.sample(words, 2)) for _ in range(5)]
        # A handle's first search is cold; from its third retrieval it loads the indexes and
        # rows (a one-shot command never gets there).
        service.search(queries.pop(), mode="hybrid")
        service.search(queries.pop(), mode="fts")
        counts: dict[str, Counter[str]] = {}
        for mode, query in zip(("fts", "hybrid", "fts"), queries, strict=True):
            proxy.reset_counts()
            assert service.search(query, mode=mode).hits
            counts[f"{mode} {query}"] = proxy.reset_counts()
        # Right after writes (rows outside the indexes until the next maintenance pass): the
        # newest memory is found by meaning, without a GET per vector-index hit.
        for i in range(5):
            service.upsert(
                MemoryDraft(
                    id=service.search(words[i], mode="fts").hits[0].memory.id,
                    body=f"{words[i]} revised",
                )
            )
        fresh = service.upsert(MemoryDraft(title="grebe", body="grebe migration notes")).memory
        service.embed(HashingEmbedder())
        proxy.reset_counts()
        after = service.search("grebe migration notes", mode="hybrid")
        after_writes = proxy.reset_counts()
        service.search("grebe notes", mode="hybrid")
        again = proxy.reset_counts()
    finally:
        proxy.stop()
    record(
        "s3 warm searches",
        {
            **{k: dict(v) for k, v in counts.items()},
            "hybrid after writes": dict(after_writes),
            "again": dict(again),
        },
    )
    for name, count in counts.items():
        assert sum(count.values()) <= 4, (name, count)
    assert after.hits[0].memory.id == fresh.id
    # The first search after 6 writes reads what they added (the new fragments' vectors and
    # text, once); the next one only the text outside the full-text index. The match rule asks
    # the index once per informative query term (`term_postings`, 3 here), and until the daemon
    # folds the new rows each of those queries scans them too: 29 where it was 20.
    assert sum(after_writes.values()) <= 32, after_writes
    assert sum(again.values()) <= 8, again
