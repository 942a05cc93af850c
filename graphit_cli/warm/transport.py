"""One transport for every call that can go to a warm process, reads and writes.

A call is one of the operation table's parameter objects (`ops.py`: `SearchCall`,
`RecallCall`, `SourceCall`, `CatalogueCall`; `calls.HookCall`; `writes.py`: `UpsertCall`,
`DeleteCall`, `RestoreCall`, `ImportCall`), each with its `op`, its request `fields()` and its
`run(opener)`; a cross-scope read is its request's fields (`send`). Two transports carry
them, in the manner of httpx's:

- `InProcess(opener)`: the operation runs here, on the scopes `opener` opens (`open_reader`,
  or a warm process's cache): the parameter object's `run`, its result as it is. Nothing is
  encoded or parsed.
- `Socket(...)`: the call's fields go to a warm process over its socket (`wire.py`'s protocol)
  and its result comes back decoded (`ops.DECODE`); None when none answered it, declined it,
  or runs (its caller then runs it `InProcess`). It says who it is in one of two ways: the
  digest of what this process resolves scopes from (`access/fingerprint.inputs`), which any
  warm process may answer, the daemon first, then the agent sessions' servers
  (`client.ask`: the hooks, the thin read commands); or, given the scopes a command resolved,
  their fingerprint, which only the daemon answers, a write with its claim (`wire.call`: the
  full commands, `cli/client.py`).

A warm process answers with the same operations (`daemon/warmpath.py`), so a command's answer
is the same whichever transport carried it. A write (`writes.py`: upsert, delete, restore,
import) is a parameter object too: the daemon runs it `InProcess` on its view of the scope
(its lock, the command's author, its warm model), and a command the daemon did not serve runs
it `InProcess` on its own (its model, its bar: `cli/client.py`). Standard library only at
import: the hook's path loads it before it knows whether a socket exists.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from graphit_cli.access.scopes import Scope

    class Carried(Protocol):
        @property
        def op(self) -> str: ...

        def fields(self) -> dict[str, Any]: ...

        def run(self, opener: Any, /) -> Any: ...

    class Transport(Protocol):
        def call(self, call: Carried) -> Any:
            """The call's result; None when this transport did not carry it."""


class InProcess:
    """The operation, run in this process on the scopes `opener` opens; `options` go to each
    call's `run` (the hook's search mode and deadline)."""

    def __init__(self, opener: Callable[[Scope], Any], **options: Any) -> None:
        self.opener = opener
        self.options = options

    def call(self, call: Carried) -> Any:
        return call.run(self.opener, **self.options)


class Socket:
    """A warm process's answer over its socket, or None.

    Without `scopes`: any warm process, recognised by this process's environment
    (`client.ask`), by `until` (monotonic) and with at most `idle` seconds of silence;
    `answered` then gets which one answered ("daemon", "session"). With `scopes` (a command
    that resolved them): the daemon, recognised by their fingerprint (`wire.call`); `write`
    makes it a write, with its claim (never carried out twice)."""

    def __init__(
        self,
        until: float | None = None,
        idle: float | None = None,
        *,
        scopes: list[Scope] | None = None,
        write: bool = False,
    ) -> None:
        self.until, self.idle = until, idle
        self.scopes, self.write = scopes, write
        self.answered: list[str] = []

    def call(self, call: Carried) -> Any:
        found = self.send(call.fields())
        return None if found is None else decode(call.op, found)

    def send(self, fields: dict[str, Any]) -> Any:
        """The result of the request `fields` as it crossed the socket, or None."""
        if self.scopes is None:
            from graphit_cli.warm import client

            until = self.until if self.until is not None else time.monotonic() + 120.0
            return client.ask(fields, until, self.idle, self.answered)
        return _daemon(fields, self.scopes, self.write)


def decode(op: str, found: Any) -> Any:
    """A call's result from its form on the wire (a hook's answer stays as it is)."""
    if op == "hook":
        return found
    from graphit_cli.warm.ops import DECODE

    if op in DECODE:
        return DECODE[op](found)
    from graphit_cli.warm import writes  # a write's (not loaded on a read's path)

    return writes.decode(found)


def first(transports: list[Any], call: Carried) -> Any:
    """The first transport's result that is not None (the last is usually `InProcess`)."""
    for transport in transports:
        found = transport.call(call)
        if found is not None:
            return found
    return None


def _daemon(request: dict[str, Any], scopes: list[Scope], write: bool) -> Any:
    """A running daemon's result for `request` on `scopes`, or None: no daemon, one of another
    protocol, `GRAPHIT_NO_DAEMON`, or a daemon that declined because it would resolve the
    scopes to another table, grant or settings than this process does. A read the daemon
    failed for a reason of its own (not the table's, not the input's: those are GraphitErrors
    with their codes) is None too: in-process answers it."""
    from graphit_cli import config
    from graphit_cli.access import runstate
    from graphit_cli.access.fingerprint import fingerprint
    from graphit_cli.errors import ExitCode, GraphitError
    from graphit_cli.warm import client, wire

    if config.no_daemon():
        return None
    if write:  # claims left by forwarding CLIs killed mid-write: stale past any write's wait
        runstate.sweep_claims(wire.WRITE_TIMEOUT + 600)
    path = runstate.socket_path()
    if not path.exists():
        return None  # no daemon: nothing to fingerprint for (its imports cost a cold command)
    run = str(path.parent)
    if client.remembered_stuck(run, str(path)):
        # It gave no answer a moment ago and is still stopped: not waited for again.
        wire.logger().warning("the daemon did not answer a moment ago: working in-process")
        return None
    message = {**request, "fingerprint": fingerprint(scopes)}
    if write:
        from graphit_cli.access import identity

        # The command's checkout, not the daemon's.
        stamp = identity.stamp("import" if request.get("op") == "import" else "cli")
        message["author"] = stamp.author
        message["provenance"] = stamp.to_dict()
    try:
        reply = wire.call(
            path,
            message,
            wire.WRITE_TIMEOUT if write else wire.REPLY_TIMEOUT,
            write=write,
            on_stuck=lambda: client.remember_stuck(run, str(path), client.listener_pid(str(path))),
        )
    except GraphitError as exc:
        if write or exc.exit_code != ExitCode.INTERNAL:
            raise  # the daemon's answer (or a write it took: never a second attempt)
        wire.logger().warning("the daemon failed (%s): working in-process", exc)
        return None
    return None if reply is None else reply["result"]
