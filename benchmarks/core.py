"""Core performance benchmarks for graphit: start-up, list, single writes, batch upsert.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/core.py [--sizes 1000,10000,100000] [--quick] [--json OUT]

What it measures, all against real LanceDB tables in a temporary GRAPHIT_HOME:

1. cold `graphit --help`: whole-process wall time, one new process per run;
2. cold `graphit memory list --format json`: whole-process wall time on tables of 1k and 10k
   memories (the sizes in --sizes up to --list-max);
3. in-process single upsert (create) and update (change the body of an existing memory)
   latency at every size in --sizes, on a table built with batch upserts and then optimized;
   each phase starts from a freshly optimized table, and writes that triggered an index fold
   (`MemoryStore.fold_if_needed`) are counted and reported, not hidden;
4. batch upsert throughput: one `upsert_many` call of --batch-records new memories into an
   empty table, including the index fold at the end.

Records come from a JSONL file of real memories (title/body/tags), cycled with varied titles and
bodies to reach the larger sizes. The file is read at run time and never copied.

graphit's own code is measured as it is: nothing here changes its behaviour, the benchmark only
wraps a few MemoryStore methods on its own instances to time them and to count folds.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import (
    DATA_ENV,
    Corpus,
    clean_env,
    data_path,
    finish,
    graphit_command,
    load_records,
    log,
    machine_info,
    percentile,
    require_data,
    reset_env,
    run_cli,
    size_label,
    summary_ms,
    table,
    verdict,
)

TARGETS = {
    "help_s": 0.2,  # cold `graphit --help`, median
    "update_p50_ms_100k": 20.0,  # update p50 at 100k rows
    "batch_10k_s": 10.0,  # one upsert_many of 10k records, fold included
}


# --- instrumentation ----------------------------------------------------------------------


@dataclass
class Probe:
    """Times a few MemoryStore methods on one store instance and counts folds."""

    calls: dict[str, list[float]] = field(default_factory=dict)
    folds: list[float] = field(default_factory=list)  # duration of each fold that ran

    def reset(self) -> None:
        self.calls.clear()
        self.folds.clear()

    def attach(self, store: Any) -> None:
        for name in ("heads", "merge", "optimize", "compact_small_fragments"):
            setattr(store, name, self._timed(name, getattr(store, name)))
        fold = store.fold_if_needed

        def fold_if_needed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            folded = fold(*args, **kwargs)  # what it did ("compacted", "indexed") or None
            elapsed = time.perf_counter() - t0
            self.calls.setdefault("fold_if_needed", []).append(elapsed)
            if folded:
                self.folds.append(elapsed)
            return folded

        store.fold_if_needed = fold_if_needed

    @staticmethod
    def detach(store: Any) -> None:
        """Back to the class's own methods (the wrappers live on the instance)."""
        for name in ("heads", "merge", "optimize", "compact_small_fragments", "fold_if_needed"):
            store.__dict__.pop(name, None)

    def _timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.calls.setdefault(name, []).append(time.perf_counter() - t0)

        return wrapper


# --- the benchmarks -----------------------------------------------------------------------


def bench_help(runs: int, workdir: Path) -> dict[str, Any]:
    env = clean_env()
    env["GRAPHIT_HOME"] = str(workdir / "help-home")
    cmd = [*graphit_command(), "--help"]
    run_cli(cmd, env, workdir)  # warm the page cache; every timed run is a new process
    samples = [run_cli(cmd, env, workdir)[0] for _ in range(runs)]
    return {
        "command": " ".join(["graphit", "--help"]),
        "runs": runs,
        "median_s": round(statistics.median(samples), 4),
        "min_s": round(min(samples), 4),
        "max_s": round(max(samples), 4),
        "target_s": TARGETS["help_s"],
    }


def bench_list(home: Path, project_id: str, size: int, runs: int, workdir: Path) -> dict[str, Any]:
    env = clean_env()
    env.update(GRAPHIT_HOME=str(home), GRAPHIT_PROJECT_ID=project_id)
    cmd = [*graphit_command(), "memory", "list", "--format", "json"]
    _, out, _ = run_cli(cmd, env, workdir)  # warm-up, and check it lists every memory
    listed = len(json.loads(out))
    if listed != size:
        raise SystemExit(f"memory list returned {listed} memories, expected {size}")
    samples = [run_cli(cmd, env, workdir)[0] for _ in range(runs)]
    return {
        "size": size,
        "runs": runs,
        "median_s": round(statistics.median(samples), 4),
        "min_s": round(min(samples), 4),
        "max_s": round(max(samples), 4),
        "output_bytes": len(out.encode("utf-8")),
    }


def open_service(home: Path) -> tuple[Any, str]:
    """A MemoryService on a new project scope under `home` (GRAPHIT_HOME)."""
    from ulid import ULID

    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    os.environ["GRAPHIT_HOME"] = str(home)
    project_id = str(ULID())
    return open_service(Scope("project", project_id)), project_id


def build_table(
    svc: Any, probe: Probe, corpus: Corpus, size: int, batch: int
) -> tuple[list[str], dict[str, Any]]:
    """Fill the table with `size` memories in upsert_many batches, then optimize."""
    ids: list[str] = []
    batch_times: list[float] = []
    probe.reset()
    t_start = time.perf_counter()
    for start in range(0, size, batch):
        drafts = corpus.drafts(start, min(batch, size - start))
        t0 = time.perf_counter()
        result = svc.upsert_many(drafts)
        batch_times.append(time.perf_counter() - t0)
        ids.extend(r.memory.id for r in result.results)
    folds_during_build = len(probe.folds)
    t0 = time.perf_counter()
    svc.store.optimize()
    optimize_s = time.perf_counter() - t0
    total = time.perf_counter() - t_start
    rows = svc.store.count()
    if rows != size:
        raise SystemExit(f"built {rows} rows, expected {size}")
    return ids, {
        "size": size,
        "batch": batch,
        "batches": len(batch_times),
        "build_s": round(total, 2),
        "folds_during_build": folds_during_build,
        "final_optimize_s": round(optimize_s, 2),
        "disk_bytes": int(svc.store.table.stats()["total_bytes"]),
    }


def measure_writes(
    svc: Any, probe: Probe, ops: Iterator[Any], count: int, expect: str
) -> dict[str, Any]:
    """Time `count` single upserts from a freshly optimized table; count the folds they ran."""
    svc.store.optimize()
    probe.reset()
    samples: list[float] = []
    quiet: list[float] = []  # the writes that did not fold
    phases: dict[str, list[float]] = {"heads": [], "merge": [], "fold_check": []}
    for _ in range(count):
        draft = next(ops)
        folds_before = len(probe.folds)
        marks = {k: len(v) for k, v in probe.calls.items()}
        t0 = time.perf_counter()
        result = svc.upsert(draft)
        elapsed = time.perf_counter() - t0
        if result.action.value != expect:
            raise SystemExit(f"expected a {expect} write, got {result.action.value}")
        samples.append(elapsed)

        def spent(name: str, marks: dict[str, int] = marks) -> float:
            return sum(probe.calls.get(name, [])[marks.get(name, 0) :])

        phases["heads"].append(spent("heads"))
        phases["merge"].append(spent("merge"))
        if len(probe.folds) == folds_before:
            quiet.append(elapsed)
            phases["fold_check"].append(spent("fold_if_needed"))
    stats = summary_ms(samples)
    stats.update(
        folds=len(probe.folds),
        fold_s=[round(f, 3) for f in probe.folds],
        p50_ms_without_folds=round(percentile([s * 1000 for s in quiet], 50), 2) if quiet else None,
        breakdown_p50_ms={
            k: round(percentile([v * 1000 for v in vals], 50), 2)
            for k, vals in phases.items()
            if vals
        },
    )
    return stats


def creates(corpus: Corpus, first: int) -> Iterator[Any]:
    i = first
    while True:
        yield corpus.draft(i)
        i += 1


def updates(ids: list[str], seed: int) -> Iterator[Any]:
    from graphit_cli.core.models import MemoryDraft

    rng = random.Random(seed)
    order = rng.sample(ids, len(ids))
    for n, memory_id in enumerate(order):
        yield MemoryDraft(
            id=memory_id,
            body=f"Edited by the benchmark, edit {n}: {rng.random():.6f}\n\n"
            f"{'The rule stays; only the wording changes. ' * rng.randint(2, 8)}",
        )


def profile_updates(svc: Any, ids: list[str], count: int, top: int) -> dict[str, Any]:
    """cProfile `count` updates; keep graphit's and lancedb's own frames, by cumulative time.

    Most of an update is spent in LanceDB's Rust code, which Python sees as a wait on the
    lancedb background event loop: the cumulative times of the lancedb entry points
    (merge execute, query to_arrow, stats) are where that time shows up.
    """
    Probe.detach(svc.store)
    svc.store.optimize()
    ops = updates(ids, seed=7)
    drafts = [next(ops) for _ in range(count)]
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    profiler.enable()
    for draft in drafts:
        svc.upsert(draft)
    profiler.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(profiler)
    rows = []
    for func, (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        filename, line, name = func
        if "graphit_cli" not in filename and "lancedb" not in filename:
            continue
        if "background_loop" in filename:
            continue
        rows.append(
            {
                "function": f"{_short(filename)}:{line}({name})",
                "calls": ncalls,
                "tottime_ms_per_update": round(tottime * 1000 / count, 2),
                "cumtime_ms_per_update": round(cumtime * 1000 / count, 2),
            }
        )
    rows.sort(key=lambda r: -r["cumtime_ms_per_update"])
    return {
        "updates": count,
        "wall_ms_per_update": round(wall * 1000 / count, 2),
        "top_cumulative": rows[:top],
    }


def _short(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("graphit_cli", "lancedb"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) :])
    return Path(filename).name


def bench_import(runs: int, workdir: Path) -> dict[str, Any]:
    """Reference: a bare interpreter that imports lancedb (what any table-touching command pays)."""
    cmd = [sys.executable, "-c", "import lancedb"]
    env = clean_env()
    run_cli(cmd, env, workdir)
    samples = [run_cli(cmd, env, workdir)[0] for _ in range(runs)]
    return {
        "runs": runs,
        "median_s": round(statistics.median(samples), 4),
        "min_s": round(min(samples), 4),
        "max_s": round(max(samples), 4),
    }


def bench_batch(home: Path, corpus: Corpus, records: int) -> dict[str, Any]:
    svc, _ = open_service(home)
    probe = Probe()
    probe.attach(svc.store)
    drafts = corpus.drafts(0, records)
    t0 = time.perf_counter()
    result = svc.upsert_many(drafts)
    total = time.perf_counter() - t0
    created = sum(1 for r in result.results if r.action.value == "created")
    if created != records:
        raise SystemExit(f"batch created {created} of {records}")
    return {
        "records": records,
        "total_s": round(total, 3),
        "records_per_s": round(records / total),
        "heads_s": round(sum(probe.calls.get("heads", [])), 3),
        "merge_s": round(sum(probe.calls.get("merge", [])), 3),
        "fold_s": round(sum(probe.folds), 3),
        "folds": len(probe.folds),
        "target_s": TARGETS["batch_10k_s"],
    }


# --- driver -------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="table sizes for the write latencies (default 1k,10k,100k)")
    parser.add_argument("--quick", action="store_true", help="small sizes, fewer runs: a smoke run")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    parser.add_argument("--ops", type=int, help="single writes measured per phase (default 50)")
    parser.add_argument("--help-runs", type=int, help="cold --help runs (default 9)")
    parser.add_argument("--list-runs", type=int, help="cold list runs per size (default 5)")
    parser.add_argument(
        "--list-max", type=int, default=10_000, help="largest size timed with `memory list`"
    )
    parser.add_argument("--batch", type=int, default=10_000, help="upsert_many batch when building")
    parser.add_argument(
        "--batch-records", type=int, help="records in the throughput upsert_many (default 10k)"
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=20,
        metavar="N",
        help="cProfile N updates at the largest size (0: off; default 20)",
    )
    parser.add_argument("--data", help=f"JSONL of source memories (or ${DATA_ENV})")
    args = parser.parse_args(argv)
    quick = args.quick
    args.sizes = [
        int(s) for s in (args.sizes or ("200,1000" if quick else "1000,10000,100000")).split(",")
    ]
    args.ops = args.ops or (10 if quick else 50)
    args.help_runs = args.help_runs or (3 if quick else 9)
    args.list_runs = args.list_runs or (2 if quick else 5)
    args.batch_records = args.batch_records or (1000 if quick else 10_000)
    if quick and args.profile == 20:
        args.profile = 5
    args.data = data_path(args.data)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not require_data(args.data):
        return 2
    reset_env()

    from graphit_cli import config

    corpus = Corpus(load_records(args.data))
    results: dict[str, Any] = {
        "machine": machine_info(),
        "settings": {
            "sizes": args.sizes,
            "ops": args.ops,
            "fold_threshold": config.fold_threshold(),
            "data": str(args.data),
            "source_records": len(corpus.records),
            "quick": args.quick,
        },
        "targets": TARGETS,
    }
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="graphit-bench-"))
    try:
        log(f"cold graphit --help x{args.help_runs}")
        results["help"] = bench_help(args.help_runs, workdir)
        log(f"cold python -c 'import lancedb' x{args.list_runs} (reference)")
        results["import_lancedb"] = bench_import(args.list_runs, workdir)

        log(f"batch upsert_many of {args.batch_records} records")
        results["batch"] = bench_batch(workdir / "batch-home", corpus, args.batch_records)
        shutil.rmtree(workdir / "batch-home", ignore_errors=True)

        results["list"] = []
        results["sizes"] = []
        for size in args.sizes:
            home = workdir / f"home-{size}"
            svc, project_id = open_service(home)
            probe = Probe()
            probe.attach(svc.store)
            log(f"building {size} memories")
            ids, build = build_table(svc, probe, corpus, size, args.batch)
            log(f"built in {build['build_s']} s")
            if size <= args.list_max:
                log(f"cold memory list x{args.list_runs} at {size}")
                results["list"].append(bench_list(home, project_id, size, args.list_runs, workdir))
            log(f"{args.ops} creates at {size}")
            create = measure_writes(svc, probe, creates(corpus, size), args.ops, "created")
            log(f"{args.ops} updates at {size}")
            update = measure_writes(svc, probe, updates(ids, seed=size), args.ops, "updated")
            entry = {"build": build, "create": create, "update": update}
            if args.profile and size == max(args.sizes):
                log(f"profiling {args.profile} updates at {size}")
                entry["profile"] = profile_updates(svc, ids, args.profile, top=15)
            results["sizes"].append(entry)
            del svc
            shutil.rmtree(home, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    finish(results, started, render, args.json)
    return 0


# --- output -------------------------------------------------------------------------------


def render(results: dict[str, Any]) -> str:
    m = results["machine"]
    out = [
        f"graphit core benchmarks - {m['date']}, {m['cpus']} CPUs, Python {m['python']}, "
        f"lancedb {m['lancedb']}, commit {m['git_commit'] or '?'}, "
        f"fold threshold {results['settings']['fold_threshold']}",
        f"load average (1/5/15 min) at start {m['loadavg_start']}, at end {m.get('loadavg_end')}",
        "",
    ]
    h = results["help"]
    b = results["batch"]
    rows = [
        [
            "cold `graphit --help`",
            "-",
            f"{h['median_s'] * 1000:.0f} ms median ({h['runs']} runs, "
            f"{h['min_s'] * 1000:.0f}-{h['max_s'] * 1000:.0f})",
            f"< {h['target_s'] * 1000:.0f} ms",
            verdict(h["median_s"], h["target_s"]),
        ]
    ]
    imp = results["import_lancedb"]
    rows.append(
        [
            "cold `python -c 'import lancedb'` (reference)",
            "-",
            f"{imp['median_s'] * 1000:.0f} ms median ({imp['runs']} runs, "
            f"{imp['min_s'] * 1000:.0f}-{imp['max_s'] * 1000:.0f})",
            "-",
            "",
        ]
    )
    for entry in results["list"]:
        rows.append(
            [
                "cold `memory list --format json`",
                size_label(entry["size"]),
                f"{entry['median_s'] * 1000:.0f} ms median ({entry['runs']} runs, "
                f"{entry['min_s'] * 1000:.0f}-{entry['max_s'] * 1000:.0f})",
                "-",
                "",
            ]
        )
    rows.append(
        [
            f"batch upsert_many ({size_label(b['records'])} new)",
            "0",
            f"{b['total_s']:.2f} s, {b['records_per_s']} rec/s (fold {b['fold_s']:.2f} s)",
            f"< {b['target_s']:.0f} s" if b["records"] == 10_000 else "-",
            verdict(b["total_s"], b["target_s"]) if b["records"] == 10_000 else "",
        ]
    )
    out.append(table(["benchmark", "rows", "measured", "target", ""], rows))
    out.append("")

    rows = []
    for entry in results["sizes"]:
        size = entry["build"]["size"]
        for kind in ("create", "update"):
            s = entry[kind]
            target, ok = "-", ""
            if kind == "update" and size == 100_000:
                target = f"p50 < {TARGETS['update_p50_ms_100k']:.0f} ms"
                ok = verdict(s["p50_ms"], TARGETS["update_p50_ms_100k"])
            folds = f"{s['folds']}" + (
                f" ({', '.join(f'{f * 1000:.0f}' for f in s['fold_s'])} ms)" if s["folds"] else ""
            )
            bd = s["breakdown_p50_ms"]
            rows.append(
                [
                    kind,
                    size_label(size),
                    str(s["n"]),
                    f"{s['p50_ms']:.1f}",
                    f"{s['p95_ms']:.1f}",
                    f"{s['max_ms']:.0f}",
                    f"{s['mean_ms']:.1f}",
                    folds,
                    f"{bd.get('heads', 0):.1f} / {bd.get('merge', 0):.1f} / "
                    f"{bd.get('fold_check', 0):.1f}",
                    target,
                    ok,
                ]
            )
    out.append("single writes (in-process; each phase starts from a freshly optimized table)")
    out.append(
        table(
            [
                "op",
                "rows",
                "n",
                "p50 ms",
                "p95 ms",
                "max ms",
                "mean ms",
                "folds (fold write ms)",
                "p50 heads/merge/fold-check ms",
                "target",
                "",
            ],
            rows,
        )
    )
    out.append("")
    rows = [
        [
            size_label(e["build"]["size"]),
            str(e["build"]["batches"]),
            f"{e['build']['build_s']:.1f}",
            str(e["build"]["folds_during_build"]),
            f"{e['build']['final_optimize_s']:.2f}",
            f"{e['build']['disk_bytes'] / 1e6:.1f}",
        ]
        for e in results["sizes"]
    ]
    out.append("table builds (upsert_many batches, then optimize)")
    out.append(
        table(["rows", "batches", "build s", "folds", "final optimize s", "MB on disk"], rows)
    )
    for entry in results["sizes"]:
        prof = entry.get("profile")
        if not prof:
            continue
        out.append("")
        out.append(
            f"cProfile of {prof['updates']} updates at {size_label(entry['build']['size'])} rows "
            f"({prof['wall_ms_per_update']:.1f} ms per update under the profiler); "
            "graphit and lancedb frames, ms per update"
        )
        rows = [
            [
                f"{r['cumtime_ms_per_update']:.2f}",
                f"{r['tottime_ms_per_update']:.2f}",
                str(r["calls"]),
                r["function"],
            ]
            for r in prof["top_cumulative"]
        ]
        out.append(table(["cum ms", "self ms", "calls", "function"], rows))
    out.append(f"total wall time {results['wall_s']} s")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
