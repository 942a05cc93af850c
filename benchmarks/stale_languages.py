"""Anchors across languages, for `benchmarks/stale.py --languages`: precision and recall of
the staleness check on the held-out refactor corpus, per language, and what anchor extraction
costs a write. A helper of stale.py, not a benchmark of its own:

    .venv/bin/python benchmarks/stale.py --languages [--runs 200] [--json OUT]

1. Corpus. tests/fixtures/anchor_refactors holds, per language, a small project before and
   after a refactor and memories naming what moved, what was renamed and what was left alone
   (with command lines such as `dbt run` and `uv run loadgen` next to a `run` that moved). For
   each language a real git repository is made, every memory's anchors are found as a write
   finds them, the refactor is committed, and the memories are checked as a read does (git
   runs) and as the hook does (no git). Reported per language: broken memories flagged
   (recall), flagged memories that are broken (precision), whether the hook's check agrees,
   and memories that name code but got no anchor.
2. Cost. On each language's checkout after the refactor, every corpus memory's anchors are
   found again in this process, warm (as a write in the daemon or a batch does): the text
   extraction alone (spans, commands, paths, names: `finding._candidates`), and the whole
   `anchors.detect` (with the file reads and, for a name the memory's own files do not
   define, one `git grep`). Medians over --runs, each a ratio to the baseline measured in the
   same run: the digest a write computes of every memory (sha256 of its JSON).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests import anchor_corpus  # the corpus lives with the tests (stale.py puts the root first)


def corpus(root: Path) -> tuple[dict[str, Any], dict[str, anchor_corpus.Outcome]]:
    table: dict[str, Any] = {}
    outcomes = {}
    total = {"broken": 0, "flagged": 0, "false_flags": 0, "quick_disagrees": 0, "unanchored": 0}
    for language in anchor_corpus.languages():
        outcome = anchor_corpus.run(language, root / language)
        outcomes[language] = outcome
        counts = outcome.counts()
        for key in total:
            total[key] += counts[key]
        table[language] = _row(counts)
    table["all"] = _row(total)
    return table, outcomes


def _row(counts: dict[str, int]) -> dict[str, Any]:
    flagged = counts["flagged"] + counts["false_flags"]
    return {
        **{k: counts[k] for k in ("broken", "flagged", "false_flags", "quick_disagrees")},
        "recall": round(counts["flagged"] / counts["broken"], 3) if counts["broken"] else None,
        "precision": round(counts["flagged"] / flagged, 3) if flagged else None,
        "named code, no anchor": counts["unanchored"],
    }


def _median_us(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times)


def cost(root: Path, outcomes: dict[str, anchor_corpus.Outcome], runs: int) -> dict[str, Any]:
    from graphit_cli import anchors
    from graphit_cli.anchors import finding, tree

    texts = [
        (language, case.title, case.body)
        for language, outcome in outcomes.items()
        for case in outcome.cases
    ]
    baseline, extract, detect, searched = [], [], [], []
    for language, title, body in texts:
        top = root / language
        record = json.dumps({"title": title, "body": body, "tags": [], "type": "fact"})
        targets = tree.make_targets(top)
        anchors.detect(title, body, top)  # warm: file texts and patterns cached, as a daemon
        baseline.append(_median_us(lambda r=record: hashlib.sha256(r.encode()).hexdigest(), runs))
        extract.append(
            _median_us(
                lambda t=top, s=f"{title}\n{body}", m=targets: finding._candidates(t, s, m), runs
            )
        )
        calls: list[int] = []
        real = tree.git

        def counted(*args: Any, real: Any = real, calls: list[int] = calls) -> Any:
            calls.append(1)
            return real(*args)

        tree.git = counted
        try:
            took = _median_us(lambda t=top, a=title, b=body: anchors.detect(a, b, t), 9)
        finally:
            tree.git = real
        (searched if calls else detect).append(took)
    base = statistics.median(baseline)
    return {
        "memories": len(texts),
        "baseline: sha256 of a memory's JSON, us": round(base, 2),
        "extraction (finding._candidates), median us": round(statistics.median(extract), 1),
        "extraction, max us": round(max(extract), 1),
        "extraction / baseline": round(statistics.median(extract) / base, 1),
        "detect without a git grep: memories": len(detect),
        "detect without a git grep, median us": round(statistics.median(detect), 1),
        "detect without a git grep / baseline": round(statistics.median(detect) / base, 1),
        "detect with one git grep: memories": len(searched),
        "detect with one git grep, median us": round(statistics.median(searched), 1),
        "detect with one git grep / baseline": round(statistics.median(searched) / base, 1),
    }


def measure(runs: int) -> dict[str, Any]:
    """Both parts, in one temporary folder of checkouts."""
    with tempfile.TemporaryDirectory() as tmp:
        table, outcomes = corpus(Path(tmp))
        return {"corpus": table, "write cost": cost(Path(tmp), outcomes, runs)}
