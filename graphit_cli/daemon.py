"""The foreground daemon: embedding and maintenance loops per scope, and the warm path.

One embedding loop (immediately, then every 2 minutes) and one maintenance loop (immediately,
then every 15 minutes) per active scope: the project and context scopes this machine's
scope-reference lock records (or those named on the command line), plus one machine-wide pair
for the user scope. Active scopes are those used within the active window (default 30 days,
`GRAPHIT_ACTIVE_DAYS` or `[daemon] active_days`) plus any used while the daemon runs: an idle
scope costs nothing. The loops run under `supervisor.Supervisor` (backoff, failure count); a
scope that cannot be reached (a broker down, a bucket gone) fails its own loops only.
One daemon per GRAPHIT_HOME: it holds an `flock` on `run/daemon.lock` for its whole life.
While it runs, the daemon answers `search`, `recall`, `source`, the catalogue and the writes
(`upsert`, `delete`, `restore`, `import`) over a Unix
socket (mode 0600, protocol in `wire.py`), so a cold CLI skips the model's and lancedb's
imports.

Must not import Typer or Rich; the CLI adapter is `cli/daemon.py`.
"""

from __future__ import annotations

import json
import os
import signal
import socketserver
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli import __version__, config, providers, runstate, scopes, warmpath, wire
from graphit_cli.errors import Conflict, GraphitError, InvalidInput
from graphit_cli.scopes import Scope
from graphit_cli.supervisor import DaemonSettings as DaemonSettings
from graphit_cli.supervisor import EventLog as EventLog
from graphit_cli.supervisor import InstanceLock, Loop, Supervisor

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service import MemoryService

USER_TARGET = "user"  # the machine-wide pair: its id is the provider's answer, asked when run


def active_scopes(used_since: datetime | None = None) -> list[Scope]:
    """Project and context scopes of the scope-reference lock used within the active window
    (or since `used_since`): the ones the daemon, `status` and `maintain --all` work on."""
    window = timedelta(days=config.active_days())
    return [s for s in scopes.recent_scopes(window, used_since=used_since) if s.kind != "user"]


def machine_targets(
    used_since: datetime | None = None, *, user: Callable[[], Scope] | None = None
) -> list[tuple[str, Callable[[], Scope]]]:
    """(name, how to get the scope) for every active scope and the machine-wide user scope,
    whose id is asked of the provider only when called (it may fail: a broker down)."""
    found = [(str(s), _constant(s)) for s in active_scopes(used_since)]
    found.append((USER_TARGET, user or (lambda: Scope("user", providers.user_id()))))
    return found


def open_quietly(
    scope: Scope, *, create: bool, embedder: Callable[[], Embedder | None] | None = None
) -> tuple[MemoryService | None, str]:
    """(the scope's service, its table URI) for background work; no service while a local
    scope has no table and `create` is False. Unlike `MemoryService.open` this does not record
    a use in the scope-reference lock: the daemon's own opens must not keep a scope active."""
    from graphit_cli.service import MemoryService
    from graphit_cli.store import open_store

    location = providers.resolve(scope)
    if not create and not location.is_remote and not Path(location.uri).exists():
        return None, location.uri
    store = open_store(location.uri, create=create, access=location.access)
    return MemoryService(store, scope, embedder=embedder), location.uri


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
        self._services: dict[str, tuple[MemoryService, str]] = {}
        self._services_lock = threading.Lock()
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        # One daemon per socket, held until shutdown.
        self._instance = InstanceLock(self.socket_path.with_name("daemon.lock"))
        self._user: Scope | None = None
        self.started_at = datetime.now(UTC)
        self.requests_served = 0

    # --- what it works on ------------------------------------------------------------------

    def active_scopes(self) -> list[Scope]:
        """The named scopes, or the active project and context scopes (not the user's)."""
        if self._named is not None:
            return list(self._named)
        return active_scopes(used_since=self.started_at)

    def targets(self) -> list[tuple[str, Callable[[], Scope]]]:
        """(name, how to get the scope) for every loop pair. The user scope's id is asked of
        the provider when a loop runs, so a broker that is down fails that pair alone."""
        if self._named is not None:
            return [(str(s), _constant(s)) for s in self._named]
        return machine_targets(self.started_at, user=self.user_scope)

    def user_scope(self) -> Scope:
        """The user scope (asked of the provider until it answers once)."""
        if self._user is None:
            self._user = Scope("user", providers.user_id())
        return self._user

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
                return found[0]
            opened, uri = open_quietly(scope, create=create, embedder=self.embedder)
            if opened is None:
                return None  # no table yet: nothing to embed or maintain
            self._services[key] = (opened, uri)
            return opened

    def _used(self, scope: Scope) -> None:
        """A warm-path request is a use of its scope: `scopes` LAST USED moves, and the scope
        stays active."""
        found = self._services.get(str(scope))
        if found is not None:
            scopes.record_scope_use(scope, found[1])

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
        self._instance.acquire("a graphit daemon")
        try:
            self._serve_socket()
        except BaseException:
            self._instance.release()
            raise
        # The model loads while the first requests are served: a write embeds its rows before
        # it answers once the model is there.
        threading.Thread(target=self._warm_model, name="model", daemon=True).start()
        targets = self.targets()
        for name, resolve in targets:
            self._start_pair(name, resolve)
        self.log.emit(
            "info", "daemon.started", pid=os.getpid(), socket=self.socket_path, scopes=len(targets)
        )

    def _start_pair(self, name: str, resolve: Callable[[], Scope]) -> None:
        s = self.settings
        self.supervisor.start(
            Loop("embed", name, s.embed_interval, lambda: self.embed_once(resolve()))
        )
        self.supervisor.start(
            Loop("maintain", name, s.maintain_interval, lambda: self.maintain_once(resolve()))
        )

    def run(self) -> int:
        """Run in the foreground until SIGINT/SIGTERM; returns the exit code."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: self.stop.set())
        self.start()
        known = {loop.scope for loop in self.supervisor.loops}
        while not self.stop.wait(min(5.0, self.settings.embed_interval)):
            for name, resolve in self.targets():  # a project first used after start-up
                if name not in known:
                    known.add(name)
                    self._start_pair(name, resolve)
        self.shutdown()
        return 0

    def run_once(self) -> int:
        """`--once`: every job once, in order. A scope that fails (even before its jobs: a
        broker down) does not stop the others; the exit code is then the first failure's
        (7 for an unreachable broker; 1 for an unexpected error)."""
        code = 0
        for name, resolve in self.targets():
            for kind, job in (("embed", self.embed_once), ("maintain", self.maintain_once)):
                try:
                    job(resolve())
                except Exception as exc:
                    self.log.emit("error", f"{kind}.error", scope=name, error=str(exc))
                    code = code or (int(exc.exit_code) if isinstance(exc, GraphitError) else 1)
        return code

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
        self._instance.release()
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

    def _open_for_request(self, scope: Scope) -> MemoryService:
        opened = self.service(scope, create=True)
        assert opened is not None
        self._used(scope)
        return opened

    def _warm_model(self) -> None:
        try:
            self.embedder()
        except Exception as exc:  # a broken GRAPHIT_EMBEDDER: the loops report it when used
            self.log.emit("warn", "embed.unavailable", reason=str(exc))

    def _dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "ping":
            return {"pid": os.getpid(), "version": __version__, "loops": self.supervisor.snapshot()}
        return warmpath.answer(request, self._open_for_request, lambda: self._embedder)


def _constant(scope: Scope) -> Callable[[], Scope]:
    return lambda: scope


def ping() -> dict[str, Any] | None:
    """The running daemon's pid, version and loops (whatever protocol it speaks); None when
    none answers."""
    reply = wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0)
    return reply if reply is not None and reply.get("ok") else None
