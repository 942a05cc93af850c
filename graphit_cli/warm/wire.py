"""The daemon's socket protocol: one JSON request line, one JSON response line.

Results travel with every field (`values.py`), so the CLI renders a daemon answer exactly as
it renders an in-process one. Only the standard library here: the client side runs in a cold CLI.

Versioned: every request and every reply carries `protocol`. A daemon refuses a request of
another version, and the client ignores a reply of another version (or none, as daemons
before version 2 sent), so an old daemon never answers a newer CLI: the CLI says so once on
stderr and does the work in-process. The socket is an input like any other: the daemon
validates what arrives exactly as the CLI validates its options.

Deadlines (docs/guides/daemon.md): connecting, sending and each silence while waiting for the
answer are bounded (`config.daemon_deadlines`); a write is arbitrated by a claim file
(`Claim`), so that a write no answer came back for is carried out once, by the daemon or by
the CLI, never by both. One job: the protocol, both its ends.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli import errors
from graphit_cli.errors import InvalidInput

# 2: replies carry the protocol; the daemon validates filters and refuses other versions.
# 3: the daemon carries writes (upsert, delete, restore, import).
# 4: a request carries `fingerprint` (access/fingerprint.py: which table each scope resolves to,
#    under which grant, with which settings) and a `request_id`, a write its `deadline` and a
#    claim file; the daemon keeps a working request's connection alive with a space a second;
#    it declines (`declined`: nothing done) a request it would answer otherwise, or when it is
#    stopping, or when the write came too late, and the CLI then works in-process.
# 5: a write carries `secrets` (refuse, redact or allow) and the daemon checks every draft for a
#    secret before writing it; a protocol-4 daemon (older graphit, still running after an
#    upgrade) would write them unchecked, so the CLI works in-process until it is restarted.
# 6: a hook's answer carries what it shows and its log entry, and the warm process neither
#    marks it shown nor logs it (the hook does, once it printed it); a protocol-5 process
#    would record answers nobody printed, so the hook works in-process until it is restarted.
PROTOCOL = 6
# The longest a daemon that keeps answering may take, in all (it sends a keep-alive every
# second while it works, so a stopped daemon is noticed after the answer deadline instead).
REPLY_TIMEOUT = 120.0
WRITE_TIMEOUT = 3600.0  # an import of many records; the daemon answers once it committed
KEEPALIVE = b" "  # JSON whitespace: a reply line may start with any number of them
REQUEST_ID = re.compile(r"[0-9a-f]{32}")

if TYPE_CHECKING:
    import logging


def logger() -> logging.Logger:
    """This module's logger (`logging` is imported when a message is due: the thin path's
    decoding does not pay for it)."""
    import logging

    return logging.getLogger(__name__)


class ProtocolMismatch(errors.GraphitError):
    """Client and daemon speak different protocol versions."""


def text_field(request: dict[str, Any], name: str, *, optional: bool = False) -> str | None:
    value = request.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value


def int_field(request: dict[str, Any], name: str, default: int | None) -> int | None:
    """A whole number >= 0 (as the CLI's `min=0` options), or the default when absent."""
    value = request.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{name} must be a whole number >= 0")
    return value


def bool_field(request: dict[str, Any], name: str) -> bool:
    value = request.get(name, False)
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false")
    return value


def check_protocol(request: dict[str, Any]) -> None:
    """Daemon side: refuse a request from a client that speaks another protocol version."""
    theirs = request.get("protocol")
    if theirs != PROTOCOL:
        raise ProtocolMismatch(
            f"this daemon speaks protocol {PROTOCOL}, the client {theirs}: "
            "restart the daemon with the same graphit version"
        )


class Declined(Exception):
    """Raised on the daemon's side before anything is written: the request is answered with
    `declined(why)` and its command runs in-process (a write's claim goes back to the CLI)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def declined(why: str) -> dict[str, Any]:
    """A request the daemon did nothing for: the CLI runs it in-process (a write only when it
    can still give up its claim, which the daemon did not take)."""
    return {"ok": False, "protocol": PROTOCOL, "declined": why}


def error_to_wire(exc: errors.GraphitError) -> dict[str, Any]:
    return {
        "ok": False,
        "protocol": PROTOCOL,
        "error": {"type": type(exc).__name__, "message": exc.message},
    }


def raise_wire_error(data: dict[str, Any]) -> None:
    """Re-raise a daemon-side GraphitError as the same class, with the same message."""
    kind = data.get("type", "GraphitError")
    cls = getattr(errors, kind, errors.GraphitError)
    if not (isinstance(cls, type) and issubclass(cls, errors.GraphitError)):
        cls = errors.GraphitError
    raise cls(str(data.get("message", "daemon error")))


# --- the client ---------------------------------------------------------------------------


class _NoAnswer(Exception):
    """The daemon gave no usable answer; `sent` says whether the whole request went out."""

    def __init__(self, why: object, *, sent: bool, stuck: bool = False) -> None:
        super().__init__(str(why))
        self.sent = sent
        self.stuck = stuck  # a deadline passed: a daemon is there but does not answer


def call(
    path: Path,
    request: dict[str, Any],
    timeout: float | None = None,
    *,
    write: bool = False,
    on_stuck: Callable[[], None] | None = None,
) -> dict[str, Any] | None:
    """Send one request to the daemon; None when no daemon of this protocol answers in time
    (the caller then works in-process).

    `on_stuck` runs when a daemon is there and gave no sign of life within the answer
    deadline (the caller remembers it: `warm/client.py`).

    A write is arbitrated by a claim file (`Claim`): the daemon takes it before it writes, the
    CLI removes it when it gives up; exactly one of the two succeeds. So a write the daemon
    did not take is never applied by it, and the CLI does it in-process (None); a write it took
    and did not answer may have been committed: that is an error (StorageUnavailable, exit 7),
    never a second attempt in-process.
    """
    if not path.exists():
        return None
    claim = Claim(path.parent, new_request_id()) if write else None
    try:
        data = _ask(path, request, timeout, claim, on_stuck)
        if data is None:
            return None  # no answer in time; a write's claim is given up already
        if data.get("protocol") != PROTOCOL:
            theirs = data.get("protocol")
            logger().warning(
                "the running daemon speaks protocol %s, this graphit %s: working in-process "
                "(restart `graphit memory daemon` to use the warm path again)",
                theirs if theirs is not None else 1,
                PROTOCOL,
            )
            _in_process(path, claim, "an answer of another protocol")
            return None
        if data.get("declined"):
            # The daemon did nothing: it is stopping, or the write reached it too late.
            logger().debug("the daemon declined the request: %s", data["declined"])
            _in_process(path, claim, "a refusal")
            return None
    finally:
        if claim is not None:
            claim.clear()
    if not data.get("ok"):
        raise_wire_error(data.get("error", {}))
    return data


def _in_process(path: Path, claim: Claim | None, why: str) -> None:
    """Before the caller works in-process: a write's claim is the CLI's again."""
    if claim is not None and not claim.give_up():
        raise _lost_write(path, why)  # the daemon took it and answered otherwise: never twice


def _ask(
    path: Path,
    request: dict[str, Any],
    timeout: float | None,
    claim: Claim | None,
    on_stuck: Callable[[], None] | None = None,
) -> dict[str, Any] | None:
    """The daemon's reply, or None when none came in time; a write the daemon took and did not
    answer raises (exit 7)."""
    connect, send, answer = _deadlines()
    envelope: dict[str, Any] = {"protocol": PROTOCOL, **request}
    if claim is not None:
        claim.create()
        # The daemon takes the write by this time on the machine's monotonic clock, or never.
        envelope |= {"request_id": claim.request_id, "deadline": time.monotonic() + answer}
    else:
        envelope["request_id"] = new_request_id()
    total = timeout if timeout is not None else WRITE_TIMEOUT if claim else REPLY_TIMEOUT
    try:
        return _exchange(path, envelope, connect, send, answer, total)
    except _NoAnswer as exc:
        if claim is not None and not claim.give_up():
            raise _lost_write(path, exc) from None
        if exc.stuck:
            logger().warning("the daemon did not answer (%s): working in-process", exc)
            if on_stuck is not None:
                on_stuck()
        else:
            logger().debug("no daemon answered on %s: %s", path, exc)
        return None


def _deadlines() -> tuple[float, float, float]:
    from graphit_cli import config

    return config.daemon_deadlines()


def exchange(
    path: Path, request: dict[str, Any], timeout: float = REPLY_TIMEOUT
) -> dict[str, Any] | None:
    """One raw request/reply, whatever protocol the daemon speaks; None when none answers
    within `timeout` (`ping`, and a daemon checking for another one at its start)."""
    if not path.exists():
        return None
    try:
        return _exchange(
            path, {"protocol": PROTOCOL, **request}, timeout, timeout, timeout, timeout
        )
    except _NoAnswer as exc:
        logger().debug("no daemon answered on %s: %s", path, exc)
        return None


def _exchange(
    path: Path,
    envelope: dict[str, Any],
    connect: float,
    send: float,
    answer: float,
    total: float,
) -> dict[str, Any]:
    """The reply, whatever its protocol; raises _NoAnswer."""
    sent = False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(connect)
            sock.connect(str(path))
            sock.settimeout(send)  # for the whole request (sendall's timeout is its total)
            sock.sendall(json.dumps(envelope).encode() + b"\n")
            sent = True
            reply = _read_line(sock, answer, time.monotonic() + total)
    except TimeoutError as exc:
        stage = "its answer" if sent else "the request to be taken"
        raise _NoAnswer(
            f"waited for {stage}: {exc or 'timed out'}", sent=sent, stuck=True
        ) from None
    except OSError as exc:
        raise _NoAnswer(exc, sent=sent) from None
    if not reply.strip():
        raise _NoAnswer("the connection closed", sent=sent)
    try:
        data = json.loads(reply)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise _NoAnswer("an unreadable answer", sent=sent)
    return data


def _lost_write(path: Path, why: object) -> errors.StorageUnavailable:
    return errors.StorageUnavailable(
        f"the daemon on {path} took the write but gave no answer ({why}); it may have been "
        "written: check with `graphit memory list` before writing again"
    )


def _read_line(sock: socket.socket, idle: float, end: float) -> bytes:
    """One reply line; raises TimeoutError after `idle` seconds without a byte (a keep-alive
    counts) or at `end` (monotonic)."""
    chunks: list[bytes] = []
    while True:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer in {end:.0f} s in all")
        sock.settimeout(min(idle, left))
        try:
            chunk = sock.recv(1 << 16)
        except TimeoutError:
            raise TimeoutError(f"nothing from the daemon for {min(idle, left):g} s") from None
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)


# --- who carries out a write: the claim ---------------------------------------------------


def new_request_id() -> str:
    return os.urandom(16).hex()


class Claim:
    """Who carries out one write: a file `requests/<id>.pending` beside the socket.

    The CLI creates it before it sends the write. The daemon renames it to `<id>.taken` just
    before it writes (`take`); the CLI deletes it when it stops waiting (`give_up`). A rename
    and a delete of the same name cannot both succeed, so exactly one side has it: a write the
    CLI gave up before the daemon took it is never applied by the daemon (the CLI runs it
    in-process), and one the daemon took is never run again by the CLI. Stdlib only, a few
    microseconds; both sides run as the same user on the same machine.
    """

    def __init__(self, run_dir: Path, request_id: str) -> None:
        self.request_id = request_id
        self.dir = run_dir / "requests"
        self.pending = self.dir / f"{request_id}.pending"
        self.taken = self.dir / f"{request_id}.taken"

    def create(self) -> None:
        self.dir.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(self.pending, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)

    def give_up(self) -> bool:
        """The CLI's side: True when the daemon had not taken the write (and now never will)."""
        try:
            self.pending.unlink()
        except FileNotFoundError:
            return False
        return True

    def take(self) -> bool:
        """The daemon's side: True when the CLI still waits for it (and now will not run it)."""
        try:
            os.rename(self.pending, self.taken)
        except FileNotFoundError:
            return False
        return True

    def release(self) -> None:
        """The daemon's side: it took the write, then declined it before writing anything;
        the claim is the CLI's again (a CLI that already stopped waiting reported exit 7 and
        runs nothing, so the write still happens at most once)."""
        try:
            os.rename(self.taken, self.pending)
        except FileNotFoundError:
            pass

    def clear(self) -> None:
        """The CLI is done with the write: no file is left behind."""
        for leftover in (self.pending, self.taken):
            try:
                leftover.unlink()
            except FileNotFoundError:
                pass
