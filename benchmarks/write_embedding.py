"""Every write embedded, and embedding outside the write lock.

Run from the repository root (see benchmarks/README.md, "write_embedding.py"):

    .venv/bin/python benchmarks/write_embedding.py [--size 2000] [--runs 5] [--batches 3000,10000]

Whole processes, each a ratio to a bare two-command Typer app's command timed in the same run
(the machine is shared: only ratios compare across runs), medians over --runs:

- cold `upsert` of one memory (`GRAPHIT_NO_DAEMON=1`) on a --size table whose vectors are the
  default model's: the row is embedded (default model, loaded in the process) and committed
  with its vector; the script checks that it has one;
- batches of --batches new memories from NDJSON on stdin, in-process and forwarded to a running
  daemon (`graphit memory daemon`), each into a fresh project table; the first
  `WRITE_EMBED_ROWS` rows are embedded before the commit, the rest left to the pass / the
  daemon's loop (which, for the forwarded ones, starts on them at once: it runs beside the
  later measurements, as it would for a user);
- a one-row forwarded `upsert` alone, and started while a 3,000-row forwarded batch is under
  way (at --beside-delay seconds after the batch's command started), before the big forwarded
  batches and with the daemon's loop interval at an hour (its pass over a batch's leftover
  rows then does not run beside the one-row writes:
  docs/decisions/0008-every-write-embedded-bounded.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import data_path, graphit_command, loadavg, log, require_data, reset_env
from cold_path import TYPER_APP, build, run, start_daemon

COLD_UPSERT_TARGET = 4.5  # a cold upsert including its row's embedding
BESIDE_TARGET = 3.0  # a one-row write beside a 3,000-row forwarded batch
WORDS = ["deploy", "queue", "worker", "retries", "database", "postgres", "redis", "cache"]
WORDS += ["invalidation", "token", "auth", "session", "migration", "schema", "index", "shard"]


def batch_file(path: Path, n: int, tag: str) -> Path:
    rnd = random.Random(f"{tag}:{n}")
    with path.open("w") as out:
        for i in range(n):
            body = " ".join(rnd.choice(WORDS) for _ in range(30))
            record = {"title": f"{tag} note {i} {rnd.choice(WORDS)}", "body": f"{i}: {body}"}
            out.write(json.dumps(record) + "\n")
    return path


def timed_stdin(cmd: list[str], env: dict[str, str], cwd: Path, stdin: Path) -> float:
    t0 = time.perf_counter()
    with stdin.open() as handle:
        proc = subprocess.run(
            cmd, env=env, cwd=cwd, stdin=handle, capture_output=True, text=True, timeout=3600
        )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed


def new_project_id() -> str:
    from ulid import ULID

    return str(ULID())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=2000, help="the cold upsert's table")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--batches", default="3000,10000")
    parser.add_argument("--beside-runs", type=int, default=3)
    parser.add_argument("--beside-delay", type=float, default=1.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not require_data(data_path(None)):
        return 2
    sizes = [int(s) for s in args.batches.split(",") if s]
    reset_env()
    work = Path(tempfile.mkdtemp(prefix="graphit-writeembed-"))
    home = work / "home"
    project_id, _ = build(home, args.size)
    bare = work / "bare.py"
    bare.write_text(TYPER_APP)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")},
        "GRAPHIT_HOME": str(home),
        "GRAPHIT_PROJECT_ID": project_id,
        "GRAPHIT_AUTHOR": "benchmark",
        "LANCEDB_LOG": "error",
    }
    cold = {**env, "GRAPHIT_NO_DAEMON": "1"}
    g = graphit_command()
    baseline = [sys.executable, str(bare), "first"]
    samples: dict[str, list[float]] = {"baseline": []}

    def upsert(i: int, tag: str) -> list[str]:
        body = f"The {tag} service {i} retries failed jobs with exponential backoff."
        return [*g, "memory", "upsert", "--title", f"Bench {tag} {i}", "--body", body]

    log(f"cold upserts (load {loadavg()})")
    for i in range(args.runs + 1):  # round 0 warms the page cache, not counted
        for name, cmd, e in (("baseline", baseline, env), ("cold upsert", upsert(i, "cold"), cold)):
            elapsed = run(cmd, e, work)
            if i:
                samples.setdefault(name, []).append(elapsed)
    check = subprocess.run(
        [*g, "memory", "list", "-f", "json", "--limit", "1"],
        env=cold,
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    newest = json.loads(check.stdout)[0]["id"]
    os.environ["GRAPHIT_HOME"] = str(home)
    from search_speed import open_service

    row = open_service(home, project_id).store.get(newest, vectors=True)
    assert row is not None and row.embedding is not None, "the cold upsert left no vector"

    batch_s: dict[str, float] = {}
    log(f"in-process batches (load {loadavg()})")
    for n in sizes:
        data = batch_file(work / f"in-{n}.ndjson", n, f"in{n}")
        e = {**cold, "GRAPHIT_PROJECT_ID": new_project_id()}
        batch_s[f"in-process {n}"] = timed_stdin([*g, "memory", "upsert", "-"], e, work, data)
        log(f"  in-process {n}: {batch_s[f'in-process {n}']:.2f} s")
        samples["baseline"].append(run(baseline, env, work))

    log(f"daemon rounds (load {loadavg()})")
    # The daemon's loop for a scope it already serves runs on its interval: an hour here, so
    # the one-row figures are the write path's own and not the loop embedding a backlog (the
    # forwarded batches' new scopes still get their loop's first pass at once, after them).
    daemon = start_daemon({**env, "GRAPHIT_EMBED_INTERVAL": "3600"}, work)
    try:
        for i in range(args.runs + 1):
            for name, cmd in (("baseline", baseline), ("daemon upsert", upsert(i, "warm"))):
                elapsed = run(cmd, env, work)
                if i:
                    samples.setdefault(name, []).append(elapsed)
        log(f"one-row writes beside a 3,000-row batch (load {loadavg()})")
        beside: list[float] = []
        for r in range(args.beside_runs):
            data = batch_file(work / f"beside-{r}.ndjson", 3000, f"beside{r}")
            with data.open() as handle:
                t0 = time.perf_counter()
                batch = subprocess.Popen(
                    [*g, "memory", "upsert", "-"],
                    env=env,
                    cwd=work,
                    stdin=handle,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                time.sleep(args.beside_delay)
                beside.append(run(upsert(r, "beside"), env, work))
                running = batch.poll() is None
                code = batch.wait(timeout=3600)
                total = time.perf_counter() - t0
            log(f"  one-row {beside[-1]:.2f} s; batch {total:.2f} s; batch ran on: {running}")
            if code != 0:
                raise SystemExit(f"the batch failed ({code})")
            samples["baseline"].append(run(baseline, env, work))
        for n in sizes:
            data = batch_file(work / f"fw-{n}.ndjson", n, f"fw{n}")
            e = {**env, "GRAPHIT_PROJECT_ID": new_project_id()}
            batch_s[f"forwarded {n}"] = timed_stdin([*g, "memory", "upsert", "-"], e, work, data)
            log(f"  forwarded {n}: {batch_s[f'forwarded {n}']:.2f} s")
            samples["baseline"].append(run(baseline, env, work))
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=120)

    base = statistics.median(samples["baseline"])
    cold_x = statistics.median(samples["cold upsert"]) / base
    alone = statistics.median(samples["daemon upsert"])
    beside_median = statistics.median(beside)
    results: dict[str, Any] = {
        "size": args.size,
        "runs": args.runs,
        "load_after": loadavg(),
        "baseline_median_s": round(base, 3),
        "cold_upsert_s": round(statistics.median(samples["cold upsert"]), 3),
        "cold_upsert_x": round(cold_x, 2),
        "daemon_upsert_s": round(alone, 3),
        "daemon_upsert_x": round(alone / base, 2),
        "batches_s": {k: round(v, 2) for k, v in batch_s.items()},
        "beside_s": [round(b, 3) for b in beside],
        "beside_over_alone": round(beside_median / alone, 2),
    }
    print(f"baseline (bare Typer app) median {base:.3f} s; load after {results['load_after']}")
    print("| measurement | seconds | ratio | target |\n|---|---|---|---|")
    verdict = "met" if cold_x <= COLD_UPSERT_TARGET else "missed"
    print(
        f"| cold `upsert`, its row embedded | {results['cold_upsert_s']:.2f} | "
        f"{cold_x:.1f}x bare | <= {COLD_UPSERT_TARGET}x ({verdict}) |"
    )
    print(f"| daemon `upsert` (one row alone) | {alone:.2f} | {alone / base:.1f}x bare | |")
    for n in sizes:
        inside, fwd = batch_s[f"in-process {n}"], batch_s[f"forwarded {n}"]
        print(
            f"| {n:,}-row batch: in-process / forwarded | {inside:.1f} / {fwd:.1f} | "
            f"{fwd / inside:.2f}x in-process | about 1x |"
        )
    verdict = "met" if beside_median / alone <= BESIDE_TARGET else "missed"
    print(
        f"| one-row write beside a 3,000-row forwarded batch | {beside_median:.2f} "
        f"(runs {', '.join(f'{b:.2f}' for b in beside)}) | {beside_median / alone:.1f}x alone "
        f"| <= {BESIDE_TARGET}x ({verdict}) |"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
