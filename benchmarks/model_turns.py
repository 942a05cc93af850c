"""How long a search waits for the daemon's shared model behind an embedding backlog.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/model_turns.py [--trials 20] [--slice-ms 20] [--json OUT]

The daemon's embedding loop embeds a backlog in slices of 8 documents through one model
(`daemon/process.py:_LockedEmbedder`); a search needs the same model for its query vector.
Each trial starts a backlog of 100 slices on a thread, asks for one query vector 0.1 s later,
and counts the slices embedded between the query's arrival and its answer. The model is a
stand-in that holds the CPU (and the GIL) for --slice-ms per slice and answers a query at
once, so the figure is the lock's behaviour alone, whatever the machine: with a fair turn a
query waits for at most the slice in progress (0 counted), and its wait is under one slice.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import finish, machine_info, table

from graphit_cli.daemon.process import _LockedEmbedder

BACKLOG_SLICES = 100


class BusyModel:
    """A model that computes for `slice_s` per document slice and answers queries at once."""

    model_id = "stand-in"
    dim = 4

    def __init__(self, slice_s: float) -> None:
        self.slice_s = slice_s
        self.calls: list[str] = []

    def embed_documents(self, texts: Any) -> list[list[float]]:
        self.calls.append("documents")
        end = time.perf_counter() + self.slice_s
        while time.perf_counter() < end:
            pass
        return [[0.0] * self.dim for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls.append("query")
        return [0.0] * self.dim


def trial(slice_s: float) -> tuple[int, float]:
    """(slices embedded while the query waited, the query's wait in seconds)."""
    model = BusyModel(slice_s)
    shared = _LockedEmbedder(model)
    texts = [f"document {n}" for n in range(BACKLOG_SLICES * _LockedEmbedder.SLICE)]
    backlog = threading.Thread(target=shared.embed_documents, args=(texts,))
    backlog.start()
    time.sleep(0.1)
    before = len(model.calls)
    started = time.perf_counter()
    shared.embed_query("which datastore do we use")
    waited = time.perf_counter() - started
    slices = model.calls.index("query") - before
    backlog.join()
    return slices, waited


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--slice-ms", type=float, default=20.0, help="the stand-in's slice")
    parser.add_argument("--json", help="also write the results as JSON to OUT")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = [trial(args.slice_ms / 1000) for _ in range(args.trials)]
    slices = [s for s, _ in results]
    waits_ms = [w * 1000 for _, w in results]
    summary = {
        "trials": args.trials,
        "slice_ms": args.slice_ms,
        "slices_waited_max": max(slices),
        "slices_waited_mean": round(statistics.mean(slices), 2),
        "wait_ms_median": round(statistics.median(waits_ms), 1),
        "wait_ms_max": round(max(waits_ms), 1),
    }

    def render(found: dict[str, Any]) -> str:
        turns = found["model_turns"]
        return table(list(turns), [[str(v) for v in turns.values()]])

    finish({"machine": machine_info(), "model_turns": summary}, started, render, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
