"""Memory Explorer benchmark: the catalogue API's first page and a search through the API.

Run from the repository root (see benchmarks/README.md, "explorer.py"):

    .venv/bin/python benchmarks/explorer.py [--size 10000] [--runs 30] [--json OUT]

Against a real LanceDB table of --size memories in a temporary GRAPHIT_HOME (seeded with
`upsert_many`, no embeddings, then one forced maintenance pass), warm (a few untimed requests
first), it times:

1. the catalogue's first page, `GET /api/memories?limit=50`, as server time: the request through
   the whole ASGI app (security guard, routing, MemoryService.browse, JSON) with Starlette's
   TestClient, no network; also right after a write (the live index, otherwise reused while
   the table's version stands still, is read again), a filtered first page, a deep page, and
   the bare `MemoryService.browse` call to show what the web layer adds;
2. the same first page over real HTTP from the uvicorn server `graphit memory explorer` runs
   (127.0.0.1, one keep-alive connection): what a browser waits for;
3. a search: `GET /api/memories?query=Q&limit=50` against the service's in-process
   `search(Q, top_k=100)` (the selection the API's search box pages through, as
   `graphit memory search Q --top-k 100` makes it) and the CLI's default `search(Q, top_k=10)`,
   over --queries queries.

The records are the real memories of the shared data set, cycled to reach --size (read at run
time, never copied). Lexical search only: the table has no vectors, as the brief asks.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import (
    Corpus,
    data_path,
    finish,
    load_records,
    log,
    machine_info,
    require_data,
    reset_env,
    summary_ms,
    table,
    verdict,
)

PROJECT_ID = "01JD0000000000000000000000"
TOKEN = "benchmark-token"
FIRST_PAGE_TARGET_MS = 300.0


def timed(fn: Callable[[], Any], runs: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return samples


def seed(size: int, records: list[dict[str, Any]]) -> Any:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    corpus = Corpus(records)
    started = time.perf_counter()
    for start in range(0, size, 5000):
        service.upsert_many(corpus.drafts(start, min(5000, size - start)))
    log(f"seeded {size} memories in {time.perf_counter() - started:.1f} s")
    service.maintain(force=True)
    return service


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--data")
    parser.add_argument("--json")
    args = parser.parse_args()
    source = data_path(args.data)
    if not require_data(source):
        raise SystemExit(2)

    reset_env()
    started = time.perf_counter()
    home = Path(tempfile.mkdtemp(prefix="graphit-bench-explorer-"))
    os.environ["GRAPHIT_HOME"] = str(home / "home")
    os.environ["GRAPHIT_PROJECT_ID"] = PROJECT_ID
    results: dict[str, Any] = {"machine": machine_info(), "size": args.size, "runs": args.runs}
    try:
        from starlette.testclient import TestClient

        from graphit_cli.core.models import MemoryDraft
        from graphit_cli.explorer.app import create_app
        from graphit_cli.explorer.server import ExplorerServer
        from graphit_cli.service.reads import BROWSE_TOP_K

        records = load_records(source)
        service = seed(args.size, records)
        app = create_app(token=TOKEN)
        # One client for the whole run: its event loop stays up, as a server's does.
        client = TestClient(app, base_url="http://127.0.0.1:7420").__enter__()
        auth = {"Authorization": f"Bearer {TOKEN}"}

        def api(path: str) -> Callable[[], Any]:
            def call() -> Any:
                response = client.get(path, headers=auth)
                assert response.status_code == 200, response.text
                return response

            return call

        first = api("/api/memories?limit=50")().json()
        assert first["total"] == args.size and len(first["results"]) == 50
        results["first_page_bytes"] = len(api("/api/memories?limit=50")().content)
        log("timing the catalogue through the app")
        results["catalogue"] = {
            "first_page": summary_ms(timed(api("/api/memories?limit=50"), args.runs)),
            "first_page_type_filter": summary_ms(
                timed(api("/api/memories?limit=50&type=convention&important=false"), args.runs)
            ),
            "deep_page": summary_ms(
                timed(api(f"/api/memories?limit=50&offset={args.size // 2}"), args.runs)
            ),
            "service_browse": summary_ms(timed(lambda: service.browse(limit=50), args.runs)),
        }
        # The live index is reused while the table stands still; after a write it is read
        # again. Each run writes one memory (untimed), then asks for the first page.
        writes = iter(range(10**6))
        after_write: list[float] = []
        first_page = api("/api/memories?limit=50")
        for _ in range(args.runs):
            n = next(writes)
            service.upsert(MemoryDraft(title=f"Fresh {n}", body=f"written before page {n}"))
            after_write += timed(first_page, 1, warmup=0)
        results["catalogue"]["first_page_after_write"] = summary_ms(after_write)

        log("timing the first page over HTTP")
        server = ExplorerServer(port=0, token=TOKEN)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        server.started.wait(60)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)

        def over_http() -> None:
            conn.request("GET", "/api/memories?limit=50", headers=auth)
            response = conn.getresponse()
            response.read()
            assert response.status == 200

        try:
            results["catalogue"]["first_page_http"] = summary_ms(timed(over_http, args.runs))
        finally:
            conn.close()
            server.stop()
            thread.join(30)

        log("timing searches")
        rng = random.Random(7)
        queries = [" ".join(rng.sample(Corpus.WORDS, 2)) for _ in range(args.queries)]
        api_search: list[float] = []
        service_same: list[float] = []
        service_top10: list[float] = []
        totals = []
        for query in queries:
            path = f"/api/memories?limit=50&query={query.replace(' ', '+')}"
            api_search += timed(api(path), 3, warmup=1)
            service_same += timed(
                lambda q=query: service.search(q, top_k=BROWSE_TOP_K), 3, warmup=1
            )
            service_top10 += timed(lambda q=query: service.search(q, top_k=10), 3, warmup=1)
            totals.append(api(path)().json()["total"])
        results["search"] = {
            "queries": len(queries),
            "mode": service.search(queries[0], top_k=10).mode,
            "selected_median": sorted(totals)[len(totals) // 2],
            "api_query_first_page": summary_ms(api_search),
            "service_search_same_top_k": summary_ms(service_same),
            "service_search_top_k_10": summary_ms(service_top10),
        }
        client.__exit__(None, None, None)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    finish(results, started, render, args.json)


def render(results: dict[str, Any]) -> str:
    from graphit_cli.service.reads import BROWSE_TOP_K

    c, s = results["catalogue"], results["search"]
    size = results["size"]
    first = c["first_page"]["p50_ms"]
    rows = [
        [
            "GET /api/memories?limit=50 (app)",
            *_cols(c["first_page"]),
            f"< {FIRST_PAGE_TARGET_MS:.0f} ms {verdict(first, FIRST_PAGE_TARGET_MS)}",
        ],
        ["  ... right after a write (index re-read)", *_cols(c["first_page_after_write"]), ""],
        ["  ... type + important filters", *_cols(c["first_page_type_filter"]), ""],
        [f"  ... offset={size // 2}", *_cols(c["deep_page"]), ""],
        ["  MemoryService.browse alone", *_cols(c["service_browse"]), ""],
        ["  over HTTP (uvicorn, keep-alive)", *_cols(c["first_page_http"]), ""],
        [f"GET ?query=Q (app), {s['queries']} queries", *_cols(s["api_query_first_page"]), ""],
        [
            f"  MemoryService.search(Q, top_k={BROWSE_TOP_K})",
            *_cols(s["service_search_same_top_k"]),
            "",
        ],
        ["  MemoryService.search(Q, top_k=10)", *_cols(s["service_search_top_k_10"]), ""],
    ]
    head = (
        f"Explorer at {size} memories ({s['mode']} search, median {s['selected_median']} "
        f"memories selected per query; first page {results['first_page_bytes']} bytes)"
    )
    return head + "\n\n" + table(["measurement", "p50 ms", "p95 ms", "max ms", "target"], rows)


def _cols(summary: dict[str, float]) -> list[str]:
    return [f"{summary['p50_ms']:.1f}", f"{summary['p95_ms']:.1f}", f"{summary['max_ms']:.1f}"]


if __name__ == "__main__":
    main()
