"""What one agent session has been shown: small, local, private, expiring.

A session is the client's `session_id` (Claude Code and Gemini CLI send it with every hook
event). Its state is one JSON file under `~/.graphit/state/sessions/` (named by a hash of the
id, so no id leaks into a file name), mode 0600 in a 0700 directory:

- `started`: when the session was first seen (SessionStart, or its first prompt): the capture
  reminder asks whether the session wrote memories since;
- `shown`: memory id -> the revision shown (a memory is shown again only once it changed);
- `reminded`: the capture events that already reminded the agent.

Only the process that prints an answer writes `shown` (`mark`, after its write to stdout:
the hook's own process); a warm process that computes the answer reads the state (`load`)
and never writes it, so a memory is never recorded as shown unless it was printed. A
compaction (`mark(..., reset=True)`) empties `shown`: the agent lost what it was shown.

A file not used for `EXPIRY_SECONDS` is swept by the next session that starts (nothing else
reads it). No session id: no state, each prompt stands alone (the behaviour before sessions).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphit_cli import config
from graphit_cli.access import statefile

EXPIRY_SECONDS = 24 * 3600
MAX_SHOWN = 2000  # a runaway session cannot grow its file without bound
DIR_MODE = 0o700
FILE_MODE = 0o600


def sessions_dir() -> Path:
    return config.home() / "state" / "sessions"


def _path(client: str, session_id: str) -> Path:
    # The id alone names the session (clients send unique ids); `client` is kept for callers.
    del client
    digest = hashlib.sha256(session_id.encode()).hexdigest()[:32]
    return sessions_dir() / f"{digest}.json"


@dataclass
class Session:
    """One session's state (`new`: nothing was stored for it before this call)."""

    started: float
    shown: dict[str, int] = field(default_factory=dict)
    reminded: list[str] = field(default_factory=list)
    new: bool = False

    def seen(self, memory_id: str, revision: int) -> bool:
        """Shown already at this revision (a newer revision is news)."""
        return self.shown.get(memory_id, -1) >= revision

    def show(self, memory_id: str, revision: int) -> None:
        self.shown[memory_id] = max(revision, self.shown.get(memory_id, -1))

    def to_json(self) -> dict[str, Any]:
        shown = dict(list(self.shown.items())[-MAX_SHOWN:])
        return {
            "started": self.started,
            "last": time.time(),
            "shown": shown,
            "reminded": self.reminded[-50:],
        }


def _load(path: Path) -> Session | None:
    try:
        data = statefile.read_json(path)
    except (OSError, ValueError):
        return None  # unreadable: start over rather than fail the hook
    if not isinstance(data, dict) or time.time() - float(data.get("last", 0)) > EXPIRY_SECONDS:
        return None
    found = data.get("shown")
    shown: dict[str, Any] = found if isinstance(found, dict) else {}
    return Session(
        started=float(data.get("started", time.time())),
        shown={str(k): int(v) for k, v in shown.items()},
        reminded=[str(e) for e in data.get("reminded") or []],
    )


def started(session_id: str, client: str = "") -> float | None:
    """When the session started (its first hook call), None when no live state records it.
    Read-only: no lock, no write."""
    found = _load(_path(client, session_id))
    return None if found is None else found.started


def load(client: str, session_id: str | None) -> Session | None:
    """The session's state as it stands (read-only: no lock, no write); None without an id
    or a live state."""
    return _load(_path(client, session_id)) if session_id else None


def mark(
    client: str, session_id: str | None, shown: list[tuple[str, int]], *, reset: bool = False
) -> None:
    """Record `shown` ((memory id, revision) pairs, printed by this process) for the session;
    `reset` first forgets everything shown before (a compaction). Never raises: an answer
    that was printed is not undone by a state that cannot be kept."""
    try:
        with opened(client, session_id) as state:
            if state is None:
                return
            if reset:
                state.shown.clear()
            for memory_id, revision in shown:
                state.show(memory_id, revision)
    except (OSError, ValueError):
        pass


def _private_dir() -> Path:
    folder = sessions_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    for each in (folder, folder.parent):
        if each.stat().st_mode & 0o777 != DIR_MODE:
            os.chmod(each, DIR_MODE)
    return folder


def sweep(now: float | None = None) -> int:
    """Remove the state of sessions unused for EXPIRY_SECONDS; how many were removed."""
    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(sessions_dir().iterdir())
    except OSError:
        return 0
    for entry in entries:
        try:
            if now - entry.stat().st_mtime > EXPIRY_SECONDS:
                entry.unlink()
                removed += 1
        except OSError:
            continue  # another process swept it first
    return removed


@contextmanager
def opened(client: str, session_id: str | None) -> Iterator[Session | None]:
    """The session's state for a read-modify-write (saved on a clean exit); None without an
    id, or where the state cannot be kept (a read-only home: each prompt then stands alone).
    A new session sweeps the expired ones."""
    if not session_id:
        yield None
        return
    path = _path(client, session_id)
    with ExitStack() as stack:
        try:
            _private_dir()
            stack.enter_context(statefile.locked(path))
            kept = True
        except OSError:
            kept = False
        if not kept:
            yield None
            return
        found = _load(path)
        state = found or Session(started=time.time(), new=True)
        if found is None:
            sweep()
        yield state
        try:
            statefile.write_json(path, state.to_json(), mode=FILE_MODE)
        except OSError:
            pass  # not remembered: the next prompt may show a memory again, nothing worse
