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

One job, the process's life: its lock, its loops and its socket start and stop together
(which scopes it serves is `daemon/scopes.py`; what a request means is `daemon/warmpath.py`).
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
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli import __version__
from graphit_cli.access import providers, runstate, scopes
from graphit_cli.access.scopes import Scope
from graphit_cli.daemon import scopes as targets_
from graphit_cli.daemon import warmpath, wire
from graphit_cli.daemon.scopes import USER_TARGET, constant, gone_reason, login_now, present
from graphit_cli.daemon.supervisor import DaemonSettings as DaemonSettings
from graphit_cli.daemon.supervisor import EventLog as EventLog
from graphit_cli.daemon.supervisor import InstanceLock, Loop, Supervisor
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, in_words

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService

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
        # scope -> (its service, table URI, read-only): opened once, dropped with the scope
        self._services: dict[str, tuple[MemoryService, str, bool]] = {}
        self._services_lock = threading.Lock()
        self._known: set[str] = set()  # the loop pairs running, by target name
        self._login: object = None  # the login the user pair was started under
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
        return targets_.active_scopes(used_since=self.started_at)

    def targets(self) -> list[tuple[str, Callable[[], Scope]]]:
        """(name, how to get the scope) for every loop pair. The user scope's id is asked of
        the provider when a loop runs, so a broker that is down fails that pair alone. A local
        scope of the lock whose table is gone (pruned, removed, deleted) is no target."""
        if self._named is not None:  # named on the command line: kept, even before a table
            return [(str(s), constant(s)) for s in self._named]
        found = targets_.machine_targets(self.started_at, user=self.user_scope)
        return [(name, get) for name, get in found if name == USER_TARGET or present(name)]

    def user_scope(self) -> Scope:
        """The user scope as the provider says now: after a login or a logout the user pair
        works on the new user, and the previous user's table is let go."""
        current = Scope("user", providers.user_id())
        previous, self._user = self._user, current
        if previous is not None and previous != current:
            self._forget(previous)
            self.log.emit("info", "user.changed", previous=previous, current=current)
        return current

    def follow(self) -> None:
        """Follow the scopes: loops for a scope that became active, none for one that went
        away (its loops end now and its table is let go), and the user pair restarted when
        the login changed, so the logged-in user is maintained at once."""
        current = dict(self.targets())
        for name in sorted(self._known - current.keys()):
            self.supervisor.retire(name)
            self._known.discard(name)
            try:
                self._forget(scopes.parse_scope_ref(name))
            except InvalidInput:
                pass
            self.log.emit("info", "scope.dropped", scope=name, reason=gone_reason(name))
        for name, resolve in current.items():
            if name not in self._known:
                self._start_pair(name, resolve)
        login = login_now()
        if USER_TARGET in self._known and login != self._login:
            self.supervisor.retire(USER_TARGET)
            self._known.discard(USER_TARGET)
            self._start_pair(USER_TARGET, current.get(USER_TARGET, self.user_scope))
        self._login = login

    def _forget(self, scope: Scope) -> None:
        with self._services_lock:
            self._services.pop(str(scope), None)

    def embedder(self) -> Embedder | None:
        with self._embedder_lock:
            if self._embedder is None:
                from graphit_cli.embed import load_default

                inner = (self._embedder_factory or load_default)()
                self._embedder = _LockedEmbedder(inner) if inner is not None else None
            return self._embedder

    def service(
        self, scope: Scope, *, create: bool = False, background: bool = True
    ) -> MemoryService | None:
        """The scope's service, opened once; None while the scope has no table, once its
        local table is gone, and for background work on an attached (read-only) context."""
        from graphit_cli.access.opening import open_scope
        from graphit_cli.service.memory import MemoryService
        from graphit_cli.store.paths import local_table_exists

        key = str(scope)
        with self._services_lock:
            found = self._services.get(key)
            gone = found is not None and not scopes.is_remote_uri(found[1])
            if gone and found is not None and not local_table_exists(found[1]):
                del self._services[key]  # pruned or deleted under us
                found = None
                if not create:
                    return None
            if found is None:
                opened = open_scope(scope, create=create, record_use=False, keep=True)
                if opened is None:
                    return None  # no table yet: nothing to embed or maintain
                svc = MemoryService(opened.store, scope, embedder=self.embedder)
                found = self._services[key] = (svc, opened.uri, opened.read_only)
            return None if background and found[2] else found[0]

    def _used(self, scope: Scope) -> None:
        """A warm-path request is a use of its scope: `scopes` LAST USED moves, and the scope
        stays active."""
        found = self._services.get(str(scope))
        if found is not None:
            scopes.record_scope_use(scope, found[1])

    # --- the two jobs ----------------------------------------------------------------------

    def _job(self, job: Callable[[Scope], None], resolve: Callable[[], Scope]) -> None:
        """One run of a loop. A scope whose local table went away meanwhile is let go
        quietly (`follow` ends its loops); any other failure reaches the supervisor."""
        scope = resolve()
        try:
            job(scope)
        except Exception:
            if scope.kind != "user" and not present(str(scope)):
                self._forget(scope)
                return
            raise

    def _model_id(self) -> str | None:
        """The model this daemon embeds with, without loading it when it can be named."""
        if self._embedder is not None:
            return self._embedder.model_id
        if self._embedder_factory is None:
            from graphit_cli.embed import chosen_model_id

            return chosen_model_id()
        return None

    def embed_once(self, scope: Scope) -> None:
        svc = self.service(scope)
        if svc is None or not svc.needs_embedding(self._model_id()):
            return  # empty tables, and tables with nothing to embed, cost no model load
        if self.embedder() is None:
            self.log.emit(
                "warn",
                "embed.unavailable",
                scope=scope,
                reason="the embedding model is not installed",
            )
            return
        try:
            report = svc.embed(should_stop=self.stop.is_set)
        except InvalidInput as exc:  # a shared table of a model not installed here
            self.log.emit("warn", "embed.skipped", scope=scope, reason=exc.message)
            return
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
        self._login = login_now()
        self.log.emit(
            "info", "daemon.started", pid=os.getpid(), socket=self.socket_path, scopes=len(targets)
        )

    def _start_pair(self, name: str, resolve: Callable[[], Scope]) -> None:
        s = self.settings
        self._known.add(name)
        self.supervisor.start(
            Loop("embed", name, s.embed_interval, lambda: self._job(self.embed_once, resolve))
        )
        self.supervisor.start(
            Loop(
                "maintain",
                name,
                s.maintain_interval,
                lambda: self._job(self.maintain_once, resolve),
            )
        )

    def run(self) -> int:
        """Run in the foreground until SIGINT/SIGTERM; returns the exit code."""
        from graphit_cli.daemon.footprint import limit_malloc_arenas

        limit_malloc_arenas()  # before the loops' and the socket's threads allocate
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: self.stop.set())
        self.start()
        # Reading the scope-reference lock and providers.json costs well under a millisecond.
        while not self.stop.wait(min(1.0, self.settings.embed_interval)):
            try:
                self.follow()
            except GraphitError as exc:  # a hand-broken lock or providers.json: say so, go on
                self.log.emit("error", "daemon.follow", error=in_words(exc))
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
                    self.log.emit("error", f"{kind}.error", scope=name, error=in_words(exc))
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
        from graphit_cli.daemon.footprint import release_free_memory

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
                self.wfile.flush()
                release_free_memory()  # answered: the caller does not wait for this

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
            self.log.emit("error", "request.error", error=in_words(exc))
            return wire.error_to_wire(GraphitError(f"daemon error: {exc}"))

    def _open_for_request(self, scope: Scope) -> MemoryService:
        opened = self.service(scope, create=True, background=False)
        assert opened is not None
        self._used(scope)
        return opened

    def _warm_model(self) -> None:
        from graphit_cli.embed import ready_for_documents

        try:
            model = self.embedder()
            if model is not None:
                ready_for_documents(model)  # not on the first write it carries out
        except Exception as exc:  # a broken GRAPHIT_EMBEDDER: the loops report it when used
            self.log.emit("warn", "embed.unavailable", reason=str(exc))

    def _dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "ping":
            loops = self.supervisor.snapshot()
            user = str(self._user) if self._user is not None else None
            return {"pid": os.getpid(), "version": __version__, "loops": loops, "user": user}
        return warmpath.answer(request, self._open_for_request, lambda: self._embedder)


def ping() -> dict[str, Any] | None:
    """The running daemon's pid, version and loops (whatever protocol it speaks); None when
    none answers."""
    reply = wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0)
    return reply if reply is not None and reply.get("ok") else None
