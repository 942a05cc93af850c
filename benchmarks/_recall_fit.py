"""Fit the per-prompt hook's rule (`recall/policy.RecallRule`), leaving each labelled project out.

A helper of recall_sessions.py (not a benchmark itself). Run from the repository root, after
writing the candidates' evidence with `recall_sessions.py --features OUT`:

    .venv/bin/python benchmarks/recall_sessions.py --calibrate OUT [--mode warm|lexical]

For every project left out in turn, the rule's thresholds are chosen on the other projects (the
grid below: a precision of at least PRECISION, the fewest memories on prompts that need nothing,
then the most must memories brought), then scored on the project left out. The held-out
projects (recall_harbor, recall_fjord and recall_pantry by default) are never fitted on: they
are scored once with the rule fitted on all the others. Prompts are scored one by one here
(no session state: a memory is counted each time it is chosen), so the figures approximate
`recall_sessions.py`'s.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graphit_cli.recall import policy

PRECISION = 0.85
NEED_NOTHING = ("chit-chat", "generic")
GRID = {
    "z": [1.8, 1.9],
    "z_alone": [3.6],
    "z_words": [1.6],
    "words": [0.5],
    "z_next": [1.8, 2.0],
    "gap": [0.9],
    "agree": [0.6],
    "relative": [0.6, 0.7],
    "lead": [0.2, 0.25, 0.3, 1.01],
    "z_lead": [0.8, 1.0, 1.2],
}
LEXICAL_GRID = {
    "share": [0.2, 0.25, 0.3, 0.35, 0.4, 0.5],
    "agree": [0.4, 0.6, 0.8, 1.0],
    "relative": [0.3, 0.5, 0.6, 0.7, 0.8],
}


def prompts(rows: list[dict[str, Any]]) -> dict[tuple[str, str, int], list[dict[str, Any]]]:
    by: dict[tuple[str, str, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by[(row["data"], row["mode"], row["n"])].append(row)
    return by


def candidate(row: dict[str, Any]) -> Any:
    spread = None
    if row.get("count"):
        spread = SimpleNamespace(count=row["count"], z=lambda _c, z=row["z"]: z, lone=0.85)
    return SimpleNamespace(
        share=row["share"],
        similarity=row["similarity"],
        relative=row["relative"],
        rank=row["rank"],
        words=tuple(row["words"]),
        spread=spread,
        z=row["z"],
    )


_PREPARED: dict[int, tuple[bool, list[tuple[dict[str, Any], Any]]]] = {}


def _prepared(rows: list[dict[str, Any]]) -> tuple[bool, list[tuple[dict[str, Any], Any]]]:
    """A prompt's candidates, best first, as the policy reads them (built once)."""
    found = _PREPARED.get(id(rows))
    if found is None:
        first = rows[0] if rows else {}
        quiet = policy.chatter(first["query"]) if "query" in first else bool(first.get("chatter"))
        ranked = sorted(rows, key=lambda r: r["rank"])
        found = _PREPARED[id(rows)] = (quiet, [(r, candidate(r)) for r in ranked])
    return found


def score(
    groups: dict[tuple[str, str, int], list[dict[str, Any]]], rule: policy.RecallRule
) -> dict:
    shown = good = must = found = idle = 0
    for rows in groups.values():
        quiet, ranked = _prepared(rows)
        if quiet or not ranked:
            kept = []
        else:
            top = ranked[0][1]
            kept = [r for r, c in ranked if policy.admit(c, top, rule) is None][: rule.limit]
        shown += len(kept)
        good += sum(r["label"] != "-" for r in kept)
        idle += sum(r["kind"] in NEED_NOTHING and r["label"] == "-" for r in kept)
        must += sum(r["label"] == "must" for r in rows)
        found += sum(r["label"] == "must" for r in kept)
    return {
        "shown": shown,
        "precision": good / shown if shown else 1.0,
        "recall": found / must if must else 1.0,
        "idle": idle,
        "must": must,
    }


def fit(
    groups: dict[tuple[str, str, int], list[dict[str, Any]]], grid: dict[str, list[float]]
) -> tuple[policy.RecallRule, dict]:
    best: tuple[tuple[float, ...], policy.RecallRule, dict] | None = None
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        rule = policy.RecallRule(**dict(zip(keys, values, strict=True)))
        got = score(groups, rule)
        # Precision first, the fewest memories on prompts that need nothing (where none is out
        # of reach), then the most must memories, precision, the strictest bars (they transfer).
        ok = got["precision"] >= PRECISION
        key = (ok, -got["idle"], round(got["recall"], 3), round(got["precision"], 3), *values)
        if best is None or key > best[0]:
            best = (key, rule, got)
    assert best is not None
    return best[1], best[2]


def calibrate(features: Path, mode: str = "warm", held_out: set[str] | None = None) -> None:
    held = held_out or {"recall_harbor", "recall_fjord", "recall_pantry"}
    rows = [json.loads(x) for x in features.read_text().splitlines() if x.strip()]
    rows = [r for r in rows if r["mode"] == mode]
    grid = LEXICAL_GRID if mode == "lexical" else GRID
    groups = prompts(rows)
    projects = sorted({d for d, _, _ in groups} - held)
    print("left out | rule fitted on the others | left out's precision, must recall, idle")
    for out in projects:
        train = {k: v for k, v in groups.items() if k[0] != out and k[0] not in held}
        rule, _ = fit(train, grid)
        got = score({k: v for k, v in groups.items() if k[0] == out}, rule)
        print(f"{out} | {rule} | {got['precision']:.2f}, {got['recall']:.2f}, {got['idle']}")
    rule, got = fit({k: v for k, v in groups.items() if k[0] not in held}, grid)
    print(f"all fitted | {rule} | {got['precision']:.2f}, {got['recall']:.2f}, {got['idle']}")
    for name in sorted(held & {d for d, _, _ in groups}):
        test = score({k: v for k, v in groups.items() if k[0] == name}, rule)
        print(f"{name} (held out) | {test['precision']:.2f}, {test['recall']:.2f}, {test['idle']}")
