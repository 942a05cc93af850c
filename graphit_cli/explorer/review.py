"""The Explorer's review queue: `GET /api/review` (the open proposals of the project, each with
its change against the memory as it now reads), `POST /api/review/{id}/{revision_id}/approve`
and `.../reject` (JSON `{"reason": "..."}`), as `graphit memory review`. The reviewer is the
identity of the checkout the Explorer runs in; anyone else gets 403 with the reviewers' names.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graphit_cli.explorer import views
from graphit_cli.explorer.api import ApiError, Services, _memory_id


async def queue(request: Request, services: Services) -> Response:
    from graphit_cli.formats.review import change_of

    scope = services.resolve(request)

    def work() -> dict[str, Any]:
        service = services.get(scope)
        policy = service.review.policy
        found = service.review.queue()
        return {
            "review": policy is not None,
            "reviewers": list(policy.reviewers) if policy else [],
            "you": service.author,
            "proposals": [
                {
                    "proposal": views.row(p.row),
                    "current": views.row(p.current) if p.current is not None else None,
                    "change": change_of(p.row, p.current),
                }
                for p in found
            ],
        }

    return JSONResponse(await run_in_threadpool(work))


async def approve(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    key = f"{_memory_id(request)}/{request.path_params['revision_id']}"

    def work() -> dict[str, Any]:
        result = services.get(scope).review.approve(key)
        return {"action": result.action.value, "memory": views.row(result.memory)}

    return JSONResponse(await run_in_threadpool(work))


async def reject(request: Request, services: Services) -> Response:
    scope = services.resolve(request)
    key = f"{_memory_id(request)}/{request.path_params['revision_id']}"
    try:
        data = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError(400, "invalid JSON body") from None
    if not isinstance(data, dict) or set(data) - {"reason"}:
        raise ApiError(400, 'the body is {"reason": "..."}')
    reason = data.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise ApiError(400, "a rejection needs a reason")

    def work() -> dict[str, Any]:
        row = services.get(scope).review.reject(key, reason)
        return {"action": "rejected", "memory": views.row(row)}

    return JSONResponse(await run_in_threadpool(work))
