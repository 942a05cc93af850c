"""`graphit agent hook prompt|session-start`: the hooks' command, on the thin path.

It runs before Typer is imported (`cli/__init__.py` hands it the arguments first): it reads the
event, finds the project the agent works in (with the standard library), asks a warm process
(`client.py`: the daemon, else an agent session's warm server) to run the hook's operation
(`ops.py` "hook") and, unless one answers at once, runs the same operation in this process too
(`race.py`: the prompt by full-text search alone, no model load on a prompt); it prints the
first answer. Session start first reads the mandatory memories kept beside the tables
(`recall/kept.py`): when they are current it prints them without opening a table.

Shown means printed: the warm process returns the answer with the memories it shows and its
log entry, and records nothing; this process, once it wrote the answer to stdout within the
budget, marks those memories shown for the session and writes the call's one entry in the
recalls log (in a process it starts and leaves, `recording.py`: the client waits for this
process's exit), with its outcome: shown, nothing (nothing relevant), late (the budget ran out:
nothing printed, nothing marked, the time and what it waited for), failed (the cause in words).
A session start after a compaction (Claude Code's source "compact") empties the session's
shown-set first.

Budgets, fail open: the per-prompt hook prints within PROMPT_BUDGET seconds or prints nothing
and exits 0 (a watchdog thread logs the call as late and ends the process at the budget,
unless the answer is being written); session start within SESSION_BUDGET. A warm process that
did not answer is remembered (`client.py`), so the next prompts do not wait for it again; a
cold answer late twice starts a warm process (`warmup.py`). An event that cannot be read (not
UTF-8, JSON nested too deeply) is logged as failed, and the hook exits 0 printing nothing.

What the hooks print, and when they stay silent (README, "Agents"): nothing outside a graphit
project, at user level where the project installed its own hook, for a blank or slash-command
prompt, or with GRAPHIT_PROMPT_RECALL=0. Claude Code adds stdout to the model's context; Gemini
CLI reads a JSON object (`--for gemini`). A hook never exits 2 (Claude Code reads 2 as "block
this prompt"): an error is one line on stderr and exit 1.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time

from graphit_cli.core.events import PROMPT_EVENT, SESSION_START
from graphit_cli.core.flags import flag_value
from graphit_cli.environ import (
    ENV_DEBUG,
    ENV_HOOK_BUDGET,
    ENV_NO_DAEMON,
    ENV_PROMPT_RECALL,
)
from graphit_cli.warm.calls import CLIENTS, HOOK_EVENTS, HookCall, project

# `typing` stays unloaded on the hook's path (~5 ms): annotations only, for the type checker.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Seconds from the process's spawn (the clients' timeouts run from there): the product's 1 s
# for a prompt and 2 s for session start, less the time to write the answer and exit.
PROMPT_BUDGET = 0.9
SESSION_BUDGET = 1.8
KEPT_SECONDS = 0.6  # a session start with a stale kept block: the tables' time to answer
LATE_SECONDS = 10.0  # the watchdog's time to record a late call (a spawn, on a loaded machine)
WARM_SHARE = 0.85  # of the budget, for a warm process: a cold run after it would need ~0.5 s
# anyway, so a warm process that is there gets nearly all of it


def parse_argv(argv: list[str]) -> tuple[str, bool, str] | None:
    """(event, user level, client) for `agent hook EVENT [--user] [--for CLIENT]` (`argv.py`,
    with the command's Typer definition); None for anything else (Typer then parses it, and
    says what is wrong)."""
    if len(argv) < 3 or argv[:2] != ["agent", "hook"] or argv[2] not in HOOK_EVENTS:
        return None
    from graphit_cli.warm.argv import parse

    parsed = parse(f"agent hook {argv[2]}", argv[3:])
    if parsed is None:
        return None
    client = str(parsed[1].get("for_", "claude-code")).strip().lower()
    return (argv[2], bool(parsed[1].get("user")), client) if client in CLIENTS else None


class Outlet:
    """What the hook prints, once: either its answer or, at the budget, nothing.

    At the budget the watchdog ends the process (exit 0, nothing printed) after `late` says
    so in the recalls log, unless the answer is being written by then."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # What the watchdog records before exit (given what ended the call, if not the budget).
        self.late: Callable[[str | None], None] | None = None

    def watch(self, seconds: float) -> None:
        """End the process at `seconds`, or when the client ends it first: a client stops a
        hook past its own timeout with SIGTERM (Claude Code does, measured), and the call is
        logged as late either way."""
        import signal

        timer = threading.Timer(seconds, self.expire)
        timer.daemon = True
        timer.start()
        signal.signal(signal.SIGTERM, lambda _signum, _frame: self.expire("the client's timeout"))

    def expire(self, by: str | None = None) -> None:
        if self._lock.acquire(blocking=False):
            try:
                if self.late is not None:
                    self.late(by)
            finally:
                os._exit(0)

    def write(self, text: str) -> bool:
        """Print `text` unless the budget ran out first; whether it is this call's to print
        (an empty text is "printed" too: nothing to show, in time). When the watchdog took the
        call, this waits for it to end the process (within LATE_SECONDS): returning would end
        the interpreter, and with it the watchdog's thread before its record (CI, loaded)."""
        if not self._lock.acquire(blocking=False):
            self._lock.acquire(timeout=LATE_SECONDS)  # never released: the watchdog exits
            return False
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
        return True


class BadEvent(Exception):
    """The event on stdin cannot be read (not UTF-8, JSON nested past reason): the hook
    fails open, says why in the log, prints nothing and exits 0."""


def budgets() -> tuple[float, float]:
    """(the prompt's, the session start's) budget in seconds: GRAPHIT_HOOK_BUDGET (a
    positive number) for the prompt and twice it for the session start, else the defaults."""
    try:
        given = float(os.environ.get(ENV_HOOK_BUDGET, ""))
    except ValueError:
        return PROMPT_BUDGET, SESSION_BUDGET
    return (given, 2 * given) if 0 < given < 3600 else (PROMPT_BUDGET, SESSION_BUDGET)


def process_age() -> float:
    """Seconds since this process was spawned (Linux's /proc; 0 where unknown), at most 10."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        spawned = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - spawned
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return min(max(age, 0.0), 10.0)


def main(argv: list[str], *, watchdog: bool = True) -> int | None:
    """The hook's exit code; None when `argv` is not a hook command."""
    parsed = parse_argv(argv)
    if parsed is None:
        return None
    event, user_level, client = parsed
    return run(event, user_level, client, None, watchdog=watchdog)


class Call:
    """One hook call, as the recalls log will tell it: its entry so far, and where it is
    (`stage`), so that the watchdog can say what was late."""

    def __init__(self, event: str, client: str, started: float) -> None:
        self.started = started
        self.entry: dict[str, Any] = {"event": event, "client": client, "session": None}
        self.stage = "reading the event"
        self.cold = False  # the answer is being searched in this process
        self.project: str | None = None
        self.root: str | None = None

    def ms(self) -> int:
        return round((time.monotonic() - self.started) * 1000)

    def log(self, outcome: str, **details: Any) -> None:
        from graphit_cli.recall import log

        log.append({**self.entry, "outcome": outcome, **details})

    def record(
        self, found: dict[str, Any], outcome: str, details: dict[str, Any], *, detach: bool = True
    ) -> None:
        """The call's record (`recording.py`): by a process this one starts and leaves (the
        client waits for this one's exit), or here when `detach` is off or none can take it."""
        from graphit_cli.warm.recording import detached, record

        entry = {**self.entry}  # as it is now: the watchdog's thread records while main reads on
        if not (detach and detached(found, entry, outcome, details)):
            record(found, entry, outcome, details)

    def late(self, by: str | None = None) -> None:
        """The budget ran out (or the client ended the call first, `by`): nothing printed,
        nothing marked shown; logged as late (a compaction's session start still empties the
        shown-set: the context lost them either way), and a cold answer late twice starts a
        warm process for the project (`warmup.py`)."""
        details: dict[str, Any] = {"ms": self.ms(), "waiting": self.stage}
        if by:
            details["ended_by"] = by
        # Late with the project known and no warm process waited on: the next prompt would
        # be answered cold again (a start slowed by load counts, as a slow search does).
        cold = self.cold or not self.stage.startswith("a warm process")
        if cold and self.project and self.root:
            from graphit_cli.warm import warmup

            started = warmup.after_late(self.project, self.root)
            if started:
                details["started"] = started
                sys.stderr.write(f"graphit: {started}\n")
        self.record({}, "late", details)


def run(
    event: str, user_level: bool, client: str, stdin: str | bytes | None, *, watchdog: bool
) -> int:
    """The hook; `stdin` None: read here, within the budget (a client that never closes it
    holds no prompt)."""
    # The client's timeout runs from the spawn: a start slowed by a loaded machine spends the
    # budget too, so the watchdog logs the call before the client ends it unrecorded.
    started = time.monotonic() - (process_age() if watchdog else 0.0)
    budget = budgets()[0 if event == "prompt" else 1]
    call = Call(event, client, started)
    outlet = Outlet()
    outlet.late = call.late
    if watchdog:
        outlet.watch(max(0.0, started + budget - time.monotonic()))
    if stdin is None:
        stdin = read_stdin()
    try:
        given = read_event(stdin)
        found = _answer(
            event, user_level, client, given, call, started + budget * WARM_SHARE, started + budget
        )
    except BadEvent as exc:  # fail open: the prompt goes on without memories
        if outlet.write(""):
            call.log("failed", cause=str(exc), ms=call.ms())
        return 0
    except Exception as exc:  # a hook must not take the session down, nor block a prompt
        if flag_value(os.environ.get(ENV_DEBUG)) is True:
            raise
        from graphit_cli.errors import in_words

        message = getattr(exc, "message", None) or in_words(exc)
        if outlet.write(""):
            call.log("failed", cause=message, ms=call.ms())
        sys.stderr.write(f"Error: graphit hook: {message}\n")
        return 1
    if found is None:  # silent by design (no project, opted out, a slash command)
        outlet.write("")
        return 0
    text = str(found.get("text") or "")
    printed = text
    if text:
        name = PROMPT_EVENT[client] if event == "prompt" else SESSION_START
        if client == "gemini":
            wrapped = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
            printed = json.dumps(wrapped, ensure_ascii=False) + "\n"
    if outlet.write(printed):
        details = {"ms": call.ms()}
        call.record(found, "shown" if text else "nothing", details, detach=watchdog)
    return 0


def read_event(stdin: str | bytes) -> dict[str, Any]:
    """The event's JSON object ({} for none; the text alone: `{"prompt": text}`); BadEvent
    when it is not UTF-8 or nests too deeply to read."""
    if isinstance(stdin, bytes):
        try:
            stdin = stdin.decode("utf-8")
        except UnicodeDecodeError:
            raise BadEvent("the event on stdin is not UTF-8 text") from None
    if not stdin.strip():
        return {}
    try:
        given = json.loads(stdin)
    except RecursionError:
        raise BadEvent("the event's JSON nests too deeply to read") from None
    except ValueError:
        return {"prompt": stdin}  # a client that sends the text alone
    return given if isinstance(given, dict) else {}


def _answer(
    event: str,
    user_level: bool,
    client: str,
    given: dict[str, Any],
    call: Call,
    warm_until: float,
    until: float | None = None,
) -> dict[str, Any] | None:
    """The answer ({"text", "shown", "entry"}), or None for a hook that stays silent."""
    prompt, session_id = "", None
    if isinstance(given.get("session_id"), str) and given["session_id"].strip():
        session_id = given["session_id"]
    call.entry["session"] = session_id
    if event == "prompt":
        if flag_value(os.environ.get(ENV_PROMPT_RECALL), default=True) is False:
            return None
        text = given.get("prompt")
        if not isinstance(text, str) or not text.strip() or text.lstrip().startswith("/"):
            return None
        prompt = text
        from graphit_cli.recall.prompt import excerpt

        call.entry["prompt"] = excerpt(prompt)
    elif isinstance(given.get("source"), str):
        call.entry["source"] = given["source"]  # Claude Code: startup, resume, clear, compact
    call.stage = "finding the project"
    where = project()
    if where is None:
        return None
    root, project_id = where
    call.project, call.root = f"project:{project_id}", root
    hook = HookCall(event, client, prompt, session_id, root, call.project, user_level)
    no_daemon = flag_value(os.environ.get(ENV_NO_DAEMON)) is True
    kept = None
    if event == "session-start":
        if not no_daemon:  # a ready warm process answers before the blocks' imports would
            from graphit_cli.warm.race import GRACE_SECONDS, warm_only

            call.stage = "a warm process"
            found = warm_only(hook, min(warm_until, time.monotonic() + GRACE_SECONDS))
            if found is not None:
                return found
        call.stage = "the mandatory memories kept beside the tables"
        kept, fresh = _kept(hook)
        if kept is not None and fresh:
            return kept
    if no_daemon and kept is None:
        call.stage, call.cold = "the search in this process", True
        return in_process(hook, until)
    from graphit_cli.warm import race

    # With a kept block that may be stale, the tables get until KEPT_SECONDS to say what is
    # current; then the block is printed as it is (the mandatory memories are never lost).
    give_up = None if kept is None else min(warm_until, call.started + KEPT_SECONDS)
    cold = functools.partial(in_process, until=until)
    try:
        found = race.first_answer(hook, call, warm_until, cold, give_up, warm=not no_daemon)
    except Exception as exc:  # the table failed: the block is what the session can still get
        if kept is None:
            raise
        from graphit_cli.errors import in_words

        cause = getattr(exc, "message", None) or in_words(exc)
        return {**kept, "via": f"kept block (the table failed: {cause})"}
    if found is None and kept is not None:
        return {**kept, "via": "kept block (the table did not answer in time)"}
    return found


def _kept(hook: HookCall) -> tuple[dict[str, Any] | None, bool]:
    """The session start's answer from the blocks kept beside the tables (`recall/kept.py`),
    and whether they are known to be current."""
    from graphit_cli.recall.kept import from_blocks

    if hook.user_level:
        from pathlib import Path

        from graphit_cli.warm.calls import project_has_own

        if project_has_own(Path(hook.root), "session-start", hook.client):
            return None, False
    found, fresh = from_blocks(hook.scope, hook.root, hook.client, hook.session_id)
    if found is None:
        return None, False
    return {**found.to_json(), "via": "kept block"}, fresh


def in_process(hook: HookCall, until: float | None = None) -> dict[str, Any]:
    """The hook's operation in this process (`transport.InProcess`), searching by meaning as a
    warm process does (`recall.hook.COLD_MODE`: the model loads here, ~0.15 s; by words
    alone, said in the recalls log, when it cannot or when too little of the budget is left by
    `until`, a `time.monotonic()` deadline)."""
    from graphit_cli import config
    from graphit_cli.opening import open_reader
    from graphit_cli.recall.hook import COLD_MODE
    from graphit_cli.warm.ops import check_hook
    from graphit_cli.warm.transport import InProcess

    config.validate()  # a bad setting is the command's error, as in every command
    check_hook(hook)  # as a warm process would refuse it (a prompt past its bound)
    found = InProcess(open_reader, mode=COLD_MODE, until=until).call(hook)
    return {**found, "via": "in-process"}


def read_stdin() -> bytes:
    """The event as the client sent it (bytes: `read_event` says when it is not UTF-8)."""
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    return sys.stdin.buffer.read()
