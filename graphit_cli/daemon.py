"""The foreground daemon: embedding and maintenance loops per scope, supervision, warm path.

One embedding loop (immediately, then every 2 minutes) and one maintenance loop (immediately,
then every 15 minutes) per active scope: the project and context scopes this machine's
scope-reference lock records (or those named on the command line), plus one machine-wide pair
for the user scope. A loop that raises is logged and reported to the supervisor, which restarts
it with backoff (2, 4, 8, 16, then at most 30 s); ten failures in a row mark it failed; a run
that stays good for 60 s resets the count. While it runs, the daemon answers `search`, `recall`,
`source`, the catalogue and query embeddings over a Unix socket (mode 0600), so a cold CLI
skips the model's and lancedb's imports.

Must not import Typer or Rich; the CLI adapter is `cli/daemon.py`.
"""

from __future__ import annotations

import json
import os
import signal
import socketserver
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from graphit_cli import __version__, config, runstate, scopes, wire
from graphit_cli.errors import Conflict, GraphitError, InvalidInput
from graphit_cli.providers import is_remote_scope as remote_scope
from graphit_cli.scopes import Scope

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service import MemoryService

DAEMON_SECTION = "daemon"


@dataclass(frozen=True)
class DaemonSettings:
    embed_interval: float = 120.0
    maintain_interval: float = 900.0
    backoff_max: float = 30.0
    stable_seconds: float = 60.0
    max_failures: int = 10

    @classmethod
    def load(cls) -> DaemonSettings:
        """Environment, then `[daemon]` in ~/.graphit/config.toml, then the defaults."""
        d = cls()
        return cls(
            embed_interval=config.number(
                config.ENV_EMBED_INTERVAL, "embed_interval", DAEMON_SECTION, d.embed_interval
            ),
            maintain_interval=config.number(
                config.ENV_MAINTAIN_INTERVAL,
                "maintain_interval",
                DAEMON_SECTION,
                d.maintain_interval,
            ),
            backoff_max=config.number(
                config.ENV_BACKOFF_MAX, "backoff_max", DAEMON_SECTION, d.backoff_max
            ),
            stable_seconds=config.number(
                config.ENV_STABLE_SECONDS, "stable_seconds", DAEMON_SECTION, d.stable_seconds
            ),
            max_failures=int(
                config.number(config.ENV_MAX_FAILURES, "max_failures", DAEMON_SECTION, 10)
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
    last_ok_at: float | None = None
    thread: threading.Thread | None = field(default=None, repr=False)

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
        self._lock = threading.Lock()

    def start(self, loop: Loop) -> None:
        with self._lock:
            self.loops.append(loop)
        loop.thread = threading.Thread(target=self._run, args=(loop,), name=loop.name, daemon=True)
        loop.thread.start()

    def _run(self, loop: Loop) -> None:
        while not self.stop.is_set():
            loop.status = "running"
            try:
                loop.work()
            except Exception as exc:  # every failure reaches the supervisor
                if self.stop.is_set():
                    break
                delay = self.report_failure(loop, exc)
                if delay is None:
                    return
                loop.status = "backoff"
                self.stop.wait(delay)
                continue
            loop.runs += 1
            now = time.monotonic()
            loop.last_ok_at = now
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
        loop.last_error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
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


# --- the daemon ---------------------------------------------------------------------------


class _LockedEmbedder:
    """Serialises calls into the model: the loops and socket clients share one instance."""

    SLICE = 8

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._lock = threading.Lock()
        self.model_id = inner.model_id
        self.dim = inner.dim

    def embed_documents(self, texts: Any) -> list[list[float]]:
        # Small slices, the lock released between them: a search waiting for its query vector
        # gets the model within one slice (~0.2 s), not after a whole embedding batch.
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.SLICE):
            with self._lock:
                vectors += self._inner.embed_documents(texts[start : start + self.SLICE])
        return vectors

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            return self._inner.embed_query(text)


class Daemon:
    def __init__(
        self,
        settings: DaemonSettings | None = None,
        *,
        scopes_named: list[Scope] | None = None,
        embedder: Callable[[], Embedder | None] | None = None,
        log: EventLog | None = None,
        socket_path: Path | None = None,
    ) -> None:
        self.settings = settings or DaemonSettings.load()
        self.log = log or EventLog()
        self.stop = threading.Event()
        self.supervisor = Supervisor(self.settings, self.log, self.stop)
        self.socket_path = socket_path or runstate.socket_path()
        self._named = scopes_named
        self._embedder_factory = embedder
        self._embedder: Embedder | None = None
        self._embedder_lock = threading.Lock()
        self._services: dict[str, MemoryService] = {}
        self._services_lock = threading.Lock()
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        self.requests_served = 0

    # --- what it works on ------------------------------------------------------------------

    def active_scopes(self) -> list[Scope]:
        if self._named is not None:
            return list(self._named)
        found: list[Scope] = []
        for ref in sorted(scopes.read_scope_refs()):
            try:
                scope = scopes.parse_scope_ref(ref)
            except InvalidInput:
                continue
            if scope.kind != "user":
                found.append(scope)
        found.append(Scope("user", scopes.user_id()))  # the machine-wide pair
        return found

    def embedder(self) -> Embedder | None:
        with self._embedder_lock:
            if self._embedder is None:
                from graphit_cli.service import _default_embedder

                inner = (self._embedder_factory or _default_embedder)()
                self._embedder = _LockedEmbedder(inner) if inner is not None else None
            return self._embedder

    def service(self, scope: Scope, *, create: bool = False) -> MemoryService | None:
        """The scope's service, opened once; None while the scope has no table."""
        key = str(scope)
        with self._services_lock:
            found = self._services.get(key)
            if found is not None:
                return found
            if not create and not remote_scope(scope) and not scope.local_path().exists():
                return None  # no table yet: nothing to embed or maintain
            from graphit_cli.service import MemoryService

            opened = MemoryService.open(scope, create=create, embedder=self.embedder)
            self._services[key] = opened
            return opened

    # --- the two jobs ----------------------------------------------------------------------

    def embed_once(self, scope: Scope) -> None:
        svc = self.service(scope)
        if svc is None or not svc.needs_embedding():
            return  # empty tables, and tables with nothing to embed, cost no model load
        if self.embedder() is None:
            self.log.emit(
                "warn",
                "embed.unavailable",
                scope=scope,
                reason="the embedding model is not installed",
            )
            return
        report = svc.embed(should_stop=self.stop.is_set)
        if report.embedded or report.skipped:
            self.log.emit(
                "info",
                "embed.done",
                scope=scope,
                rows=report.embedded,
                skipped=report.skipped,
                seconds=f"{report.seconds:.2f}",
            )

    def maintain_once(self, scope: Scope) -> None:
        svc = self.service(scope)
        if svc is None or svc.is_empty():
            return
        report = svc.maintain()
        if report.ran:
            self.log.emit(
                "info",
                "maintain.done",
                scope=scope,
                reasons="; ".join(report.reasons),
                fragments=f"{report.before.fragments}->{report.after.fragments}",
                unindexed=f"{report.before.unindexed_rows}->{report.after.unindexed_rows}",
                seconds=f"{report.seconds:.2f}",
                retries=report.retries,
            )

    # --- running ---------------------------------------------------------------------------

    def start(self) -> None:
        self._serve_socket()
        for scope in self.active_scopes():
            self._start_pair(scope)
        self.log.emit(
            "info",
            "daemon.started",
            pid=os.getpid(),
            socket=self.socket_path,
            scopes=len(self.active_scopes()),
        )

    def _start_pair(self, scope: Scope) -> None:
        s = self.settings
        self.supervisor.start(
            Loop("embed", str(scope), s.embed_interval, lambda: self.embed_once(scope))
        )
        self.supervisor.start(
            Loop("maintain", str(scope), s.maintain_interval, lambda: self.maintain_once(scope))
        )

    def run(self) -> int:
        """Run in the foreground until SIGINT/SIGTERM; returns the exit code."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: self.stop.set())
        self.start()
        known = {str(s) for s in self.active_scopes()}
        while not self.stop.wait(min(5.0, self.settings.embed_interval)):
            for scope in self.active_scopes():  # a project first used after start-up
                if str(scope) not in known:
                    known.add(str(scope))
                    self._start_pair(scope)
        self.shutdown()
        return 0

    def run_once(self) -> int:
        """`--once`: every job once, in order; non-zero when any of them failed."""
        failed = 0
        for scope in self.active_scopes():
            for kind, job in (("embed", self.embed_once), ("maintain", self.maintain_once)):
                try:
                    job(scope)
                except Exception as exc:
                    failed += 1
                    self.log.emit("error", f"{kind}.error", scope=scope, error=str(exc))
        return 1 if failed else 0

    def shutdown(self) -> None:
        self.stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            try:
                self.socket_path.unlink()
            except FileNotFoundError:
                pass
        deadline = time.monotonic() + 3.0
        for loop in self.supervisor.loops:
            if loop.thread is not None:
                loop.thread.join(max(0.0, deadline - time.monotonic()))
        self.log.emit("info", "daemon.stopped")

    # --- the warm path ---------------------------------------------------------------------

    def _serve_socket(self) -> None:
        path = self.socket_path
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        if path.exists():
            if wire.exchange(path, {"op": "ping"}, timeout=1.0) is not None:
                raise Conflict(f"a graphit daemon is already running (socket {path})")
            path.unlink()  # left behind by a daemon that died
        daemon = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline()
                reply = daemon.answer(line)
                self.wfile.write(json.dumps(reply).encode() + b"\n")

        old_umask = os.umask(0o177)  # the socket is created 0600, never briefly wider
        try:
            server = socketserver.ThreadingUnixStreamServer(str(path), Handler)
        finally:
            os.umask(old_umask)
        server.daemon_threads = True
        os.chmod(path, 0o600)
        self._server = server
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="socket", daemon=True
        ).start()

    def answer(self, line: bytes) -> dict[str, Any]:
        self.requests_served += 1
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise InvalidInput("a request is a JSON object")
            if request.get("op") != "ping":  # any version may ask whether a daemon runs
                wire.check_protocol(request)
            return {"ok": True, "protocol": wire.PROTOCOL, **self._dispatch(request)}
        except GraphitError as exc:
            return wire.error_to_wire(exc)
        except (ValueError, KeyError, TypeError) as exc:
            return wire.error_to_wire(InvalidInput(f"bad request: {exc}"))
        except Exception as exc:
            self.log.emit("error", "request.error", error=str(exc))
            return wire.error_to_wire(GraphitError(f"daemon error: {exc}"))

    def _dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "ping":
            return {"pid": os.getpid(), "version": __version__, "loops": self.supervisor.snapshot()}
        if op == "embed_query":
            model = self.embedder()
            if model is None:
                raise InvalidInput("the embedding model is not installed")
            return {"model": model.model_id, "vector": model.embed_query(str(request["text"]))}
        if op not in ("search", "recall", "source", "catalogue"):
            raise InvalidInput(f"unknown request {op!r}")
        scope = scopes.parse_scope_ref(str(wire.text_field(request, "scope")))
        svc = self.service(scope, create=True)
        assert svc is not None
        if op == "search":
            result = svc.search(
                str(wire.text_field(request, "query")),
                top_k=wire.int_field(request, "top_k", 10) or 0,
                flt=wire.filter_from_wire(request.get("filter")),
                exclude_mandatory=wire.bool_field(request, "exclude_mandatory"),
                include_deleted=wire.bool_field(request, "include_deleted"),
                mode=str(wire.text_field(request, "mode", optional=True) or "auto"),
            )
            return {"result": wire.search_to_wire(result)}
        if op == "recall":
            recalled = svc.recall(
                wire.text_field(request, "context", optional=True),
                top_k=wire.int_field(request, "top_k", 10) or 0,
            )
            return {"result": wire.recall_to_wire(recalled)}
        if op == "source":
            return {"result": wire.memory_to_wire(svc.source(str(wire.text_field(request, "ref"))))}
        listed = svc.catalogue(
            wire.filter_from_wire(request.get("filter")), wire.int_field(request, "limit", None)
        )
        return {"result": [wire.memory_to_wire(m) for m in listed]}


def ping() -> dict[str, Any] | None:
    """The running daemon's pid, version and loops (whatever protocol it speaks); None when
    none answers."""
    reply = wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0)
    return reply if reply is not None and reply.get("ok") else None
