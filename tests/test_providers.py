"""Providers: the broker client never leaks its login token, and insists on https off-loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from graphit_cli.access.providers import BrokerClient, Provider, make_provider
from graphit_cli.access.scopes import Scope
from graphit_cli.errors import InvalidInput, StorageUnavailable
from tests.conftest import PROJECT_ID

TOKEN = "s3cr3t-login-token"


class Recorder:
    """A local HTTP server that notes every request's path and headers."""

    def __init__(self, answer: Any) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                recorder.seen.append((self.command, self.path, dict(self.headers.items())))
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                answer(self)

            do_GET = do_POST = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _json(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@pytest.fixture
def servers() -> Iterator[tuple[Recorder, Recorder]]:
    """`first` redirects every call (302 for GET, 307 for POST) to `second`, which would answer."""
    second = Recorder(lambda h: _json(h, 200, {"subject": "mallory"}))

    def redirect(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302 if handler.command == "GET" else 307)
        handler.send_header("Location", second.url + handler.path)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    first = Recorder(redirect)
    yield first, second
    first.stop()
    second.stop()


def test_broker_calls_never_follow_a_redirect_with_the_token(
    servers: tuple[Recorder, Recorder],
) -> None:
    first, second = servers
    client = BrokerClient(Provider("hub", "broker", endpoint=first.url), TOKEN)
    with pytest.raises(StorageUnavailable, match=r"redirect \(HTTP 302\).*never follow"):
        client.whoami()
    with pytest.raises(StorageUnavailable, match=r"redirect \(HTTP 307\)"):
        client.grant(Scope("project", PROJECT_ID))
    assert [(m, p) for m, p, _ in first.seen] == [
        ("GET", "/v1/whoami"),
        ("POST", "/v1/credentials"),
    ]
    assert all(h.get("Authorization") == f"Bearer {TOKEN}" for _, _, h in first.seen)
    assert second.seen == []  # the second server never saw a request, let alone the token


def test_user_scope_behind_a_redirecting_broker_is_a_clear_error(
    cli, servers: tuple[Recorder, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = servers
    assert cli("provider", "add", "hub", "--kind", "broker", "--endpoint", first.url).exit_code == 0
    monkeypatch.setenv("GRAPHIT_BROKER_TOKEN", TOKEN)
    listed = cli("memory", "list", "--user")
    assert listed.exit_code == 7 and listed.stdout == ""
    assert listed.stderr.startswith("Error: the broker at ") and "redirect" in listed.stderr
    assert TOKEN not in listed.stderr and second.seen == []


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://hub.example.com/graphit",
        "http://127.0.0.1:8080",
        "http://127.9.9.9",
        "http://localhost:1/x",
        "http://[::1]:9",
    ],
)
def test_broker_endpoint_https_or_loopback(endpoint: str) -> None:
    assert make_provider("hub", "broker", endpoint=endpoint).endpoint == endpoint


@pytest.mark.parametrize(
    "endpoint", ["http://hub.example.com", "http://10.0.0.1:8080/b", "http://localhost.evil.com"]
)
def test_plain_http_broker_off_loopback_is_refused(endpoint: str) -> None:
    with pytest.raises(InvalidInput, match="use https://"):
        make_provider("hub", "broker", endpoint=endpoint)
    # A hand-edited providers.json gets no further: the client checks before any request.
    with pytest.raises(InvalidInput, match="use https://"):
        BrokerClient(Provider("hub", "broker", endpoint=endpoint), TOKEN)


def test_cli_refuses_plain_http_broker(cli, graphit_home) -> None:
    added = cli(
        "provider", "add", "hub", "--kind", "broker", "--endpoint", "http://hub.example.com"
    )
    assert added.exit_code == 3 and added.stdout == ""
    assert added.stderr.startswith(
        "Error: invalid broker endpoint 'http://hub.example.com': use https://"
    )
    assert not (graphit_home / "providers.json").exists()  # nothing written
