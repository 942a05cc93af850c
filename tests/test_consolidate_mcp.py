"""An agent consolidates over MCP: the SDK's real stdio client against `graphit memory mcp`."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from tests.conftest import PROJECT_ID
from tests.test_consolidate import FILLER
from tests.test_mcp import Session


@pytest.fixture
def agent(tmp_path) -> Iterator[Session]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphit_cli", "memory", "mcp"],
        env={
            "GRAPHIT_HOME": str(tmp_path / "graphit-home"),
            "GRAPHIT_PROJECT_ID": PROJECT_ID,
            "GRAPHIT_AUTHOR": "agent",
            # FILLER's short notes were written against MiniLM's space; under e5 (the default
            # where installed) two unrelated ones reach cosine 0.896, past its calibrated
            # near-duplicate threshold (0.89), and would form a group this test does not
            # expect. The flow under test is the model's concern only through that threshold.
            "GRAPHIT_EMBEDDER": "onnx",
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        },
        cwd=tmp_path,
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120)) as client,
    ):
        yield Session(portal, client)


def insert(s: Session, title: str, body: str, **extra: Any) -> str:
    return str(s.json("graphit_memory_insert", title=title, body=body, force=True, **extra)["id"])


def test_agent_reads_candidates_and_applies_a_plan(agent: Session) -> None:
    listed = {t.name: t for t in agent.portal.call(agent.client.list_tools).tools}
    for name in ("graphit_memory_consolidate", "graphit_memory_apply_consolidation"):
        assert "never drop a constraint" in (listed[name].description or "")
    assert listed["graphit_memory_consolidate"].annotations.read_only_hint is True

    a = insert(agent, "Deploys", "Production deploys happen on Friday afternoons.", important=True)
    b = insert(agent, "Deploys", "Production deploys happen on Friday afternoons.", mandatory=True)
    for title, body in FILLER:
        insert(agent, title, body)

    text = agent.ok("graphit_memory_consolidate")
    assert "## Group 1: exact duplicates" in text and "graphit_memory_apply_consolidation" in text
    report = agent.json("graphit_memory_consolidate")
    [group] = report["groups"]
    assert set(group["ids"]) == {a, b} and group["keep_id"] == b
    assert group["members"][0]["body"] == "Production deploys happen on Friday afternoons."

    plan = {
        "version": 1,
        "actions": [
            {
                "action": "merge",
                "ids": group["ids"],
                "keep_id": group["keep_id"],
                "title": "Deploy on Friday afternoons",
                "body": "Production deploys happen on Friday afternoons.",
                "revisions": {m["id"]: m["revision"] for m in group["members"]},
            },
            {"action": "delete", "id": a, "revision": 1},  # absorbed by then: refused
        ],
    }
    dry = agent.json("graphit_memory_apply_consolidation", plan=plan)
    assert dry["log"] is None and [e["action"] for e in dry["applied"]] == ["merge"]
    assert agent.json("graphit_memory_list")["total"] == 12  # nothing written

    done = agent.json("graphit_memory_apply_consolidation", plan=plan, apply=True)
    assert [e["action"] for e in done["applied"]] == ["merge"] and done["failed"] == []
    assert [e["ids"] for e in done["refused"]] == [[a]]
    assert "/graphit-home/memory/consolidation/" in done["log"]
    survivor = agent.json("graphit_memory_source", ref=b)
    assert (survivor["title"], survivor["important"], survivor["mandatory"]) == (
        "Deploy on Friday afternoons",
        True,
        True,
    )
    gone = agent.error("graphit_memory_source", ref=a)
    assert gone.startswith(f"Error: memory {a} was deleted")

    bad = agent.error("graphit_memory_apply_consolidation", plan={"actions": "x"})
    assert bad == 'Error: a plan needs an "actions" list'
    assert done["scope"] == f"project:{PROJECT_ID}"
