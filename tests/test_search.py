"""Search: chain collapse, the selection rule, canonical order, filters, modes and embedding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphit_cli.core import ranking, relevance
from graphit_cli.core.models import LexicalHit, MemoryDraft, MemoryFilter
from graphit_cli.errors import InvalidInput
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from tests.embedders import HashingEmbedder


@pytest.fixture
def svc(scope) -> MemoryService:
    return MemoryService(open_service(scope).store, scope, embedder=HashingEmbedder)


def write(svc: MemoryService, title: str, body: str, **kw: object) -> str:
    return svc.upsert(MemoryDraft(title=title, body=body, **kw)).memory.id


def ids(result) -> list[str]:
    return [h.memory.id for h in result.hits]


def test_archived_only_match_returns_current_memory_as_superseded(svc: MemoryService) -> None:
    memory_id = write(svc, "Deploy target", "We deploy with zebractl to the old cluster.")
    svc.upsert(MemoryDraft(id=memory_id, body="We deploy with helm to the new cluster."))
    [hit] = svc.search("zebractl", mode="fts").hits
    assert hit.superseded and not hit.deleted
    assert hit.current_id == memory_id
    assert hit.memory.is_live and hit.memory.revision == 2
    assert hit.matched.revision == 1 and hit.matched.key.startswith(f"{memory_id}/")
    assert "zebractl" in hit.snippet


def test_live_match_hides_archived_hits_of_the_same_chain(svc: MemoryService) -> None:
    memory_id = write(svc, "Kiwi", "kiwi one")
    for n in range(2, 5):
        svc.upsert(MemoryDraft(id=memory_id, body=f"kiwi {n}"))
    result = svc.search("kiwi", mode="fts")
    [hit] = result.hits
    assert not hit.superseded and hit.matched.is_live and hit.matched.revision == 4


def test_deleted_memory_is_left_out_unless_asked_for(svc: MemoryService) -> None:
    memory_id = write(svc, "Obsolete", "the quagga pipeline")
    kept = write(svc, "Current", "the quagga replacement")
    svc.delete(memory_id)
    assert ids(svc.search("quagga", mode="fts")) == [kept]
    hits = svc.search("quagga", mode="fts", include_deleted=True).hits
    [hit] = [h for h in hits if h.memory.id == memory_id]
    assert hit.deleted and hit.current_id is None


def test_top_k_counts_distinct_memories_after_collapse(svc: MemoryService) -> None:
    chained = write(svc, "walrus", "walrus walrus 0")
    for n in range(1, 6):
        svc.upsert(MemoryDraft(id=chained, body=f"walrus walrus {n}"))
    others = [write(svc, f"note {n}", f"a walrus appears {n}") for n in range(4)]
    result = svc.search("walrus", top_k=3, mode="fts")
    assert len(result.hits) == 3 and len(set(ids(result))) == 3
    assert set(ids(result)) <= {chained, *others}


def test_a_weak_flagged_match_is_still_selected_first(svc: MemoryService) -> None:
    """The spec's rule without exception: a matched mandatory memory is never left out while a
    normal one is shown, however much better the normal ones score."""
    strong = [write(svc, f"lemur {n}", "lemur facts: lemur lemur lemur") for n in range(12)]
    weak_body = "A long note about many things. " * 20 + "It mentions a lemur once."
    mandatory = write(svc, "Session rules", weak_body, mandatory=True)
    important = write(svc, "Reference notes", weak_body, important=True)
    ranked = sorted(svc.search("lemur", top_k=0, mode="fts").hits, key=lambda h: h.rank)
    assert {h.memory.id for h in ranked[-2:]} == {mandatory, important}  # the lowest scores
    assert ranked[-1].score < 0.5 * ranked[0].score
    for top_k in (1, 2, 3, 5):
        result = svc.search("lemur", top_k=top_k, mode="fts")
        assert ids(result) == [mandatory, important, *ids(result)[2:]][:top_k]
        assert len(result.hits) == top_k and set(ids(result)[2:]) <= set(strong)


def test_a_common_word_alone_is_not_a_match(svc: MemoryService) -> None:
    """A full-text hit matches when its terms carry enough of the query's idf weight: sharing
    only a word most memories use is not a match, in any category."""
    database = write(svc, "Primary database", "We store everything in PostgreSQL, the database.")
    for n, tool in enumerate(["pnpm", "uv", "ruff", "helm", "docker", "vault"]):
        write(svc, f"Use {tool}", f"We use {tool} for task {n}.", important=n % 2 == 0)
    assert ids(svc.search("which database do we use", mode="fts")) == [database]
    assert ids(svc.search("which database do we use", top_k=0, mode="fts")) == [database]
    assert len(svc.search("use", mode="fts").hits) == 6  # the word alone is the whole query
    assert svc.search("which xylophone do we use", mode="fts").hits == []


def test_lexical_only_search_also_matches_a_strong_partial_hit(svc: MemoryService) -> None:
    """Without a semantic branch, a full-text hit with less than half of the query's weight
    still matches when its relevance is not far below the best hit's; a weak one (one word of
    three, once in a long body) does not."""
    filler = " ".join(f"word{n}" for n in range(40))
    full = write(svc, "Zoo visit", f"zebra okapi lemur {filler}")
    partial = write(svc, "Zebra", "zebra zebra")  # "zebra" is under half of the weight
    both = [write(svc, f"Notes {n}", f"okapi lemur {filler} {filler}") for n in range(3)]
    weak = write(svc, "Long note", f"an okapi {filler} {filler} {filler}")
    for n in range(6):
        write(svc, f"Other {n}", f"notes {n}")
    found = ids(svc.search("zebra okapi lemur", top_k=0, mode="fts"))
    assert sorted(found) == sorted([full, partial, *both]) and weak not in found


def test_fused_threshold_stands_out_but_never_above_the_best() -> None:
    pool = [1.0, 0.95] + [0.1] * 40
    bar = relevance.fused_threshold(pool, 1.25)
    assert 0.1 < bar < 0.95
    assert (
        relevance.fused_threshold([1.0, 0.9, 0.1], 1.25) == 1.0
    )  # a few candidates: the best passes
    assert relevance.fused_threshold([], 1.25) == float("inf")


def test_a_hit_on_the_rare_word_outranks_a_higher_bm25_hit_on_the_common_one(
    svc: MemoryService,
) -> None:
    """A hit's lexical part is its relative BM25 times its share of the query's term weight."""
    write(svc, "Zebra", "zebra")
    write(svc, "Use", "use use use")
    [zebra] = svc.search("zebra", mode="fts").hits
    [use] = svc.search("use", mode="fts").hits
    hits = [
        LexicalHit(use.matched, 10.0, True, 1),
        LexicalHit(zebra.matched, 6.0, True, 2),
    ]
    shares = {use.matched.key: 0.2, zebra.matched.key: 0.8}
    fused = ranking.fuse(hits, [], shares=shares)
    assert [s.row.key for s in fused] == [zebra.matched.key, use.matched.key]
    assert [s.row.key for s in ranking.fuse(hits, [])] == [use.matched.key, zebra.matched.key]


def test_informative_terms_and_weights() -> None:
    assert relevance.informative_terms("Which database do WE use, the database?") == [
        "database",
        "use",
    ]
    weights = relevance.term_weights({"database": 1, "use": 9, "zebra": 0}, rows=10)
    assert weights["zebra"] > weights["database"] > weights["use"] > 0
    assert relevance.lexical_share(["use"], weights) < 0.2
    assert relevance.lexical_share(["database", "database"], weights) < 0.5  # zebra counts
    assert relevance.lexical_share([], {}) == 0.0


def test_hits_are_shown_in_canonical_order(svc: MemoryService) -> None:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    made = {}
    for n, (name, flags) in enumerate(
        [
            ("n-old", {}),
            ("i-old", {"important": True}),
            ("m", {"mandatory": True}),
            ("n-new", {}),
            ("i-new", {"important": True}),
        ]
    ):
        made[name] = svc.upsert(
            MemoryDraft(
                title=f"otter {name}",
                body="otter facts " * (n + 1),
                created_at=base + timedelta(days=n),
                **flags,
            )
        ).memory.id
    result = svc.search("otter", top_k=10, mode="fts")
    assert ids(result) == [made[k] for k in ("m", "i-new", "i-old", "n-new", "n-old")]
    assert sorted(h.rank for h in result.hits) == [1, 2, 3, 4, 5]


def test_equal_scores_rank_in_canonical_order(svc: MemoryService) -> None:
    """Rows with the same words score the same; the full-text index answers them in its own
    order (which differs between two copies of a table), so the tie goes to the canonical order
    and every copy ranks them alike (CI saw two tables rank one pair both ways)."""
    base = datetime(2026, 1, 1, tzinfo=UTC)
    made = {}
    for n, (name, flags) in enumerate(
        [
            ("n-old", {}),
            ("i-old", {"important": True}),
            ("n-new", {}),
            ("i-new", {"important": True}),
        ]
    ):
        made[name] = svc.upsert(
            MemoryDraft(
                title="sable policy",
                body=f"sable policy {('alpha', 'bravo', 'delta', 'gamma')[n]}",
                created_at=base + timedelta(days=n),
                **flags,
            )
        ).memory.id
    hits = svc.search("sable policy", top_k=0, mode="fts").hits
    assert len({h.score for h in hits}) == 1, [h.score for h in hits]  # a true tie
    by_rank = [h.memory.id for h in sorted(hits, key=lambda h: h.rank)]
    assert by_rank == [made[k] for k in ("i-new", "i-old", "n-new", "n-old")]
    assert [h.memory.id for h in svc.search("sable policy", top_k=1, mode="fts").hits] == [
        made["i-new"]
    ]


def test_exclude_mandatory_and_filters(svc: MemoryService) -> None:
    mandatory = write(svc, "heron rule", "heron", mandatory=True)
    decision = write(svc, "heron decision", "heron", type="decision", tags=("birds",))
    fact = write(svc, "heron fact", "heron", tags=("birds", "water"))
    assert mandatory not in ids(svc.search("heron", exclude_mandatory=True, mode="fts"))
    assert ids(svc.search("heron", flt=MemoryFilter(types=("decision",)), mode="fts")) == [decision]
    tagged = svc.search("heron", flt=MemoryFilter(tags=("birds",)), mode="fts")
    assert set(ids(tagged)) == {decision, fact}
    both = svc.search("heron", flt=MemoryFilter(tags=("birds", "water")), mode="fts")
    assert ids(both) == [fact]
    # Becoming mandatory later also excludes the memory's older, non-mandatory revisions.
    svc.upsert(MemoryDraft(id=fact, mandatory=True))
    assert fact not in ids(svc.search("heron", exclude_mandatory=True, mode="fts"))


def test_lexical_fallback_without_vectors(svc: MemoryService) -> None:
    write(svc, "Ibis", "ibis notes")
    result = svc.search("ibis")
    assert result.mode == "fts" and "no memory has a vector yet" in (result.notice or "")
    assert len(result.hits) == 1
    with pytest.raises(InvalidInput, match="vector search is not possible"):
        svc.search("ibis", mode="vector")


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("it's", False),
        ("fine'", True),
        ('"quoted" AND OR NOT -x +y', True),
        ("title:foo", True),
        ("a' OR '1'='1", False),
        ("%;--", False),
        ("(((", False),
        ("*", False),
    ],
)
def test_quotes_and_operators_are_plain_text(svc: MemoryService, query: str, found: bool) -> None:
    target = write(svc, "Quote test", "it's fine: title says foo")
    write(svc, "Other", "nothing in common here")
    # Words match as words; quotes, operators and wildcards neither fail nor widen the match.
    assert ids(svc.search(query, mode="fts")) == ([target] if found else [])


def test_bad_search_arguments(svc: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="must not be empty"):
        svc.search("   ")
    with pytest.raises(InvalidInput, match="top_k must not be negative"):
        svc.search("x", top_k=-1)
    with pytest.raises(InvalidInput, match="unknown search mode"):
        svc.search("x", mode="semantic")


def test_embed_then_hybrid_and_vector_modes(svc: MemoryService) -> None:
    cat = write(svc, "Cats", "cats purr and sleep")
    dog = write(svc, "Dogs", "dogs bark loudly")
    svc.upsert(MemoryDraft(id=dog, body="dogs bark loudly at night"))  # one archived row
    report = svc.embed()
    assert (report.embedded, report.skipped, report.reembedded) == (3, 0, False)
    assert svc.store.count("embedding IS NULL") == 0
    assert svc.embed().embedded == 0  # nothing left to do
    result = svc.search("purr sleep")
    assert result.mode == "hybrid" and result.notice is None
    assert min(result.hits, key=lambda h: h.rank).memory.id == cat
    vector = svc.search("bark night", mode="vector")
    assert vector.mode == "vector" and min(vector.hits, key=lambda h: h.rank).memory.id == dog
    # An edit clears the live row's vector; a flag change keeps it.
    svc.upsert(MemoryDraft(id=cat, important=True))
    assert svc.store.get(cat, vectors=True).embedding is not None
    svc.upsert(MemoryDraft(id=cat, body="cats purr"))
    assert svc.store.get(cat, vectors=True).embedding is None
    assert svc.embed().embedded == 1


def test_embedding_is_guarded_by_content_hash(svc: MemoryService) -> None:
    memory_id = write(svc, "Racy", "first text")
    [row] = svc.store.rows_to_embed(10)
    svc.upsert(MemoryDraft(id=memory_id, body="second text"))  # edited while embedding
    assert svc.store.write_embeddings([(row.key, row.content_hash, [0.1] * 384)]) == 0
    assert svc.store.get(memory_id, vectors=True).embedding is None


def test_another_model_means_re_embedding(scope) -> None:
    store = open_service(scope).store
    first = MemoryService(store, scope, embedder=lambda: HashingEmbedder("test/a"))
    write(first, "One", "one")
    write(first, "Two", "two")
    assert first.embed().embedded == 2
    assert store.embedding_model() == "test/a"
    second = MemoryService(store, scope, embedder=lambda: HashingEmbedder("test/b"))
    result = second.search("one")
    assert result.mode == "fts" and "test/a" in (result.notice or "")
    report = second.embed()
    assert report.reembedded and report.embedded == 2
    assert store.embedding_model() == "test/b" and second.search("one").mode == "hybrid"


def test_recall_protocol(svc: MemoryService) -> None:
    rule = write(svc, "Always run tests", "pytest before commit", mandatory=True)
    related = write(svc, "Test layout", "tests live in tests/ and use pytest")
    result = svc.recall("pytest")
    assert [m.id for m in result.mandatory] == [rule]
    assert result.search is not None and ids(result.search) == [related]
    assert svc.recall(None).search is None


def test_snippets_cut_between_words() -> None:
    body = "## What we decided\n\n" + " ".join(f"word{n}" for n in range(80)) + " zebra tail"
    for query in ("What", "zebra", "word40"):
        text = ranking.snippet(body, query)
        inner = text.strip("…")
        assert len(inner) <= ranking.SNIPPET_CHARS
        words = body.split()
        assert all(w in words for w in inner.split()), text


def test_a_deleted_best_match_leaves_the_rest_in_order(svc: MemoryService) -> None:
    gone = write(svc, "Okapi okapi okapi", "okapi okapi okapi okapi")
    rule = write(svc, "Okapi rule", "the okapi eats", mandatory=True)
    normal = [write(svc, "Okapi okapi eats", "okapi okapi") for _ in range(6)]
    ranked = sorted(svc.search("okapi", top_k=0, mode="fts").hits, key=lambda h: h.rank)
    assert ranked[0].memory.id == gone and ranked[-1].memory.id == rule
    svc.delete(gone)
    result = svc.search("okapi", top_k=2, mode="fts")
    assert ids(result)[0] == rule and set(ids(result)[1:]) <= set(normal)


def test_a_vector_leg_that_fails_fails_the_search_and_leaves_no_thread(scope) -> None:
    """A hybrid search runs its vector leg on a thread beside the full-text leg: the leg's
    error is the search's error, raised in the caller's thread, and no leg is left running."""
    import threading

    class Broken(HashingEmbedder):
        def embed_query(self, text: str) -> list[float]:
            raise RuntimeError("the model crashed")

    writer = MemoryService(open_service(scope).store, scope, embedder=HashingEmbedder)
    write(writer, "Deploy on Fridays", "never after noon")
    writer.embed()
    svc = MemoryService(writer.store, scope, embedder=Broken)
    before = threading.active_count()
    with pytest.raises(RuntimeError, match="the model crashed"):
        svc.search("deploy")
    assert threading.active_count() == before
    assert ids(svc.search("deploy", mode="fts"))  # the full-text leg alone still answers
    assert [h.memory.title for h in writer.search("deploy").hits] == ["Deploy on Fridays"]
