"""The canonical order and the search selection rule (pure functions).

Canonical order: mandatory, important, normal; `updated_at` descending inside each category
(`created_at` is the fallback for legacy rows), then id for a stable tie-break.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from graphit_cli.core.models import Category, LiveSummary, Memory

T = TypeVar("T")
_RANK = {Category.MANDATORY: 0, Category.IMPORTANT: 1, Category.NORMAL: 2}


def _timestamp(memory: Memory) -> datetime:
    return memory.updated_at or memory.created_at


def canonical_key(memory: Memory) -> tuple[int, float, str]:
    return (_RANK[memory.category], -_timestamp(memory).timestamp(), memory.id)


def summary_key(summary: LiveSummary) -> tuple[int, int, str]:
    """`canonical_key` of a live memory's summary (the catalogue sorts those, not rows)."""
    rank = 0 if summary.mandatory else 1 if summary.important else 2
    return (rank, -summary.updated_us, summary.id)


def canonical_sort(items: Iterable[T], memory_of: Callable[[T], Memory]) -> list[T]:
    return sorted(items, key=lambda item: canonical_key(memory_of(item)))


def by_score(
    items: Iterable[T], score_of: Callable[[T], float], memory_of: Callable[[T], Memory]
) -> list[T]:
    """Best score first; a tie goes to the canonical order. Rows with the same words score the
    same, and the full-text index answers them in whatever order its fragments come back: the
    tie-break makes a search rank (and cut at `top_k`) alike every time, on every copy."""
    return sorted(items, key=lambda item: (-score_of(item), canonical_key(memory_of(item))))


def select(
    ranked: Sequence[T],
    memory_of: Callable[[T], Memory],
    top_k: int,
    window: int,
    eligible: Callable[[T], bool] | None = None,
) -> list[T]:
    """Pick `top_k` items from `ranked` (best first) and return them in canonical order.

    Every mandatory and important item within the first `window` items that is `eligible`
    (a match strong enough to claim priority; all are by default) is selected before anything
    else, so a higher-scoring normal memory never displaces a higher-priority match; the
    remaining slots go to the other items by relevance. `top_k <= 0` means no limit.
    """
    if top_k <= 0:
        return canonical_sort(ranked, memory_of)
    candidates = list(ranked[: max(window, top_k)])
    priority = [
        c
        for c in candidates
        if memory_of(c).category is not Category.NORMAL and (eligible is None or eligible(c))
    ]
    # mandatory before important when even the priority matches overflow top_k
    priority.sort(key=lambda c: _RANK[memory_of(c).category])
    chosen = priority[:top_k]
    if len(chosen) < top_k:
        taken = {id(c) for c in chosen}
        rest = [c for c in ranked if id(c) not in taken]
        chosen.extend(rest[: top_k - len(chosen)])
    return canonical_sort(chosen, memory_of)
