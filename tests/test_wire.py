"""The warm path's socket protocol: validated like the CLI, versioned both ways."""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft, MemoryFilter
from graphit_cli.daemon.process import Daemon, DaemonSettings, EventLog
from graphit_cli.errors import InvalidInput
from graphit_cli.opening import open_service
from graphit_cli.warm import values, wire
from tests.embedders import HashingEmbedder


@pytest.mark.parametrize(
    ("flt", "message"),
    [
        ({"types": ["nonsense"]}, "unknown type"),
        ({"types": "fact"}, "filter types must be a list of strings"),
        ({"tags": ["a'b"]}, "invalid tag"),
        ({"tags": [3]}, "filter tags must be a list of strings"),
        ({"important": "yes"}, "filter important must be true, false or null"),
        ({"mandatory": 1}, "filter mandatory must be true, false or null"),
        ({"where": "1=1"}, "unknown filter field 'where'"),
        (["types"], "filter must be a JSON object"),
    ],
)
def test_filters_from_the_socket_are_validated(flt: Any, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        values.filter_from_wire(flt)


def test_valid_filter_is_normalised_as_the_cli_does() -> None:
    got = values.filter_from_wire(
        {"types": ["Decision"], "tags": ["b", "a", "a"], "important": True}
    )
    assert got == MemoryFilter(types=("decision",), tags=("a", "b"), important=True)


@pytest.fixture
def daemon(scope: Scope) -> Iterator[Daemon]:
    svc = open_service(scope)
    svc.upsert(MemoryDraft(title="Cache", body="cache keys expire hourly", tags=("ops",)))
    running = Daemon(
        DaemonSettings(embed_interval=60, maintain_interval=60),
        scopes_named=[scope],
        embedder=HashingEmbedder,
        log=EventLog(StringIO()),
    )
    running.start()
    yield running
    running.shutdown()


def _raw(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        sock.sendall(json.dumps(request).encode() + b"\n")
        reply: dict[str, Any] = json.loads(sock.makefile().readline())
        return reply


def test_daemon_refuses_bad_requests_and_other_protocols(daemon: Daemon, scope: Scope) -> None:
    from graphit_cli.access.fingerprint import fingerprint

    base = {
        "protocol": wire.PROTOCOL,
        "op": "catalogue",
        "scope": str(scope),
        "fingerprint": fingerprint([scope]),
    }
    good = _raw(daemon.socket_path, base)
    assert good["ok"] and good["protocol"] == wire.PROTOCOL and len(good["result"]) == 1
    other = _raw(daemon.socket_path, {**base, "fingerprint": "0.0.0"})
    assert other == {"ok": False, "protocol": wire.PROTOCOL, "declined": other["declined"]}
    assert "home, tables, settings" in other["declined"]
    for bad, message in (
        ({k: v for k, v in base.items() if k != "fingerprint"}, "fingerprint must be a string"),
        ({**base, "filter": {"tags": ["x' OR '1'='1"]}}, "invalid tag"),
        ({**base, "filter": {"types": ["x"]}}, "unknown type"),
        ({**base, "limit": -1}, "limit must be a whole number"),
        ({**base, "op": "search", "query": "cache", "top_k": "10"}, "top_k must be"),
        ({**base, "op": "search", "query": ["cache"]}, "query must be a string"),
        ({**base, "op": "embed_query", "text": "x"}, "unknown request 'embed_query'"),
    ):
        reply = _raw(daemon.socket_path, bad)
        assert not reply["ok"] and reply["error"]["type"] == "InvalidInput", reply
        assert message in reply["error"]["message"]
    for protocol in (None, 1, wire.PROTOCOL + 1):
        reply = _raw(daemon.socket_path, {**base, "protocol": protocol})
        assert not reply["ok"] and reply["error"]["type"] == "ProtocolMismatch"
        assert reply["protocol"] == wire.PROTOCOL
    assert _raw(daemon.socket_path, {"op": "ping", "protocol": 1})["ok"]  # any version may ping


def test_cli_falls_back_in_process_when_an_old_daemon_answers(
    cli, scope: Scope, graphit_home: Path
) -> None:
    """A daemon of protocol 1 ignored the version and sent none back: the CLI must not use it."""
    open_service(scope).upsert(MemoryDraft(title="Real", body="the real table"))
    served: list[dict[str, Any]] = []

    class OldDaemon(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            served.append(json.loads(self.rfile.readline()))
            stale = {"ok": True, "result": []}  # protocol 1: an answer that may be wrong
            self.wfile.write(json.dumps(stale).encode() + b"\n")

    path = graphit_home / "run" / "daemon.sock"
    path.parent.mkdir(parents=True, exist_ok=True)
    server = socketserver.ThreadingUnixStreamServer(str(path), OldDaemon)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        listed = cli("memory", "list", "-f", "json")
    finally:
        server.shutdown()
        server.server_close()
    assert served and served[0]["protocol"] == wire.PROTOCOL  # it was asked ...
    assert listed.exit_code == 0 and [m["title"] for m in listed.json()] == ["Real"]  # ... not used
    assert listed.stderr == (
        "graphit: WARNING: the running daemon speaks protocol 1, "
        f"this graphit {wire.PROTOCOL}: working in-process "
        "(restart `graphit memory daemon` to use the warm path again)\n"
    )
