"""The daemon's RSS after warm searches and writes, with and without the malloc settings.

    .venv/bin/python benchmarks/daemon_footprint.py [--size 10000]

Builds a scope as cold_path.py does, then for each variant starts `graphit memory daemon`,
runs 18 CLI searches (6 queries x 3) and 5 upserts + 6 searches through it, and prints its
VmRSS after each stage and the CLI search median. Variants: the daemon as it is (arenas capped
at two, free pages handed back after each request: daemon/footprint.py), and glibc's default
arenas (`MALLOC_ARENA_MAX=16` in its environment, which the daemon then leaves alone; the
trim after each request still runs).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cold_path
from _common import graphit_command, loadavg, reset_env

QUERIES = (
    "deploy",
    "caching strategy and invalidation",
    "REST API versioning",
    "code review checklist",
    "GraphQL schema design",
    "authentication with JWT tokens",
)


def variant(env: dict[str, str], work: Path) -> dict[str, float]:
    g = graphit_command()
    daemon = cold_path.start_daemon(env, work)
    figures: dict[str, float] = {}
    searches: list[float] = []
    try:
        for _ in range(3):
            for q in QUERIES:
                searches.append(cold_path.run([*g, "memory", "search", q, "-k", "3"], env, work))
        figures["after 18 searches MB"] = cold_path.rss_mb(daemon.pid)
        for i in range(5):
            title = f"footprint {i} {time.time()}"
            cold_path.run([*g, "memory", "upsert", "--title", title, "--body", "b"], env, work)
        for q in QUERIES:
            searches.append(cold_path.run([*g, "memory", "search", q, "-k", "3"], env, work))
        figures["after 5 upserts + 6 searches MB"] = cold_path.rss_mb(daemon.pid)
        figures["search median s"] = statistics.median(searches)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    args = parser.parse_args()
    reset_env()
    work = Path(tempfile.mkdtemp(prefix="graphit-footprint-"))
    home = work / "home"
    project_id, _ = cold_path.build(home, args.size)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")},
        "GRAPHIT_HOME": str(home),
        "GRAPHIT_PROJECT_ID": project_id,
        "LANCEDB_LOG": "error",
    }
    env.pop("MALLOC_ARENA_MAX", None)
    print(f"{args.size} memories, load {loadavg()}")
    for name, extra in (("as is", {}), ("glibc default arenas", {"MALLOC_ARENA_MAX": "16"})):
        figures = variant({**env, **extra}, work)
        print(name + ": " + ", ".join(f"{k} {v:.2f}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
