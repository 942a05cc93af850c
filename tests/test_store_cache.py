"""The store's read economy: the row cache, the key index, and what they must never change.

Real tables in tmp dirs. A handle that has read rows keeps them by physical address (rows at an
address never change); these tests hold a warm handle across other handles' writes and check
it still answers with the newest state, and that the key index added for updates neither loses
a write nor breaks the partial-column merge that stores vectors.
"""

from __future__ import annotations

from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from graphit_cli.store.lance import KEY_INDEX
from tests.embedders import HashingEmbedder


def _open(scope) -> MemoryService:
    return open_service(scope, embedder=HashingEmbedder)


def test_a_warm_handle_sees_other_handles_updates_and_deletes(scope) -> None:
    reader, writer = _open(scope), _open(scope)
    kept = reader.upsert(MemoryDraft(title="Kiwi build", body="the kiwi build uses make")).memory
    gone = reader.upsert(MemoryDraft(title="Kiwi lint", body="kiwi lint runs ruff")).memory
    first = reader.search("kiwi", mode="fts")
    assert {h.memory.id for h in first.hits} == {kept.id, gone.id}
    assert len(reader.store.cache) >= 2  # the rows it read are held

    writer.upsert(MemoryDraft(id=kept.id, body="the kiwi build uses just"))
    writer.delete(gone.id)
    [hit] = reader.search("kiwi", mode="fts").hits
    assert (hit.memory.id, hit.memory.revision, hit.memory.body) == (
        kept.id,
        2,
        "the kiwi build uses just",
    )
    assert [m.revision for m in reader.store.chain(kept.id)] == [1, 2]
    assert reader.store.deleted_ids([kept.id, gone.id]) == {gone.id}


def test_a_repeated_search_takes_its_rows_from_the_cache(scope) -> None:
    svc = _open(scope)
    svc.upsert_many([MemoryDraft(title=f"note {i}", body=f"walrus fact {i}") for i in range(30)])
    first = svc.search("walrus", mode="fts", top_k=5)
    misses = svc.store.cache.misses
    again = svc.search("walrus", mode="fts", top_k=5)
    assert [h.memory.key for h in again.hits] == [h.memory.key for h in first.hits]
    assert svc.store.cache.misses == misses  # nothing read by address the second time
    assert svc.store.cache.hits > 0


def test_the_cache_evicts_beyond_its_budget(scope) -> None:
    svc = _open(scope)
    svc.store.cache.max_bytes = 4_000  # room for a few rows only
    svc.upsert_many([MemoryDraft(title=f"t{i}", body=f"otter {i} " * 40) for i in range(40)])
    hits = svc.search("otter", mode="fts", top_k=0).hits
    assert len(hits) == 40  # every row found, though most could not stay cached
    assert 0 < len(svc.store.cache) < 40


def test_vectors_are_stored_after_maintenance_built_the_key_index(scope) -> None:
    """A partial-column merge through the key index panics in lance 13 (the embed pass after
    a maintenance pass died in Rust); vectors are merged by scan."""
    svc = _open(scope)
    svc.upsert_many([MemoryDraft(title=f"t{i}", body=f"heron {i}") for i in range(50)])
    svc.maintain(force=True)  # the key index now covers every row
    report = svc.embed(HashingEmbedder())
    assert report.embedded == 50
    assert svc.store.missing_vectors() == 0
    assert svc.search("heron 7", mode="hybrid").mode == "hybrid"


def test_maintenance_adds_the_key_index_to_an_older_table(scope) -> None:
    svc = _open(scope)
    memory_id = svc.upsert(MemoryDraft(title="t", body="v1")).memory.id
    svc.store.table.drop_index(KEY_INDEX)  # a table created before the key index existed
    assert KEY_INDEX not in {ix.name for ix in svc.store.table.list_indices()}
    svc.maintain(force=True)
    assert KEY_INDEX in {ix.name for ix in svc.store.table.list_indices()}
    svc.upsert(MemoryDraft(id=memory_id, body="v2"))  # an update through the index
    assert [m.body for m in svc.store.chain(memory_id)] == ["v1", "v2"]


def test_one_handle_searched_from_several_threads_at_once(scope) -> None:
    """The daemon serves socket requests on threads over one handle: concurrent searches
    through a cache small enough to evict all the time give every thread the full answer."""
    import threading

    svc = _open(scope)
    svc.upsert_many([MemoryDraft(title=f"t{i}", body=f"lynx {i} " * 30) for i in range(60)])
    svc.store.cache.max_bytes = 20_000
    expected = {h.memory.id for h in svc.search("lynx", mode="fts", top_k=0).hits}
    assert len(expected) == 60
    failures: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(10):
                found = {h.memory.id for h in svc.search("lynx", mode="fts", top_k=0).hits}
                assert found == expected
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            failures.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    assert svc.store.cache.hits > 0


def _nearest(svc: MemoryService, vector: list[float], split: bool) -> list[tuple[str, float]]:
    svc.store.searches.split_vectors = split
    return [(m.key, round(s, 5)) for m, s in svc.store.search_vector(vector, 40)]


def test_vector_search_outside_the_index_ranks_as_lancedb_does(scope) -> None:
    """The warm remote path asks the vector index alone and ranks the rows outside it from
    vectors kept per fragment; on a table with rows outside the index (new, updated, deleted,
    embedded since the last maintenance) it must give LanceDB's own answer, also after more
    writes change which rows are outside the index."""
    embedder = HashingEmbedder()
    svc = _open(scope)
    ids = [
        r.memory.id
        for r in svc.upsert_many(
            [MemoryDraft(title=f"heron {i}", body=f"heron note {i} " * 5) for i in range(300)]
        ).results
    ]
    svc.embed(embedder)
    svc.maintain(force=True)  # the vector index covers every row
    # Each query's best match is a row the writes below move, add or delete.
    queries = [embedder.embed_query(f"heron note {n}") for n in (3, 150, 200, 201, 299)]
    new: list[str] = []
    for round_ in range(2):
        for i in range(4):  # outside the index: updated rows, new rows, and a deleted one
            svc.upsert(MemoryDraft(id=ids[i + 10 * round_], body=f"heron note {i} revised"))
            draft = MemoryDraft(title=f"new {round_}.{i}", body=f"heron note {200 + i}")
            new.append(svc.upsert(draft).memory.id)
        svc.delete(ids[50 + round_])
        if round_:  # rows the first round read from fragments outside the index change
            svc.upsert(MemoryDraft(id=new[0], body="heron note 3 again"))
            svc.delete(new[1])
        svc.embed(embedder)
        for vector in queries:
            split, plain = _nearest(svc, vector, True), _nearest(svc, vector, False)
            assert svc.store.searches._fresh_fragments[1]  # the split path did see rows outside
            # The same similarities in the same order; rows of equal similarity may swap, and
            # at the cut-off either of two equal rows may be the one kept (so the window of
            # 40 memories may end on a different number of tied rows).
            last = split[-1][1]
            assert last == plain[-1][1]
            assert [s for _, s in split if s > last] == [s for _, s in plain if s > last]
            assert {k for k, s in split if s > last} == {k for k, s in plain if s > last}
    fresh = svc.upsert(MemoryDraft(title="grebe", body="grebe grebe grebe")).memory
    svc.embed(embedder)
    [(key, similarity)] = _nearest(svc, embedder.embed_query("grebe grebe grebe"), True)[:1]
    assert (key, similarity) == (fresh.key, 1.0)  # written a moment ago, outside the index
