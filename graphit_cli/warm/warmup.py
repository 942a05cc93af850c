"""A warm process for a project whose prompts keep missing their budget.

Without a daemon or an agent session's server, a prompt is searched in the hook's own process,
which on a loaded machine does not always fit the budget (the imports alone take about half of
it). When that happens twice within LATE_WINDOW seconds for one project, the hook starts
`graphit memory daemon --scope project` for it in the background (detached, its output in
GRAPHIT_HOME/state/daemon-started.log), so the next prompts are answered warm, and says so
once (on stderr and in the recalls log). Not with GRAPHIT_NO_DAEMON, not while a daemon's
socket is there, and at most once per RESTART_SECONDS per project. Standard library only: it
runs in the hook's watchdog, just before the process exits.
"""

from __future__ import annotations

import json
import os
import sys
import time

from graphit_cli.core.flags import flag_value
from graphit_cli.environ import ENV_NO_DAEMON

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LATE_WINDOW = 15 * 60.0
RESTART_SECONDS = 10 * 60.0
LATE_COUNT = 2  # "late more than once"
IDLE_EXIT = 3600  # a daemon started here stops after an hour without a request
DAEMON = (sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project")


def _home() -> str:
    from graphit_cli.access.fingerprint import graphit_home

    return graphit_home()


def state_path() -> str:
    return os.path.join(_home(), "state", "late.json")


def after_late(project: str, root: str) -> str | None:
    """Note a cold answer that was late for `project`; start a daemon when it is the second
    within LATE_WINDOW (see the module). What to tell the user, or None."""
    if flag_value(os.environ.get(ENV_NO_DAEMON)) is True:
        return None
    now = time.time()
    path = state_path()
    try:
        with open(path, encoding="utf-8") as handle:
            state = json.load(handle)
    except (OSError, ValueError):
        state = {}
    state = state if isinstance(state, dict) else {}
    found = state.get(project)
    mine: dict[str, Any] = found if isinstance(found, dict) else {}
    lates = [
        t for t in mine.get("late", []) if isinstance(t, int | float) and now - t < LATE_WINDOW
    ]
    lates.append(now)
    started = mine.get("started")
    recent = isinstance(started, int | float) and now - started < RESTART_SECONDS
    told = None
    if len(lates) >= LATE_COUNT and not recent and not _daemon_there():
        pid = _start(root)
        if pid is not None:
            started = now
            told = (
                f"prompts got no memories within the hook's budget {len(lates)} times without "
                f"a warm process: started `graphit memory daemon --scope project` in the "
                f"background (pid {pid}), so the next ones are answered warm"
            )
    state[project] = {"late": lates[-10:], "started": started}
    _save(path, state)
    return told


def _daemon_there() -> bool:
    return os.path.exists(os.path.join(_home(), "run", "daemon.sock"))


def _start(root: str) -> int | None:
    import subprocess

    log = os.path.join(_home(), "state", "daemon-started.log")
    try:
        os.makedirs(os.path.dirname(log), mode=0o700, exist_ok=True)
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            child = subprocess.Popen(
                [*DAEMON, "--idle-exit", str(IDLE_EXIT)],
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=fd,
                start_new_session=True,  # not the client's: it outlives the hook
                close_fds=True,
            )
        finally:
            os.close(fd)
    except OSError:
        return None
    return child.pid


def _save(path: str, state: dict[str, object]) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.chmod(path + ".tmp", 0o600)
        os.replace(path + ".tmp", path)
    except OSError:
        pass
