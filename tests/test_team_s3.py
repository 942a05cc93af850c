"""A scripted team on one moto S3 table: three homes (two agents writing through real MCP
clients, one reviewer on the command line), a project whose review is on. Nothing an agent
proposes reaches a teammate's recall, search, list or hooks before a reviewer approves it; a
rejected proposal reaches nobody but its author; every revision carries its provenance; the
audit lists every event; concurrent proposals and approvals from several homes lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from tests.conftest import PROJECT_ID, run_cli, run_graphit
from tests.s3_harness import MotoServer, moto_with_bucket, use_moto

BUCKET = "graphit-team"
REVIEWER = "rev@example.com"
AGENTS = ("ana@example.com", "bo@example.com")


moto = moto_with_bucket(BUCKET)


@pytest.fixture
def team(moto: MotoServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A reviewed project on a fresh S3 prefix; the environment points at it."""
    use_moto(monkeypatch, moto.endpoint, BUCKET, f"t-{uuid.uuid4().hex[:12]}", tmp_path)
    root = tmp_path / "project"
    root.mkdir()
    lock = {"project": {"id": PROJECT_ID}, "review": {"reviewers": [REVIEWER]}}
    (root / "graphit.lock.json").write_text(json.dumps(lock))
    monkeypatch.chdir(root)
    return root


def home_env(tmp_path: Path, author: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    env |= {k: v for k, v in os.environ.items() if k.startswith("GRAPHIT_S3_")}
    env |= {
        "GRAPHIT_PROVIDER": "s3",
        "GRAPHIT_HOME": str(tmp_path / f"home-{author}"),
        "GRAPHIT_AUTHOR": author,
        "GRAPHIT_NO_DAEMON": "1",
        "GRAPHIT_HOOK_BUDGET": "60",
    }
    return env


@contextmanager
def in_home(env: dict[str, str]) -> Iterator[None]:
    """This process's GRAPHIT_* settings are `env`'s for the block (a home, an author)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [n for n in os.environ if n.startswith("GRAPHIT_")]:
            patch.delenv(name)
        for name, value in env.items():
            if name.startswith("GRAPHIT_"):
                patch.setenv(name, value)
        yield


def home_cli(env: dict[str, str], *args: str) -> Any:
    """`graphit ARGS` in this process, in the home `env` names (`in_home`): a command on the
    command line runs the CLI's code either way; the agents, each its own MCP server process,
    are where other processes' writes and reads meet on the one table. Gives `returncode`,
    `stdout` and `stderr` as `graphit` does."""
    with in_home(env):
        done = run_cli(list(args))
    return subprocess.CompletedProcess(args, done.exit_code, done.stdout, done.stderr)


class Agent:
    """One agent's MCP session (a real `graphit memory mcp` server, the SDK's client)."""

    def __init__(self, stack: ExitStack, root: Path, env: dict[str, str], name: str) -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "graphit_cli", "memory", "mcp"], env=env, cwd=root
        )
        self.portal = stack.enter_context(start_blocking_portal())
        info = Implementation(name=name, version="1.0")
        client = Client(params, read_timeout_seconds=120, client_info=info)
        self.client = stack.enter_context(self.portal.wrap_async_context_manager(client))

    def json(self, tool: str, **arguments: Any) -> Any:
        result = self.portal.call(self.client.call_tool, tool, {"format": "json", **arguments})
        text = result.content[0].text
        assert not result.is_error, text
        return json.loads(text)

    def texts(self, query: str) -> str:
        found = self.json("graphit_memory_search", query=query)["hits"]
        listed = self.json("graphit_memory_list")["memories"]
        return json.dumps([found, listed])


def test_a_scripted_team_sees_only_what_a_reviewer_approved(team: Path, tmp_path: Path) -> None:
    reviewer = home_env(tmp_path, REVIEWER)
    made = home_cli(reviewer, "memory", "upsert", "--title", "Package manager",
                   "--body", "We use pnpm.", "-f", "json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    base = json.loads(made.stdout)[0]
    assert base["status"] == "approved"
    with ExitStack() as stack:
        ana = Agent(stack, team, home_env(tmp_path, AGENTS[0]), "agent-one")
        bo = Agent(stack, team, home_env(tmp_path, AGENTS[1]), "agent-two")
        staging = ana.json("graphit_memory_insert", title="Staging database",
                           body="Staging runs zebracorn postgres.", mandatory=True)  # fmt: skip
        edit = ana.json("graphit_memory_update", id=base["id"],
                        body="We use npm zebracorn workspaces.")  # fmt: skip
        flaky = bo.json("graphit_memory_insert", title="Flaky suite",
                        body="The quokkabeam suite is flaky: retry it.")  # fmt: skip
        assert [p["status"] for p in (staging, edit, flaky)] == ["proposed"] * 3
        assert staging["provenance"]["client"] == "agent-one"
        assert staging["provenance"]["via"] == "mcp"

        # Each agent sees its own proposals; nobody else sees them.
        assert "zebracorn" in ana.texts("zebracorn") and "quokkabeam" not in ana.texts("quokkabeam")
        assert "quokkabeam" in bo.texts("quokkabeam") and "zebracorn" not in bo.texts("zebracorn")
        query = "zebracorn quokkabeam"
        for args in (("search", query), ("list",), ("recall", query, "--scope", "project")):
            seen = home_cli(reviewer, "memory", *args, "-f", "json")
            assert seen.returncode == 0, seen.stderr
            assert "pnpm" in seen.stdout or args[0] != "list", (args, seen.stdout)
            assert "zebracorn" not in seen.stdout and "quokkabeam" not in seen.stdout, args
        start = hook(team, reviewer, "session-start", {"source": "startup"})
        prompt = hook(
            team, reviewer, "prompt", {"prompt": "which zebracorn postgres runs staging?"}
        )
        assert "zebracorn" not in start + prompt

        # Decisions: a non-reviewer is refused with exit 6, the reviewer decides.
        queue = json.loads(home_cli(reviewer, "memory", "review", "-f", "json").stdout)
        keys = {q["proposal"]["title"]: q["proposal"]["key"] for q in queue}
        assert set(keys) == {"Staging database", "Package manager", "Flaky suite"}
        edit_change = next(q for q in queue if q["proposal"]["key"] == edit["key"])["change"]
        assert "+We use npm zebracorn workspaces." in edit_change["body_diff"]
        refused = home_cli(home_env(tmp_path, AGENTS[1]), "memory", "review", "approve",
                          keys["Staging database"])  # fmt: skip
        assert refused.returncode == 6 and REVIEWER in refused.stderr
        for key in (keys["Staging database"], keys["Package manager"]):
            assert home_cli(reviewer, "memory", "review", "approve", key).returncode == 0
        rejected = home_cli(reviewer, "memory", "review", "reject", keys["Flaky suite"],
                           "--reason", "unconfirmed")  # fmt: skip
        assert rejected.returncode == 0, rejected.stderr

        assert "zebracorn" in bo.texts("zebracorn")  # approved: the team sees it
        assert "quokkabeam" not in ana.texts("quokkabeam")  # rejected: only its author...
        history = bo.json("graphit_memory_list")["memories"]
        assert "quokkabeam" not in json.dumps(history)  # ...and not even the author's list
    start = hook(team, reviewer, "session-start", {"source": "startup"})
    assert "zebracorn postgres" in start  # the approved mandatory memory, in full

    audit = json.loads(home_cli(reviewer, "memory", "audit", "-f", "json").stdout)
    events = sorted((e["action"], e["actor"]) for e in audit)
    assert events == sorted(
        [
            ("wrote", REVIEWER),
            ("proposed", AGENTS[0]),
            ("proposed", AGENTS[0]),
            ("proposed", AGENTS[1]),
            ("approved", REVIEWER),
            ("approved", REVIEWER),
            ("rejected", REVIEWER),
            ("wrote", AGENTS[0]),
            ("wrote", AGENTS[0]),
        ]
    )
    rows = every_row(team, reviewer)
    assert rows and all(r["provenance"] for r in rows)  # 100 % of revisions and proposals


def hook(root: Path, env: dict[str, str], event: str, extra: dict[str, Any]) -> str:
    payload = {"session_id": str(uuid.uuid4()), "cwd": str(root), **extra}
    done = run_graphit("agent", "hook", event, cwd=root, env=env, input=json.dumps(payload))
    assert done.returncode == 0, done.stderr
    return str(done.stdout)


def every_row(root: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    """Every row of the project's table (revisions and proposals) with its provenance, read
    in this process in the home `env` names."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    with in_home(env):
        store = open_service(Scope("project", PROJECT_ID), create=False).store
        rows = store.export_rows(archived=True) + store.proposals()
    return [
        {
            "key": r.key,
            "body": r.body,
            "status": r.status,
            "provenance": r.provenance.to_dict() if r.provenance else None,
        }
        for r in rows
    ]


# --- concurrency: proposals and approvals from several homes at once ---------------------------

PROPOSER = """
import json, sys
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
svc = open_service(Scope("project", sys.argv[1]), via="mcp")
shared, count, tag = json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
keys = []
for n in range(count):
    if n % 2:
        draft = MemoryDraft(id=shared[n % len(shared)], body=f"{tag} edit {n}")
    else:
        draft = MemoryDraft(title=f"{tag} note {n}", body=f"{tag} body {n}")
    result = svc.upsert(draft)
    assert result.action.value == "proposed", result
    keys.append(result.memory.key)
print(json.dumps(keys))
"""

APPROVER = """
import json, sys, time
from graphit_cli.access.scopes import Scope
from graphit_cli.opening import open_service
svc = open_service(Scope("project", sys.argv[1]), via="cli")
wanted, done, rejected = int(sys.argv[2]), [], []
deadline = time.monotonic() + float(sys.argv[3])
while len(done) + len(rejected) < wanted and time.monotonic() < deadline:
    for item in svc.review.queue():
        key = item.row.key
        if key.endswith(("0", "5")):  # some rejected, the rest approved
            svc.review.reject(key, "not this one")
            rejected.append(key)
        else:
            svc.review.approve(key)
            done.append(key)
    time.sleep(0.05)
print(json.dumps({"approved": done, "rejected": rejected}))
"""


def run_concurrent_team(team: Path, tmp_path: Path, per_agent: int, seconds: float) -> None:
    """Two agents' processes propose `per_agent` changes each (new memories, and edits of
    three shared ones) while a reviewer's process approves or rejects each as it appears,
    for at most `seconds`; nothing may be lost, and nothing rejected may show."""
    reviewer = home_env(tmp_path, REVIEWER)
    shared = []
    for n in range(3):  # memories the agents both propose edits to (hot chains)
        made = home_cli(reviewer, "memory", "upsert", "--title", f"Shared {n}",
                       "--body", f"Shared body {n}.", "-f", "json")  # fmt: skip
        assert made.returncode == 0, made.stderr
        shared.append(json.loads(made.stdout)[0]["id"])
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROPOSER, PROJECT_ID, json.dumps(shared), str(per_agent), tag],
            cwd=team,
            env=home_env(tmp_path, agent),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for agent, tag in zip(AGENTS, ("alpha", "beta"), strict=True)
    ]
    approver = subprocess.Popen(
        [sys.executable, "-c", APPROVER, PROJECT_ID, str(per_agent * len(AGENTS)), str(seconds)],
        cwd=team, env=reviewer, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    proposed: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=seconds + 300)
        assert proc.returncode == 0, err
        proposed += json.loads(out)
    out, err = approver.communicate(timeout=seconds + 300)
    assert approver.returncode == 0, err
    decided = json.loads(out)
    assert sorted(decided["approved"] + decided["rejected"]) == sorted(proposed)  # 0 lost
    rows = every_row(team, reviewer)
    landed = [r["provenance"]["proposal"] for r in rows if r["provenance"].get("proposal")]
    assert sorted(landed) == sorted(decided["approved"])  # each approval is one revision
    assert all(r["provenance"] for r in rows)
    # A rejected proposal's text reaches no teammate's list.
    rejected = {r["body"] for r in rows if r["status"] == "rejected"}
    assert len(rejected) == len(decided["rejected"])
    listed = home_cli(home_env(tmp_path, AGENTS[1]), "memory", "list", "-f", "json")
    assert not rejected & {m["body"] for m in json.loads(listed.stdout)}
    doctor = home_cli(reviewer, "memory", "doctor", "-f", "json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr


@pytest.mark.slow  # the same run as the two hundred below, at four per agent
def test_concurrent_proposals_and_approvals_lose_nothing(team: Path, tmp_path: Path) -> None:
    run_concurrent_team(team, tmp_path, per_agent=4, seconds=600)


@pytest.mark.slow
def test_two_hundred_concurrent_proposals_and_approvals_lose_nothing(
    team: Path, tmp_path: Path
) -> None:
    # A busy machine (2 cores) gave about 4 s per approval on moto while proposals poured in.
    run_concurrent_team(team, tmp_path, per_agent=100, seconds=3000)
