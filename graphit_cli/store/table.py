"""The handle every store part works on: the LanceDB table, its freshness, reads by address.

`MemoryStore` (store/lance.py) is composed of parts with one job each over one `TableHandle`:
its reads (store/reads.py), searches (store/search.py), upkeep (store/upkeep.py) and writes
(store/lance.py).
Everything LanceDB-specific lives in store/ (see LANCEDB_NOTES.md for the measured behaviour
this code relies on). Callers speak in Memory rows and MemoryFilters.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from graphit_cli.core.models import Memory
from graphit_cli.errors import CommitContention, in_words
from graphit_cli.store import sql
from graphit_cli.store.engine import DatasetEngine, Engine, TableEngine
from graphit_cli.store.rowcache import CachedRow, RowCache
from graphit_cli.store.schema import COLUMNS_NO_VECTOR, from_record

log = logging.getLogger(__name__)

TABLE_NAME = "memory"
KEY_INDEX = "key_btree"
ID_INDEX = "id_btree"
VECTOR_INDEX = "embedding_ivf"
FTS_COLUMNS = ("body", "title", "tags_json", "type")
BITMAP_COLUMNS = ("type", "important", "mandatory", "superseded")
IN_CHUNK = 500
# What a read by address takes for each row: every column but the vector, and the address.
TAKE = {c: c for c in COLUMNS_NO_VECTOR} | {"_rowaddr": "_rowaddr"}
TAKE_FLAGGED = TAKE | {"_no_vector": "embedding IS NULL"}


class TableHandle:
    """A scope's authoritative table.

    Reads and row writes go through `engine` (store/engine.py): pylance's dataset for a local
    table, so a one-shot command never imports LanceDB; the LanceDB table for a remote one (and
    for a local one a long-lived process keeps). Index building and maintenance use the LanceDB
    table (`table`), which a local handle opens when they first need it.

    Freshness: the handle is opened without LanceDB's automatic consistency checks, which with
    an interval of 0 look for newer commits before every internal read (17 of the 23 S3
    requests of an upsert were those LISTs). Instead every public read looks once, when it
    starts, so it still sees every commit made before it began, by this process or another;
    inside `snapshot()` one look serves all reads up to the next write.
    """

    def __init__(
        self,
        uri: str,
        *,
        table: Any = None,
        dataset: Any = None,
        connect: Callable[[], Any] | None = None,
    ) -> None:
        if (table is None) == (dataset is None) or (dataset is not None and connect is None):
            raise ValueError("a table handle needs a LanceDB table, or a dataset and a connect")
        self.uri = uri
        self._table = table
        self._connect = connect
        self.engine: Engine = DatasetEngine(dataset) if dataset is not None else TableEngine(table)
        self._schema: Any = None
        self._snapshots = 0  # nesting depth of snapshot()
        self._fresh = False  # looked for newer commits inside the current snapshot
        self.cache = RowCache()

    @property
    def table(self) -> Any:
        """The LanceDB table: indexes, maintenance, table state. A dataset handle opens it here,
        at the newest commit, the first time upkeep needs it."""
        if self._table is None:
            assert self._connect is not None  # a dataset handle always has one (__init__)
            self._table = self._connect()
        return self._table

    # --- freshness -------------------------------------------------------------------------

    def latest(self) -> None:
        """Move the handle to the newest commit (one LIST on S3), unless a snapshot has."""
        if self._snapshots and self._fresh:
            return
        self.engine.latest()
        if self._table is not None and not isinstance(self.engine, TableEngine):
            self._table.checkout_latest()  # local: the writes' table follows (no request)
        self._fresh = self._snapshots > 0

    def wrote(self) -> None:
        # A write moves the handle to its own commit; others may have committed before it.
        self._fresh = False

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside share one look for newer commits until the next write (use it around
        one operation: a search, an upsert attempt's reads); reads outside look every time."""
        self._snapshots += 1
        try:
            yield
        finally:
            self._snapshots -= 1
            if not self._snapshots:
                self._fresh = False

    def refresh(self) -> None:
        self._fresh = False
        self.latest()

    def version(self) -> int:
        """The latest committed version; it always looks (even in a snapshot), and the reads
        after it in a snapshot see that version."""
        self._fresh = False
        self.latest()
        return self.engine.version()

    # --- reads by address and by query -----------------------------------------------------

    def rows_where(
        self, where: str, *, vectors: bool = False, limit: int | None = None
    ) -> list[Memory]:
        columns = None if vectors else COLUMNS_NO_VECTOR
        return [from_record(r) for r in self.engine.scan(where, columns, limit).to_pylist()]

    def take(self, addresses: list[int], *, vector_flags: bool = False) -> dict[int, CachedRow]:
        """The rows at these addresses (current version), from the row cache where it has
        them; one read by address for the rest."""
        found: dict[int, CachedRow] = {}
        missing: list[int] = []
        for address in addresses:
            entry = self.cache.get(address, vector_flag=vector_flags)
            if entry is None:
                missing.append(address)
            else:
                found[address] = entry
        columns = TAKE_FLAGGED if vector_flags else TAKE
        for start in range(0, len(missing), IN_CHUNK):
            data = self.engine.take(missing[start : start + IN_CHUNK], columns)
            found |= self.remember(data.to_pylist())
        return found

    def remember(self, records: list[dict[str, Any]]) -> dict[int, CachedRow]:
        """Keep rows read with their address (`TAKE` or `TAKE_FLAGGED` columns) in the cache."""
        kept: dict[int, CachedRow] = {}
        for record in records:
            flag = not record["_no_vector"] if "_no_vector" in record else None
            kept[int(record["_rowaddr"])] = CachedRow(from_record(record), flag)
            self.cache.put(int(record["_rowaddr"]), kept[int(record["_rowaddr"])])
        return kept

    def chain_rows(self, memory_ids: list[str]) -> list[tuple[int, Memory]]:
        """Every row (live and archived) of these chains with its address: addresses through
        the `id` index, rows by address."""
        addresses: list[int] = []
        for start in range(0, len(memory_ids), IN_CHUNK):
            where = sql.in_list("id", memory_ids[start : start + IN_CHUNK])
            records = self.engine.scan(where, ["_rowaddr"], None)
            addresses += [int(a) for a in records.column("_rowaddr").to_pylist()]
        return [(address, entry.row) for address, entry in self.take(addresses).items()]

    def vectors_at(self, addresses: list[int]) -> dict[int, tuple[float, ...] | None]:
        """The embedding of each row at these addresses (None: not computed yet)."""
        found: dict[int, tuple[float, ...] | None] = {}
        for start in range(0, len(addresses), IN_CHUNK):
            data = self.engine.take(addresses[start : start + IN_CHUNK], ["_rowaddr", "embedding"])
            for record in data.to_pylist():
                vector = record["embedding"]
                found[int(record["_rowaddr"])] = tuple(vector) if vector is not None else None
        return found

    def count(self, where: str = "") -> int:
        self.latest()
        return self.engine.count(where)

    def arrow_schema(self) -> Any:
        # The columns never change after creation; only field metadata does (model id).
        if self._schema is None:
            self._schema = self.engine.schema()
        return self._schema


@contextmanager
def contention_as_conflict() -> Iterator[None]:
    """A maintenance commit preempted by a writer becomes CommitContention (callers retry)."""
    try:
        yield
    except (RuntimeError, OSError, ValueError) as exc:
        if is_commit_conflict(exc):
            raise CommitContention(f"commit contention: {lance_words(exc)}") from exc
        raise


# The exact Display of lance 13's two contention errors (`Error::RetryableCommitConflict` and
# `Error::TooMuchWriteContention`), at the start of the message: lancedb 0.40 raises them as
# RuntimeError("lance error: ..."), pylance's `compact_files` as OSError("..."), provoked and
# read here (optimize and compaction preempted by concurrent deletes and merges; LANCEDB_NOTES).
# Nothing else counts: a message that only mentions a retry or concurrency is not contention.
_CONTENTION = re.compile(
    r"^(?:lance error: )?"
    r"(?:Retryable commit conflict for version \d+: |Too many concurrent writers\. )"
)


def is_commit_conflict(exc: BaseException) -> bool:
    """A commit that lost to a concurrent writer (LANCEDB_NOTES: optimize is preempted).

    pylance's `lance.commit.CommitConflictError` is the type; lancedb 0.40 raises none on these
    paths, so the lance error's exact message is the other sign (`_CONTENTION`).
    """
    from lance.commit import CommitConflictError  # pylance: compact_small_fragments uses it too

    if isinstance(exc, CommitConflictError):
        return True
    return isinstance(exc, RuntimeError | OSError) and _CONTENTION.match(str(exc)) is not None


def lance_words(exc: BaseException) -> str:
    """A LanceDB error's first line in words (`errors.in_words`: no Rust source location)."""
    return in_words(exc)
