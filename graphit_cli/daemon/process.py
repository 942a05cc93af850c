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
socket (mode 0600, protocol in `warm/wire.py`), so a cold CLI skips the model's and lancedb's
imports.

SIGTERM or SIGINT drains it: it stops taking requests (those not yet read are declined, and
the CLI runs them itself), answers the ones it is carrying out, joins every thread (requests,
loops, the model's warm-up) and exits 0; if that takes longer than `drain_seconds` (default
30 s) or a second signal comes, it logs what it leaves and exits 1 without unwinding the
threads still inside native code. While it works on a request it sends the caller a space a
second, so a CLI tells a slow daemon from a stopped one (`warm/wire.py`).

One job, the process's life: its lock, its loops and its socket start and stop together.
Where the rest lives: which scopes it serves, `scopes.py`; the loops' jobs, `jobs.py`; its
open scopes, `services.py`; its model and the model's fair lock, `model.py`; the socket's
server and handler, `serving.py`; what a request means, `warmpath.py` and the operation table
(`warm/ops.py`).
Must not import Typer or Rich; the CLI adapter is `cli/daemon.py`.
"""

from __future__ import annotations

import os
import signal
import sys
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
from graphit_cli.daemon import serving, warmpath
from graphit_cli.daemon.jobs import Jobs
from graphit_cli.daemon.model import EmbeddingStopped as EmbeddingStopped
from graphit_cli.daemon.model import FairEmbedder, SharedModel
from graphit_cli.daemon.scopes import USER_TARGET, constant, gone_reason, login_now, present
from graphit_cli.daemon.services import ServiceCache
from graphit_cli.daemon.supervisor import DaemonSettings as DaemonSettings
from graphit_cli.daemon.supervisor import EventLog as EventLog
from graphit_cli.daemon.supervisor import InstanceLock, Loop, Supervisor
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, in_words
from graphit_cli.warm import wire

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService

# The model's fair lock lives in model.py (tests and benchmarks name it here too).
_LockedEmbedder = FairEmbedder


class Daemon:
    def __init__(
        self,
        settings: DaemonSettings | None = None,
        *,
        scopes_named: list[Scope] | None = None,
        embedder: Callable[[], Embedder | None] | None = None,
        log: EventLog | None = None,
        socket_path: Path | None = None,
        idle_exit: float = 0.0,
    ) -> None:
        self.settings = settings or DaemonSettings.load()
        self.idle_exit = idle_exit  # seconds without a request before it stops (0: never)
        self.log = log or EventLog()
        self.stop = threading.Event()
        self.supervisor = Supervisor(self.settings, self.log, self.stop)
        self.socket_path = socket_path or runstate.socket_path()
        self._named = scopes_named
        self.model = SharedModel(embedder, self.stop)
        self.services = ServiceCache(self.model)
        self.jobs = Jobs(self.service, self._model_id, self.embedder, self.stop, self.log)
        self.warmpath = warmpath.Warmpath(
            self.services.writer,
            self.services.reader,
            self.model.loaded,
            self.log,
            self.socket_path.parent,
            self._ping,
        )
        self._known: set[str] = set()  # the loop pairs running, by target name
        self._login: object = None  # the login the user pair was started under
        self._server: serving.SocketServer | None = None
        self._socket_thread: threading.Thread | None = None
        self._model_thread: threading.Thread | None = None
        self._answering = serving.Answering()
        self._hurry = threading.Event()  # a second signal: stop draining
        # One daemon per socket, held until shutdown.
        self._instance = InstanceLock(self.socket_path.with_name("daemon.lock"))
        self._user: Scope | None = None
        self.started_at = datetime.now(UTC)

    @property
    def requests_served(self) -> int:
        return self.warmpath.requests_served

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
        self.services.forget(scope)

    def embedder(self) -> Embedder | None:
        return self.model()

    def service(
        self, scope: Scope, *, create: bool = False, background: bool = True
    ) -> MemoryService | None:
        """The scope's service (`ServiceCache.service`)."""
        return self.services.service(scope, create=create, background=background)

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
        return self.model.model_id()

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
        self._model_thread = threading.Thread(target=self._warm_model, name="model", daemon=True)
        self._model_thread.start()
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
            Loop("embed", name, s.embed_interval, lambda: self._job(self.jobs.embed, resolve))
        )
        self.supervisor.start(
            Loop(
                "maintain",
                name,
                s.maintain_interval,
                lambda: self._job(self.jobs.maintain, resolve),
            )
        )

    def run(self) -> int:
        """Run in the foreground until SIGINT/SIGTERM; returns the exit code (0 once drained).
        A drain that runs out of time leaves the process with os._exit(1): threads still in
        native code (lance, the model) are never unwound under the interpreter's exit."""
        from graphit_cli.daemon.footprint import limit_malloc_arenas

        limit_malloc_arenas()  # before the loops' and the socket's threads allocate
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, self._on_signal)
        self.start()
        # Reading the scope-reference lock and providers.json costs well under a millisecond.
        served, since = self.requests_served, time.monotonic()
        while not self.stop.wait(min(1.0, self.settings.embed_interval)):
            try:
                self.follow()
            except GraphitError as exc:  # a hand-broken lock or providers.json: say so, go on
                self.log.emit("error", "daemon.follow", error=in_words(exc))
            if self.requests_served != served:
                served, since = self.requests_served, time.monotonic()
            elif self.idle_exit and time.monotonic() - since >= self.idle_exit:
                self.log.emit("info", "daemon.idle", seconds=self.idle_exit)
                self.stop.set()  # nobody asked for it: a daemon a hook started goes away
        if self.shutdown():
            return 0
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)

    def _on_signal(self, *_: object) -> None:
        if self.stop.is_set():
            self._hurry.set()  # a second Ctrl-C: leave now
        self.stop.set()

    def run_once(self) -> int:
        """`--once`: every job once, in order. A scope that fails (even before its jobs: a
        broker down) does not stop the others; the exit code is then the first failure's
        (7 for an unreachable broker; 1 for an unexpected error)."""
        code = 0
        for name, resolve in self.targets():
            for kind, job in (("embed", self.jobs.embed), ("maintain", self.jobs.maintain)):
                try:
                    job(resolve())
                except Exception as exc:
                    self.log.emit("error", f"{kind}.error", scope=name, error=in_words(exc))
                    code = code or (int(exc.exit_code) if isinstance(exc, GraphitError) else 1)
        return code

    def shutdown(self) -> bool:
        """Stop taking requests, let the ones being answered finish and answer them, end the
        loops, and join every thread; within `drain_seconds`. True when all of them ended
        (False: the ones left are logged, and the caller must not unwind them)."""
        self.stop.set()
        started = time.monotonic()
        deadline = started + self.settings.drain_seconds
        self.log.emit(
            "info",
            "daemon.stopping",
            requests=self._answering.count(),
            drain_seconds=f"{self.settings.drain_seconds:g}",
        )
        server, self._server = self._server, None
        if server is not None:
            # No new client finds the socket; then the accepting loop ends, and closing the
            # listening socket refuses the connections still queued on it (their CLI finds no
            # daemon and works in-process: a queued write was never taken).
            try:
                self.socket_path.unlink()
            except FileNotFoundError:
                pass
            server.shutdown()
            server.server_close()
        left = self._join(
            [self._socket_thread, *(server.threads() if server is not None else [])],
            deadline,
        )
        left += self._join([*self.supervisor.threads(), self._model_thread], deadline)
        if not left:
            self._answering.close()
        self._instance.release()
        if left:
            self.log.emit(
                "error",
                "daemon.abandoned",
                threads=",".join(sorted(t.name for t in left)),
                requests=self._answering.count(),
                seconds=f"{time.monotonic() - started:.1f}",
            )
            return False
        self.log.emit("info", "daemon.stopped", seconds=f"{time.monotonic() - started:.1f}")
        return True

    def _join(
        self, threads: list[threading.Thread | None], deadline: float
    ) -> list[threading.Thread]:
        """Join each thread until `deadline` or a second signal; the ones still running."""
        for thread in threads:
            while thread is not None and thread.is_alive() and not self._hurry.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                thread.join(min(0.1, left))
        return [t for t in threads if t is not None and t.is_alive()]

    # --- the warm path ---------------------------------------------------------------------

    def _serve_socket(self) -> None:
        path = self.socket_path
        if path.exists():
            if wire.exchange(path, {"op": "ping"}, timeout=1.0) is not None:
                raise Conflict(f"a graphit daemon is already running (socket {path})")
            path.unlink()  # left behind by a daemon that died
        server = serving.listen(path, self.answer, self._answering, self.stop)
        self._server = server
        self._answering.start()
        self._socket_thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="socket", daemon=True
        )
        self._socket_thread.start()

    def answer(self, line: bytes) -> dict[str, Any]:
        return self.warmpath.answer(line)

    def _warm_model(self) -> None:
        from graphit_cli.embed import ready_for_documents

        try:
            model = self.embedder()
            if model is not None:
                ready_for_documents(model)  # not on the first write it carries out
                model.embed_query("warm")  # nor the query path's on the first search
        except Exception as exc:  # a broken GRAPHIT_EMBEDDER: the loops report it when used
            self.log.emit("warn", "embed.unavailable", reason=str(exc))

    def _ping(self) -> dict[str, Any]:
        loops = self.supervisor.snapshot()
        user = str(self._user) if self._user is not None else None
        return {"pid": os.getpid(), "version": __version__, "loops": loops, "user": user}


def ping() -> dict[str, Any] | None:
    """The running daemon's pid, version and loops (whatever protocol it speaks); None when
    none answers."""
    reply = wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0)
    return reply if reply is not None and reply.get("ok") else None
