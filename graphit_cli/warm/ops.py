"""The operation table: each warm-path read defined once.

An operation is its request's parameter object (`parse`: the request's fields validated as the
CLI validates its arguments, with the same messages), how it runs on a process's services
(`run`, with an opener: the daemon's cache, or `open_reader` in the command's own process) and
how its result crosses the socket (`encode`; the client decodes with `wire`). The daemon and an
agent session's warm server answer with it (`daemon/warmpath.py`), the hooks run it in their
own process when no warm process answers (`warm/hook.py`). The writes, with their claims and
locks, stay in `daemon/warmpath.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli.access import scopes
from graphit_cli.core.events import PROMPT_EVENT, SESSION_START
from graphit_cli.errors import InvalidInput
from graphit_cli.warm import values, wire

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import Memory, MemoryFilter, RecallResult, SearchResult
    from graphit_cli.recall.hook import Delivery
    from graphit_cli.service.memory import MemoryService

Opener = Callable[["Scope"], "MemoryService"]
HOOK_EVENTS = ("prompt", "session-start")
CLIENTS = ("claude-code", "gemini")
SETTINGS = {"claude-code": ".claude/settings.json", "gemini": ".gemini/settings.json"}
EVENT_NAMES = {
    **{("prompt", client): PROMPT_EVENT[client] for client in CLIENTS},
    **{("session-start", client): SESSION_START for client in CLIENTS},
}
MAX_PROMPT = 200_000  # characters a hook request carries (the recall bounds what it searches)


@dataclass(frozen=True)
class Operation:
    name: str
    parse: Callable[[dict[str, Any]], Any]
    run: Callable[[Opener, Any], Any]
    encode: Callable[[Any], Any]


# --- the hooks ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HookCall:
    event: str  # "prompt" | "session-start"
    client: str  # "claude-code" | "gemini"
    prompt: str
    session_id: str | None
    root: str  # the checkout the hook runs in (absolute)
    project: Scope
    user_level: bool  # the user-level hook: silent where the project runs its own


def parse_hook(request: dict[str, Any]) -> HookCall:
    event = wire.text_field(request, "event")
    client = wire.text_field(request, "client")
    if event not in HOOK_EVENTS or client not in CLIENTS:
        raise InvalidInput(f"unknown hook {event!r} for {client!r}")
    prompt = str(wire.text_field(request, "prompt", optional=True) or "")
    root = str(wire.text_field(request, "root"))
    if len(prompt) > MAX_PROMPT or not Path(root).is_absolute():
        raise InvalidInput("a hook carries a bounded prompt and an absolute root")
    project = scopes.parse_scope_ref(str(wire.text_field(request, "project")))
    if project.kind != "project":
        raise InvalidInput("project must be a project scope")
    return HookCall(
        event,
        client,
        prompt,
        wire.text_field(request, "session_id", optional=True),
        root,
        project,
        wire.bool_field(request, "user_level"),
    )


def run_hook(
    opener: Opener, call: HookCall, *, mode: str = "auto", until: float | None = None
) -> Delivery:
    """What the hook would print (Markdown, before a client's wrapping; "" for nothing), what
    it shows and its log entry: nothing is marked shown or logged here, the hook's process
    does that once it printed the answer (`warm/hook.py`). `until`: the `time.monotonic()`
    by which it must have answered (a cold hook's budget)."""
    from graphit_cli.portability import across
    from graphit_cli.recall.hook import Delivery, PromptRequest, prompt_answer, session_answer

    if call.user_level and project_has_own(Path(call.root), call.event, call.client):
        return Delivery("", [], {"event": call.event, "client": call.client, "silent": "user"})
    found, _ = across.recall_scopes(call.project)
    services = [opener(s) for s in found]
    request = PromptRequest(call.prompt, call.session_id, call.client, call.root, mode, until=until)
    if call.event == "session-start":
        return session_answer(services, request)
    return prompt_answer(services, request)


def project_has_own(root: Path, event: str, client: str = "claude-code") -> bool:
    """The project's settings (.claude/ or .gemini/) run graphit's hook for `event` itself."""
    name = EVENT_NAMES.get((event, client), event)
    try:
        text = (root / SETTINGS[client]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    from graphit_cli.agents import jsonc
    from graphit_cli.agents.clients import is_our_hook

    try:
        groups = jsonc.loads(text).get("hooks", {}).get(name, [])
    except (jsonc.JsoncError, AttributeError):
        return False
    return any(
        is_our_hook(h)
        for g in (groups if isinstance(groups, list) else [])
        if isinstance(g, dict)
        for h in (g.get("hooks") or [])
    )


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
# How each read's result comes back (the client's side of `encode`).
DECODE: dict[str, Callable[[Any], Any]] = {
    "search": values.search_from_wire,
    "recall": values.recall_from_wire,
    "source": values.memory_from_wire,
    "catalogue": lambda found: [values.memory_from_wire(m) for m in found],
}


def scopes_of(name: str, call: Any) -> list[Scope]:
    """The scopes a call reads (what its fingerprint covers)."""
    return [call.project if name == "hook" else call.scope]
