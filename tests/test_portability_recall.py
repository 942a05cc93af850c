"""Recall and search across scopes through the CLI: project, user scope, recall contexts."""

from __future__ import annotations

from pathlib import Path

from graphit_cli.portability.importer import source_id
from tests.conftest import PROJECT_ID

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = f"project:{PROJECT_ID}"
USER = "user:anonymous"


def add(cli, *args: str) -> str:
    result = cli("memory", "upsert", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return str(result.json()[0]["id"])


def seed(cli, tmp_path: Path) -> dict[str, str]:
    ids = {
        "project_rule": add(
            cli,
            "--title",
            "Lint before commit",
            "--body",
            "Run ruff check before every commit.",
            "--mandatory",
        ),
        "project_note": add(
            cli,
            "--title",
            "Ruff config",
            "--body",
            "ruff settings live in pyproject.toml under tool.ruff.",
        ),
        "user_pref": add(
            cli,
            "--user",
            "--title",
            "Terse answers",
            "--body",
            "I prefer terse answers, code first.",
            "--mandatory",
            "-t",
            "preference",
        ),
        "user_note": add(
            cli,
            "--user",
            "--title",
            "My ruff habit",
            "--body",
            "I run ruff format on save in every editor.",
            "-t",
            "preference",
        ),
    }
    team = tmp_path / "team"
    team.mkdir()
    (team / "AGENTS.md").write_text(
        "## Reviews\n\nEvery change needs one approving review; ruff must be green.\n"
    )
    assert cli("memory", "context", "add", "team", "--from", str(team), "--recall").exit_code == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "AGENTS.md").write_text("## Deploys\n\nDeploy on Tuesdays only; run ruff first.\n")
    assert cli("memory", "context", "add", "other", "--from", str(other)).exit_code == 0
    ids["team_rule"] = source_id("agents:AGENTS.md#Reviews")
    ids["other_rule"] = source_id("agents:AGENTS.md#Deploys")
    return ids


def test_recall_loads_every_scope_in_one_call(cli, tmp_path: Path) -> None:
    ids = seed(cli, tmp_path)
    result = cli("memory", "recall", "ruff", "-f", "json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["scopes"] == [PROJECT, USER, "context:team"]
    assert [(m["id"], m["scope"]) for m in data["mandatory"]] == [
        (ids["project_rule"], PROJECT),
        (ids["user_pref"], USER),
        (ids["team_rule"], "context:team"),
    ]
    hits = {(h["id"], h["scope"]) for h in data["search"]["hits"]}
    assert hits == {(ids["project_note"], PROJECT), (ids["user_note"], USER)}  # no mandatory
    assert ids["other_rule"] not in result.stdout  # not a recall context

    markdown = cli("memory", "recall", "ruff").stdout
    assert markdown.startswith(
        f"## Mandatory memories (3) from {PROJECT}, {USER}, context:team\n\n---\n"
    )
    head, tail = markdown.split("## Relevant memories (2)\n")
    assert f'scope: "{USER}"' in head and 'scope: "context:team"' in head
    assert "# Terse answers\n\nI prefer terse answers, code first.\n" in head
    assert f'scope: "{USER}"' in tail and ids["user_pref"] not in tail

    # One scope, as before, with --scope or --user.
    only = cli("memory", "recall", "--scope", "project", "-f", "json").json()
    assert [m["id"] for m in only["mandatory"]] == [ids["project_rule"]]
    mine = cli("memory", "recall", "--user", "-f", "json").json()
    assert [m["id"] for m in mine["mandatory"]] == [ids["user_pref"]]


def test_search_scope_all_applies_the_selection_rule_across_scopes(cli, tmp_path: Path) -> None:
    ids = seed(cli, tmp_path)
    hits = cli("memory", "search", "ruff", "--scope", "all", "-f", "json").json()
    assert {(h["id"], h["scope"]) for h in hits} == {
        (ids["project_rule"], PROJECT),
        (ids["project_note"], PROJECT),
        (ids["user_note"], USER),
        (ids["team_rule"], "context:team"),
    }
    # Canonical order across the union: mandatory first, then the rest newest first.
    assert [h["category"] for h in hits] == ["mandatory", "mandatory", "normal", "normal"]
    assert [h["id"] for h in hits[2:]] == [ids["user_note"], ids["project_note"]]
    # Relevance across the union: each scope's scores are scaled to its best match, so the
    # project rule that barely mentions ruff scores low beside the project's ruff note.
    scores = {h["id"]: h["score"] for h in hits}
    assert scores[ids["team_rule"]] == scores[ids["user_note"]] == 1.0
    assert scores[ids["project_rule"]] < 0.75 * scores[ids["project_note"]]
    # top_k counts distinct memories across scopes, and the spec's selection holds across the
    # union: both matched mandatory rules come before any better-ranked normal hit.
    two = cli("memory", "search", "ruff", "--scope", "all", "-k", "2", "-f", "json").json()
    assert {h["id"] for h in two} == {ids["team_rule"], ids["project_rule"]}
    three = cli("memory", "search", "ruff", "--scope", "all", "-k", "3", "-f", "json").json()
    assert [h["category"] for h in three] == ["mandatory", "mandatory", "normal"]
    excluded = cli(
        "memory", "search", "ruff", "--scope", "all", "--exclude-mandatory", "-f", "json"
    ).json()
    assert {h["id"] for h in excluded} == {ids["project_note"], ids["user_note"]}
    markdown = cli("memory", "search", "ruff", "--scope", "all", "-f", "markdown").stdout
    assert markdown.count('\nscope: "') == 4


def test_recall_outside_a_project_still_loads_the_user(cli, tmp_path: Path, monkeypatch) -> None:
    pref = add(cli, "--user", "--title", "Terse", "--body", "Short answers.", "--mandatory")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = cli("memory", "recall", "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == "Note: not inside a graphit project: the project scope is left out.\n"
    assert [m["id"] for m in result.json()["mandatory"]] == [pref]
