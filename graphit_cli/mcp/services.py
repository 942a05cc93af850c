"""The MCP server's open services: one MemoryService per scope, kept open for the life of the
server so the table handle (and, through the service, the embedding model) stay warm between
calls; the model loaded once, outside the calls' lock; the checkout anchors are checked
against. `MemoryTools` (tools.py) are the tools on top. No MCP SDK, Typer or Rich imports."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphit_cli import anchors
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import Memory, WriteAction, WriteResult
from graphit_cli.errors import NoProject, NotFound

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService


class ScopeServices:
    """The services of one server process, one per scope it has opened; a lock serialises
    calls (the SDK runs them in threads)."""

    def __init__(self, opener: Callable[[Scope], MemoryService] | None = None) -> None:
        self._opener = opener or self._open
        self._services: dict[Scope, MemoryService] = {}
        self.lock = threading.RLock()
        # Loading the model takes seconds: the warm-up does it without holding `lock`, so calls
        # that need no model are answered meanwhile, and the ones that do wait here for it.
        self._model_lock = threading.Lock()
        self.wrote = threading.Event()  # set after a consolidation: the backfill looks again
        # The checkout the server runs in: anchors resolve and are checked against it.
        self.root = anchors.checkout_root()

    def stale_of(self, memory: Memory) -> list[anchors.Stale] | None:
        """The memory's anchors that no longer hold in the server's checkout (None: all hold)."""
        found: list[anchors.Stale] | None = anchors.checker(self.root)(memory)
        return found

    def _open(self, scope: Scope) -> MemoryService:
        from graphit_cli.mcp import handshake
        from graphit_cli.opening import open_service

        client = handshake.client_name
        return open_service(scope, embedder=self._embedder, keep=True, via="mcp", client=client)

    def _embedder(self) -> Embedder | None:
        from graphit_cli.embed import load_default

        with self._model_lock:
            return load_default()

    def service(self, scope: str | None) -> MemoryService:
        from graphit_cli.portability.across import resolve_label

        resolved = resolve_label(scope)
        if resolved.kind == "context":
            from graphit_cli.access import contexts

            try:  # a typo must not become a new, empty table (the CLI refuses it too)
                contexts.require(resolved)
            except NotFound:
                raise NotFound(
                    f'no context {resolved.id!r}: pass scope "project", "user", "all" '
                    "or context:NAME of a context the user added"
                ) from None
        return self._service(resolved)

    def _service(self, resolved: Scope) -> MemoryService:
        with self.lock:
            service = self._services.get(resolved)
            if service is None:
                service = self._services[resolved] = self._opener(resolved)
            from graphit_cli.mcp import handshake

            service.say_client(handshake.client_name)
            return service

    def opened(self) -> list[MemoryService]:
        """The scopes the server has opened so far (what the background backfill serves)."""
        with self.lock:
            return list(self._services.values())

    def wake(self) -> None:
        """Ask the background thread (background.py) for a sweep now."""
        self.wrote.set()

    def _written(self, service: MemoryService, result: WriteResult) -> WriteResult:
        """A memory written through the server is embedded before the call returns (waiting
        for the model the warm-up is loading), so the next search finds it by meaning too."""
        if result.action in (WriteAction.CREATED, WriteAction.UPDATED):
            model = self._embedder()
            if model is not None:
                with self.lock:
                    service.embed_now([result.memory.id], model)
        return result

    def every_scope(self) -> list[MemoryService]:
        """scope "all": the project, the user scope and the recall contexts."""
        from graphit_cli.portability.across import recall_scopes

        found = recall_scopes()[0]
        if not any(s.kind == "project" for s in found):
            raise NoProject(
                'scope "all" includes the project, but the server is not inside a graphit '
                "project (no graphit.lock.json in its working directory or above, and no "
                'GRAPHIT_PROJECT_ID): pass scope: "user" for the user scope alone'
            )
        return [self._service(s) for s in found]
