"""`graphit agent hook prompt|session-start`: the hooks' command, on the thin path.

It runs before Typer is imported (`cli/__init__.py` hands it the arguments first): it reads the
event, finds the project the agent works in (with the standard library), asks a warm process
(`client.py`: the daemon, else an agent session's warm server) to run the hook's operation
(`ops.py` "hook"), and prints the answer. When none answers in time it runs the same operation
in this process (by meaning too: the model loads there).

Budgets, fail open: the per-prompt hook prints within PROMPT_BUDGET seconds or prints nothing
and exits 0 (a watchdog thread ends the process at the budget, unless the answer is being
written); session start within SESSION_BUDGET. The warm process gets WARM_SHARE of it; one that
did not answer is remembered (`client.py`), so the next prompts do not wait for it again.

What the hooks print, and when they stay silent (README, "Agents"): nothing outside a graphit
project, at user level where the project installed its own hook, for a blank or slash-command
prompt, or with GRAPHIT_PROMPT_RECALL=0. Claude Code adds stdout to the model's context; Gemini
CLI reads a JSON object (`--for gemini`). A hook never exits 2 (Claude Code reads 2 as "block
this prompt"): an error is one line on stderr and exit 1.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

# `typing` stays unloaded on the hook's path (~5 ms): annotations only, for the type checker.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROMPT_BUDGET = 0.8  # seconds from the start of `main`: the client's 1 s, less a loaded start
SESSION_BUDGET = 1.8
ENV_HOOK_BUDGET = "GRAPHIT_HOOK_BUDGET"  # config.ENV_HOOK_BUDGET: the prompt's, session 2x
WARM_SHARE = 0.85  # of the budget, for a warm process: a cold run after it would need ~0.5 s
# anyway, so a warm process that is there gets nearly all of it
ENV_PROMPT_RECALL = "GRAPHIT_PROMPT_RECALL"  # config.ENV_PROMPT_RECALL (no config import here)
EVENTS = {"claude-code": "UserPromptSubmit", "gemini": "BeforeAgent"}
FOR = ("claude-code", "gemini")


def parse_argv(argv: list[str]) -> tuple[str, bool, str] | None:
    """(event, user level, client) for `agent hook EVENT [--user] [--for CLIENT]`; None for
    anything else (Typer then parses it, and says what is wrong)."""
    if len(argv) < 3 or argv[:2] != ["agent", "hook"] or argv[2] not in ("prompt", "session-start"):
        return None
    user, client = False, "claude-code"
    rest = argv[3:]
    while rest:
        word = rest.pop(0)
        if word == "--user":
            user = True
        elif word == "--for" and rest:
            client = rest.pop(0).strip().lower()
        elif word.startswith("--for="):
            client = word.removeprefix("--for=").strip().lower()
        else:
            return None
    return (argv[2], user, client) if client in FOR else None


class Outlet:
    """What the hook prints, once: either its answer or, at the budget, nothing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def watch(self, seconds: float) -> None:
        """End the process with exit 0 and nothing printed once `seconds` have passed, unless
        the answer is being written by then."""

        def expire() -> None:
            if self._lock.acquire(blocking=False):
                os._exit(0)

        timer = threading.Timer(seconds, expire)
        timer.daemon = True
        timer.start()

    def write(self, text: str) -> None:
        if not self._lock.acquire(blocking=False):
            return
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()


def budgets() -> tuple[float, float]:
    """(the prompt's, the session start's) budget in seconds: GRAPHIT_HOOK_BUDGET (a
    positive number) for the prompt and twice it for the session start, else the defaults."""
    try:
        given = float(os.environ.get(ENV_HOOK_BUDGET, ""))
    except ValueError:
        return PROMPT_BUDGET, SESSION_BUDGET
    return (given, 2 * given) if 0 < given < 3600 else (PROMPT_BUDGET, SESSION_BUDGET)


def main(argv: list[str], *, watchdog: bool = True) -> int | None:
    """The hook's exit code; None when `argv` is not a hook command."""
    parsed = parse_argv(argv)
    if parsed is None:
        return None
    event, user_level, client = parsed
    return run(event, user_level, client, None, watchdog=watchdog)


def run(event: str, user_level: bool, client: str, stdin: str | None, *, watchdog: bool) -> int:
    """The hook; `stdin` None: read here, within the budget (a client that never closes it
    holds no prompt)."""
    started = time.monotonic()
    budget = budgets()[0 if event == "prompt" else 1]
    outlet = Outlet()
    if watchdog:
        outlet.watch(budget)
    if stdin is None:
        stdin = read_stdin()
    try:
        text = _answer(
            event, user_level, client, stdin, started + budget * WARM_SHARE, started + budget
        )
    except Exception as exc:  # a hook must not take the session down, nor block a prompt
        if os.environ.get("GRAPHIT_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
            raise
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        sys.stderr.write(f"Error: graphit hook: {message}\n")
        return 1
    if text:
        name = EVENTS[client] if event == "prompt" else "SessionStart"
        if client == "gemini":
            found = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
            text = json.dumps(found, ensure_ascii=False) + "\n"
    outlet.write(text)
    return 0


def _answer(
    event: str,
    user_level: bool,
    client: str,
    stdin: str,
    warm_until: float,
    until: float | None = None,
) -> str:
    prompt, session_id = "", None
    if event == "prompt":
        if os.environ.get(ENV_PROMPT_RECALL, "").strip().lower() in ("0", "false", "no", "off"):
            return ""
        try:
            given = json.loads(stdin) if stdin.strip() else {}
        except ValueError:
            given = {"prompt": stdin}  # a client that sends the text alone
        text = given.get("prompt") if isinstance(given, dict) else None
        if not isinstance(text, str) or not text.strip() or text.lstrip().startswith("/"):
            return ""
        prompt = text
    else:
        try:
            given = json.loads(stdin) if stdin.strip() else {}
        except ValueError:
            given = {}
    if isinstance(given, dict) and isinstance(given.get("session_id"), str):
        session_id = given["session_id"]
    where = project()
    if where is None:
        return ""
    root, project_id = where
    fields: dict[str, Any] = {
        "op": "hook",
        "event": event,
        "client": client,
        "prompt": prompt,
        "session_id": session_id,
        "root": root,
        "project": f"project:{project_id}",
        "user_level": user_level,
    }
    if os.environ.get("GRAPHIT_NO_DAEMON", "").strip().lower() not in ("1", "true", "yes", "on"):
        from graphit_cli.warm.client import ask

        found = ask(fields, warm_until)
        if found is not None and isinstance(found.get("text"), str):
            return str(found["text"])
    return in_process(fields, until)


def project() -> tuple[str, str] | None:
    """(the checkout's root, the project id) as `access.scopes.current_project_id` finds
    them (GRAPHIT_PROJECT_ID first, else graphit.lock.json here or above); None outside a
    project. A broken lock file raises InvalidInput with the command's own message."""
    from graphit_cli.core.ids import validate_ulid

    here = os.path.realpath(os.getcwd())
    lock = None
    directory = here
    while True:
        candidate = os.path.join(directory, "graphit.lock.json")
        if os.path.isfile(candidate):
            lock = candidate
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    override = os.environ.get("GRAPHIT_PROJECT_ID", "").strip()
    if override:
        return (os.path.dirname(lock) if lock else here), validate_ulid(
            override, "GRAPHIT_PROJECT_ID"
        )
    if lock is None:
        return None
    try:
        with open(lock, encoding="utf-8") as handle:
            raw = json.load(handle)["project"]["id"]
        return os.path.dirname(lock), validate_ulid(raw)
    except Exception:  # the command's own reader says what is wrong, in its words
        from pathlib import Path

        from graphit_cli.access.scopes import read_project_id

        return os.path.dirname(lock), read_project_id(Path(lock))


def checkout() -> str:
    """The caller's checkout: the directory of the graphit.lock.json here or above, else the
    working directory (absolute)."""
    here = os.path.realpath(os.getcwd())
    directory = here
    while True:
        if os.path.isfile(os.path.join(directory, "graphit.lock.json")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return here
        directory = parent


def in_process(fields: dict[str, Any], until: float | None = None) -> str:
    """The hook's operation in this process, searching by meaning as a warm process does
    (`recall.hook.COLD_MODE`: the model loads here, ~0.15 s; by words alone, said in the
    recalls log, when it cannot or when too little of the budget is left by `until`, a
    `time.monotonic()` deadline)."""
    from graphit_cli import config
    from graphit_cli.opening import open_reader
    from graphit_cli.recall.hook import COLD_MODE
    from graphit_cli.warm import ops

    config.validate()  # a bad setting is the command's error, as in every command
    call = ops.parse_hook(fields)
    return ops.run_hook(lambda s: open_reader(s), call, mode=COLD_MODE, until=until)


def read_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()
