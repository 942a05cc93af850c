"""Near-duplicate detection for consolidation: precision/recall on labelled pairs, and speed.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/dedup.py [--pairs benchmarks/data/dedup_pairs.jsonl]
        [--size 10000] [--table] [--json OUT] [--embedder e5|onnx] [--skip-speed]

1. Quality. `benchmarks/data/dedup_pairs.jsonl` holds pairs of realistic agent memories written
   for this benchmark, each labelled `duplicate` (the same memory restated), `paraphrase` (the
   same memory in other words), `related` (same area, different knowledge) or `contradiction`
   (the same subject, conflicting claims). Both memories of a pair are embedded with the
   packaged all-MiniLM-L6-v2 and handed to `consolidate.candidates.find_candidates` exactly as the
   report does; a pair is detected when the two land in one group. Precision and recall are
   reported per threshold in two views:
   - "same memory": duplicates and paraphrases are positives; related and contradictions are
     negatives (strict deduplication);
   - "to consolidate": contradictions count as positives too, since consolidation also
     resolves them (the agent keeps the newest belief); only related pairs are negatives.
   The lexical-only path (memories without a vector) is swept the same way. `--embedder`
   picks the model (as GRAPHIT_EMBEDDER); each model's cosines spread differently, so each has
   its own threshold (core/profiles.py `near_duplicate`). The "duplicate guard" view sweeps
   the upsert guard's test (service/duplicates.py: cosine >= t and a similar title) on the
   "same memory" labels, which calibrates the profile's `duplicate_cosine`.
2. Speed. `find_candidates` over --size memories built from a real-memory file (cycled with
   varied text, benchmarks/_common.Corpus) with SYNTHETIC vectors: one random unit vector per
   source record plus noise, so the ~6 copies of a record sit at cosine ~0.9 and form many
   near-duplicate groups (a heavy case for the grouping). Real embeddings of 10k memories would
   take minutes on this machine and change nothing in the cost of the comparison. With
   --table the same rows and vectors go into a real LanceDB table and `Consolidator.report()`
   is timed end to end (reading rows and vectors included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import Corpus, data_path, load_records, log, require_data, reset_env

PAIRS = Path(__file__).resolve().parent / "data" / "dedup_pairs.jsonl"
# 0.400 .. 0.850 by 0.025, then 0.86 .. 0.98 by 0.01 (e5's cosines bunch high)
THRESHOLDS = [round(0.40 + 0.025 * i, 3) for i in range(19)] + [
    round(0.86 + 0.01 * i, 3) for i in range(13)
]
CONFIRM = [0.0, 0.1, 0.15, 0.2, 0.25]  # lexical confirmation values for the grid
LEXICAL = [round(0.30 + 0.05 * i, 2) for i in range(12)]  # 0.30 .. 0.85
NOW = datetime(2026, 11, 30, tzinfo=UTC)


def memory(n: int, title: str, body: str) -> Any:
    from graphit_cli.core import revisions
    from graphit_cli.core.models import MemoryDraft

    draft = MemoryDraft(title=title, body=body)
    ulid = f"01JD{n:022d}"
    return revisions.new_memory(
        draft, memory_id=ulid, scope_kind="project", scope_id="bench", author="b", now=NOW
    )


def load_pairs(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def detected(
    a: Any,
    b: Any,
    vectors: Any,
    threshold: float,
    lexical_only: float,
    confirm: float | None = None,
) -> bool:
    from graphit_cli.consolidate.candidates import LEXICAL_CONFIRM, find_candidates

    ids = [a.id, b.id] if vectors is not None else []
    report = find_candidates(
        [a, b],
        ids,
        vectors if vectors is not None else [],
        scope="bench",
        now=NOW,
        threshold=threshold,
        lexical_only=lexical_only,
        lexical_confirm=LEXICAL_CONFIRM if confirm is None else confirm,
    )
    return bool(report.groups)


def scores(predicted: list[bool], labels: list[str], positive: set[str]) -> dict[str, float]:
    tp = sum(p and lab in positive for p, lab in zip(predicted, labels, strict=True))
    fp = sum(p and lab not in positive for p, lab in zip(predicted, labels, strict=True))
    fn = sum((not p) and lab in positive for p, lab in zip(predicted, labels, strict=True))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "tp": tp, "fp": fp}


VIEWS = {
    "same_memory": {"duplicate", "paraphrase"},
    "to_consolidate": {"duplicate", "paraphrase", "contradiction"},
}


def quality(pairs_path: Path) -> dict[str, Any]:
    import numpy as np

    from graphit_cli.consolidate.candidates import LEXICAL_CONFIRM, LEXICAL_ONLY
    from graphit_cli.core import profiles
    from graphit_cli.embed import document_text, load_default
    from graphit_cli.service.duplicates import _similar_title

    model = load_default()
    if model is None:
        raise SystemExit("the embedding model is not installed: pip install graphit-cli")
    profile = profiles.profile_for(model.model_id)
    DEFAULT_THRESHOLD = profile.near_duplicate
    pairs = load_pairs(pairs_path)
    labels = [p["label"] for p in pairs]
    rows = []
    for n, pair in enumerate(pairs):
        rows.append(
            (
                memory(2 * n, pair["a"]["title"], pair["a"]["body"]),
                memory(2 * n + 1, pair["b"]["title"], pair["b"]["body"]),
            )
        )
    started = time.perf_counter()
    texts = [document_text(m.title, m.body) for pair in rows for m in pair]
    flat = np.asarray(model.embed_documents(texts), dtype=np.float32)
    log(f"embedded {len(texts)} memories in {time.perf_counter() - started:.1f} s")
    vectors = [flat[2 * n : 2 * n + 2] for n in range(len(rows))]
    cosines = [float(v[0] @ v[1]) for v in vectors]
    sweep = []
    for threshold in THRESHOLDS:
        predicted = [
            detected(a, b, v, threshold, LEXICAL_ONLY)
            for (a, b), v in zip(rows, vectors, strict=True)
        ]
        by_label = {
            label: round(
                sum(p for p, lab in zip(predicted, labels, strict=True) if lab == label)
                / labels.count(label),
                3,
            )
            for label in sorted(set(labels))
        }
        guard = [
            c >= threshold and _similar_title(a.title, b.title)
            for (a, b), c in zip(rows, cosines, strict=True)
        ]
        sweep.append(
            {
                "threshold": threshold,
                **{view: scores(predicted, labels, pos) for view, pos in VIEWS.items()},
                "guard_same_memory": scores(guard, labels, VIEWS["same_memory"]),
                "detected_by_label": by_label,
            }
        )
    grid = []
    for confirm in CONFIRM:
        cells = []
        for threshold in THRESHOLDS:
            predicted = [
                detected(a, b, v, threshold, LEXICAL_ONLY, confirm)
                for (a, b), v in zip(rows, vectors, strict=True)
            ]
            cells.append(scores(predicted, labels, VIEWS["to_consolidate"]))
        grid.append({"lexical_confirm": confirm, "cells": cells})
    lexical = []
    for minimum in LEXICAL:
        predicted = [detected(a, b, None, DEFAULT_THRESHOLD, minimum) for a, b in rows]
        lexical.append(
            {
                "lexical_only": minimum,
                **{view: scores(predicted, labels, pos) for view, pos in VIEWS.items()},
            }
        )
    mean_cosine = {
        label: round(
            statistics.fmean(c for c, lab in zip(cosines, labels, strict=True) if lab == label), 3
        )
        for label in sorted(set(labels))
    }
    return {
        "pairs": len(pairs),
        "labels": {label: labels.count(label) for label in sorted(set(labels))},
        "model": model.model_id,
        "mean_cosine": mean_cosine,
        "default_threshold": DEFAULT_THRESHOLD,
        "duplicate_cosine": profile.duplicate_cosine,
        "lexical_confirm": LEXICAL_CONFIRM,
        "sweep": sweep,
        "grid_to_consolidate": grid,
        "lexical_only": lexical,
    }


def synthetic_vectors(count: int, sources: int, dim: int = 384, seed: int = 7) -> Any:
    """One random unit vector per source record, plus noise: copies sit at cosine ~0.9."""
    import numpy as np

    rng = np.random.default_rng(seed)
    base = rng.standard_normal((sources, dim)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    noise = rng.standard_normal((count, dim)).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    vectors = base[np.arange(count) % sources] + 0.33 * noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def speed(data: Path, size: int, table: bool) -> dict[str, Any]:
    from graphit_cli.consolidate.candidates import find_candidates
    from graphit_cli.core import revisions

    records = load_records(data)
    corpus = Corpus(records)
    drafts = corpus.drafts(0, size)
    rows = [
        revisions.new_memory(
            d,
            memory_id=f"01JD{i:022d}",
            scope_kind="project",
            scope_id="bench",
            author="b",
            now=NOW,
        )
        for i, d in enumerate(drafts)
    ]
    vectors = synthetic_vectors(size, len(records))
    ids = [r.id for r in rows]
    result: dict[str, Any] = {
        "memories": size,
        "source_records": len(records),
        "load_before": [round(x, 1) for x in os.getloadavg()],
    }
    for name, matrix in (
        ("copies_near", vectors),  # ~6 copies of each record at cosine ~0.9: 1.7k groups
        ("all_distinct", synthetic_vectors(size, size)),  # no two alike: the comparison alone
    ):
        walls, cpus = [], []
        report = None
        for _ in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            report = find_candidates(rows, ids, matrix, scope="bench", now=NOW)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        assert report is not None
        result[name] = {
            "wall_s": [round(r, 2) for r in walls],
            "wall_median_s": round(statistics.median(walls), 2),
            "cpu_median_s": round(statistics.median(cpus), 2),
            "groups": len(report.groups),
            "grouped_memories": sum(len(g.members) for g in report.groups),
        }
    result["load_after"] = [round(x, 1) for x in os.getloadavg()]
    if table:
        result["report_end_to_end_s"] = table_report(drafts, vectors)
    return result


class _FixedEmbedder:
    """Hands out precomputed vectors by text, so the table holds exactly the benchmark's."""

    model_id = "bench/synthetic-384"
    dim = 384

    def __init__(self, by_text: dict[str, Any]) -> None:
        self.by_text = by_text

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.by_text[t].tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(self.by_text[text].tolist())


def table_report(drafts: list[Any], vectors: Any) -> list[float]:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.consolidate.consolidator import Consolidator
    from graphit_cli.embed import document_text
    from graphit_cli.opening import open_service

    with tempfile.TemporaryDirectory() as home:
        os.environ["GRAPHIT_HOME"] = home
        service = open_service(Scope("context", "dedup-bench"))
        started = time.perf_counter()
        for start in range(0, len(drafts), 1000):
            service.upsert_many(drafts[start : start + 1000])
        by_text = {}
        for row in service.catalogue():
            n = int(row.title.rsplit(".", 1)[1].rstrip("]"))
            by_text[document_text(row.title, row.body)] = vectors[n]
        service.embed(_FixedEmbedder(by_text))
        service.maintain(force=True)
        log(f"built the table in {time.perf_counter() - started:.1f} s")
        runs: list[Any] = []
        for _ in range(3):
            started = time.perf_counter()
            report = Consolidator(service).report()
            runs.append(round(time.perf_counter() - started, 2))
        return [*runs, f"{len(report.groups)} groups, {report.analysed} memories"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--data", help="real-memory JSONL for the speed test")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--table", action="store_true", help="also time report() on a table")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--embedder", help="GRAPHIT_EMBEDDER for the run: e5, onnx")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    reset_env()
    if args.embedder:
        os.environ["GRAPHIT_EMBEDDER"] = args.embedder
    data = data_path(args.data)
    if not require_data(data):
        raise SystemExit(2)
    results: dict[str, Any] = {}
    if not args.skip_quality:
        results["quality"] = quality(args.pairs)
        print_quality(results["quality"])
    if not args.skip_speed:
        results["speed"] = speed(data, args.size, args.table)
        print(json.dumps(results["speed"], indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


def print_quality(q: dict[str, Any]) -> None:
    print(f"{q['pairs']} pairs {q['labels']}; model {q['model']}")
    print(f"mean cosine by label: {q['mean_cosine']}")
    default = next(r for r in q["sweep"] if r["threshold"] == q["default_threshold"])
    print(
        f"default threshold {q['default_threshold']} (lexical confirmation "
        f"{q['lexical_confirm']}): to consolidate {default['to_consolidate']}, same memory "
        f"{default['same_memory']}"
    )
    print(f"duplicate guard cosine (the profile's): {q['duplicate_cosine']}")
    print("threshold | same memory P / R | to consolidate P / R | guard P / R | detected by label")
    for row in q["sweep"]:
        same, cons, guard = row["same_memory"], row["to_consolidate"], row["guard_same_memory"]
        print(
            f"{row['threshold']:.3f}     | {same['precision']:.3f} / {same['recall']:.3f}     | "
            f"{cons['precision']:.3f} / {cons['recall']:.3f}        | "
            f"{guard['precision']:.3f} / {guard['recall']:.3f} | {row['detected_by_label']}"
        )
    print("to consolidate, P/R by lexical confirmation (rows) and threshold (columns)")
    print("      " + " ".join(f"{t:9.3f}" for t in THRESHOLDS))
    for line in q["grid_to_consolidate"]:
        cells = " ".join(f"{c['precision']:.2f}/{c['recall']:.2f}" for c in line["cells"])
        print(f"{line['lexical_confirm']:5.2f} {cells}")
    print("lexical only | same memory P / R | to consolidate P / R")
    for row in q["lexical_only"]:
        same, cons = row["same_memory"], row["to_consolidate"]
        print(
            f"{row['lexical_only']:.2f}         | {same['precision']:.3f} / {same['recall']:.3f}"
            f"     | {cons['precision']:.3f} / {cons['recall']:.3f}"
        )


if __name__ == "__main__":
    main()
