"""The daemon's socket server: one thread per request, each kept so that the daemon's shutdown
can join it within its drain bound (`process.py`), and a keep-alive (a space a second, JSON
whitespace) to every request being worked on, so that its caller tells a daemon at work from
one that is stopped or frozen (`wire.py` reads it). Knows nothing of what a request means.
"""

from __future__ import annotations

import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from graphit_cli.daemon import wire

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


class Reply:
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
        self._open: set[Reply] = set()
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
    def track(self, reply: Reply) -> Iterator[Reply]:
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
