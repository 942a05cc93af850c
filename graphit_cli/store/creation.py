"""How a scope's table is born when many processes write its first memories at once.

Creating a table is a race everyone wins: each creator either commits the table's first
version or finds the table another one made, and opens that; nothing ever overwrites a table.

- The first version is one commit holding the whole schema, the primary key on `key`
  included (LanceDB's `set_unenforced_primary_key` would be a second commit, a configuration
  change that conflicts with a racing one). It is written with pylance's `mode="create"`
  through a commit lock that lets only version 1 through: lance retries a lost commit against
  the newer version, and for a creation that retry is an overwrite landing on a table that
  already holds rows (measured on S3: acknowledged writes gone). Refused, the creator opens the
  table that won.
- The indexes are added by the creator, one commit each. Whoever adds them tolerates another
  adding the same one (a lost commit is retried against the newer version; an index that is
  there is done), and a table without some of them still answers every read (unindexed rows
  are scanned): maintenance (`complete_indexes` from `TableUpkeep.optimize`) and `doctor
  --repair` add what a creator killed half-way left out.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from graphit_cli.errors import StorageUnavailable
from graphit_cli.store.failures import store_failure
from graphit_cli.store.paths import table_path
from graphit_cli.store.schema import memory_schema
from graphit_cli.store.table import TABLE_NAME
from graphit_cli.store.upkeep import complete_indexes, index_specs

log = logging.getLogger(__name__)

# lance's field metadata for a table's (unenforced) primary key, as
# `set_unenforced_primary_key("key")` writes it: racing inserts of one new key then meet.
PRIMARY_KEY = {b"lance-schema:unenforced-primary-key:position": b"1"}


class TableExists(Exception):
    """The creation found a table at the place (its first version is someone else's)."""


def first_version_only(version: int) -> contextlib.AbstractContextManager[None]:
    """pylance's commit lock for a creation: version 1 or nothing. lance asks it for each
    version it is about to commit; any other version is a retry of a lost creation, which
    would overwrite the winner's table."""
    if version != 1:
        raise TableExists(f"the table already has version {version - 1}")
    return contextlib.nullcontext()


def creation_schema(schema: Any) -> Any:
    """`schema` with `key` as the primary key (one commit with the table itself)."""
    import pyarrow as pa

    fields = [
        f.with_metadata({**(f.metadata or {}), **PRIMARY_KEY}) if f.name == "key" else f
        for f in schema
    ]
    return pa.schema(fields, metadata=schema.metadata)


def create_first_version(
    location: str, schema: Any, storage_options: dict[str, str] | None
) -> bool:
    """Commit the empty table at `location` (its `.lance` directory or prefix) as version 1.
    True: this call created it; False: a table was there already (or won the race)."""
    import lance

    try:
        lance.write_dataset(
            creation_schema(schema).empty_table(),
            location,
            schema=creation_schema(schema),
            mode="create",
            commit_lock=first_version_only,
            storage_options=storage_options,
        )
    except TableExists:
        return False
    except (OSError, ValueError, RuntimeError) as exc:
        if _exists_text(exc) or isinstance(exc.__cause__ or exc.__context__, TableExists):
            return False
        raise
    return True


def _exists_text(exc: BaseException) -> bool:
    text = str(exc)
    return "already exists" in text or "TableExists" in text or "already has version" in text


def table_location(at: str) -> str:
    """The table's own directory or prefix under a scope's location (`<at>/memory.lance`)."""
    return f"{at.rstrip('/')}/{TABLE_NAME}.lance"


def create_table(
    db: Any, dim: int, uri: str, at: str, storage_options: dict[str, str] | None
) -> Any:
    """Create the table (store/creation.py: its first version, or the table that won the race)
    and add its indexes; the LanceDB table, at the newest commit."""
    try:
        created = create_first_version(table_location(at), memory_schema(dim), storage_options)
    except (ValueError, OSError, RuntimeError) as exc:
        created = False
        failure: BaseException | None = exc
    else:
        failure = None
    try:
        table = db.open_table(TABLE_NAME)
    except (ValueError, OSError, RuntimeError):
        # Neither made here nor there: a full disk, a permission, said as itself.
        cause = failure if failure is not None else RuntimeError("the table did not appear")
        log.debug("creating the memory table at %s failed: %s", uri, cause)
        raise StorageUnavailable(store_failure(uri, cause, "create")) from None
    if not created:
        table.checkout_latest()
        return table
    try:
        complete_indexes(table, index_specs(), uri)
    except (ValueError, OSError, RuntimeError) as exc:
        # A table without its indexes still answers every read (rows outside an index are
        # scanned) and maintenance adds what is missing; only a table nobody has written to
        # yet is taken back (what a full disk left), never one holding rows.
        log.debug("indexing the new memory table at %s failed: %s", uri, exc)
        if "://" not in uri:
            _take_back_unwritten(uri, table)
        raise StorageUnavailable(store_failure(uri, exc, "create")) from None
    return table


def _take_back_unwritten(uri: str, table: Any) -> None:
    """Remove a table this process created whose indexes could not be added (a full disk),
    while no row has been written to it: a write that landed meanwhile keeps it."""
    import shutil

    try:
        table.checkout_latest()
        if table.count_rows():
            return
    except Exception:  # cannot tell: keep it
        return
    shutil.rmtree(table_path(uri), ignore_errors=True)
