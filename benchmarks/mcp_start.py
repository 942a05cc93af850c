"""How fast `graphit memory mcp` answers `initialize` and `tools/list`, and how fast it stops.

Run from the repository root (see benchmarks/README.md, "mcp_start.py"):

    .venv/bin/python benchmarks/mcp_start.py [--runs 7] [--against /path/to/other/checkout]
                                             [--json OUT]

Each round starts a fresh server in an empty project (no daemon) and times, from the spawn:
the `initialize` answer, the `tools/list` answer sent right after it (static data since issue
32: before, it waited for the SDK's import and the server's build), and the exit after stdin is
closed. Beside it, in the same round, a bare
two-command Typer app's command (the baseline; the machine is shared, so only ratios compare
across runs). `--against` also times the server of another checkout (PYTHONPATH) in the same
rounds, e.g. the main branch before this change. Medians over --runs rounds; target:
`initialize` <= 3x the bare command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, TYPER_APP, clean_env, finish, loadavg, log

TARGET = 3.0
TARGET_LIST = 1.5
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "benchmark", "version": "1"},
    },
}
AFTER = (
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)


def bare(script: Path, work: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, str(script), "first"],
        cwd=work,
        check=True,
        timeout=600,
        capture_output=True,
    )
    return time.perf_counter() - t0


def server(env: dict[str, str], work: Path) -> dict[str, float]:
    """One server: seconds to the initialize answer, to the tools/list answer, to its exit."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "mcp"],
        env=env,
        cwd=work,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    t1 = time.perf_counter()
    assert answer.get("id") == 1 and "result" in answer, answer
    proc.stdin.write(AFTER.encode())
    proc.stdin.flush()
    listed = json.loads(proc.stdout.readline())
    t2 = time.perf_counter()
    assert listed.get("id") == 2 and len(listed["result"]["tools"]) == 15, listed
    proc.stdin.close()
    code = proc.wait(timeout=600)
    t3 = time.perf_counter()
    if code != 0:
        raise SystemExit(f"the server exited {code}")
    return {"initialize_s": t1 - t0, "tools_list_s": t2 - t0, "exit_after_close_s": t3 - t2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--against", help="another checkout, timed in the same rounds")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    started = time.perf_counter()
    load_start = loadavg()

    work = Path(tempfile.mkdtemp(prefix="graphit-mcp-start-"))
    (work / "graphit.lock.json").write_text(
        json.dumps({"project": {"id": "01JD00000000000000000BENCH"}})
    )
    script = work / "bare.py"
    script.write_text(TYPER_APP)
    checkouts = {"this": str(REPO)}
    if args.against:
        checkouts["against"] = str(Path(args.against).resolve())
    envs = {
        name: {
            **clean_env(),
            "GRAPHIT_HOME": str(work / f"home-{name}"),
            "GRAPHIT_AUTHOR": "benchmark",
            "GRAPHIT_NO_DAEMON": "1",
            "PYTHONPATH": path,
        }
        for name, path in checkouts.items()
    }
    for env in envs.values():  # the first start writes .pyc files and the state dir
        server(env, work)

    base: list[float] = []
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    for i in range(args.runs):
        base.append(bare(script, work))
        for name, env in envs.items():
            rounds[name].append(server(env, work))
        log(f"round {i + 1}/{args.runs}: load {loadavg()[0]}")

    baseline = statistics.median(base)
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "loadavg_start": load_start},
        "runs": args.runs,
        "bare_typer_median_s": round(baseline, 3),
        "bare_typer_s": [round(b, 3) for b in base],
        "checkouts": checkouts,
        "servers": {},
    }
    for name, samples in rounds.items():
        medians = {k: statistics.median(s[k] for s in samples) for k in samples[0]}
        results["servers"][name] = {
            "rounds": [{k: round(v, 3) for k, v in s.items()} for s in samples],
            **{k: round(v, 3) for k, v in medians.items()},
            **{k.replace("_s", "_x_bare"): round(v / baseline, 2) for k, v in medians.items()},
        }
    finish(results, started, render, args.json)


def render(results: dict[str, Any]) -> str:
    lines = [
        f"bare Typer command median {results['bare_typer_median_s']:.3f} s "
        f"({results['runs']} rounds; load {results['machine']['loadavg_start']} -> "
        f"{results['machine']['loadavg_end']}, {results['machine']['cpus']} cpus)",
        f"| server | initialize | x bare (target <= {TARGET:g}x) | tools/list "
        f"| x bare (target <= {TARGET_LIST:g}x) | exit after close |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in results["servers"].items():
        lines.append(
            f"| {name} ({results['checkouts'][name]}) | {s['initialize_s']:.2f} s | "
            f"{s['initialize_x_bare']:.1f}x | {s['tools_list_s']:.2f} s | "
            f"{s['tools_list_x_bare']:.1f}x | {s['exit_after_close_s']:.2f} s |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
