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

The installed command never reaches Typer: `cli/__init__.py` hands it to `warm/hook.py` first
(a warm process's answer, else the same operation in-process, within the hook's budget). These
functions are the same path behind the Typer commands (`cli/agents.py`), for a spelling the
fast dispatch leaves to Typer and for tests that run the app in-process.
"""

from __future__ import annotations

from pathlib import Path

import typer

from graphit_cli.core.events import PROMPT_EVENT
from graphit_cli.warm import calls
from graphit_cli.warm.hook import read_stdin as read_stdin

SETTINGS = calls.SETTINGS


def project_has_own(root: Path, event: str, client: str = "claude-code") -> bool:
    """The project's settings (.claude/ or .gemini/) run graphit's hook for `event` itself."""
    hook = "prompt" if event in PROMPT_EVENT.values() else "session-start"
    return calls.project_has_own(root, hook, client)


def run(event: str, user_level: bool, client: str, stdin: str | bytes) -> None:
    """The hook in this process's app (no watchdog: the process is the caller's)."""
    from graphit_cli.warm import hook

    code = hook.run(event, user_level, client, stdin, watchdog=False)
    if code:
        raise typer.Exit(code)


def session_start(user_level: bool, client: str = "claude-code") -> None:
    """Every mandatory memory of the project, the user scope and the recall contexts."""
    run("session-start", user_level, client, read_stdin())


def prompt(user_level: bool, stdin: str | bytes, client: str = "claude-code") -> None:
    """The memories the prompt is about: matches only, mandatory ones left out, a few."""
    run("prompt", user_level, client, stdin)
