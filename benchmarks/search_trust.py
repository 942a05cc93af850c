"""Search trust benchmark: freshness, and latency with another process busy.

    .venv/bin/python benchmarks/search_trust.py [--size 1500] [--fresh 30] [--queries 80]
        [--data FILE] [--json OUT]

Everything runs in-process through graphit's service against real LanceDB tables in a
temporary GRAPHIT_HOME, with the packaged all-MiniLM-L6-v2 model:

1. **Latency with a busy core.** A 1,000-row table of real memories (the first 1,000 records of
   --data), embedded and maintained. `MemoryService.search(query)` end to end (hybrid, the
   query embedding included) for --queries queries, while a second process spins on one core;
   p50 and p95 with query embeddings on one thread (graphit's setting) and, for comparison,
   on two (torch's default on this machine). Also the model's embedding throughput (rows/s)
   with 1 and 2 threads, busy core and not, which sets GRAPHIT_EMBED_THREADS' default.
2. **Freshness.** The table grows to --size rows, all embedded. Then --fresh new memories
   (records not yet in the table) are written one at a time, never embedded, and each is
   searched at once with a query made of its own key words (its four rarest title/body words
   of four letters or more); the figure is the share found in the top 3.

Records: the JSONL of real memories (default: the cursorrules set, read at run time).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    REPO,
    clear_graphit_env,
    data_path,
    finish,
    load_records,
    log,
    machine_info,
    require_data,
    summary_ms,
)

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SPIN = "while True: pass"
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")


class BusyCore:
    """A second process that keeps one core busy while the block runs."""

    def __enter__(self) -> BusyCore:
        self.proc = subprocess.Popen([sys.executable, "-c", SPIN])
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


def draft(record: dict[str, Any]) -> Any:
    from graphit_cli.core.models import MemoryDraft

    return MemoryDraft(
        title=record["title"], body=record["body"], type=record["type"], tags=record["tags"]
    )


def key_words(record: dict[str, Any], df: collections.Counter[str], n: int = 4) -> str:
    words = list(
        dict.fromkeys(w.lower() for w in _WORD.findall(f"{record['title']} {record['body']}"))
    )
    return " ".join(sorted(words, key=lambda w: (df[w], w))[:n])


def latency(svc: Any, queries: list[str], threads: int) -> dict[str, float]:
    from graphit_cli.embed import sentence

    sentence.QUERY_THREADS = threads
    svc.search(queries[0])  # warm
    samples = []
    for q in queries:
        t0 = time.perf_counter()
        svc.search(q)
        samples.append(time.perf_counter() - t0)
    return summary_ms(samples)


def throughput(model: Any, texts: list[str], threads: int) -> float:
    model._document_threads = threads
    t0 = time.perf_counter()
    model.embed_documents(texts)
    return round(len(texts) / (time.perf_counter() - t0), 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1500)
    parser.add_argument("--fresh", type=int, default=30)
    parser.add_argument("--queries", type=int, default=80)
    parser.add_argument("--data")
    parser.add_argument("--json")
    args = parser.parse_args()
    path = data_path(args.data)
    if not require_data(path):
        return 2
    records = load_records(path)
    if len(records) < args.size + args.fresh:
        raise SystemExit(f"need {args.size + args.fresh} records, {path} has {len(records)}")

    started = time.perf_counter()
    clear_graphit_env()
    home = tempfile.mkdtemp(prefix="graphit-trust-")
    os.environ["GRAPHIT_HOME"] = home
    os.environ["GRAPHIT_AUTHOR"] = "benchmark"
    results: dict[str, Any] = {"machine": machine_info(), "config": vars(args)}
    try:
        from graphit_cli.access.scopes import Scope
        from graphit_cli.embed import load_default
        from graphit_cli.opening import open_service

        model = load_default()
        if model is None:
            raise SystemExit("the embedding model is not installed")
        svc = open_service(Scope("context", "trust"))

        log("latency: 1,000 rows")
        svc.upsert_many([draft(r) for r in records[:1000]])
        svc.embed()
        svc.maintain(force=True)
        queries = [r["title"] for r in records[-args.queries :]]
        texts = [f"{r['title']}\n\n{r['body']}" for r in records[:64]]
        results["latency_1000_rows_ms"] = {}
        results["embedding_rows_per_s"] = {}
        for busy in (False, True):
            label = "busy core" if busy else "no extra load"
            with BusyCore() if busy else open(os.devnull):
                for threads in (1, 2):
                    key = f"{label}, query threads {threads}"
                    results["latency_1000_rows_ms"][key] = latency(svc, queries, threads)
                    log(f"  {key}: {results['latency_1000_rows_ms'][key]}")
                    results["embedding_rows_per_s"][f"{label}, {threads} threads"] = throughput(
                        model, texts, threads
                    )
        from graphit_cli import config
        from graphit_cli.embed import sentence

        sentence.QUERY_THREADS = 1
        model._document_threads = config.embed_threads()

        log(f"freshness: {args.size} rows")
        svc.upsert_many([draft(r) for r in records[1000 : args.size]])
        svc.embed()
        svc.maintain(force=True)
        df: collections.Counter[str] = collections.Counter()
        for r in records:
            df.update({w.lower() for w in _WORD.findall(f"{r['title']} {r['body']}")})
        ranks: list[int | None] = []
        for record in records[args.size : args.size + args.fresh]:
            written = svc.upsert(draft(record)).memory
            hits = svc.search(key_words(record, df), top_k=3).hits
            by_rank = [h.memory.id for h in sorted(hits, key=lambda h: h.rank)]
            ranks.append(by_rank.index(written.id) + 1 if written.id in by_rank else None)
        found = sum(r is not None for r in ranks)
        results["freshness"] = {
            "table_rows": args.size,
            "fresh_memories": len(ranks),
            "in_top_3": found,
            "share_in_top_3": round(found / len(ranks), 3),
            "ranks": ranks,
        }
    finally:
        shutil.rmtree(home, ignore_errors=True)

    def render(res: dict[str, Any]) -> str:
        lines = ["latency, 1,000 rows, hybrid search end to end (ms):"]
        for key, fig in res["latency_1000_rows_ms"].items():
            ratio = fig["p95_ms"] / fig["p50_ms"] if fig["p50_ms"] else 0.0
            lines.append(
                f"  {key:40s} p50 {fig['p50_ms']:7.1f}  p95 {fig['p95_ms']:7.1f}  ({ratio:.1f}x)"
            )
        lines.append("embedding throughput (rows/s):")
        lines += [f"  {k:40s} {v}" for k, v in res["embedding_rows_per_s"].items()]
        fresh = res["freshness"]
        lines.append(
            f"freshness: {fresh['in_top_3']}/{fresh['fresh_memories']} unembedded new memories in"
            f" the top 3 of a {fresh['table_rows']}-row embedded table (ranks {fresh['ranks']})"
        )
        lines.append(f"load average at the end: {res['machine'].get('loadavg_end')}")
        return "\n".join(lines)

    finish(results, started, render, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
