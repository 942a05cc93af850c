"""`graphit agent hook session-start|prompt`: what an agent's hooks print into its context.

Claude Code runs a hook command in the project, hands it the event as JSON on stdin (a
UserPromptSubmit event's `prompt` field is what the user typed), and adds what the command
prints on stdout to the model's context. Gemini CLI does the same for its BeforeAgent and
SessionStart events, but reads stdout as JSON: `--for gemini` wraps the Markdown as
`{"hookSpecificOutput": {"additionalContext": ...}}`. So the hooks print Markdown, or nothing:
- outside a graphit project (no graphit.lock.json up the tree, no GRAPHIT_PROJECT_ID);
- at user level when the project installed its own hook for the event (no second recall);
- `session-start` with no mandatory memory; `prompt` with no match, a blank prompt, or
  GRAPHIT_PROMPT_RECALL=0 (the opt-out).
A hook never exits 2 (Claude Code reads 2 as "block this prompt"): an error is one line on
stderr and exit 1, which the client shows and goes on.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from graphit_cli.cli.common import note, out

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, SearchHit

ENV_PROMPT_RECALL = "GRAPHIT_PROMPT_RECALL"
PROMPT_HITS = 3  # a few at most: every prompt pays for them
BODY_CHARS = 280

F = TypeVar("F", bound=Callable[..., Any])


def never_blocks(fn: F) -> F:
    """Any error: `Error: ...` on stderr, exit 1 (a hook's exit 2 would block the prompt)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from graphit_cli import config
        from graphit_cli.errors import GraphitError

        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except GraphitError as exc:
            if config.debug():
                raise
            note(f"Error: graphit hook: {exc.message}")
        except Exception as exc:  # a hook must not take the session down
            if config.debug():
                raise
            note(f"Error: graphit hook: {type(exc).__name__}: {exc}")
        raise typer.Exit(1)

    return wrapper  # type: ignore[return-value]


def in_project(cwd: Path | None = None) -> Path | None:
    """The project root (or the working directory, for GRAPHIT_PROJECT_ID); None outside."""
    from graphit_cli import config
    from graphit_cli.access.scopes import find_project_lock

    here = cwd or Path.cwd()
    lock = find_project_lock(here)
    if lock is not None:
        return lock.parent
    return here if os.environ.get(config.ENV_PROJECT_ID, "").strip() else None


SETTINGS = {"claude-code": ".claude/settings.json", "gemini": ".gemini/settings.json"}
EVENTS = {"claude-code": "UserPromptSubmit", "gemini": "BeforeAgent"}


def project_has_own(root: Path, event: str, client: str = "claude-code") -> bool:
    """The project's settings (.claude/ or .gemini/) run graphit's hook for `event` itself."""
    try:
        text = (root / SETTINGS[client]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    from graphit_cli.agents import jsonc

    try:
        groups = jsonc.loads(text).get("hooks", {}).get(event, [])
    except (jsonc.JsoncError, AttributeError):
        return False
    from graphit_cli.agents.clients import is_our_hook

    return any(
        is_our_hook(h)
        for g in (groups if isinstance(groups, list) else [])
        if isinstance(g, dict)
        for h in (g.get("hooks") or [])
    )


def _silent(event: str, user_level: bool, client: str) -> Path | None:
    """The project root when the hook has something to do; None when it stays silent."""
    root = in_project()
    if root is None:
        return None
    if user_level and project_has_own(root, event, client):
        return None
    return root


def emit(text: str, event: str, client: str) -> None:
    """`text` into the client's context: plain for Claude Code, JSON for Gemini CLI."""
    if client == "gemini":
        found = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        out(json.dumps(found, ensure_ascii=False) + "\n")
    else:
        out(text)


def session_start(user_level: bool, client: str = "claude-code") -> None:
    """Every mandatory memory of the project, the user scope and the recall contexts."""
    root = _silent("SessionStart", user_level, client)
    if root is None:
        return
    from graphit_cli import anchors
    from graphit_cli.cli.client import recall_across
    from graphit_cli.formats import render
    from graphit_cli.portability import across

    scopes, _ = across.recall_scopes()
    result = recall_across(scopes, None, top_k=0)
    if not result.mandatory:
        return
    where = ", ".join(result.scopes)
    parts = [f"## Mandatory memories ({len(result.mandatory)}) from {where}\n"]
    with render.staleness(anchors.check(result.mandatory, root, detail=False)):
        parts += [render.to_markdown(m, [render.scope_field(m)]) for m in result.mandatory]
    emit("\n".join(parts), "SessionStart", client)


def prompt(user_level: bool, stdin: str, client: str = "claude-code") -> None:
    """The memories the prompt is about: matches only, mandatory ones left out, a few."""
    if os.environ.get(ENV_PROMPT_RECALL, "").strip().lower() in ("0", "false", "no", "off"):
        return
    try:
        event = json.loads(stdin) if stdin.strip() else {}
    except ValueError:
        event = {"prompt": stdin}  # a client that sends the text alone
    text = event.get("prompt") if isinstance(event, dict) else None
    if not isinstance(text, str) or not text.strip() or text.lstrip().startswith("/"):
        return
    root = _silent(EVENTS[client], user_level, client)
    if root is None:
        return
    hits = _search(text[:2000])
    if hits:
        from graphit_cli import anchors

        # This checkout's, never stored; without git calls (a process per prompt).
        stale = anchors.check([h.memory for h in hits], root, detail=False)
        emit(render_hits(hits, stale), EVENTS[client], client)


def _search(query: str) -> list[SearchHit]:
    from graphit_cli.core.models import MemoryFilter
    from graphit_cli.daemon import wire
    from graphit_cli.portability import across

    scopes, _ = across.recall_scopes()
    if not scopes:
        return []
    flt = MemoryFilter()
    args: dict[str, Any] = {
        "top_k": PROMPT_HITS,
        "exclude_mandatory": True,
        "include_deleted": False,
        "mode": "auto",
    }
    from graphit_cli.cli.client import ask_daemon

    request = {
        "op": "across",
        "what": "search",
        "scopes": [str(s) for s in scopes],
        "query": query,
        "filter": wire.filter_to_wire(flt),
        **args,
    }
    served = ask_daemon(request, scopes)
    if served is not None:
        return list(wire.search_from_wire(served["result"]).hits)
    from graphit_cli.opening import open_reader

    # Without a daemon, lexical matching only: loading the embedding model would cost every
    # prompt a second or more. The daemon answers with hybrid search.
    args["mode"] = "fts"
    services = [open_reader(s) for s in scopes]
    return list(across.search(services, query, flt=flt, **args).hits)


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


def read_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()
