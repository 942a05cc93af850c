"""Search candidates to hits (pure): score fusion, the relevance floor, chain collapse, snippets.

The store returns scored rows (live and archived) from each retriever; this module fuses
their scores, decides which rows are a match at all (the relevance floor), collapses rows of
one revision chain into one candidate, and cuts a snippet. Selection and the shown order live
in `ordering`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphit_cli.models import LexicalHit, Memory

# Measured on the LoCoMo dev observations (benchmarks/README.md): max-normalised score fusion
# at 0.3 lexical / 0.7 semantic beat reciprocal rank fusion (k=60): recall@10 0.763 vs 0.745,
# MRR (relevance order) 0.655 vs 0.624; weights 0.2-0.4 all did better than RRF.
LEXICAL_WEIGHT = 0.3
# The relevance floor (calibrated on the LoCoMo dev set by benchmarks/calibrate_floor.py; see
# benchmarks/README.md, "Relevance floor"). A row matches the query when it is a lexical hit
# or when its cosine similarity to the query reaches SIMILARITY_FLOOR; anything else is not a
# result at all, so a query about nothing returns nothing.
SIMILARITY_FLOOR = 0.30
# A matched mandatory or important memory takes a priority slot only when its fused relevance
# is at least PRIORITY_FLOOR of the best candidate's: a flagged memory that merely shares a
# name with the query competes for the remaining slots by relevance like any other memory.
# Calibration (LoCoMo dev, 13 % of memories flagged): hybrid recall@10 with flags is 0.050
# below the unflagged figure with no priority floor, 0.027 below at 0.6, 0.003 below at 0.7
# and level from 0.75 to 0.95; the similarity floor changes nothing on that set between 0.20
# and 0.40, while off-topic queries' best rows reach 0.27 at p90 and paraphrases start near
# 0.3 with this model.
PRIORITY_FLOOR = 0.75
SNIPPET_CHARS = 160
_WORD = re.compile(r"\w{3,}", re.UNICODE)


@dataclass
class Scored:
    """One row's fused relevance in [0, 1] and the evidence behind it."""

    row: Memory
    score: float
    lexical: bool  # a full-text hit
    similarity: float | None  # cosine similarity to the query, when the vector search saw it

    @property
    def matched(self) -> bool:
        """Above the relevance floor: a lexical hit, or semantically close enough."""
        return self.lexical or (self.similarity is not None and self.similarity >= SIMILARITY_FLOOR)


@dataclass
class ChainCandidate:
    """All matched rows of one chain: the best score and the row that represents the chain."""

    id: str
    score: float
    matched: Memory  # the live row when it matched (it wins), else the best archived row


def fuse(
    lexical: Sequence[LexicalHit],
    semantic: Sequence[tuple[Memory, float]],
    lexical_weight: float = LEXICAL_WEIGHT,
) -> list[Scored]:
    """Score fusion of BM25 hits and vector hits (cosine similarity), best first.

    Each list's scores are divided by its best score, then combined as
    `w * lexical + (1 - w) * semantic`; a row missing from one list scores 0 there. A row
    that has no vector yet (written since the last embedding pass) cannot be in the vector
    list, so it scores as a lexical hit alone (`1.0 * lexical`): a memory written a second
    ago ranks where full-text search puts it instead of losing to every vector neighbour.
    With a single list this is that list's own order, scaled to [0, 1].
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
            share = max(hit.score, 0.0) / best_lexical
            weight = lexical_weight if hit.has_vector else 1.0
            scored[hit.row.key] = Scored(hit.row, weight * share, True, None)
    for row, similarity in semantic:
        share = max(similarity, 0.0) / best_semantic if best_semantic > 0 else 0.0
        found = scored.get(row.key)
        if found is None:
            scored[row.key] = Scored(row, (1.0 - lexical_weight) * share, False, similarity)
        else:
            found.score += (1.0 - lexical_weight) * share
            found.similarity = similarity
    return sorted(scored.values(), key=lambda s: -s.score)


def above_floor(scored: Sequence[Scored]) -> list[Scored]:
    """The rows that match the query at all (see SIMILARITY_FLOOR)."""
    return [s for s in scored if s.matched]


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
            chains[row.id] = ChainCandidate(row.id, score, row)
            order.append(row.id)
            continue
        found.score = max(found.score, score)
        if row.is_live and not found.matched.is_live:
            found.matched = row
        elif (
            not row.is_live and not found.matched.is_live and row.revision > found.matched.revision
        ):
            found.matched = row if score >= found.score else found.matched
    return sorted((chains[i] for i in order), key=lambda c: -c.score)


def priority_floor(scores: Iterable[float]) -> float:
    """The fused score a flagged match needs to take a priority slot, given the scores of
    the matches that can be shown (after filters and deleted memories are left out)."""
    return PRIORITY_FLOOR * max(scores, default=0.0)


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
