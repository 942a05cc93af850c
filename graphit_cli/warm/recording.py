"""What a hook call records once its answer is out: the memories shown to the session and the
call's one entry in the recalls log (`record`), in a child the hook forks and detaches
(`detached`), so that the client, which waits for the hook's exit, does not wait for the
state's and the log's imports and writes. Standard library only at import.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

RECORD_SECONDS = 10  # the recording child's bound


def detached(work: Callable[[], None]) -> bool:
    """Run `work` (the recording, once the answer is out) in a child of this process, so the
    client, which waits for this process to exit, does not wait for the state's and the log's
    imports and writes; whether a child took it. The child holds none of the client's pipes
    and ends within RECORD_SECONDS whatever happens (a thread of this process that held an
    import lock at the fork would hold it there forever)."""
    import warnings

    try:
        with warnings.catch_warnings():
            # Forking a threaded process; lance's fork hook warns it is not fork-safe (the
            # child never touches a table): nothing of it on the client's stderr.
            warnings.simplefilter("ignore")
            pid = os.fork()
    except (AttributeError, OSError):
        return False
    if pid:
        return True
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        import signal

        # The hook's SIGTERM handler (it logs the call as late) is not the child's: a SIGTERM
        # ends the recording like any process.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.alarm(RECORD_SECONDS)  # the default action ends the child, even if stuck
        work()
    finally:
        os._exit(0)


def record(found: dict[str, Any], call: Any, outcome: str) -> None:
    """After the answer went out: the session's shown-set (only what was printed) and the
    log's one entry for this call. A compaction (session start with source "compact")
    empties the shown-set first: the agent lost what it was shown."""
    from graphit_cli.recall import session

    entry = found.get("entry")
    if isinstance(entry, dict) and entry.get("silent"):
        return  # the user-level hook where the project runs its own: that one tells it
    shown = found.get("shown") if outcome == "shown" else None
    pairs = [
        (str(p[0]), int(p[1]))
        for p in (shown if isinstance(shown, list) else [])
        if isinstance(p, list) and len(p) == 2 and isinstance(p[1], int)
    ]
    sid = call.entry.get("session")
    compact = call.entry.get("source") == "compact"
    session.mark(call.entry["client"], sid, pairs, reset=compact)
    if compact:  # the compaction happened: its capture request is spent (recall/capture.py)
        from graphit_cli.recall import capture

        capture.compacted(call.entry["client"], sid)
    if isinstance(entry, dict):
        call.entry = {**entry, **{k: v for k, v in call.entry.items() if k == "source"}}
    details: dict[str, Any] = {"ms": call.ms()}
    if found.get("via"):
        details["via"] = found["via"]
    call.log(outcome, **details)
