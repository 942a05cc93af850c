"""Search over a scope's table: BM25 and nearest vectors, rows from the row cache, and the
warm handle's index and row load."""

from __future__ import annotations

from lancedb.query import FullTextOperator, MultiMatchQuery

from graphit_cli.models import LexicalHit, Memory, MemoryFilter
from graphit_cli.store import sql
from graphit_cli.store.rowcache import CachedRow
from graphit_cli.store.schema import from_record
from graphit_cli.store.table import FTS_COLUMNS, TAKE_FLAGGED, VECTOR_INDEX, TableHandle

# A warm remote handle reads a table of up to this many rows whole into its row cache.
PREFILL_MAX_ROWS = 20_000
# Field weights for BM25 over several columns: a title match says more than a body match.
TEXT_BOOSTS = {"title": 2.0, "body": 1.0, "tags_json": 1.5, "type": 0.5}


class SearchMixin(TableHandle):
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
            data = self.table.search().select(TAKE_FLAGGED).limit(None).to_arrow()
            for record in data.to_pylist():
                entry = CachedRow(from_record(record), not record["_no_vector"])
                self.cache.put(int(record["_rowaddr"]), entry)


def _search_where(flt: MemoryFilter | None, live_only: bool) -> str:
    """Live rows that pass `flt`, and (unless `live_only`) every archived row."""
    conditions = sql.filter_conditions(flt or MemoryFilter())
    live = sql.conjunction(["revision_id = ''", *conditions])
    if live_only:
        return live
    return f"({live}) OR revision_id <> ''" if conditions else ""
