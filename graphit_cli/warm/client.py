"""The thin client: a request to a warm process, with the standard library only.

A hook or a read command starts here before Typer, the model's or LanceDB's imports: it looks
for a warm process's socket under GRAPHIT_HOME/run (the daemon's `daemon.sock`, then the agent
sessions' `s/<pid>.sock`, newest first), sends one request with the digest of what it
resolves scopes from (`access/fingerprint.inputs`), and returns the answer, or None when no
warm process answered it within its deadline (its caller then works in-process, or through the
full command, with the same answer).

A warm process that does not answer in time is remembered: a small marker under run/
(`stuck-<socket>.json`: the socket's inode and the server's pid), so that the next calls go
elsewhere at once instead of waiting for it again. The marker holds while that process is still
stopped (Linux: its state in /proc is T, a SIGSTOP or a Ctrl-Z; once it runs again it is asked
again); one that was running but too slow is left alone for BUSY_SECONDS; where the state
cannot be read, for STUCK_SECONDS.
Speaks `warm/wire.py`'s protocol (one JSON line each way, keep-alive spaces before it).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import time

from graphit_cli.environ import ENV_DAEMON_ANSWER

# `typing` stays unloaded on the hook's path (~5 ms): annotations only, for the type checker.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = 6  # warm/wire.py's PROTOCOL (tests/test_hot_path.py holds them equal)
STUCK_SECONDS = 60.0
BUSY_SECONDS = 10.0
DEFAULT_ANSWER_SECONDS = 10.0  # config.DEFAULT_DAEMON_ANSWER_SECONDS
CONNECT_SECONDS = 0.25  # a listening socket accepts at once, even when its process is stopped


def run_dir() -> str:
    from graphit_cli.access.fingerprint import graphit_home

    return os.path.join(graphit_home(), "run")


# Agent sessions' sockets live in `run/s/`: a Unix socket's path is at most 107 bytes, and
# `run/s/<pid>.sock` is no longer than the daemon's `run/daemon.sock`, so a GRAPHIT_HOME that
# can hold the daemon's socket can hold a session's.
SESSIONS = "s"


def sockets(run: str) -> list[str]:
    """The warm processes' sockets: the daemon's first, then the sessions' (newest first)."""
    found = []
    daemon = os.path.join(run, "daemon.sock")
    if os.path.exists(daemon):
        found.append(daemon)
    sessions = os.path.join(run, SESSIONS)
    try:
        names = [n for n in os.listdir(sessions) if n.endswith(".sock")]
    except OSError:
        names = []
    stamped = []
    for name in names:
        path = os.path.join(sessions, name)
        try:
            stamped.append((os.stat(path).st_mtime, path))
        except OSError:
            continue
    found += [path for _, path in sorted(stamped, reverse=True)]
    return found


def answer_seconds() -> float:
    """The longest silence from a warm process (`config.daemon_deadlines`'s answer deadline),
    without loading the configuration when neither the environment nor a config file sets it.
    A warm process at work sends a keep-alive every second."""
    from graphit_cli.access.fingerprint import graphit_home

    given = os.environ.get(ENV_DAEMON_ANSWER, "").strip()
    if given or os.path.exists(os.path.join(graphit_home(), "config.toml")):
        from graphit_cli import config

        return config.daemon_deadlines()[2]
    return DEFAULT_ANSWER_SECONDS


def ask(
    fields: dict[str, Any],
    deadline: float,
    idle: float | None = None,
    answered: list[str] | None = None,
) -> Any:
    """The first warm process's answer to `fields` (its `result`), or None: none answered by
    `deadline` (monotonic) or within `idle` seconds of silence, each declined, or none runs.
    An error answer is None too: the caller's own path then says it, with the same words and
    exit code. `answered` gets which process answered ("daemon" or "session")."""
    from graphit_cli.access.fingerprint import inputs

    request = {
        "protocol": PROTOCOL,
        "request_id": os.urandom(16).hex(),
        "inputs": inputs(),
        **fields,
    }
    line = json.dumps(request).encode() + b"\n"
    run = run_dir()
    for path in sockets(run):
        if time.monotonic() >= deadline:
            return None
        if remembered_stuck(run, path):
            continue
        reply = _exchange(run, path, line, deadline, idle)
        if reply is not None and reply.get("ok") and reply.get("protocol") == PROTOCOL:
            if answered is not None:
                answered.append("session" if os.path.dirname(path) != run else "daemon")
            return reply.get("result")
    return None


def _exchange(
    run: str, path: str, line: bytes, deadline: float, idle: float | None
) -> dict[str, Any] | None:
    pid = None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(max(0.01, min(CONNECT_SECONDS, deadline - time.monotonic())))
            try:
                sock.connect(path)
            except (ConnectionRefusedError, FileNotFoundError):
                _forget_dead(path)
                return None
            pid = peer_pid(sock)
            if _stopped(pid):  # stopped (SIGSTOP): it cannot answer; the next socket is asked
                remember_stuck(run, path, pid)
                return None
            sock.sendall(line)
            chunks = []
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left if idle is None else min(idle, left))
                chunk = sock.recv(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    break
    except TimeoutError:
        # Silent past `idle` (a process at work sends a keep-alive every second), or stopped:
        # remembered. Running but slower than a hook's budget (a loaded machine): asked again.
        if idle is not None or _stopped(pid) is not False:
            remember_stuck(run, path, pid)
        return None
    except OSError:
        return None
    try:
        data = json.loads(b"".join(chunks))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _forget_dead(path: str) -> None:
    """A session's socket nobody listens on (its process was killed): removed. The daemon's
    own socket is the daemon's to remove (`graphit memory daemon` replaces a dead one)."""
    if os.path.basename(os.path.dirname(path)) == SESSIONS:
        try:
            os.unlink(path)
        except OSError:
            pass


def peer_pid(sock: socket.socket) -> int | None:
    """The listening process's pid (Linux's SO_PEERCRED); None elsewhere."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        pid, _, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, 12))
    except OSError:
        return None
    return pid or None


def listener_pid(path: str) -> int | None:
    """The pid of the process listening on `path`, if it tells (for the stuck marker)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_SECONDS)
            sock.connect(path)
            return peer_pid(sock)
    except OSError:
        return None


def _marker(run: str, path: str) -> str:
    return os.path.join(run, f"stuck-{os.path.basename(path)}.json")


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def remember_stuck(run: str, path: str, pid: int | None) -> None:
    record = {
        "socket": path,
        "inode": _inode(path),
        "pid": pid,
        "stopped": _stopped(pid),
        "since": time.time(),
    }
    marker = _marker(run, path)
    try:
        with open(marker + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(record, handle)
        os.replace(marker + ".tmp", marker)
    except OSError:
        pass  # a read-only run directory: the next call waits again, within its budget


def remembered_stuck(run: str, path: str) -> bool:
    """True while the marker for `path` holds (see the module's docstring)."""
    marker = _marker(run, path)
    try:
        with open(marker, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return False
    holds = isinstance(record, dict) and record.get("inode") == _inode(path)
    if holds:
        stopped = _stopped(record.get("pid"))
        since = record.get("since")
        age = time.time() - since if isinstance(since, int | float) else STUCK_SECONDS
        if stopped is None:
            holds = age < STUCK_SECONDS
        elif stopped:
            holds = True
        else:  # running: thawed since (asked again at once), or slow when it was marked
            holds = record.get("stopped") is False and age < BUSY_SECONDS
    if not holds:
        try:
            os.unlink(marker)
        except OSError:
            pass
    return holds


def _stopped(pid: object) -> bool | None:
    """Whether process `pid` is stopped (state T or t); None when that cannot be told."""
    if not isinstance(pid, int) or isinstance(pid, bool):
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None if not os.path.isdir("/proc") else False
    state = stat.rpartition(")")[2].split()[:1]
    return bool(state) and state[0] in ("T", "t")
