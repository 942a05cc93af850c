"""`GET /api/recalls`: what the agent hooks injected, per session, and why (read-only).

The same records as `graphit agent recalls`: the local recalls log (graphit_cli/recall/log.py),
grouped by session. `?session=ID` (or the start of one) keeps one session.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graphit_cli.explorer.api import Services


async def recalls(request: Request, services: Services) -> Response:
    """What the agent hooks injected, per session, and why (`graphit agent recalls`): the
    local recalls log, read-only."""
    from graphit_cli.recall import log

    session = request.query_params.get("session", "").strip() or None

    def work() -> dict[str, Any]:
        return {"sessions": log.sessions(log.read(session))}

    return JSONResponse(await run_in_threadpool(work))
