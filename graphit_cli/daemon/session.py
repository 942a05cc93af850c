"""An agent session's warm server: the hooks answered warm while the session is open.

Design ("warm without asking", docs/architecture.md): the agent's MCP server (`graphit memory
mcp`, which the client starts with the session and stops with it) serves the warm path's reads
on a socket of its own, `run/s/<pid>.sock`, with the same request handling as the
daemon (`warmpath.Warmpath`, reads only: a write is declined and its command carries it out),
its own open scopes (`services.py`) and the process's model (`model.py`; `embed.load_default`
loads it once per process, so the MCP tools and this server share it). Nothing is spawned: the
server lives and ends with the session's own process, so nothing the user did not start
outlives the session. A session killed outright leaves its socket file behind; the next client
finds nobody listening there and removes it (`warm/client.py`).

A running daemon stays first: the thin client asks `daemon.sock` before the sessions' sockets.
`GRAPHIT_NO_DAEMON` turns this off as it turns off the daemon's warm path.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

from graphit_cli import __version__
from graphit_cli.access import runstate
from graphit_cli.daemon import serving
from graphit_cli.daemon.model import SharedModel
from graphit_cli.daemon.services import ServiceCache
from graphit_cli.daemon.supervisor import EventLog
from graphit_cli.daemon.warmpath import Warmpath
from graphit_cli.warm.client import SESSIONS

if TYPE_CHECKING:
    from pathlib import Path

JOIN_SECONDS = 10.0  # the requests being answered when the session ends (a hang bound)
# The MCP server's own start and first tool call go first (both need the GIL); a session's
# first prompt comes later than this, and a request before it opens what it needs itself.
WARM_DELAY = 3.0


def sessions_dir() -> Path:
    return runstate.run_dir() / SESSIONS


class SessionServer:
    def __init__(self, log: EventLog | None = None) -> None:
        from io import StringIO

        self.stop = threading.Event()
        self.log = log or EventLog(StringIO())  # the MCP server's stderr is the client's log
        self.model = SharedModel(None, self.stop)
        self.services = ServiceCache(self.model)
        self.path = sessions_dir() / f"{os.getpid()}.sock"
        self.warmpath = Warmpath(
            self.services.writer,
            self.services.reader,
            self.model.loaded,
            self.log,
            self.path.parent,
            self._ping,
            writes=False,
        )
        self._answering = serving.Answering()
        self._server: serving.SocketServer | None = None
        self._threads: list[threading.Thread] = []

    def _ping(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "version": __version__, "session": True}

    def start(self, warm: Path | None = None) -> None:
        """Listen, and ready the model and the project at `warm` (the session's checkout) on
        a thread, so that the first prompt does not pay for them."""
        if self.path.exists():
            self.path.unlink()  # a pid reused after a session killed outright
        self._server = serving.listen(self.path, self.warmpath.answer, self._answering, self.stop)
        self._answering.start()
        serve = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="session-socket",
            daemon=True,
        )
        ready = threading.Thread(target=self._ready, args=(warm,), name="session-warm")
        ready.daemon = True
        self._threads = [serve, ready]
        for thread in self._threads:
            thread.start()

    def _ready(self, root: Path | None) -> None:
        if self.stop.wait(WARM_DELAY):
            return
        try:
            model = self.model()
            if model is not None and not self.stop.is_set():
                model.embed_query("warm")  # the query path's first run builds its session
            if root is not None and not self.stop.is_set():
                from graphit_cli.access.providers import resolve_scope

                self.services.reader(resolve_scope("project", root))
        except Exception as exc:  # no project here, no model: the requests say so themselves
            self.log.emit("info", "session.warm", reason=str(exc))

    def close(self) -> None:
        """Stop listening, remove the socket, and let the requests being answered finish
        (within JOIN_SECONDS)."""
        self.stop.set()
        server, self._server = self._server, None
        if server is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        server.shutdown()
        server.server_close()
        for thread in [*self._threads, *server.threads()]:
            thread.join(JOIN_SECONDS)
        self._answering.close()


def serve_session(root: Path | None = None) -> SessionServer | None:
    """A started session server, or None: GRAPHIT_NO_DAEMON, or no socket could be made
    (a read-only home; the hooks then work in-process, as without it)."""
    from graphit_cli import config

    if config.no_daemon():
        return None
    server = SessionServer()
    try:
        server.start(root)
    except OSError as exc:
        server.log.emit("warn", "session.unavailable", reason=str(exc))
        return None
    return server
