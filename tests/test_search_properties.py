"""Property test of the search selection rule (the spec, "Direct indexing, search, and reading").

Over random tables (real LanceDB in a fresh directory per example, the deterministic hashing
embedder), random flags, updates, deletes and queries: for every query and N, if a memory X
is in the `top_k=0` result and a memory of a lower category than X is in the `top_k=N`
result, X is in it too; the result counts N distinct memories at most, is shown in canonical
order, and the same rule holds with hybrid, lexical and vector retrieval.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphit_cli.access.scopes import Scope
from graphit_cli.core import ordering
from graphit_cli.core.models import Category, MemoryDraft
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from tests.conftest import examples
from tests.embedders import HashingEmbedder

WORDS = ["zebra", "lemur", "okapi", "use", "database", "deploy", "tests", "pnpm", "docker"]
RANK = {Category.MANDATORY: 0, Category.IMPORTANT: 1, Category.NORMAL: 2}

memory = st.tuples(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),  # title words
    st.lists(st.sampled_from(WORDS), min_size=0, max_size=8),  # body words
    st.booleans(),  # important
    st.booleans(),  # mandatory
    st.sampled_from(["keep", "update", "flag", "delete"]),  # what happens to it afterwards
)
queries = st.lists(
    st.lists(st.sampled_from([*WORDS, "which", "do", "we", "nothing"]), min_size=1, max_size=4),
    min_size=1,
    max_size=3,
)


@settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    memories=st.lists(memory, min_size=1, max_size=14),
    asked=queries,
    embedded=st.booleans(),
)
def test_no_higher_category_match_is_left_out(
    memories: list[tuple[list[str], list[str], bool, bool, str]],
    asked: list[list[str]],
    embedded: bool,
) -> None:
    home = tempfile.mkdtemp(prefix="graphit-search-prop-")
    old = os.environ.get("GRAPHIT_HOME")
    os.environ["GRAPHIT_HOME"] = home
    try:
        scope = Scope("project", "01JD0000000000000000000001")
        svc = MemoryService(open_service(scope).store, scope, embedder=HashingEmbedder)
        for n, (title, body, important, mandatory, then) in enumerate(memories):
            draft = MemoryDraft(
                title=f"{' '.join(title)} {n}",
                body=" ".join(body) or "empty",
                important=important,
                mandatory=mandatory,
            )
            memory_id = svc.upsert(draft).memory.id
            if then == "update":
                svc.upsert(MemoryDraft(id=memory_id, body=f"rewritten {n}"))
            elif then == "flag":
                svc.upsert(MemoryDraft(id=memory_id, important=not important, mandatory=True))
            elif then == "delete":
                svc.delete(memory_id)
        if embedded:
            svc.embed()
        modes = ["fts", "hybrid", "vector"] if embedded else ["fts"]
        for words in asked:
            text = " ".join(words)
            for mode in modes:
                everything = svc.search(text, top_k=0, mode=mode).hits
                category = {h.memory.id: h.memory.category for h in everything}
                for n in range(1, len(everything) + 2):
                    shown = svc.search(text, top_k=n, mode=mode).hits
                    shown_ids = [h.memory.id for h in shown]
                    assert len(shown_ids) == len(set(shown_ids)) == min(n, len(everything))
                    assert set(shown_ids) <= set(category)
                    keys = [ordering.canonical_key(h.memory) for h in shown]
                    assert keys == sorted(keys)
                    lowest = max((RANK[h.memory.category] for h in shown), default=-1)
                    for memory_id, cat in category.items():
                        if RANK[cat] < lowest:  # X is of a higher category than one shown
                            assert memory_id in shown_ids, (text, mode, n)
    finally:
        if old is not None:
            os.environ["GRAPHIT_HOME"] = old
        shutil.rmtree(home, ignore_errors=True)
