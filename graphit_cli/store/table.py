"""The handle every store part works on: the LanceDB table, its freshness, reads by address.

`MemoryStore` (store/lance.py) is composed of parts with one job each over one `TableHandle`:
its reads (store/reads.py), searches (store/search.py), upkeep (store/upkeep.py) and writes
(store/writes.py).
Everything LanceDB-specific lives in store/ (the project's LanceDB notes hold the measured
behaviour this code relies on). Callers speak in Memory rows and MemoryFilters.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphit_cli.core.models import Memory
from graphit_cli.core.provenance import is_proposal
from graphit_cli.errors import CommitContention, GraphitError, NoTable, StorageUnavailable
from graphit_cli.store import sql
from graphit_cli.store.engine import DatasetEngine, Engine, TableEngine
from graphit_cli.store.failures import damaged, is_commit_conflict, lance_words, refused
from graphit_cli.store.rowcache import CachedRow, RowCache
from graphit_cli.store.schema import ADDED, COLUMNS_NO_VECTOR, from_record

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

    Reads and row writes go through an engine (store/engine.py): pylance's dataset for a local
    table, so a one-shot command never imports LanceDB; the LanceDB table for a remote one (and
    for a local one a long-lived process keeps). Index building and maintenance use the LanceDB
    table (`table`), which a local handle opens when they first need it.

    Snapshots: every read and write runs inside `snapshot()`, which lends the calling request
    an engine of its own from the handle's pool (a request on another thread gets another
    one: nothing about freshness is shared between requests). The snapshot's first read moves
    its engine to the newest commit (one LIST on S3), so it sees every commit acknowledged
    before it began, by this process or another; the reads after it see that one version,
    until the snapshot itself writes (its next read looks again). A search therefore reads
    its index hits' rows at the version that gave their addresses. Snapshots nest (the inner
    one is the outer one's), and threads the caller starts with its context (a hybrid
    search's vector leg, `threads.Pending`) share it. The handle is opened without LanceDB's
    automatic consistency checks, which with an interval of 0 look for newer commits before
    every internal read (17 of the 23 S3 requests of an upsert were those LISTs).
    """

    def __init__(
        self,
        uri: str,
        *,
        table: Any = None,
        dataset: Any = None,
        connect: Callable[[], Any] | None = None,
        reopen: Callable[[], Any] | None = None,
        pin: Any = None,
    ) -> None:
        if (table is None) == (dataset is None) or (dataset is not None and connect is None):
            raise ValueError("a table handle needs a LanceDB table, or a dataset and a connect")
        self.uri = uri
        # The local directory held open (store/paths.py `Pin`): the paths LanceDB and pylance
        # were given reach the table through it, so it lives as long as this handle.
        self.pin = pin
        self._table = table
        self._connect = connect
        # Another object over the same table (and the same cache session) for the pool.
        self._on_dataset = dataset is not None
        if reopen is None:
            reopen = (
                _dataset_again(dataset) if dataset is not None else lambda: _table_again(table, uri)
            )
        self._reopen = reopen
        self._idle: list[Engine] = [
            DatasetEngine(dataset) if dataset is not None else TableEngine(table)
        ]
        self._pool_lock = threading.Lock()
        self._lease: ContextVar[_Lease | None] = ContextVar(f"lease-{uri}", default=None)
        self._schema: Any = None
        self.cache = RowCache()

    @property
    def engine(self) -> Engine:
        """The current snapshot's engine (every store read and write runs in a snapshot)."""
        return self._current().engine

    @property
    def table(self) -> Any:
        """The LanceDB table: indexes, maintenance, table state. Inside a snapshot of a handle
        kept on LanceDB, the snapshot's own table; a dataset handle opens it here, at the
        newest commit, the first time upkeep needs it."""
        lease = self._lease.get()
        if lease is not None and isinstance(lease.engine, TableEngine):
            return lease.engine.table
        if self._table is None:
            assert self._connect is not None  # a dataset handle always has one (__init__)
            table = self._connect()
            # The table this process created is still at its creation (empty): without the
            # look, upkeep would read and fold that version, not the rows written since.
            table.checkout_latest()
            self._table = table
        return self._table

    def still_there(self) -> None:
        """Raise NoTable when the local directory this handle pinned was removed: a commit
        would fail anyway (the pinned path reaches only the removed directory), this says so
        in words first."""
        if self.pin is not None and self.pin.gone():
            raise NoTable(f"the memory table at {self.uri} was removed")

    def failure(self, exc: BaseException) -> GraphitError | None:
        """What a library error while reading or writing this table means for the user: the
        table was removed (NoTable), it is damaged (TableDamaged, with what is wrong and
        what to do), or the storage refused the work (StorageUnavailable: a full disk, a
        read-only file system); None for anything else (a bug, contention: raised as it is)."""
        if self.pin is not None and self.pin.gone():
            log.debug("%s: %s", self.uri, exc)
            return NoTable(f"the memory table at {self.uri} was removed")
        return damaged(self.uri, exc) or refused(self.uri, exc)

    # --- snapshots and freshness -----------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One view of the table for the reads inside (see the class): an engine lent to this
        request alone, which looks for newer commits at its first read and after its writes.
        Use it around one operation (a search, an upsert attempt's reads)."""
        if self._lease.get() is not None:
            yield  # nested: the outer snapshot's view
            return
        engine = self._borrow()
        token = self._lease.set(_Lease(engine))
        try:
            yield
        except GraphitError:
            raise
        except Exception as exc:
            # A table that cannot be read says so in words (never a Rust path, never "No
            # memories"); the library's own text goes to the debug log. A commit that lost
            # to another writer is contention, which writers retry (a Conflict, exit 5 when
            # they give up), never an internal error.
            if is_commit_conflict(exc):
                raise CommitContention(f"commit contention: {lance_words(exc)}") from exc
            failure = self.failure(exc)
            if failure is None:
                raise
            raise failure from exc
        finally:
            self._lease.reset(token)
            with self._pool_lock:
                self._idle.append(engine)

    def _borrow(self) -> Engine:
        with self._pool_lock:
            if self._idle:
                return self._idle.pop()  # the most recent: in one thread, always the same
        reopened = self._reopen()  # another request holds each engine: one more
        return DatasetEngine(reopened) if self._on_dataset else TableEngine(reopened)

    def _current(self) -> _Lease:
        lease = self._lease.get()
        if lease is None:
            raise RuntimeError("a table read outside a snapshot (store parts run in one)")
        return lease

    def latest(self) -> None:
        """Move the snapshot's engine to the newest commit (one LIST on S3), unless it has
        already looked since it began or last wrote."""
        lease = self._current()
        with lease.lock:  # a hybrid search's two legs: one looks, the other waits for it
            if lease.fresh:
                return
            lease.engine.latest()
            if self._table is not None and isinstance(lease.engine, DatasetEngine):
                self._table.checkout_latest()  # local: upkeep's table follows (no request)
            lease.fresh = True

    def wrote(self) -> None:
        # A write moves the engine to its own commit; others may have committed before it.
        self._current().fresh = False

    def refresh(self) -> None:
        """Look for newer commits now (a snapshot's next reads see them)."""
        with self.snapshot():
            self._current().fresh = False
            self.latest()

    def version(self) -> int:
        """The latest committed version; it always looks (even in a snapshot), and the reads
        after it in a snapshot see that version."""
        with self.snapshot():
            self._current().fresh = False
            self.latest()
            return self.engine.version()

    # --- reads by address and by query -----------------------------------------------------

    def present(self, columns: dict[str, str]) -> dict[str, str]:
        """`columns` less the ones an older table (schema 1, opened read-only) lacks."""
        names = set(self.arrow_schema().names)
        return {k: v for k, v in columns.items() if k not in ADDED or k in names}

    def rows_where(
        self,
        where: str,
        *,
        vectors: bool = False,
        limit: int | None = None,
        proposals: bool = False,
    ) -> list[Memory]:
        """The rows matching `where`; without `proposals`, the chains' main lines only (a
        proposal row, core/provenance.py, is never read as a revision: no read of the chains,
        search or catalogue sees one, whoever asks)."""
        columns = None if vectors else list(self.present({c: c for c in COLUMNS_NO_VECTOR}))
        rows = [from_record(r) for r in self.engine.scan(where, columns, limit).to_pylist()]
        return rows if proposals else [r for r in rows if not is_proposal(r.status)]

    def take(self, addresses: list[int], *, vector_flags: bool = False) -> dict[int, CachedRow]:
        """The rows at these addresses (current version), from the row cache where it has
        them; one read by address for the rest. Proposal rows are left out (`rows_where`):
        a search or chain read that reaches one by its address skips it."""
        found = self._take(addresses, vector_flags=vector_flags)
        return {a: e for a, e in found.items() if not is_proposal(e.row.status)}

    def _take(self, addresses: list[int], *, vector_flags: bool = False) -> dict[int, CachedRow]:
        found: dict[int, CachedRow] = {}
        missing: list[int] = []
        for address in addresses:
            entry = self.cache.get(address, vector_flag=vector_flags)
            if entry is None:
                missing.append(address)
            else:
                found[address] = entry
        columns = self.present(TAKE_FLAGGED if vector_flags else TAKE)
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
        with self.snapshot():
            self.latest()
            return self.engine.count(where)

    def forget_schema(self) -> None:
        self._schema = None

    def arrow_schema(self) -> Any:
        # The columns change only by a migration (`MemoryStore.migrate`, which forgets this);
        # otherwise only field metadata does (model id).
        if self._schema is None:
            with self.snapshot():
                self._schema = self.engine.schema()
        return self._schema


@dataclass
class _Lease:
    """A snapshot's engine, and whether it has looked for newer commits since it began or
    last wrote."""

    engine: Engine
    fresh: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def _dataset_again(dataset: Any) -> Callable[[], Any]:
    """Opens the local dataset again, sharing its session (index and metadata caches)."""

    # Read now: the dataset is lent to requests, and pylance's dataset raises "Already
    # borrowed" when one thread asks it anything while another moves it.
    uri, session = dataset.uri, dataset.session()

    def reopen() -> Any:
        import lance

        return lance.dataset(uri, session=session)

    return reopen


def _table_again(table: Any, uri: str) -> Any:
    """The LanceDB table opened again through its own connection (which shares one session,
    index cache included, between the tables it opens). A table removed meanwhile (`prune`,
    `context remove`) is StorageUnavailable, as when a handle is opened."""
    try:
        return table._conn.open_table(table.name)
    except ValueError as exc:
        if "not found" in str(exc).lower():
            raise StorageUnavailable(f"no memory table at {uri}") from None
        raise


_F = TypeVar("_F", bound=Callable[..., Any])


def in_snapshot(method: _F) -> _F:
    """A store part's method that reads or writes: it runs in a snapshot of `self.handle`
    (the caller's, when there is one)."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self.handle.snapshot():
            return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]
