"""S3 benchmarks: graphit on moto's S3 server versus a local table, with S3 request counts.

Run from the repository root (needs the dev extra: moto[server], boto3):

    .venv/bin/python benchmarks/s3.py [--sizes 1000,10000] [--repeats 15] [--writers 1,2,4]
                                      [--writes 8] [--explain] [--json OUT]

What it measures, in one process unless said otherwise, on real LanceDB tables:

1. at each size, a table built with batch upserts, embedded (a deterministic hashing embedder,
   384-d, so the vector path runs without loading a model) and maintained as the daemon does
   (indexes folded, the vector index built); then, on that table: FTS search, hybrid search
   (FTS + vector, fused), single upsert (a new memory), update (a new revision of an existing
   memory), and both searches again after those writes (new rows outside the indexes, as
   between two maintenance passes): latency p50/p90 and the S3 requests each operation
   sends, by kind (GET, PUT, LIST, HEAD, DELETE). One handle serves every call, as in the
   daemon or the MCP server ("warm"); searches cycle through six queries. Request counts
   predict real S3 better than moto's timings: moto answers in-process on the same 2 cores.
   With --explain, one more call of each operation is logged request by request and its
   requests are grouped by what they touch (`_versions/` listings, data files, deletion
   files, indexes, transactions, manifests): where an operation's requests go.
2. concurrent writers: 1, 2 and 4 OS processes each writing --writes new memories into one
   S3 table at the same time; throughput is committed writes over the wall time from the
   common start to the last commit (process start-up excluded).

The S3 endpoint is moto's ThreadedMotoServer on 127.0.0.1 behind a small counting proxy on
127.0.0.1 (tests/s3_harness.py); nothing leaves the machine. Every backend and size gets its
own GRAPHIT_HOME and S3 prefix. The index-folding threshold stays at its default, so the writes
measured here include the backlog checks and the small-fragment compactions writes pay.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import DATA_ENV, DEFAULT_DATA, REPO, percentile

sys.path.insert(0, str(REPO))

DATA = Path(os.environ.get(DATA_ENV, DEFAULT_DATA))
PROJECT = "01JD0000000000000000000000"
BUCKET = "graphit-bench"
QUERIES = (
    "typescript testing conventions",
    "error handling retries",
    "react component state",
    "database migration rollback",
    "clean architecture layers",
    "logging and monitoring",
)
OPS = ("LIST", "GET", "HEAD", "PUT", "DELETE", "POST")
MEASURED = ("upsert", "update", "fts", "hybrid", "fts after writes", "hybrid after writes")


# --- data ---------------------------------------------------------------------------------


def load_records() -> list[dict[str, str]]:
    if DATA.is_file():
        rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]
        return [{"title": str(r["title"])[:200], "body": str(r["body"])} for r in rows]
    words = ["cache", "latency", "retry", "schema", "index", "merge", "chain", "revision"]
    rng = random.Random(0)
    return [
        {"title": " ".join(rng.choices(words, k=5)), "body": " ".join(rng.choices(words, k=60))}
        for _ in range(500)
    ]


def draft(records: list[dict[str, str]], i: int, memory_id: str | None = None) -> Any:
    from graphit_cli.core.models import MemoryDraft

    rec = records[i % len(records)]
    return MemoryDraft(
        id=memory_id,
        title=f"{rec['title']} [{i}]",
        body=f"{rec['body']}\n\nVariant {i // len(records)}, record {i}.",
    )


# --- environment --------------------------------------------------------------------------


def set_backend(backend: str, home: Path, endpoint: str | None) -> str | None:
    """Point graphit at a fresh GRAPHIT_HOME, and at a fresh S3 prefix for the s3 backend."""
    os.environ["GRAPHIT_HOME"] = str(home)
    os.environ["GRAPHIT_PROJECT_ID"] = PROJECT
    for name in (
        "GRAPHIT_PROVIDER",
        "GRAPHIT_S3_BUCKET",
        "GRAPHIT_S3_PREFIX",
        "GRAPHIT_S3_ENDPOINT",
    ):
        os.environ.pop(name, None)
    if backend == "local":
        return None
    prefix = f"bench-{uuid.uuid4().hex[:10]}"
    os.environ.update(
        GRAPHIT_PROVIDER="s3",
        GRAPHIT_S3_BUCKET=BUCKET,
        GRAPHIT_S3_PREFIX=prefix,
        GRAPHIT_S3_ENDPOINT=str(endpoint),
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
    )
    return prefix


def _target(path: str) -> str:
    """What an S3 request touches, from its path (a LIST names its prefix in the query)."""
    for part in ("_versions", "_deletions", "_transactions", "_indices", "data/"):
        if part in path or part.replace("/", "%2F") in path:
            return part.rstrip("/")
    return "other"


def explain(fn: Callable[[int], Any], proxy: Any) -> dict[str, int]:
    """The requests of one call, counted by operation and target ("LIST _versions": 1, ...)."""
    proxy.log = []
    try:
        fn(10_000)
    finally:
        log, proxy.log = proxy.log, None
    return dict(Counter(f"{op} {_target(path)}" for op, path, _ in log))


def measure(fn: Callable[[int], Any], repeats: int, proxy: Any | None) -> dict[str, Any]:
    """Latency (ms) and, on S3, the requests of each call (median per kind, mean total)."""
    times: list[float] = []
    per_call: list[Counter[str]] = []
    for i in range(repeats):
        if proxy is not None:
            proxy.reset_counts()
        started = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - started)
        if proxy is not None:
            per_call.append(proxy.reset_counts())
    result: dict[str, Any] = {
        "p50_ms": round(percentile(times, 50) * 1000, 1),
        "p90_ms": round(percentile(times, 90) * 1000, 1),
    }
    if per_call:
        result["requests"] = {
            op: statistics.median(c[op] for c in per_call)
            for op in OPS
            if any(c[op] for c in per_call)
        }
        result["requests_total"] = round(statistics.mean(sum(c.values()) for c in per_call), 1)
    return result


# --- 1. latency and request counts --------------------------------------------------------


def bench_size(
    backend: str,
    size: int,
    repeats: int,
    records: list[dict[str, str]],
    proxy: Any | None,
    explained: bool = False,
) -> dict[str, Any]:
    import graphit_cli.service.upkeep as service_module
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service
    from tests.embedders import HashingEmbedder

    embedder = HashingEmbedder()
    home = Path(tempfile.mkdtemp(prefix=f"graphit-s3bench-{backend}-"))
    try:
        set_backend(backend, home, proxy.endpoint if proxy else None)
        service = open_service(Scope("project", PROJECT), embedder=lambda: embedder)
        started = time.perf_counter()
        ids: list[str] = []
        for start in range(0, size, 1000):
            batch = [draft(records, i) for i in range(start, min(size, start + 1000))]
            ids += [r.memory.id for r in service.upsert_many(batch).results]
        service_module.EMBED_BATCH = 2000  # build faster; the measured ops embed nothing
        service.embed(embedder)
        service.maintain(force=True)  # as the daemon leaves it: indexes folded, vector index
        build_s = time.perf_counter() - started
        rng = random.Random(size)

        def fts(i: int) -> None:
            service.search(QUERIES[i % len(QUERIES)], mode="fts")

        def hybrid(i: int) -> None:
            result = service.search(QUERIES[i % len(QUERIES)], mode="hybrid")
            assert result.mode == "hybrid", result.mode

        def upsert(i: int) -> None:
            service.upsert(draft(records, size + i))

        targets = rng.sample(ids, repeats + 1)

        def update(i: int) -> None:
            target = targets[min(i, repeats)]
            service.upsert(MemoryDraft(id=target, body=f"revised body {i} for {target}"))

        row = {"backend": backend, "rows": size, "build_s": round(build_s, 1)}
        ops = (
            ("fts", fts),
            ("hybrid", hybrid),
            ("upsert", upsert),
            ("update", update),
            # the same searches once the writes above have left new rows outside the indexes
            ("fts after writes", fts),
            ("hybrid after writes", hybrid),
        )
        for name, fn in ops:
            # Warm: the first calls of a kind pay index and metadata loads (and a searching
            # handle's load of the indexes and rows, at its third retrieval); counted apart.
            if proxy is not None:
                proxy.reset_counts()
            fn(0)
            fn(1)
            warm_up = sum(proxy.reset_counts().values()) if proxy is not None else None
            row[name] = measure(fn, repeats, proxy)
            if warm_up is not None:
                row[name]["warm_up_requests"] = warm_up
            if explained and proxy is not None:
                row[name]["explained"] = explain(fn, proxy)
        return row
    finally:
        shutil.rmtree(home, ignore_errors=True)


# --- 2. concurrent writers ----------------------------------------------------------------


def worker(writes: int, worker_id: int) -> None:
    """Open the table, say ready, wait for `go` on stdin, write, report start/end times."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    records = load_records()
    service = open_service(Scope("project", PROJECT))
    print("ready", flush=True)
    sys.stdin.readline()
    start = time.time()
    for i in range(writes):
        service.upsert(draft(records, worker_id * 100_000 + i))
    print(json.dumps({"start": start, "end": time.time(), "writes": writes}), flush=True)


def bench_writers(
    backend: str, counts: list[int], writes: int, proxy: Any | None
) -> list[dict[str, Any]]:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    rows = []
    for n in counts:
        home = Path(tempfile.mkdtemp(prefix=f"graphit-s3bench-w{n}-"))
        try:
            set_backend(backend, home, proxy.endpoint if proxy else None)
            service = open_service(Scope("project", PROJECT))  # create the table first
            procs = [
                subprocess.Popen(
                    [sys.executable, __file__, "--worker", str(writes), str(w)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    env=dict(os.environ),
                )
                for w in range(n)
            ]
            for p in procs:
                assert p.stdout is not None and p.stdout.readline().strip() == "ready"
            for p in procs:
                assert p.stdin is not None
                p.stdin.write("go\n")
                p.stdin.flush()
            reports = []
            for p in procs:
                out, _ = p.communicate(timeout=600)
                assert p.returncode == 0
                reports.append(json.loads(out.strip().splitlines()[-1]))
            wall = max(r["end"] for r in reports) - min(r["start"] for r in reports)
            total = sum(r["writes"] for r in reports)
            live = len(service.catalogue())
            assert live == total, (live, total)
            rows.append(
                {
                    "backend": backend,
                    "processes": n,
                    "writes": total,
                    "wall_s": round(wall, 2),
                    "writes_per_s": round(total / wall, 2),
                }
            )
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return rows


# --- report -------------------------------------------------------------------------------


def req_text(entry: dict[str, Any]) -> str:
    reqs = entry.get("requests")
    if not reqs:
        return "-"
    parts = " + ".join(f"{v:g} {k}" for k, v in reqs.items())
    return f"{entry['requests_total']:g} ({parts})"


def markdown(latency: list[dict[str, Any]], writers: list[dict[str, Any]]) -> str:
    lines = [
        "| rows | operation | local p50 / p90 ms | moto S3 p50 / p90 ms "
        "| S3 requests per op (mean; median by kind) |",
        "|---|---|---|---|---|",
    ]
    by = {(r["backend"], r["rows"]): r for r in latency}
    for size in sorted({r["rows"] for r in latency}):
        loc, s3 = by.get(("local", size)), by.get(("s3", size))
        for op in MEASURED:
            cells = [f"{r[op]['p50_ms']} / {r[op]['p90_ms']}" if r else "-" for r in (loc, s3)]
            reqs = req_text(s3[op]) if s3 else "-"
            lines.append(f"| {size:,} | {op} | {cells[0]} | {cells[1]} | {reqs} |")
    explained = [
        (r["rows"], op, r[op]["explained"])
        for r in latency
        for op in MEASURED
        if r["backend"] == "s3" and "explained" in r[op]
    ]
    if explained:
        lines += ["", "| rows | operation | one call's S3 requests, by target |", "|---|---|---|"]
        for rows, op, counts in explained:
            parts = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
            lines.append(f"| {rows:,} | {op} | {parts} |")
    lines += ["", "| writers | backend | writes | wall s | writes/s |", "|---|---|---|---|---|"]
    for r in writers:
        cols = (r["processes"], r["backend"], r["writes"], r["wall_s"], r["writes_per_s"])
        lines.append("| " + " | ".join(str(c) for c in cols) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--writers", default="1,2,4")
    parser.add_argument("--writes", type=int, default=8, help="new memories per writer process")
    parser.add_argument(
        "--explain", action="store_true", help="log one call of each S3 operation by target"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("LANCEDB_LOG", "error")
    if args.worker:
        worker(*args.worker)
        return

    from tests.s3_harness import MotoServer, Proxy

    moto = MotoServer()
    moto.client("s3").create_bucket(Bucket=BUCKET)
    proxy = Proxy(moto.port)
    records = load_records()
    latency: list[dict[str, Any]] = []
    writers: list[dict[str, Any]] = []
    try:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            for backend in ("local", "s3"):
                t = time.perf_counter()
                row = bench_size(
                    backend,
                    size,
                    args.repeats,
                    records,
                    proxy if backend == "s3" else None,
                    explained=args.explain,
                )
                latency.append(row)
                print(
                    f"{backend} {size}: {json.dumps(row)} ({time.perf_counter() - t:.0f} s)",
                    file=sys.stderr,
                )
        counts = [int(n) for n in args.writers.split(",") if n]
        for backend in ("local", "s3"):
            writers += bench_writers(
                backend, counts, args.writes, proxy if backend == "s3" else None
            )
            print(json.dumps(writers[-len(counts) :]), file=sys.stderr)
    finally:
        proxy.stop()
        moto.stop()
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "latency": latency,
        "writers": writers,
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(latency, writers))


if __name__ == "__main__":
    main()
