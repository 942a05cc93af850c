"""Consistent reads through the daemon: soak figures, local and S3 (moto).

Run from the repository root (see benchmarks/README.md, "consistent_reads.py"):

    .venv/bin/python benchmarks/consistent_reads.py [--rounds 1000] [--searches 1000]
        [--s3-rounds 200] [--s3-searches 1000] [--ratio-runs 10] [--json OUT]

Each part runs `graphit memory daemon --scope project` on a fresh GRAPHIT_HOME (and, for S3, on
moto's server on 127.0.0.1), and asks it the way a CLI command does (`cli/client.ScopeClient`, the
warm path; an answer given in-process instead stops the run):

- read-after-write: --rounds times, another process (tests/ack_writer.py, its own handle)
  writes a memory and says when `upsert` returned; right after, `source ID` and a search for
  the memory's own word go to the daemon while two searcher threads keep it busy with
  searches of their own. A read that does not see the acknowledged write is stale.
- searches during writes: a writer thread sends the daemon updates of 24 memories (each keeps
  the searched words) and new memories, with `GRAPHIT_FOLD_THRESHOLD=2` so its writes compact
  the table (rows move to new addresses); --searches searches (`top_k` 0) must each return all
  24. A memory left out is missed; a failed search is counted apart.
- the warm path's cost (local only): `graphit memory search` through the daemon, end to end,
  against a bare two-command Typer app, interleaved, medians over --ratio-runs (target <= 2x);
  and what one request's look for newer commits costs in-process (`store.version()`).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import (
    REPO,
    TYPER_APP,
    graphit_command,
    loadavg,
    log,
    percentile,
    reset_env,
    start_daemon,
)

PROJECT_ID = "01JF0000000000000000000000"
BUCKET = "graphit-soak"
WRITER = REPO / "tests" / "ack_writer.py"


class NoInProcess:
    """Stands in for a ScopeClient's in-process service: a fallback would not be the daemon's."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"answered in-process ({name}), not by the daemon")


def client() -> Any:
    from graphit_cli.cli.client import ScopeClient

    found = ScopeClient(None, False)
    found.__dict__["service"] = NoInProcess()  # the cached_property's slot
    return found


def stop_daemon(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Workspace:
    """A fresh GRAPHIT_HOME and project directory; `s3`: the project's table on moto."""

    def __init__(self, s3_endpoint: str | None, fold: str | None = None) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="graphit-consistent-"))
        (self.dir / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
        reset_env()
        os.environ["GRAPHIT_HOME"] = str(self.dir / "home")
        os.environ["GRAPHIT_PROJECT_ID"] = PROJECT_ID
        if fold is not None:
            os.environ["GRAPHIT_FOLD_THRESHOLD"] = fold
        if s3_endpoint is not None:
            os.environ |= {
                "GRAPHIT_PROVIDER": "s3",
                "GRAPHIT_S3_BUCKET": BUCKET,
                "GRAPHIT_S3_PREFIX": f"soak-{uuid.uuid4().hex[:10]}",
                "GRAPHIT_S3_ENDPOINT": s3_endpoint,
                "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_REGION": "us-east-1",
                "AWS_EC2_METADATA_DISABLED": "true",
            }
        os.chdir(self.dir)

    def service(self) -> Any:
        from graphit_cli.access.providers import resolve_scope
        from graphit_cli.opening import open_service

        return open_service(resolve_scope("project"), embedder=lambda: None)


class Searchers:
    """Threads searching through the daemon until stopped; failures are kept, not raised."""

    def __init__(self, query: str, threads: int) -> None:
        self.stop = threading.Event()
        self.calls = 0
        self.failures: list[str] = []
        self._threads = [
            threading.Thread(target=self._run, args=(query,), daemon=True) for _ in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def _run(self, query: str) -> None:
        from graphit_cli.core.models import MemoryFilter

        mine = client()
        while not self.stop.is_set():
            try:
                mine.search(
                    query,
                    MemoryFilter(),
                    top_k=0,
                    exclude_mandatory=False,
                    include_deleted=False,
                    mode="fts",
                )
                self.calls += 1
            except Exception as exc:  # counted: the soak reports every failure
                self.failures.append(f"{type(exc).__name__}: {exc}")

    def end(self) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout=300)


def read_after_write(rounds: int, s3_endpoint: str | None) -> dict[str, Any]:
    from graphit_cli.core.models import MemoryDraft, MemoryFilter
    from graphit_cli.errors import NotFound

    space = Workspace(s3_endpoint)
    space.service().upsert_many(
        [MemoryDraft(title=f"osprey {i}", body=f"osprey nest {i}") for i in range(50)]
    )
    daemon = start_daemon(space.dir)
    writer = subprocess.Popen(
        [sys.executable, str(WRITER)],
        cwd=space.dir,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None and writer.stdout is not None
    reader = client()
    searchers = Searchers("osprey nest", threads=2)
    stale_source = stale_search = 0
    errors: list[str] = []
    read_s: list[float] = []
    started = time.perf_counter()
    try:
        for n in range(rounds):
            word = f"wren{n}x{uuid.uuid4().hex[:8]}"
            writer.stdin.write(word + "\n")
            writer.stdin.flush()
            memory_id = writer.stdout.readline().strip()
            if not memory_id:
                raise SystemExit(f"the writer process ended (exit {writer.poll()})")
            t0 = time.perf_counter()
            try:
                reader.source(memory_id)
            except NotFound:
                stale_source += 1
            except Exception as exc:
                errors.append(f"source: {type(exc).__name__}: {exc}")
            read_s.append(time.perf_counter() - t0)
            try:
                hits = reader.search(
                    word,
                    MemoryFilter(),
                    top_k=10,
                    exclude_mandatory=False,
                    include_deleted=False,
                    mode="fts",
                ).hits
                stale_search += memory_id not in {h.memory.id for h in hits}
            except Exception as exc:
                errors.append(f"search: {type(exc).__name__}: {exc}")
            if n and n % 50 == 0:
                log(f"  round {n}: stale {stale_source} + {stale_search}, load {loadavg()}")
    finally:
        searchers.end()
        writer.stdin.close()
        writer.wait(timeout=120)
        stop_daemon(daemon)
    return {
        "rounds": rounds,
        "stale_source": stale_source,
        "stale_search": stale_search,
        "errors": len(errors) + len(searchers.failures),
        "first_errors": (errors + searchers.failures)[:3],
        "searcher_calls": searchers.calls,
        "source_p50_ms": round(percentile(read_s, 50) * 1000, 1),
        "source_p95_ms": round(percentile(read_s, 95) * 1000, 1),
        "wall_s": round(time.perf_counter() - started, 1),
        "load_after": loadavg(),
    }


def searches_during_writes(searches: int, s3_endpoint: str | None) -> dict[str, Any]:
    from graphit_cli.core.models import MemoryDraft, MemoryFilter

    space = Workspace(s3_endpoint, fold="2")
    ids = [
        r.memory.id
        for r in space.service()
        .upsert_many(
            [MemoryDraft(title=f"falcon {i}", body=f"falcon ledge {i}") for i in range(24)]
        )
        .results
    ]
    daemon = start_daemon(space.dir)
    stop = threading.Event()
    writes = [0]
    write_errors: list[str] = []

    def write() -> None:
        mine = client()
        n = 0
        while not stop.is_set():
            n += 1
            draft = (
                MemoryDraft(id=ids[n % len(ids)], body=f"falcon ledge, edit {n}")
                if n % 2
                else MemoryDraft(title=f"gull {n}", body=f"gull cliff {n}")
            )
            try:
                mine.upsert([draft], warn=lambda _: None)
                writes[0] += 1
            except Exception as exc:
                write_errors.append(f"{type(exc).__name__}: {exc}")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    other = Searchers("falcon ledge", threads=1)  # a second request at once, now and then
    reader = client()
    missed = failed = incomplete = 0
    errors: list[str] = []
    search_s: list[float] = []
    started = time.perf_counter()
    try:
        for n in range(searches):
            t0 = time.perf_counter()
            try:
                hits = reader.search(
                    "falcon ledge",
                    MemoryFilter(),
                    top_k=0,
                    exclude_mandatory=False,
                    include_deleted=False,
                    mode="fts",
                ).hits
            except Exception as exc:
                failed += 1
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            search_s.append(time.perf_counter() - t0)
            lost = len(set(ids) - {h.memory.id for h in hits})
            missed += lost
            incomplete += bool(lost)
            if n and n % 50 == 0:
                log(f"  search {n}: missed {missed}, writes {writes[0]}, load {loadavg()}")
    finally:
        stop.set()
        writer.join(timeout=300)
        other.end()
        stop_daemon(daemon)
    return {
        "searches": searches,
        "memories_each": len(ids),
        "missed_memories": missed,
        "incomplete_searches": incomplete,
        "failed_searches": failed,
        "first_errors": (errors + other.failures + write_errors)[:3],
        "writes_during": writes[0],
        "write_errors": len(write_errors),
        "search_p50_ms": round(percentile(search_s, 50) * 1000, 1),
        "wall_s": round(time.perf_counter() - started, 1),
        "load_after": loadavg(),
    }


def warm_path_cost(runs: int) -> dict[str, Any]:
    """`graphit memory search` through the daemon vs a bare Typer app, and a look's cost."""
    from graphit_cli.core.models import MemoryDraft

    space = Workspace(None)
    svc = space.service()
    svc.upsert_many(
        [
            MemoryDraft(title=f"deploy note {i}", body=f"how we deploy service {i}")
            for i in range(500)
        ]
    )
    bare = space.dir / "bare.py"
    bare.write_text(TYPER_APP)
    search = [*graphit_command(), "memory", "search", "deploy", "-k", "3", "-f", "json"]
    daemon = start_daemon(space.dir)
    samples: dict[str, list[float]] = {"bare": [], "daemon search": []}
    try:
        for i in range(runs + 1):  # round 0 warms the page cache, not counted
            for name, cmd in (
                ("bare", [sys.executable, str(bare), "first"]),
                ("daemon search", search),
            ):
                t0 = time.perf_counter()
                subprocess.run(cmd, cwd=space.dir, capture_output=True, check=True, timeout=600)
                if i:
                    samples[name].append(time.perf_counter() - t0)
    finally:
        stop_daemon(daemon)
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.opening import open_service

    kept = open_service(resolve_scope("project"), embedder=lambda: None, keep=True)
    looks: list[float] = []
    for _ in range(200):
        t0 = time.perf_counter()
        kept.store.version()
        looks.append(time.perf_counter() - t0)
    base = statistics.median(samples["bare"])
    warm = statistics.median(samples["daemon search"])
    return {
        "runs": runs,
        "bare_median_s": round(base, 3),
        "daemon_search_median_s": round(warm, 3),
        "x_bare": round(warm / base, 2),
        "look_p50_ms": round(percentile(looks, 50) * 1000, 2),
        "look_p95_ms": round(percentile(looks, 95) * 1000, 2),
        "load_after": loadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--searches", type=int, default=1000)
    parser.add_argument("--s3-rounds", type=int, default=200)
    parser.add_argument("--s3-searches", type=int, default=1000)
    parser.add_argument("--ratio-runs", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"load_before": loadavg()}
    if args.ratio_runs:
        log(f"warm path cost ({args.ratio_runs} runs, load {loadavg()})")
        results["warm_path"] = warm_path_cost(args.ratio_runs)
        log(json.dumps(results["warm_path"]))
    if args.rounds:
        log(f"local: {args.rounds} read-after-write rounds")
        results["local_read_after_write"] = read_after_write(args.rounds, None)
        log(json.dumps(results["local_read_after_write"]))
    if args.searches:
        log(f"local: {args.searches} searches during writes")
        results["local_searches_during_writes"] = searches_during_writes(args.searches, None)
        log(json.dumps(results["local_searches_during_writes"]))
    if args.s3_rounds or args.s3_searches:
        from tests.s3_harness import MotoServer

        moto = MotoServer()
        try:
            moto.client("s3").create_bucket(Bucket=BUCKET)
            if args.s3_rounds:
                log(f"S3: {args.s3_rounds} read-after-write rounds")
                results["s3_read_after_write"] = read_after_write(args.s3_rounds, moto.endpoint)
                log(json.dumps(results["s3_read_after_write"]))
            if args.s3_searches:
                log(f"S3: {args.s3_searches} searches during writes")
                results["s3_searches_during_writes"] = searches_during_writes(
                    args.s3_searches, moto.endpoint
                )
        finally:
            moto.stop()
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
