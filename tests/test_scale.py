"""Scale: 10k real memories through the service (slow; `make test-all` and CI run it).

The records are the cursorrules conventions in ../shared/data (read at run time, never copied).
"""

from __future__ import annotations

import json

import pytest

from graphit_cli.core.models import Category, MemoryDraft, WriteAction
from graphit_cli.core.ordering import canonical_key
from graphit_cli.service.memory import MemoryService
from tests.conftest import SHARED_DATA

DATA = SHARED_DATA / "cursorrules" / "memories.jsonl"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DATA.exists(), reason="shared data set not present"),
]


def drafts(n: int) -> list[MemoryDraft]:
    records = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    out = []
    for i in range(n):
        r = records[i % len(records)]
        out.append(
            MemoryDraft(
                title=f"{r['title']} ({i})",
                body=r["body"],
                type="convention",
                tags=tuple(t for t in r.get("tags", []) if t.replace("-", "").isalnum())[:5],
                important=i % 20 == 0,
                mandatory=i % 250 == 0,
            )
        )
    return out


def test_ten_thousand_memories(service: MemoryService) -> None:
    batch = drafts(10_000)
    result = service.upsert_many(batch)
    assert result.count(WriteAction.CREATED) == 10_000
    ids = [r.memory.id for r in result.results]

    # Re-importing the same records by id changes nothing.
    again = service.upsert_many(
        [MemoryDraft(**{**d.__dict__, "id": i}) for d, i in zip(batch, ids, strict=True)]
    )
    assert again.count(WriteAction.UNCHANGED) == 10_000

    # Updates keep chains intact at scale.
    for memory_id in ids[:50]:
        service.upsert(MemoryDraft(id=memory_id, body="rewritten at scale"))
    report = service.maintain(force=True)
    assert report.after.rows == 10_050 and report.after.unindexed_rows == 0
    assert report.after.fragments <= 3

    listed = service.catalogue()
    assert len(listed) == 10_000
    assert [canonical_key(m) for m in listed] == sorted(canonical_key(m) for m in listed)
    assert sum(m.category is Category.MANDATORY for m in listed) == 40

    # The 50 rewritten memories are the best matches by relevance (a memory that has "scale"
    # alone may match too, and a mandatory one is then selected first: the spec's rule).
    hits = service.search("rewritten at scale", top_k=0, mode="fts").hits
    best = sorted(hits, key=lambda h: h.rank)[:50]
    assert {h.memory.id for h in best} == set(ids[:50])
    chain = service.history(ids[0])
    assert [m.revision for m in chain] == [1, 2] and chain[0].next == ids[0]
