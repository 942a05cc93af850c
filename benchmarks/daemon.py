"""Daemon benchmark for graphit: the warm path, search under writes, one maintenance pass.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/daemon.py [--quick] [--json OUT]

What it measures, against real LanceDB tables in a temporary GRAPHIT_HOME:

(a) cold-process `graphit memory search "<query>" -f json` wall time on a 10k-memory table
    (median of --runs runs, one new process each, the queries rotating), without a daemon and
    with `graphit memory daemon` running (started as a subprocess with GRAPHIT_HOME and
    GRAPHIT_PROJECT_ID set; ready when `$GRAPHIT_HOME/run/daemon.sock` answers a ping; stopped
    with SIGTERM). Both paths run a hybrid search with the real model embedding the query:
    the table claims the real model's vectors (see below). For reference: a cold `--mode fts`
    search without the daemon (no model import) and the daemon's own answer time over the
    socket, measured in-process.
(b) search latency while this process makes --writes single upserts (3 creates, then 1 update,
    repeating) on a copy of the maintained 10k table: in-process `service.search` (FTS, and
    hybrid with a precomputed real query vector) every --sample-every writes, with and without
    the daemon running (its intervals shortened by GRAPHIT_EMBED_INTERVAL /
    GRAPHIT_MAINTAIN_INTERVAL), each with write-path folding on (default
    GRAPHIT_FOLD_THRESHOLD) and off (GRAPHIT_FOLD_THRESHOLD=0, where only the daemon folds).
    With the daemon, the warm-path search over its socket is sampled too.
(c) one `MemoryService.maintain(force=True)` pass at 10k and 100k rows after --maint-writes
    single upserts (folding on and off): its time, the table state before and after
    (fragments, unindexed rows, versions, bytes) and FTS/hybrid latency before and after.

Table vectors: embedding 10k rows with the real model takes minutes (100k: an hour) on two
cores, so tables get fast vectors from `tests/embedders.py:HashingEmbedder` built with
`model_id="sentence-transformers/all-MiniLM-L6-v2"` (the real model's id). The service and the
daemon then treat them as the real model's: a search loads the real model for its query and
runs hybrid. Latency does not depend on what the vectors mean; relevance does, and is not
measured here. Rows written during (b) get real vectors from the daemon's embedding loop.

graphit's code is measured as it is; the benchmark only wraps MemoryStore methods on its own
instances to count merges and folds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py, search_speed.py

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
    run_cli,
    size_label,
    summary_ms,
    table,
    verdict,
)
from search_speed import (
    QUERIES,
    REAL_MODEL_ID,
    FoldCounter,
    build_table,
    copy_home,
    open_service,
    query_vectors,
    reset_env,
    set_fold_threshold,
    state_dict,
    timed_methods,
    write_ops,
)

TARGETS = {
    "cli_search_with_daemon_s": 0.3,  # cold `graphit memory search` with the daemon, median
    "daemon_gain_x": 10.0,  # without / with the daemon
}


# --- processes ----------------------------------------------------------------------------


def cli_env(home: Path, project_id: str, **extra: str) -> dict[str, str]:
    env = clean_env()
    env.update(
        GRAPHIT_HOME=str(home),
        GRAPHIT_PROJECT_ID=project_id,
        GRAPHIT_AUTHOR="benchmark",
        LANCEDB_LOG="error",
    )
    env.update(extra)
    return env


def socket_path(home: Path) -> Path:
    return home / "run" / "daemon.sock"


class DaemonProcess:
    """`graphit memory daemon` as a subprocess, its JSON event log in a file."""

    def __init__(self, home: Path, env: dict[str, str], workdir: Path, name: str) -> None:
        self.home = home
        self.env = env
        self.log_path = workdir / f"daemon-{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.ready_s = 0.0

    def start(self, timeout: float = 180.0) -> None:
        from graphit_cli.warm import wire

        cmd = [*graphit_command(), "memory", "daemon", "-s", "project", "--log-format", "json"]
        self._log = self.log_path.open("wb")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            cmd, env=self.env, cwd=self.home, stdout=subprocess.DEVNULL, stderr=self._log
        )
        path = socket_path(self.home)
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                raise SystemExit(f"the daemon exited ({self.proc.returncode}): {self.log_text()}")
            if path.exists() and wire.call(path, {"op": "ping"}, timeout=2.0) is not None:
                self.ready_s = time.perf_counter() - t0
                return
            time.sleep(0.05)
        self.stop()
        raise SystemExit(f"the daemon did not answer within {timeout:.0f} s")

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()
        code = self.proc.returncode
        self.proc = None
        return code

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        except OSError:
            return ""

    def events(self) -> list[dict[str, Any]]:
        found = []
        for line in self.log_text_full().splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found

    def log_text_full(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""


def hit_ids(stdout: str) -> list[str]:
    return [h["id"] for h in json.loads(stdout)]


# --- (a) the warm path --------------------------------------------------------------------


def cli_series(home: Path, project_id: str, runs: int, extra: Sequence[str] = ()) -> dict[str, Any]:
    """`runs` cold `graphit memory search` processes (one untimed warm-up first)."""
    env = cli_env(home, project_id)
    samples: list[float] = []
    outputs: dict[str, list[str]] = {}
    for n in range(runs + 1):
        query = QUERIES[(n - 1) % len(QUERIES)] if n else QUERIES[-1]
        cmd = [*graphit_command(), "memory", "search", query, "-f", "json", *extra]
        elapsed, stdout, stderr = run_cli(cmd, env, home)
        if "lexical search only" in stderr and not extra:
            raise SystemExit(f"the search fell back to FTS: {stderr.strip()}")
        ids = hit_ids(stdout)
        if not ids:
            raise SystemExit(f"no hits for {query!r}")
        if n:
            samples.append(elapsed)
            outputs[query] = ids
    return {
        "runs": runs,
        "median_s": round(statistics.median(samples), 3),
        "min_s": round(min(samples), 3),
        "max_s": round(max(samples), 3),
        "samples_s": [round(s, 3) for s in samples],
        "hits": outputs,
    }


def socket_search(home: Path, project_id: str, query: str, mode: str = "auto") -> float:
    from graphit_cli.warm import wire

    request = {
        "op": "search",
        "scope": f"project:{project_id}",
        "query": query,
        "top_k": 10,
        "mode": mode,
        "filter": {},
    }
    t0 = time.perf_counter()
    reply = wire.call(socket_path(home), request)
    elapsed = time.perf_counter() - t0
    if reply is None:
        raise SystemExit("the daemon did not answer a search")
    if reply["result"]["mode"] != ("hybrid" if mode == "auto" else mode):
        raise SystemExit(f"the daemon ran {reply['result']['mode']}: {reply['result']['notice']}")
    return elapsed


def bench_warm_path(base_home: Path, project_id: str, runs: int, workdir: Path) -> dict[str, Any]:
    home = workdir / "home-cli"
    copy_home(base_home, home)
    out: dict[str, Any] = {}
    log(f"(a) cold `graphit memory search` x{runs}, no daemon (the model loads in each process)")
    out["without_daemon"] = cli_series(home, project_id, runs)
    log(f"(a) cold `graphit memory search --mode fts` x{runs}, no daemon (reference)")
    out["fts_without_daemon"] = cli_series(home, project_id, runs, ("--mode", "fts"))
    log("(a) starting the daemon")
    daemon = DaemonProcess(home, cli_env(home, project_id), workdir, "cli")
    daemon.start()
    try:
        out["daemon_ready_s"] = round(daemon.ready_s, 2)
        t0 = time.perf_counter()
        socket_search(home, project_id, QUERIES[0])  # the daemon loads the model here
        out["daemon_first_search_s"] = round(time.perf_counter() - t0, 2)
        log(f"(a) cold `graphit memory search` x{runs}, daemon running")
        out["with_daemon"] = cli_series(home, project_id, runs)
        times = [socket_search(home, project_id, q) for q in QUERIES]
        out["socket_hybrid"] = summary_ms(times)
        times = [socket_search(home, project_id, q, "fts") for q in QUERIES]
        out["socket_fts"] = summary_ms(times)
        # The model's share of a warm search: hybrid minus fts (the daemon has no op that
        # embeds alone; removed since as dead code).
        out["socket_model_share_ms"] = round(
            out["socket_hybrid"]["p50_ms"] - out["socket_fts"]["p50_ms"], 1
        )
    finally:
        out["daemon_exit_code"] = daemon.stop()
    same = sum(
        out["with_daemon"]["hits"][q] == out["without_daemon"]["hits"].get(q)
        for q in out["with_daemon"]["hits"]
    )
    out["same_hits"] = f"{same}/{len(out['with_daemon']['hits'])}"
    for key in ("without_daemon", "fts_without_daemon", "with_daemon"):
        out[key].pop("hits")
    out["gain_x"] = round(out["without_daemon"]["median_s"] / out["with_daemon"]["median_s"], 1)
    return out


# --- (b) search under writes --------------------------------------------------------------


def bench_under_writes(
    base_home: Path,
    project_id: str,
    ids: list[str],
    corpus: Corpus,
    size: int,
    vectors: Sequence[list[float]],
    *,
    with_daemon: bool,
    fold: int | None,
    writes: int,
    every: int,
    per_sample: int,
    intervals: tuple[float, float],
    workdir: Path,
) -> dict[str, Any]:
    from graphit_cli import config

    name = f"{'daemon' if with_daemon else 'nodaemon'}-fold{'default' if fold is None else fold}"
    home = workdir / f"home-{name}"
    copy_home(base_home, home)
    set_fold_threshold(fold)
    daemon = None
    result: dict[str, Any] = {"daemon": with_daemon, "fold_threshold": config.fold_threshold()}
    try:
        svc = open_service(home, project_id)
        counter = FoldCounter(svc.store)
        if with_daemon:
            extra = {
                "GRAPHIT_EMBED_INTERVAL": f"{intervals[0]:g}",
                "GRAPHIT_MAINTAIN_INTERVAL": f"{intervals[1]:g}",
            }
            if fold is not None:
                extra["GRAPHIT_FOLD_THRESHOLD"] = str(fold)
            daemon = DaemonProcess(home, cli_env(home, project_id, **extra), workdir, name)
            daemon.start()
            socket_search(home, project_id, QUERIES[0])  # a warm daemon has its model loaded
        pairs = list(zip(QUERIES, vectors, strict=True))
        ops = write_ops(corpus, ids, first_new=size, seed=size + writes)
        upserts: list[float] = []
        samples: dict[str, list[float]] = {"fts": [], "hybrid": [], "socket_hybrid": []}
        checkpoints: list[dict[str, Any]] = []
        cursor = 0
        started = time.perf_counter()
        with timed_methods(svc.store, ("merge",)) as calls:
            for n in range(1, writes + 1):
                draft = next(ops)
                t0 = time.perf_counter()
                svc.upsert(draft)
                upserts.append(time.perf_counter() - t0)
                if n % every:
                    continue
                chosen = [pairs[(cursor + k) % len(pairs)] for k in range(per_sample)]
                cursor += per_sample
                point: dict[str, Any] = {"writes": n}
                for mode in ("fts", "hybrid"):
                    times = []
                    for q, v in chosen:
                        t0 = time.perf_counter()
                        svc.search(q, mode=mode, query_vector=v if mode == "hybrid" else None)
                        times.append(time.perf_counter() - t0)
                    samples[mode].extend(times)
                    point[f"{mode}_ms"] = round(statistics.median(times) * 1000, 1)
                if with_daemon:
                    times = [socket_search(home, project_id, q) for q, _ in chosen]
                    samples["socket_hybrid"].extend(times)
                    point["socket_hybrid_ms"] = round(statistics.median(times) * 1000, 1)
                point["fragments"] = int(svc.store.table.stats()["fragment_stats"]["num_fragments"])
                checkpoints.append(point)
        result["elapsed_s"] = round(time.perf_counter() - started, 1)
        result["merges"] = len(calls["merge"])
        svc.store.refresh()
        result["final_state"] = state_dict(svc.store)
    finally:
        set_fold_threshold(None)
        if daemon is not None:
            result["daemon_exit_code"] = daemon.stop()
        shutil.rmtree(home, ignore_errors=True)
    if daemon is not None:
        events = daemon.events()
        result["daemon_events"] = {
            kind: sum(1 for e in events if e.get("event") == kind)
            for kind in ("maintain.done", "embed.done", "loop.error", "request.error")
        }
        result["daemon_embedded_rows"] = sum(
            int(e.get("rows", 0)) for e in events if e.get("event") == "embed.done"
        )
        result["daemon_maintain_s"] = [
            float(e["seconds"]) for e in events if e.get("event") == "maintain.done"
        ]
    result.update(
        writes=writes,
        upsert=summary_ms(upserts),
        folds=len(counter.folds),
        fold_kinds=counter.summary(),
        fts=summary_ms(samples["fts"]),
        hybrid=summary_ms(samples["hybrid"]),
        socket_hybrid=summary_ms(samples["socket_hybrid"]) if with_daemon else None,
        checkpoints=checkpoints,
    )
    return result


# --- (c) one maintenance pass -------------------------------------------------------------


def quick_latency(svc: Any, vectors: Sequence[list[float]]) -> dict[str, float]:
    out = {}
    for mode in ("fts", "hybrid"):
        times = []
        for q, v in zip(QUERIES, vectors, strict=True):
            t0 = time.perf_counter()
            svc.search(q, mode=mode, query_vector=v if mode == "hybrid" else None)
            times.append(time.perf_counter() - t0)
        out[f"{mode}_p50_ms"] = round(percentile([t * 1000 for t in times], 50), 1)
    return out


def bench_maintain(
    base_home: Path,
    project_id: str,
    ids: list[str],
    corpus: Corpus,
    size: int,
    vectors: Sequence[list[float]],
    *,
    fold: int | None,
    writes: int,
    workdir: Path,
) -> dict[str, Any]:
    from graphit_cli import config

    home = workdir / f"home-maint-{size}-{'default' if fold is None else fold}"
    copy_home(base_home, home)
    set_fold_threshold(fold)
    try:
        svc = open_service(home, project_id)
        threshold = config.fold_threshold()
        counter = FoldCounter(svc.store)
        ops = write_ops(corpus, ids, first_new=size, seed=size + 17)
        upserts = []
        for _ in range(writes):
            t0 = time.perf_counter()
            svc.upsert(next(ops))
            upserts.append(time.perf_counter() - t0)
        folds = len(counter.folds)
        before_latency = quick_latency(svc, vectors)
        report = svc.maintain(force=True)
        after_latency = quick_latency(svc, vectors)
    finally:
        set_fold_threshold(None)
    return {
        "size": size,
        "fold_threshold": threshold,
        "writes": writes,
        "upsert": summary_ms(upserts),
        "folds_during_writes": folds,
        "fold_kinds": counter.summary(),
        "maintain_s": round(report.seconds, 2),
        "actions": report.actions,
        "retries": report.retries,
        "before": {**asdict_state(report.before), **before_latency},
        "after": {**asdict_state(report.after), **after_latency},
    }


def asdict_state(state: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(state)


# --- driver -------------------------------------------------------------------------------


def maintained_table(
    workdir: Path, corpus: Corpus, size: int
) -> tuple[Path, str, list[str], dict[str, Any]]:
    home = workdir / f"base-{size}"
    log(f"building {size} memories (fast vectors labelled {REAL_MODEL_ID})")
    project_id, ids, build = build_table(home, corpus, size)
    svc = open_service(home, project_id)
    report = svc.maintain(force=True)
    build["maintain_s"] = round(report.seconds, 2)
    build["state"] = state_dict(svc.store)
    log(f"built: {build}")
    return home, project_id, ids, build


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller tables, fewer runs")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    parser.add_argument("--size", type=int, help="table for (a) and (b) (default 10000)")
    parser.add_argument("--maint-sizes", help="sizes for (c) (default 10000,100000)")
    parser.add_argument("--runs", type=int, help="cold CLI runs per path (default 7)")
    parser.add_argument("--writes", type=int, help="single upserts in (b) (default 1000)")
    parser.add_argument("--maint-writes", type=int, help="single upserts before (c) (200)")
    parser.add_argument("--sample-every", type=int, default=50, help="search every N writes")
    parser.add_argument("--per-sample", type=int, default=4, help="queries per mode per sample")
    parser.add_argument("--embed-interval", type=float, default=5.0, help="daemon, seconds")
    parser.add_argument("--maintain-interval", type=float, default=10.0, help="daemon, seconds")
    parser.add_argument(
        "--skip", default="", help="comma list of parts to skip: a, b, c (for partial runs)"
    )
    parser.add_argument("--data", help=f"JSONL of source memories (or ${DATA_ENV})")
    args = parser.parse_args(argv)
    quick = args.quick
    args.size = args.size or (2000 if quick else 10_000)
    args.maint_sizes = [
        int(s) for s in (args.maint_sizes or ("2000" if quick else "10000,100000")).split(",")
    ]
    args.runs = args.runs or (3 if quick else 7)
    args.writes = args.writes or (200 if quick else 1000)
    args.maint_writes = args.maint_writes or (50 if quick else 200)
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    args.data = data_path(args.data)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not require_data(args.data):
        return 2
    reset_env()
    from graphit_cli.embed import load_default

    corpus = Corpus(load_records(args.data))
    results: dict[str, Any] = {
        "machine": machine_info(detailed=True),
        "settings": {
            "size": args.size,
            "maint_sizes": args.maint_sizes,
            "runs": args.runs,
            "writes": args.writes,
            "maint_writes": args.maint_writes,
            "sample_every": args.sample_every,
            "per_sample": args.per_sample,
            "daemon_intervals_s": [args.embed_interval, args.maintain_interval],
            "data": str(args.data),
            "quick": args.quick,
            "table_vectors": f"HashingEmbedder labelled {REAL_MODEL_ID}",
        },
        "targets": TARGETS,
    }
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="graphit-daemon-bench-"))
    try:
        log("loading the real model (query vectors for the in-process searches)")
        model = load_default()
        if model is None or model.model_id != REAL_MODEL_ID:
            raise SystemExit("the packaged model is not installed (pip install graphit-cli)")
        vectors, _ = query_vectors(model, QUERIES)
        base_home, project_id, ids, build = maintained_table(workdir, corpus, args.size)
        results["build"] = build

        if "a" not in args.skip:
            results["warm_path"] = bench_warm_path(base_home, project_id, args.runs, workdir)

        if "b" not in args.skip:
            results["under_writes"] = []
            for with_daemon in (False, True):
                for fold in (None, 0):
                    log(
                        f"(b) {args.writes} single upserts, daemon "
                        f"{'on' if with_daemon else 'off'}, folding "
                        f"{'default' if fold is None else 'off'}"
                    )
                    results["under_writes"].append(
                        bench_under_writes(
                            base_home,
                            project_id,
                            ids,
                            corpus,
                            args.size,
                            vectors,
                            with_daemon=with_daemon,
                            fold=fold,
                            writes=args.writes,
                            every=args.sample_every,
                            per_sample=args.per_sample,
                            intervals=(args.embed_interval, args.maintain_interval),
                            workdir=workdir,
                        )
                    )

        if "c" not in args.skip:
            results["maintain"] = []
            for size in args.maint_sizes:
                if size == args.size:
                    home, pid, size_ids = base_home, project_id, ids
                else:
                    home, pid, size_ids, extra = maintained_table(workdir, corpus, size)
                    results.setdefault("extra_builds", []).append(extra)
                for fold in (None, 0):
                    log(
                        f"(c) {args.maint_writes} upserts then maintain(force=True) at {size}, "
                        f"folding {'default' if fold is None else 'off'}"
                    )
                    results["maintain"].append(
                        bench_maintain(
                            home,
                            pid,
                            size_ids,
                            corpus,
                            size,
                            vectors,
                            fold=fold,
                            writes=args.maint_writes,
                            workdir=workdir,
                        )
                    )
                    for leftover in workdir.glob(f"home-maint-{size}-*"):
                        shutil.rmtree(leftover, ignore_errors=True)
                if home != base_home:
                    shutil.rmtree(home, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    finish(results, started, render, args.json)
    return 0


# --- output -------------------------------------------------------------------------------


def short_folds(kinds: dict[str, Any]) -> str:
    """'compacted 11, indexed 1' (what the write path's folds did), or 'none'."""
    return ", ".join(f"{kind} {v['n']}" for kind, v in kinds.items()) or "none"


def render(results: dict[str, Any]) -> str:
    m = results["machine"]
    s = results["settings"]
    out = [
        f"graphit daemon benchmark - {m['date']}, {m['cpus']} CPUs ({m['cpu_model']}), "
        f"Python {m['python']}, lancedb {m['lancedb']}, commit {m['git_commit'] or '?'} "
        f"(graphit_cli sha256 {m['graphit_cli_sha256']})",
        f"load average (1/5/15 min) at start {m['loadavg_start']}, at end {m.get('loadavg_end')}",
        f"table vectors: {s['table_vectors']}; queries embedded by the real model",
        "",
    ]
    w = results.get("warm_path")
    if w:
        size = size_label(s["size"])
        rows = []
        for key, label in (
            ("without_daemon", "cold `memory search -f json`, no daemon"),
            ("fts_without_daemon", "cold `memory search --mode fts -f json`, no daemon"),
            ("with_daemon", "cold `memory search -f json`, daemon running"),
        ):
            e = w[key]
            target, ok = "-", ""
            if key == "with_daemon":
                limit = TARGETS["cli_search_with_daemon_s"]
                target, ok = f"< {limit:g} s", verdict(e["median_s"], limit)
            rows.append(
                [
                    label,
                    size,
                    f"{e['median_s']:.3f} s median ({e['runs']} runs, "
                    f"{e['min_s']:.3f}-{e['max_s']:.3f})",
                    target,
                    ok,
                ]
            )
        gain = w["gain_x"]
        rows.append(
            [
                "gain (no daemon / daemon)",
                size,
                f"{gain:.1f}x",
                f">= {TARGETS['daemon_gain_x']:g}x",
                "ok" if gain >= TARGETS["daemon_gain_x"] else "MISS",
            ]
        )
        for key, label in (
            ("socket_hybrid", "daemon answer over the socket, hybrid (in-process client)"),
            ("socket_fts", "daemon answer over the socket, fts (in-process client)"),
            ("socket_embed_query", "daemon embed_query over the socket (model alone)"),
        ):
            e = w[key]
            rows.append(
                [label, size, f"p50 {e['p50_ms']:.1f} ms, p95 {e['p95_ms']:.1f} ms", "-", ""]
            )
        rows.append(
            [
                "daemon start to first ping / first search (model load)",
                size,
                f"{w['daemon_ready_s']:.1f} s / {w['daemon_first_search_s']:.1f} s",
                "-",
                "",
            ]
        )
        out.append(f"(a) the warm path; same hits with and without the daemon: {w['same_hits']}")
        out.append(table(["what", "rows", "measured", "target", ""], rows))
        out.append("")
    runs = results.get("under_writes")
    if runs:
        out.append(
            f"(b) search while making {runs[0]['writes']} single upserts on the maintained "
            f"{size_label(s['size'])} table (daemon intervals {s['daemon_intervals_s'][0]:g} s "
            f"embed / {s['daemon_intervals_s'][1]:g} s maintain); samples every "
            f"{s['sample_every']} writes"
        )
        rows = []
        for r in runs:
            st = r["final_state"]
            sock = r["socket_hybrid"]
            ev = r.get("daemon_events", {})
            rows.append(
                [
                    "on" if r["daemon"] else "off",
                    str(r["fold_threshold"]) + (" (off)" if r["fold_threshold"] == 0 else ""),
                    f"{r['upsert']['p50_ms']:.0f} / {r['upsert']['p95_ms']:.0f} / "
                    f"{r['upsert']['max_ms']:.0f}",
                    f"{r['fts']['p50_ms']:.1f} / {r['fts']['p95_ms']:.1f}",
                    f"{r['hybrid']['p50_ms']:.1f} / {r['hybrid']['p95_ms']:.1f}",
                    f"{sock['p50_ms']:.0f} / {sock['p95_ms']:.0f}" if sock else "-",
                    short_folds(r["fold_kinds"]),
                    f"{ev.get('maintain.done', 0)} / {r.get('daemon_embedded_rows', 0)}"
                    if r["daemon"]
                    else "-",
                    str(r["merges"] - r["writes"]),
                    f"{st['fragments']} / {st['unindexed_rows']}",
                    f"{st['rows_with_vectors']}/{st['rows']}",
                    f"{r['elapsed_s']:.0f}",
                ]
            )
        out.append(
            table(
                [
                    "daemon",
                    "fold thr",
                    "upsert p50/p95/max ms",
                    "fts p50/p95 ms",
                    "hybrid p50/p95 ms",
                    "socket hybrid p50/p95 ms",
                    "write-path folds",
                    "daemon passes / embedded",
                    "retries",
                    "end frags / unindexed",
                    "vectors",
                    "s",
                ],
                rows,
            )
        )
        for r in runs:
            label = f"daemon {'on' if r['daemon'] else 'off'}, fold {r['fold_threshold']}"
            series = " ".join(f"{p['fts_ms']:.0f}" for p in r["checkpoints"])
            frags = " ".join(str(p["fragments"]) for p in r["checkpoints"])
            pad = " " * len(label)
            out.append(f"  {label}: fts ms per checkpoint:           {series}")
            if r["daemon"]:
                sock = " ".join(f"{p['socket_hybrid_ms']:.0f}" for p in r["checkpoints"])
                out.append(f"  {pad}  socket hybrid ms per checkpoint: {sock}")
            out.append(f"  {pad}  fragments per checkpoint:        {frags}")
        out.append("")
    maint = results.get("maintain")
    if maint:
        out.append("(c) one maintain(force=True) pass after single upserts")
        rows = []
        for r in maint:
            b, a = r["before"], r["after"]
            rows.append(
                [
                    size_label(r["size"]),
                    str(r["fold_threshold"]),
                    f"{r['writes']} ({short_folds(r['fold_kinds'])})",
                    f"{r['maintain_s']:.2f}",
                    f"{b['fragments']} -> {a['fragments']}",
                    f"{b['unindexed_rows']} -> {a['unindexed_rows']}",
                    f"{b['versions']} -> {a['versions']}",
                    f"{b['bytes'] / 1e6:.0f} -> {a['bytes'] / 1e6:.0f}",
                    f"{b['fts_p50_ms']:.1f} -> {a['fts_p50_ms']:.1f}",
                    f"{b['hybrid_p50_ms']:.1f} -> {a['hybrid_p50_ms']:.1f}",
                ]
            )
        out.append(
            table(
                [
                    "rows",
                    "fold thr",
                    "writes",
                    "maintain s",
                    "fragments",
                    "unindexed",
                    "versions",
                    "MB",
                    "fts p50 ms",
                    "hybrid p50 ms",
                ],
                rows,
            )
        )
    out.append(f"total wall time {results['wall_s']} s")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
