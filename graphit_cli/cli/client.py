"""Where a memory command runs: the daemon's warm path when one answers, else in-process.

The one place that makes this choice. A running daemon already has the table open and the
model loaded, and runs the same service code, so its answer renders exactly like an
in-process one; `GRAPHIT_NO_DAEMON=1` always works in-process. Writes always run in-process
(they are durable when the command returns). Nothing heavy is imported at module level.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from graphit_cli.cli.common import scope_spec

if TYPE_CHECKING:
    from graphit_cli.models import Memory, MemoryFilter, RecallResult, SearchResult
    from graphit_cli.scopes import Scope
    from graphit_cli.service import MemoryService


class Client:
    """One command's view of one scope (`--scope`/`--user` as given)."""

    def __init__(self, scope: str | None, user: bool) -> None:
        self.spec = scope_spec(scope, user)

    @cached_property
    def scope(self) -> Scope:
        from graphit_cli.providers import resolve_scope

        scope = resolve_scope(self.spec)
        if scope.kind == "context":
            from graphit_cli import context_registry as contexts

            contexts.require(scope)
        return scope

    @cached_property
    def service(self) -> MemoryService:
        """The scope's service in this process (opens the table: about a second cold)."""
        from graphit_cli.opening import open_service

        return open_service(self.scope)

    def _daemon(self, request: dict[str, Any]) -> Any:
        """The daemon's answer to `request`, or None when no daemon answers."""
        from graphit_cli import config, runstate, wire

        if config.no_daemon():
            return None
        reply = wire.call(runstate.socket_path(), {**request, "scope": str(self.scope)})
        return None if reply is None else reply["result"]

    def embed_written(self, memory_ids: list[str]) -> None:
        """Have a running daemon embed the rows this command just wrote, with its warm model,
        so they are found by meaning at once. Best effort: without a daemon (or without a
        loaded model there) the rows are ranked by their words until the embedding pass."""
        if memory_ids:
            self._daemon({"op": "embed_written", "ids": memory_ids[:1000]})

    def catalogue(self, flt: MemoryFilter, limit: int | None = None) -> list[Memory]:
        """Live memories in canonical order."""
        from graphit_cli import wire

        found = self._daemon(
            {"op": "catalogue", "filter": wire.filter_to_wire(flt), "limit": limit}
        )
        if found is not None:
            return [wire.memory_from_wire(m) for m in found]
        return self.service.catalogue(flt, limit)

    def source(self, ref: str) -> Memory:
        from graphit_cli import wire

        found = self._daemon({"op": "source", "ref": ref})
        return wire.memory_from_wire(found) if found is not None else self.service.source(ref)

    def search(
        self,
        query: str,
        flt: MemoryFilter,
        *,
        top_k: int,
        exclude_mandatory: bool,
        include_deleted: bool,
        mode: str,
    ) -> SearchResult:
        from graphit_cli import wire

        args = {
            "top_k": top_k,
            "exclude_mandatory": exclude_mandatory,
            "include_deleted": include_deleted,
            "mode": mode,
        }
        request = {"op": "search", "query": query, "filter": wire.filter_to_wire(flt), **args}
        found = self._daemon(request)
        if found is not None:
            return wire.search_from_wire(found)
        return self.service.search(query, flt=flt, **args)  # type: ignore[arg-type]

    def recall(self, context: str | None, *, top_k: int) -> RecallResult:
        from graphit_cli import wire

        found = self._daemon({"op": "recall", "context": context, "top_k": top_k})
        if found is not None:
            return wire.recall_from_wire(found)
        return self.service.recall(context, top_k=top_k)
