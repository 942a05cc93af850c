"""`graphit memory search`, `recall` and `embed` through the CLI."""

from __future__ import annotations

import pytest

HIT_FIELDS = [
    "id",
    "key",
    "title",
    "type",
    "tags",
    "category",
    "important",
    "mandatory",
    "created_at",
    "updated_at",
    "revision",
    "matched_revision",
    "superseded",
    "deleted",
    "current",
    "replaced_by",
    "score",
    "rank",
    "snippet",
    "scope",
    "stale",
]


def add(cli, *args: str) -> str:
    result = cli("memory", "upsert", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return result.json()[0]["id"]


def test_search_json_is_stable_and_notice_goes_to_stderr(cli, monkeypatch) -> None:
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:no_model")  # writes leave no vector
    memory_id = add(cli, "--title", "Flamingo policy", "--body", "flamingo colours are pink")
    add(cli, "--id", memory_id, "--body", "flamingos stand on one leg")
    result = cli("memory", "search", "pink", "-f", "json")
    assert result.exit_code == 0
    assert (
        result.stderr
        == "lexical search only: no memory has a vector yet (run `graphit memory embed`)\n"
    )
    [hit] = result.json()
    assert list(hit) == HIT_FIELDS
    assert (hit["id"], hit["current"], hit["revision"]) == (memory_id, memory_id, 2)
    assert hit["superseded"] is True and hit["matched_revision"] == 1
    assert hit["key"].startswith(memory_id + "/")


@pytest.mark.smoke
def test_search_markdown_and_table(cli) -> None:
    memory_id = add(cli, "--title", "Gecko", "--body", "geckos climb glass", "--important")
    markdown = cli("memory", "search", "gecko", "-f", "markdown").stdout
    assert markdown.startswith(f'---\nid: "{memory_id}"\n')
    assert 'match: "current"\n' in markdown and "rank: 1\n" in markdown
    table = cli("memory", "search", "gecko", "-f", "table").stdout
    assert table.splitlines()[0].split()[:5] == ["ID", "TYPE", "FLAGS", "RELEVANCE", "MATCH"]
    assert memory_id in table and "-I" in table and "#1   █████ 1.00" in table
    empty = cli("memory", "search", "nothing-matches-this", "-f", "table")
    assert empty.exit_code == 0 and empty.stdout == "" and "No matches." in empty.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "x", "--mode", "vector"], "vector search is not possible"),
        (["search", "  "], "the search query must not be empty"),
        (["search", "x", "--tag", 'a"b'], "invalid tag"),
    ],
)
def test_search_errors(cli, args: list[str], message: str) -> None:
    result = cli("memory", *args)
    assert (
        result.exit_code == 3 and result.stderr.startswith("Error: ") and message in result.stderr
    )


def test_negative_top_k_is_a_usage_error(cli) -> None:
    result = cli("memory", "search", "x", "--top-k", "-1")
    assert result.exit_code == 2


def test_recall_markdown_lists_mandatory_then_relevant(cli) -> None:
    rule = add(cli, "--title", "Always lint", "--body", "run ruff before commit", "--mandatory")
    related = add(cli, "--title", "Lint config", "--body", "ruff settings live in pyproject")
    result = cli("memory", "recall", "ruff")
    assert result.exit_code == 0
    text = result.stdout
    # Without --scope, recall reads every recall scope (only the project has a table here).
    assert text.startswith(
        "## Mandatory memories (1) from project:01JD0000000000000000000000\n\n---\n"
    )
    head, tail = text.split("## Relevant memories (1)\n")
    assert rule in head and related in tail and rule not in tail
    only = cli("memory", "recall", "-f", "json").json()
    assert [m["id"] for m in only["mandatory"]] == [rule] and only["search"] is None


@pytest.mark.parametrize("top_k", ["1", "3", "5"])
def test_a_mandatory_match_is_shown_first_whatever_top_k(cli, top_k: str) -> None:
    """The spec's rule without exception: twelve normal memories say "zebra" several times,
    one mandatory memory says it once; every top_k shows the mandatory one, first."""
    normal = [
        add(cli, "--title", f"Zebra note {n}", "--body", "zebra zebra zebra: the zebra herd")
        for n in range(12)
    ]
    rule = add(
        cli,
        "--title",
        "Session rules",
        "--body",
        "A long note about many things. " * 20 + "It mentions a zebra once.",
        "--mandatory",
    )
    everything = cli("memory", "search", "zebra", "--mode", "fts", "-k", "0", "-f", "json")
    assert everything.json()[0]["id"] == rule and len(everything.json()) == 13
    result = cli("memory", "search", "zebra", "--mode", "fts", "-k", top_k, "-f", "json")
    assert result.exit_code == 0, result.stderr
    shown = [h["id"] for h in result.json()]
    assert len(shown) == int(top_k) and shown[0] == rule and set(shown[1:]) <= set(normal)
    assert result.json()[0]["category"] == "mandatory"


def test_lexical_only_search_on_a_realistic_project(cli) -> None:
    """No vectors yet (a new user's first searches): "which database do we use" shows the
    database memory and none of the six that share only "use"; a query about nothing shows
    nothing."""
    from pathlib import Path

    project = Path(__file__).parent / "fixtures" / "projects" / "engineering.jsonl"
    loaded = cli("memory", "upsert", "-", "-f", "json", input=project.read_text())
    assert loaded.exit_code == 0, loaded.stderr
    titles = {m["id"]: m["title"] for m in loaded.json()}
    result = cli("memory", "search", "which database do we use", "--mode", "fts", "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert [titles[h["id"]] for h in result.json()] == ["Primary database is PostgreSQL 16"]
    deploy = cli("memory", "search", "how do we deploy", "--mode", "fts", "-f", "json")
    assert "Deploy with Helm to the production cluster" in [titles[h["id"]] for h in deploy.json()]
    nothing = cli("memory", "search", "xylophone quantum banana", "--mode", "fts", "-f", "json")
    assert nothing.exit_code == 0 and nothing.stdout.strip() in ("", "[]")
