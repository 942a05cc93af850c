"""The reads and row writes a table handle asks of the storage engine, in two implementations.

- `DatasetEngine` works on a local table through pylance (`lance.dataset`) directly. A cold
  command (`list`, `source`, `search`, `upsert`, `delete`) then never imports `lancedb`, which
  costs more than the rest of such a command (its namespace models, embedding registry and
  remote client: ~0.9 s, 2x `import lance`). LanceDB still creates the table and its indexes,
  folds and maintains it (store/upkeep.py): the table is the same LanceDB table either way.
- `TableEngine` works through the LanceDB table: remote tables, whose request economy
  (store/search.py, store/s3.py) is tuned to LanceDB's handle.

Both run the same lance scanner and the same lance `merge_insert` underneath (LanceDB's table
is a lance dataset), so they answer and commit alike: the same rows, BM25 scores and cosine
distances, the same compare-and-swap and primary-key checks (tests/test_store_engine.py holds
them to it). Addresses (`_rowaddr`) are the physical row addresses the row cache keys on.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from graphit_cli.store.base import MergeCounts

# LanceDB's default number of IVF partitions a vector query probes (its minimum_nprobes).
NPROBES = 20

# lance's and LanceDB's measure of a fragment too small to leave alone (rows, live or not).
SMALL_FRAGMENT_ROWS = 100_000

Columns = list[str] | dict[str, str]

# Called between a compaction's rewrite (its reads and new data files) and its commit (the new
# manifest): where a `rm -rf` of the table raced the daemon's pass.
# Tests remove the table's directory here; nothing else uses it.
BEFORE_COMMIT: list[Callable[[], None]] = []


@dataclass(frozen=True)
class Merge:
    """One `merge_insert` commit on `key`: matched rows are updated (where `update_where`
    holds, or all with None), new keys inserted when `insert`, and rows outside the data
    deleted where `delete_where` holds. `use_index`: find the keys through the key index."""

    update_where: str | None = None
    insert: bool = True
    delete_where: str | None = None
    use_index: bool = False


class Engine(Protocol):
    """What the handle reads and writes. `where` is a LanceDB SQL filter ("" for none);
    `columns` may name `_rowaddr` and map output names to SQL expressions."""

    def latest(self) -> None: ...
    def version(self) -> int: ...
    def schema(self) -> Any: ...
    def scan(self, where: str, columns: Columns | None, limit: int | None) -> Any: ...
    def take(self, addresses: list[int], columns: Columns) -> Any: ...
    def text(self, text: str, boosts: dict[str, float], where: str, limit: int) -> Any:
        """BM25 over the columns of `boosts` with their weights (plain text: no operators)."""

    def nearest(self, vector: list[float], where: str, limit: int, *, fast: bool) -> Any: ...
    def count(self, where: str) -> int: ...

    # row writes: each one commit
    def merge(self, data: Any, merge: Merge) -> MergeCounts: ...
    def delete(self, where: str) -> int: ...
    def set_null(self, column: str, where: str) -> None: ...
    def set_field_metadata(self, column: str, metadata: dict[str, str]) -> None: ...

    # the write path's fold check (store/upkeep.py)
    def small_fragments(self) -> int: ...
    def compact(self, target_rows: int) -> None:
        """Rewrite the fragments below `target_rows` rows into bigger ones (pylance's own)."""

    def unindexed_rows(self, index: str) -> int: ...


T = TypeVar("T")


class _ReadersOrMover:
    """Many readers at once, or one call that moves the dataset (a checkout, a commit) and no
    reader: pylance's dataset raises "Already borrowed" when it is moved while another thread
    reads it, but reads share it (a hybrid search's two legs run at once, service/reads.py).
    A waiting move goes first: readers that keep coming never starve it. No call nests."""

    def __init__(self) -> None:
        self._state = threading.Condition()  # over an RLock: a mover may read
        self._readers = 0
        self._movers = 0  # waiting to move

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._state:
            self._state.wait_for(lambda: not self._movers)
            self._readers += 1
        try:
            yield
        finally:
            with self._state:
                self._readers -= 1
                self._state.notify_all()

    @contextmanager
    def moving(self) -> Iterator[None]:
        with self._state:  # held throughout the move: no reader starts meanwhile
            self._movers += 1
            try:
                self._state.wait_for(lambda: not self._readers)
            finally:
                self._movers -= 1
            try:
                yield
            finally:
                self._state.notify_all()  # the readers that waited for this move


def _holding(
    hold: Callable[[_ReadersOrMover], AbstractContextManager[None]],
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """A DatasetEngine method run while holding its lock the way `hold` takes it."""

    def wrap(method: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(method)
        def run(self: DatasetEngine, *args: Any, **kwargs: Any) -> T:
            with hold(self.lock):
                return method(self, *args, **kwargs)

        return run

    return wrap


_reads = _holding(_ReadersOrMover.reading)
_moves = _holding(_ReadersOrMover.moving)


class DatasetEngine:
    """A local table through pylance; the handle moves it to the newest commit."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset
        self.lock = _ReadersOrMover()

    @_moves
    def latest(self) -> None:
        self.dataset.checkout_latest()

    @_reads
    def version(self) -> int:
        return int(self.dataset.version)

    @_reads
    def schema(self) -> Any:
        return self.dataset.schema

    @_reads
    def scan(self, where: str, columns: Columns | None, limit: int | None) -> Any:
        columns, address = _split_address(columns)
        return self.dataset.to_table(
            columns=columns, filter=where or None, limit=limit, with_row_address=address
        )

    @_reads
    def take(self, addresses: list[int], columns: Columns) -> Any:
        return self.dataset._take_rows(addresses, columns=columns)

    @_reads
    def text(self, text: str, boosts: dict[str, float], where: str, limit: int) -> Any:
        from lance.query import FullTextOperator, MultiMatchQuery

        query = MultiMatchQuery(
            text, list(boosts), boosts=list(boosts.values()), operator=FullTextOperator.OR
        )
        return self._ranked("_score", where, limit, full_text_query=query)

    @_reads
    def nearest(self, vector: list[float], where: str, limit: int, *, fast: bool) -> Any:
        import pyarrow as pa

        nearest = {
            "column": "embedding",
            # An arrow array as it is: a list goes through pandas' converter, whose first use
            # imports numpy.ma (~40 ms of a cold search, holding the GIL).
            "q": pa.array(vector, type=pa.float32()),
            "k": limit,
            "metric": "cosine",
            "minimum_nprobes": NPROBES,
        }
        return self._ranked("_distance", where, limit, nearest=nearest, fast_search=fast or None)

    def _ranked(self, score: str, where: str, limit: int, **query: Any) -> Any:
        """The best `limit` rows of an index query: their `score` column and row addresses,
        the filter applied before ranking."""
        return self.dataset.to_table(
            columns=[score],
            with_row_address=True,
            filter=where or None,
            prefilter=bool(where) or None,
            limit=limit,
            **query,
        )

    @_reads
    def count(self, where: str) -> int:
        return int(self.dataset.count_rows(where or None))

    @_moves
    def merge(self, data: Any, merge: Merge) -> MergeCounts:
        builder = self.dataset.merge_insert("key").when_matched_update_all(merge.update_where)
        if merge.insert:
            builder = builder.when_not_matched_insert_all()
        if merge.delete_where is not None:
            builder = builder.when_not_matched_by_source_delete(merge.delete_where)
        result = builder.use_index(merge.use_index).execute(data)
        return MergeCounts(
            inserted=int(result["num_inserted_rows"]),
            updated=int(result["num_updated_rows"]),
            deleted=int(result["num_deleted_rows"]),
            version=int(self.dataset.version),  # the dataset moved to its own commit
        )

    @_moves
    def delete(self, where: str) -> int:
        return int(self.dataset.delete(where)["num_deleted_rows"])

    @_moves
    def set_null(self, column: str, where: str) -> None:
        self.dataset.update({column: "NULL"}, where=where)

    @_moves
    def set_field_metadata(self, column: str, metadata: dict[str, str]) -> None:
        self.dataset.update_field_metadata({column: metadata})

    @_reads
    def small_fragments(self) -> int:
        fragments = self.dataset.get_fragments()
        return sum(1 for f in fragments if f.metadata.physical_rows < SMALL_FRAGMENT_ROWS)

    @_moves
    def compact(self, target_rows: int) -> None:
        compact(self.dataset, target_rows)

    @_reads
    def unindexed_rows(self, index: str) -> int:
        try:
            return int(self.dataset.stats.index_stats(index)["num_unindexed_rows"])
        except (KeyError, ValueError):  # no such index
            return 0


class TableEngine:
    """A table through LanceDB: remote ones, and local ones a long-lived process keeps.

    A read is one trip to LanceDB's event loop (`_collect`): the table's sync query builders
    make five to seven (the schema three or four times, the query, each batch), about half of
    a 2-4 ms index query, and a warm prompt hook makes a dozen. The schema is kept until the
    engine looks for newer commits or writes (the only ways its view of the table changes)."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._schema: Any = None

    def latest(self) -> None:
        self._schema = None
        self.table.checkout_latest()

    def version(self) -> int:
        return int(self.table.version)

    def schema(self) -> Any:
        if self._schema is None:
            self._schema = self.table.schema
        return self._schema

    def scan(self, where: str, columns: Columns | None, limit: int | None) -> Any:
        def query(table: Any) -> Any:
            found = table.query()
            if limit is not None:
                found = found.limit(limit)
            if columns is not None:
                found = found.select(columns)
            return found.where(where) if where else found

        return self._collect(query)

    def take(self, addresses: list[int], columns: Columns) -> Any:
        return self.table.take_row_ids(addresses).select(columns).to_arrow()

    def text(self, text: str, boosts: dict[str, float], where: str, limit: int) -> Any:
        from lancedb.query import FullTextOperator, MultiMatchQuery

        match = MultiMatchQuery(
            text, list(boosts), boosts=list(boosts.values()), operator=FullTextOperator.OR
        )

        def query(table: Any) -> Any:  # a filter on an index query applies before ranking
            found = table.query().limit(limit).select(["_rowaddr", "_score"])
            return (found.where(where) if where else found).nearest_to_text(match)

        return self._collect(query)

    def nearest(self, vector: list[float], where: str, limit: int, *, fast: bool) -> Any:
        import pyarrow as pa

        def query(table: Any) -> Any:  # a filter on an index query applies before ranking
            found = table.query().limit(limit).select(["_rowaddr", "_distance"])
            found = found.where(where) if where else found
            found = found.fast_search() if fast else found
            near = found.nearest_to(pa.array(vector, type=pa.float32()))
            return near.distance_type("cosine").column("embedding")

        return self._collect(query)

    def _collect(self, query: Callable[[Any], Any]) -> Any:
        """The rows `query` (given the table's async half, LanceDB's AsyncTable) asks for, as
        an arrow table, in one trip to LanceDB's event loop: the query the sync builders would
        run (the same mapping as LanceDB's own `_sync_query_to_async`), less their checks for
        blob columns and legacy full-text indexes, which a memory table never has."""
        from lancedb.background_loop import LOOP

        inner = self.table._table

        async def rows() -> Any:
            return await query(inner).to_arrow()

        return LOOP.run(rows())

    def count(self, where: str) -> int:
        return int(self.table.count_rows(where or None))

    def merge(self, data: Any, merge: Merge) -> MergeCounts:
        self._schema = None
        builder = self.table.merge_insert("key").when_matched_update_all(where=merge.update_where)
        if merge.insert:
            builder = builder.when_not_matched_insert_all()
        if merge.delete_where is not None:
            builder = builder.when_not_matched_by_source_delete(merge.delete_where)
        # Rows without a vector yet are valid; vectors are validated before they get here.
        result = builder.use_index(merge.use_index).execute(data, on_bad_vectors="null")
        return MergeCounts(
            inserted=int(result.num_inserted_rows),
            updated=int(result.num_updated_rows),
            deleted=int(result.num_deleted_rows),
            version=int(result.version),
        )

    def delete(self, where: str) -> int:
        self._schema = None
        return int(self.table.delete(where).num_deleted_rows)

    def set_null(self, column: str, where: str) -> None:
        self._schema = None
        self.table.update(where=where, values={column: None})

    def set_field_metadata(self, column: str, metadata: dict[str, str]) -> None:
        self._schema = None
        self.table.update_field_metadata({"path": column, "metadata": metadata})

    def small_fragments(self) -> int:
        return int(self.table.stats()["fragment_stats"]["num_small_fragments"])

    def compact(self, target_rows: int) -> None:
        self._schema = None
        compact(self.table.to_lance(), target_rows)

    def unindexed_rows(self, index: str) -> int:
        stats = self.table.index_stats(index)
        return int(stats.num_unindexed_rows) if stats is not None else 0


def compact(dataset: Any, target_rows: int) -> None:
    """pylance's `compact_files`, in its three steps (plan, rewrite, commit) so that the
    moment between the rewrite and the commit can be reached (BEFORE_COMMIT)."""
    from lance.optimize import Compaction, CompactionOptions

    options = CompactionOptions(target_rows_per_fragment=target_rows, num_threads=1)
    plan = Compaction.plan(dataset, options)
    if not plan.tasks:
        return
    rewrites = [task.execute(dataset) for task in plan.tasks]
    for hook in BEFORE_COMMIT:
        hook()
    Compaction.commit(dataset, rewrites)


def _split_address(columns: Columns | None) -> tuple[Columns | None, bool]:
    """pylance asks for the row address by a flag, not as a column."""
    if columns is None:
        return None, False
    if isinstance(columns, dict):
        rest: Columns = {k: v for k, v in columns.items() if k != "_rowaddr"}
        return rest, "_rowaddr" in columns
    return [c for c in columns if c != "_rowaddr"], "_rowaddr" in columns
