"""The agent hooks' cost per prompt and per session, against issue 29's targets.

Run from the repository root (see benchmarks/README.md, "prompt_hook.py"):

    .venv/bin/python benchmarks/prompt_hook.py [--size 2000] [--runs 5] [--json OUT]

It builds a project scope of --size memories as cold_path.py does (the cursorrules set, vectors
from tests/embedders.HashingEmbedder under the real model's id), then times whole processes of
`graphit agent hook prompt` (the event as JSON on stdin, as Claude Code sends it) and `graphit
agent hook session-start`, each a ratio to a bare two-command Typer app's command timed in the
same rounds (medians over --runs, interleaved): without a daemon (`GRAPHIT_NO_DAEMON=1`: the
prompt hook searches lexically) and with `graphit memory daemon` running (hybrid search).
Targets: the prompt hook <= 4x without a daemon, <= 2x with one.
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

from _common import data_path, graphit_command, loadavg, log, require_data, reset_env
from cold_path import TYPER_APP, build, start_daemon

TARGETS = {
    "cold prompt hook (a match)": 4.0,
    "cold prompt hook (about nothing)": 4.0,
    "daemon prompt hook (a match)": 2.0,
    "daemon prompt hook (about nothing)": 2.0,
}
PROMPTS = {"a match": "how do we deploy the app to production?", "about nothing": "thanks!"}


def run(cmd: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not require_data(data_path(None)):
        return 2
    reset_env()
    work = Path(tempfile.mkdtemp(prefix="graphit-hooks-"))
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
    prompt = [*g, "agent", "hook", "prompt"]
    samples: dict[str, list[float]] = {}
    loads = [loadavg()]

    def rounds(kind: str, environment: dict[str, str]) -> None:
        for i in range(args.runs + 1):  # round 0 warms the page cache, not counted
            timed = {"baseline": run(baseline, env, work)}
            for label, text in PROMPTS.items():
                event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": text})
                timed[f"{kind} prompt hook ({label})"] = run(prompt, environment, work, event)
            timed[f"{kind} session-start hook"] = run(
                [*g, "agent", "hook", "session-start"], environment, work, "{}"
            )
            if i:
                for name, value in timed.items():
                    samples.setdefault(name, []).append(value)

    log(f"cold rounds (load {loadavg()})")
    rounds("cold", cold)
    log("daemon rounds")
    daemon = start_daemon(env, work)
    try:
        rounds("daemon", env)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    loads.append(loadavg())

    base = statistics.median(samples["baseline"])
    rows: list[dict[str, Any]] = []
    for name, values in samples.items():
        if name == "baseline":
            continue
        median = statistics.median(values)
        target = TARGETS.get(name)
        rows.append(
            {
                "name": name,
                "median_s": round(median, 3),
                "ratio": round(median / base, 2),
                "target": target,
                "met": None if target is None else median / base <= target,
            }
        )
    print(f"bare Typer command: {base:.3f} s (median of {len(samples['baseline'])}); load {loads}")
    for row in rows:
        target = f"<= {row['target']}x" if row["target"] else ""
        verdict = "" if row["met"] is None else ("met" if row["met"] else "NOT met")
        print(
            f"{row['name']:<36} {row['median_s']:>7.3f} s {row['ratio']:>6.2f}x {target} {verdict}"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"baseline_s": base, "rows": rows, "load": loads}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
