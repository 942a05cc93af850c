"""Search candidates to hits (pure): score fusion, chain collapse, snippets.

The store returns scored rows (live and archived) from each retriever; this module fuses
their scores, collapses rows of one revision chain into one candidate, and cuts a snippet.
What counts as a match and which matches are shown live in `relevance`; the shown order in
`ordering`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphit_cli.core import profiles, relevance
from graphit_cli.core.models import LexicalHit, Memory

# Measured on the LoCoMo dev observations (benchmarks/README.md): max-normalised score fusion
# beat reciprocal rank fusion (k=60): recall@10 0.763 vs 0.745, MRR 0.655 vs 0.624 (at 0.3
# lexical). The lexical weight of the fusion is the model's (`profiles.ModelProfile`).
SNIPPET_CHARS = 160
_WORD = re.compile(r"\w{3,}", re.UNICODE)


@dataclass
class Scored:
    """One row's fused relevance in [0, 1] and the evidence behind it."""

    row: Memory
    score: float
    share: float | None  # a full-text hit: the share of the query's term weight it carries
    similarity: float | None  # cosine similarity to the query, when the vector search saw it
    # It shares only common words with a query that has others (relevance): never a match.
    common_only: bool = False


@dataclass
class ChainCandidate:
    """All matched rows of one chain: the best score and the row that represents the chain."""

    id: str
    score: float
    matched: Memory  # the live row when it matched (it wins), else the best archived row
    share: float | None = None  # the best-scoring row's evidence (`Scored`)
    similarity: float | None = None


def fuse(
    lexical: Sequence[LexicalHit],
    semantic: Sequence[tuple[Memory, float]],
    lexical_weight: float = profiles.DEFAULT.lexical_weight,
    shares: Mapping[str, float] | None = None,
    similarity_origin: float = 0.0,
) -> list[Scored]:
    """Score fusion of BM25 hits and vector hits (cosine similarity), best first.

    Each list's scores are divided by its best score (a cosine counted from
    `similarity_origin`, the model's: `(cosine - origin) / (best - origin)`, at least 0), then
    combined as
    `w * lexical + (1 - w) * semantic`, where a hit's lexical part is its relative BM25 times
    its share of the query's term weight (a hit on one common word of a long question counts
    little); a row missing from one list scores 0 there. A row
    that has no vector yet (written since the last embedding pass) cannot be in the vector
    list, so it scores as a lexical hit alone (`1.0 * lexical`): a memory written a second
    ago ranks where full-text search puts it instead of losing to every vector neighbour.
    With a single list this is that list's own order, scaled to [0, 1]. `shares` holds each
    lexical hit's share of the query's term weight (by row key; see `relevance`); without
    it every hit's share counts as 1 (plain BM25).
    """
    if not semantic:
        lexical_weight = 1.0
    elif not lexical:
        lexical_weight = 0.0
    best_lexical = max((hit.score for hit in lexical), default=0.0)
    best_semantic = max((score for _, score in semantic), default=0.0)
    scored: dict[str, Scored] = {}
    if best_lexical > 0:
        for hit in lexical:
            relative = max(hit.score, 0.0) / best_lexical
            weight = lexical_weight if hit.has_vector else 1.0
            covered = shares.get(hit.row.key, 0.0) if shares is not None else None
            part = relative * (1.0 if covered is None else covered)
            scored[hit.row.key] = Scored(hit.row, weight * part, covered, None)
    span = best_semantic - similarity_origin
    for row, similarity in semantic:
        share = max(similarity - similarity_origin, 0.0) / span if span > 0 else 0.0
        found = scored.get(row.key)
        if found is None:
            scored[row.key] = Scored(row, (1.0 - lexical_weight) * share, None, similarity)
        else:
            found.score += (1.0 - lexical_weight) * share
            found.similarity = similarity
    return sorted(scored.values(), key=lambda s: -s.score)


def matches(
    scored: Sequence[Scored],
    *,
    lexical_only: bool = False,
    basis: Sequence[Scored] | None = None,
    profile: profiles.ModelProfile = profiles.DEFAULT,
) -> list[Scored]:
    """The rows that match the query at all (`relevance`: the same test for every row).

    `lexical_only`: the search ran no vector retriever. `basis`: the candidates the semantic
    threshold is taken from (`relevance.CANDIDATE_DEPTH` rows per retriever; default `scored`).
    `profile`: the constants of the model whose vectors the similarities come from.
    """
    pool = [s.score for s in (scored if basis is None else basis)]
    threshold = relevance.fused_threshold(pool, profile.fused_z)
    floor = profile.similarity_floor
    top = max((s.score for s in scored), default=0.0)
    return [
        s
        for s in scored
        if relevance.lexical_match(s.share, s.score / top if lexical_only and top > 0 else None)
        or (not s.common_only and relevance.semantic_match(s.similarity, s.score, threshold, floor))
    ]


def collapse(scored_rows: Sequence[Scored]) -> list[ChainCandidate]:
    """One candidate per chain, best chain first.

    A chain scores as its best-matching row; if its live row matched, that row represents
    the chain and archived hits are dropped.
    """
    chains: dict[str, ChainCandidate] = {}
    order: list[str] = []
    for item in scored_rows:
        row, score = item.row, item.score
        found = chains.get(row.id)
        if found is None:
            chains[row.id] = ChainCandidate(row.id, score, row, item.share, item.similarity)
            order.append(row.id)
            continue
        if score > found.score:
            found.share, found.similarity = item.share, item.similarity
        found.score = max(found.score, score)
        if row.is_live and not found.matched.is_live:
            found.matched = row
        elif (
            not row.is_live and not found.matched.is_live and row.revision > found.matched.revision
        ):
            found.matched = row if score >= found.score else found.matched
    return sorted((chains[i] for i in order), key=lambda c: -c.score)


def snippet(body: str, query: str, width: int = SNIPPET_CHARS) -> str:
    """A one-line excerpt of `body` around the first query word it contains."""
    flat = " ".join(body.split())
    if len(flat) <= width:
        return flat
    lowered = flat.lower()
    positions = [lowered.find(w.lower()) for w in _WORD.findall(query)]
    hits = [p for p in positions if p >= 0]
    start = max(0, min(hits) - width // 3) if hits else 0
    end = min(len(flat), start + width)
    start = max(0, end - width)
    # Cut between words, never inside one ("## Wha…").
    if start and flat[start - 1] != " ":
        space = flat.find(" ", start, end)
        start = space + 1 if space != -1 else start
    if end < len(flat) and flat[end] != " ":
        space = flat.rfind(" ", start, end)
        end = space if space > start else end
    return ("…" if start else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")
