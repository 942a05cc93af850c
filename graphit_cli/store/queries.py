"""The reads a table handle asks of the storage engine, in two implementations.

- `DatasetQueries` reads a local table through pylance (`lance.dataset`) directly. A process
  that only reads (a cold `list`, `source`, `search`) then never imports `lancedb`, which
  costs more than the rest of such a command (its namespace models, embedding registry and
  remote client: ~0.9 s of a cold read, 2x `import lance`).
- `TableQueries` reads through the LanceDB table, as writes do: remote tables, whose request
  economy (store/search.py, store/s3.py) is tuned to LanceDB's handle.

Both run the same lance scanner underneath (LanceDB's local table is a lance dataset), so
they answer alike: the same rows, BM25 scores and cosine distances (tests/test_store_queries.py
holds them to it). Addresses (`_rowaddr`) are the physical row addresses the row cache keys on.
"""

from __future__ import annotations

from typing import Any, Protocol

# LanceDB's default number of IVF partitions a vector query probes (its minimum_nprobes).
NPROBES = 20

Columns = list[str] | dict[str, str]


class Queries(Protocol):
    """What the handle reads. `where` is a LanceDB SQL filter ("" for none); `columns` may
    name `_rowaddr` and map output names to SQL expressions."""

    def latest(self) -> None: ...
    def version(self) -> int: ...
    def schema(self) -> Any: ...
    def scan(self, where: str, columns: Columns | None, limit: int | None) -> Any: ...
    def take(self, addresses: list[int], columns: Columns) -> Any: ...
    def text(self, text: str, boosts: dict[str, float], where: str, limit: int) -> Any:
        """BM25 over the columns of `boosts` with their weights (plain text: no operators)."""

    def nearest(self, vector: list[float], where: str, limit: int, *, fast: bool) -> Any: ...
    def count(self, where: str) -> int: ...


class DatasetQueries:
    """Reads of a local table through pylance; the handle moves it to the newest commit."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def latest(self) -> None:
        self.dataset.checkout_latest()

    def version(self) -> int:
        return int(self.dataset.version)

    def schema(self) -> Any:
        return self.dataset.schema

    def scan(self, where: str, columns: Columns | None, limit: int | None) -> Any:
        columns, address = _split_address(columns)
        return self.dataset.to_table(
            columns=columns, filter=where or None, limit=limit, with_row_address=address
        )

    def take(self, addresses: list[int], columns: Columns) -> Any:
        return self.dataset._take_rows(addresses, columns=columns)

    def text(self, text: str, boosts: dict[str, float], where: str, limit: int) -> Any:
        from lance.query import FullTextOperator, MultiMatchQuery

        query = MultiMatchQuery(
            text, list(boosts), boosts=list(boosts.values()), operator=FullTextOperator.OR
        )
        return self.dataset.to_table(
            columns=["_score"],
            with_row_address=True,
            full_text_query=query,
            filter=where or None,
            prefilter=bool(where) or None,
            limit=limit,
        )

    def nearest(self, vector: list[float], where: str, limit: int, *, fast: bool) -> Any:
        nearest = {
            "column": "embedding",
            "q": vector,
            "k": limit,
            "metric": "cosine",
            "minimum_nprobes": NPROBES,
        }
        return self.dataset.to_table(
            columns=["_distance"],
            with_row_address=True,
            nearest=nearest,
            filter=where or None,
            prefilter=bool(where) or None,
            fast_search=fast or None,
            limit=limit,
        )

    def count(self, where: str) -> int:
        return int(self.dataset.count_rows(where or None))


class TableQueries:
    """Reads through a LanceDB table (remote tables; see the module)."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def latest(self) -> None:
        self.table.checkout_latest()

    def version(self) -> int:
        return int(self.table.version)

    def schema(self) -> Any:
        return self.table.schema

    def scan(self, where: str, columns: Columns | None, limit: int | None) -> Any:
        query = self.table.search()
        if where:
            query = query.where(where)
        if columns is not None:
            query = query.select(columns)
        return query.limit(limit).to_arrow()

    def take(self, addresses: list[int], columns: Columns) -> Any:
        return self.table.take_row_ids(addresses).select(columns).to_arrow()

    def text(self, text: str, boosts: dict[str, float], where: str, limit: int) -> Any:
        from lancedb.query import FullTextOperator, MultiMatchQuery

        query = self.table.search(
            MultiMatchQuery(
                text, list(boosts), boosts=list(boosts.values()), operator=FullTextOperator.OR
            ),
            query_type="fts",
        )
        if where:
            query = query.where(where, prefilter=True)
        return query.select(["_rowaddr", "_score"]).limit(limit).to_arrow()

    def nearest(self, vector: list[float], where: str, limit: int, *, fast: bool) -> Any:
        query = self.table.search(vector, vector_column_name="embedding").distance_type("cosine")
        if where:
            query = query.where(where, prefilter=True)
        if fast:
            query = query.fast_search()
        return query.select(["_rowaddr", "_distance"]).limit(limit).to_arrow()

    def count(self, where: str) -> int:
        return int(self.table.count_rows(where or None))


def _split_address(columns: Columns | None) -> tuple[Columns | None, bool]:
    """pylance asks for the row address by a flag, not as a column."""
    if columns is None:
        return None, False
    if isinstance(columns, dict):
        rest: Columns = {k: v for k, v in columns.items() if k != "_rowaddr"}
        return rest, "_rowaddr" in columns
    return [c for c in columns if c != "_rowaddr"], "_rowaddr" in columns
