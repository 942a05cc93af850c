"""Staleness and the write-time note beyond the CLI's own commands: the MCP tools (structured
results), the prompt hook, a real daemon, and a shared S3 table read from two checkouts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.s3_harness import moto_with_bucket
from tests.test_anchors import CRONJOB, RETRY, git, make_repo, refactor

REPO = Path(__file__).resolve().parent.parent
EMBEDDER = "tests.embedders:HashingEmbedder"
OLD = ("Celery broker is Redis DB 1", "Celery uses Redis database 1 as its broker.")
NEW = ("Celery broker moved to Amazon SQS", "The Celery broker is now Amazon SQS; Redis retired.")


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "GRAPHIT_EMBEDDER": EMBEDDER, "PYTHONPATH": str(REPO), **extra}


def graphit(cwd: Path, *args: str, input: str | None = None, **extra: str) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "graphit_cli", *args],
        cwd=cwd,
        # The hook's budget is for an agent's prompt; a loaded test machine must not turn a
        # late answer into an empty one here.
        env=env(**{"GRAPHIT_HOOK_BUDGET": "60", **extra}),
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )


# --- MCP ------------------------------------------------------------------------------------


@pytest.fixture
def tools(project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from graphit_cli.mcp.tools import MemoryTools
    from graphit_cli.opening import open_service

    monkeypatch.setenv("GRAPHIT_EMBEDDER", EMBEDDER)
    make_repo(project_dir)
    return MemoryTools(opener=lambda scope: open_service(scope, embedder=lambda: None))


def call(tools: Any, work: Callable[[], Any]) -> tuple[str, dict[str, Any]]:
    from graphit_cli.mcp.arguments import respond

    result = respond(tools, "text", work)
    assert not result.is_error, result.content[0].text
    return result.content[0].text, result.structured_content


def test_mcp_results_carry_stale_and_the_text_says_so(tools: Any, project_dir: Path) -> None:
    _, cron = call(
        tools,
        lambda: tools.insert(scope="project", title="Order export", body=f"Runs as {CRONJOB}."),
    )
    _, prose = call(
        tools, lambda: tools.insert(scope="project", title="Answers", body="Keep answers short.")
    )
    _, given = call(
        tools,
        lambda: tools.insert(
            scope="project", title="Retries", body="See the policy.", anchors_given=["RetryPolicy"]
        ),
    )
    _, shown = call(tools, lambda: tools.source(given["id"], scope="project"))
    assert shown["anchors"] == [f"RetryPolicy@{RETRY}"] and shown["stale"] is None

    refactor(project_dir)
    text, listed = call(tools, lambda: tools.catalogue(scope="project"))
    stale = {m["id"]: m["stale"] for m in listed["memories"]}
    assert stale[cron["id"]][0]["anchor"] == CRONJOB
    assert stale[given["id"]][0]["anchor"] == f"RetryPolicy@{RETRY}"
    assert stale[prose["id"]] is None
    assert f"may be stale: {CRONJOB} file no longer exists" in text
    _, source = call(tools, lambda: tools.source(cron["id"], scope="project"))
    assert source["stale"][0]["reason"] == "file no longer exists"
    _, found = call(tools, lambda: tools.search("order export", scope="project"))
    assert found["hits"][0]["id"] == cron["id"] and found["hits"][0]["stale"]

    # verify=true alone: verified in place, no new revision.
    text, verified = call(tools, lambda: tools.update(cron["id"], scope="project", verify=True))
    assert (verified["action"], verified["revision"]) == ("verified", 1)
    assert verified["verified_at"] > source["verified_at"]


def test_an_mcp_insert_names_the_memory_it_may_update(tools: Any) -> None:
    _, old = call(tools, lambda: tools.insert(scope="project", title=OLD[0], body=OLD[1]))
    text, new = call(tools, lambda: tools.insert(scope="project", title=NEW[0], body=NEW[1]))
    assert new["may_update"] == {"id": old["id"], "title": OLD[0]}
    assert f"update {old['id']} with graphit_memory_update" in text
    _, related = call(
        tools,
        lambda: tools.insert(scope="project", title="Celery beat", body="Beat runs tasks hourly."),
    )
    assert "may_update" not in related


# --- the prompt hook ---------------------------------------------------------------------------


def test_the_prompt_hook_says_may_be_stale_and_names_the_anchor(
    cli: Callable[..., Any], project_dir: Path
) -> None:
    make_repo(project_dir)
    for title, body in (
        ("Order export cronjob", f"The order export runs as {CRONJOB}."),
        ("Order export format", "The order export writes one CSV per day."),
    ):
        assert cli("memory", "upsert", "--title", title, "--body", body).exit_code == 0
    refactor(project_dir)
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "how does the order export run?"}
    done = graphit(
        project_dir, "agent", "hook", "prompt", input=json.dumps(event), GRAPHIT_NO_DAEMON="1"
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("- **")]
    flagged = [line for line in lines if "may be stale" in line]
    assert len(lines) == 2 and len(flagged) == 1
    assert "Order export cronjob" in flagged[0] and f"`{CRONJOB}`" in flagged[0]


def test_the_session_start_hook_marks_a_stale_mandatory_memory(
    cli: Callable[..., Any], project_dir: Path
) -> None:
    make_repo(project_dir)
    body = f"Never edit {CRONJOB} by hand."
    assert (
        cli("memory", "upsert", "--title", "Cron rule", "--body", body, "--mandatory").exit_code
        == 0
    )
    start = graphit(project_dir, "agent", "hook", "session-start", GRAPHIT_NO_DAEMON="1")
    assert start.returncode == 0 and "Cron rule" in start.stdout
    assert "may be stale" not in start.stdout
    refactor(project_dir)
    start = graphit(project_dir, "agent", "hook", "session-start", GRAPHIT_NO_DAEMON="1")
    # The memory's one-line frontmatter (id, type, date) carries the note (recall/render.py).
    [meta] = [line for line in start.stdout.splitlines() if "may be stale" in line]
    assert f"may be stale: `{CRONJOB}` file no longer exists" in meta and " · " in meta


# --- a real daemon ------------------------------------------------------------------------------


@pytest.fixture
def daemon(project_dir: Path) -> Iterator[subprocess.Popen[str]]:
    from graphit_cli.access import runstate
    from graphit_cli.warm import wire

    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project"],
        cwd=project_dir,
        env=env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120  # only stops a hang
    while wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is None:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the daemon did not answer"
        time.sleep(0.1)
    yield proc
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=180)  # its exit, its stderr pipe closed
    assert proc.returncode == 0, err


def test_through_the_daemon_the_note_arrives_and_stale_is_the_callers(
    project_dir: Path, daemon: subprocess.Popen[str]
) -> None:
    make_repo(project_dir)
    made = graphit(
        project_dir, "memory", "upsert", "--title", OLD[0], "--body", OLD[1], "-f", "json"
    )
    assert made.returncode == 0, made.stderr
    old_id = json.loads(made.stdout)[0]["id"]
    new = graphit(project_dir, "memory", "upsert", "--title", NEW[0], "--body", NEW[1])
    assert new.returncode == 0
    assert f"memory {old_id} ('{OLD[0]}') is on the same subject" in new.stderr
    cron = graphit(
        project_dir, "memory", "upsert", "--title", "Export", "--body", f"Runs as {CRONJOB}.",
        "-f", "json",
    )  # fmt: skip
    cron_id = json.loads(cron.stdout)[0]["id"]
    refactor(project_dir)
    listed = json.loads(graphit(project_dir, "memory", "list", "-f", "json").stdout)
    assert {m["id"]: m["stale"] for m in listed}[cron_id][0]["anchor"] == CRONJOB
    assert {m["id"]: m["stale"] for m in listed}[old_id] is None


# --- one shared S3 table, two checkouts ---------------------------------------------------------


moto = moto_with_bucket("graphit-anchors")


def test_a_shared_table_is_stale_only_in_the_checkout_whose_code_changed(
    cli: Callable[..., Any],
    project_dir: Path,
    moto: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from tests.s3_harness import use_moto

    use_moto(monkeypatch, moto.endpoint, "graphit-anchors", f"t-{uuid.uuid4().hex[:12]}", tmp_path)
    lock = (project_dir / "graphit.lock.json").read_text()
    make_repo(project_dir)
    other = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(project_dir), str(other))
    (other / "graphit.lock.json").write_text(lock)  # untracked: the same project, same table
    made = cli(
        "memory", "upsert", "--title", "Export", "--body", f"Runs as {CRONJOB}.", "-f", "json"
    )
    assert made.exit_code == 0, made.stderr
    memory_id = made.json()[0]["id"]

    refactor(other)  # the teammate's branch deletes the cronjob; this checkout still has it
    here = cli("memory", "source", memory_id, "-f", "json").json()
    assert (here["anchors"], here["stale"]) == ([CRONJOB], None)
    monkeypatch.chdir(other)
    there = cli("memory", "source", memory_id, "-f", "json").json()
    assert there["stale"][0]["anchor"] == CRONJOB
    monkeypatch.chdir(project_dir)  # nothing was written for everyone: still holds here
    assert cli("memory", "source", memory_id, "-f", "json").json()["stale"] is None


# --- the Explorer -------------------------------------------------------------------------------


def test_the_explorer_reports_stale_in_its_items_and_trace_view(
    cli: Callable[..., Any], project_dir: Path
) -> None:
    from starlette.testclient import TestClient

    from graphit_cli.explorer.app import create_app
    from tests.test_explorer_api import AUTH, BASE, TOKEN

    make_repo(project_dir)
    made = cli(
        "memory", "upsert", "--title", "Export", "--body", f"Runs as {CRONJOB}.", "-f", "json"
    )
    other = cli(
        "memory", "upsert", "--title", "Answers", "--body", "Keep them short.", "-f", "json"
    )
    memory_id, other_id = made.json()[0]["id"], other.json()[0]["id"]
    refactor(project_dir)
    with TestClient(create_app(token=TOKEN, cwd=project_dir), base_url=BASE) as client:
        items = client.get("/api/memories", headers=AUTH).json()["results"]
        stale = {i["id"]: i["stale"] for i in items}
        assert stale[memory_id][0]["anchor"] == CRONJOB and stale[other_id] is None
        trace = client.get(f"/api/memories/{memory_id}", headers=AUTH).json()
        assert trace["memory"]["stale"][0]["reason"] == "file no longer exists"
        assert trace["memory"]["anchors"] == [CRONJOB]
        # A memory written in the Explorer gets its anchors found too.
        created = client.post(
            "/api/memories",
            headers=AUTH | {"Origin": BASE},
            json={"title": "Helper", "body": "Helpers live in src/orderly/helpers.py."},
        )
        assert created.status_code == 201, created.text
        assert created.json()["memory"]["anchors"] == ["src/orderly/helpers.py"]
