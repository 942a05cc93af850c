"""Consolidation: contradictions proposed with the newer as survivor, merely
related memories (of different types) left apart, a mandatory memory never absorbed into a
normal one, and stale candidates that are broken anchors, not an age."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphit_cli.consolidate.candidates import find_candidates
from graphit_cli.consolidate.consolidator import Consolidator
from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.service.memory import MemoryService
from tests.test_anchors import CRONJOB, make_repo, refactor
from tests.test_consolidate import row

NOW = datetime(2026, 6, 1, tzinfo=UTC)
REDIS = row(
    "A" * 26, "Celery broker is Redis DB 1", "Celery uses Redis database 1 as its broker.", 30
)
SQS = row(
    "B" * 26,
    "Celery broker moved to Amazon SQS",
    "The Celery broker is now Amazon SQS; the Redis broker was retired.",
    2,
)
BEAT = row("C" * 26, "Celery beat schedule", "Periodic Celery tasks run from tasks/schedule.py.", 9)


def test_a_contradiction_is_proposed_with_the_newer_belief_as_survivor() -> None:
    report = find_candidates([REDIS, SQS, BEAT], [], [], scope="p", now=NOW)
    assert [(g.kind, g.ids, g.keep_id) for g in report.groups] == [
        ("contradiction", [SQS.id, REDIS.id], SQS.id)
    ]
    # With vectors that put the two together, the group is still a contradiction, newer kept.
    vectors = [[1.0, 0.0], [0.99, 0.14], [0.0, 1.0]]
    ids = [REDIS.id, SQS.id, BEAT.id]
    report = find_candidates([REDIS, SQS, BEAT], ids, vectors, scope="p", now=NOW)
    assert [(g.kind, g.keep_id) for g in report.groups] == [("contradiction", SQS.id)]


def test_a_mandatory_memory_is_never_absorbed_into_a_normal_one() -> None:
    rule = replace(REDIS, mandatory=True)
    report = find_candidates([rule, SQS], [], [], scope="p", now=NOW)
    (group,) = report.groups
    assert group.kind == "contradiction" and group.keep_id == rule.id  # not the newer here


def test_merely_related_memories_of_different_types_are_not_grouped() -> None:
    constraint = replace(
        row("D" * 26, "Never deploy on Fridays", "No production deploy after Thursday noon."),
        type="constraint",
        mandatory=True,
    )
    procedure = replace(
        row("E" * 26, "Release procedure", "Tag the release, deploy to staging, then production."),
        type="procedure",
    )
    ids, vectors = [constraint.id, procedure.id], [[1.0, 0.0], [0.98, 0.2]]
    report = find_candidates(
        [constraint, procedure], ids, vectors, scope="p", now=NOW, threshold=0.5
    )
    assert report.groups == []
    # The same two as one type: the cosine alone groups them (what the type rule stops).
    same = replace(procedure, type="constraint")
    report = find_candidates([constraint, same], ids, vectors, scope="p", now=NOW, threshold=0.5)
    assert len(report.groups) == 1


def test_stale_candidates_are_the_broken_anchors_oldest_verified_first(
    project_dir: Path, service: MemoryService
) -> None:
    make_repo(project_dir)
    clock = iter(NOW + timedelta(minutes=n) for n in range(100))
    service.clock = lambda: next(clock)
    first = service.upsert(MemoryDraft(title="Export", body="cron", anchors=(CRONJOB,))).memory.id
    second = service.upsert(
        MemoryDraft(title="Dev", body="make up", anchors=("make up",))
    ).memory.id
    old = service.upsert(
        MemoryDraft(title="Old note", body="No code here.", created_at=NOW - timedelta(days=400))
    ).memory.id
    service.verify(first)  # verified after `second` was written
    assert Consolidator(service).report(root=project_dir).stale == []
    refactor(project_dir)
    stale: list[Memory] = Consolidator(service).report(root=project_dir).stale
    assert [m.id for m in stale] == [second, first]
    assert old not in {m.id for m in stale}
    assert Consolidator(service).report().stale == []  # no checkout, nothing stale
