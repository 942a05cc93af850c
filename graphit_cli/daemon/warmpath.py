"""The warm path's requests: what a warm process answers on its socket.

`Warmpath.answer` takes one request line and returns its reply: the protocol checked, a write
taken by its claim (`wire.Claim`), the request answered, any failure turned into the reply the
client reads (an error with its class and message, or `declined`). The reads are the operation
table's (`warm/ops.py`: search, recall, source, the catalogue, the hooks), the writes its
`warm/writes.py` (run here on a view with the scope's lock, the command's author and the warm
model); the cross-scope reads are here. The daemon (`process.py`) and an agent session's warm
server (`session.py`, reads only) answer with it.

Search, recall, source and the catalogue for one scope, the cross-scope reads (`across`), the
writes (upsert, delete, restore, import), and embedding the rows a CLI write just made with the
daemon's warm model. Every request is validated here as the CLI validates its arguments
(`wire`'s field readers), then answered by the same MemoryService the CLI would run in-process.
A write is answered once its commit has returned (durable on return), its rows committed with
their vectors when the daemon holds a model (up to the same bound as in-process, the rest left
to the embedding loop). The model runs before the scope's write lock is taken, never inside
it: a one-row write beside a big batch waits for the batch's commit at most, not its
embedding. Before anything, a request's `fingerprint` must be this daemon's for the same
scopes (`access/fingerprint.py`): a CLI with another provider, login or setting is declined
and works in-process. A read never creates a table. The socket, the loops and the process live
in `daemon/process.py`.
Must not import Typer or Rich.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli.access import scopes
from graphit_cli.core.provenance import Provenance
from graphit_cli.errors import GraphitError, InvalidInput, in_words
from graphit_cli.warm import ops, values, wire, writes
from graphit_cli.warm.calls import run_hook

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.daemon.supervisor import EventLog
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService

READ_OPS = tuple(ops.TABLE)
WRITE_OPS = tuple(writes.PARSE)
SCOPE_OPS = READ_OPS + WRITE_OPS

# One committer per scope inside the daemon: the commits are compare-and-swaps anyway; this
# keeps two requests' commits from retrying against each other. Held around each commit only
# (`MemoryService.writing`'s `hold`), never while the model embeds.
_write_locks: dict[str, threading.Lock] = {}
_write_locks_guard = threading.Lock()


class Warmpath:
    """A warm process's answers to request lines.

    `open_service` opens a scope for a write (creating its table), `open_reader` for a read
    (never creating one); `loaded_model` is the model when it is loaded already; `ping` what a
    ping is answered with. `writes=False` (an agent session's server): a write is declined,
    and the command carries it out itself.
    """

    def __init__(
        self,
        open_service: Callable[[Scope], MemoryService],
        open_reader: Callable[[Scope], MemoryService],
        loaded_model: Callable[[], Embedder | None],
        log: EventLog,
        run_dir: Path,
        ping: Callable[[], dict[str, Any]],
        *,
        writes: bool = True,
    ) -> None:
        from graphit_cli.access.fingerprint import inputs

        self.open_service, self.open_reader = open_service, open_reader
        self.loaded_model, self.log, self.run_dir, self.ping = loaded_model, log, run_dir, ping
        self.writes = writes
        self.inputs = inputs()  # this process's environment does not change
        self.requests_served = 0

    def answer(self, line: bytes) -> dict[str, Any]:
        self.requests_served += 1
        request: dict[str, Any] = {}
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise InvalidInput("a request is a JSON object")
            if request.get("op") != "ping":  # any version may ask whether a daemon runs
                wire.check_protocol(request)
            claim = None
            if request.get("op") in WRITE_OPS:
                if not self.writes:
                    raise wire.Declined("an agent session's warm server carries no writes")
                claim = self._take_write(request)
            try:
                return {"ok": True, "protocol": wire.PROTOCOL, **self._dispatch(request)}
            except wire.Declined:
                if claim is not None:
                    claim.release()  # nothing was written: the command may write it itself
                raise
        except wire.Declined as exc:
            self.log.emit("warn", "request.declined", op=str(request.get("op")), reason=exc.why)
            return wire.declined(exc.why)
        except GraphitError as exc:
            return wire.error_to_wire(exc)
        except (ValueError, KeyError, TypeError) as exc:
            return wire.error_to_wire(InvalidInput(f"bad request: {exc}"))
        except Exception as exc:
            self.log.emit("error", "request.error", error=in_words(exc))
            return wire.error_to_wire(GraphitError(f"daemon error: {exc}"))

    def _dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "ping":
            return self.ping()
        if "inputs" in request:  # the thin client's fingerprint (access/fingerprint.inputs)
            if request["inputs"] != self.inputs:
                raise wire.Declined("the command's environment differs from this process's")
            operation = ops.TABLE.get(str(request.get("op")))
            if operation is None:
                raise InvalidInput(f"unknown request {request.get('op')!r}")
            call = operation.parse(request)
            if operation.name == "hook" and self.loaded_model() is None:
                # A process still starting answers a hook by full-text search, as the hook's
                # own process would, rather than load the model on a prompt's budget.
                found = run_hook(self.open_reader, call, mode="fts")
                return {"result": operation.encode(found)}
            return {"result": operation.encode(operation.run(self.open_reader, call))}
        return answer(request, self.open_service, self.loaded_model, self.open_reader)

    def _take_write(self, request: dict[str, Any]) -> wire.Claim:
        """Take a write before carrying it out (`wire.Claim`); wire.Declined when its caller's
        deadline passed (it may be working in-process already) or it no longer waits."""
        request_id = request.get("request_id")
        if not isinstance(request_id, str) or not wire.REQUEST_ID.fullmatch(request_id):
            raise InvalidInput("a write carries a request_id of 32 hex digits")
        deadline = request.get("deadline")
        if isinstance(deadline, bool) or not isinstance(deadline, int | float):
            raise InvalidInput("a write carries its deadline (seconds, monotonic clock)")
        if time.monotonic() > deadline:
            raise wire.Declined("the write arrived after its deadline")
        claim = wire.Claim(self.run_dir, request_id)
        if not claim.take():
            raise wire.Declined("the caller no longer waits for this write")
        return claim


def answer(
    request: dict[str, Any],
    open_service: Callable[[Scope], MemoryService],
    loaded_model: Callable[[], Embedder | None],
    open_reader: Callable[[Scope], MemoryService] | None = None,
) -> dict[str, Any]:
    """The reply to one request (without the protocol envelope). `open_service` opens a scope
    for a write (creating its table); `open_reader` for a read (never creating one)."""
    read = open_reader or open_service
    op = request.get("op")
    if op == "across":  # recall / search over several scopes (portability.across)
        named = _scope_list(request)
        _decline(request, named)
        return {"result": _across(request, named, read)}
    if op not in SCOPE_OPS or op == "hook":
        raise InvalidInput(f"unknown request {op!r}")
    if op in WRITE_OPS:
        scope = scopes.parse_scope_ref(str(wire.text_field(request, "scope")))
        _decline(request, [scope])
        if scope.kind not in ("project", "user"):
            raise InvalidInput(f"{scope} is written in-process, not by the daemon")
        author = wire.text_field(request, "author")
        lock = _write_lock(str(scope))
        return {"result": _write(op, request, open_service(scope), author, lock, loaded_model)}
    operation = ops.TABLE[op]
    call = operation.parse(request)
    _decline(request, ops.scopes_of(op, call))
    return {"result": operation.encode(operation.run(read, call))}


def _decline(request: dict[str, Any], listed: list[Scope]) -> None:
    """Nothing when this daemon resolves `listed` to the tables, grant and settings the CLI
    resolved them to (the request's `fingerprint`); else wire.Declined, before anything is read
    or written (a write's claim goes back to the CLI), and the CLI works in-process."""
    from graphit_cli.access.fingerprint import differs, fingerprint

    theirs = request.get("fingerprint")
    if not isinstance(theirs, str):
        raise InvalidInput("fingerprint must be a string")
    ours = fingerprint(listed)
    if theirs != ours:
        raise wire.Declined(f"the daemon's {differs(theirs, ours)} differ from the command's")


def _scope_list(request: dict[str, Any]) -> list[Scope]:
    listed = request.get("scopes")
    if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
        raise InvalidInput("scopes must be a list of scope names")
    return [scopes.parse_scope_ref(s) for s in listed]


def _across(
    message: dict[str, Any], listed: list[Scope], opener: Callable[[Scope], MemoryService]
) -> dict[str, Any]:
    """An `across` request (recall or search over several scopes), answered by the same code
    as in-process (`portability.across`), its fields validated as every request's are."""
    from graphit_cli.portability import across

    what = wire.text_field(message, "what")
    top_k = wire.int_field(message, "top_k", 10) or 0
    if what == "recall":
        context = wire.text_field(message, "context", optional=True)
        found = across.recall(listed, context, top_k=top_k, opener=opener)
        return {
            "scopes": found.scopes,
            "mandatory": [values.memory_to_wire(m) for m in found.mandatory],
            "search": None if found.search is None else values.search_to_wire(found.search),
            "notices": found.notices,
        }
    if what == "search":
        result = across.search(
            [opener(s) for s in listed],
            str(wire.text_field(message, "query")),
            top_k=top_k,
            flt=values.filter_from_wire(message.get("filter")),
            exclude_mandatory=wire.bool_field(message, "exclude_mandatory"),
            include_deleted=wire.bool_field(message, "include_deleted"),
            mode=str(wire.text_field(message, "mode", optional=True) or "auto"),
        )
        return values.search_to_wire(result)
    raise InvalidInput(f"unknown across request {what!r}")


def _write_lock(scope: str) -> threading.Lock:
    with _write_locks_guard:
        return _write_locks.setdefault(scope, threading.Lock())


def _write(
    op: str,
    request: dict[str, Any],
    scope_svc: MemoryService,
    author: str | None,
    lock: threading.Lock,
    loaded_model: Callable[[], Embedder | None],
) -> Any:
    """One write request (`warm/writes.py`), as the CLI's author (`GRAPHIT_AUTHOR` of the
    command, not the daemon's), on a service view of its own: its rows embedded by the warm
    model before the commit (only a model already loaded: loading one is the embedding loop's
    job), the scope's lock held around each commit."""
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.warm.transport import InProcess

    call = writes.PARSE[op](request)
    dry_run = isinstance(call, writes.ImportCall) and call.dry_run
    vectors = None if dry_run else WriteVectors(loaded_model, later=DAEMON_LATER)
    svc = scope_svc.writing(
        author=author,
        vectors=vectors,
        hold=lambda: lock,
        secrets=call.secrets,
        provenance=_provenance(request, author),
    )
    written: writes.Written = InProcess(lambda _: svc).call(call)
    return writes.encode(written.noting(vectors))


def _provenance(request: dict[str, Any], author: str | None) -> Provenance | None:
    """The write's provenance as the command stamped it in its checkout (None: an older
    command's request, stamped here with the command's author)."""
    from graphit_cli.core import codec

    given = request.get("provenance")
    if not isinstance(given, dict) or not isinstance(given.get("author"), str):
        return None
    stamp = codec.decode(Provenance, given)
    return stamp.but(author=author) if author else stamp


DAEMON_LATER = "until the daemon's embedding loop reaches them (within minutes)"
