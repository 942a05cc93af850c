"""One scope's LanceDB table: `MemoryStore`, which opens or creates the table and is composed
of parts over one handle (store/table.py): its reads (store/reads.py), searches
(store/search.py), upkeep (store/upkeep.py) and writes (store/writes.py: the atomic merge,
its compare-and-swap, imports, purging history). Everything LanceDB-specific lives in store/
(the project's LanceDB notes hold the measured behaviour this code relies on). Callers speak in
Memory rows and MemoryFilters.

`lancedb` is imported only where a table is created, indexed or maintained: a local table is
read and written through pylance (store/engine.py), so a one-shot command never imports it.

Here: opening a table through its pinned directory, looking again before calling it damaged;
creation (store/creation.py), reads, searches, upkeep and writes are parts of their own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import Any

from graphit_cli import config
from graphit_cli.errors import NoTable, StorageUnavailable, TableDamaged
from graphit_cli.store import paths
from graphit_cli.store.creation import create_table
from graphit_cli.store.failures import (
    damaged,
    is_commit_conflict,
    lance_words,
    store_failure,
)
from graphit_cli.store.paths import local_table_exists, table_path
from graphit_cli.store.reads import Reads
from graphit_cli.store.schema import (
    META_SCHEMA_VERSION,
    SCHEMA_VERSION,
    added_fields,
)
from graphit_cli.store.search import Search
from graphit_cli.store.table import (
    KEY_INDEX,
    TABLE_NAME,
    TableHandle,
)
from graphit_cli.store.upkeep import TableUpkeep
from graphit_cli.store.writes import Writes, purge_history

__all__ = ["KEY_INDEX", "MemoryStore", "is_commit_conflict"]

log = logging.getLogger(__name__)


# A table that looks damaged as it is opened is opened again at the newest commit (a version
# that moved on while it was read, under concurrent writers) before it is called damaged.
OPEN_LOOKS = 3
OPEN_PAUSE_SECONDS = 0.2


class MemoryStore:
    """A scope's authoritative table, composed of parts with one job each over one handle
    (freshness: see `TableHandle`). It implements the `Store` protocol with their methods."""

    def __init__(self, handle: TableHandle) -> None:
        self.handle = handle
        self.uri = handle.uri
        self.reads = Reads(self.handle)
        self.searches = Search(self.handle)
        self.upkeep = TableUpkeep(self.handle)
        self.writes = Writes(self.handle)
        # The Store protocol, as the parts define it (typed by their methods).
        self.snapshot = self.handle.snapshot
        self.refresh = self.handle.refresh
        self.version = self.handle.version
        self.count = self.handle.count
        self.get = self.reads.get
        self.chain = self.reads.chain
        self.heads = self.reads.heads
        self.live = self.reads.live
        self.deleted_ids = self.reads.deleted_ids
        self.live_with_hash = self.reads.live_with_hash
        self.rows_for_keys = self.reads.rows_for_keys
        self.rows = self.reads.rows
        self.missing_vectors = self.reads.missing_vectors
        self.live_vectors = self.reads.live_vectors
        self.live_index = self.reads.live_index
        self.export_rows = self.reads.export_rows
        self.search_text = self.searches.search_text
        self.search_vector = self.searches.search_vector
        self.term_postings = self.searches.term_postings
        self.embedding_model = self.upkeep.embedding_model
        self.set_embedding_model = self.upkeep.set_embedding_model
        self.clear_embeddings = self.upkeep.clear_embeddings
        self.rows_to_embed = self.upkeep.rows_to_embed
        self.write_embeddings = self.upkeep.write_embeddings
        self.fold_if_needed = self.upkeep.fold_if_needed
        self.optimize = self.upkeep.optimize
        self.has_vector_index = self.upkeep.has_vector_index
        self.build_vector_index = self.upkeep.build_vector_index
        self.state = self.upkeep.state
        self.index_problems = self.upkeep.index_problems
        self.history_problems = self.upkeep.history_problems
        self.rebuild_indexes = self.upkeep.rebuild_indexes
        self.merge = self.writes.merge
        self.set_verified = self.writes.set_verified
        self.decide = self.writes.decide
        self.proposals = self.reads.proposals
        self.remove_exact = self.writes.remove_exact
        self.import_rows = self.writes.import_rows
        self.rewrite = self.writes.rewrite

    def purge_history(self) -> None:
        purge_history(self.handle)

    @property
    def table(self) -> Any:
        """The LanceDB table (tests and benchmarks read its version)."""
        return self.handle.table

    @property
    def cache(self) -> Any:
        return self.handle.cache

    # --- opening ---------------------------------------------------------------------------

    def migrate(self) -> MemoryStore:
        """Add the columns a table made by an older graphit lacks (schema 1 -> 2: anchors_json,
        verified_at; nullable, so its rows read as "no anchors, never verified"). One metadata
        commit, once per table; a grant that cannot write (or a racing migration) leaves the
        table as it is, and reads then select only the columns it has."""
        names = set(self.handle.arrow_schema().names)
        missing = [f for f in added_fields() if f.name not in names]
        if not missing:
            return self
        try:
            table = self.handle.table
            table.add_columns(missing)
            # The version the table now has (one more commit; the columns are what counts).
            table.to_lance().update_schema_metadata({META_SCHEMA_VERSION: SCHEMA_VERSION})
        except Exception as exc:  # any refusal leaves a readable old table
            log.info("schema migration of %s skipped: %s", self.uri, exc)
        self.handle.forget_schema()
        self.handle.refresh()
        return self

    @classmethod
    def open(
        cls,
        uri: str,
        *,
        create: bool = True,
        dim: int = config.EMBEDDING_DIM,
        storage_options: dict[str, str] | None = None,
        keep: bool = False,
    ) -> MemoryStore:
        """Open (or create) the table; `storage_options` carry S3 endpoint and credentials
        (built by `store.s3`, which also maps S3 failures). A local table that exists is read
        through pylance, and opens its LanceDB table when upkeep needs it, unless the caller
        `keep`s the handle (store.open_store).

        A local table is reached through its directory pinned open (store/paths.py `Pin`):
        once the directory is removed, no commit of this handle (a write, the daemon's fold or
        compaction) can bring any part of it back."""
        if "://" in uri:
            table = _connect(uri, storage_options=storage_options, create=create, dim=dim)
            return cls(TableHandle(uri, table=table)).migrate()
        made = _make_directory(uri) if create else False
        try:
            held = paths.pin(uri)
        except OSError:
            if not create:
                raise NoTable(f"no memory table at {uri}") from None
            raise StorageUnavailable(f"cannot open the memory table at {uri}") from None
        at = held.path if held is not None else uri
        if local_table_exists(uri) and not keep:
            dataset = _open_dataset(uri, at)
            return cls(
                TableHandle(uri, dataset=dataset, connect=lambda: _connect(uri, at=at), pin=held)
            ).migrate()
        try:
            table = _connect(uri, at=at, create=create, dim=dim)
        except StorageUnavailable:
            if made:
                _take_back(uri)
            raise
        if keep:
            return cls(TableHandle(uri, table=table, pin=held)).migrate()
        # Created here just now: reads go through the dataset as for any local table.
        dataset = _open_dataset(uri, at)
        return cls(TableHandle(uri, dataset=dataset, connect=lambda: table, pin=held))


def _make_directory(uri: str) -> bool:
    """Make a local scope's directory; True when this call made it (a failed creation then
    takes it back). A home that cannot hold it is said in words (store_failure)."""
    if os.path.isdir(uri):
        return False
    try:
        os.makedirs(uri, exist_ok=True)
    except OSError as exc:
        raise StorageUnavailable(store_failure(uri, exc, "create")) from None
    return True


def _take_back(uri: str) -> None:
    """Remove what a failed creation left in a directory it made (an empty `_versions`, part
    of an index): nothing of a table that never committed a version stays behind."""
    import shutil

    if local_table_exists(uri):
        return  # another process created the table meanwhile: theirs
    shutil.rmtree(table_path(uri), ignore_errors=True)
    with contextlib.suppress(OSError):
        os.rmdir(uri)


def _open_dataset(uri: str, at: str | None = None) -> Any:
    """The local table's dataset, for reads (store/engine.py), through `at` (its pinned path)."""
    import lance

    for look in range(OPEN_LOOKS):
        try:
            return lance.dataset(table_path(at or uri))
        except (ValueError, OSError, RuntimeError) as exc:
            damage = damaged(uri, exc, opening=True)
            if damage is not None and look < OPEN_LOOKS - 1:
                time.sleep(OPEN_PAUSE_SECONDS * (look + 1))  # a commit in flight: look again
                continue
            raise damage or StorageUnavailable(
                f"cannot open the memory table at {uri}: {lance_words(exc)}"
            ) from None
    raise AssertionError("unreachable")


def _connect(
    uri: str,
    *,
    at: str | None = None,
    storage_options: dict[str, str] | None = None,
    create: bool = False,
    dim: int = config.EMBEDDING_DIM,
) -> Any:
    """`_connect_once`, looked at again when the table seems damaged (see OPEN_LOOKS)."""
    for look in range(OPEN_LOOKS):
        try:
            return _connect_once(
                uri, at=at, storage_options=storage_options, create=create, dim=dim
            )
        except TableDamaged:
            if look == OPEN_LOOKS - 1:
                raise
            time.sleep(OPEN_PAUSE_SECONDS * (look + 1))
    raise AssertionError("unreachable")


def _connect_once(
    uri: str,
    *,
    at: str | None = None,
    storage_options: dict[str, str] | None = None,
    create: bool = False,
    dim: int = config.EMBEDDING_DIM,
) -> Any:
    """The LanceDB table at `uri` (created with its indexes when missing and `create`),
    reached through `at` (a local table's pinned path) when given."""
    if "://" not in uri and not create and not local_table_exists(uri):
        # `lancedb.connect` makes the directory: a table removed meanwhile would come back.
        raise NoTable(f"no memory table at {uri}")
    import lancedb

    try:
        # No automatic consistency checks: the handle looks once per read (see TableHandle).
        db = lancedb.connect(
            at or uri, read_consistency_interval=None, storage_options=storage_options
        )
        try:
            return db.open_table(TABLE_NAME)
        except ValueError:
            if not create:
                if "://" not in uri and at is None:
                    # The table went away after the check above, and `connect` made its
                    # directory again: take that (empty) directory back. (A pinned path
                    # makes nothing: the directory it reaches is the removed one.)
                    with contextlib.suppress(OSError):
                        os.rmdir(uri)
                raise
            return create_table(db, dim, uri, at or uri, storage_options)
    except ValueError as exc:
        if damaged(uri, exc, opening=True) is None and "not found" in str(exc).lower():
            raise NoTable(f"no memory table at {uri}") from None
        failure = damaged(uri, exc, opening=True)
        raise failure or StorageUnavailable(store_failure(uri, exc, "open")) from None
    except (OSError, RuntimeError) as exc:
        failure = damaged(uri, exc, opening=True)
        raise failure or StorageUnavailable(store_failure(uri, exc, "open")) from None
