"""One scope's LanceDB table: open/create, reads by key and chain, the atomic merge, index folding.

Everything LanceDB-specific lives here (see LANCEDB_NOTES.md for the measured behaviour this
code relies on). Callers speak in Memory rows and MemoryFilters.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

# The Rust layers' WARN lines (lancedb's, and lance's own through pylance) are noise on stderr:
# a retried commit conflict is not the user's business.
os.environ.setdefault("LANCEDB_LOG", "error")
os.environ.setdefault("LANCE_LOG", "error")

import lancedb
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.index import FTS, Bitmap, BTree, IvfFlat
from lancedb.query import FullTextOperator, MultiMatchQuery

from graphit_cli import config
from graphit_cli.errors import CommitContention, StorageUnavailable
from graphit_cli.models import LexicalHit, LiveSummary, Memory, MemoryFilter, TableState
from graphit_cli.store import sql
from graphit_cli.store.base import MergeCounts
from graphit_cli.store.rowcache import CachedRow, RowCache
from graphit_cli.store.schema import (
    COLUMNS_NO_VECTOR,
    META_EMBED_MODEL,
    from_record,
    memory_schema,
    to_arrow,
)

log = logging.getLogger(__name__)

TABLE_NAME = "memory"
KEY_INDEX = "key_btree"
VECTOR_INDEX = "embedding_ivf"
# A warm remote handle reads a table of up to this many rows whole into its row cache.
PREFILL_MAX_ROWS = 20_000
FTS_COLUMNS = ("body", "title", "tags_json", "type")
BITMAP_COLUMNS = ("type", "important", "mandatory", "superseded")
_IN_CHUNK = 500
# Write-path compaction rewrites only fragments below this many rows (see fold_if_needed).
COMPACT_TARGET_ROWS = 4096
# The write path looks at the fragment backlog on every Nth table version only (see
# fold_if_needed): the look costs ~2 ms locally and 3-8 requests on S3.
FOLD_CHECK_EVERY = 4
# What a read by address takes for each row: every column but the vector, and the address.
_TAKE = {c: c for c in COLUMNS_NO_VECTOR} | {"_rowaddr": "_rowaddr"}
_TAKE_FLAGGED = _TAKE | {"_no_vector": "embedding IS NULL"}
# Field weights for BM25 over several columns: a title match says more than a body match.
TEXT_BOOSTS = {"title": 2.0, "body": 1.0, "tags_json": 1.5, "type": 0.5}

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


def _fts_config() -> FTS:
    # Measured: stemming + stop words lift recall@10 from 0.57 to 0.67 on conversational memory.
    return FTS(stem=True, remove_stop_words=True, lower_case=True, language="English")


class MemoryStore:
    """A scope's authoritative table.

    Freshness: the handle is opened without LanceDB's automatic consistency checks, which with
    an interval of 0 look for newer commits before every internal read (17 of the 23 S3
    requests of an upsert were those LISTs). Instead every public read looks once, when it
    starts, so it still sees every commit made before it began, by this process or another;
    inside `snapshot()` one look serves all reads up to the next write.
    """

    def __init__(self, table: Any, uri: str) -> None:
        self.table = table
        self.uri = uri
        self._schema: Any = None
        self._snapshots = 0  # nesting depth of snapshot()
        self._fresh = False  # looked for newer commits inside the current snapshot
        self.cache = RowCache()
        self._searches = 0  # searches this handle has served (see `_warm_indexes`)
        self._warmed: dict[str, str] = {}  # index name -> uuid loaded into LanceDB's cache

    # --- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        uri: str,
        *,
        create: bool = True,
        dim: int = config.EMBEDDING_DIM,
        storage_options: dict[str, str] | None = None,
    ) -> MemoryStore:
        """Open (or create) the table; `storage_options` carry S3 endpoint and credentials
        (built by `store.s3`, which also maps S3 failures)."""
        try:
            if "://" not in uri and create:
                os.makedirs(uri, exist_ok=True)
            # No automatic consistency checks: `_latest()` looks once per read (see the class).
            db = lancedb.connect(
                uri, read_consistency_interval=None, storage_options=storage_options
            )
            try:
                table = db.open_table(TABLE_NAME)
            except ValueError:
                if not create:
                    raise
                table = cls._create(db, dim)
        except ValueError as exc:
            if "not found" in str(exc).lower():
                raise StorageUnavailable(f"no memory table at {uri}") from None
            raise StorageUnavailable(f"cannot open the memory table at {uri}: {exc}") from None
        except OSError as exc:
            raise StorageUnavailable(f"cannot open the memory table at {uri}: {exc}") from None
        return cls(table, uri)

    @staticmethod
    def _create(db: Any, dim: int) -> Any:
        try:
            table = db.create_table(TABLE_NAME, schema=memory_schema(dim))
        except (ValueError, OSError, RuntimeError):
            # Another process created it first: use theirs.
            return db.open_table(TABLE_NAME)
        table.set_unenforced_primary_key("key")  # duplicate protection for racing inserts
        for column in FTS_COLUMNS:
            table.create_index(column, config=_fts_config(), name=f"{column}_fts")
        table.create_index("id", config=BTree(), name="id_btree")
        # Only merges that cannot insert a racing duplicate may use it (see `merge`).
        table.create_index("key", config=BTree(), name=KEY_INDEX)
        for column in BITMAP_COLUMNS:
            table.create_index(column, config=Bitmap(), name=f"{column}_bitmap")
        return table

    # --- freshness -------------------------------------------------------------------------

    def _latest(self) -> None:
        """Move the handle to the newest commit (one LIST on S3), unless a snapshot has."""
        if self._snapshots and self._fresh:
            return
        self.table.checkout_latest()
        self._fresh = self._snapshots > 0

    def _wrote(self) -> None:
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

    # --- reads -----------------------------------------------------------------------------

    def _rows(self, where: str, *, vectors: bool = False, limit: int | None = None) -> list[Memory]:
        query = self.table.search()
        if where:
            query = query.where(where)
        if not vectors:
            query = query.select(COLUMNS_NO_VECTOR)
        return [from_record(r) for r in query.limit(limit).to_arrow().to_pylist()]

    def _take(self, addresses: list[int], *, vector_flags: bool = False) -> dict[int, CachedRow]:
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
        columns = _TAKE_FLAGGED if vector_flags else _TAKE
        for start in range(0, len(missing), _IN_CHUNK):
            chunk = missing[start : start + _IN_CHUNK]
            for record in self.table.take_row_ids(chunk).select(columns).to_arrow().to_pylist():
                flag = not record["_no_vector"] if vector_flags else None
                entry = CachedRow(from_record(record), flag)
                self.cache.put(int(record["_rowaddr"]), entry)
                found[int(record["_rowaddr"])] = entry
        return found

    def _chain_rows(self, memory_ids: list[str]) -> list[Memory]:
        """Every row (live and archived) of these chains: addresses through the `id` index,
        rows by address."""
        addresses: list[int] = []
        for start in range(0, len(memory_ids), _IN_CHUNK):
            query = self.table.search().where(
                sql.in_list("id", memory_ids[start : start + _IN_CHUNK])
            )
            records = query.select(["_rowaddr"]).limit(None).to_arrow()
            addresses += [int(a) for a in records.column("_rowaddr").to_pylist()]
        return [entry.row for entry in self._take(addresses).values()]

    def get(self, key: str, *, vectors: bool = False) -> Memory | None:
        self._latest()
        rows = self._rows(f"key = {sql.literal(key)}", vectors=vectors, limit=2)
        return rows[0] if rows else None

    def chain(self, memory_id: str) -> list[Memory]:
        self._latest()
        return sorted(self._chain_rows([memory_id]), key=lambda m: m.revision)

    def heads(
        self, memory_ids: list[str], *, vectors: bool = True
    ) -> dict[str, tuple[Memory | None, Memory | None]]:
        """For each id: (live row, newest archive). A deleted memory has (None, final archive).

        Without `vectors` the chains come through the row cache (a search resolving its
        archived matches); the write path asks with vectors and reads the two rows directly.
        """
        self._latest()
        if vectors:
            rows: list[Memory] = []
            for start in range(0, len(memory_ids), _IN_CHUNK):
                chunk = memory_ids[start : start + _IN_CHUNK]
                rows += self._rows(f"{sql.in_list('id', chunk)} AND {_HEAD_ROWS}", vectors=True)
        else:
            rows = [r for r in self._chain_rows(memory_ids) if _is_head_row(r)]
        found: dict[str, tuple[Memory | None, Memory | None]] = {}
        for row in rows:
            live, tail = found.get(row.id, (None, None))
            if row.is_live:
                live = row
            elif tail is None or row.revision > tail.revision:
                tail = row
            found[row.id] = (live, tail)
        return found

    def live(self, flt: MemoryFilter | None = None) -> list[Memory]:
        """Live rows, less phantoms (see `deleted_ids`)."""
        self._latest()
        parts = ["revision_id = ''", *sql.filter_conditions(flt or MemoryFilter())]
        rows = self._rows(sql.conjunction(parts))
        closed = self._deleted_ids(None)
        return [r for r in rows if r.id not in closed] if closed else rows

    def deleted_ids(self, memory_ids: list[str] | None = None) -> set[str]:
        """Ids whose chain ends in a final archive (`next` is null): deleted memories.

        A live row of such a chain is a phantom: a writer that lost a race with a delete
        inserted it (LanceDB cannot make that insert conditional) and has not removed it yet.
        Reads ignore phantoms and the next write to the id removes it.
        """
        self._latest()
        return self._deleted_ids(memory_ids)

    def _deleted_ids(self, memory_ids: list[str] | None) -> set[str]:
        if memory_ids is not None:  # a few chains: through the row cache
            rows = self._chain_rows(memory_ids) if memory_ids else []
            return {r.id for r in rows if not r.is_live and r.next is None}
        where = "revision_id <> '' AND next IS NULL"
        query = self.table.search().where(where).select(["id"]).limit(None)
        return {str(r["id"]) for r in query.to_arrow().to_pylist()}

    def live_with_hash(self, content_hash: str, limit: int = 5) -> list[Memory]:
        """Live rows whose content hash is `content_hash` (the duplicate guard's exact match)."""
        where = f"revision_id = '' AND content_hash = {sql.literal(content_hash)}"
        self._latest()
        return self._rows(where, limit=limit)

    def count(self, where: str = "") -> int:
        self._latest()
        return int(self.table.count_rows(where or None))

    def rows_for_keys(self, keys: list[str], *, vectors: bool = False) -> list[Memory]:
        """The rows with these keys (live or archived), in no particular order."""
        self._latest()
        found: list[Memory] = []
        for start in range(0, len(keys), _IN_CHUNK):
            found += self._rows(
                sql.in_list("key", keys[start : start + _IN_CHUNK]), vectors=vectors
            )
        return found

    def search_text(
        self,
        text: str,
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
        vector_flags: bool = True,
    ) -> list[LexicalHit]:
        """BM25 over title, body, tags and type, best first.

        Live rows must pass `flt`; archived rows (unless `live_only`) are returned whatever
        their own flags, because a search judges a chain by its current memory. The query is
        plain text for the tokenizer: quotes and operators are just characters. Without
        `vector_flags` every hit says `has_vector` (unknown): telling costs reading each hit's
        vector (9 of the 11 S3 GETs of a search at 1k rows), which only fusion needs.

        The index answers with scores and row addresses; the rows come from the row cache
        where it has them (see `rowcache`).
        """
        self._latest()
        query = self.table.search(
            MultiMatchQuery(
                text,
                list(TEXT_BOOSTS),
                boosts=list(TEXT_BOOSTS.values()),
                operator=FullTextOperator.OR,
            ),
            query_type="fts",
        )
        where = _search_where(flt, live_only)
        if where:
            query = query.where(where, prefilter=True)
        self._warm_indexes()
        ranked = query.select(["_rowaddr", "_score"]).limit(limit).to_arrow().to_pylist()
        rows = self._take([int(r["_rowaddr"]) for r in ranked], vector_flags=vector_flags)
        return [
            LexicalHit(entry.row, float(r["_score"]), bool(entry.has_vector) or not vector_flags)
            for r in ranked
            if (entry := rows.get(int(r["_rowaddr"]))) is not None
        ]

    def search_vector(
        self,
        vector: list[float],
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
    ) -> list[tuple[Memory, float]]:
        """Nearest rows with their cosine similarity, best first (rows without a vector are
        skipped). Filtering as in `search_text`."""
        self._latest()
        query = self.table.search(vector, vector_column_name="embedding").distance_type("cosine")
        where = _search_where(flt, live_only)
        if where:
            query = query.where(where, prefilter=True)
        self._warm_indexes()
        ranked = query.select(["_rowaddr", "_distance"]).limit(limit).to_arrow().to_pylist()
        rows = self._take([int(r["_rowaddr"]) for r in ranked])
        return [
            (entry.row, 1.0 - float(r["_distance"]))
            for r in ranked
            if (entry := rows.get(int(r["_rowaddr"]))) is not None
        ]

    def _warm_indexes(self) -> None:
        """A remote handle that keeps searching (the daemon, the MCP server, the Explorer)
        loads the search indexes whole into LanceDB's index cache, once per index build: its
        searches then read no index pages from S3 (5-12 GETs per query otherwise). With them it
        reads every row of a table of up to PREFILL_MAX_ROWS into the row cache (a few large
        GETs), so a query it has not seen before reads no rows either, only rows written since.
        Listing the indexes costs no request. It starts at the third retrieval of a handle: a
        one-shot command runs one search (two retrievals when hybrid) and never pays for it."""
        self._searches += 1
        if self._searches < 3 or "://" not in self.uri:
            return
        names = {*(f"{column}_fts" for column in FTS_COLUMNS), VECTOR_INDEX}
        current = {ix.name: ix.index_uuid for ix in self.table.list_indices() if ix.name in names}
        changed = [name for name, uuid in current.items() if self._warmed.get(name) != uuid]
        for name in changed:
            self.table.prewarm_index(name)
            self._warmed[name] = current[name]
        if changed and self.table.count_rows() <= PREFILL_MAX_ROWS:
            data = self.table.search().select(_TAKE_FLAGGED).limit(None).to_arrow()
            for record in data.to_pylist():
                entry = CachedRow(from_record(record), not record["_no_vector"])
                self.cache.put(int(record["_rowaddr"]), entry)

    def missing_vectors(self) -> int:
        """Rows (live and archived) whose embedding has not been computed yet."""
        return self.count("embedding IS NULL")

    def rows(self) -> int:
        """Every row of the table: live memories and archived revisions."""
        return self.count()

    # --- embeddings ------------------------------------------------------------------------

    def embedding_model(self) -> str | None:
        self._latest()
        meta = self.table.schema.field("embedding").metadata or {}
        value = meta.get(META_EMBED_MODEL.encode())
        return value.decode() if value else None

    def set_embedding_model(self, model_id: str) -> None:
        self.table.update_field_metadata(
            {"path": "embedding", "metadata": {META_EMBED_MODEL: model_id}}
        )
        self._wrote()

    def clear_embeddings(self) -> None:
        """Drop every vector (before re-embedding with another model)."""
        self.table.update(where="embedding IS NOT NULL", values={"embedding": None})
        self._wrote()

    def rows_to_embed(self, limit: int) -> list[Memory]:
        """Rows (live and archived) whose vector is missing."""
        self._latest()
        return self._rows("embedding IS NULL", limit=limit)

    def write_embeddings(self, items: list[tuple[str, str, list[float]]]) -> int:
        """Store (key, content_hash, vector) triples; a row edited meanwhile keeps its new text.

        A partial-column merge: only `embedding` changes, and only where the content hash
        still matches the text that was embedded.
        """
        import pyarrow as pa

        dim = self.table.schema.field("embedding").type.list_size
        for key, _, vector in items:
            if len(vector) != dim or any(v != v for v in vector):  # wrong size or NaN
                raise ValueError(f"bad vector for {key}: expected {dim} finite floats")
        partial = pa.schema(
            [
                pa.field("key", pa.string(), nullable=False),  # the primary key stays non-null
                pa.field("content_hash", pa.string(), nullable=False),
                pa.field("embedding", pa.list_(pa.float32(), dim)),
            ]
        )
        data = pa.Table.from_pylist(
            [{"key": k, "content_hash": h, "embedding": v} for k, h, v in items], schema=partial
        )
        result = (
            self.table.merge_insert("key")
            .when_matched_update_all(where="target.content_hash = source.content_hash")
            .use_index(False)  # a partial-column merge through the key index panics (lance 13)
            .execute(data)
        )
        self._wrote()
        return int(result.num_updated_rows)

    # --- writes ----------------------------------------------------------------------------

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
        rows 5 ms instead of 21). Any other merge scans: the index would let two racing inserts
        of one new key both land (LANCEDB_NOTES), which only the scan's primary-key check stops.
        """
        builder = (
            self.table.merge_insert("key")
            .when_matched_update_all(where=CAS_CONDITION)
            .when_not_matched_insert_all()
        )
        if delete_live is not None:
            key, revision = delete_live
            builder = builder.when_not_matched_by_source_delete(
                f"key = {sql.literal(key)} AND revision = {int(revision)}"
            )
        indexed = chains_exist and delete_live is None
        return self._execute(builder.use_index(indexed), rows)

    def _arrow_schema(self) -> Any:
        # The columns never change after creation; only field metadata does (model id).
        if self._schema is None:
            self._schema = self.table.schema
        return self._schema

    def version(self) -> int:
        """The latest committed version; it always looks (even in a snapshot), and the reads
        after it in a snapshot see that version."""
        self._fresh = False
        self._latest()
        return int(self.table.version)

    def remove_exact(self, row: Memory) -> int:
        """Delete `row` only if it is still exactly this revision (undoes a misplaced insert)."""
        previous = f"previous = {sql.literal(row.previous)}" if row.previous else "previous IS NULL"
        where = (
            f"key = {sql.literal(row.key)} AND revision = {int(row.revision)}"
            f" AND content_hash = {sql.literal(row.content_hash)} AND {previous}"
        )
        deleted = int(self.table.delete(where).num_deleted_rows)
        self._wrote()
        return deleted

    # --- index freshness -------------------------------------------------------------------

    def fold_if_needed(self, written_rows: int = 1) -> str | None:
        """Keep reads fast under a stream of writes; returns what it did, if anything.

        Every write adds a fragment, and reads slow down with their count (LANCEDB_NOTES).
        Once `GRAPHIT_FOLD_THRESHOLD` small fragments pile up they are merged (tens of ms:
        only the small fragments are rewritten); once 32x that many rows sit outside the
        indexes, the indexes are folded too (seconds at 100k rows, so rarely). The daemon's
        maintenance does the rest. Best effort: a write never fails because of this.
        """
        limit = config.fold_threshold()
        if limit <= 0:
            return None
        # The handle is at this process's last commit: no need to look for newer ones. Single
        # writes look at the backlog on every FOLD_CHECK_EVERY-th version only (the version
        # number is shared by every writer, so this holds across processes too).
        if written_rows < limit and int(self.table.version) % FOLD_CHECK_EVERY:
            return None
        try:
            small = int(self.table.stats()["fragment_stats"]["num_small_fragments"])
            if small < limit and written_rows < limit * 32:
                return None
            self.refresh()  # fold the newest version, not this handle's last commit
            index = self.table.index_stats("body_fts")
            unindexed = int(index.num_unindexed_rows) if index is not None else 0
            if unindexed >= limit * 32:
                self.optimize()
                return "indexed"
            self.compact_small_fragments()
            return "compacted"
        except Exception as exc:
            # A writer that raced the compaction wins (expected: debug); anything else is worth
            # a line on stderr, but never fails the write that already committed.
            level = logging.DEBUG if is_commit_conflict(exc) else logging.WARNING
            log.log(level, "folding %s skipped: %s", self.uri, str(exc).splitlines()[0])
            return None

    def compact_small_fragments(self) -> None:
        """Merge the small fragments that single writes leave behind, leaving big ones alone."""
        dataset = self.table.to_lance()
        dataset.optimize.compact_files(target_rows_per_fragment=COMPACT_TARGET_ROWS, num_threads=1)
        self.table.checkout_latest()

    def optimize(self) -> None:
        """Compact fragments, fold new rows into every index, prune versions past retention.

        Versions younger than the retention window survive: other processes may still read
        through them (LANCEDB_NOTES: a zero window breaks their handles).
        """
        retention = timedelta(seconds=config.retention_seconds())
        with _contention_as_conflict():
            if not any(ix.name == KEY_INDEX for ix in self.table.list_indices()):
                # Tables created before the key index: maintenance adds it (see `merge`).
                self.table.create_index("key", config=BTree(), name=KEY_INDEX)
            self.table.optimize(cleanup_older_than=retention)

    # --- maintenance -----------------------------------------------------------------------

    def refresh(self) -> None:
        self._fresh = False
        self._latest()

    def has_vector_index(self) -> bool:
        self._latest()
        return any(ix.columns == ["embedding"] for ix in self.table.list_indices())

    def build_vector_index(self, rows_with_vectors: int) -> None:
        """IVF_FLAT with cosine distance: exact within probed partitions, builds in ~1 s at 100k.

        About 4k rows per partition, so the default 20 probes cover every partition below
        ~80k rows and nearly all of them above.
        """
        partitions = max(1, rows_with_vectors // 4096)
        with _contention_as_conflict():
            self.table.create_index(
                "embedding",
                config=IvfFlat(distance_type="cosine", num_partitions=partitions),
                name=VECTOR_INDEX,
                replace=True,
            )

    def state(self) -> TableState:
        from datetime import datetime

        self._latest()
        stats = self.table.stats()
        fragment_stats = stats["fragment_stats"]
        indexed: list[int] = []
        unindexed: list[int] = []
        for column in FTS_COLUMNS:
            index = self.table.index_stats(f"{column}_fts")
            if index is not None:
                indexed.append(int(index.num_indexed_rows))
                unindexed.append(int(index.num_unindexed_rows))
        versions = self.table.list_versions()
        cutoff = datetime.now().timestamp() - config.retention_seconds()
        prunable = sum(1 for v in versions[:-1] if _version_time(v["timestamp"]) < cutoff)
        return TableState(
            rows=int(stats["num_rows"]),
            live_rows=self.count("revision_id = ''"),
            rows_with_vectors=self.count("embedding IS NOT NULL"),
            fragments=int(fragment_stats["num_fragments"]),
            small_fragments=int(fragment_stats["num_small_fragments"]),
            indexed_rows=min(indexed) if indexed else 0,
            unindexed_rows=max(unindexed) if unindexed else int(stats["num_rows"]),
            vector_index=self.has_vector_index(),
            versions=len(versions),
            prunable_versions=prunable,
            bytes=int(stats["total_bytes"]),
        )

    # --- consolidation ---------------------------------------------------------------------

    def live_vectors(self) -> tuple[list[str], Any]:
        """(ids, float32 matrix) of the live rows that have a vector, one row per id.

        Read straight into numpy from Arrow: consolidation compares every pair at once.
        Phantom live rows may be among them; callers keep only ids they know are live.
        """
        import numpy as np

        self._latest()
        dim = self.table.schema.field("embedding").type.list_size
        data = (
            self.table.search()
            .where("revision_id = '' AND embedding IS NOT NULL")
            .select(["id", "embedding"])
            .limit(None)
            .to_arrow()
        )
        ids = [str(i) for i in data.column("id").to_pylist()]
        if not ids:
            return [], np.zeros((0, dim), dtype=np.float32)
        flat = data.column("embedding").combine_chunks().flatten()
        matrix = flat.to_numpy(zero_copy_only=False).astype(np.float32).reshape(len(ids), dim)
        return ids, matrix

    # --- the Explorer's catalogue (graphit_cli/explorer) ------------------------------------

    def live_index(self) -> list[LiveSummary]:
        """Every live memory's id, type, tags, flags and sort time, less phantoms: what a
        catalogue page sorts, filters, counts and builds its facets from. Read column by
        column, without bodies or row objects: at 10k rows several times cheaper than `live`."""
        self._latest()
        columns = ["id", "type", "tags_json", "important", "mandatory", "updated_at", "created_at"]
        query = self.table.search().where("revision_id = ''").select(columns).limit(None)
        data = query.to_arrow()
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

    # --- export and import (portability) ---------------------------------------------------

    def export_rows(self, *, archived: bool = False, vectors: bool = False) -> list[Memory]:
        """Every live row (less phantoms), and with `archived` every archived revision too,
        ordered by id then revision: what `graphit memory export` writes."""
        self._latest()
        rows = self._rows("" if archived else "revision_id = ''", vectors=vectors)
        closed = self._deleted_ids(None)
        rows = [r for r in rows if not (r.is_live and r.id in closed)]
        return sorted(rows, key=lambda r: (r.id, r.revision, r.is_live))

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
        self._latest()
        for start in range(0, len(ids), _IN_CHUNK):
            existing += self._rows(sql.in_list("id", ids[start : start + _IN_CHUNK]), vectors=True)
        write, remove = plan(rows, existing)
        if not write and not remove:
            return None
        builder = (
            self.table.merge_insert("key")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .use_index(False)  # inserts: the scan's primary-key check stops racing duplicates
        )
        if remove:
            builder = builder.when_not_matched_by_source_delete(sql.in_list("key", remove))
        return self._execute(builder, write)

    def _execute(self, builder: Any, rows: list[Memory]) -> MergeCounts:
        """Run one merge_insert commit; a lost race is CommitContention (callers retry)."""
        data = to_arrow(rows, self._arrow_schema())
        self._wrote()
        try:
            # Rows without a vector yet are valid; vectors are validated before they get here.
            result = builder.execute(data, on_bad_vectors="null")
        except (RuntimeError, OSError, ValueError) as exc:
            message = str(exc)
            if is_commit_conflict(exc):
                raise CommitContention(f"commit contention: {message.splitlines()[0]}") from exc
            raise StorageUnavailable(
                f"write to {self.uri} failed: {message.splitlines()[0]}"
            ) from exc
        return MergeCounts(
            inserted=int(result.num_inserted_rows),
            updated=int(result.num_updated_rows),
            deleted=int(result.num_deleted_rows),
            version=int(result.version),
        )


# The rows `heads` needs of a chain: the live row, a final archive, the archive before live.
_HEAD_ROWS = "(revision_id = '' OR next IS NULL OR next = id)"


def _is_head_row(row: Memory) -> bool:
    return row.is_live or row.next is None or row.next == row.id


def _search_where(flt: MemoryFilter | None, live_only: bool) -> str:
    """Live rows that pass `flt`, and (unless `live_only`) every archived row."""
    conditions = sql.filter_conditions(flt or MemoryFilter())
    live = sql.conjunction(["revision_id = ''", *conditions])
    if live_only:
        return live
    return f"({live}) OR revision_id <> ''" if conditions else ""


def _version_time(moment: Any) -> float:
    """Version timestamps come back naive, in the machine's local time."""
    return float(moment.timestamp())


@contextmanager
def _contention_as_conflict() -> Iterator[None]:
    """A maintenance commit preempted by a writer becomes CommitContention (callers retry)."""
    try:
        yield
    except (RuntimeError, OSError, ValueError) as exc:
        if is_commit_conflict(exc):
            raise CommitContention(f"commit contention: {str(exc).splitlines()[0]}") from exc
        raise


def is_commit_conflict(exc: BaseException) -> bool:
    """A commit that lost to a concurrent writer (LANCEDB_NOTES: optimize is preempted).

    lancedb 0.40 has no conflict exception type: a lost commit arrives as a plain RuntimeError
    ("lance error: Retryable commit conflict ...", from `optimize`/`merge_insert`) or OSError
    (from pylance's `compact_files`), measured here. pylance declares
    `lance.commit.CommitConflictError` but does not raise it on these paths; it is checked
    first so the text match becomes a fallback once it is.
    """
    from lance.commit import CommitConflictError  # pylance: compact_small_fragments uses it too

    if isinstance(exc, CommitConflictError):
        return True
    text = str(exc).lower()
    return any(s in text for s in ("commit conflict", "preempted", "concurrent", "retry"))
