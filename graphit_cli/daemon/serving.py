"""A warm process's socket server: one thread per request, each kept so that the daemon's
shutdown can join it within its drain bound (`process.py`), and a keep-alive (a space a second,
JSON whitespace) to every request being worked on, so that its caller tells a daemon at work
from one that is stopped or frozen (`warm/wire.py` reads it). Knows nothing of what a request means:
`listen` hands each request line to the process's `answer` (`warmpath.Warmpath.answer`).
Serves the daemon (`process.py`) and an agent session's warm server (`session.py`) alike.
"""

from __future__ import annotations

import json
import os
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from graphit_cli.warm import wire

# --- the socket server --------------------------------------------------------------------


class SocketServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """A thread per request, each one kept so that shutdown can join it (with a bound)."""

    daemon_threads = True  # joined by `Daemon.shutdown`, or left by os._exit: never unwound
    block_on_close = False  # the daemon joins them itself, within its drain bound
    request_queue_size = 64  # callers arriving together wait in the queue, not at connect

    def __init__(self, path: str, handler: type[socketserver.BaseRequestHandler]) -> None:
        super().__init__(path, handler)
        self.handlers: set[threading.Thread] = set()
        self._guard = threading.Lock()

    answer: Callable[[bytes], dict[str, Any]]  # what a request line is answered with
    answering: Answering
    stopping: threading.Event

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_one, args=(request, client_address), name="request", daemon=True
        )
        with self._guard:
            self.handlers.add(thread)
        thread.start()

    def threads(self) -> list[threading.Thread]:
        """The requests' threads still running (joined by the daemon's shutdown)."""
        with self._guard:
            return list(self.handlers)

    def _serve_one(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._guard:
                self.handlers.discard(threading.current_thread())


class SocketReply:
    """One request's connection: its answer, and a keep-alive while it is being worked on."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self._lock = threading.Lock()
        self.started = time.monotonic()
        self._closed = False

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                self._out.write(data)
                self._out.flush()
            except OSError:  # the caller went away: it has its own deadline
                self._closed = True

    def send(self, line: bytes) -> None:
        self._write(line)
        self._closed = True

    def beat(self) -> None:
        self._write(wire.KEEPALIVE)


class Answering:
    """The requests being worked on: every second, a space to each one older than a second,
    so that its caller tells a daemon at work from one that is stopped (SIGSTOP) or stuck."""

    BEAT = 1.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: set[SocketReply] = set()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._beat, name="keepalive", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    def count(self) -> int:
        with self._lock:
            return len(self._open)

    @contextmanager
    def track(self, reply: SocketReply) -> Iterator[SocketReply]:
        with self._lock:
            self._open.add(reply)
        try:
            yield reply
        finally:
            with self._lock:
                self._open.discard(reply)

    def _beat(self) -> None:
        while not self._done.wait(self.BEAT):
            now = time.monotonic()
            with self._lock:
                due = [r for r in self._open if now - r.started >= self.BEAT]
            for reply in due:
                reply.beat()


class Handler(socketserver.StreamRequestHandler):
    """One connection: one request line, one answer line (keep-alives before it)."""

    timeout = 30.0  # a caller that connects and sends nothing does not hold a thread
    server: SocketServer

    def handle(self) -> None:
        from graphit_cli.daemon.footprint import release_free_memory

        try:
            line = self.rfile.readline()
        except OSError:
            return
        if not line.strip():
            return
        reply = SocketReply(self.wfile)
        server = self.server
        with server.answering.track(reply):
            if server.stopping.is_set():  # read after SIGTERM: the CLI runs it itself
                answer = wire.declined("the daemon is stopping")
            else:
                answer = server.answer(line)
            reply.send(json.dumps(answer).encode() + b"\n")
        release_free_memory()  # answered: the caller does not wait for this


def listen(
    path: Path,
    answer: Callable[[bytes], dict[str, Any]],
    answering: Answering,
    stopping: threading.Event,
) -> SocketServer:
    """A server on a new socket at `path` (mode 0600, never briefly wider, in a 0700
    directory); its caller runs `serve_forever` on a thread and shuts it down."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    old_umask = os.umask(0o177)
    try:
        server = SocketServer(str(path), Handler)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    server.answer, server.answering, server.stopping = answer, answering, stopping
    return server
