"""The warm path's requests: what a running daemon answers on its socket.

Search, recall, source and the catalogue for one scope, the cross-scope reads (`across`), and
embedding the rows a CLI write just made with the daemon's warm model. Every request is
validated here as the CLI validates its arguments (`wire`'s field readers), then answered by
the same MemoryService the CLI would run in-process. The socket, the loops and the process
live in `daemon.py`. Must not import Typer or Rich.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphit_cli import scopes, wire
from graphit_cli.errors import InvalidInput

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.scopes import Scope
    from graphit_cli.service import MemoryService

SCOPE_OPS = ("search", "recall", "source", "catalogue", "embed_written")


def answer(
    request: dict[str, Any],
    open_service: Callable[[Scope], MemoryService],
    loaded_model: Callable[[], Embedder | None],
) -> dict[str, Any]:
    """The reply to one request (without the protocol envelope)."""
    op = request.get("op")
    if op == "across":  # recall / search over several scopes (portability.across)
        from graphit_cli.portability import across

        return {"result": across.serve(request, open_service)}
    if op not in SCOPE_OPS:
        raise InvalidInput(f"unknown request {op!r}")
    svc = open_service(scopes.parse_scope_ref(str(wire.text_field(request, "scope"))))
    if op == "search":
        result = svc.search(
            str(wire.text_field(request, "query")),
            top_k=wire.int_field(request, "top_k", 10) or 0,
            flt=wire.filter_from_wire(request.get("filter")),
            exclude_mandatory=wire.bool_field(request, "exclude_mandatory"),
            include_deleted=wire.bool_field(request, "include_deleted"),
            mode=str(wire.text_field(request, "mode", optional=True) or "auto"),
        )
        return {"result": wire.search_to_wire(result)}
    if op == "recall":
        recalled = svc.recall(
            wire.text_field(request, "context", optional=True),
            top_k=wire.int_field(request, "top_k", 10) or 0,
        )
        return {"result": wire.recall_to_wire(recalled)}
    if op == "source":
        return {"result": wire.memory_to_wire(svc.source(str(wire.text_field(request, "ref"))))}
    if op == "embed_written":
        # A CLI write asks the warm model to embed its rows before the command returns. Only
        # a model already loaded: loading one (seconds) is the embedding loop's job.
        ids = wire.id_list_field(request, "ids")
        model = loaded_model()
        return {"result": svc.embed_now(ids, model) if model is not None else 0}
    listed = svc.catalogue(
        wire.filter_from_wire(request.get("filter")), wire.int_field(request, "limit", None)
    )
    return {"result": [wire.memory_to_wire(m) for m in listed]}
