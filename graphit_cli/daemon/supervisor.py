"""Generic supervision: settings, a one-line-per-event log, periodic loops and their supervisor.

A loop that raises is logged and reported to the supervisor, which restarts it with backoff
(2, 4, 8, 16, then at most 30 s); ten failures in a row mark it failed; a run that stays good
for 60 s resets the count. Knows nothing about memories, tables or scopes beyond a loop's
name: the daemon (`process.py`) gives it the work. `InstanceLock` keeps a second supervisor
process from starting beside the first.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from graphit_cli import config, environ
from graphit_cli.errors import Conflict, in_words

DAEMON_SECTION = "daemon"


@dataclass(frozen=True)
class DaemonSettings:
    embed_interval: float = 120.0
    maintain_interval: float = 900.0
    backoff_max: float = 30.0
    stable_seconds: float = 60.0
    max_failures: int = 10
    # SIGTERM/SIGINT: how long the requests being answered and the loops' current runs get to
    # finish before the daemon leaves them (and exits 1 instead of 0).
    drain_seconds: float = 30.0

    @classmethod
    def load(cls) -> DaemonSettings:
        """Environment, then `[daemon]` in ~/.graphit/config.toml, then the defaults."""
        d = cls()
        return cls(
            embed_interval=config.number(
                environ.ENV_EMBED_INTERVAL, "embed_interval", DAEMON_SECTION, d.embed_interval
            ),
            maintain_interval=config.number(
                environ.ENV_MAINTAIN_INTERVAL,
                "maintain_interval",
                DAEMON_SECTION,
                d.maintain_interval,
            ),
            backoff_max=config.number(
                environ.ENV_BACKOFF_MAX, "backoff_max", DAEMON_SECTION, d.backoff_max
            ),
            stable_seconds=config.number(
                environ.ENV_STABLE_SECONDS, "stable_seconds", DAEMON_SECTION, d.stable_seconds
            ),
            max_failures=int(
                config.number(environ.ENV_MAX_FAILURES, "max_failures", DAEMON_SECTION, 10)
            ),
            drain_seconds=config.number(
                environ.ENV_DRAIN_SECONDS, "drain_seconds", DAEMON_SECTION, d.drain_seconds
            ),
        )

    def backoff(self, failures: int) -> float:
        """2, 4, 8, 16, then at most `backoff_max` seconds."""
        return float(min(self.backoff_max, 2 ** min(failures, 16)))


# --- logging ------------------------------------------------------------------------------


class EventLog:
    """One event per line on stderr: human-readable, or JSON with `--log-format json`."""

    def __init__(self, stream: IO[str] | None = None, fmt: str = "text") -> None:
        self._stream = stream or sys.stderr
        self._json = fmt == "json"
        self._lock = threading.Lock()

    def emit(self, level: str, event: str, **fields: Any) -> None:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
        if self._json:
            line = json.dumps({"ts": now, "level": level, "event": event, **fields}, default=str)
        else:
            parts = " ".join(f"{k}={_plain(v)}" for k, v in fields.items())
            line = f"{now} {level:<5} {event}" + (f" {parts}" if parts else "")
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()


def _plain(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if (" " in text or not text) else text


# --- loops and their supervisor -----------------------------------------------------------


@dataclass
class Loop:
    """One periodic job (embed or maintain) for one scope, and its health."""

    kind: str
    scope: str
    interval: float
    work: Callable[[], None]
    status: str = "starting"  # running, idle, backoff, failed, stopped
    failures: int = 0
    runs: int = 0
    last_error: str | None = None
    last_failure_at: float | None = None
    thread: threading.Thread | None = field(default=None, repr=False)
    # Set to end this loop alone (its scope went away): it never runs again, and its thread
    # ends when its current wait does.
    halt: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.scope}"

    def snapshot(self) -> dict[str, Any]:
        return {
            "loop": self.kind,
            "scope": self.scope,
            "status": self.status,
            "failures": self.failures,
            "runs": self.runs,
            "interval_seconds": self.interval,
            "last_error": self.last_error,
        }


class Supervisor:
    """Runs each loop in a thread; restarts failed runs with backoff; stops on request."""

    def __init__(self, settings: DaemonSettings, log: EventLog, stop: threading.Event) -> None:
        self.settings = settings
        self.log = log
        self.stop = stop
        self.loops: list[Loop] = []
        self._started: list[threading.Thread] = []
        self._lock = threading.Lock()

    def start(self, loop: Loop) -> None:
        # A daemon thread only so that a test's forgotten supervisor cannot keep pytest from
        # exiting: the daemon joins every loop at shutdown (`threads`) before the interpreter
        # ends, or leaves with os._exit, so no loop is ever torn down inside native code.
        loop.thread = threading.Thread(target=self._run, args=(loop,), name=loop.name, daemon=True)
        with self._lock:
            self.loops.append(loop)
            self._started.append(loop.thread)
        loop.thread.start()

    def retire(self, scope: str) -> list[Loop]:
        """End the loops of `scope` now: they leave `loops` and never run again (a run in
        progress finishes first); returns them."""
        with self._lock:
            retired = [loop for loop in self.loops if loop.scope == scope]
            self.loops = [loop for loop in self.loops if loop.scope != scope]
        for loop in retired:
            loop.halt.set()
        return retired

    def _ended(self, loop: Loop) -> bool:
        return self.stop.is_set() or loop.halt.is_set()

    def _run(self, loop: Loop) -> None:
        while not self._ended(loop):
            loop.status = "running"
            try:
                loop.work()
            except Exception as exc:  # every failure reaches the supervisor
                if self._ended(loop):
                    break
                delay = self.report_failure(loop, exc)
                if delay is None:
                    return
                loop.status = "backoff"
                self.stop.wait(delay)
                continue
            loop.runs += 1
            now = time.monotonic()
            if (
                loop.failures
                and now - (loop.last_failure_at or now) >= self.settings.stable_seconds
            ):
                self.log.emit("info", "loop.recovered", loop=loop.kind, scope=loop.scope)
                loop.failures = 0
                loop.last_error = None
            loop.status = "idle"
            self.stop.wait(loop.interval)
        loop.status = "stopped"

    def report_failure(self, loop: Loop, exc: BaseException) -> float | None:
        """Count the failure; the backoff delay before the restart, or None once failed."""
        loop.failures += 1
        loop.last_failure_at = time.monotonic()
        loop.last_error = in_words(exc)  # the cause in words: no Rust location, no lance file
        if loop.failures >= self.settings.max_failures:
            loop.status = "failed"
            self.log.emit(
                "error",
                "loop.failed",
                loop=loop.kind,
                scope=loop.scope,
                failures=loop.failures,
                error=loop.last_error,
            )
            return None
        delay = self.settings.backoff(loop.failures)
        self.log.emit(
            "error",
            "loop.error",
            loop=loop.kind,
            scope=loop.scope,
            failures=loop.failures,
            retry_in=f"{delay:g}s",
            error=loop.last_error,
        )
        return delay

    def snapshot(self) -> list[dict[str, Any]]:
        with self._lock:
            return [loop.snapshot() for loop in self.loops]

    def threads(self) -> list[threading.Thread]:
        """Every loop thread still running, retired loops' included (a run in progress)."""
        with self._lock:
            self._started = [t for t in self._started if t.is_alive()]
            return list(self._started)


class InstanceLock:
    """At most one running instance: an exclusive `flock` on `path`, held until `release`.

    The kernel drops the lock when the process dies, so a crash never leaves a stale lock; the
    file keeps the holder's pid for the message a second instance gets.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def acquire(self, what: str) -> None:
        """Take the lock, or raise Conflict naming the running instance's pid."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            # The holder writes its pid just after taking the lock: give it a moment.
            holder = ""
            for _ in range(20):
                handle.seek(0)
                holder = handle.read().strip()
                if holder:
                    break
                time.sleep(0.05)
            handle.close()
            holder = holder or "unknown"
            raise Conflict(
                f"{what} is already running (pid {holder}, lock {self.path}): "
                "stop it first, or use the running one"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the descriptor releases the flock
            self._handle = None
