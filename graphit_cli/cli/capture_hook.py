"""`graphit agent hook capture --event EVENT`: the capture request, in the form the event reads.

A module of its own, standard library and light graphit modules only (no Typer, no LanceDB), so
the hook costs little at a Stop (the end of every turn) and a fast dispatch can call `run`
before Typer loads. `graphit_cli.recall.capture` decides whether to ask and says what; this
adapter reads the event, stays silent where it should, and prints:
- Claude Code PreCompact: plain text (the summariser's extra instructions);
- Claude Code Stop (and events like it): `hookSpecificOutput.additionalContext`, which reaches
  the model without an error (a "decision": "block" would be one);
- Gemini CLI (`--for gemini`): `systemMessage`, the only field its PreCompress and SessionEnd
  read (shown to the user).
A manual compression (Gemini CLI's PreCompress with trigger "manual") empties the session's
shown-set: the agent lost what it was shown (Claude Code says so with its session start, which
`warm/hook.py` reads). Silent outside a graphit project, and with --user in a project whose own
settings run the same hook. An event that cannot be read (not UTF-8, JSON nested too deeply)
is silent with exit 0; an error is one line on stderr and exit 1, never 2 (Claude Code reads 2
as "block"), in words.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from graphit_cli import environ
from graphit_cli.core import events

# The events whose plain stdout the client reads (the others take JSON).
PLAIN = (events.PRE_COMPACT, events.SESSION_START, events.USER_PROMPT_SUBMIT)


def run(event: str, user_level: bool, client: str, stdin: str | bytes) -> int:
    """Print the capture request for `event` (or nothing); the exit code, 0 or 1."""
    from graphit_cli import config

    try:
        text = _answer(event, user_level, client, stdin)
    except Exception as exc:  # a hook must never take the session down, nor block it
        if config.debug():
            raise
        from graphit_cli.errors import in_words

        message = getattr(exc, "message", None) or in_words(exc)
        sys.stderr.write(f"Error: graphit hook: {message}\n")
        return 1
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def _answer(event: str, user_level: bool, client: str, stdin: str | bytes) -> str:
    try:
        if isinstance(stdin, bytes):
            stdin = stdin.decode("utf-8")
        payload = json.loads(stdin) if stdin.strip() else {}
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past reading: silent
        payload = {}
    payload = payload if isinstance(payload, dict) else {}
    root = _project()
    if root is None or (user_level and _project_has_own(root, event, client)):
        return ""
    from graphit_cli.recall.capture import capture

    session = payload.get("session_id")
    if (
        event == events.PRE_COMPRESS
        and payload.get("trigger") == "manual"
        and isinstance(session, str)
    ):
        from graphit_cli.recall import session as sessions

        sessions.mark(client, session, [], reset=True)  # compressed: what it was shown is gone
    text = capture(event, client, session if isinstance(session, str) else None, payload)
    if not text:
        return ""
    if client == "gemini":
        return json.dumps({"systemMessage": text}, ensure_ascii=False) + "\n"
    if event in PLAIN:
        return text if text.endswith("\n") else text + "\n"
    found = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(found, ensure_ascii=False) + "\n"


def _project() -> Path | None:
    """The project root (or the working directory, for GRAPHIT_PROJECT_ID); None outside."""
    from graphit_cli import config

    here = Path.cwd()
    lock = config.find_project_lock(here)
    if lock is not None:
        return lock.parent
    return here if os.environ.get(environ.ENV_PROJECT_ID, "").strip() else None


def _project_has_own(root: Path, event: str, client: str) -> bool:
    """The project's settings run graphit's hook for `event` themselves (only asked at user
    level)."""
    from graphit_cli.warm.calls import project_has_own

    return project_has_own(root, event, client)


def read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()
