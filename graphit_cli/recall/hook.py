"""The hooks' work: which memories a session start and a prompt bring into the agent's context.

`prompt_context` and `session_context` are what the per-prompt and the session-start hooks
print (Markdown; "" for nothing). They run wherever the hook is answered: in a warm process
(the daemon, an agent session's warm server) or in the hook's own process when none answers
(`warm/ops.py` calls them in both). `services` are the recall scopes' services in recall order
(the project, the user scope, the recall contexts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, SearchHit
    from graphit_cli.service.memory import MemoryService

PROMPT_HITS = 3  # a few at most: every prompt pays for them
BODY_CHARS = 280
# What of a prompt is searched: a pasted log's end is where the question is, and the query's
# embedding never reads more than this many characters whatever was pasted (e5-small on a
# loaded 2-core machine: 300 characters ~0.14 s, 1,000 ~0.67 s; benchmarks/prompt_hook.py).
QUERY_CHARS = 300


@dataclass(frozen=True)
class PromptRequest:
    prompt: str
    session_id: str | None = None
    client: str = "claude-code"  # or "gemini"
    root: str | None = None  # the checkout the hook runs in (absolute)
    mode: str = "auto"  # "fts" in a cold hook process: no model load on a prompt


def query_of(prompt: str) -> str:
    """The bounded piece of a prompt that is searched (its end when it is long)."""
    text = prompt.strip()
    return text if len(text) <= QUERY_CHARS else text[-QUERY_CHARS:]


def prompt_context(services: list[MemoryService], request: PromptRequest) -> str:
    """The memories the prompt is about: matches only, mandatory ones left out, a few."""
    from graphit_cli.core.models import MemoryFilter
    from graphit_cli.portability import across

    if not services:
        return ""
    found = across.search(
        services,
        query_of(request.prompt),
        flt=MemoryFilter(),
        top_k=PROMPT_HITS,
        exclude_mandatory=True,
        include_deleted=False,
        mode=request.mode,  # type: ignore[arg-type]
    )
    if not found.hits:
        return ""
    from graphit_cli import anchors

    # The caller's checkout's, never stored; without git calls (a process per prompt).
    stale = anchors.check([h.memory for h in found.hits], request.root, detail=False)
    return render_hits(list(found.hits), stale)


def session_context(services: list[MemoryService], request: PromptRequest) -> str:
    """Every mandatory memory of the project, the user scope and the recall contexts."""
    from graphit_cli.formats import render
    from graphit_cli.portability import across

    memories = across.mandatory(services)
    if not memories:
        return ""
    from graphit_cli import anchors

    where = ", ".join(str(s.scope) for s in services)
    parts = [f"## Mandatory memories ({len(memories)}) from {where}\n"]
    with render.staleness(anchors.check(memories, request.root, detail=False)):
        parts += [render.to_markdown(m, [render.scope_field(m)]) for m in memories]
    return "\n".join(parts)


def render_hits(hits: list[SearchHit], stale: Mapping[str, Any] | None = None) -> str:
    from graphit_cli.anchors import hook_note

    lines = [f"## Memories on this prompt ({len(hits)}, from graphit)", ""]
    for hit in hits:
        broken = (stale or {}).get(hit.memory.id)
        lines.append(_line(hit.memory) + (f" ({hook_note(broken)})" if broken else ""))
    lines += ["", "Read one in full with graphit_memory_source (or `graphit memory source ID`)."]
    return "\n".join(lines) + "\n"


def _line(memory: Memory) -> str:
    body = " ".join(memory.body.split())
    if len(body) > BODY_CHARS:
        body = body[: BODY_CHARS - 1].rstrip() + "…"
    flags = "".join(f", {f}" for f in ("important",) if memory.important)
    where = f"{memory.scope_kind}:{memory.scope_id}" if memory.scope_kind else "project"
    head = f"- **{memory.title}** (`{memory.id}`, {memory.type}, {where}{flags})"
    return f"{head}: {body}" if body else head
