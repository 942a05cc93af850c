"""A table's writes (`Writes`, one part of `MemoryStore`, store/lance.py): the atomic merge with
its compare-and-swap, a verification stamp, a review decision, imports, exact removals and
rewrites; and purging history (a redaction leaves no trace of replaced rows)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphit_cli.core.models import Memory
from graphit_cli.errors import CommitContention, StorageUnavailable
from graphit_cli.store import sql
from graphit_cli.store.base import MergeCounts
from graphit_cli.store.engine import Merge
from graphit_cli.store.failures import (
    contention_as_conflict,
    is_commit_conflict,
    lance_words,
    store_failure,
)
from graphit_cli.store.schema import to_arrow
from graphit_cli.store.table import IN_CHUNK, TableHandle, in_snapshot
from graphit_cli.store.upkeep import index_specs

# Matched rows are replaced only when this holds, per row:
# - a live row: compare-and-swap, the table still holds the revision just before the new one;
# - an archived row: only its `next` link moves: from the live key to the key of a newer
#   archive (an update or a delete re-points the newest archive), or from nothing to the live
#   key (a write to a deleted id continues its chain). A new archive row that collides with an
#   existing one (a racing writer archived that revision first) is never rewritten.
CAS_CONDITION = (
    "(target.revision_id = '' AND target.revision = source.revision - 1)"
    " OR (target.revision_id <> '' AND target.next = target.id"
    " AND source.next IS NOT NULL AND source.next <> source.id)"
    " OR (target.revision_id <> '' AND target.next IS NULL AND source.next = source.id)"
)


class Writes:
    """Every change to the table's rows: one merge_insert commit each."""

    def __init__(self, handle: TableHandle) -> None:
        self.handle = handle

    # --- writes ----------------------------------------------------------------------------

    @in_snapshot
    def merge(
        self,
        rows: list[Memory],
        *,
        delete_live: tuple[str, int] | None = None,
        chains_exist: bool = False,
    ) -> MergeCounts:
        """Commit `rows` (and optionally remove a live row at a given revision) in one commit.

        `chains_exist`: every chain in `rows` already has a row this merge updates (a live
        row's compare-and-swap, or a final archive's `next` link), so a racing writer of the
        same chain updates that row too and one of the two commits conflicts and re-runs. Such
        a merge finds its keys through the `key` index instead of scanning every key (at 100k
        rows the merge takes 11 ms instead of 20). Any other merge scans: the index would let
        two racing inserts of one new key both land (LanceDB, as tested here), which only the scan's
        primary-key check stops.
        """
        delete_where = None
        if delete_live is not None:
            key, revision = delete_live
            delete_where = f"key = {sql.literal(key)} AND revision = {int(revision)}"
        indexed = chains_exist and delete_live is None
        merge = Merge(update_where=CAS_CONDITION, delete_where=delete_where, use_index=indexed)
        return self._execute(merge, rows)

    @in_snapshot
    def set_verified(self, memory_id: str, revision: int, moment: Any) -> bool:
        """Set the live row's `verified_at` in place, if it is still at `revision` (no new
        revision: verifying changes nothing the memory says). False when it moved on."""
        import pyarrow as pa

        if "verified_at" not in self.handle.arrow_schema().names:
            raise StorageUnavailable("this table predates verification; open it with write access")
        partial = pa.schema(
            [
                pa.field("key", pa.string(), nullable=False),
                pa.field("revision", pa.int32(), nullable=False),
                pa.field("verified_at", pa.timestamp("us", tz="UTC")),
            ]
        )
        data = pa.Table.from_pylist(
            [{"key": memory_id, "revision": revision, "verified_at": moment}], schema=partial
        )
        merge = Merge(
            "target.revision_id = '' AND target.revision = source.revision",
            insert=False,
            use_index=False,  # a partial-column merge through the key index panics (lance 13)
        )
        counts = self.handle.engine.merge(data, merge)
        self.handle.wrote()
        return counts.updated == 1

    @in_snapshot
    def decide(self, key: str, status: str, provenance_json: str) -> bool:
        """Record a reviewer's decision on the proposal row `key` in place, if it is still
        `proposed` (a compare-and-swap: of two racing decisions one lands). False when it was
        decided already or is not a proposal."""
        import pyarrow as pa

        if "status" not in self.handle.arrow_schema().names:
            return False
        partial = pa.schema(
            [
                pa.field("key", pa.string(), nullable=False),
                pa.field("status", pa.string()),
                pa.field("provenance_json", pa.string()),
            ]
        )
        data = pa.Table.from_pylist(
            [{"key": key, "status": status, "provenance_json": provenance_json}], schema=partial
        )
        merge = Merge(
            "target.revision_id <> '' AND target.status = 'proposed'",
            insert=False,
            use_index=False,  # a partial-column merge through the key index panics (lance 13)
        )
        try:
            counts = self.handle.engine.merge(data, merge)
        except (RuntimeError, OSError, ValueError) as exc:
            if is_commit_conflict(exc):
                raise CommitContention(f"commit contention: {lance_words(exc)}") from exc
            raise
        self.handle.wrote()
        return counts.updated == 1

    @in_snapshot
    def remove_exact(self, row: Memory) -> int:
        """Delete `row` only if it is still exactly this revision (undoes a misplaced insert)."""
        previous = f"previous = {sql.literal(row.previous)}" if row.previous else "previous IS NULL"
        where = (
            f"key = {sql.literal(row.key)} AND revision = {int(row.revision)}"
            f" AND content_hash = {sql.literal(row.content_hash)} AND {previous}"
        )
        deleted = self.handle.engine.delete(where)
        self.handle.wrote()
        return deleted

    @in_snapshot
    def rewrite(self, rows: list[Memory]) -> int:
        """Replace rows in place, by key (a redaction: same keys, revisions and links; new
        text, content hash and vector). A row whose revision changed meanwhile (a live row
        another writer updated) is left alone; returns the rows replaced."""
        merge = Merge(update_where="target.revision = source.revision", insert=False)
        return self._execute(merge, rows).updated

    # --- import (portability) --------------------------------------------------------------

    @in_snapshot
    def import_rows(
        self,
        rows: list[Memory],
        plan: Callable[[list[Memory], list[Memory]], tuple[list[Memory], list[str]]],
    ) -> MergeCounts | None:
        """Write exported rows as they are (ids, revisions, links and dates kept).

        `plan` gets the incoming rows and the rows this table already holds for their chains,
        and returns the rows to write (inserted, or replacing the row with the same key) and
        the live keys to remove (chains the import closes); all of it lands in one commit.
        Nothing to write: no commit at all, so importing the same rows twice changes nothing.
        """
        ids = sorted({r.id for r in rows})
        existing: list[Memory] = []
        self.handle.latest()
        for start in range(0, len(ids), IN_CHUNK):
            existing += self.handle.rows_where(
                sql.in_list("id", ids[start : start + IN_CHUNK]), vectors=True
            )
        write, remove = plan(rows, existing)
        if not write and not remove:
            return None
        # Inserts: the scan's primary-key check stops racing duplicates (no key index).
        merge = Merge(delete_where=sql.in_list("key", remove) if remove else None)
        return self._execute(merge, write)

    def _execute(self, merge: Merge, rows: list[Memory]) -> MergeCounts:
        """Run one merge_insert commit; a lost race is CommitContention (callers retry)."""
        data = to_arrow(rows, self.handle.arrow_schema())
        self.handle.wrote()
        try:
            return self.handle.engine.merge(data, merge)
        except (RuntimeError, OSError, ValueError) as exc:
            if is_commit_conflict(exc):
                raise CommitContention(f"commit contention: {lance_words(exc)}") from exc
            failure = self.handle.failure(exc)
            if failure is not None:
                raise failure from exc
            raise StorageUnavailable(store_failure(self.handle.uri, exc, "write to")) from exc


def purge_history(handle: TableHandle) -> None:
    """Leave no trace of rows that were replaced or deleted: every fragment holding a deleted
    row rewritten, the full-text indexes built again from the rows as they are, and every
    older version, with the files only it used, removed now (no retention window). Other
    processes' handles to those versions break: for a redaction only."""
    import warnings
    from datetime import timedelta

    with contention_as_conflict():
        table = handle.table
        table.checkout_latest()
        table.to_lance().optimize.compact_files(
            target_rows_per_fragment=1 << 30,
            materialize_deletions=True,
            materialize_deletions_threshold=0.0,
            num_threads=1,
        )
        table.checkout_latest()
        for name, column, config_ in index_specs():
            if name.endswith("_fts"):
                table.create_index(column, config=config_, name=name, replace=True)
        with warnings.catch_warnings():  # "removes every version": what it is called for
            warnings.simplefilter("ignore", UserWarning)
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
    handle.refresh()
