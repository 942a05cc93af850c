"""The operation table: each warm-path read defined once.

An operation is its request's parameter object (`parse`: the request's fields validated as the
CLI validates its arguments, with the same messages), how it runs on a process's services
(`run`, with an opener: the daemon's cache, or `open_reader` in the command's own process) and
how its result crosses the socket (`encode`; the client's side is `DECODE`). The daemon and an
agent session's warm server answer with it (`daemon/warmpath.py`); the commands and the hooks
call it through `transport.py` (a warm process's socket, or `InProcess`). The hooks' parameter
object and how a hook runs are `calls.py`'s (standard library only: the hook's path builds
it). The writes are `writes.py`'s; their claims and locks stay in `daemon/warmpath.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from graphit_cli.access import scopes
from graphit_cli.errors import InvalidInput
from graphit_cli.warm import values, wire
from graphit_cli.warm.calls import (
    CLIENTS,
    HOOK_EVENTS,
    HookCall,
    run_hook,
)

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import Memory, MemoryFilter, RecallResult, SearchResult
    from graphit_cli.service.memory import MemoryService

Opener = Callable[["Scope"], "MemoryService"]
MAX_PROMPT = 200_000  # characters a hook request carries (the recall bounds what it searches)


@dataclass(frozen=True)
class Operation:
    name: str
    parse: Callable[[dict[str, Any]], Any]
    run: Callable[[Opener, Any], Any]
    encode: Callable[[Any], Any]


# --- the hooks ----------------------------------------------------------------------------


def parse_hook(request: dict[str, Any]) -> HookCall:
    """A hook request's fields, validated, as the hook's parameter object (`calls.HookCall`)."""
    call = HookCall(
        str(wire.text_field(request, "event")),
        str(wire.text_field(request, "client")),
        str(wire.text_field(request, "prompt", optional=True) or ""),
        wire.text_field(request, "session_id", optional=True),
        str(wire.text_field(request, "root")),
        str(wire.text_field(request, "project")),
        wire.bool_field(request, "user_level"),
    )
    check_hook(call)
    call.project = str(call.scope)
    return call


def check_hook(call: HookCall) -> None:
    """InvalidInput unless `call` is a hook this process would run (a known event and client,
    a bounded prompt, an absolute root, a project scope)."""
    if call.event not in HOOK_EVENTS or call.client not in CLIENTS:
        raise InvalidInput(f"unknown hook {call.event!r} for {call.client!r}")
    if len(call.prompt) > MAX_PROMPT or not Path(call.root).is_absolute():
        raise InvalidInput("a hook carries a bounded prompt and an absolute root")
    if call.scope.kind != "project":
        raise InvalidInput("project must be a project scope")


# --- one scope's reads --------------------------------------------------------------------


def _scope(request: dict[str, Any]) -> Scope:
    """`kind:id`; or `user` from the thin client, resolved here as it would resolve it (its
    environment is this process's: `access/fingerprint.inputs`), a broker's login included."""
    value = str(wire.text_field(request, "scope"))
    if value == "user" and "inputs" in request:
        from graphit_cli.access.providers import resolve_scope

        return resolve_scope("user")
    return scopes.parse_scope_ref(value)


def _root(request: dict[str, Any]) -> str | None:
    """The caller's checkout as a read request names it: absolute, or absent. No read uses it
    in the warm process: the caller checks the answer's anchors against its own checkout
    (cli/output.py `checked`)."""
    root = wire.text_field(request, "root", optional=True)
    if root is not None and not Path(root).is_absolute():
        raise InvalidInput("root must be an absolute path")
    return root


@dataclass(frozen=True)
class SearchCall:
    op: ClassVar[str] = "search"
    scope: Scope
    query: str
    filter: MemoryFilter
    top_k: int
    exclude_mandatory: bool
    include_deleted: bool
    mode: str

    root: str | None = None  # the caller's checkout, as sent (the read does not use it)

    def fields(self) -> dict[str, Any]:
        return {
            "op": "search",
            "scope": str(self.scope),
            "query": self.query,
            "filter": values.filter_to_wire(self.filter),
            "top_k": self.top_k,
            "exclude_mandatory": self.exclude_mandatory,
            "include_deleted": self.include_deleted,
            "mode": self.mode,
            "root": self.root,
        }

    @classmethod
    def parse(cls, request: dict[str, Any]) -> SearchCall:
        return cls(
            _scope(request),
            str(wire.text_field(request, "query")),
            values.filter_from_wire(request.get("filter")),
            wire.int_field(request, "top_k", 10) or 0,
            wire.bool_field(request, "exclude_mandatory"),
            wire.bool_field(request, "include_deleted"),
            str(wire.text_field(request, "mode", optional=True) or "auto"),
            _root(request),
        )

    def run(self, opener: Opener) -> SearchResult:
        return opener(self.scope).search(
            self.query,
            top_k=self.top_k,
            flt=self.filter,
            exclude_mandatory=self.exclude_mandatory,
            include_deleted=self.include_deleted,
            mode=self.mode,  # type: ignore[arg-type]
        )


@dataclass(frozen=True)
class RecallCall:
    op: ClassVar[str] = "recall"
    scope: Scope
    context: str | None
    top_k: int

    root: str | None = None  # the caller's checkout, as sent (the read does not use it)

    def fields(self) -> dict[str, Any]:
        return {
            "op": "recall",
            "scope": str(self.scope),
            "context": self.context,
            "top_k": self.top_k,
        }

    @classmethod
    def parse(cls, request: dict[str, Any]) -> RecallCall:
        context = wire.text_field(request, "context", optional=True)
        top_k = wire.int_field(request, "top_k", 10) or 0
        return cls(_scope(request), context, top_k, _root(request))

    def run(self, opener: Opener) -> RecallResult:
        return opener(self.scope).recall(self.context, top_k=self.top_k)


@dataclass(frozen=True)
class SourceCall:
    op: ClassVar[str] = "source"
    scope: Scope
    ref: str

    root: str | None = None  # the caller's checkout, as sent (the read does not use it)

    def fields(self) -> dict[str, Any]:
        return {"op": "source", "scope": str(self.scope), "ref": self.ref, "root": self.root}

    @classmethod
    def parse(cls, request: dict[str, Any]) -> SourceCall:
        return cls(_scope(request), str(wire.text_field(request, "ref")), _root(request))

    def run(self, opener: Opener) -> Memory:
        return opener(self.scope).source(self.ref)


@dataclass(frozen=True)
class CatalogueCall:
    op: ClassVar[str] = "catalogue"
    scope: Scope
    filter: MemoryFilter
    limit: int | None

    root: str | None = None  # the caller's checkout, as sent (the read does not use it)

    def fields(self) -> dict[str, Any]:
        flt = values.filter_to_wire(self.filter)
        return {
            "op": "catalogue",
            "scope": str(self.scope),
            "filter": flt,
            "limit": self.limit,
            "root": self.root,
        }

    @classmethod
    def parse(cls, request: dict[str, Any]) -> CatalogueCall:
        flt = values.filter_from_wire(request.get("filter"))
        return cls(_scope(request), flt, wire.int_field(request, "limit", None), _root(request))

    def run(self, opener: Opener) -> list[Memory]:
        return opener(self.scope).catalogue(self.filter, self.limit)


TABLE: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation("hook", parse_hook, run_hook, lambda found: found.to_json()),
        Operation("search", SearchCall.parse, lambda o, c: c.run(o), values.search_to_wire),
        Operation("recall", RecallCall.parse, lambda o, c: c.run(o), values.recall_to_wire),
        Operation("source", SourceCall.parse, lambda o, c: c.run(o), values.memory_to_wire),
        Operation(
            "catalogue",
            CatalogueCall.parse,
            lambda o, c: c.run(o),
            lambda found: [values.memory_to_wire(m) for m in found],
        ),
    )
}
# How each read's result comes back (the client's side of `encode`; the writes': `writes.py`).
DECODE: dict[str, Callable[[Any], Any]] = {
    "search": values.search_from_wire,
    "recall": values.recall_from_wire,
    "source": values.memory_from_wire,
    "catalogue": lambda found: [values.memory_from_wire(m) for m in found],
}


def scopes_of(name: str, call: Any) -> list[Scope]:
    """The scopes a call reads (what its fingerprint covers)."""
    return [call.scope]
