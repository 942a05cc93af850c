"""Search candidates to hits (pure): rank fusion, chain collapse and snippets.

The store returns scored rows (live and archived) from each retriever; this module fuses
their scores, collapses rows of one revision chain into one candidate, and cuts a snippet.
Selection and the shown order live in `ordering`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphit_cli.models import Memory

# Measured on the LoCoMo dev observations (benchmarks/README.md): max-normalised score fusion
# at 0.3 lexical / 0.7 semantic beat reciprocal rank fusion (k=60): recall@10 0.763 vs 0.745,
# MRR (relevance order) 0.655 vs 0.624; weights 0.2-0.4 all did better than RRF.
LEXICAL_WEIGHT = 0.3
SNIPPET_CHARS = 160
_WORD = re.compile(r"\w{3,}", re.UNICODE)


@dataclass
class ChainCandidate:
    """All matched rows of one chain: the best score and the row that represents the chain."""

    id: str
    score: float
    matched: Memory  # the live row when it matched (it wins), else the best archived row


def fuse(
    lexical: Sequence[tuple[Memory, float]],
    semantic: Sequence[tuple[Memory, float]],
    lexical_weight: float = LEXICAL_WEIGHT,
) -> list[tuple[Memory, float]]:
    """Score fusion of BM25 hits and vector hits (cosine similarity), best first.

    Each list's scores are divided by its best score, then combined as
    `w * lexical + (1 - w) * semantic`; a row missing from one list scores 0 there. With a
    single list this is that list's own order, scaled to [0, 1].
    """
    if not semantic:
        lexical_weight = 1.0
    elif not lexical:
        lexical_weight = 0.0
    scores: dict[str, float] = {}
    rows: dict[str, Memory] = {}
    for weight, found in ((lexical_weight, lexical), (1.0 - lexical_weight, semantic)):
        best = max((score for _, score in found), default=0.0)
        if weight <= 0 or best <= 0:
            continue
        for row, score in found:
            scores[row.key] = scores.get(row.key, 0.0) + weight * max(score, 0.0) / best
            rows.setdefault(row.key, row)
    return sorted(((rows[k], s) for k, s in scores.items()), key=lambda item: -item[1])


def collapse(scored_rows: Sequence[tuple[Memory, float]]) -> list[ChainCandidate]:
    """One candidate per chain, best chain first.

    A chain scores as its best-matching row; if its live row matched, that row represents
    the chain and archived hits are dropped.
    """
    chains: dict[str, ChainCandidate] = {}
    order: list[str] = []
    for row, score in scored_rows:
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
    return ("…" if start else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")
