"""Search people can trust, through the CLI and the MCP server.

Realistic tables: many memories flagged, some edited, some deleted, one written a second ago.
Vectors come from the fast hashing embedder (`GRAPHIT_EMBEDDER`), except in the real-model
tests at the end, which use the packaged all-MiniLM-L6-v2 and the calibrated floor.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.embed import model_available
from tests.conftest import PROJECT_ID

REPO = Path(__file__).resolve().parent.parent
HASHING = "tests.embedders:HashingEmbedder"

# A project as agents keep it: a dozen flagged memories on other topics.
FLAGGED = [
    ("Commit style", "Write commit messages in the imperative mood.", "mandatory"),
    ("Python installs", "Install Python packages with uv, never with pip.", "mandatory"),
    ("Answer tersely", "The user prefers short answers without preamble.", "mandatory"),
    ("Lint before push", "Run ruff check and ruff format before every push.", "important"),
    ("Database migrations", "Alembic owns the schema; never edit tables by hand.", "important"),
    ("Release train", "We release on Thursdays after the demo meeting.", "important"),
    ("Type checking", "mypy runs in strict mode over the whole package.", "important"),
    ("Logging format", "Services log JSON lines to stderr, never to files.", "important"),
    ("Secrets", "Secrets come from the vault; never commit a .env file.", "mandatory"),
    ("Code review", "Two approvals are needed to merge into main.", "important"),
    ("Feature flags", "New features ship behind a flag in the flags service.", "important"),
    ("On-call", "The on-call engineer owns alerts during office hours.", "important"),
]


def add(cli, *args: str) -> str:
    result = cli("memory", "upsert", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return str(result.json()[0]["id"])


def search(cli, *args: str) -> list[dict[str, Any]]:
    result = cli("memory", "search", *args, "-f", "json")
    assert result.exit_code == 0, result.stderr
    return list(result.json()) if result.stdout else []


@pytest.fixture
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIT_EMBEDDER", HASHING)


@pytest.fixture
def flagged_project(cli, hashing) -> dict[str, str]:
    made = {
        title: add(cli, "--title", title, "--body", body, f"--{flag}")
        for title, body, flag in FLAGGED
    }
    made["staging"] = add(
        cli, "--title", "Staging environment", "--body", "Staging lives at staging.acme.dev."
    )
    assert cli("memory", "embed").exit_code == 0
    return made


def test_unrelated_flagged_memories_take_no_slot(cli, flagged_project) -> None:
    hits = search(cli, "where is staging")
    assert [h["id"] for h in hits] == [flagged_project["staging"]]


def test_a_query_about_nothing_returns_nothing(cli, flagged_project) -> None:
    result = cli("memory", "search", "xylophone quantum banana", "-f", "table")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No matches.\n")
    assert search(cli, "xylophone quantum banana") == []


def test_a_genuine_flagged_match_is_selected_before_better_normal_ones(cli, hashing) -> None:
    normal = [
        add(cli, "--title", f"Deploy pipeline {n}", "--body", f"deploy pipeline: deploy step {n}")
        for n in range(12)
    ]
    rule = add(
        cli,
        "--title",
        "Deploy pipeline rule",
        "--body",
        "Deploy only from main: the pipeline checks the tag.",
        "--mandatory",
    )
    assert cli("memory", "embed").exit_code == 0
    everything = search(cli, "deploy pipeline", "-k", "0")
    by_rank = sorted(everything, key=lambda h: h["rank"])
    assert by_rank[0]["id"] != rule  # normal memories score higher...
    top = search(cli, "deploy pipeline", "-k", "4")  # the rule is within the 4 x 4 window
    assert top[0]["id"] == rule and {h["id"] for h in top[1:]} <= set(normal)  # ...it still wins


@pytest.mark.slow
def test_a_memory_written_a_second_ago_is_found_before_embedding(cli, hashing) -> None:
    # Neighbours that share words with the query, all embedded.
    for n in range(40):
        add(
            cli,
            "--title",
            f"Client {n}",
            "--body",
            f"The client library {n} caches certificates for the billing service.",
        )
    assert cli("memory", "embed").exit_code == 0
    fresh = add(
        cli,
        "--title",
        "Gateway uses mTLS",
        "--body",
        "The gateway requires mutual TLS: every caller presents a client certificate.",
    )
    hits = search(cli, "mutual TLS client certificates", "-k", "3")
    assert fresh in [h["id"] for h in hits]


def test_deleted_memories_are_out_unless_asked_for(cli, hashing) -> None:
    gone_rule = add(
        cli, "--title", "Old VPN rule", "--body", "Connect through the vpn gateway.", "--mandatory"
    )
    gone = add(cli, "--title", "Old VPN host", "--body", "The vpn host is vpn1.acme.dev.")
    kept = add(cli, "--title", "VPN host", "--body", "The vpn host is vpn2.acme.dev.")
    assert cli("memory", "embed").exit_code == 0
    for memory_id in (gone_rule, gone):
        assert cli("memory", "delete", memory_id, "--yes").exit_code == 0
    assert [h["id"] for h in search(cli, "vpn host")] == [kept]
    recall = cli("memory", "recall", "vpn host", "-f", "json").json()
    assert [h["id"] for h in recall["search"]["hits"]] == [kept]
    assert recall["mandatory"] == []
    every = {h["id"]: h for h in search(cli, "vpn host", "--include-deleted")}
    # The old rule shares only "vpn", a word every memory here has: not a match for "vpn host".
    every |= {h["id"]: h for h in search(cli, "vpn gateway", "--include-deleted")}
    assert set(every) == {gone_rule, gone, kept}
    assert every[gone]["deleted"] and every[gone_rule]["deleted"] and not every[kept]["deleted"]
    assert every[gone]["current"] is None


def test_flags_and_filters_are_judged_on_the_current_memory(cli, hashing) -> None:
    memory_id = add(
        cli, "--title", "Consumer lag", "--body", "Page when consumer lag exceeds 5 minutes."
    )
    add(
        cli,
        "--id",
        memory_id,
        "--title",
        "Queue backlog",
        "--body",
        "Page when the queue backs up for 5 minutes.",
        "--important",
        "--type",
        "constraint",
    )
    hits = search(cli, "lag exceeds", "--important")
    assert [(h["id"], h["superseded"], h["important"]) for h in hits] == [(memory_id, True, True)]
    assert [h["id"] for h in search(cli, "lag exceeds", "--type", "constraint")] == [memory_id]
    assert search(cli, "lag exceeds", "--type", "fact") == []  # what it was, not what it is
    # Marked mandatory since: excluded from the contextual search, whatever revision matched.
    add(cli, "--id", memory_id, "--mandatory")
    assert search(cli, "lag exceeds", "--exclude-mandatory") == []


# --- MCP ----------------------------------------------------------------------------------


@pytest.fixture
def mcp_session(tmp_path: Path) -> Iterator[Any]:
    from anyio.from_thread import start_blocking_portal
    from mcp import Client, StdioServerParameters

    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service
    from tests.embedders import HashingEmbedder

    home = tmp_path / "mcp-home"
    os.environ["GRAPHIT_HOME"] = str(home)  # the fixture's own table, built in-process first
    svc = open_service(Scope("project", PROJECT_ID), embedder=HashingEmbedder)
    for n in range(30):
        svc.upsert(MemoryDraft(title=f"Client {n}", body=f"The client {n} caches certificates."))
    svc.upsert(
        MemoryDraft(title="Old rule", body="Always rotate certificates by hand.", mandatory=True)
    )
    svc.embed()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphit_cli", "memory", "mcp"],
        env={
            "GRAPHIT_HOME": str(home),
            "GRAPHIT_PROJECT_ID": PROJECT_ID,
            "GRAPHIT_AUTHOR": "agent",
            "GRAPHIT_EMBEDDER": HASHING,
            "PYTHONPATH": str(REPO),
        },
        cwd=tmp_path,
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120)) as client,
    ):

        def call(tool: str, **arguments: Any) -> Any:
            result = portal.call(client.call_tool, tool, {"format": "json", **arguments})
            text = result.content[0].text
            assert not result.is_error, text
            return json.loads(text)

        yield call, svc


def test_mcp_search_finds_a_fresh_memory_embedded_on_write_and_hides_deleted(mcp_session) -> None:
    call, svc = mcp_session
    call("graphit_memory_search", query="warm up the model")
    written = call(
        "graphit_memory_insert",
        title="Gateway uses mTLS",
        body="The gateway requires mutual TLS: every caller presents a client certificate.",
    )
    row = svc.store.get(written["id"], vectors=True)
    assert row is not None and row.embedding is not None  # embedded before the call returned
    found = call("graphit_memory_search", query="mutual TLS client certificates", top_k=3)
    assert written["id"] in [h["id"] for h in found["hits"]]
    vector_only = call("graphit_memory_search", query="mutual TLS gateway", mode="vector", top_k=1)
    assert [h["id"] for h in vector_only["hits"]] == [written["id"]]

    [rule] = svc.catalogue()[:1]
    assert rule.mandatory
    call("graphit_memory_delete", id=rule.id)
    hits = call("graphit_memory_search", query="rotate certificates by hand")["hits"]
    assert rule.id not in [h["id"] for h in hits]
    shown = call("graphit_memory_search", query="rotate certificates by hand", include_deleted=True)
    [deleted] = [h for h in shown["hits"] if h["id"] == rule.id]
    assert deleted["deleted"] is True


# --- the real model -------------------------------------------------------------------------

real_model = pytest.mark.skipif(not model_available(), reason="embedding model not installed")


@pytest.mark.slow
@real_model
def test_real_model_relevance_floor(cli) -> None:
    made = {
        title: add(cli, "--title", title, "--body", body, f"--{flag}")
        for title, body, flag in FLAGGED
    }
    staging = add(
        cli, "--title", "Staging environment", "--body", "Staging lives at staging.acme.dev."
    )
    assert cli("memory", "embed").exit_code == 0
    hits = search(cli, "where is staging")
    assert hits[0]["id"] == staging and len(hits) <= 2, hits
    assert search(cli, "xylophone quantum banana") == []
    # A genuine mandatory match, said in other words, still comes first.
    install = search(cli, "how should I add a dependency to the python project")
    assert made["Python installs"] in [h["id"] for h in install][:1]


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed",
)
@pytest.mark.slow  # loads torch
def test_query_embedding_uses_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from graphit_cli.embed import load_default

    # The reference backend; the light one's threads: tests/test_embed_parity.py.
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "sentence-transformers")
    model = load_default()
    assert model is not None
    torch.set_num_threads(2)
    model.embed_query("anything")
    assert torch.get_num_threads() == 1
