"""Recall and search across scopes: the project, the user scope and every recall context.

A user's preferences live in the user scope, the team's conventions in the project scope and
in contexts; an agent starting a session gets all of them in one call. Each scope is searched
on its own (its own table, its own indexes), the hits are merged by relevance rank, and the
same selection rule and canonical order (`relevance.select`) apply across the union. Every
memory is labelled with the scope it came from.

The CLI resolves which scopes take part (the project depends on its working directory); whether
a running daemon does the work is the adapter's choice (`cli/client.py`), never this module's:
it knows nothing of the warm path. A read here never creates a table (`open_reader`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from graphit_cli.access.scopes import Scope
from graphit_cli.core import ordering
from graphit_cli.core.models import Memory, MemoryFilter, SearchHit, SearchResult
from graphit_cli.errors import InvalidInput, NoProject

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService

# The service, the table opener and the selection rule are imported where they are used: a
# client that only asks the daemon (the per-prompt hook) does not pay for them.
ALL = "all"
Opener = Callable[[Scope], "MemoryService"]


@dataclass(frozen=True)
class AcrossRecall:
    scopes: list[str]  # the scopes read, in order
    mandatory: list[Memory]  # grouped by scope, canonical order inside each
    search: SearchResult | None
    notices: list[str]


def recall_scopes(project: Scope | None = None) -> tuple[list[Scope], list[str]]:
    """The project (`project`, else the one this process is inside, if any), the user scope
    (when it has a table) and every recall context, in that order; and notices about the ones
    left out. A warm process answering a hook names the hook's project."""
    from graphit_cli.access import contexts, providers
    from graphit_cli.access.providers import resolve_scope

    found: list[Scope] = []
    notices: list[str] = []
    try:
        found.append(project or resolve_scope("project"))
    except NoProject:
        notices.append("not inside a graphit project: the project scope is left out")
    user = resolve_scope("user")
    if providers.is_remote_scope(user) or user.local_path().exists():
        found.append(user)
    for entry in contexts.recall_contexts():
        if entry.kind == contexts.IMPORTED and not entry.scope.local_path().exists():
            notices.append(f"context {entry.name} has no table: run `context refresh {entry.name}`")
            continue
        found.append(entry.scope)
    return found, notices


def _label(memory: Memory, scope: Scope) -> Memory:
    if (memory.scope_kind, memory.scope_id) == (scope.kind, scope.id):
        return memory
    return replace(memory, scope_kind=scope.kind, scope_id=scope.id)


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
    include_deleted: bool = False,
    mode: str = "auto",
) -> SearchResult:
    """Each scope searched on its own, merged by relevance, then the selection rule
    (`relevance.select`) and the canonical order over the union: `top_k` counts distinct memories
    across scopes."""
    merged: list[SearchHit] = []
    modes: list[str] = []
    notices: list[str] = []
    for service in services:
        result = service.search(
            query,
            top_k=top_k,
            flt=flt,
            exclude_mandatory=exclude_mandatory,
            include_deleted=include_deleted,
            mode=mode,
        )
        modes.append(result.mode)
        if result.notice:
            notices.append(f"{service.scope}: {result.notice}")
        scope = service.scope
        merged += [
            replace(h, memory=_label(h.memory, scope), matched=_label(h.matched, scope))
            for h in result.hits
        ]
    # Each scope's fused scores are scaled to its own best match (ranking.fuse), so they
    # merge on one scale; ties go to the better rank within its scope, then to the canonical
    # order. Of several hits with the same current content (a context imported from this
    # project), the best one stays.
    merged.sort(key=lambda h: (-h.score, h.rank, ordering.canonical_key(h.memory)))
    seen: set[str] = set()
    ranked: list[SearchHit] = []
    for hit in merged:
        if hit.memory.content_hash not in seen:
            seen.add(hit.memory.content_hash)
            ranked.append(replace(hit, rank=len(ranked) + 1))
    from graphit_cli.core import relevance

    chosen = relevance.select(ranked, lambda h: h.memory, top_k)
    used = modes[0] if len(set(modes)) == 1 else ("mixed" if modes else "fts")
    return SearchResult(chosen, used, "; ".join(notices) or None)


def recall(
    scopes: list[Scope], context: str | None, *, top_k: int = 10, opener: Opener | None = None
) -> AcrossRecall:
    """The initial recall protocol over `scopes`: mandatory memories in full, then one search
    with them excluded."""
    from graphit_cli.opening import open_reader

    open_one = opener or (lambda s: open_reader(s))
    services = [open_one(s) for s in scopes]
    found = None
    if context and context.strip() and services:
        found = search(services, context, top_k=top_k, exclude_mandatory=True)
    return AcrossRecall([str(s) for s in scopes], mandatory(services), found, [])


# --- scope labels as arguments ------------------------------------------------------------


def resolve_label(value: str | None) -> Scope:
    """A scope argument: `project`, `user`, `context:NAME`, or the label a cross-scope result
    carries (`project:<this project's id>`, `user:<this user's id>`)."""
    from graphit_cli.access.providers import resolve_scope

    text = (value or "").strip() or "project"
    kind, sep, ident = text.partition(":")
    if sep and kind in ("project", "user"):
        current = resolve_scope(kind)
        if (ident.strip().upper() if kind == "project" else ident.strip()) != current.id:
            raise InvalidInput(f"scope {text!r} is not this {kind}'s ({current}): use {kind!r}")
        return current
    return resolve_scope(text)
