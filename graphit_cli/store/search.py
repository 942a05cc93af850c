"""Search over a scope's table: BM25 and nearest vectors, rows from the row cache, and the
warm handle's index and row load."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from graphit_cli.access.scopes import is_remote_uri
from graphit_cli.core.models import LexicalHit, Memory, MemoryFilter
from graphit_cli.errors import CommitContention, in_words
from graphit_cli.store import sql
from graphit_cli.store.rowcache import CachedRow
from graphit_cli.store.table import (
    FTS_COLUMNS,
    TAKE_FLAGGED,
    VECTOR_INDEX,
    TableHandle,
    in_snapshot,
    log,
)

# A warm remote handle reads a table of up to this many rows whole into its row cache.
PREFILL_MAX_ROWS = 20_000
# A handle is warm from its third retrieval on (a one-shot hybrid search makes two).
WARM_AFTER = 3
# Field weights for BM25 over several columns: a title match says more than a body match.
TEXT_BOOSTS = {"title": 2.0, "body": 1.0, "tags_json": 1.5, "type": 0.5}


class Search:
    """BM25 and nearest-vector retrieval, and what a warm handle keeps for them."""

    def __init__(self, handle: TableHandle) -> None:
        self.handle = handle
        self._searches = 0  # searches this handle has served (see `_warm_indexes`)
        self._warmed: dict[str, str] = {}  # index name -> uuid loaded into LanceDB's cache
        # Vector search outside the index (`_nearest_fresh`): the fragments outside it at a
        # table version, and per (fragment, deletion file) its rows' vectors.
        self.split_vectors: bool | None = None  # None: on a warm remote handle
        self._fresh_fragments: tuple[int, list[Any]] = (-1, [])
        self._vector_blocks: dict[tuple[int, int | None], tuple[Any, Any]] = {}
        # Term postings at one table version (`term_postings`): a version's rows never change.
        self._postings: tuple[int, dict[tuple[str, int], frozenset[int]]] = (-1, {})

    @in_snapshot
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
        self.handle.latest()
        self._warm_indexes()
        where = _search_where(flt, live_only)

        def ask(depth: int) -> list[tuple[int, float]]:
            found = self.handle.engine.text(text, TEXT_BOOSTS, where, depth).to_pylist()
            return [(int(r["_rowaddr"]), float(r["_score"])) for r in found]

        ranked, rows = self._best_chains(ask, limit, vector_flags=vector_flags)
        return [
            LexicalHit(rows[a].row, score, bool(rows[a].has_vector) or not vector_flags, a)
            for a, score in ranked
        ]

    @in_snapshot
    def term_postings(self, terms: list[str], limit: int) -> dict[str, frozenset[int]]:
        """For each term, the addresses of the rows (live or archived) containing it, at most
        `limit` of them (the best by BM25): the document count and coverage a search's match
        rule needs (`relevance`). One index query per term, reading no row, and none for a term
        already asked at this table version (rows outside the index cost GETs on S3 per query)."""
        self.handle.latest()
        version = self.handle.engine.version()
        kept = self._postings  # requests at other versions replace it meanwhile: read it once
        if kept[0] != version:
            kept = self._postings = (version, {})
        known = kept[1]
        postings: dict[str, frozenset[int]] = {}
        for term in terms:
            found = known.get((term, limit))
            if found is None:
                addresses = (
                    self.handle.engine.text(term, TEXT_BOOSTS, "", limit)
                    .column("_rowaddr")
                    .to_pylist()
                )
                found = known[(term, limit)] = frozenset(int(a) for a in addresses)
            postings[term] = found
        return postings

    @in_snapshot
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
        self.handle.latest()
        where = _search_where(flt, live_only)
        self._warm_indexes()
        fresh = None if where or not self._split_vector_search() else self._nearest_fresh(vector)

        def ask(depth: int) -> list[tuple[int, float]]:
            # With `fresh`: the index alone (`fast`); the rows outside it come from `fresh`.
            found = self.handle.engine.nearest(vector, where, depth, fast=fresh is not None)
            ranked = [(int(r["_rowaddr"]), float(r["_distance"])) for r in found.to_pylist()]
            if fresh:
                ranked = sorted(ranked + fresh, key=lambda pair: pair[1])[:depth]
            return ranked

        ranked, rows = self._best_chains(ask, limit, vector_flags=False)
        return [(rows[address].row, 1.0 - distance) for address, distance in ranked]

    def _best_chains(
        self, ask: Callable[[int], list[tuple[int, float]]], limit: int, *, vector_flags: bool
    ) -> tuple[list[tuple[int, float]], dict[int, CachedRow]]:
        """The best rows of a ranked query (`ask(depth)`: (address, score) best first) down to
        the row before the first of a chain past `limit` chains, and the rows at them.

        The window counts memories, not rows: a memory edited many times has a row per
        revision that matches, and counting those would crowd other memories out (40 matching
        memories of 30 revisions each fill a 200-row window with 7 of them). So when the rows
        asked hold fewer than `limit` chains and the query had more to give, it is asked again,
        deeper by the rows-per-chain seen so far; all of it in the caller's snapshot.
        """
        depth = limit
        while True:
            ranked = ask(depth)
            rows = self.handle.take([address for address, _ in ranked], vector_flags=vector_flags)
            chains: set[str] = set()
            kept: list[tuple[int, float]] = []
            for address, score in ranked:
                entry = rows.get(address)
                if entry is None:
                    continue
                if entry.row.id not in chains:
                    if len(chains) == limit:
                        break
                    chains.add(entry.row.id)
                kept.append((address, score))
            if len(chains) >= limit or len(ranked) < depth:
                return kept, rows
            depth = max(2 * depth, math.ceil(1.25 * depth * limit / max(len(chains), 1)))

    @property
    def _warm_remote(self) -> bool:
        """A remote handle past its first search: the daemon, the MCP server, the Explorer."""
        return is_remote_uri(self.handle.uri) and self._searches >= WARM_AFTER

    def _split_vector_search(self) -> bool:
        """Whether to search the vector index and the rows outside it apart (`_nearest_fresh`):
        on a warm remote handle (`split_vectors` overrides: tests run the path locally)."""
        return self._warm_remote if self.split_vectors is None else self.split_vectors

    def _nearest_fresh(self, vector: list[float]) -> list[tuple[int, float]] | None:
        """(address, cosine distance) of every live row with a vector outside the vector index,
        or None without a vector index.

        With such rows present, LanceDB's own query re-reads the vector of every index hit to
        rank both parts together: one S3 GET per hit (87 for a hybrid search at 10k rows right
        after 30 writes). Instead the index is asked alone (`fast_search`), and the rows outside
        it are ranked here from vectors kept per fragment: a fragment's rows never change, and
        its deletions only by a new deletion file, so a block is read again only when its
        fragment is new or its deletion file changed. Which fragments lie outside the index is
        read from the manifest, once per table version (2 requests on S3). IVF_FLAT distances
        are exact, so the merged ranking is the one LanceDB would give.
        """
        import numpy as np

        index = next(
            (ix for ix in self.handle.table.list_indices() if ix.name == VECTOR_INDEX), None
        )
        if index is None:
            return None
        if not index.num_unindexed_rows:
            return []
        version = self.handle.engine.version()
        outside_index = self._fresh_fragments  # read once: requests at other versions race
        if outside_index[0] != version:
            dataset = self.handle.table.to_lance()  # the snapshot's own table, at `version`
            covered = {
                fragment_id
                for ix in dataset.describe_indices()
                if ix.name == VECTOR_INDEX
                for segment in ix.segments
                for fragment_id in segment.fragment_ids
            }
            outside = [f for f in dataset.get_fragments() if f.fragment_id not in covered]
            outside_index = self._fresh_fragments = (version, outside)
        blocks: dict[tuple[int, int | None], tuple[Any, Any]] = {}
        for fragment in outside_index[1]:
            deletion = fragment.metadata.deletion_file
            key = (fragment.fragment_id, int(deletion.id) if deletion is not None else None)
            block = self._vector_blocks.get(key)
            if block is None:
                data = fragment.to_table(
                    columns=["embedding"], with_row_address=True, filter="embedding IS NOT NULL"
                )
                addresses = data.column("_rowaddr").to_numpy()
                matrix = np.zeros((0, 1), dtype=np.float32)
                if len(addresses):
                    flat = data.column("embedding").combine_chunks().flatten()
                    matrix = flat.to_numpy(zero_copy_only=False).astype(np.float32)
                    matrix = matrix.reshape(len(addresses), -1)
                    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
                block = (addresses, matrix)
            blocks[key] = block
        self._vector_blocks = blocks  # blocks of fragments gone from outside the index go
        query = np.asarray(vector, dtype=np.float32)
        query = query / max(float(np.linalg.norm(query)), 1e-12)
        fresh: list[tuple[int, float]] = []
        for addresses, matrix in blocks.values():
            if len(addresses):
                distances = 1.0 - matrix @ query
                fresh += zip(
                    (int(a) for a in addresses), (float(d) for d in distances), strict=True
                )
        return fresh

    def _warm_indexes(self) -> None:
        """A remote handle that keeps searching (the daemon, the MCP server, the Explorer)
        loads the search indexes whole into LanceDB's index cache, once per index build: its
        searches then read no index pages from S3 (5-12 GETs per query otherwise). With them it
        reads every row of a table of up to PREFILL_MAX_ROWS into the row cache (a few large
        GETs), so a query it has not seen before reads no rows either, only rows written since.
        Listing the indexes costs no request. It starts at the third retrieval of a handle: a
        one-shot command runs one search (two retrievals when hybrid) and never pays for it."""
        self._searches += 1
        if not self._warm_remote:
            return
        try:
            self._warm(self._warmed)
        except CommitContention:
            raise
        except Exception as exc:
            # A cache warm-up that fails is a warning, never the search's failure: the search
            # reads its index pages and rows as a cold handle would (lance raised "FTS prewarm
            # completed without publishing query-ready ... state" beside maintenance on S3).
            log.warning(
                "warming the search indexes of %s skipped: %s", self.handle.uri, in_words(exc)
            )

    def _warm(self, warmed: dict[str, str]) -> None:
        names = {*(f"{column}_fts" for column in FTS_COLUMNS), VECTOR_INDEX}
        current = {
            ix.name: ix.index_uuid for ix in self.handle.table.list_indices() if ix.name in names
        }
        changed = [name for name, uuid in current.items() if warmed.get(name) != uuid]
        for name in changed:
            # Marked first: an index whose warm-up fails is not tried again until it changes.
            warmed[name] = current[name]
            self.handle.table.prewarm_index(name)
        if changed and self.handle.table.count_rows() <= PREFILL_MAX_ROWS:
            data = (
                self.handle.table.search()
                .select(self.handle.present(TAKE_FLAGGED))
                .limit(None)
                .to_arrow()
            )
            self.handle.remember(data.to_pylist())


def _search_where(flt: MemoryFilter | None, live_only: bool) -> str:
    """Live rows that pass `flt`, and (unless `live_only`) every archived row."""
    conditions = sql.filter_conditions(flt or MemoryFilter())
    live = sql.conjunction(["revision_id = ''", *conditions])
    if live_only:
        return live
    return f"({live}) OR revision_id <> ''" if conditions else ""
