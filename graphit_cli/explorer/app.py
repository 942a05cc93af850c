"""The Explorer's Starlette application: the API routes, the page and its static assets.

`create_app` takes the service opener, so tests (and the daemon, some day) decide how a
scope's MemoryService is opened; the default is `opening.open_service`.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from graphit_cli.access.scopes import Scope
from graphit_cli.explorer import api, recalls, review

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService
from graphit_cli.explorer.security import Guard

STATIC = Path(__file__).parent / "static"
PAGE_PREFIX = "/memory/explorer"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


def _default_opener(scope: Scope) -> MemoryService:
    from graphit_cli.opening import open_service

    return open_service(scope, keep=True, via="explorer")


async def _page(request: Request) -> Response:
    """Every UI address serves the same page; its script reads the address."""
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})


async def _to_project(request: Request) -> Response:
    query = request.url.query
    return RedirectResponse(f"{PAGE_PREFIX}/project/" + (f"?{query}" if query else ""), 307)


async def _not_found(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):
        return api.error_response(404, "not found")
    return PlainTextResponse("not found\n", status_code=404)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):
        return api.error_response(405, "method not allowed")
    return PlainTextResponse("method not allowed\n", status_code=405)


def create_app(
    *,
    token: str,
    hosts: Collection[str] | None = LOOPBACK_HOSTS,
    opener: api.Opener | None = None,
    cwd: Path | None = None,
) -> Starlette:
    """The ASGI app. `hosts`: host names accepted in the Host header (None: any, for a
    wildcard bind with --allow-remote); `cwd`: where the project is looked for."""
    services = api.Services(opener or _default_opener, cwd)

    def route(path: str, work: api.Work, methods: list[str]) -> Route:
        return Route(path, api.endpoint(work, services), methods=methods)

    routes: list[BaseRoute] = [
        route("/api/memories/scopes", api.list_scopes, ["GET"]),
        route("/api/recalls", recalls.recalls, ["GET"]),
        route("/api/review", review.queue, ["GET"]),
        route("/api/review/{memory_id}/{revision_id}/approve", review.approve, ["POST"]),
        route("/api/review/{memory_id}/{revision_id}/reject", review.reject, ["POST"]),
        route("/api/memories", api.catalogue, ["GET"]),
        route("/api/memories", api.create, ["POST"]),
        route("/api/memories/{memory_id}", api.show, ["GET"]),
        route("/api/memories/{memory_id}", api.edit, ["PATCH"]),
        route("/api/memories/{memory_id}", api.remove, ["DELETE"]),
        route("/api/memories/{memory_id}/revisions/{revision_id}", api.show_revision, ["GET"]),
        route("/api/memories/{memory_id}/revisions/{revision_id}/restore", api.restore, ["POST"]),
        Mount(f"{PAGE_PREFIX}/static", StaticFiles(directory=STATIC), name="static"),
        Route("/", _to_project, methods=["GET"]),
        Route(PAGE_PREFIX, _to_project, methods=["GET"]),
        Route(f"{PAGE_PREFIX}/", _to_project, methods=["GET"]),
        Route(PAGE_PREFIX + "/{address:path}", _page, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={404: _not_found, 405: _not_allowed},  # JSON errors under /api/
    )
    app.add_middleware(Guard, token=token, hosts=hosts)
    return app
