"""The service's reads: source, history, catalogue, search, recall.

`Reader` is one of `MemoryService`'s collaborators (see memory.py); callers use it
through `MemoryService`. Must not import Typer or Rich. The Explorer's browse is browsing.py.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING

from graphit_cli.core import ordering, profiles, ranking, relevance, revisions
from graphit_cli.core.models import (
    SEARCH_MODES,
    LexicalHit,
    Memory,
    MemoryFilter,
    RecallResult,
    SearchHit,
    SearchResult,
)
from graphit_cli.errors import InvalidInput, NotFound
from graphit_cli.service.common import (
    EmbedderFactory,
    embedder_for,
    missing,
    one_view,
    phantom,
)
from graphit_cli.threads import Pending

if TYPE_CHECKING:
    from collections.abc import Callable

    from graphit_cli.access.scopes import Scope
    from graphit_cli.store.base import Store

REPLACED_POOL = 10  # the best matches: marked when replaced, and where the newer is looked for


class Reader:
    """Reads one scope's table: rows by key, chains, the catalogue, search and recall."""

    def __init__(self, store: Store, scope: Scope, embedder: EmbedderFactory) -> None:
        self.store = store
        self.scope = scope
        # Loading the model costs time: it is asked for only when a query needs a vector.
        self._embedder_factory = embedder

    @one_view
    def source(self, ref: str) -> Memory:
        """`<id>` (the live row) or `<id>/<revision_id>` (an archived revision)."""
        memory_id, revision_id = revisions.parse_ref(ref)
        if not revision_id:
            live = self.store.get(memory_id)
            if live is None or self.store.deleted_ids([memory_id]):
                tail = self.store.heads([memory_id], vectors=False).get(memory_id, (None, None))[1]
                raise missing(memory_id, tail)
            return live
        row = self.store.get(revisions.archive_key(memory_id, revision_id))
        if row is None:
            if not self.store.chain(memory_id):
                raise NotFound(f"no memory {memory_id} in {self.scope}")
            raise NotFound(
                f"memory {memory_id} has no revision {revision_id}: "
                f"see `graphit memory history {memory_id}`"
            )
        return row

    def history(self, memory_id: str) -> list[Memory]:
        """Every revision of a chain, oldest first, the live row (if any) last."""
        memory_id = revisions.validate_id(memory_id)
        chain = self.store.chain(memory_id)
        if any(m.next is None and not m.is_live for m in chain):
            chain = [m for m in chain if not m.is_live]  # a phantom is not part of the chain
        if not chain:
            raise NotFound(f"no memory {memory_id} in {self.scope}")
        return chain

    @one_view
    def catalogue(self, flt: MemoryFilter | None = None, limit: int | None = None) -> list[Memory]:
        """Live memories in canonical order (mandatory, important, normal; newest first)."""
        if limit is not None and limit < 0:
            raise InvalidInput("limit must not be negative")
        if not limit:
            return ordering.canonical_sort(self.store.live(flt), lambda m: m)
        # A page: sort the summaries (no bodies), then read only the page's rows in full.
        wanted = [s.id for s in sorted(self.store.live_index(flt), key=ordering.summary_key)]
        found = {m.id: m for m in self.store.rows_for_keys(wanted[:limit])}  # live key = id
        return [found[memory_id] for memory_id in wanted[:limit] if memory_id in found]

    # --- search ----------------------------------------------------------------------------

    @one_view
    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        flt: MemoryFilter | None = None,
        exclude_mandatory: bool = False,
        include_deleted: bool = False,
        mode: str = "auto",
        query_vector: list[float] | None = None,
        mark_replaced: bool = True,
    ) -> SearchResult:
        """Full-text + vector search over live and archived rows, collapsed by chain.

        What counts as a match, the candidate depth and the selection are `relevance`'s: a
        row matches when the query's informative terms it contains carry enough of their
        weight, or when it is semantically close enough; among the matches, mandatory ones
        are selected first, then important, then normal, each by relevance, and the
        selection is shown in canonical order. Category and filters are judged on the
        current memory. Deleted memories are left out unless `include_deleted`. `top_k`
        counts distinct memories; 0 means every match among the candidates.
        """
        text = query.strip()
        if not text:
            raise InvalidInput("the search query must not be empty")
        if top_k < 0:
            raise InvalidInput("top_k must not be negative (0 means no limit)")
        if top_k > relevance.MAX_TOP_K:
            raise InvalidInput(
                f"top_k must be at most {relevance.MAX_TOP_K} (0 means every match), got {top_k}"
            )
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"unknown search mode {mode!r}: use {', '.join(SEARCH_MODES)}")
        flt = flt or MemoryFilter()
        if exclude_mandatory:
            if flt.mandatory:
                raise InvalidInput("a mandatory-only search cannot also exclude mandatory memories")
            flt = replace(flt, mandatory=False)

        used, notice, query_vector_of, table_model = self._resolve_mode(mode, text, query_vector)
        if relevance.about_nothing(text, lambda t: self.store.term_postings(t, 1)):
            return SearchResult([], used, notice)  # in no memory and no language: nothing
        profile = profiles.profile_for(table_model)  # the constants of the vectors' model
        pool = relevance.depth(top_k)

        def nearest() -> list[tuple[Memory, float]]:
            if query_vector_of is None:
                return []
            return self.store.search_vector(query_vector_of(), pool, flt=flt)

        # A hybrid search runs its vector leg (embedding the query, then the index) on a thread
        # of its own beside the full-text leg: both leave the GIL (onnxruntime, lance), so on
        # two cores a cold search pays for the longer leg, not for both.
        vector_leg = Pending(nearest, name="vector-leg") if used == "hybrid" else None
        try:
            lexical = (
                self.store.search_text(text, pool, flt=flt, vector_flags=used == "hybrid")
                if used != "vector"
                else []
            )
            shares, common_only = self._lexical_shares(text, lexical, lexical_only=used == "fts")
        finally:
            if vector_leg is not None:
                vector_leg.join()  # whatever the full-text leg did, nothing is left running
        near = vector_leg.result() if vector_leg is not None else nearest()
        weight, origin = profile.lexical_weight, profile.similarity_origin
        scored = ranking.fuse(
            lexical, near, lexical_weight=weight, shares=shares, similarity_origin=origin
        )
        for item in scored:
            item.common_only = item.row.key in common_only
        # The semantic threshold comes from the base pool, so a deeper one never raises it.
        base = relevance.CANDIDATE_DEPTH
        basis = (
            scored
            if pool <= base
            else ranking.fuse(
                lexical[:base],
                near[:base],
                lexical_weight=weight,
                shares=shares,
                similarity_origin=origin,
            )
        )
        candidates = ranking.collapse(
            ranking.matches(scored, lexical_only=used == "fts", basis=basis, profile=profile)
        )

        # Category and filters come from the current memory, not from the matched revision.
        # A live match is its own current row unless a delete closed its chain (cheap to
        # ask); only archived matches and closed chains need their heads read.
        hits: list[SearchHit] = []
        closed = self.store.deleted_ids([c.id for c in candidates]) if candidates else set()
        unresolved = [c.id for c in candidates if c.id in closed or not c.matched.is_live]
        heads = self.store.heads(unresolved, vectors=False) if unresolved else {}
        for candidate in candidates:
            head = heads.get(candidate.id, (candidate.matched, None))
            hit = self._hit(candidate, head, text)
            if hit.deleted and not include_deleted:
                continue
            if _matches(hit.memory, flt):
                hits.append(hit)
        ranked = ordering.by_score(hits, lambda h: h.score, lambda h: h.memory)
        hits = [replace(hit, rank=rank) for rank, hit in enumerate(ranked, 1)]
        chosen = relevance.select(hits, lambda h: h.memory, top_k)
        chosen = _mark_replaced(chosen, ranked) if mark_replaced else chosen
        return SearchResult(chosen, used, notice)

    def _lexical_shares(
        self, text: str, lexical: list[LexicalHit], *, lexical_only: bool
    ) -> tuple[dict[str, float], frozenset[str]]:
        """Each full-text hit's share of the query's term weight (by row key; `relevance`),
        and the hits that share only common words with it (no match in any mode)."""
        counts, rows, covered = self._term_coverage(text, lexical)
        weights = relevance.term_weights(counts, rows, lexical_only=lexical_only)
        carrying = relevance.carriers(counts)
        shares = {
            key: relevance.lexical_share(terms, weights, carrying) for key, terms in covered.items()
        }
        common_only = frozenset(
            key
            for key, terms in covered.items()
            if relevance.shares_only_common_words(terms, carrying)
        )
        return shares, common_only

    def _term_coverage(
        self, text: str, lexical: list[LexicalHit]
    ) -> tuple[dict[str, int], int, dict[str, list[str]]]:
        """The query's informative terms with the number of rows containing each, the table's
        row count, and the terms each full-text hit contains (by row key)."""
        terms = relevance.informative_terms(text)
        if not lexical or not terms:
            return {}, 1, {}
        postings = self.store.term_postings(terms, relevance.TERM_DEPTH)
        # A one-letter word ("x", "1") counts only where some memory has it: noise otherwise.
        postings = {t: found for t, found in postings.items() if len(t) > 1 or found}
        rows = max(self.store.rows(), 1)
        counts = {t: len(p) for t, p in postings.items()}
        covered = {
            hit.row.key: [t for t, found in postings.items() if hit.address in found]
            for hit in lexical
        }
        return counts, rows, covered

    @staticmethod
    def _hit(
        candidate: ranking.ChainCandidate,
        head: tuple[Memory | None, Memory | None],
        text: str,
    ) -> SearchHit:
        """The hit for a chain: its current memory (or final archive) and the row that matched."""
        live, tail = head
        matched = candidate.matched
        if phantom(live, tail):  # a delete closed the chain; its live row is not real
            live = None
            if matched.is_live:
                matched = tail or matched
        current = matched if matched.is_live else (live or tail or matched)
        snippet = ranking.snippet(matched.body, text)
        return SearchHit(
            memory=current,
            matched=matched,
            score=candidate.score,
            rank=0,
            snippet=snippet,
            share=candidate.share,
            similarity=candidate.similarity,
        )

    def _resolve_mode(
        self, mode: str, text: str, query_vector: list[float] | None
    ) -> tuple[str, str | None, Callable[[], list[float]] | None, str | None]:
        """The retrievers to run, a notice for stderr, what gives the query vector (if any:
        the vector given, or the embedding of the query by the model that embedded the table,
        left to the vector leg) and that model's id.

        A query vector is only ever compared with vectors of its own model: the process's
        model when the table's is the same, else the table's model when its backend is
        installed (a shared table embedded elsewhere), else no vector search at all."""
        if mode == "fts":
            return "fts", None, None, None
        table_model = self.store.embedding_model()
        if table_model is None:
            reason = "no memory has a vector yet (run `graphit memory embed`)"
        elif query_vector is not None:
            given = query_vector
            return ("vector" if mode == "vector" else "hybrid"), None, lambda: given, table_model
        else:
            embedder = embedder_for(self._embedder_factory, table_model)
            if embedder is None:
                from graphit_cli.embed import unavailable_reason

                own = self._embedder_factory()
                reason = (
                    unavailable_reason()
                    if own is None
                    else f"the table's vectors come from {table_model}, which is not installed "
                    f"here (this process embeds with {own.model_id})"
                )
            else:
                embed = functools.partial(embedder.embed_query, text)
                return ("vector" if mode == "vector" else "hybrid"), None, embed, table_model
        if mode == "vector":
            raise InvalidInput(f"vector search is not possible: {reason}")
        return "fts", f"lexical search only: {reason}", None, table_model

    @one_view
    def recall(self, context: str | None = None, *, top_k: int = 10) -> RecallResult:
        """The initial recall protocol: every mandatory memory in full, then the contextual
        search with mandatory memories excluded."""
        mandatory = self.catalogue(MemoryFilter(mandatory=True))
        found = None
        if context and context.strip():
            found = self.search(context, top_k=top_k, exclude_mandatory=True)
        return RecallResult(mandatory, found)


def _mark_replaced(chosen: list[SearchHit], ranked: list[SearchHit]) -> list[SearchHit]:
    """Each chosen hit among the REPLACED_POOL best matches with the newest live one of them on
    its subject that says otherwise (`contradiction.newer_rivals`): metadata only. (Each pair
    costs ~40 us: the hook, which reads each subject's neighbours itself, asks for none.)"""
    from graphit_cli.core import contradiction

    pool = [h.memory for h in ranked[:REPLACED_POOL] if h.memory.is_live]
    best = {m.id for m in pool}
    marked = []
    for hit in chosen:
        near = hit.memory.id in best
        newer = contradiction.newer_rivals(hit.memory, pool) if near else []
        marked.append(replace(hit, replaced_by=newer[0].id) if newer else hit)
    return marked


def _matches(memory: Memory, flt: MemoryFilter) -> bool:
    if flt.types and memory.type not in flt.types:
        return False
    if flt.tags and not set(flt.tags) <= set(memory.tags):
        return False
    if flt.important is not None and memory.important != flt.important:
        return False
    return flt.mandatory is None or memory.mandatory == flt.mandatory
