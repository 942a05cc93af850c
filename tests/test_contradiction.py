"""The contradiction detector (core/contradiction.py): rivals on one subject, not related or
restated memories; vectors optional. Quality on labelled pairs: benchmarks/contradictions.py."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from graphit_cli.core import contradiction, revisions
from graphit_cli.core.models import Memory, MemoryDraft

NOW = datetime(2026, 11, 30, tzinfo=UTC)
PAIRS = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "contradiction_pairs.jsonl"


def memory(n: int, title: str, body: str) -> Memory:
    return revisions.new_memory(
        MemoryDraft(title=title, body=body),
        memory_id=f"01JD{n:022d}",
        scope_kind="project",
        scope_id="t",
        author="t",
        now=NOW,
    )


REDIS = memory(1, "Celery broker is Redis DB 1", "Celery uses Redis database 1 as its broker.")
SQS = memory(2, "Celery broker moved to Amazon SQS", "The Celery broker is now Amazon SQS.")
BEAT = memory(3, "Celery beat schedule", "Periodic Celery tasks are declared in tasks/schedule.py.")
SAME = memory(
    4, "Redis DB 1 is the Celery broker", "Redis database 1 is what Celery uses as broker."
)


def test_a_reversal_is_a_rival_and_related_or_restated_memories_are_not() -> None:
    assert contradiction.rivals(SQS, [BEAT, REDIS]) == [REDIS]
    assert SAME in contradiction.rivals(SQS, [SAME])  # it says Redis too
    assert contradiction.rivals(REDIS, [SQS]) == [SQS]  # either direction
    assert contradiction.rivals(SAME, [REDIS]) == []  # a near-duplicate says the same thing
    assert contradiction.rivals(BEAT, [REDIS, SQS]) == []


def test_the_memory_itself_and_archived_rows_are_never_rivals() -> None:
    archived = replace(REDIS, id=REDIS.id, revision_id="01JD0000000000000000000099")
    assert contradiction.rivals(SQS, [archived, SQS]) == []


def test_a_similarity_callable_or_lookup_adds_to_the_subject_score() -> None:
    near = memory(5, "Production moved to eu-central-1", "Production runs in Frankfurt now.")
    region = memory(6, "Primary region is eu-west-1", "Production runs in AWS eu-west-1.")
    assert contradiction.rivals(near, [region]) == []  # too few words in common
    assert contradiction.rivals(near, [region], {region.id: 1.0}) == [region]
    assert contradiction.rivals(near, [region], lambda a, b: 1.0) == [region]
    assert contradiction.rivals(near, [region], lambda a, b: None) == []  # no opinion: lexical
    # From stored embeddings: identical vectors are the same subject.
    with_vectors = [replace(m, embedding=(1.0, 0.0)) for m in (near, region)]
    similarity = contradiction.cosine_similarity(0.5, 1.0)
    assert contradiction.rivals(with_vectors[0], [with_vectors[1]], similarity) == [with_vectors[1]]


def test_the_labelled_reversals_meet_the_targets() -> None:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines()]
    flagged: dict[str, list[bool]] = {}
    for n, row in enumerate(rows):
        a = memory(2 * n + 10, row["a"]["title"], row["a"]["body"])
        b = memory(2 * n + 11, row["b"]["title"], row["b"]["body"])
        flagged.setdefault(row["label"], []).append(bool(contradiction.rivals(b, [a])))
    rate = {label: sum(v) / len(v) for label, v in flagged.items()}
    assert rate["reversal"] >= 0.90
    assert rate["related"] <= 0.05
