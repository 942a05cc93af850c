"""Search candidates to hits (pure): rank fusion, chain collapse and snippets.

The store returns ranked rows (live and archived) from each retriever; this module fuses them
by reciprocal rank, collapses rows of one revision chain into one candidate, and cuts a
snippet. Selection and the shown order live in `ordering`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphit_cli.models import Memory

RRF_K = 60  # the usual reciprocal-rank-fusion constant: damps the head of each list
SNIPPET_CHARS = 160
_WORD = re.compile(r"\w{3,}", re.UNICODE)


@dataclass
class ChainCandidate:
    """All matched rows of one chain: the best score and the row that represents the chain."""

    id: str
    score: float
    matched: Memory  # the live row when it matched (it wins), else the best archived row


def fuse(
    ranked_lists: Sequence[Sequence[Memory]], weights: Sequence[float] | None = None
) -> list[tuple[Memory, float]]:
    """Reciprocal rank fusion of several best-first row lists, keyed by row key."""
    scores: dict[str, float] = {}
    rows: dict[str, Memory] = {}
    for index, ranked in enumerate(ranked_lists):
        weight = weights[index] if weights else 1.0
        for rank, row in enumerate(ranked, start=1):
            scores[row.key] = scores.get(row.key, 0.0) + weight / (RRF_K + rank)
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
