"""Smaller failures, each tested at its cause: a cache warm-up that fails is
a warning; FIFOs and process substitution import like files and /dev/zero is bounded; input
nested too deep or numbers out of range are exit 3 (MCP: isError); claim files left by killed
clients are swept; NFC and NFD spellings of one text are one memory."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
from tests.conftest import PROJECT_ID
from tests.s3_harness import moto_with_bucket

BUCKET = "graphit-probe"


moto = moto_with_bucket(BUCKET)


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
    from graphit_cli.errors import GraphitError, NotFound
    from graphit_cli.warm import wire

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


# --- streams, bounds and depth ------------------------------------------------------------


def _exported(cli: Any, scope: Scope, tmp_path: Path) -> Path:
    open_service(scope).upsert(MemoryDraft(title="Exported", body="from another machine"))
    result = cli("memory", "export")
    assert result.exit_code == 0, result.stderr
    target = tmp_path / "export.ndjson"
    target.write_text(result.stdout)
    return target


def test_a_fifo_imports_like_a_file(cli: Any, scope: Scope, tmp_path: Path) -> None:
    """`graphit memory import <(cat export.ndjson)` hands the command a pipe (/dev/fd/N)."""
    import os
    import threading

    exported = _exported(cli, scope, tmp_path)
    fifo = tmp_path / "incoming"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(exported.read_bytes()), daemon=True)
    writer.start()
    result = cli("memory", "import", str(fifo), "--user")
    writer.join(timeout=120)
    assert result.exit_code == 0, result.stderr
    assert "1 created" in result.stderr
    listed = cli("memory", "list", "--user", "--format", "json")
    assert [m["title"] for m in listed.json()] == ["Exported"]


def test_dev_zero_and_dev_null_are_refused_in_words(cli: Any, scope: Scope) -> None:
    from graphit_cli.portability import sources

    original = sources.MAX_STREAM_BYTES
    sources.MAX_STREAM_BYTES = 4 << 20  # the bound's logic, without reading 256 MiB here
    try:
        zero = cli("memory", "import", "/dev/zero")
    finally:
        sources.MAX_STREAM_BYTES = original
    assert zero.exit_code == 3 and "larger than" in zero.stderr, zero.stderr
    empty = cli("memory", "import", "/dev/null")
    assert empty.exit_code == 3 and "nothing to import" in empty.stderr, empty.stderr
    context = cli("memory", "context", "add", "x", "--from", "/dev/null")
    assert context.exit_code == 3 and "nothing to import" in context.stderr, context.stderr
    assert not Scope("context", "x").local_path().exists()


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", DEEP),
        ("field.json", '{"title": "t", "body": ' + DEEP + "}"),
        ("deep.md", f"---\ntitle: {DEEP}\n---\nbody\n"),
    ],
)
def test_input_nested_too_deep_is_exit_3(
    cli: Any, scope: Scope, tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    result = cli("memory", "upsert", str(path))
    assert result.exit_code == 3, result.stderr
    assert "nested too deeply" in result.stderr and "internal error" not in result.stderr


def test_an_import_line_nested_too_deep_is_a_rejected_record(
    cli: Any, scope: Scope, tmp_path: Path
) -> None:
    path = tmp_path / "deep.ndjson"
    path.write_text(DEEP + "\n")
    result = cli("memory", "import", str(path))
    assert result.exit_code == 3, result.stderr
    assert "nested too deeply" in result.stderr


def test_the_explorer_refuses_a_body_nested_too_deep(project_dir: Path) -> None:
    from starlette.testclient import TestClient

    from graphit_cli.explorer.app import create_app

    token = "test-token-0123456789"
    with TestClient(
        create_app(token=token, cwd=project_dir), base_url="http://127.0.0.1:7420"
    ) as c:
        response = c.post(
            "/api/memories",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            content='{"title": "t", "body": ' + DEEP + "}",
        )
    assert response.status_code == 400


@pytest.mark.parametrize("command", ["search", "recall"])
def test_a_huge_top_k_is_exit_3(cli: Any, scope: Scope, command: str) -> None:
    open_service(scope).upsert(MemoryDraft(title="Gateway", body="mutual TLS"))
    result = cli("memory", command, "gateway", "--top-k", "9223372036854775807")
    assert result.exit_code == 3, result.stderr
    assert "top_k must be at most" in result.stderr
    assert cli("memory", command, "gateway", "--top-k", "0").exit_code == 0


def test_a_huge_top_k_over_mcp_is_a_tool_error(project_dir: Path, graphit_home: Path) -> None:
    import os
    import sys

    from anyio.from_thread import start_blocking_portal
    from mcp import Client, StdioServerParameters

    from tests.test_mcp import Session

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphit_cli", "memory", "mcp"],
        env={
            "GRAPHIT_HOME": str(graphit_home),
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "PATH": os.environ.get("PATH", ""),
        },
        cwd=project_dir,
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120)) as client,
    ):
        s = Session(portal, client)
        s.json("graphit_memory_insert", title="Gateway", body="mutual TLS")
        for tool in ("graphit_memory_search", "graphit_memory_recall"):
            argument = {"query": "gateway"} if tool.endswith("search") else {"context": "gateway"}
            said = s.error(tool, top_k=9223372036854775807, **argument)
            assert "top_k" in said and "too large" not in said, said


# --- claim files --------------------------------------------------------------------------


def test_claims_left_by_killed_clients_are_swept_by_the_next_write(
    cli: Any, scope: Scope, graphit_home: Path
) -> None:
    """A forwarding CLI killed with -9 leaves `run/requests/<id>.pending` or `.taken`; the
    next forwarding write removes those past any write's wait, and no claim of a live one."""
    import os
    import time

    from graphit_cli.warm import wire

    requests = graphit_home / "run" / "requests"
    requests.mkdir(parents=True)
    stale = [requests / f"{wire.new_request_id()}.{kind}" for kind in ("pending", "taken")]
    live = requests / f"{wire.new_request_id()}.taken"
    for path in [*stale, live]:
        path.touch()
    old = time.time() - wire.WRITE_TIMEOUT - 3600
    for path in stale:
        os.utime(path, (old, old))
    result = cli("memory", "upsert", "--title", "Next", "--body", "a later write")
    assert result.exit_code == 0, result.stderr
    assert sorted(requests.iterdir()) == [live]


# --- Unicode forms ------------------------------------------------------------------------

NFC_TITLE = "Café déploiement"
NFC_BODY = "Le café du vendredi: déploiement à 15 h, après la réunion de l'équipe."


def _nfd(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFD", text)


@pytest.mark.parametrize("first_form", ["NFC", "NFD"])
def test_one_text_in_nfc_and_nfd_is_one_memory(cli: Any, scope: Scope, first_form: str) -> None:
    """One memory whatever the form of its text: the text is stored in NFC, so a second
    spelling is the same memory (the duplicate guard says so)."""
    import unicodedata

    forms = [(NFC_TITLE, NFC_BODY), (_nfd(NFC_TITLE), _nfd(NFC_BODY))]
    if first_form == "NFD":
        forms.reverse()
    (title, body), (other_title, other_body) = forms
    assert title != other_title and body != other_body  # two spellings of one text
    first = cli("memory", "upsert", "--title", title, "--body", body, "-f", "json")
    assert first.exit_code == 0, first.stderr
    second = cli("memory", "upsert", "--title", other_title, "--body", other_body)
    assert "already says this" in second.stderr, second.stderr
    stored = open_service(scope).source(first.json()[0]["id"])
    assert stored.body == unicodedata.normalize("NFC", body)
    assert unicodedata.is_normalized("NFC", stored.title)
    batch = [MemoryDraft(title=other_title, body=other_body), MemoryDraft(title="x", body="y")]
    assert [i for i, _ in open_service(scope).live_duplicates(batch)] == [0]


def test_consolidation_calls_nfc_and_nfd_spellings_exact() -> None:
    from datetime import UTC, datetime

    from graphit_cli.consolidate.candidates import find_candidates
    from tests.test_consolidate import row

    rows = [
        row("A" * 26, NFC_TITLE, NFC_BODY),
        row("B" * 26, _nfd(NFC_TITLE), _nfd(NFC_BODY)),
    ]
    report = find_candidates(rows, [], [], scope="p", now=datetime(2026, 6, 1, tzinfo=UTC))
    assert [(g.kind, sorted(g.ids)) for g in report.groups] == [("exact", ["A" * 26, "B" * 26])]
