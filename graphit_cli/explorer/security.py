"""The guard in front of the Explorer: a local server that can delete memories.

- Host check (DNS rebinding): the Host header must name the bound address or `localhost`.
- Token: every `/api/` request carries the run's token, in the cookie set when a page is opened
  with `?token=` (HttpOnly, SameSite=Strict) or in `Authorization: Bearer`.
- CSRF: POST/PATCH/PUT/DELETE need `Content-Type: application/json` (when they carry a body)
  and, when the browser sends one, an `Origin` equal to the server's own.
- Every response carries a CSP without inline script, so a rendering bug cannot run code, and
  with images only from the server itself and data: URLs, so no remote image is fetched.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Collection
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
MUTATIONS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
WITH_BODY = frozenset({"POST", "PUT", "PATCH"})
STATIC_PREFIX = "/memory/explorer/static/"


def host_name(host_header: str) -> str:
    """`127.0.0.1:7420` -> `127.0.0.1`; `[::1]:7420` -> `::1`; lower case."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    return value.rpartition(":")[0] if value.count(":") == 1 else value


def cookie_name(scope: Scope) -> str:
    """One cookie per port: cookies ignore ports, and two explorers may run side by side."""
    server = scope.get("server") or ("", 0)
    return f"graphit_explorer_{server[1] or 0}"


class Guard:
    """Pure ASGI middleware (no response buffering) applying the rules above.

    `hosts` are the host names accepted in the Host header; None accepts any (a wildcard bind
    with --allow-remote, where the token and the Origin check carry the protection).
    """

    def __init__(self, app: ASGIApp, *, token: str, hosts: Collection[str] | None) -> None:
        self.app = app
        self.token = token
        self.hosts = None if hosts is None else {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        api = path.startswith("/api/")
        refusal = self._refusal(scope, headers, api, path)
        if refusal is not None:
            status, message = refusal
            await _plain(send, status, message, api)
            return
        if not api and not path.startswith(STATIC_PREFIX):
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if "token" in query:  # the printed URL: trade the token for the cookie
                await self._login(scope, send, query)
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = list(SECURITY_HEADERS)
                if api:
                    extra.append((b"cache-control", b"no-store"))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refusal(
        self, scope: Scope, headers: dict[str, str], api: bool, path: str
    ) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if self.hosts is not None and host_name(host) not in self.hosts:
            return 403, "host not allowed: open the URL graphit memory explorer printed"
        if path.startswith(STATIC_PREFIX):
            return None  # package assets, the same for everyone
        if not api:
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if "token" in query:
                return None if self._valid(query["token"]) else (403, "invalid token")
            if self._valid(_cookie(headers, cookie_name(scope))):
                return None
            return 401, "missing token: open the URL graphit memory explorer printed"
        supplied = _bearer(headers) or _cookie(headers, cookie_name(scope))
        if not supplied:
            return 401, "missing token: open the URL graphit memory explorer printed"
        if not self._valid(supplied):
            return 403, "invalid token"
        method = scope["method"]
        if method in MUTATIONS:
            origin = headers.get("origin")
            if origin is not None and origin.lower() != f"http://{host.lower()}":
                return 403, "cross-origin request refused"
            if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                return 403, "cross-site request refused"
            content_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if method in WITH_BODY and content_type != "application/json":
                return 403, "mutations need Content-Type: application/json"
        return None

    def _valid(self, supplied: str | None) -> bool:
        return bool(supplied) and hmac.compare_digest(str(supplied).encode(), self.token.encode())

    async def _login(self, scope: Scope, send: Send, query: dict[str, str]) -> None:
        """303 to the same address without the token (kept out of history and logs)."""
        rest = urlencode({k: v for k, v in query.items() if k != "token"})
        location = scope["path"] + (f"?{rest}" if rest else "")
        cookie = (f"{cookie_name(scope)}={self.token}; Path=/; HttpOnly; SameSite=Strict").encode()
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode()),
                    (b"set-cookie", cookie),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


def _cookie(headers: dict[str, str], name: str) -> str | None:
    raw = headers.get("cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


def _bearer(headers: dict[str, str]) -> str | None:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


async def _plain(send: Send, status: int, message: str, api: bool) -> None:
    body: Any
    if api:
        body, kind = json.dumps({"error": message}).encode(), b"application/json"
    else:
        body, kind = (message + "\n").encode(), b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", kind),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
