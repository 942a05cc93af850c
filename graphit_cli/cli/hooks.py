"""`graphit agent hook session-start|prompt`: what an agent's hooks print into its context.

Claude Code runs a hook command in the project, hands it the event as JSON on stdin (a
UserPromptSubmit event's `prompt` field is what the user typed), and adds what the command
prints on stdout to the model's context. Gemini CLI does the same for its BeforeAgent and
SessionStart events, but reads stdout as JSON: `--for gemini` wraps the Markdown as
`{"hookSpecificOutput": {"additionalContext": ...}}`. So the hooks print Markdown, or nothing:
- outside a graphit project (no graphit.lock.json up the tree, no GRAPHIT_PROJECT_ID);
- at user level when the project installed its own hook for the event (no second recall);
- `session-start` with no mandatory memory; `prompt` when nothing clears the recall gate
  or everything that does was shown earlier in the session (graphit_cli/recall/), a blank
  prompt, or GRAPHIT_PROMPT_RECALL=0 (the opt-out).
A hook never exits 2 (Claude Code reads 2 as "block this prompt"): an error is one line on
stderr and exit 1, which the client shows and goes on.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from graphit_cli.cli.common import note, out

if TYPE_CHECKING:
    from graphit_cli.core.models import SearchResult
    from graphit_cli.service.memory import MemoryService

ENV_PROMPT_RECALL = "GRAPHIT_PROMPT_RECALL"

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


def _services() -> list[MemoryService]:
    """The recall scopes' services, read-only (a read never creates a table)."""
    from graphit_cli.access.opening import open_reader
    from graphit_cli.portability import across

    scopes, _ = across.recall_scopes()
    return [open_reader(s) for s in scopes]


def session_start(user_level: bool, client: str = "claude-code", stdin: str = "") -> None:
    """Every mandatory memory of the project, the user scope and the recall contexts (they
    count as shown for the session: `graphit_cli.recall.hook.session_context`)."""
    root = _silent("SessionStart", user_level, client)
    if root is None:
        return
    from graphit_cli.recall.hook import parse_event, request_from_event, session_context

    request = request_from_event(parse_event(stdin), client, root)
    text = session_context(_services(), request)
    if text:
        emit(text, "SessionStart", client)


def prompt(user_level: bool, stdin: str, client: str = "claude-code") -> None:
    """The few memories the prompt is about, not shown yet in this session, dated, within a
    budget (`graphit_cli.recall.hook.prompt_context`: the policy and its log)."""
    if os.environ.get(ENV_PROMPT_RECALL, "").strip().lower() in ("0", "false", "no", "off"):
        return
    from graphit_cli.recall.hook import parse_event, prompt_context, request_from_event

    event = parse_event(stdin)
    text = event.get("prompt")
    if not isinstance(text, str) or not text.strip() or text.lstrip().startswith("/"):
        return
    root = _silent(EVENTS[client], user_level, client)
    if root is None:
        return
    # In this process, lexical matching only: loading the embedding model would cost every
    # prompt a second or more. A running daemon searches in hybrid mode; the policy is the same.
    request = request_from_event(event, client, root, mode="fts")
    found = prompt_context(_services(), request, search=_daemon_search)
    if found:
        emit(found, EVENTS[client], client)


def _daemon_search(query: str) -> SearchResult | None:
    """The recall scopes searched by a running daemon (hybrid), every match, mandatory
    memories excluded; None when no daemon answers."""
    from graphit_cli.cli.client import ask_daemon
    from graphit_cli.core.models import MemoryFilter
    from graphit_cli.daemon import wire
    from graphit_cli.portability import across

    scopes, _ = across.recall_scopes()
    if not scopes:
        return None
    request = {
        "op": "across",
        "what": "search",
        "scopes": [str(s) for s in scopes],
        "query": query,
        "filter": wire.filter_to_wire(MemoryFilter()),
        "top_k": 0,
        "exclude_mandatory": True,
        "include_deleted": False,
        "mode": "auto",
    }
    served = ask_daemon(request, scopes)
    return None if served is None else wire.search_from_wire(served["result"])


def read_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()
