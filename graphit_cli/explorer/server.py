"""Serving the Explorer: bind, make the run's token and URL, run uvicorn until told to stop.

Imported only by the command that serves (uvicorn is not for `graphit --help`). The socket is
bound before uvicorn starts, so port 0 yields the real port for the printed URL
and a port already in use is a clean error instead of a log line. SIGINT and SIGTERM stop the
server gracefully; `run` then returns (no signal is re-raised), so the command exits 0.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import secrets
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from graphit_cli.errors import Conflict, InvalidInput, NoProject

if TYPE_CHECKING:
    from graphit_cli.explorer.api import Opener

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7420
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def accepted_hosts(host: str) -> set[str] | None:
    """Host names a request may carry: the bound address or localhost; any for a wildcard."""
    if host in WILDCARDS:
        return None
    return {host.strip("[]").lower(), "localhost"}


def _bind(host: str, port: int) -> socket.socket:
    address = "127.0.0.1" if host.lower() == "localhost" else host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it a keep-alive response waits ~40 ms for a delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((address, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise Conflict(
                f"cannot listen on {host}:{port}: the port is in use "
                "(another explorer? pass --port 0 for a free port)"
            ) from None
        raise InvalidInput(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _start_scope(cwd: Path | None) -> str:
    from graphit_cli.access import scopes

    try:
        scopes.current_project_id(cwd)
    except NoProject:
        return "user"
    return "project"


class ExplorerServer:
    """One run of the Explorer: bound on construction, serving in `run` until `stop`."""

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        *,
        allow_remote: bool = False,
        cwd: Path | None = None,
        opener: Opener | None = None,
        token: str | None = None,
    ) -> None:
        if not is_loopback(host) and not allow_remote:
            raise InvalidInput(
                f"--host {host} would let other machines reach your memories: "
                "add --allow-remote to mean it"
            )
        if not 0 <= port <= 65535:
            raise InvalidInput(f"port {port} is out of range (0-65535; 0 picks a free port)")
        self.token = token or secrets.token_urlsafe(32)
        self.socket = _bind(host, port)
        self.port = int(self.socket.getsockname()[1])
        shown = DEFAULT_HOST if host in WILDCARDS else host.strip("[]")
        shown = f"[{shown}]" if ":" in shown else shown
        scope = _start_scope(cwd)
        self.url = f"http://{shown}:{self.port}/memory/explorer/{scope}/?token={self.token}"
        self._host = host
        self._cwd = cwd
        self._opener = opener
        self._server: uvicorn.Server | None = None
        self._stop_requested = False
        self.started = threading.Event()

    def run(self, on_ready: Callable[[], None] | None = None) -> None:
        """Serve until SIGINT/SIGTERM (in the main thread) or `stop()`.

        The signal handlers are in place before `on_ready` runs (it prints the URL), so a
        signal sent as soon as the URL appears still stops the server cleanly.
        """
        from graphit_cli.explorer.app import create_app

        app = create_app(
            token=self.token, hosts=accepted_hosts(self._host), opener=self._opener, cwd=self._cwd
        )
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=5,
            server_header=False,
        )
        server = _Server(config, self.started)
        self._server = server
        with self._signals():
            if self._stop_requested:
                server.should_exit = True
            if on_ready is not None:
                on_ready()
            try:
                server.run(sockets=[self.socket])
            finally:
                self.socket.close()

    @contextlib.contextmanager
    def _signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def handle(sig: int, frame: object) -> None:
            server = self._server
            if server is not None and server.should_exit and sig == signal.SIGINT:
                server.force_exit = True  # a second Ctrl-C: stop waiting for connections
            self.stop()

        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, handle) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def stop(self) -> None:
        self._stop_requested = True
        if self._server is not None:
            self._server.should_exit = True

    def open_browser_when_ready(self, opener: Callable[[str], object] | None = None) -> None:
        """Open the URL in the user's browser once the server answers (a daemon thread)."""

        def wait_and_open() -> None:
            import webbrowser

            if self.started.wait(30):
                with contextlib.suppress(Exception):  # no browser is not an error
                    (opener or webbrowser.open)(self.url)

        threading.Thread(target=wait_and_open, name="explorer-open", daemon=True).start()


class _Server(uvicorn.Server):
    """uvicorn's Server, minus its own signal handling (ExplorerServer installs handlers before
    the URL is printed, and uvicorn's would re-raise the signal after a clean stop)."""

    def __init__(self, config: uvicorn.Config, started: threading.Event) -> None:
        super().__init__(config)
        self._started_event = started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self._started_event.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield
