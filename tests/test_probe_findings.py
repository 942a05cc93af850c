"""The probe's smaller findings of issue #36, each at its cause: a cache warm-up that fails is
a warning; FIFOs and process substitution import like files and /dev/zero is bounded; input
nested too deep or numbers out of range are exit 3 (MCP: isError); claim files left by killed
clients are swept; NFC and NFD spellings of one text are one memory."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.opening import open_service
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from tests.conftest import PROJECT_ID

BUCKET = "graphit-probe"


@pytest.fixture(scope="module")
def moto() -> Iterator[Any]:
    pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")
    from tests.s3_harness import MotoServer

    server = MotoServer()
    server.client("s3").create_bucket(Bucket=BUCKET)
    yield server
    server.stop()


def test_a_failed_index_warm_up_is_a_warning_not_a_failed_search(
    moto: Any,
    project_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """lance raised "FTS prewarm completed without publishing query-ready ... state" beside
    maintenance on S3; the search that started the warm-up failed with it (exit 1)."""
    import lancedb.table

    from tests.s3_harness import use_moto

    use_moto(monkeypatch, moto.endpoint, BUCKET, f"t-{uuid.uuid4().hex[:12]}", tmp_path)
    service = open_service(Scope("project", PROJECT_ID))
    service.upsert_many([MemoryDraft(title=f"deploy {n}", body="deploy notes") for n in range(5)])
    service.maintain(force=True)

    def refuse(self: Any, name: str) -> None:
        raise RuntimeError(
            "lance error: FTS prewarm completed without publishing query-ready state for"
            f" {name}, /root/.cargo/registry/src/lance-index-13.0.0/src/scalar/inverted.rs:1:1"
        )

    monkeypatch.setattr(lancedb.table.LanceTable, "prewarm_index", refuse)
    with caplog.at_level(logging.WARNING):
        for _ in range(4):  # the handle warms its indexes from its third search
            assert service.search("deploy", mode="fts").hits
    warned = [r.getMessage() for r in caplog.records if "warming" in r.getMessage()]
    assert warned and ".rs:" not in warned[0]


def test_a_forwarded_read_the_daemon_fails_on_its_own_falls_back(
    cli: Any, scope: Scope, graphit_home: Path
) -> None:
    """A daemon that fails a search with an error of its own (exit 1: not the table's, not the
    input's) leaves the read to the command, which answers it in-process."""
    import json
    import socketserver
    import threading

    from graphit_cli.access import runstate
    from graphit_cli.daemon import wire
    from graphit_cli.errors import GraphitError, NotFound

    open_service(scope).upsert(MemoryDraft(title="Gateway", body="mutual TLS at the gateway"))
    path = runstate.socket_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    failure: list[GraphitError] = [GraphitError("daemon error: FTS prewarm completed without")]
    asked: list[str] = []

    class Failing(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            request = json.loads(self.rfile.readline())
            asked.append(str(request.get("op")))
            reply = (
                {"ok": True, "protocol": wire.PROTOCOL, "pid": 1, "version": "x", "loops": []}
                if request.get("op") == "ping"
                else wire.error_to_wire(failure[0])
            )
            self.wfile.write(json.dumps(reply).encode() + b"\n")

    server = socketserver.ThreadingUnixStreamServer(str(path), Failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        found = cli("memory", "search", "gateway TLS", "--format", "json")
        assert found.exit_code == 0, found.stderr
        assert [h["title"] for h in found.json()] == ["Gateway"]
        assert "search" in asked
        failure[0] = NotFound("no memory with id 01JD0000000000000000000099")
        shown = cli("memory", "source", "01JD0000000000000000000099")
        assert shown.exit_code == 4  # the daemon's own answer stands: no second attempt
    finally:
        server.shutdown()
        server.server_close()
