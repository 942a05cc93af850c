"""What stamping a revision's provenance costs (access/identity.py).

Run from the repository root:

    .venv/bin/python benchmarks/provenance.py [--runs 200]

In a git checkout made here (a commit, user.email set), it times, as medians over --runs:
- reading the author, branch and commit from git's files, first in a fresh process (cold: the
  files read once) and then cached (a stat of HEAD and of the branch's ref);
- asking git for the same three things (`git config user.email`, `git rev-parse
  --abbrev-ref HEAD`, `git rev-parse HEAD`), the baseline measured in the same run.
- what every read now does besides: leaving proposal rows out of 100 rows read (the store's
  filter, `store/table.py`), the same per-row test a search's or a hook's reads run.
Figures are ratios to that baseline, with the baseline itself in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

COLD = (
    "import time, sys\nsys.path.insert(0, {root!r})\n"
    "from graphit_cli.access import identity\n"
    "t = time.perf_counter(); identity.stamp('cli', root=__import__('pathlib').Path({repo!r}))\n"
    "print(time.perf_counter() - t)\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    from graphit_cli.access import identity

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        for command in (
            ["init", "-q", "-b", "main"],
            ["config", "user.email", "dev@example.com"],
            ["commit", "-q", "--allow-empty", "-m", "one", "--author", "Dev <dev@example.com>"],
        ):
            subprocess.run(["git", *command], cwd=repo, check=True, capture_output=True)
        git_runs, cached_runs, cold_runs = [], [], []
        root = str(Path(__file__).resolve().parents[1])
        for _ in range(args.runs):
            start = time.perf_counter()
            for command in (
                ["config", "user.email"],
                ["rev-parse", "--abbrev-ref", "HEAD"],
                ["rev-parse", "HEAD"],
            ):
                subprocess.run(["git", *command], cwd=repo, check=True, capture_output=True)
            git_runs.append(time.perf_counter() - start)
            start = time.perf_counter()
            identity.stamp("cli", root=repo)
            cached_runs.append(time.perf_counter() - start)
        for _ in range(min(args.runs, 30)):
            code = COLD.format(root=root, repo=str(repo))
            done = subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True
            )
            cold_runs.append(float(done.stdout))
    filter_runs = _filter_runs(args.runs)
    base = statistics.median(git_runs)
    print(f"baseline: git asked three times, median {base * 1000:.2f} ms")
    for name, runs in (
        ("git's files, fresh process", cold_runs),
        ("cached", cached_runs),
        ("reads: proposal rows left out of 100 rows", filter_runs),
    ):
        value = statistics.median(runs)
        print(f"{name}: {value / base:.4f} x the baseline ({value * 1000:.3f} ms)")


def _filter_runs(runs: int) -> list[float]:
    from datetime import UTC, datetime

    from graphit_cli.core import revisions
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.core.provenance import is_proposal

    now = datetime.now(UTC)
    rows = [
        revisions.new_memory(
            MemoryDraft(title=f"Memory {n}", body="A body."),
            memory_id=f"01JD{n:022d}",
            scope_kind="project",
            scope_id="p",
            author="a",
            now=now,
        )
        for n in range(100)
    ]
    found = []
    for _ in range(runs):
        start = time.perf_counter()
        kept = [r for r in rows if not is_proposal(r.status)]
        found.append(time.perf_counter() - start)
        assert len(kept) == 100
    return found


if __name__ == "__main__":
    main()
