"""The agent's hot path per prompt and per session.

Run from the repository root (see benchmarks/README.md, "prompt_hook.py"):

    .venv/bin/python benchmarks/prompt_hook.py [--size 2000] [--runs 5] [--json OUT]

It builds a project scope of --size memories as cold_path.py does (the cursorrules set, vectors
from tests/embedders.HashingEmbedder under the real model's id), then times whole processes, each
a ratio to a bare two-command Typer app's command timed in the same rounds (medians over --runs,
interleaved; the per-prompt hooks as p50):
- `graphit agent hook prompt` (the event as JSON on stdin, as Claude Code sends it) and
  `graphit agent hook session-start`: without any warm process, with `graphit memory daemon`,
  and with only an agent session open (`graphit memory mcp` running, its stdin held open as a
  client holds it; no daemon), after the session's first call;
- a pasted 4,000-character prompt (a traceback with the question at its end) with a daemon;
- forwarded `memory search` and `memory source` (markdown, as an agent's pipe gets them);
- a frozen daemon (SIGSTOP): every hook call, its first and the later ones, without and with an
  agent session open.
Run it against another checkout's code with PYTHONPATH=that/checkout (the "before" figures).
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
    data_path,
    graphit_command,
    loadavg,
    log,
    require_data,
    reset_env,
    start_daemon,
)
from cold_path import build

TARGETS = {
    "cold prompt hook (a match)": 4.0,
    "daemon prompt hook (a match)": 0.5,
    "daemon prompt hook (about nothing)": 0.5,
    "session prompt hook (a match)": 0.5,
    "session prompt hook (about nothing)": 0.5,
    "daemon prompt hook (4,000 characters)": 1.0,
    "daemon search": 0.6,
    "daemon source": 0.6,
    "frozen daemon: later prompt hooks, session open": 1.0,
}
PROMPTS = {"a match": "how do we deploy the app to production?", "about nothing": "thanks!"}
TRACE = "".join(
    f'  File "/srv/app/module_{n}.py", line {n * 7}, in handler_{n}\n    result = step_{n}(x)\n'
    for n in range(60)
)
LONG = f"Here is the traceback:\n{TRACE}"[:3940] + "\nhow do we deploy the app to production?"


def run(cmd: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed


def event(text: str) -> str:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": text})


def start_session(env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    """`graphit memory mcp` as a client runs it (stdin held open), once it has had a few
    seconds to warm up (its socket answers when the code has a session server)."""
    proc = subprocess.Popen(
        [*graphit_command(), "memory", "mcp"],
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sessions = Path(env["GRAPHIT_HOME"]) / "run" / "sessions"
    deadline = time.monotonic() + 30  # code without a session server never makes one
    while not list(sessions.glob("*.sock")) and time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    time.sleep(5)  # the model and the table, readied on the server's thread
    return proc


def end_session(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as a client ends its server; how long it took to exit goes to the log."""
    started = time.monotonic()
    proc.terminate()
    try:
        proc.wait(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        log("the MCP server did not exit within 180 s of SIGTERM: killed")
        return
    log(f"the MCP server exited {time.monotonic() - started:.1f} s after SIGTERM")


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
    prompt = [*g, "agent", "hook", "prompt"]
    start = [*g, "agent", "hook", "session-start"]
    samples: dict[str, list[float]] = {}
    loads = [loadavg()]

    def rounds(kind: str, environment: dict[str, str], *, reads: bool = False) -> None:
        for i in range(args.runs + 1):  # round 0 warms the page cache (and the session)
            timed = {"baseline": run(baseline, env, work)}
            for label, text in PROMPTS.items():
                timed[f"{kind} prompt hook ({label})"] = run(prompt, environment, work, event(text))
            timed[f"{kind} session-start hook"] = run(start, environment, work, "{}")
            if reads:
                timed[f"{kind} prompt hook (4,000 characters)"] = run(
                    prompt, environment, work, event(LONG)
                )
                search = [*g, "memory", "search", "deploy to production", "-k", "5"]
                timed[f"{kind} search"] = run(search, environment, work)
                timed[f"{kind} source"] = run(
                    [*g, "memory", "source", memory_id], environment, work
                )
            if i:
                for name, value in timed.items():
                    samples.setdefault(name, []).append(value)

    log(f"cold rounds (load {loadavg()})")
    rounds("cold", cold)
    log("session rounds (an agent session open, no daemon)")
    session = start_session(env, work)
    try:
        rounds("session", env)
    finally:
        end_session(session)
    log("daemon rounds")
    daemon = start_daemon(work, env)
    try:
        rounds("daemon", env, reads=True)
        log("frozen daemon")
        os.kill(daemon.pid, signal.SIGSTOP)
        frozen = [run(prompt, env, work, event(PROMPTS["a match"])) for _ in range(args.runs)]
        samples["frozen daemon: first prompt hook"] = frozen[:1]
        samples["frozen daemon: later prompt hooks"] = frozen[1:]
        session = start_session(env, work)
        try:
            later = [run(prompt, env, work, event(PROMPTS["a match"])) for _ in range(args.runs)]
            samples["frozen daemon: later prompt hooks, session open"] = later[1:]
            timed_base = [run(baseline, env, work) for _ in range(args.runs)]
            samples.setdefault("baseline", []).extend(timed_base)
        finally:
            end_session(session)
        os.kill(daemon.pid, signal.SIGCONT)
    finally:
        daemon.send_signal(signal.SIGCONT)
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    loads.append(loadavg())

    base = statistics.median(samples["baseline"])
    rows: list[dict[str, Any]] = []
    for name, values in samples.items():
        if name == "baseline" or not values:
            continue
        median = statistics.median(values)
        target = TARGETS.get(name)
        rows.append(
            {
                "name": name,
                "median_s": round(median, 3),
                "max_s": round(max(values), 3),
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
            f"{row['name']:<50} {row['median_s']:>7.3f} s (max {row['max_s']:.3f}) "
            f"{row['ratio']:>6.2f}x {target} {verdict}"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"baseline_s": base, "rows": rows, "load": loads}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
