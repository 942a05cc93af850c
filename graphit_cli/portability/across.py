"""Recall and search across scopes: the project, the user scope and every recall context.

A user's preferences live in the user scope, the team's conventions in the project scope and
in contexts; an agent starting a session gets all of them in one call. Each scope is searched
on its own (its own table, its own indexes), the hits are merged by relevance rank, and the
same selection rule and canonical order (`ordering.select`) apply across the union. Every
memory is labelled with the scope it came from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from graphit_cli import ordering
from graphit_cli.errors import NoProject
from graphit_cli.models import Memory, MemoryFilter, SearchHit, SearchResult
from graphit_cli.scopes import Scope
from graphit_cli.service import WINDOW_FACTOR, MemoryService


@dataclass(frozen=True)
class AcrossRecall:
    scopes: list[str]  # the scopes read, in order
    mandatory: list[Memory]  # grouped by scope, canonical order inside each
    search: SearchResult | None
    notices: list[str]


Opener = Callable[[Scope], MemoryService]


def open_scopes(opener: Opener | None = None) -> tuple[list[MemoryService], list[str]]:
    """The project (when inside one), the user scope and every recall context."""
    from graphit_cli import providers
    from graphit_cli.portability import contexts
    from graphit_cli.scopes import resolve_scope

    open_one = opener or (lambda scope: MemoryService.open(scope))
    services: list[MemoryService] = []
    notices: list[str] = []
    try:
        services.append(open_one(resolve_scope("project")))
    except NoProject:
        notices.append("not inside a graphit project: the project scope is left out")
    user = resolve_scope("user")
    if providers.is_remote_scope(user) or user.local_path().exists():
        services.append(open_one(user))
    for entry in contexts.recall_contexts():
        if entry.kind == contexts.IMPORTED and not entry.scope.local_path().exists():
            notices.append(f"context {entry.name} has no table (run `context refresh`)")
            continue
        services.append(open_one(entry.scope))
    return services, notices


def _label(memory: Memory, scope: Scope) -> Memory:
    if (memory.scope_kind, memory.scope_id) == (scope.kind, scope.id):
        return memory
    return memory.evolve(scope_kind=scope.kind, scope_id=scope.id)


def mandatory(services: list[MemoryService]) -> list[Memory]:
    """Every mandatory memory of every scope, grouped by scope; a memory with the same content
    as one already loaded from an earlier scope is not repeated."""
    seen: set[str] = set()
    found = []
    for service in services:
        for memory in service.catalogue(MemoryFilter(mandatory=True)):
            if memory.content_hash not in seen:
                seen.add(memory.content_hash)
                found.append(_label(memory, service.scope))
    return found


def search(
    services: list[MemoryService],
    query: str,
    *,
    top_k: int = 10,
    flt: MemoryFilter | None = None,
    exclude_mandatory: bool = False,
    mode: str = "auto",
) -> SearchResult:
    """Each scope searched on its own, merged by relevance rank, then the selection rule and
    the canonical order over the union (`top_k` counts distinct memories across scopes)."""
    merged: list[SearchHit] = []
    modes: list[str] = []
    notices: list[str] = []
    for service in services:
        result = service.search(
            query, top_k=top_k, flt=flt, exclude_mandatory=exclude_mandatory, mode=mode
        )
        modes.append(result.mode)
        if result.notice and result.notice not in notices:
            notices.append(f"{service.scope}: {result.notice}")
        scope = service.scope
        merged += [
            replace(h, memory=_label(h.memory, scope), matched=_label(h.matched, scope))
            for h in result.hits
        ]
    # Scores from different tables are not on one scale; ranks are. Interleave by rank, and
    # keep the best-ranked of several hits with the same current content.
    merged.sort(key=lambda h: (h.rank, -h.score))
    seen: set[str] = set()
    ranked: list[SearchHit] = []
    for hit in merged:
        if hit.memory.content_hash in seen:
            continue
        seen.add(hit.memory.content_hash)
        ranked.append(replace(hit, rank=len(ranked) + 1))
    chosen = ordering.select(ranked, lambda h: h.memory, top_k, WINDOW_FACTOR * top_k)
    used = modes[0] if modes and len(set(modes)) == 1 else ("mixed" if modes else "fts")
    return SearchResult(chosen, used, "; ".join(notices) or None)


def recall(context: str | None, *, top_k: int = 10, opener: Opener | None = None) -> AcrossRecall:
    """The initial recall protocol over every scope: mandatory memories in full, then one
    search with them excluded."""
    services, notices = open_scopes(opener)
    found = None
    if context and context.strip() and services:
        found = search(services, context, top_k=top_k, exclude_mandatory=True)
    return AcrossRecall([str(s.scope) for s in services], mandatory(services), found, notices)
