"""The two read paths of store/engine.py answer alike, and a dataset handle stays fresh.

A local table is read through pylance (`DatasetEngine`), a remote one through the LanceDB
table (`TableEngine`); both run lance's scanner, and these tests hold them to the same rows,
scores and distances on a real table with live rows, archives, a deletion, flags and vectors.
"""

from __future__ import annotations

from pathlib import Path

import lance
import lancedb
import pytest

from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
from graphit_cli.store.engine import DatasetEngine, TableEngine
from graphit_cli.store.search import TEXT_BOOSTS
from graphit_cli.store.table import TABLE_NAME, TAKE_FLAGGED
from tests.embedders import HashingEmbedder

TOPICS = [
    ("Deploy with blue-green", "Flip the router after the health check passes.", ["ops"]),
    ("Database is Postgres", "We use Postgres 16 for every service's state.", ["db"]),
    ("Lint with ruff", "ruff check and ruff format run before every commit.", ["python"]),
    ("Deploy freeze on Fridays", "No deploy after noon on a Friday.", ["ops", "policy"]),
    ("Use pnpm", "The web app installs with pnpm, never npm.", ["web"]),
    ("Router timeouts", "The router gives up after 30 seconds.", ["ops"]),
]


@pytest.fixture
def both(scope):
    svc = open_service(scope, embedder=HashingEmbedder)
    ids = []
    for i, (title, body, tags) in enumerate(TOPICS):
        draft = MemoryDraft(title=title, body=body, tags=tags, important=i % 3 == 0)
        ids.append(svc.upsert(draft).memory.id)
    svc.upsert(MemoryDraft(id=ids[0], body="Flip the router once the canary is green."))
    svc.upsert(MemoryDraft(id=ids[2], mandatory=True))
    svc.delete(ids[4])
    svc.embed(HashingEmbedder())
    uri = svc.store.uri
    table = lancedb.connect(uri, read_consistency_interval=None).open_table(TABLE_NAME)
    dataset = lance.dataset(str(Path(uri) / f"{TABLE_NAME}.lance"))
    return DatasetEngine(dataset), TableEngine(table)


WHERES = [
    "",
    "revision_id = ''",
    "(revision_id = '' AND important = true) OR revision_id <> ''",
    "revision_id = '' AND array_has_any(tags, ['ops'])",
]


def _rows(data) -> list[dict]:
    return sorted(data.to_pylist(), key=lambda r: r["_rowaddr"])


@pytest.mark.parametrize("where", [*WHERES[:2], "revision_id <> '' AND next IS NULL"])
def test_scans_and_takes_agree(both, where: str) -> None:
    dataset, table = both
    columns = ["id", "key", "revision", "title", "_rowaddr"]
    scanned = _rows(dataset.scan(where, columns, None))
    assert scanned and scanned == _rows(table.scan(where, columns, None))
    addresses = [r["_rowaddr"] for r in scanned]
    assert _rows(dataset.take(addresses, TAKE_FLAGGED)) == _rows(
        table.take(addresses, TAKE_FLAGGED)
    )
    assert dataset.count(where) == table.count(where) == len(scanned)
    assert dataset.version() == table.version()


@pytest.mark.parametrize("text", ["deploy router", "postgres", "ruff commit", "nothing-like-it"])
@pytest.mark.parametrize("where", [WHERES[0], WHERES[2]])
def test_bm25_agrees(both, text: str, where: str) -> None:
    dataset, table = both
    ours = [
        (r["_rowaddr"], round(r["_score"], 5))
        for r in dataset.text(text, TEXT_BOOSTS, where, 10).to_pylist()
    ]
    theirs = [
        (r["_rowaddr"], round(r["_score"], 5))
        for r in table.text(text, TEXT_BOOSTS, where, 10).to_pylist()
    ]
    assert ours == theirs
    if not where:
        assert bool(ours) == (text != "nothing-like-it")


@pytest.mark.parametrize("where", [WHERES[0], WHERES[1], WHERES[2]])
def test_nearest_agrees(both, where: str) -> None:
    dataset, table = both
    vector = HashingEmbedder().embed_query("deploy the router")
    ours = [
        (r["_rowaddr"], round(r["_distance"], 5))
        for r in dataset.nearest(vector, where, 5, fast=False).to_pylist()
    ]
    theirs = [
        (r["_rowaddr"], round(r["_distance"], 5))
        for r in table.nearest(vector, where, 5, fast=False).to_pylist()
    ]
    assert ours and ours == theirs


def test_a_dataset_handle_sees_a_commit_made_elsewhere(scope) -> None:
    reader = open_service(scope, embedder=HashingEmbedder)
    writer = open_service(scope, embedder=HashingEmbedder)
    first = writer.upsert(MemoryDraft(title="Kiwi build", body="make")).memory
    assert [m.id for m in reader.catalogue()] == [first.id]
    assert reader.store.handle._table is None  # a reader never opened LanceDB's table
    second = writer.upsert(MemoryDraft(title="Kiwi lint", body="ruff")).memory
    writer.upsert(MemoryDraft(id=first.id, body="just"))
    assert {m.id: m.revision for m in reader.catalogue()} == {first.id: 2, second.id: 1}
    # The reader writes too (its LanceDB table opens now), and reads its own write.
    reader.upsert(MemoryDraft(id=second.id, body="ruff format"))
    assert reader.source(second.id).body == "ruff format"
    writer.delete(second.id)
    assert [m.id for m in reader.catalogue()] == [first.id]


def test_a_table_this_process_created_is_upkept_at_its_newest_commit(
    scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The process that creates a table used to fold a big first batch into the table as it
    # was at its creation (empty): every row stayed outside the indexes.
    monkeypatch.setenv("GRAPHIT_FOLD_THRESHOLD", "2")  # a batch of 64 rows or more is folded
    svc = open_service(scope)
    svc.upsert_many([MemoryDraft(title=f"m {n}", body="b") for n in range(100)])
    for seen in (svc.store.state(), open_service(scope).store.state()):
        assert (seen.rows, seen.indexed_rows, seen.unindexed_rows) == (100, 100, 0)


def test_a_page_of_the_catalogue_is_the_head_of_the_whole(service) -> None:
    ids = []
    for i in range(12):
        draft = MemoryDraft(
            title=f"Note {i}", body=f"body {i}", important=i % 4 == 1, mandatory=i % 5 == 2
        )
        ids.append(service.upsert(draft).memory.id)
    service.upsert(MemoryDraft(id=ids[0], body="edited last: newest normal"))
    service.upsert(MemoryDraft(id=ids[5], important=True))
    service.delete(ids[7])
    whole = [m.id for m in service.catalogue()]
    assert ids[7] not in whole and len(whole) == 11
    for limit in (1, 3, 5, 11, 20):
        page = service.catalogue(limit=limit)
        assert [m.id for m in page] == whole[:limit]
        assert all(m.is_live and m.body for m in page)


def test_the_table_path_is_where_lancedb_keeps_the_table(service) -> None:
    from graphit_cli.store.paths import local_table_exists, table_path

    uri = service.store.uri
    assert table_path(uri) == str(Path(uri) / f"{TABLE_NAME}.lance")
    assert local_table_exists(uri)  # opening the scope created the table
    assert not local_table_exists(str(Path(uri).parent / "no-such-scope"))


def test_reads_run_together_and_a_move_waits_for_them(both, scope) -> None:
    """A hybrid search's two legs read one dataset from two threads while another commit may
    move it (`latest`): pylance raises "Already borrowed" when a dataset moves under a read,
    so reads share the dataset and a move waits for them (store/engine.py)."""
    import threading

    dataset, _ = both
    writer = open_service(scope, embedder=HashingEmbedder)
    vector = HashingEmbedder().embed_query("deploy the router")
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                dataset.text("deploy router", TEXT_BOOSTS, "", 10)
                dataset.nearest(vector, "", 5, fast=False)
                dataset.scan("revision_id = ''", ["id"], None)
        except BaseException as exc:  # reported below
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for i in range(8):
            writer.upsert(MemoryDraft(title=f"Router note {i}", body="the router moves"))
            dataset.latest()
    finally:
        done.set()
        for reader in readers:
            reader.join(60)
    assert not any(reader.is_alive() for reader in readers)  # none left waiting
    assert errors == []
    assert dataset.version() == writer.store.version()
    assert dataset.count("revision_id = ''") == len(writer.catalogue())


def test_a_table_engine_keeps_its_view_of_the_schema_until_it_looks(both) -> None:
    """`TableEngine` keeps the schema (a trip to LanceDB's loop per query otherwise): another
    handle's metadata change shows once the engine looks for newer commits, its own at once."""
    dataset, mine = both
    uri = str(Path(dataset.dataset.uri).parent)
    theirs = TableEngine(
        lancedb.connect(uri, read_consistency_interval=None).open_table(TABLE_NAME)
    )

    def mark(engine: TableEngine) -> bytes | None:
        return (engine.schema().field("embedding").metadata or {}).get(b"graphit.test")

    assert mark(mine) is None
    theirs.set_field_metadata("embedding", {"graphit.test": "theirs"})
    assert mark(mine) is None  # this engine's view: the version it was at
    mine.latest()
    assert mark(mine) == b"theirs"
    mine.set_field_metadata("embedding", {"graphit.test": "mine"})
    assert mark(mine) == b"mine"
