"""`graphit memory consolidate` end to end on real tables: report, plan, guards, log, undo.

Vectors come from the hashing embedder in tests/embedders.py (written into the table by
`embed`), so the report's near duplicates rest on stored embeddings as in production.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.consolidate import candidates
from graphit_cli.consolidate.candidates import find_candidates
from graphit_cli.consolidate.consolidator import Consolidator
from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.errors import InvalidInput
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from graphit_cli.service.writes import Writer
from tests.embedders import HashingEmbedder

FILLER = [
    ("Release day", "We ship on Thursdays after the demo."),
    ("Logging", "Structured logs go to stderr as JSON lines."),
    ("Test runner", "Run pytest with -x while iterating on a change."),
    ("Formatting", "Run ruff format before every commit."),
    ("Storage", "LanceDB tables live under the graphit home directory."),
    ("Docs", "Regenerate the man page with scripts/gen_docs.py."),
    ("CI order", "CI runs the scale tests first so the summary closes the log."),
    ("Branches", "Feature branches are rebased on main, never merged."),
    ("Secrets", "Credentials come from the environment, never from files in the repo."),
    ("Timeouts", "HTTP clients time out after ten seconds by default."),
]


def add(svc: MemoryService, title: str, body: str, **extra: Any) -> str:
    return svc.upsert(MemoryDraft(title=title, body=body, **extra)).memory.id


@pytest.fixture
def table(service: MemoryService) -> dict[str, str]:
    """A project table with duplicates, a near duplicate, flags, a stale memory and filler."""
    ids = {
        "uv": add(
            service,
            "Use uv",
            "We install Python packages with uv, never pip.",
            important=True,
            tags=("python",),
        ),
        "uv_copy": add(service, "use  UV", "We install Python packages with uv, never pip."),
        "uv_near": add(
            service,
            "Install with uv",
            "Python packages are installed with uv and never with pip.",
            mandatory=True,
            type="constraint",
            tags=("tooling",),
        ),
        "old": add(
            service,
            "Legacy deploy script",
            "The old deploy.sh script pushes to the staging host.",
            created_at=datetime.now(UTC) - timedelta(days=200),
        ),
    }
    for i, (title, body) in enumerate(FILLER):
        ids[f"f{i}"] = add(service, title, body)
    service.embed(HashingEmbedder())
    return ids


def plan_for(group: dict[str, Any], **extra: Any) -> dict[str, Any]:
    action = {
        "action": "merge",
        "ids": group["ids"],
        "keep_id": group["keep_id"],
        "revisions": {m["id"]: m["revision"] for m in group["members"]},
        **extra,
    }
    return {"version": 1, "scope": "project", "actions": [action]}


def uv_group(cli) -> dict[str, Any]:
    """The report's exact group and the near group holding its survivor, as one merge: the
    three uv memories."""
    report = cli("memory", "consolidate", "--threshold", "0.6", "-f", "json").json()
    exact, near = report["groups"]
    return {
        "ids": near["ids"] + exact["ids"][1:],
        "keep_id": near["keep_id"],
        "members": near["members"] + exact["members"][1:],
    }


def write_plan(tmp_path: Path, plan: dict[str, Any]) -> str:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    return str(path)


# --- the report -------------------------------------------------------------------------------


def test_report_finds_exact_and_near_duplicates_and_stale(cli, table) -> None:
    result = cli("memory", "consolidate", "--threshold", "0.6", "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert set(report) == {"scope", "analysed", "groups", "stale"}
    assert report["analysed"] == 14
    exact, group = report["groups"]
    assert set(group) == {"kind", "ids", "keep_id", "similarity", "members"}
    # The exact copy (same title and body) is an exact group of its own, never a member of a
    # near group at similarity 1.00; the near group holds its proposed survivor.
    assert exact["kind"] == "exact" and exact["similarity"] == 1.0
    assert exact["ids"] == [table["uv"], table["uv_copy"]]  # important first
    assert group["kind"] == "near"
    assert group["ids"] == [table["uv_near"], table["uv"]]
    assert group["keep_id"] == table["uv_near"]  # mandatory first
    assert 0.6 <= group["similarity"] < 1.0
    member = group["members"][0]
    assert set(member) == {
        "id",
        "revision",
        "title",
        "type",
        "important",
        "mandatory",
        "updated_at",
        "body",
    }
    assert member["body"] == "Python packages are installed with uv and never with pip."
    # 200 days old, but it names no code: age alone makes nothing stale (anchors
    # that broke do: tests/test_anchors_consolidate.py).
    assert report["stale"] == []
    shown = cli("memory", "consolidate", "--threshold", "0.6").stdout
    assert "## Group 1: exact duplicates (similarity 1.00)" in shown
    assert f"## Group 2: near duplicates (similarity {group['similarity']:.2f})" in shown
    assert "Pairwise similarity" not in shown  # no copy listed at 1.00 inside the near group
    assert "## Stale" not in shown


def test_report_exact_group_without_vectors_and_markdown(cli, service) -> None:
    a = add(service, "Use uv", "We install with uv.")
    b = add(service, "Use  uv", "we install   with UV.")
    add(service, "Other", "Something else entirely.")
    result = cli("memory", "consolidate")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith("# Consolidation candidates in project:")
    assert "3 live memories analysed: 1 duplicate group(s), 0 stale." in result.stdout
    assert "## Group 1: exact duplicates (similarity 1.00)" in result.stdout
    assert a in result.stdout and b in result.stdout


def test_report_is_read_only_and_deterministic(cli, table, service) -> None:
    before = {m.id: m.revision for m in service.catalogue()}
    first = cli("memory", "consolidate", "--format", "json").stdout
    assert cli("memory", "consolidate", "--format", "json").stdout == first
    assert {m.id: m.revision for m in service.catalogue()} == before


def row(memory_id: str, title: str, body: str, days: int = 0, **flags: bool) -> Memory:
    moment = datetime(2026, 6, 1, tzinfo=UTC) - timedelta(days=days)
    return Memory(
        key=memory_id,
        id=memory_id,
        revision_id="",
        revision=1,
        previous=None,
        next=None,
        superseded=False,
        title=title,
        body=body,
        type="fact",
        tags=(),
        important=flags.get("important", False),
        mandatory=flags.get("mandatory", False),
        created_at=moment,
        updated_at=moment,
        scope_kind="project",
        scope_id="x",
        updated_by="t",
        content_hash=memory_id,
    )


def test_groups_are_cliques_never_chains() -> None:
    # A~B and B~C are similar, A and C are not: no group may hold both A and C.
    rows = [
        row("A" * 26, "alpha cache rule", "cache layer rule one"),
        row("B" * 26, "alpha cache rule", "cache layer rule two"),
        row("C" * 26, "alpha cache rule", "cache layer rule three"),
    ]
    c, s = 0.8, 0.6
    vectors = [[1.0, 0.0], [c, s], [c * c - s * s, 2 * c * s]]  # 0, ~37 and ~74 degrees
    now = datetime(2026, 6, 1, tzinfo=UTC)
    report = find_candidates(rows, [r.id for r in rows], vectors, scope="p", now=now, threshold=0.5)
    assert [g.ids for g in report.groups] == [["A" * 26, "B" * 26]]
    assert report.groups[0].similarity == pytest.approx(0.8)


def test_rows_without_a_vector_are_compared_by_words() -> None:
    rows = [
        row("A" * 26, "Deploy on Fridays", "Production deploys happen every Friday afternoon"),
        row("B" * 26, "Deploy on Fridays", "Production deploys happen every Friday afternoon!!"),
        row("C" * 26, "Deploy on Fridays", "Production deploys happen on Friday afternoons"),
        row("D" * 26, "Lunch", "The team lunch is on Wednesdays"),
    ]
    now = datetime(2026, 6, 1, tzinfo=UTC)
    report = find_candidates(rows, [], [], scope="p", now=now)
    assert [sorted(g.ids) for g in report.groups] == [["A" * 26, "B" * 26, "C" * 26]]
    assert report.groups[0].kind == "near"
    with pytest.raises(InvalidInput):
        find_candidates(rows, [], [], scope="p", now=now, threshold=0.0)


def test_the_default_threshold_is_the_table_models() -> None:
    """Each model's cosines spread differently: the near-duplicate cosine is its profile's."""
    from graphit_cli.core import profiles
    from graphit_cli.core.profiles import E5_MODEL

    assert profiles.profile_for(E5_MODEL).near_duplicate == candidates.DEFAULT_THRESHOLD
    assert profiles.profile_for(E5_MODEL).near_duplicate > profiles.MINILM.near_duplicate
    # A table that records no model, or a model graphit was not calibrated for: MiniLM's.
    assert profiles.profile_for("someone/else") == profiles.MINILM
    assert profiles.profile_for(None) == profiles.MINILM


def test_the_default_profile_is_the_default_models() -> None:
    """What help shows and a caller naming no model gets: the model a process loads first."""
    from graphit_cli import embed
    from graphit_cli.core import profiles

    assert profiles.DEFAULT.model_id == embed.MODEL_OF[embed.DEFAULT_ORDER[0]]


# --- applying a plan ----------------------------------------------------------------------------


def test_dry_run_then_apply_merge_inherits_flags_type_and_tags(
    cli, table, service, tmp_path, graphit_home
) -> None:
    plan = write_plan(tmp_path, plan_for(uv_group(cli), reason="same rule, three times"))
    dry = cli("memory", "consolidate", "--plan", plan, "--format", "json")
    assert dry.exit_code == 0, dry.stderr
    assert dry.json()["log"] is None and len(dry.json()["applied"]) == 1
    assert len(service.catalogue()) == 14  # nothing written

    done = cli("memory", "consolidate", "--plan", plan, "--apply", "--format", "json")
    assert done.exit_code == 0, done.stderr
    outcome = done.json()
    assert set(outcome) == {"scope", "analysed", "applied", "refused", "failed", "log"}
    assert outcome["refused"] == [] and outcome["failed"] == []
    [entry] = outcome["applied"]
    assert set(entry) == {"action", "ids", "detail"} and entry["action"] == "merge"
    log = Path(outcome["log"])
    assert log.parent == graphit_home / "memory" / "consolidation" and log.is_file()

    survivor = service.source(table["uv_near"])
    assert survivor.important and survivor.mandatory  # inherited independently
    assert survivor.type == "constraint"
    assert survivor.tags == ("python", "tooling")
    assert "We install Python packages with uv, never pip." in survivor.body  # union text
    live = {m.id for m in service.catalogue()}
    assert table["uv"] not in live and table["uv_copy"] not in live

    # `history` of an absorbed id says where it went.
    shown = cli("memory", "history", table["uv"], "--format", "json").json()
    assert [(r["revision"], r["current"], r["next"] is None) for r in shown] == [
        (1, False, False),
        (2, False, True),
    ]
    assert shown[-1]["title"] == f"[merged into {table['uv_near']}] Use uv"
    final = service.history(table["uv"])[-1]
    assert final.next is None and not final.is_live
    assert final.body.startswith(f"Merged into {table['uv_near']} by consolidation on ")
    assert "same rule, three times" in final.body


def test_plan_text_is_used_and_markdown_outcome(cli, table, service, tmp_path) -> None:
    ids = [table["uv"], table["uv_copy"]]
    plan = {
        "version": 1,
        "actions": [
            {
                "action": "merge",
                "ids": ids,
                "keep_id": table["uv"],
                "title": "Install Python packages with uv",
                "body": "Use uv, never pip: the lock file is uv's.",
                "revisions": {i: 1 for i in ids},
            }
        ],
    }
    result = cli("memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("# Consolidation of project:")
    assert "## Applied (1)" in result.stdout and "## Refused (0)" in result.stdout
    kept = service.source(table["uv"])
    assert (kept.title, kept.body, kept.revision) == (
        "Install Python packages with uv",
        "Use uv, never pip: the lock file is uv's.",
        2,
    )


def test_refusals_one_by_one_and_the_rest_applies(cli, table, service, tmp_path) -> None:
    service.upsert(MemoryDraft(id=table["f1"], body="Logs go to stderr, as JSON lines."))
    missing = "01JD00000000000000000000ZZ"
    plan = {
        "version": 1,
        "actions": [
            {"action": "update", "id": table["f0"], "body": "We ship on Tuesdays.", "revision": 1},
            {"action": "update", "id": table["f1"], "body": "stale view", "revision": 1},
            {"action": "delete", "id": missing, "revision": 1},
            {"action": "merge", "ids": [table["f2"]], "keep_id": table["f2"], "revisions": {}},
            {"action": "promote", "id": table["f3"]},
            {"action": "explode", "id": table["f4"], "revision": 1},
            {"action": "promote", "id": table["f5"], "revision": 1, "reason": "key doc"},
            "not an action",
        ],
    }
    result = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    )
    assert result.exit_code == 0, result.stderr
    outcome = result.json()
    assert [(e["action"], e["ids"]) for e in outcome["applied"]] == [
        ("update", [table["f0"]]),
        ("promote", [table["f5"]]),
    ]
    details = [e["detail"] for e in outcome["refused"]]
    assert details == [
        f"action 2: {table['f1']} moved on: it is at revision 2, the plan saw 1; "
        "read it again and re-plan",
        f"action 3: unknown id {missing}",
        "action 4: a merge needs at least two distinct memories",
        "action 5: promote needs revision: the revision the report showed",
        "action 6: unknown action 'explode': use merge, update, promote, demote, mandatory, "
        "optional, delete",
        "action 8: an action is a JSON object",
    ]
    assert service.source(table["f1"]).body == "Logs go to stderr, as JSON lines."  # kept
    assert service.source(table["f0"]).body == "We ship on Tuesdays."
    assert service.source(table["f5"]).important


def test_bad_plans_exit_3_and_write_nothing(cli, table, service, tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = cli("memory", "consolidate", "--plan", str(bad), "--apply")
    assert result.exit_code == 3 and result.stdout == ""
    assert result.stderr.startswith("Error: ") and "not valid JSON" in result.stderr
    for plan, message in [
        ([], "a plan is a JSON object"),
        ({"version": 2, "actions": []}, "unsupported plan version 2"),
        ({"version": 1, "scope": "user", "actions": []}, "the plan is for scope 'user'"),
        ({"version": 1}, 'a plan needs an "actions" list'),
    ]:
        result = cli("memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply")
        assert (result.exit_code, result.stdout) == (3, ""), plan
        assert result.stderr.count("\n") == 1 and message in result.stderr
    piped = cli("memory", "consolidate", "--plan", "-", input="{not json")
    assert piped.exit_code == 3 and piped.stderr.startswith("Error: stdin is not valid JSON")
    missing = cli("memory", "consolidate", "--plan", str(tmp_path / "nope.json"))
    assert missing.exit_code == 3 and "no such file" in missing.stderr
    usage = cli("memory", "consolidate", "--apply")
    assert usage.exit_code == 2
    assert all(m.revision == 1 for m in service.catalogue())


# --- guards -------------------------------------------------------------------------------------


def test_bare_delete_of_flagged_memories_is_refused(cli, table, service, tmp_path) -> None:
    plan = {
        "version": 1,
        "actions": [
            {"action": "delete", "id": table["uv"], "revision": 1},
            {"action": "delete", "id": table["uv_near"], "revision": 1},
            {"action": "delete", "id": table["f9"], "revision": 1},
        ],
    }
    outcome = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    ).json()
    assert [e["ids"] for e in outcome["applied"]] == [[table["f9"]]]
    assert [e["detail"] for e in outcome["refused"]] == [
        f"action 1: {table['uv']} is important: a bare delete cannot remove it; fold it into "
        "another memory instead (a merge keeps its flags)",
        f"action 2: {table['uv_near']} is mandatory: a bare delete cannot remove it; fold it "
        "into another memory instead (a merge keeps its flags)",
    ]
    live = {m.id for m in service.catalogue()}
    assert table["uv"] in live and table["uv_near"] in live and table["f9"] not in live


def test_the_last_live_memory_is_never_deleted(cli, service, tmp_path) -> None:
    only = add(service, "Only one", "The single memory of this scope.")
    plan = {"version": 1, "actions": [{"action": "delete", "id": only, "revision": 1}]}
    result = cli(
        "memory",
        "consolidate",
        "--plan",
        write_plan(tmp_path, plan),
        "--apply",
        "--allow-mass-removal",
        "-f",
        "json",
    )
    assert result.exit_code == 0
    assert result.json()["refused"][0]["detail"] == (
        f"action 1: {only} is the last live memory of the scope"
    )
    assert [m.id for m in service.catalogue()] == [only]


def test_mass_removal_needs_the_flag(cli, table, service, tmp_path) -> None:
    doomed = [table[f"f{i}"] for i in range(4)]  # 4 of 14 live: more than a quarter (3)
    plan = {
        "version": 1,
        "actions": [{"action": "delete", "id": i, "revision": 1} for i in doomed],
    }
    path = write_plan(tmp_path, plan)
    refused = cli("memory", "consolidate", "--plan", path, "--apply")
    assert refused.exit_code == 3 and refused.stdout == ""
    assert refused.stderr == (
        "Error: the plan would remove 4 of 14 live memories (more than 3: a quarter, at most "
        "20, at least 2); check it, then pass --allow-mass-removal "
        "(MCP: allow_mass_removal: true)\n"
    )
    assert len(service.catalogue()) == 14
    allowed = cli("memory", "consolidate", "--plan", path, "--apply", "--allow-mass-removal")
    assert allowed.exit_code == 0
    assert len(service.catalogue()) == 10


def test_a_failed_removal_exits_5_and_undo_restores_the_marked_member(
    cli, table, service, tmp_path, monkeypatch
) -> None:
    """The storage fails one delete (injected): the survivor stays, the member stays live
    marked as merged, the outcome says so with exit code 5, and undo restores it."""
    from graphit_cli.errors import StorageUnavailable

    real_delete = Writer.delete

    def flaky_delete(self: Writer, memory_id: str, **kw):
        if memory_id == table["uv_copy"]:
            raise StorageUnavailable("write to the table failed: injected")
        return real_delete(self, memory_id, **kw)

    before = snapshot_all(service)
    ids = [table["uv"], table["uv_copy"]]
    plan = {
        "version": 1,
        "actions": [
            {"action": "merge", "ids": ids, "keep_id": ids[0], "revisions": {i: 1 for i in ids}}
        ],
    }
    monkeypatch.setattr(Writer, "delete", flaky_delete)
    result = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    )
    assert result.exit_code == 5
    outcome = result.json()
    [failed] = outcome["failed"]
    assert failed["ids"] == [table["uv_copy"]]
    assert "is marked as merged into" in failed["detail"] and "injected" in failed["detail"]
    marked = service.source(table["uv_copy"])
    assert marked.title == f"[merged into {table['uv']}] use UV"
    monkeypatch.setattr(Writer, "delete", real_delete)
    undone = cli("memory", "consolidate", "undo", outcome["log"], "-f", "json")
    assert undone.exit_code == 0 and undone.json()["refused"] == []
    assert snapshot_all(service) == before


def test_a_merge_over_the_tag_limit_is_refused(cli, service, tmp_path) -> None:
    many = [f"t{i}" for i in range(40)]
    a = add(service, "Tagged one", "First tagged memory.", tags=tuple(many))
    b = add(service, "Tagged two", "Second tagged memory.", tags=tuple(f"u{i}" for i in range(40)))
    for title, body in FILLER:
        add(service, title, body)
    plan = {
        "version": 1,
        "actions": [{"action": "merge", "ids": [a, b], "keep_id": a, "revisions": {a: 1, b: 1}}],
    }
    outcome = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    ).json()
    assert outcome["applied"] == [] and outcome["log"] is None
    assert "would carry 80 tags, at most 64" in outcome["refused"][0]["detail"]


def test_a_survivor_is_not_demoted_by_the_plan_that_merged_into_it(service) -> None:
    # Two identical important memories: the merge leaves the survivor's text and revision as
    # they were, so a demote written against that revision used to apply, and the absorbed
    # memory's flag was gone (found by test_consolidate_properties at 4x its examples).
    a = add(service, "Use uv", "We install Python packages with uv, never pip.", important=True)
    b = add(service, "Use uv", "We install Python packages with uv, never pip.", important=True)
    add(service, "Release day", "We ship on Thursdays after the demo.")
    plan = {
        "version": 1,
        "actions": [
            {"action": "merge", "ids": [a, b], "keep_id": b, "revisions": {a: 1, b: 1}},
            {"action": "demote", "id": b, "revision": 1},
        ],
    }
    for apply in (False, True):  # the dry run says what the apply does
        outcome = Consolidator(service).apply(plan, apply=apply)
        assert [e.action for e in outcome.applied] == ["merge"]
        [refused] = outcome.refused
        assert f"{b} absorbed {a} earlier in this plan" in refused.detail
    assert service.source(b).important and [m.id for m in service.catalogue()].count(a) == 0


# --- undo ---------------------------------------------------------------------------------------


def snapshot_all(service: MemoryService) -> dict[str, tuple[Any, ...]]:
    return {
        m.id: (m.title, m.body, m.type, m.tags, m.important, m.mandatory)
        for m in service.catalogue()
    }


def test_undo_restores_absorbed_and_survivor(cli, table, service, tmp_path) -> None:
    before = snapshot_all(service)
    plan = plan_for(uv_group(cli))
    plan["actions"].append({"action": "demote", "id": table["uv"], "revision": 1})  # refused
    plan["actions"].append({"action": "update", "id": table["f2"], "body": "x", "revision": 1})
    outcome = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    ).json()
    assert len(outcome["applied"]) == 2 and len(outcome["refused"]) == 1
    assert snapshot_all(service) != before

    undone = cli("memory", "consolidate", "undo", outcome["log"], "-f", "json")
    assert undone.exit_code == 0, undone.stderr
    result = undone.json()
    assert result["refused"] == [] and result["failed"] == []
    assert len(result["applied"]) == 4  # the update, two revived members, the survivor
    assert snapshot_all(service) == before
    # The absorbed memory's chain continues: the merge marker stays in its history.
    chain = service.history(table["uv"])
    assert chain[-1].is_live and chain[-1].revision == 3
    assert chain[1].title.startswith("[merged into ")


def test_undo_never_overwrites_a_later_edit(cli, table, service, tmp_path) -> None:
    plan = {
        "version": 1,
        "actions": [
            {"action": "update", "id": table["f0"], "body": "We ship on Tuesdays.", "revision": 1},
            {"action": "update", "id": table["f1"], "body": "Logs: JSON.", "revision": 1},
        ],
    }
    log = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    ).json()["log"]
    service.upsert(MemoryDraft(id=table["f0"], body="We ship on Mondays now."))
    result = cli("memory", "consolidate", "undo", Path(log).name, "-f", "json")
    assert result.exit_code == 0, result.stderr
    outcome = result.json()
    assert [e["ids"] for e in outcome["applied"]] == [[table["f1"]]]
    [refused] = outcome["refused"]
    assert refused["ids"] == [table["f0"]] and "edited after the apply" in refused["detail"]
    assert service.source(table["f0"]).body == "We ship on Mondays now."
    assert service.source(table["f1"]).body == FILLER[1][1]


def test_undo_of_a_bad_log_exits_3(cli, tmp_path) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"version": 1, "changes": "nope"}))
    result = cli("memory", "consolidate", "undo", str(path))
    assert result.exit_code == 3
    assert result.stderr == f"Error: {path} is not a graphit consolidation log\n"
    result = cli("memory", "consolidate", "undo", str(tmp_path / "missing.json"))
    assert result.exit_code == 3 and "no such log" in result.stderr


def test_consolidator_uses_the_service_guards_directly(table, service) -> None:
    """The same guards hold for any adapter calling Consolidator (MCP, Explorer)."""
    plan = {"version": 1, "actions": [{"action": "delete", "id": table["uv"], "revision": 1}]}
    outcome = Consolidator(service).apply(plan, apply=True)
    assert outcome.applied == [] and "bare delete" in outcome.refused[0].detail
    assert outcome.log is None


# --- with the packaged model --------------------------------------------------------------------


@pytest.mark.slow
def test_real_model_groups_a_restatement_not_a_neighbour(service) -> None:
    """all-MiniLM-L6-v2 vectors at the calibrated default threshold."""
    from graphit_cli.embed import load_default, model_available

    if not model_available():
        pytest.skip("embedding model not installed")
    model = load_default()
    assert model is not None
    a = add(
        service, "Release day is Thursday", "We ship to production on Thursdays after the demo."
    )
    b = add(
        service,
        "Releases go out on Thursday",
        "Production releases ship on Thursdays, after the demo.",
    )
    add(service, "Release notes", "Every release gets notes in CHANGELOG.md written by its author.")
    add(service, "Python version", "The project targets Python 3.11; CI tests 3.11 and 3.12.")
    service.embed(model)
    report = Consolidator(service).report()
    assert [sorted(g.ids) for g in report.groups] == [sorted([a, b])]
    assert report.groups[0].kind == "near" and report.groups[0].similarity > 0.8


# --- guards under a concurrent writer ---------------------------------------------------------


def flip_before_delete(monkeypatch, scope, victim: str, **flags: bool) -> list[int]:
    """Another writer (its own handle on the same table) sets `flags` on `victim` right
    between the apply's checks and its removal of `victim`; returns the revision it wrote."""
    from graphit_cli.consolidate import tables

    real = tables.ServiceTable.delete
    written: list[int] = []

    def delete(self, memory_id, *args, **kw):
        if memory_id == victim and not written:
            other = open_service(scope)
            written.append(other.upsert(MemoryDraft(id=victim, **flags)).memory.revision)
        return real(self, memory_id, *args, **kw)

    monkeypatch.setattr(tables.ServiceTable, "delete", delete)
    return written


def test_a_bare_delete_refuses_when_the_memory_turned_mandatory_meanwhile(
    cli, table, service, scope, tmp_path, monkeypatch
) -> None:
    victim = table["f0"]
    written = flip_before_delete(monkeypatch, scope, victim, mandatory=True)
    plan = {"version": 1, "actions": [{"action": "delete", "id": victim, "revision": 1}]}
    result = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    )
    assert written == [2]
    assert result.exit_code == 0, result.stderr
    outcome = result.json()
    assert outcome["applied"] == [] and outcome["failed"] == [] and outcome["log"] is None
    [refused] = outcome["refused"]
    assert refused["detail"] == (
        f"action 1: changed while applying: memory {victim} is at revision 2, not 1: it "
        "changed since it was checked; nothing deleted"
    )
    kept = service.source(victim)  # still live, with the flag the other writer set
    assert kept.mandatory and kept.revision == 2 and kept.body == FILLER[0][1]


def test_an_absorb_refuses_when_the_member_turned_mandatory_meanwhile(
    cli, table, service, scope, tmp_path, monkeypatch
) -> None:
    keep, member = table["f1"], table["f2"]
    flip_before_delete(monkeypatch, scope, member, mandatory=True)
    plan = {
        "version": 1,
        "actions": [
            {
                "action": "merge",
                "ids": [keep, member],
                "keep_id": keep,
                "revisions": {keep: 1, member: 1},
            }
        ],
    }
    result = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    )
    assert result.exit_code == 0, result.stderr
    outcome = result.json()
    assert outcome["failed"] == []
    [refused] = outcome["refused"]
    assert refused["ids"] == [member] and "stays live" in refused["detail"]
    assert "nothing of it was removed" in refused["detail"]
    assert outcome["applied"][0]["detail"].endswith("absorbed nothing")
    # The member is live, mandatory, and has its own title and body back.
    now = service.source(member)
    assert now.mandatory and (now.title, now.body) == FILLER[2]
    # Undo takes the survivor back; the member is left as the other writer made it.
    undone = cli("memory", "consolidate", "undo", outcome["log"], "-f", "json").json()
    assert undone["refused"] == [] and undone["failed"] == []
    assert service.source(keep).body == FILLER[1][1]
    assert service.source(member).mandatory


def test_a_small_scope_can_merge_two_of_three(cli, service, tmp_path) -> None:
    a = add(service, "Use uv", "We install with uv.")
    b = add(service, "Use  uv", "we install   with UV.")
    add(service, "Other", "Something else entirely.")
    [group] = cli("memory", "consolidate", "-f", "json").json()["groups"]
    path = write_plan(tmp_path, plan_for(group))
    dry = cli("memory", "consolidate", "--plan", path, "-f", "json")
    assert dry.exit_code == 0, dry.stderr
    done = cli("memory", "consolidate", "--plan", path, "--apply", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert len(service.catalogue()) == 2 and group["keep_id"] in {m.id for m in service.catalogue()}
    assert set(group["ids"]) == {a, b}
    # Two removals are allowed even in a scope of three; a third is mass removal.
    c = add(service, "Fourth", "A fourth memory.")
    d = add(service, "Fifth", "A fifth memory.")
    three = {
        "version": 1,
        "actions": [{"action": "delete", "id": i, "revision": 1} for i in (c, d, group["keep_id"])],
    }
    refused = cli("memory", "consolidate", "--plan", write_plan(tmp_path, three))
    assert refused.exit_code == 3 and "would remove 3 of 4 live memories (more than 2" in (
        refused.stderr
    )
    two = {"version": 1, "actions": three["actions"][:2]}
    assert (
        cli("memory", "consolidate", "--plan", write_plan(tmp_path, two), "--apply").exit_code == 0
    )
    assert len(service.catalogue()) == 2


def test_undo_twice_says_already_undone(cli, table, service, tmp_path) -> None:
    before = snapshot_all(service)
    pair = [table["f3"], table["f4"]]
    merge = {"action": "merge", "ids": pair, "keep_id": pair[0], "revisions": {i: 1 for i in pair}}
    update = {"action": "update", "id": table["f2"], "body": "x", "revision": 1}
    plan = {"version": 1, "actions": [merge, update]}
    log = cli(
        "memory", "consolidate", "--plan", write_plan(tmp_path, plan), "--apply", "-f", "json"
    ).json()["log"]
    first = cli("memory", "consolidate", "undo", log, "-f", "json").json()
    assert first["refused"] == [] and snapshot_all(service) == before
    again = cli("memory", "consolidate", "undo", log, "-f", "json")
    assert again.exit_code == 0, again.stderr
    second = again.json()
    assert second["applied"] == [] and second["failed"] == [] and second["log"] is None
    assert len(second["refused"]) == 3  # the survivor, the absorbed member, the update
    assert all("was already undone" in e["detail"] for e in second["refused"])
    assert not any("changed after the apply" in e["detail"] for e in second["refused"])
    assert snapshot_all(service) == before
    shown = cli("memory", "consolidate", "undo", log).stdout
    assert "already undone" in shown


def test_a_merge_ranks_every_memory_type_once() -> None:
    """The merge's type precedence is an order over the model's types, each exactly once."""
    from graphit_cli.consolidate.apply import TYPE_ORDER
    from graphit_cli.core.models import MEMORY_TYPES

    assert sorted(TYPE_ORDER) == sorted(MEMORY_TYPES)
    assert TYPE_ORDER[-1] == "fact"  # the least specific
