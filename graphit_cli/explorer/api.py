"""The /api/memories handlers: parse the request, call MemoryService, shape the JSON.

Routes, status codes, JSON shapes and error strings follow the project's Explorer contract. The
service calls run in Starlette's thread pool (LanceDB is blocking); nothing here decides what a
memory is, how a chain moves or what a search selects.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graphit_cli import anchors, config
from graphit_cli.access import scopes
from graphit_cli.access.providers import resolve_scope
from graphit_cli.core import secrets
from graphit_cli.core.models import DEFAULT_TYPE, MEMORY_TYPES, MemoryDraft
from graphit_cli.errors import (
    AccessDenied,
    Conflict,
    GraphitError,
    InvalidInput,
    NoProject,
    NotFound,
    SecretRefused,
    StorageUnavailable,
)
from graphit_cli.explorer import views

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService

Opener = Callable[[scopes.Scope], "MemoryService"]
Handler = Callable[[Request], Awaitable[Response]]

MAX_LIMIT = 200
DEFAULT_LIMIT = 50
_CONTEXT = re.compile(r"^context:(.+)$")
# The Explorer has no way past a refused secret; a false positive is the CLI's to write.
EXPLORER_WAY = "a false positive can be written with `graphit memory upsert --allow-secrets`"
_FIELDS = frozenset({"title", "body", "type", "tags", "important", "mandatory", "revision"})


class ApiError(Exception):
    """An answer other than success: status and the one-line message of `{"error": ...}`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _status(exc: GraphitError) -> int:
    if isinstance(exc, InvalidInput | NoProject):
        return 400
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, Conflict):
        return 409
    if isinstance(exc, AccessDenied):
        return 403
    if isinstance(exc, StorageUnavailable):
        return 503
    return 500


@dataclass
class Services:
    """Opened services, one per scope (opening a table costs; handles stay fresh by design)."""

    opener: Opener
    cwd: Path | None = None
    _open: dict[scopes.Scope, MemoryService] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def resolve(self, request: Request) -> scopes.Scope:
        spec = request.query_params.get("scope", "project").strip() or "project"
        start = self._start(request)
        if spec == "project":
            return resolve_scope("project", start)
        if spec == "user":
            return resolve_scope("user", start)
        match = _CONTEXT.match(spec)
        if match:
            try:
                return resolve_scope(spec, start)
            except InvalidInput:
                pass
        raise ApiError(400, f'unsupported memory scope "{spec}"')

    def _start(self, request: Request) -> Path | None:
        raw = request.query_params.get("project_dir")
        if not raw:
            return self.cwd
        directory = Path(raw).expanduser()
        if not directory.is_dir() or config.find_project_lock(directory) is None:
            raise ApiError(400, f'project_dir "{raw}" is not an initialised graphit project')
        return directory

    def get(self, scope: scopes.Scope) -> MemoryService:
        with self._lock:
            service = self._open.get(scope)
            if service is None:
                service = self._open[scope] = self.opener(scope)
            return service


Work = Callable[[Request, Services], Awaitable[Response]]


def endpoint(work: Work, services: Services) -> Handler:
    """Wrap a handler: ApiError and GraphitError become `{"error": ...}` with their status."""

    async def handle(request: Request) -> Response:
        from graphit_cli.formats.render import staleness

        try:  # anchors, against the Explorer's checkout (worker threads inherit the context)
            with staleness(anchors.checker(anchors.checkout_root(services.cwd))):
                return await work(request, services)
        except ApiError as exc:
            return error_response(exc.status, exc.message)
        except SecretRefused as exc:  # every finding (never the value), and what to do
            return error_response(422, secrets.on_one_line(exc.message, EXPLORER_WAY))
        except GraphitError as exc:
            return error_response(_status(exc), exc.message.splitlines()[0])
        except Exception as exc:
            if config.debug():
                raise
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return error_response(500, f"internal error: {first}")

    return handle


# --- parsing ----------------------------------------------------------------------------------


def _flag(request: Request, name: str) -> bool | None:
    value = request.query_params.get(name, "").strip().lower()
    if value in ("", "all"):
        return None
    if value in ("true", "false"):
        return value == "true"
    raise ApiError(400, f"{name} must be true or false")


def _int(request: Request, name: str, default: int, low: int, high: int | None) -> int:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ApiError(400, f"{name} must be an integer {bound}")
    return value


async def _json_object(request: Request) -> dict[str, Any]:
    try:
        data = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError(400, "invalid JSON body") from None
    if not isinstance(data, dict):
        raise ApiError(400, "invalid JSON body")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ApiError(400, f'unknown field "{unknown[0]}"')
    return data


def _draft(data: dict[str, Any], memory_id: str | None) -> MemoryDraft:
    """The fields of a POST or PATCH body, type-checked; validation of values is the service's
    (its InvalidInput messages come back as 400), except the type's contract wording."""
    for name in ("title", "body", "type"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise ApiError(400, f"{name} must be a string")
    memory_type = data.get("type")
    if memory_type is not None and memory_type.strip().lower() not in MEMORY_TYPES:
        raise ApiError(400, f'invalid memory type "{memory_type}"')
    tags = data.get("tags")
    if tags is not None and (
        not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)
    ):
        raise ApiError(400, "tags must be a list of strings")
    for name in ("important", "mandatory"):
        if data.get(name) is not None and not isinstance(data[name], bool):
            raise ApiError(400, f"{name} must be true or false")
    revision = data.get("revision")
    if revision is not None and (
        isinstance(revision, bool) or not isinstance(revision, int) or revision < 1
    ):
        raise ApiError(400, "revision must be a positive integer")
    return MemoryDraft(
        id=memory_id,
        title=data.get("title"),
        body=data.get("body"),
        type=memory_type,
        tags=tuple(tags) if tags is not None else None,
        important=data.get("important"),
        mandatory=data.get("mandatory"),
        expected_revision=revision,
    )


def _memory_id(request: Request) -> str:
    from graphit_cli.core import revisions

    try:
        return revisions.validate_id(str(request.path_params["memory_id"]))
    except InvalidInput:
        raise ApiError(404, "memory not found") from None


# --- handlers ---------------------------------------------------------------------------------


async def list_scopes(request: Request, services: Services) -> Response:
    def work() -> list[dict[str, str]]:
        found: list[dict[str, str]] = []
        start = services._start(request)
        try:
            project = resolve_scope("project", start)
        except NoProject:
            project = None
        if project is not None:
            lock = config.find_project_lock(start)
            label = f"Project {lock.parent.name}" if lock is not None else "Project"
            found.append(_scope("project", label, project))
        user = resolve_scope("user", start)
        found.append(_scope("user", f"User {user.id}", user))
        for name in known_contexts():
            found.append(
                _scope(f"context:{name}", f"Context {name}", scopes.Scope("context", name))
            )
        return found

    return JSONResponse(await run_in_threadpool(work))


def _scope(ident: str, label: str, scope: scopes.Scope) -> dict[str, str]:
    return {"id": ident, "label": label, "scope_id": scope.id, "kind": scope.kind}


def known_contexts() -> list[str]:
    """Named contexts this machine knows: recorded in the scope-reference lock, or present as a
    local table directory."""
    names = set()
    for ref in scopes.read_scope_refs():
        kind, _, name = ref.partition(":")
        if kind == "context" and name:
            names.add(name)
    root = config.memory_root()
    if root.is_dir():
        prefix = "memory-context-"
        names.update(p.name[len(prefix) :] for p in root.iterdir() if p.name.startswith(prefix))
    valid = []
    for name in sorted(names):
        try:
            valid.append(scopes.validate_safe_id(name, "context name"))
        except InvalidInput:
            continue
    return valid


async def catalogue(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    params = request.query_params
    important, mandatory = _flag(request, "important"), _flag(request, "mandatory")
    limit = _int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = _int(request, "offset", 0, 0, None)

    def work() -> dict[str, Any]:
        found = services.get(scope).browse(
            params.get("query", ""),
            memory_type=params.get("type") or None,
            tag=params.get("tag") or None,
            important=important,
            mandatory=mandatory,
            limit=limit,
            offset=offset,
        )
        return views.page(found)

    return JSONResponse(await run_in_threadpool(work))


async def create(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    data = await _json_object(request)
    for name in ("title", "body"):
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            raise ApiError(400, "title and body are required")
    if "revision" in data:
        raise ApiError(400, 'unknown field "revision"')
    draft = _draft({**data, "type": data.get("type") or DEFAULT_TYPE}, None)

    def work() -> dict[str, Any]:
        service = services.get(scope)
        written = service.upsert(anchors.with_anchors(draft, anchors.checkout_root(services.cwd)))
        return views.trace(service.history(written.memory.id))

    return JSONResponse(await run_in_threadpool(work), status_code=201)


async def show(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    memory_id = _memory_id(request)

    def work() -> dict[str, Any]:
        try:
            return views.trace(services.get(scope).history(memory_id))
        except NotFound:
            raise ApiError(404, "memory not found") from None

    return JSONResponse(await run_in_threadpool(work))


async def show_revision(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    memory_id = _memory_id(request)
    revision_id = str(request.path_params["revision_id"])

    def work() -> dict[str, Any]:
        try:
            return views.row(services.get(scope).source(f"{memory_id}/{revision_id}"))
        except (NotFound, InvalidInput):
            raise ApiError(404, "revision not found") from None

    return JSONResponse(await run_in_threadpool(work))


async def edit(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    memory_id = _memory_id(request)
    draft = _draft(await _json_object(request), memory_id)

    def work() -> dict[str, Any]:
        service = services.get(scope)
        try:
            current = service.source(memory_id)  # only a current memory is edited (no revival)
        except NotFound:
            raise ApiError(404, "memory not found") from None
        root = anchors.checkout_root(services.cwd)
        service.upsert(anchors.with_anchors(draft, root, current))
        return views.trace(service.history(memory_id))

    return JSONResponse(await run_in_threadpool(work))


async def remove(request: Request, services: Services) -> Response:
    if request.query_params.get("confirm", "").strip().lower() != "true":
        raise ApiError(409, "removal requires confirm=true")
    scope = services.resolve(request)
    memory_id = _memory_id(request)

    def work() -> dict[str, Any]:
        try:
            services.get(scope).delete(memory_id)
        except NotFound:
            raise ApiError(404, "memory not found") from None
        return {"id": memory_id, "removed": True}

    return JSONResponse(await run_in_threadpool(work))


async def restore(request: Request, services: Services) -> Response:
    """POST /api/memories/{id}/revisions/{revision_id}/restore: `MemoryService.restore`, as
    `graphit memory restore ID/REVISION_ID`; 200 with the trace view."""
    scope = services.resolve(request)
    memory_id = _memory_id(request)
    ref = f"{memory_id}/{request.path_params['revision_id']}"

    def work() -> dict[str, Any]:
        service = services.get(scope)
        try:
            service.source(ref)
        except (NotFound, InvalidInput):
            raise ApiError(404, "revision not found") from None
        service.restore(ref)
        return views.trace(service.history(memory_id))

    return JSONResponse(await run_in_threadpool(work))
