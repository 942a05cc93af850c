"""A prompt's candidates: every memory search matches for it in each recall scope, with the
evidence the policy reads (`policy.Candidate`: relevance, word share, cosine and where it stands
among the scope's other memories), and the query's embedding, which a hook without a warm
process loads the model for when the budget allows."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from graphit_cli.recall import policy

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory
    from graphit_cli.service.memory import MemoryService

# Seconds a cold hook's model costs (import, load, the query's embedding: ~0.16-0.25 s on an
# idle 2-core machine) and the search and answer after it need: with less left of the budget,
# the prompt is searched by its words (the recalls log says so).
MODEL_COST = 0.25
AFTER_MODEL = 0.1


def label(memory: Memory, service: MemoryService) -> Memory:
    scope = service.scope
    if (memory.scope_kind, memory.scope_id) == (scope.kind, scope.id):
        return memory
    return replace(memory, scope_kind=scope.kind, scope_id=scope.id)


def query_vector(
    service: MemoryService,
    query: str,
    mode: str,
    vectors: dict[str, list[float] | None],
    until: float | None = None,
) -> tuple[list[float] | None, str | None]:
    """The query's embedding in the scope's model space (one per model, shared by the scopes
    of that model) and, when there is none, why: a search by meaning needs it, with or
    without a warm process (a cold hook loads the model here, unless less than MODEL_COST
    and AFTER_MODEL are left before `until`)."""
    if mode == "fts":
        return None, "lexical mode"
    model = service.store.embedding_model()
    if model is None:
        return None, "no memory has a vector yet"
    if model not in vectors:
        from graphit_cli import embed

        left = None if until is None else until - time.monotonic()
        if left is not None and left < MODEL_COST + AFTER_MODEL and not embed.has_loaded(model):
            return None, f"{left:.2f} s of the budget left: no time to load the model"
        try:
            vectors[model] = service.query_vector(query)
        except Exception as exc:  # a model that cannot load leaves the words to decide
            vectors[model] = None
            return None, f"the model could not embed the prompt: {type(exc).__name__}: {exc}"
    found = vectors[model]
    return found, None if found is not None else f"{model} is not installed here"


def spread_of(service: MemoryService, vector: list[float] | None) -> policy.Spread | None:
    """The query's cosines to the scope's live memories (mandatory ones aside): what a
    memory's own cosine is read against (`policy.Spread`)."""
    if vector is None:
        return None
    from graphit_cli.core import relevance
    from graphit_cli.core.models import MemoryFilter

    try:
        near = service.store.search_vector(
            vector, relevance.CANDIDATE_DEPTH, flt=MemoryFilter(mandatory=False), live_only=True
        )
    except Exception:  # the spread is evidence, never a failure
        return None
    from graphit_cli.core import profiles

    lone = profiles.profile_for(service.store.embedding_model()).recall_cosine
    return policy.Spread.of([cosine for _, cosine in near], lone)


def gather(
    services: list[MemoryService], query: str, mode: str, until: float | None = None
) -> tuple[list[policy.Candidate], dict[str, MemoryService], str, str | None]:
    """Every memory search matches for `query` in each scope (any category but mandatory,
    which session start shows), with the evidence the policy reads; the mode used and, when
    the search could not use meaning, why."""
    from graphit_cli.core import relevance

    terms = relevance.informative_terms(query)
    found: list[policy.Candidate] = []
    owner: dict[str, MemoryService] = {}
    seen_content: set[str] = set()
    modes: list[str] = []
    vectors: dict[str, list[float] | None] = {}
    lexical_why: str | None = None
    for service in services:
        vector, why = query_vector(service, query, mode, vectors, until)
        lexical_why = lexical_why or why
        search_mode = "fts" if mode == "fts" or (vector is None and why) else mode
        result = service.search(
            query,
            top_k=0,
            exclude_mandatory=True,
            mode=search_mode,
            query_vector=vector,
            mark_replaced=False,  # each shown memory's subject is read for that (`hook._newer_of`)
        )
        modes.append(result.mode)
        spread = spread_of(service, vector) if result.mode != "fts" else None
        best = max((h.score for h in result.hits), default=0.0)
        ranked = sorted(result.hits, key=lambda h: -h.score)
        for rank, hit in enumerate(ranked, 1):
            memory = hit.memory
            if hit.deleted or memory.content_hash in seen_content:
                continue
            seen_content.add(memory.content_hash)
            memory = label(memory, service)
            owner[memory.id] = service
            found.append(
                policy.Candidate(
                    memory=memory,
                    score=hit.score,
                    share=hit.share,
                    similarity=hit.similarity,
                    relative=hit.score / best if best > 0 else 0.0,
                    words=policy.matched_words(terms, hit.matched) if rank <= 8 else (),
                    rank=rank,
                    spread=spread,
                )
            )
    used = modes[0] if len(set(modes)) == 1 else ("mixed" if modes else "fts")
    return found, owner, used, lexical_why
