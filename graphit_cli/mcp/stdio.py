"""`graphit memory mcp`'s process: stdin and stdout, the first answer, and a clean stop.

A client waits for the `initialize` answer before anything else, and the MCP SDK takes one to
two seconds to import. So the main thread, with the standard library only, reads stdin and
answers a well-formed `initialize` and every `tools/list` for the first page itself
(handshake.py: the tool list is static data), while the `graphit-mcp-server` thread imports the
SDK, builds the server (server.py) and starts the warm-up (background.py). Every line, those
requests included, goes to the SDK in arrival order, so the SDK's session state is its own; its
answers to the requests already answered are dropped (and compared).

Stopping: at the end of stdin, or on SIGINT or SIGTERM, the main thread stops reading; the SDK
answers what it already has and returns; the background thread finishes its step and is
joined; the process exits 0. No thread is a daemon thread, so the interpreter never tears down
native code (LanceDB, onnxruntime) under a running thread. A background thread still busy
STOP_GRACE_SECONDS after the stop (importing LanceDB or loading the model, which under load
takes a minute) is not waited for: every answer is out, so the process ends at once with
`os._exit`, which tears nothing down (a backfill commit cut there is a killed writer's, which
the table survives).

While serving, fd 0 reads /dev/null and fd 1 writes to stderr (the wire is on private
descriptors), so a library's stray print never corrupts the protocol, as in the SDK's own stdio
transport.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import queue
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from graphit_cli.mcp import handshake

if TYPE_CHECKING:
    from graphit_cli.mcp.background import Background

log = logging.getLogger(__name__)

READ_SIZE = 1 << 16
# Seconds the requests the SDK already has get to be answered once the input ends (a hang
# bound: a tool call runs to its end whatever happens, as its thread is joined).
DRAIN_SECONDS = 60.0
# Seconds the background thread gets to end its step once stopping (see the docstring).
STOP_GRACE_SECONDS = 2.0


def _private_copy(fd: int) -> int:
    """A close-on-exec duplicate of `fd` above the standard descriptors."""
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def _key(ident: Any) -> tuple[type, Any] | None:
    """A JSON-RPC id as a set key (1 and "1" are different ids), or None if it is not one."""
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    return (type(ident), ident)


def _messages(text: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one line (a batch is a list of them); none if not JSON."""
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return []
    items = parsed if isinstance(parsed, list) else [parsed]
    return [m for m in items if isinstance(m, dict)]


class Wire:
    """The client's end: lines in from stdin, lines out to stdout under one lock.

    `answer_first` answers a well-formed `initialize` at once, `answer_listing` a `tools/list`;
    `from_server` passes the SDK's lines on, except its own answers to those requests.
    `expect` notes each request the SDK owes an answer, so `drain` can wait for those answers
    before the SDK's input is closed (the SDK drops the answer of a request still running when
    its input ends)."""

    def __init__(self, stdin: int = 0, stdout: int = 1) -> None:
        self.input = _private_copy(stdin)
        self.output = _private_copy(stdout)
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, stdin)
            os.close(devnull)
        with contextlib.suppress(OSError):
            os.dup2(2, stdout)
        self._lock = threading.Lock()
        # The answers sent early, per id (a list: a client may reuse an id once answered).
        self._answered: dict[tuple[type, Any], list[dict[str, Any]]] = {}
        self._handshake = False  # `initialize` answered here: tools/list is answered too
        self._owed: set[tuple[type, Any]] = set()
        self._settled = threading.Condition()

    def send(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        with self._lock:
            while data:
                data = data[os.write(self.output, data) :]

    def answer_first(self, line: str) -> None:
        """Answer the client's first message if it is an `initialize` handshake.py knows."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return
        ident = handshake.request_id(message)  # None for a batch, or anything unusual
        if ident is None:
            return
        handshake.remember_client(message)
        self._handshake = True
        self._early(ident, handshake.answer(message, ident))

    def answer_listing(self, line: str) -> None:
        """Answer a `tools/list` for the first page from the static tool list, on a connection
        whose `initialize` was answered here (the handshake's protocol, whose answer it is)."""
        if not self._handshake or '"tools/list"' not in line:  # most lines: no second parse
            return
        try:
            message = json.loads(line)
        except ValueError:
            return
        ident = handshake.listing_id(message)
        if ident is not None:
            self._early(ident, handshake.tools_answer(ident))

    def _early(self, ident: int | str, reply: dict[str, Any]) -> None:
        key = _key(ident)
        assert key is not None
        with self._settled:
            self._answered.setdefault(key, []).append(reply)
        self.send(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")

    def expect(self, line: str) -> None:
        """Note the requests of a line from the client (before the SDK gets it)."""
        for message in _messages(line):
            key = _key(message.get("id"))
            with self._settled:
                if "method" in message and key is not None:
                    self._owed.add(key)
                elif message.get("method") == "notifications/cancelled":  # answered by no one
                    params = message.get("params")
                    cancelled = _key(params.get("requestId")) if isinstance(params, dict) else None
                    self._owed.discard(cancelled)  # type: ignore[arg-type]
                    self._settled.notify_all()

    def from_server(self, text: str) -> None:
        for message in _messages(text) if self._answered or self._owed else []:
            if "method" in message:
                continue
            key = _key(message.get("id"))
            with self._settled:
                self._owed.discard(key)  # type: ignore[arg-type]
                self._settled.notify_all()
                sent = self._answered.get(key) if key is not None else None
                early = sent.pop(0) if sent else None
                if sent == []:
                    del self._answered[key]  # type: ignore[arg-type]
            if early is not None:
                if message != early:
                    log.warning(
                        "the MCP SDK answers otherwise than the early answer sent: %s",
                        text.strip()[:2000],
                    )
                return
        self.send(text if text.endswith("\n") else text + "\n")

    def drain(self, seconds: float, serving: Callable[[], bool]) -> bool:
        """Wait up to `seconds` for the SDK to answer every request it has (while `serving`)."""
        deadline = time.monotonic() + seconds
        with self._settled:
            while self._owed and serving():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._settled.wait(min(left, 0.5))
            return not self._owed


class Inbox:
    """The lines for the SDK, in arrival order; None for every read once input has ended."""

    def __init__(self) -> None:
        self._lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()

    def put(self, line: str) -> None:
        self._lines.put(line)

    def close(self) -> None:
        self._lines.put(None)

    def get(self) -> str | None:
        line = self._lines.get()
        if line is None:
            self._lines.put(None)  # a later read sees the end too
        return line


class _Lines:
    """The Inbox as the async text file the SDK's stdio transport iterates.

    A request the SDK cannot read (a lone surrogate escape such as `\\ud800`, which is no
    Unicode text; a field of the wrong type) it would leave unanswered, and the client (and
    the drain at the end of input) would wait for its answer: such a request is answered here,
    with a JSON-RPC error in words, and never reaches the SDK."""

    def __init__(self, inbox: Inbox, wire: Wire) -> None:
        self.inbox = inbox
        self.wire = wire

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        import anyio.to_thread

        while True:
            line = await anyio.to_thread.run_sync(self.inbox.get, abandon_on_cancel=True)
            if line is None:
                raise StopAsyncIteration
            refusal = handshake.refusal(line)
            if refusal is None:
                return line
            self.wire.from_server(refusal)


class _Out:
    """The Wire as the async text file the SDK's stdio transport writes."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    async def write(self, text: str) -> None:
        self.wire.from_server(text)

    async def flush(self) -> None:
        return None


class Stopper:
    """Ends the read loop from a signal handler or another thread (a self-pipe)."""

    def __init__(self) -> None:
        self.wake, self.poke = os.pipe()
        os.set_blocking(self.poke, False)
        self.signalled: int | None = None
        self.requested = threading.Event()

    def stop(self) -> None:
        self.requested.set()
        with contextlib.suppress(OSError):  # full: it is awake already
            os.write(self.poke, b"\0")

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signalled = signum
        self.stop()


class ServerThread(threading.Thread):
    """Imports the SDK, builds the server, starts the warm-up, serves the Inbox; on its way
    out stops and joins the background thread, then wakes the main thread."""

    def __init__(self, wire: Wire, inbox: Inbox, stopper: Stopper) -> None:
        super().__init__(name="graphit-mcp-server")
        self.wire, self.inbox, self.stopper = wire, inbox, stopper
        self.error: BaseException | None = None
        self.unfinished = False  # the background thread outlived its grace (see `serve`)

    def run(self) -> None:
        background: Background | None = None
        session = None
        try:
            import anyio

            from graphit_cli.mcp.background import Background
            from graphit_cli.mcp.server import build_server
            from graphit_cli.mcp.tools import MemoryTools

            tools = MemoryTools()
            server = build_server(tools)
            # The first search should not pay for opening the table and loading the model,
            # and the scopes the server opens get their missing vectors filled. Started after
            # the SDK's import, which it would slow down (both need the GIL): tools/list first.
            background = Background(tools)
            if not self.stopper.requested.is_set():
                background.start("project")
                # The session's hooks are answered warm by this process (daemon/session.py).
                from pathlib import Path

                from graphit_cli.daemon.session import serve_session

                session = serve_session(Path.cwd())
            anyio.run(server.serve_streams, _Lines(self.inbox, self.wire), _Out(self.wire))
        except BaseException as exc:
            self.error = exc
        finally:
            if session is not None:
                session.close()
            if background is not None:
                background.stop()
                self.unfinished = not background.join(STOP_GRACE_SECONDS)
            self.stopper.stop()


def read_loop(wire: Wire, inbox: Inbox, stopper: Stopper) -> None:
    """Lines from the client into the Inbox until stdin ends or `stopper` fires."""
    parts: list[bytes] = []  # the line being read, in chunks (a long one is never re-split)
    first = True
    while not stopper.requested.is_set():
        ready = select.select([wire.input, stopper.wake], [], [])[0]
        if stopper.wake in ready:
            # A stop, or a signal's byte (the wakeup fd): its handler runs in this thread
            # before the loop's test, and a handler that stops writes another byte.
            os.read(stopper.wake, READ_SIZE)
            continue
        chunk = os.read(wire.input, READ_SIZE)
        if chunk and b"\n" not in chunk:
            parts.append(chunk)
            continue
        if chunk:
            *complete, rest = b"".join([*parts, chunk]).split(b"\n")
            parts = [rest]
        else:  # the end of input: a last line without its newline still counts
            complete, parts = [b"".join(parts)], []
        for raw in complete:
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            if first:
                first = False
                wire.answer_first(line)
            else:
                wire.answer_listing(line)
            wire.expect(line)
            inbox.put(line + "\n")
        if not chunk:
            return


def serve() -> None:
    """Serve over stdin/stdout until stdin ends, SIGINT or SIGTERM; then stop cleanly."""
    stopper = Stopper()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stopper.on_signal)
    # The kernel may deliver a signal to any thread (one loading the model, say): Python then
    # runs the handler only once the main thread runs again, and it is blocked in select().
    # The wakeup fd is written by the C-level handler in whichever thread took the signal.
    previous = signal.set_wakeup_fd(stopper.poke, warn_on_full_buffer=False)
    wire = Wire()
    inbox = Inbox()
    server = ServerThread(wire, inbox, stopper)
    server.start()
    try:
        read_loop(wire, inbox, stopper)
        wire.drain(DRAIN_SECONDS, server.is_alive)  # what the SDK has is answered first
    finally:
        inbox.close()  # then its stdin ends
        server.join()
        signal.set_wakeup_fd(previous)
    if server.error is not None and stopper.signalled is None and not _left(server.error):
        raise server.error
    if server.unfinished:
        _exit_now()


def _exit_now() -> None:
    """Exit 0 at once, without waiting for the background thread (see the docstring): what
    Python buffers is flushed first, the interpreter is not torn down."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


def _left(error: BaseException) -> bool:
    """Whether `error` only says the client went away (its end of stdout closed)."""
    if isinstance(error, BaseExceptionGroup):
        return all(_left(e) for e in error.exceptions)
    return isinstance(error, BrokenPipeError | ConnectionResetError)
