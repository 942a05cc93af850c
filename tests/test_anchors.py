"""Anchors (graphit_cli/anchors): found at write time, stored with the revision, checked at
read time against the reader's checkout, on every surface; verify; `memory stale`.

Every repository here is a real git repository made in the test; the refactor is a real commit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphit_cli import anchors

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

RETRY = "src/orderly/payments/retry.py"
BACKOFF = "src/orderly/payments/backoff.py"
CRONJOB = "k8s/cronjobs/order-export.yaml"


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def make_repo(root: Path) -> Path:
    """The project before the refactor: a retry policy, a cronjob, make up / make run."""
    git(root, "init", "-q", "-b", "main")
    write(root, RETRY, "class RetryPolicy:\n    max_attempts = 5\n\n\ndef charge():\n    pass\n")
    write(root, "src/orderly/util.py", "def helper():\n    return 1\n")
    write(root, "src/orderly/models.py", "class Order:\n    pass\n")
    write(root, CRONJOB, "kind: CronJob\n")
    write(root, "Makefile", "up:\n\tdocker compose up -d\n\nrun: up\n\tpython -m orderly\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the project")
    return root


def refactor(root: Path) -> None:
    """retry.py -> backoff.py, RetryPolicy -> BackoffPolicy, helper() moved, targets renamed,
    the cronjob deleted: one commit."""
    git(root, "mv", RETRY, BACKOFF)
    write(
        root, BACKOFF, "class BackoffPolicy:\n    max_attempts = 5\n\n\ndef charge():\n    pass\n"
    )
    write(root, "src/orderly/util.py", "")
    write(root, "src/orderly/helpers.py", "def helper():\n    return 1\n")
    write(root, "Makefile", "start:\n\tdocker compose up -d\n\nserve: start\n\tpython -m orderly\n")
    git(root, "rm", "-q", CRONJOB)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "refactor: retries become backoff")


MEMORIES = {
    "retry": ("Stripe retry policy", f"The Stripe retry policy lives in {RETRY}: `RetryPolicy`."),
    "dev": (
        "Local dev: make up, then make run",
        "Start the stack with `make up`, then `make run`.",
    ),
    "cron": ("Order export", f"The order export runs as {CRONJOB} every night."),
    "helper": ("Shared helper", "Use `helper` from src/orderly/util.py for the common bits."),
    "holds": ("Orders", "An order is an `Order` (src/orderly/models.py); see the Makefile."),
    "prose": ("User prefers short answers", "Keep answers short; make sure to ask first."),
}


@pytest.fixture
def repo(project_dir: Path) -> Path:
    return make_repo(project_dir)


def upsert_all(cli: Callable[..., Any]) -> dict[str, str]:
    ids = {}
    for name, (title, body) in MEMORIES.items():
        made = cli("memory", "upsert", "--title", title, "--body", body, "-f", "json")
        assert made.exit_code == 0, made.stderr
        ids[name] = made.json()[0]["id"]
    return ids


# --- detection ------------------------------------------------------------------------------


def test_each_anchor_kind_is_found_only_when_it_resolves(repo: Path) -> None:
    found = anchors.detect("Stripe retries", f"See {RETRY}: `RetryPolicy.max_attempts`.", repo)
    assert found == (RETRY, f"RetryPolicy.max_attempts@{RETRY}")  # the class and its member
    assert anchors.detect("Dev", "`make up` then make run; make sure", repo) == (
        "make up",
        "make run",
    )
    # Scripts and commands in code spans: the file they run.
    write(repo, "scripts/seed.py", "print('seed')\n")
    write(repo, "src/orderly/jobs/export.py", "def main():\n    pass\n")
    commands = (
        "Seed with `./scripts/seed.py --dry-run`; export with `python -m orderly.jobs.export`."
    )
    assert anchors.detect("Jobs", commands, repo) == (
        "scripts/seed.py",
        "src/orderly/jobs/export.py",
    )
    # Prose, a path that does not exist, a name nothing defines, a target the Makefile lacks.
    assert (
        anchors.detect("Notes", "We make sure src/none.py and `Nothing` and make deploy", repo)
        == ()
    )
    # Given explicitly: a bare symbol gets the file that defines it; unresolved ones are kept.
    assert anchors.normalise(["RetryPolicy", "./Makefile", "docs/later.md"], repo) == (
        f"RetryPolicy@{RETRY}",
        "Makefile",
        "docs/later.md",
    )


# --- every surface, after a refactor -----------------------------------------------------------


def stale_by_id(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["id"]: r["stale"] for r in records}


def test_a_refactor_flags_exactly_the_broken_memories_on_every_cli_surface(
    repo: Path, cli: Callable[..., Any]
) -> None:
    ids = upsert_all(cli)
    listed = cli("memory", "list", "-f", "json").json()
    assert all(r["stale"] is None for r in listed)  # everything holds before the refactor
    by_id = {r["id"]: r for r in listed}
    assert by_id[ids["retry"]]["anchors"] == [RETRY, f"RetryPolicy@{RETRY}"]
    assert by_id[ids["prose"]]["anchors"] == []

    refactor(repo)
    broken = {ids[n] for n in ("retry", "dev", "cron", "helper")}
    listed = stale_by_id(cli("memory", "list", "-f", "json").json())
    assert {i for i, s in listed.items() if s} == broken
    assert listed[ids["holds"]] is None and listed[ids["prose"]] is None

    retry = {s["anchor"]: s for s in listed[ids["retry"]]}
    assert retry[RETRY]["renamed_to"] == BACKOFF  # git's rename detection names the new path
    assert "RetryPolicy no longer defined anywhere" in retry[f"RetryPolicy@{RETRY}"]["reason"]
    assert {s["anchor"] for s in listed[ids["dev"]]} == {"make up", "make run"}
    assert listed[ids["cron"]] == [
        {"anchor": CRONJOB, "reason": "file no longer exists", "renamed_to": None}
    ]
    helper = listed[ids["helper"]]
    moved = [s for s in helper if s["anchor"] == "helper@src/orderly/util.py"]
    assert moved and moved[0]["renamed_to"] == "src/orderly/helpers.py"  # a moved symbol

    hits = cli("memory", "search", "Stripe retry policy", "-f", "json").json()
    assert hits[0]["id"] == ids["retry"] and hits[0]["stale"]
    assert {h["id"]: h["stale"] for h in hits}.get(ids["holds"]) is None
    source = cli("memory", "source", ids["cron"], "-f", "json").json()
    assert source["stale"][0]["anchor"] == CRONJOB
    markdown = cli("memory", "source", ids["cron"]).stdout
    assert (
        'stale: "may be stale: k8s/cronjobs/order-export.yaml: file no longer exists"' in markdown
    )
    recalled = cli("memory", "recall", "the order export", "-f", "json").json()
    assert any(h["id"] == ids["cron"] and h["stale"] for h in recalled["search"]["hits"])
    table = cli("memory", "list", "-f", "table")
    assert f"{ids['cron']} may be stale" in table.stderr
    # The edited Markdown goes back in: `stale` is ignored, anchors are read.
    again = cli(
        "memory", "upsert", "-", "-f", "json", input=markdown.replace("every night", "daily")
    )
    assert again.exit_code == 0, again.stderr


def test_a_branch_switch_changes_what_is_stale(repo: Path, cli: Callable[..., Any]) -> None:
    ids = upsert_all(cli)
    git(repo, "branch", "before")
    refactor(repo)
    assert stale_by_id(cli("memory", "list", "-f", "json").json())[ids["cron"]]
    git(repo, "checkout", "-q", "before")
    assert not any(stale_by_id(cli("memory", "list", "-f", "json").json()).values())
    git(repo, "checkout", "-q", "main")
    assert stale_by_id(cli("memory", "list", "-f", "json").json())[ids["cron"]]


def test_outside_a_git_checkout_nothing_is_stale(
    project_dir: Path, cli: Callable[..., Any]
) -> None:
    made = cli(
        "memory", "upsert", "--title", "Export", "--body", f"runs as {CRONJOB}",
        "--anchor", CRONJOB, "--anchor", "make up", "-f", "json",
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    shown = cli("memory", "source", made.json()[0]["id"], "-f", "json").json()
    assert shown["anchors"] == [CRONJOB, "make up"]  # kept as given, though nothing resolves
    assert shown["stale"] is None
    assert anchors.check([type("M", (), {"id": "x", "anchors": (CRONJOB,)})()], project_dir) == {}


def test_verify_records_it_in_place_and_stale_lists_the_breaking_commit(
    repo: Path, cli: Callable[..., Any]
) -> None:
    ids = upsert_all(cli)
    refactor(repo)
    commit = git(repo, "log", "-1", "--format=%h").strip()
    before = cli("memory", "source", ids["dev"], "-f", "json").json()
    verified = cli("memory", "verify", ids["dev"], "-f", "json")
    assert verified.exit_code == 0, verified.stderr
    after = cli("memory", "source", ids["dev"], "-f", "json").json()
    assert after["revision"] == before["revision"]  # no new revision
    assert after["verified_at"] > before["verified_at"]
    assert after["stale"]  # verifying says it holds; the check still reports the anchor

    listed = cli("memory", "stale", "-f", "json").json()
    # Oldest-verified first: the one just verified comes last.
    assert [r["id"] for r in listed][-1] == ids["dev"]
    assert {r["id"] for r in listed} == {ids[n] for n in ("retry", "dev", "cron", "helper")}
    assert all(s["broken_by"].startswith(commit) for r in listed for s in r["stale"])
    text = cli("memory", "stale").stdout
    assert f"broken by {commit} refactor: retries become backoff" in text
    refused = cli("memory", "verify", "01JD0000000000000000000099")
    assert refused.exit_code != 0


def test_explicit_anchors_replace_the_found_ones_and_an_update_redetects(
    repo: Path, cli: Callable[..., Any]
) -> None:
    made = cli(
        "memory", "upsert", "--title", "Dev", "--body", "`make up`", "--anchor", "RetryPolicy",
        "-f", "json",
    )  # fmt: skip
    memory_id = made.json()[0]["id"]
    shown = cli("memory", "source", memory_id, "-f", "json").json()
    assert shown["anchors"] == [f"RetryPolicy@{RETRY}"]
    cli("memory", "upsert", "--id", memory_id, "--body", "`make run` now")
    shown = cli("memory", "source", memory_id, "-f", "json").json()
    assert (shown["anchors"], shown["revision"]) == (["make run"], 2)
    history = cli("memory", "history", memory_id, "-f", "json").json()
    assert history[0]["anchors"] == [f"RetryPolicy@{RETRY}"]  # kept with the revision


def test_export_and_import_carry_anchors_and_verified_at(
    repo: Path, cli: Callable[..., Any], tmp_path: Path
) -> None:
    ids = upsert_all(cli)
    out = tmp_path / "export.ndjson"
    assert cli("memory", "export", "-o", str(out)).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["id"]: r["anchors"] for r in rows}[ids["cron"]] == [CRONJOB]
    imported = cli("memory", "import", str(out), "--user")
    assert imported.exit_code == 0, imported.stderr
    shown = cli("memory", "source", ids["cron"], "--user", "-f", "json").json()
    original = cli("memory", "source", ids["cron"], "-f", "json").json()
    assert shown["anchors"] == [CRONJOB]
    assert shown["verified_at"] == original["verified_at"]


# --- the write-time note ------------------------------------------------------------------------


def test_a_write_that_contradicts_a_live_memory_names_it_on_stderr(
    project_dir: Path, cli: Callable[..., Any]
) -> None:
    old = cli(
        "memory", "upsert", "--title", "Celery broker is Redis DB 1",
        "--body", "Celery uses Redis database 1 as its broker.", "-f", "json",
    ).json()[0]["id"]  # fmt: skip
    related = cli(
        "memory", "upsert", "--title", "Celery beat schedule",
        "--body", "Periodic Celery tasks are declared in tasks/schedule.py.",
    )  # fmt: skip
    assert related.exit_code == 0 and old not in related.stderr
    new = cli(
        "memory", "upsert", "--title", "Celery broker moved to Amazon SQS",
        "--body", "The Celery broker is now Amazon SQS; the Redis broker was retired.",
    )  # fmt: skip
    assert new.exit_code == 0
    assert f"memory {old} ('Celery broker is Redis DB 1') is on the same subject" in new.stderr
    assert f"graphit memory upsert --id {old}" in new.stderr


# --- a schema-1 table ---------------------------------------------------------------------------


def test_a_table_from_before_anchors_opens_reads_and_gains_the_columns(tmp_path: Path) -> None:
    import lancedb
    import pyarrow as pa

    from graphit_cli.core import revisions
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.store.lance import MemoryStore
    from graphit_cli.store.schema import ADDED, SCHEMA_VERSION, memory_schema, to_record
    from graphit_cli.store.table import TABLE_NAME

    uri = str(tmp_path / "old")
    schema = memory_schema(4)
    old = pa.schema([f for f in schema if f.name not in ADDED])
    now = revisions.new_memory(
        MemoryDraft(title="Old", body="From schema 1."),
        memory_id="01JD0000000000000000000001",
        scope_kind="project",
        scope_id="p",
        author="a",
        now=__import__("datetime").datetime(2026, 1, 1, tzinfo=__import__("datetime").UTC),
    )
    record = {k: v for k, v in to_record(now).items() if k not in ADDED}
    lancedb.connect(uri).create_table(TABLE_NAME, data=[record], schema=old)

    # Read as it is (what a grant that cannot write does): only the columns it has.
    import lance

    from graphit_cli.store.table import TableHandle

    path = str(tmp_path / "old" / f"{TABLE_NAME}.lance")
    as_is = MemoryStore(TableHandle(uri, dataset=lance.dataset(path), connect=lambda: None))
    read = as_is.get("01JD0000000000000000000001")
    assert read is not None and (read.title, read.anchors, read.verified_at) == ("Old", (), None)
    assert [m.id for m in as_is.live()] == [read.id]

    store = MemoryStore.open(uri, dim=4)
    assert set(ADDED) <= set(store.handle.arrow_schema().names)
    assert (
        store.handle.arrow_schema().metadata[b"graphit.schema_version"] == SCHEMA_VERSION.encode()
    )
    row = store.get("01JD0000000000000000000001")
    assert row is not None and (row.anchors, row.verified_at) == ((), None)
    assert store.set_verified(row.id, row.revision, now.created_at)
    assert store.get(row.id).verified_at == now.created_at


def test_the_quick_check_finds_the_same_broken_anchors_without_running_git(
    repo: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = upsert_all(cli)
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service
    from tests.conftest import PROJECT_ID

    live = open_service(Scope("project", PROJECT_ID)).catalogue()
    refactor(repo)
    full = anchors.check(live, repo)

    def no_git(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the quick check ran {args[0]}")

    monkeypatch.setattr(subprocess, "run", no_git)
    quick = anchors.check(live, repo, detail=False)
    assert set(quick) == set(full) == {ids[n] for n in ("retry", "dev", "cron", "helper")}
    for memory_id, broken in full.items():
        assert [s.anchor for s in quick[memory_id]] == [s.anchor for s in broken]


def test_an_update_of_the_body_alone_keeps_the_anchors_its_title_names(
    repo: Path, cli: Callable[..., Any]
) -> None:
    made = cli(
        "memory", "upsert", "--title", f"Order export ({CRONJOB})", "--body", "Runs nightly.",
        "-f", "json",
    )  # fmt: skip
    memory_id = made.json()[0]["id"]
    assert cli("memory", "upsert", "--id", memory_id, "--body", "Runs at 03:00.").exit_code == 0
    shown = cli("memory", "source", memory_id, "-f", "json").json()
    assert (shown["revision"], shown["anchors"]) == (2, [CRONJOB])


def test_a_batch_finds_its_anchors_with_one_git_search(
    repo: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real = subprocess.run

    def counted(args: Any, *rest: Any, **kwargs: Any) -> Any:
        if args and args[0] == "git":
            calls.append(list(args))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    records = [
        {"title": f"Note {n}", "body": f"`RetryPolicy` and `helper()` and {CRONJOB}, take {n}."}
        for n in range(40)
    ]
    done = cli("memory", "upsert", "-", "-f", "json", input="\n".join(map(json.dumps, records)))
    assert done.exit_code == 0, done.stderr
    assert len([c for c in calls if "grep" in c]) == 1
    listed = cli("memory", "list", "-f", "json").json()
    assert {tuple(m["anchors"]) for m in listed} == {
        (CRONJOB, f"RetryPolicy@{RETRY}", "helper@src/orderly/util.py")
    }
