"""The embedding backends as a whole process: import + load + embed one query, and peak RSS.

Run from the repository root (see benchmarks/README.md, "embed_backends.py"):

    .venv/bin/python benchmarks/embed_backends.py [--rounds 7] [--json OUT]

Each round runs, in a fresh interpreter each and in turn: a bare two-command Typer app's
command (the baseline every CLI pays), then for each installed backend (`onnx`,
`sentence-transformers`) `graphit_cli.embed.load_default()` under that `GRAPHIT_EMBEDDER` plus
one `embed_query`. Wall time is measured around the subprocess; peak RSS is the child's own
`ru_maxrss`. Medians over the rounds, and each as a ratio to the baseline of the same run
(the machine is shared and its speed varies). Hybrid recall per backend: benchmarks/retrieval.py
with `--embedder`.
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import loadavg, machine_info, table

TYPER_APP = """
import resource, sys
import typer

app = typer.Typer()

@app.command()
def first(name: str = "x") -> None:
    typer.echo(name)

@app.command()
def second() -> None:
    typer.echo("second")

sys.argv = ["app", "first"]
try:
    app()
except SystemExit:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""

EMBED_ONE = """
import resource, sys
from graphit_cli.embed import load_default
model = load_default()
vector = model.embed_query("how do we install dependencies")
assert len(vector) == 384
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def run_once(script: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one fresh interpreter running `script`."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"child failed: {done.stderr.strip().splitlines()[-1:]}")
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    from graphit_cli.embed import BACKENDS, installed

    backends = [name for name in BACKENDS if installed(name)]
    root = str(Path(__file__).resolve().parents[1])
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    base_env["PYTHONPATH"] = root + os.pathsep + base_env.get("PYTHONPATH", "")
    home = tempfile.mkdtemp(prefix="graphit-embed-bench-")
    base_env["GRAPHIT_HOME"] = home
    cases = {"bare Typer app (baseline)": (TYPER_APP, base_env)}
    for name in backends:
        cases[f"{name}: import + load + one query"] = (
            EMBED_ONE,
            {**base_env, "GRAPHIT_EMBEDDER": name},
        )
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in cases}
    load_before = loadavg()
    for _ in range(args.rounds + 1):  # the first round only warms the page cache
        for label, (script, env) in cases.items():
            samples[label].append(run_once(script, env))
    results: dict[str, dict[str, float]] = {}
    for label, values in samples.items():
        kept = values[1:]
        results[label] = {
            "wall_s": statistics.median(w for w, _ in kept),
            "peak_rss_mb": statistics.median(r for _, r in kept),
        }
    base = results["bare Typer app (baseline)"]
    rows = [
        [
            label,
            f"{r['wall_s']:.2f} s",
            f"{r['wall_s'] / base['wall_s']:.1f}x",
            f"{r['peak_rss_mb']:.0f} MB",
            f"{r['peak_rss_mb'] / base['peak_rss_mb']:.1f}x",
        ]
        for label, r in results.items()
    ]
    print(f"{args.rounds} rounds (medians), load average {load_before} -> {loadavg()}")
    print(table(["process", "wall", "x baseline", "peak RSS", "x baseline"], rows))
    if args.json:
        args.json.write_text(
            json.dumps({"machine": machine_info(), "results": results}, indent=2) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
