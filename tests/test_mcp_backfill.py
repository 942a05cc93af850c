"""The MCP server fills the missing vectors of every scope it serves, in the background.

A real server over stdio (the MCP SDK's own client) on a fresh project: rows the server did not
embed itself (the user scope's rows written by a cold CLI before it started, a project row a cold
CLI writes while it runs) get their vectors without a daemon, and search on both scopes is
hybrid. The verdict waits for the vectors with a generous bound; it never times the backfill.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.mcp.background import Background
from graphit_cli.mcp.tools import MemoryTools
from tests.conftest import PROJECT_ID
from tests.embedders import HashingEmbedder

REPO = Path(__file__).resolve().parent.parent
WAIT_SECONDS = 240.0


def _env(root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "GRAPHIT_HOME": str(root / "graphit-home"),
        "GRAPHIT_PROJECT_ID": PROJECT_ID,
        "GRAPHIT_AUTHOR": "agent",
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "GRAPHIT_NO_DAEMON": "1",
        "GRAPHIT_MCP_BACKFILL_INTERVAL": "1",
        "PYTHONPATH": str(REPO),
    }


# A CLI process with no model (a write then leaves its rows without vectors).
NO_MODEL = {"GRAPHIT_EMBEDDER": "tests.embedders:no_model"}


def _cli(root: Path, *args: str, **extra: str) -> Any:
    proc = subprocess.run(
        [sys.executable, "-m", "graphit_cli", *args, "-f", "json"],
        cwd=root,
        env={**_env(root), **extra},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _missing(root: Path) -> dict[str, int]:
    """Rows without a vector per scope, from `graphit memory status`."""
    status = _cli(root, "memory", "status")
    return {
        e["scope"].split(":")[0]: e["state"]["rows"] - e["state"]["rows_with_vectors"]
        for e in status["scopes"]
        if e["state"] is not None
    }


@pytest.mark.slow  # an MCP server process and CLI processes; the steps: in-process below
def test_every_served_scope_gets_its_vectors(tmp_path: Path) -> None:
    # Written before the server starts, by a process without a model: no vectors.
    for title in ("Editor", "Shell"):
        args = ("memory", "upsert", "--scope", "user", "--title", title, "--body", "b")
        _cli(tmp_path, *args, **NO_MODEL)
    assert _missing(tmp_path)["user"] == 2

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphit_cli", "memory", "mcp"],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=180)) as client,
    ):

        def call(tool: str, **arguments: Any) -> Any:
            result = portal.call(client.call_tool, tool, {**arguments, "format": "json"})
            assert not result.is_error, result.content
            return result.structured_content

        for scope in ("project", "user"):
            created = call(
                "graphit_memory_insert", scope=scope, title=f"{scope} db", body="We use Postgres."
            )
            call("graphit_memory_update", id=created["id"], scope=scope, body="We use SQLite.")
        # A row another process writes while the server runs (picked up by the interval).
        args = ("memory", "upsert", "--title", "Deploys", "--body", "Fridays never.")
        _cli(tmp_path, *args, **NO_MODEL)

        deadline = time.monotonic() + WAIT_SECONDS
        missing = _missing(tmp_path)
        while any(missing.get(k, 1) for k in ("project", "user")):
            assert time.monotonic() < deadline, f"still missing vectors: {missing}"
            time.sleep(1.0)
            missing = _missing(tmp_path)

        for scope, query in (("project", "deploys"), ("user", "editor")):
            found = call("graphit_memory_search", query=query, scope=scope)
            assert (found["mode"], found["notice"]) == ("hybrid", None), found
            assert found["total"] >= 1, found


class _LockProbe(HashingEmbedder):
    """Records each model call's batch size, and whether another thread could take the
    tools lock while the model ran."""

    def __init__(self, tools: MemoryTools) -> None:
        super().__init__()
        self.tools = tools
        self.batches: list[int] = []
        self.lock_free: list[bool] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(len(texts))

        def probe() -> None:  # a read arriving now must get the lock (120 s: a hang bound)
            got = self.tools.lock.acquire(timeout=120)
            if got:
                self.tools.lock.release()
            self.lock_free.append(got)

        reader = threading.Thread(target=probe)
        reader.start()
        reader.join()
        return super().embed_documents(texts)


def test_a_backfill_step_never_holds_the_lock_across_the_model(scope: Scope) -> None:
    from graphit_cli.opening import open_service

    seeded = open_service(scope)
    for i in range(5):
        seeded.upsert(MemoryDraft(title=f"memory {i}", body=f"body {i}"))
    assert seeded.store.missing_vectors() == 5
    tools = MemoryTools(opener=open_service)
    model = _LockProbe(tools)
    tools._embedder = lambda: model
    service = tools.service("project")

    assert Background(tools).backfill(batch=2) == 5
    assert model.batches == [2, 2, 1]
    assert model.lock_free == [True, True, True]
    assert service.store.missing_vectors() == 0
    assert service.store.embedding_model() == model.model_id
    assert Background(tools).backfill(batch=2) == 0  # nothing left: no model call
    assert model.batches == [2, 2, 1]


def test_a_table_of_another_model_is_left_to_the_daemon(scope: Scope) -> None:
    from graphit_cli.opening import open_service

    seeded = open_service(scope)
    seeded.upsert(MemoryDraft(title="memory", body="body"))
    seeded.store.set_embedding_model("another/model")
    tools = MemoryTools(opener=open_service)
    model = _LockProbe(tools)
    tools._embedder = lambda: model
    tools.service("project")

    assert Background(tools).backfill() == 0
    assert model.batches == []
    assert seeded.store.embedding_model() == "another/model"  # never mixed, never cleared


def test_a_failed_step_is_retried_at_the_next_sweep(scope: Scope) -> None:
    from graphit_cli.errors import CommitContention
    from graphit_cli.opening import open_service

    seeded = open_service(scope)
    seeded.upsert(MemoryDraft(title="memory", body="body"))
    tools = MemoryTools(opener=open_service)
    model = _LockProbe(tools)
    tools._embedder = lambda: model
    service = tools.service("project")
    real = service.store.write_embeddings
    calls = []

    def lose_once(items: list[tuple[str, str, list[float]]]) -> int:
        calls.append(len(items))
        if len(calls) == 1:
            raise CommitContention("a writer won the commit")
        return real(items)

    service.store.write_embeddings = lose_once
    background = Background(tools)
    assert background.backfill() == 0
    assert background.backfill() == 1  # the scope was not given up
    assert service.store.missing_vectors() == 0


def test_a_commit_during_the_last_step_is_embedded_at_the_next_sweep(scope: Scope) -> None:
    """A sweep marks a scope clean at the version its last step read, not a later one: a row
    another process commits while that step reads is embedded by the next sweep."""
    from graphit_cli.opening import open_service

    seeded = open_service(scope)
    seeded.upsert(MemoryDraft(title="first", body="written before the server"))
    tools = MemoryTools(opener=open_service)
    model = HashingEmbedder()
    tools._embedder = lambda: model
    service = tools.service("project")
    other = open_service(scope)  # another writer on the same table (a cold CLI, say)
    real = service.store.rows_to_embed
    written_meanwhile: list[str] = []

    def then_a_commit(limit: int) -> Any:
        rows = real(limit)
        if not rows and not written_meanwhile:  # the step found nothing; a write lands now
            draft = MemoryDraft(title="second", body="written during the step")
            written_meanwhile.append(other.upsert(draft).memory.id)
        return rows

    service.store.rows_to_embed = then_a_commit
    background = Background(tools)
    assert background.backfill() == 1  # "first"; then the step that found nothing
    assert written_meanwhile and service.store.missing_vectors() == 1
    assert background.backfill() == 1  # "second": the scope was not marked clean past it
    assert service.store.missing_vectors() == 0
