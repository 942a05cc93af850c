"""Reads of a scope's table: rows by key and chain, chain heads, live rows, exports."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from graphit_cli.core.models import LiveSummary, Memory, MemoryFilter
from graphit_cli.core.provenance import PROPOSAL_STATUSES
from graphit_cli.store import sql
from graphit_cli.store.table import IN_CHUNK, TableHandle, in_snapshot


class Reads:
    """Rows by key and chain, chain heads, live rows, exports."""

    def __init__(self, handle: TableHandle) -> None:
        self.handle = handle

    @in_snapshot
    def get(self, key: str, *, vectors: bool = False) -> Memory | None:
        self.handle.latest()
        rows = self.handle.rows_where(f"key = {sql.literal(key)}", vectors=vectors, limit=2)
        return rows[0] if rows else None

    @in_snapshot
    def chain(self, memory_id: str) -> list[Memory]:
        self.handle.latest()
        return sorted((r for _, r in self.handle.chain_rows([memory_id])), key=lambda m: m.revision)

    @in_snapshot
    def heads(
        self, memory_ids: list[str], *, vectors: bool = True
    ) -> dict[str, tuple[Memory | None, Memory | None]]:
        """For each id: (live row, newest archive). A deleted memory has (None, final archive).

        The chains come through the row cache; with `vectors` (the write path: an update
        keeps the old vector on the archive) only the head rows' vectors are read.
        """
        self.handle.latest()
        located = [(a, r) for a, r in self.handle.chain_rows(memory_ids) if _is_head_row(r)]
        if vectors:
            found_vectors = self.handle.vectors_at([a for a, _ in located])
            located = [(a, replace(r, embedding=found_vectors.get(a))) for a, r in located]
        rows = [r for _, r in located]
        found: dict[str, tuple[Memory | None, Memory | None]] = {}
        for row in rows:
            live, tail = found.get(row.id, (None, None))
            if row.is_live:
                live = row
            elif tail is None or row.revision > tail.revision:
                tail = row
            found[row.id] = (live, tail)
        return found

    @in_snapshot
    def live(self, flt: MemoryFilter | None = None) -> list[Memory]:
        """Live rows, less phantoms (see `deleted_ids`)."""
        self.handle.latest()
        parts = ["revision_id = ''", *sql.filter_conditions(flt or MemoryFilter())]
        rows = self.handle.rows_where(sql.conjunction(parts))
        closed = self._deleted_ids(None)
        return [r for r in rows if r.id not in closed] if closed else rows

    @in_snapshot
    def deleted_ids(self, memory_ids: list[str] | None = None) -> set[str]:
        """Ids whose chain ends in a final archive (`next` is null): deleted memories.

        A live row of such a chain is a phantom: a writer that lost a race with a delete
        inserted it (LanceDB cannot make that insert conditional) and has not removed it yet.
        Reads ignore phantoms and the next write to the id removes it.
        """
        self.handle.latest()
        return self._deleted_ids(memory_ids)

    def _deleted_ids(self, memory_ids: list[str] | None) -> set[str]:
        if memory_ids is not None:  # a few chains: through the row cache
            rows = self.handle.chain_rows(memory_ids) if memory_ids else []
            return {r.id for _, r in rows if not r.is_live and r.next is None}
        data = self.handle.engine.scan("revision_id <> '' AND next IS NULL", ["id"], None)
        return {str(i) for i in data.column("id").to_pylist()}

    @in_snapshot
    def live_with_hash(self, content_hash: str, limit: int = 5) -> list[Memory]:
        """Live rows whose content hash is `content_hash` (the duplicate guard's exact match)."""
        where = f"revision_id = '' AND content_hash = {sql.literal(content_hash)}"
        self.handle.latest()
        return self.handle.rows_where(where, limit=limit)

    @in_snapshot
    def rows_for_keys(self, keys: list[str], *, vectors: bool = False) -> list[Memory]:
        """The rows with these keys (live or archived), in no particular order."""
        self.handle.latest()
        found: list[Memory] = []
        for start in range(0, len(keys), IN_CHUNK):
            found += self.handle.rows_where(
                sql.in_list("key", keys[start : start + IN_CHUNK]), vectors=vectors
            )
        return found

    @in_snapshot
    def missing_vectors(self) -> int:
        """Rows (live and archived) whose embedding has not been computed yet."""
        return self.handle.count("embedding IS NULL")

    @in_snapshot
    def rows(self) -> int:
        """Every row of the table: live memories and archived revisions."""
        return self.handle.count()

    @in_snapshot
    def proposals(
        self, memory_ids: list[str] | None = None, *, statuses: tuple[str, ...] = ()
    ) -> list[Memory]:
        """Proposal rows (core/provenance.py), of these chains (all when None), with these
        statuses (any when empty), oldest first; none on a table without a `status` column
        (no proposal was ever written to it)."""
        self.handle.latest()
        if "status" not in self.handle.arrow_schema().names:
            return []
        parts = [sql.in_list("status", statuses or sorted(PROPOSAL_STATUSES))]
        if memory_ids is not None:
            if not memory_ids:
                return []
            parts.append(sql.in_list("id", memory_ids))
        rows = self.handle.rows_where(sql.conjunction(parts), proposals=True)
        return sorted(rows, key=lambda r: (r.updated_at, r.key))

    # --- consolidation ---------------------------------------------------------------------

    @in_snapshot
    def live_vectors(self) -> tuple[list[str], Any]:
        """(ids, float32 matrix) of the live rows that have a vector, one row per id.

        Read straight into numpy from Arrow: consolidation compares every pair at once.
        Phantom live rows may be among them; callers keep only ids they know are live.
        """
        import numpy as np

        self.handle.latest()
        dim = self.handle.arrow_schema().field("embedding").type.list_size
        where = "revision_id = '' AND embedding IS NOT NULL"
        data = self.handle.engine.scan(where, ["id", "embedding"], None)
        ids = [str(i) for i in data.column("id").to_pylist()]
        if not ids:
            return [], np.zeros((0, dim), dtype=np.float32)
        flat = data.column("embedding").combine_chunks().flatten()
        matrix = flat.to_numpy(zero_copy_only=False).astype(np.float32).reshape(len(ids), dim)
        return ids, matrix

    # --- the Explorer's catalogue (graphit_cli/explorer) ------------------------------------

    @in_snapshot
    def live_index(self, flt: MemoryFilter | None = None) -> list[LiveSummary]:
        """Every live memory's id, type, tags, flags and sort time (of those passing `flt`),
        less phantoms: what a catalogue page sorts, filters, counts and builds its facets
        from. Read column by column, without bodies or row objects: at 10k rows several times
        cheaper than `live`."""
        self.handle.latest()
        columns = ["id", "type", "tags_json", "important", "mandatory", "updated_at", "created_at"]
        where = sql.conjunction(["revision_id = ''", *sql.filter_conditions(flt or MemoryFilter())])
        data = self.handle.engine.scan(where, columns, None)
        # legacy rows: created_at is the fallback (as in schema.from_record)
        moments = pc.coalesce(data.column("updated_at"), data.column("created_at"))
        micros = pc.cast(pc.cast(moments, pa.timestamp("us", tz="UTC")), pa.int64()).to_pylist()
        closed = self._deleted_ids(None)
        return [
            LiveSummary(memory_id, kind, tuple(json.loads(tags or "[]")), imp, man, moment)
            for memory_id, kind, tags, imp, man, moment in zip(
                data.column("id").to_pylist(),
                data.column("type").to_pylist(),
                data.column("tags_json").to_pylist(),
                data.column("important").to_pylist(),
                data.column("mandatory").to_pylist(),
                micros,
                strict=True,
            )
            if memory_id not in closed
        ]

    # --- export (portability) --------------------------------------------------------------

    @in_snapshot
    def export_rows(self, *, archived: bool = False, vectors: bool = False) -> list[Memory]:
        """Every live row (less phantoms), and with `archived` every archived revision too,
        ordered by id then revision: what `graphit memory export` writes."""
        self.handle.latest()
        rows = self.handle.rows_where("" if archived else "revision_id = ''", vectors=vectors)
        closed = self._deleted_ids(None)
        rows = [r for r in rows if not (r.is_live and r.id in closed)]
        return sorted(rows, key=lambda r: (r.id, r.revision, r.is_live))


def _is_head_row(row: Memory) -> bool:
    """The rows `heads` needs of a chain: the live row, a final archive, the archive before
    the live row."""
    return row.is_live or row.next is None or row.next == row.id
