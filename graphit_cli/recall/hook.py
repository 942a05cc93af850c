"""The hooks' entry points: what a prompt, a session start and a capture moment get.

The hot path calls `prompt_answer` and `session_answer` from its operation table, in the
daemon (hybrid search, the model warm) or in-process (the hook's own process), with the
recall scopes' services in recall order. Everything the hooks decide lives behind them:
the user's words (`prompt`), the gate and the choice (`policy`), once per session
(`session`), dates and the budget (`render`), and the recalls log (`log`). They return a
`Delivery` (the Markdown to inject, "" for nothing, and what it shows) and never raise for a
memory they cannot judge; shown means printed: only the process that printed a Delivery
`record`s it (the session's shown-set, one log entry with the outcome), never the warm
process that computed it. The capture request (`capture.py`) asks `wrote_since` whether
the session wrote memories.

The prompt's candidates, with the evidence the policy reads, are gathered in `candidates.py`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphit_cli.recall import candidates as gathering
from graphit_cli.recall import log, policy, render
from graphit_cli.recall import prompt as prompts
from graphit_cli.recall import session as sessions

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory
    from graphit_cli.service.memory import MemoryService

# The search mode of the hook run in its own process (no warm process): by meaning too, the
# model loaded there (`candidates.query_vector`), or by words when it cannot load (logged).
COLD_MODE = "auto"
LOGGED_LEFT = 8  # candidates left out, logged per prompt (the best first)
RIVAL_POOL = 8  # memories read on a shown memory's subject (and of the prompt's best), to find
# a newer one that says otherwise


@dataclass(frozen=True)
class PromptRequest:
    """One hook call: the prompt as the client sent it and where it comes from."""

    prompt: str
    session_id: str | None = None
    client: str = "claude-code"  # or "gemini"
    root: str | None = None  # the caller's checkout (absolute), for read-time checks
    mode: str = "auto"  # the search mode: "fts" where no model is loaded
    event: str = ""  # the client's event name (capture: PreCompact, Stop, SessionEnd, ...)
    stop_hook_active: bool = False  # Claude Code: this Stop follows a Stop hook's request
    until: float | None = None  # time.monotonic() by which to answer (a cold hook's budget)


def request_from_event(
    event: dict[str, Any], client: str, root: str | os.PathLike[str] | None, mode: str = "auto"
) -> PromptRequest:
    """The request for a hook event as Claude Code or Gemini CLI sends it (`prompt`,
    `session_id`, `hook_event_name`, Claude Code's `stop_hook_active`)."""
    text = event.get("prompt")
    session = event.get("session_id")
    return PromptRequest(
        prompt=text if isinstance(text, str) else "",
        session_id=session if isinstance(session, str) and session.strip() else None,
        client=client,
        root=os.fspath(root) if root is not None else None,
        mode=mode,
        event=str(event.get("hook_event_name") or ""),
        stop_hook_active=event.get("stop_hook_active") is True,
    )


@contextmanager
def _one_view(services: list[MemoryService]) -> Iterator[None]:
    """One hook call's reads of each scope at one version (`Store.snapshot`): one look for
    newer commits (a LIST on S3) and one grant confirmation per scope, not one per read (the
    search, then each shown memory's subject)."""
    with ExitStack() as views:
        for service in services:
            views.enter_context(service.store.snapshot())
        yield


def _newer_of(pool: list[Memory], owner: dict[str, MemoryService]) -> policy.Rivals:
    """Memories -> each one's newer live memories on its subject that say otherwise, newest
    first, among `pool` and the memory's own neighbours: the live rows a lexical search on its
    title finds first, read from the store by BM25, not by a search (whose match rule, chains
    and selection add nothing the detector needs, at twice the cost). The subjects are read at
    once, each on a thread of its own in the caller's snapshot (the index queries leave the
    GIL: three subjects cost little more than one)."""
    from graphit_cli.core import contradiction
    from graphit_cli.threads import Pending

    pooled = {m.id for m in pool}

    def neighbours(service: MemoryService, memory: Memory) -> list[Memory]:
        """The live rows best matching `memory`'s title (one index query), less those of a
        chain a delete closed (a phantom row is nobody's belief). Only a row the detector
        would name is looked up for that (a read of its chain's end): a row that is no rival
        changes nothing whether its chain is closed or not, and most subjects have none."""
        try:
            rows = service.store.search_text(
                memory.title, RIVAL_POOL, live_only=True, vector_flags=False
            )
            near = [gathering.label(h.row, service) for h in rows]
            named = [m.id for m in near if m.id not in pooled and contradiction.is_rival(memory, m)]
            closed = service.store.deleted_ids(named) if named else set()
        except Exception:  # the subject's neighbours are a bonus, never a failure
            return []
        return [m for m in near if m.id not in closed]

    def newer(memories: Sequence[Memory]) -> dict[str, list[Memory]]:
        reads = {
            m.id: Pending(functools.partial(neighbours, owner[m.id], m), name="graphit-subject")
            for m in memories
            if m.id in owner
        }
        rivals: dict[str, list[Memory]] = {}
        for memory in memories:
            near = reads[memory.id].result() if memory.id in reads else []
            unique = {m.id: m for m in [*pool, *near]}
            rivals[memory.id] = policy.newer_rivals(memory, list(unique.values()))
        return rivals

    return newer


def stale_notes(memories: list[Memory], root: str | None) -> dict[str, str]:
    """Memory id -> what its line says when an anchor it names no longer holds in the
    caller's checkout (`root`): `anchors.check` (no git process: a hook per prompt)
    and `hook_note`. {} without a checkout."""
    if root is None or not memories:
        return {}
    from graphit_cli import anchors

    found = anchors.check(memories, root, detail=False)
    return {mid: anchors.hook_note(broken) for mid, broken in found.items() if broken}


def _entry(c: policy.Candidate, why: str | None = None) -> dict[str, Any]:
    m = c.memory
    item: dict[str, Any] = {
        "id": m.id,
        "title": m.title,
        "date": render.date(m),
        "scope": f"{m.scope_kind}:{m.scope_id}",
        "score": round(c.score, 3),
        "similarity": None if c.similarity is None else round(c.similarity, 3),
        "share": None if c.share is None else round(c.share, 3),
        "words": list(c.words),
    }
    if why:
        item["why"] = why
    return item


@dataclass(frozen=True)
class Delivery:
    """What a hook call would print, before anyone printed it: the Markdown, the memories it
    shows ((id, revision), for the session's shown-set) and the recalls log's entry (without
    its outcome). Only the process that prints it records it (`record`): a warm process
    computes a Delivery and returns it, the hook prints it, then marks and logs."""

    text: str
    shown: list[tuple[str, int]]
    entry: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "shown": [list(s) for s in self.shown], "entry": self.entry}


def prompt_answer(services: list[MemoryService], request: PromptRequest) -> Delivery:
    """The Markdown the prompt gets ("" for nothing) and what it shows; nothing is marked or
    logged here (`record` does, in the process that printed it)."""
    entry: dict[str, Any] = {
        "event": "prompt",
        "client": request.client,
        "session": request.session_id,
        "prompt": prompts.excerpt(request.prompt),
    }
    query = prompts.query_text(request.prompt)
    if not query or query.startswith("/") or not services:
        return Delivery("", [], entry)
    state = sessions.load(request.client, request.session_id)
    with _one_view(services):
        candidates, owner, used, lexical_why = gathering.gather(
            services, query, request.mode, request.until
        )
        # The rival detector reads each memory's words: the prompt's best few candidates and
        # the subject's own neighbours (`_newer_of`) are where a newer belief is, not all ~200.
        pool = [c.memory for c in sorted(candidates, key=lambda c: -c.score)[:RIVAL_POOL]]

        def seen(memory: Memory) -> bool:
            return state is not None and state.seen(memory.id, memory.revision)

        choice = policy.choose(query, candidates, seen, _newer_of(pool, owner))
        shown = [c.memory for c in choice.shown]
        text = render.prompt_block(shown, choice.newer, stale_notes(shown, request.root))
    entry |= {
        "mode": used,
        **({"lexical": lexical_why} if lexical_why and used == "fts" else {}),
        "query_chars": len(query),
        "injected": [_entry(c) for c in choice.shown],
        "left": [_entry(c, why) for c, why in choice.left[:LOGGED_LEFT]],
        "chars": len(text),
    }
    return Delivery(text, [(m.id, m.revision) for m in shown], entry)


def session_answer(services: list[MemoryService], request: PromptRequest) -> Delivery:
    """Every mandatory memory of the recall scopes, compact; they count as shown once
    printed (`record`)."""
    from graphit_cli.service import mandatory as blocks

    mandatory: list[Memory] = []
    seen: set[str] = set()
    for service in services:  # each scope's as `across.mandatory` reads them, kept as its block
        for memory in blocks.refresh(service.store, service.scope):
            if memory.content_hash not in seen:
                seen.add(memory.content_hash)
                mandatory.append(gathering.label(memory, service))
    text = render.session_block(mandatory, stale_notes(mandatory, request.root))
    entry = session_entry(request.client, request.session_id, mandatory, len(text))
    return Delivery(text, [(m.id, m.revision) for m in mandatory], entry)


def session_entry(
    client: str, session_id: str | None, mandatory: Sequence[Memory], chars: int
) -> dict[str, Any]:
    return {
        "event": "session-start",
        "client": client,
        "session": session_id,
        "injected": [
            {"id": m.id, "title": m.title, "date": render.date(m), "why": "mandatory"}
            for m in mandatory
        ],
        "chars": chars,
    }


def record(
    delivery: Delivery,
    client: str,
    session_id: str | None,
    outcome: str,
    *,
    reset: bool = False,
    **details: Any,
) -> None:
    """After the hook printed `delivery` (outcome "shown"), or printed nothing ("nothing",
    "late", "failed"): the shown-set marked (only for "shown"; `reset` first: a compaction)
    and one log entry with the outcome. The session's state is kept even when nothing was
    shown: its start is when the capture request asks whether the session wrote memories.
    Never raises."""
    shown = delivery.shown if outcome == "shown" else []
    sessions.mark(client, session_id, shown, reset=reset)
    log.append({**delivery.entry, "outcome": outcome, **details})


def prompt_context(services: list[MemoryService], request: PromptRequest) -> str:
    """`prompt_answer`, printed by the caller: marked as shown and logged here."""
    found = prompt_answer(services, request)
    record(found, request.client, request.session_id, "shown" if found.text else "nothing")
    return found.text


def session_context(services: list[MemoryService], request: PromptRequest) -> str:
    """`session_answer`, printed by the caller: marked as shown and logged here."""
    found = session_answer(services, request)
    record(found, request.client, request.session_id, "shown" if found.text else "nothing")
    return found.text


# --- for the capture request (recall/capture.py) ----------------------------------------------


def wrote_since(services: list[MemoryService], started: float) -> bool:
    """A live memory of the recall scopes was written after `started` (epoch seconds)."""
    since_us = int(started * 1_000_000)
    for service in services:
        try:
            if any(s.updated_us >= since_us for s in service.store.live_index()):
                return True
        except Exception:  # a scope that cannot answer does not make the request wrong
            continue
    return False
