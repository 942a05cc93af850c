"""What weighing words by their frequency in the language costs a cold search.

Run from the repository root (see benchmarks/README.md, "word_weights.py"):

    .venv/bin/python benchmarks/word_weights.py [--runs 7] [--tree DIR ...]

1. The lookup itself, each in a fresh interpreter (median of --runs): wordfreq's import and its
   first `zipf_frequency` in each of the five languages graphit uses (what search would pay if
   it called wordfreq), against graphit's table (`core/commonness.py`: the file read and five
   lookups).
2. A cold `graphit memory search "which database do we use" --mode fts` (no daemon) on a project
   of the 120 realistic memories of tests/fixtures/projects/, as a ratio to a bare two-command
   Typer app's command timed in the same rounds (interleaved; the machine is shared, so only
   the ratios compare). `--tree DIR` (repeatable) runs the same search with another checkout's
   code on PYTHONPATH, e.g. the commit before this change, interleaved with the others.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, TYPER_APP, loadavg

LANGUAGES = ("en", "de", "es", "fr", "pt")
WORDS = ("which", "database", "use", "zebra", "deploy")
WORDFREQ = f"""
import time
t0 = time.perf_counter()
import wordfreq
t1 = time.perf_counter()
for language in {LANGUAGES!r}:
    wordfreq.zipf_frequency("use", language)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""
TABLE = f"""
import time
import graphit_cli.core
t0 = time.perf_counter()
from graphit_cli.core import commonness
t1 = time.perf_counter()
for word in {WORDS!r}:
    commonness.zipf(word)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed, proc.stdout


def lookups(runs: int, env: dict[str, str], cwd: Path) -> None:
    for name, code in (("wordfreq, 5 languages", WORDFREQ), ("graphit's table", TABLE)):
        pairs = [
            tuple(map(float, timed([sys.executable, "-c", code], env, cwd)[1].split()))
            for _ in range(runs)
        ]
        load = statistics.median(p[0] for p in pairs)
        first = statistics.median(p[1] for p in pairs)
        print(f"{name:24} import {load * 1000:7.1f} ms   first lookups {first * 1000:7.1f} ms")


def build(home: Path, env: dict[str, str]) -> Path:
    """A project of the realistic fixtures' memories; its directory."""
    project = home / "project"
    project.mkdir(parents=True)
    (project / "graphit.lock.json").write_text(
        json.dumps({"project": {"id": "01JDW0RDS0000000000000000A"}})
    )
    fixtures = REPO / "tests" / "fixtures" / "projects"
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(fixtures.glob("*.jsonl")))
    cmd = [sys.executable, "-m", "graphit_cli", "memory", "upsert", "-", "-f", "json"]
    proc = subprocess.run(cmd, env=env, cwd=project, input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"upsert failed: {proc.stderr.strip()}")
    return project


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="graphit-words-") as tmp:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
        env |= {"GRAPHIT_HOME": str(home / "home"), "GRAPHIT_NO_DAEMON": "1"}
        env |= {"GRAPHIT_AUTHOR": "benchmark", "LANCEDB_LOG": "error"}
        trees = {"this tree": REPO, **{str(t): t.resolve() for t in args.tree}}
        lookups(args.runs, env | {"PYTHONPATH": str(REPO)}, home)
        project = build(home, env | {"PYTHONPATH": str(REPO)})
        app = home / "bare_typer.py"
        app.write_text(TYPER_APP)
        search = ["memory", "search", "which database do we use", "--mode", "fts", "-f", "json"]
        times: dict[str, list[float]] = {"bare Typer": [], **{name: [] for name in trees}}
        shown: dict[str, str] = {}
        for _ in range(args.runs):
            times["bare Typer"].append(timed([sys.executable, str(app), "first"], env, home)[0])
            for name, tree in trees.items():
                cmd = [sys.executable, "-m", "graphit_cli", *search]
                elapsed, out = timed(cmd, env | {"PYTHONPATH": str(tree)}, project)
                times[name].append(elapsed)
                shown[name] = ", ".join(h["title"] for h in json.loads(out or "[]"))
        base = statistics.median(times["bare Typer"])
        print(f"\nbare Typer command: median {base * 1000:.0f} ms ({args.runs} runs)")
        for name in trees:
            median = statistics.median(times[name])
            print(f"cold fts search, {name}: {median * 1000:.0f} ms = {median / base:.2f}x")
            print(f"    shows: {shown[name]}")
        print(f"load average at the end: {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
