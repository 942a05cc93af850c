"""What a hook call records once its answer is out: the memories shown to the session and the
call's one entry in the recalls log (`record`), in a fresh process the hook starts and leaves
(`detached`), so that the client, which waits for the hook's exit, does not wait for the
state's and the log's imports and writes. Standard library only at import.

A fresh interpreter, not a fork: when the hook prints, the search in its own process may still
be running on a thread (`race.py`: a warm answer came after the grace period), holding an
import's lock; a forked child that needed that import waited for a thread it does not have
until its bound ended it, and the call left no entry (CI, under load).
"""

from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RECORD_SECONDS = 60  # the recording process's bound (only a stuck file system reaches it)
PIPE_BYTES = 60_000  # a record larger than a pipe holds unread is written by the hook itself

# The recording process: the hook's import path, then `child` with what the hook sent.
_CHILD = (
    "import json,sys;p=json.load(sys.stdin);sys.path[:]=p['path'];"
    "from graphit_cli.warm.recording import child;child(p)"
)


def detached(
    found: dict[str, Any], entry: dict[str, Any], outcome: str, details: dict[str, Any]
) -> bool:
    """Hand the recording of this call (`record`) to a new process of this interpreter, in a
    session of its own and holding none of the client's pipes; whether one took it."""
    details = {**details, "at": time.time()}  # the call's time, not the recording's
    payload = {"path": sys.path, "found": found, "entry": entry, "outcome": outcome,
               "details": details}  # fmt: skip
    try:
        data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    except (TypeError, ValueError):
        return False
    if len(data) > PIPE_BYTES or not sys.executable:
        return False  # a write past the pipe's room would wait for the new process to read
    # posix_spawn (a vfork): 0.3 ms here, where subprocess's import and Popen took ~13 ms.
    read, write = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        streams = [
            (os.POSIX_SPAWN_DUP2, read, 0),
            *((os.POSIX_SPAWN_DUP2, null, fd) for fd in (1, 2)),
        ]
        os.posix_spawn(
            sys.executable,
            [sys.executable, "-c", _CHILD],
            os.environ,
            file_actions=streams,
            setsid=True,  # a session of its own: the client's signals to the hook's group miss it
        )
    except (OSError, AttributeError, NotImplementedError):
        os.close(write)
        return False
    finally:
        os.close(read)
        os.close(null)
    try:
        os.write(write, data)
    except OSError:
        return False
    finally:
        os.close(write)
    return True


def child(payload: dict[str, Any]) -> None:
    """The recording process's work, within RECORD_SECONDS."""
    import signal

    signal.alarm(RECORD_SECONDS)  # the default action ends the process, even if stuck
    record(payload["found"], payload["entry"], payload["outcome"], payload["details"])


def record(
    found: dict[str, Any], entry: dict[str, Any], outcome: str, details: dict[str, Any]
) -> None:
    """After the answer went out: the session's shown-set (only what was printed) and the
    log's one entry for this call (`entry` as the hook knew it, with `details`: its time). A
    compaction (session start with source "compact") empties the shown-set first."""
    from graphit_cli.recall import log, session

    answered = found.get("entry")
    if isinstance(answered, dict) and answered.get("silent"):
        return  # the user-level hook where the project runs its own: that one tells it
    shown = found.get("shown") if outcome == "shown" else None
    pairs = [
        (str(p[0]), int(p[1]))
        for p in (shown if isinstance(shown, list) else [])
        if isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[1], int)
    ]
    sid = entry.get("session")
    compact = entry.get("source") == "compact"
    session.mark(entry["client"], sid, pairs, reset=compact)
    if compact:  # the compaction happened: its capture request is spent (recall/capture.py)
        from graphit_cli.recall import capture

        capture.compacted(entry["client"], sid)
    if isinstance(answered, dict):
        entry = {**answered, **{k: v for k, v in entry.items() if k == "source"}}
    if found.get("via"):
        details = {**details, "via": found["via"]}
    log.append({**entry, "outcome": outcome, **details})
