"""Team memory: provenance on every revision, review of agents' and non-reviewers' writes, the
audit read from the chains. Real tables (local, and one moto S3 table shared by three homes),
the real CLI and the real MCP client."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access import identity
from graphit_cli.access.policy import ReviewPolicy
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft, WriteAction
from graphit_cli.core.provenance import Provenance
from graphit_cli.errors import ExitCode, NotReviewer
from tests.conftest import PROJECT_ID

REVIEWER = "rev@example.com"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(project_dir: Path) -> Path:
    git(project_dir, "init", "-q", "-b", "trunk")
    git(project_dir, "config", "user.email", "dev@example.com")
    git(project_dir, "config", "user.name", "Dev")
    git(project_dir, "add", "graphit.lock.json")
    git(project_dir, "commit", "-qm", "init")
    identity.forget()
    return project_dir


def service_as(store: Any, author: str, via: str, policy: ReviewPolicy | None) -> Any:
    from graphit_cli.service.memory import MemoryService

    stamp = Provenance(author=author, via=via, client="test-client" if via == "mcp" else None)
    return MemoryService(
        store, Scope("project", PROJECT_ID), provenance=stamp, review=policy, embedder=lambda: None
    )


# --- provenance -------------------------------------------------------------------------------


def test_the_checkout_is_read_from_git_files_without_running_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "worktree", "add", "-q", "-b", "side", str(repo.parent / "side"))
    monkeypatch.delenv("GRAPHIT_AUTHOR")
    identity.forget()

    def no_git(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"ran {args[0]}")

    monkeypatch.setattr(subprocess, "run", no_git)
    monkeypatch.setattr(subprocess, "Popen", no_git)
    assert identity.checkout(repo) == identity.Checkout("dev@example.com", "trunk", head)
    side = identity.checkout(repo.parent / "side")  # a worktree: .git is a file
    assert (side.email, side.branch, side.commit) == ("dev@example.com", "side", head)
    assert identity.author(repo) == "dev@example.com"
    monkeypatch.setenv("GRAPHIT_AUTHOR", "override@example.com")
    assert identity.stamp("mcp", root=repo).author == "override@example.com"


def test_a_new_commit_is_seen_and_no_checkout_falls_back_to_user_at_host(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert identity.checkout(repo).commit == git(repo, "rev-parse", "HEAD")
    (repo / "x").write_text("x")
    git(repo, "add", "x")
    git(repo, "commit", "-qm", "second")
    assert identity.checkout(repo).commit == git(repo, "rev-parse", "HEAD")
    bare = tmp_path / "nowhere"
    bare.mkdir()
    monkeypatch.delenv("GRAPHIT_AUTHOR")
    monkeypatch.setenv("HOME", str(bare))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(bare))
    identity.forget()
    found = identity.author(bare)
    assert "@" in found and found != "dev@example.com"


def test_every_revision_carries_its_provenance(repo: Path, cli: Any) -> None:
    made = cli("memory", "upsert", "--title", "Deploys", "--body", "Friday.", "-f", "json")
    memory_id = made.json()[0]["id"]
    assert made.json()[0]["provenance"]["via"] == "cli"
    assert cli("memory", "upsert", "--id", memory_id, "--body", "Never Friday.").exit_code == 0
    assert cli("memory", "delete", memory_id, "--yes").exit_code == 0
    chain = cli("memory", "history", memory_id, "-f", "json").json()
    first_rid = chain[0]["key"]
    assert cli("memory", "restore", first_rid).exit_code == 0
    chain = cli("memory", "history", memory_id, "-f", "json").json()
    assert len(chain) == 4
    for revision in chain:
        stamp = revision["provenance"]
        assert stamp["author"] == "tester", revision
        assert stamp["branch"] == "trunk" and stamp["commit"] == git(repo, "rev-parse", "HEAD")
        assert revision["status"] == "approved"
    # the restore of a revision older than the delete first brings the deleted one back
    assert [r["provenance"]["via"] for r in chain] == ["cli", "cli", "restore", "restore"]
    assert chain[1]["provenance"]["deletion"]["author"] == "tester"
    source = cli("memory", "source", memory_id).stdout
    assert 'provenance: {"author": "tester", "branch": "trunk"' in source
    events = cli("memory", "audit", "-f", "json").json()
    assert [e["action"] for e in events] == ["wrote", "wrote", "deleted", "restored", "restored"]
    assert cli("memory", "audit", "--author", "nobody", "-f", "json").json() == []
    assert cli("memory", "audit", "--since", "2999-01-01", "-f", "json").json() == []


def test_a_table_without_the_new_columns_reads_and_gains_them(tmp_path: Path) -> None:
    import lance
    import lancedb
    import pyarrow as pa

    from graphit_cli.core import revisions
    from graphit_cli.store.lance import MemoryStore
    from graphit_cli.store.schema import memory_schema, to_record
    from graphit_cli.store.table import TABLE_NAME, TableHandle

    uri = str(tmp_path / "v2")
    new = ("provenance_json", "status")
    old = pa.schema([f for f in memory_schema(4) if f.name not in new])
    row = revisions.new_memory(
        MemoryDraft(title="Old", body="Before provenance."),
        memory_id="01JD0000000000000000000001",
        scope_kind="project",
        scope_id=PROJECT_ID,
        author="a",
        now=datetime(2026, 1, 1, tzinfo=UTC),
    )
    record = {k: v for k, v in to_record(row).items() if k not in new}
    lancedb.connect(uri).create_table(TABLE_NAME, data=[record], schema=old)
    path = str(tmp_path / "v2" / f"{TABLE_NAME}.lance")
    as_is = MemoryStore(TableHandle(uri, dataset=lance.dataset(path), connect=lambda: None))
    read = as_is.get(row.id)
    assert read is not None and (read.provenance, read.status) == (None, None)
    assert as_is.proposals() == []
    store = MemoryStore.open(uri, dim=4)
    assert {"provenance_json", "status"} <= set(store.handle.arrow_schema().names)
    svc = service_as(store, "ana@example.com", "mcp", ReviewPolicy((REVIEWER,)))
    proposed = svc.upsert(MemoryDraft(id=row.id, body="Proposed on an old table."))
    assert proposed.action is WriteAction.PROPOSED
    assert store.get(row.id).body == "Before provenance."


# --- review --------------------------------------------------------------------------------------


def test_review_hides_proposals_from_teammates_until_approved(service: Any) -> None:
    store = service.store
    policy = ReviewPolicy((REVIEWER,))
    reviewer = service_as(store, REVIEWER, "cli", policy)
    agent = service_as(store, "ana@example.com", "mcp", policy)
    teammate = service_as(store, "bo@example.com", "cli", policy)
    base = reviewer.upsert(MemoryDraft(title="Package manager", body="We use pnpm."))
    assert base.action is WriteAction.CREATED and base.memory.status == "approved"
    memory_id = base.memory.id
    edit = agent.upsert(MemoryDraft(id=memory_id, body="We use npm workspaces now."))
    new = agent.upsert(MemoryDraft(title="Release train", body="Ship on Fridays workspaces."))
    direct = teammate.upsert(MemoryDraft(title="Teammate note", body="Not a reviewer workspaces."))
    assert {edit.action, new.action, direct.action} == {WriteAction.PROPOSED}
    assert agent.upsert(MemoryDraft(id=memory_id, body="We use pnpm.")).action is (
        WriteAction.UNCHANGED
    )

    for reader in (teammate, reviewer):
        listed = [m.body for m in reader.catalogue()]
        assert listed == ["We use pnpm."]
        hits = reader.search("workspaces npm pnpm fridays", mode="fts").hits
        assert [h.memory.body for h in hits] == ["We use pnpm."]
        assert reader.source(memory_id).body == "We use pnpm."
        assert [m.revision for m in reader.history(memory_id)] == [1]
        assert reader.recall("workspaces").mandatory == []
    assert [m.key for m in agent.review.visible()] == [edit.memory.key, new.memory.key]
    assert [m.key for m in teammate.review.visible()] == [direct.memory.key]
    assert agent.review.source(edit.memory.key).body == "We use npm workspaces now."
    queue = reviewer.review.queue()
    assert [(p.row.key, p.current.body if p.current else None) for p in queue] == [
        (edit.memory.key, "We use pnpm."),
        (new.memory.key, None),
        (direct.memory.key, None),
    ]

    with pytest.raises(NotReviewer) as refused:
        teammate.review.approve(edit.memory.key)
    assert refused.value.exit_code == ExitCode.ACCESS_DENIED and REVIEWER in str(refused.value)
    approved = reviewer.review.approve(edit.memory.key)
    stamp = approved.memory.provenance
    assert approved.memory.body == "We use npm workspaces now." and approved.memory.revision == 2
    assert (stamp.author, stamp.via, stamp.client, stamp.approved_by, stamp.proposal) == (
        "ana@example.com",
        "mcp",
        "test-client",
        REVIEWER,
        edit.memory.key,
    )
    rejected = reviewer.review.reject(new.memory.key, "a guess, not a decision")
    assert rejected.status == "rejected"
    with pytest.raises(Exception, match="already"):
        reviewer.review.approve(new.memory.key)
    assert [m.body for m in teammate.catalogue()] == ["We use npm workspaces now."]
    assert teammate.search("fridays release", mode="fts").hits == []
    assert not any(m.status == "rejected" for m in teammate.review.history(memory_id))
    assert new.memory.key in [m.key for m in agent.review.history(new.memory.id)]
    with pytest.raises(Exception, match="no memory"):
        teammate.review.history(new.memory.id)

    events = [(e.action, e.actor) for e in reviewer.review.audit()]
    assert ("proposed", "ana@example.com") in events and ("proposed", "bo@example.com") in events
    assert ("approved", REVIEWER) in events and ("rejected", REVIEWER) in events
    assert events.count(("wrote", "ana@example.com")) == 1


def test_an_approval_and_a_restore_write_as_their_stamp_and_lend_the_writer_nothing(
    service: Any,
) -> None:
    """The reviewer's writer keeps its own identity while it lands an approved proposal as
    its proposer's (looked at inside the commit, where a concurrent write of the same writer
    would read it) and while it restores a revision by way of `restore`."""
    from contextlib import contextmanager

    from graphit_cli.service.memory import MemoryService

    policy = ReviewPolicy((REVIEWER,))
    seen: list[tuple[str, str]] = []

    @contextmanager
    def hold() -> Any:
        seen.append((reviewer.writes.stamp.author, reviewer.writes.stamp.provenance.via))
        yield

    reviewer = MemoryService(
        service.store,
        Scope("project", PROJECT_ID),
        provenance=Provenance(author=REVIEWER, via="cli"),
        review=policy,
        embedder=lambda: None,
        hold=hold,
    )
    agent = service_as(service.store, "ana@example.com", "mcp", policy)
    made = reviewer.upsert(MemoryDraft(title="Runner", body="CI runs on the small runner."))
    proposal = agent.upsert(
        MemoryDraft(id=made.memory.id, body="CI runs on the large runner.", anchors=("ci.yml",))
    )
    landed = reviewer.review.approve(proposal.memory.key).memory
    assert (landed.updated_by, landed.provenance.author, landed.provenance.via) == (
        "ana@example.com",
        "ana@example.com",
        "mcp",
    )
    assert landed.anchors == ("ci.yml",) and landed.status == "approved"
    first = reviewer.history(made.memory.id)[0]
    restored = reviewer.restore(first.key).memory
    assert (restored.body, restored.updated_by, restored.provenance.via) == (
        "CI runs on the small runner.",
        REVIEWER,
        "restore",
    )
    assert len(seen) >= 3 and set(seen) == {(REVIEWER, "cli")}
    assert reviewer.writes.stamp.author == REVIEWER and reviewer.writes.status == "approved"


def test_a_delete_by_an_agent_is_a_proposal_and_the_approval_deletes(service: Any) -> None:
    policy = ReviewPolicy((REVIEWER,))
    reviewer = service_as(service.store, REVIEWER, "cli", policy)
    agent = service_as(service.store, REVIEWER, "mcp", policy)  # a reviewer's agent proposes too
    made = reviewer.upsert(MemoryDraft(title="Keep", body="Keep this."))
    proposal = agent.delete(made.memory.id)
    assert proposal.action is WriteAction.PROPOSED
    assert [m.id for m in reviewer.catalogue()] == [made.memory.id]
    deleted = reviewer.review.approve(proposal.memory.key)
    assert deleted.action is WriteAction.DELETED and reviewer.catalogue() == []
    actions = [e.action for e in reviewer.review.audit()]
    assert actions.count("deleted") == 1 and "proposed-delete" in actions


def test_without_review_writes_land_as_before(service: Any) -> None:
    agent = service_as(service.store, "ana@example.com", "mcp", None)
    written = agent.upsert(MemoryDraft(title="Plain", body="No review here."))
    assert written.action is WriteAction.CREATED and written.memory.status is None
    assert [m.body for m in service.catalogue()] == ["No review here."]
    assert service.store.proposals() == []


def test_the_review_commands(repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    off = cli("memory", "review", "approve", f"{PROJECT_ID}/{PROJECT_ID}")
    assert off.exit_code == 3 and "review is off" in off.stderr
    assert cli("memory", "review", "on", "--reviewer", REVIEWER).exit_code == 0
    lock = json.loads((repo / "graphit.lock.json").read_text())
    assert lock == {"project": {"id": PROJECT_ID}, "review": {"reviewers": [REVIEWER]}}
    made = cli("memory", "upsert", "--title", "CI", "--body", "GitHub Actions.", "-f", "json")
    assert made.json()[0]["status"] == "proposed"  # the author (tester) is no reviewer
    key = made.json()[0]["key"]
    assert cli("memory", "list", "-f", "json").json() == []
    shown = cli("memory", "list", "--include-proposed", "-f", "json").json()
    assert [(m["key"], m["status"]) for m in shown] == [(key, "proposed")]
    found = cli("memory", "search", "actions", "--include-proposed", "-f", "json").json()
    assert [h["key"] for h in found] == [key]
    queue = cli("memory", "review", "-f", "json").json()
    assert queue[0]["change"] == {"kind": "create"} and queue[0]["proposal"]["key"] == key
    refused = cli("memory", "review", "approve", key)
    assert refused.exit_code == 6 and f"its reviewers: {REVIEWER}" in refused.stderr
    monkeypatch.setenv("GRAPHIT_AUTHOR", REVIEWER)
    assert cli("memory", "review", "reject", key).exit_code == 2  # --reason is required
    assert cli("memory", "review", "approve", key, "-f", "json").json()[0]["action"] == "created"
    live = cli("memory", "list", "-f", "json").json()
    assert [m["provenance"]["approved_by"] for m in live] == [REVIEWER]
    assert cli("memory", "review", "off").exit_code == 0
    assert "review" not in json.loads((repo / "graphit.lock.json").read_text())


def test_the_audit_shows_who_redacted_a_memory(repo: Path, cli: Any) -> None:
    body = "Deploy with:\naws_access_key_id = AKIAZ3MHALDLTPRWQV7K"  # fake, real-format
    made = cli(
        "memory", "upsert", "--title", "Keys", "--body", body, "--allow-secrets", "-f", "json"
    )
    memory_id = made.json()[0]["id"]
    assert cli("memory", "redact", memory_id, "--yes").exit_code == 0
    events = cli("memory", "audit", "-f", "json").json()
    assert [(e["action"], e["actor"]) for e in events] == [
        ("wrote", "tester"),
        ("redacted", "tester"),
    ]
    assert "AKIAZ3MHALDLTPRWQV7K" not in json.dumps(events)


def test_a_graphit_export_is_imported_into_a_reviewed_project_by_a_reviewer_only(
    repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Whole chains with their history cannot wait as proposals: a non-reviewer's import of a
    graphit export is exit 6 naming the reviewers, and writes nothing; a reviewer's lands."""
    made = cli("memory", "upsert", "--title", "CI", "--body", "GitHub Actions.", "-f", "json")
    assert made.exit_code == 0
    export = tmp_path / "export.ndjson"
    export.write_text(cli("memory", "export", "--history").stdout)
    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path / "a-teammates-home"))  # an empty table
    assert cli("memory", "review", "on", "--reviewer", REVIEWER).exit_code == 0
    refused = cli("memory", "import", str(export))
    assert refused.exit_code == 6, refused.stderr
    assert f"its reviewers: {REVIEWER}" in refused.stderr
    assert cli("memory", "list", "--include-proposed", "-f", "json").json() == []
    monkeypatch.setenv("GRAPHIT_AUTHOR", REVIEWER)
    assert cli("memory", "import", str(export)).exit_code == 0
    assert [m["title"] for m in cli("memory", "list", "-f", "json").json()] == ["CI"]
