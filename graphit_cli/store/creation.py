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
import random
import time
from typing import Any

from graphit_cli.errors import CommitContention
from graphit_cli.store.table import TABLE_NAME, is_commit_conflict, lance_words

log = logging.getLogger(__name__)

# lance's field metadata for a table's (unenforced) primary key, as
# `set_unenforced_primary_key("key")` writes it: racing inserts of one new key then meet.
PRIMARY_KEY = {b"lance-schema:unenforced-primary-key:position": b"1"}
INDEX_ATTEMPTS = 12


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


def create_first_version(location: str, schema: Any, storage_options: dict[str, str] | None) -> bool:
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


def complete_indexes(table: Any, specs: list[tuple[str, str, Any]], uri: str) -> list[str]:
    """Add each index of `specs` the LanceDB `table` lacks; returns the names added here.

    Another process may be adding the same ones (a creation race, or maintenance in two
    processes): a commit that loses to it is retried against the newer version, where the
    index it wanted is found and left alone."""
    added: list[str] = []
    for attempt in range(INDEX_ATTEMPTS):
        table.checkout_latest()
        present = {ix.name for ix in table.list_indices()}
        missing = [spec for spec in specs if spec[0] not in present]
        if not missing:
            return added
        try:
            for name, column, config_ in missing:
                table.create_index(column, config=config_, name=name)
                added.append(name)
        except (RuntimeError, OSError, ValueError) as exc:
            if not is_commit_conflict(exc) and "already exists" not in str(exc):
                raise
            log.debug("adding indexes to %s: %s", uri, lance_words(exc))
            time.sleep(random.uniform(0, min(1.0, 0.02 * (2**attempt))))
    raise CommitContention(
        f"commit contention: other writers kept changing {uri} while its indexes were added"
    )


def table_location(at: str) -> str:
    """The table's own directory or prefix under a scope's location (`<at>/memory.lance`)."""
    return f"{at.rstrip('/')}/{TABLE_NAME}.lance"

