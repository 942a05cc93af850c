"""Named contexts through the CLI: add (import or attach), list, refresh, remove."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from graphit_cli.portability.importer import source_id
from tests.conftest import PROJECT_ID

FIXTURES = Path(__file__).parent / "fixtures"
OTHER_PROJECT = "01JD0000000000000000000099"


def _context_list(cli) -> list[dict]:
    result = cli("memory", "context", "list", "-f", "json")
    assert result.exit_code == 0, result.stderr
    return result.json()


def test_add_list_refresh_remove(cli, graphit_home: Path, tmp_path: Path) -> None:
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    shutil.copy(FIXTURES / "agents" / "CLAUDE.md", handbook / "AGENTS.md")
    added = cli("memory", "context", "add", "team", "--from", str(handbook), "--recall")
    assert added.exit_code == 0, added.stderr
    assert [line.split("\t")[0] for line in added.stdout.splitlines()] == ["created"] * 2
    assert added.stderr.startswith(f"Added context team (from {handbook}).\n")
    assert (graphit_home / "memory" / "memory-context-team").is_dir()

    [entry] = _context_list(cli)
    assert {k: entry[k] for k in ("name", "kind", "source", "memories", "recall")} == {
        "name": "team",
        "kind": "import",
        "source": str(handbook),
        "memories": 2,
        "recall": True,
    }
    assert entry["refreshed_at"].startswith("20")
    meta = json.loads((graphit_home / "memory" / "contexts.json").read_text())
    assert meta["contexts"]["team"]["source"] == str(handbook)

    # Read it like any scope.
    style = source_id("agents:AGENTS.md#Style")
    shown = cli("memory", "source", style, "--scope", "context:team", "-f", "json").json()
    assert shown["scope"] == "context:team" and shown["mandatory"]

    # Refresh: a changed section becomes a new revision, nothing is duplicated.
    (handbook / "AGENTS.md").write_text(
        (handbook / "AGENTS.md").read_text().replace("under 400 lines", "under 250 lines")
    )
    refreshed = cli("memory", "context", "refresh", "team", "-f", "json")
    assert refreshed.exit_code == 0, refreshed.stderr
    assert (refreshed.json()["updated"], refreshed.json()["skipped"]) == (1, 1)
    shown = cli("memory", "source", style, "--scope", "context:team", "-f", "json").json()
    assert shown["revision"] == 2 and "under 250 lines" in shown["body"]
    assert _context_list(cli)[0]["memories"] == 2
    again = cli("memory", "context", "refresh", "team", "-f", "json").json()
    assert (again["created"], again["updated"], again["skipped"]) == (0, 0, 2)

    # A second add under the same name is a conflict, not a merge.
    twice = cli("memory", "context", "add", "team", "--from", str(handbook))
    assert twice.exit_code == 5 and "already exists" in twice.stderr

    removed = cli("memory", "context", "remove", "team", "--yes")
    assert removed.exit_code == 0, removed.stderr
    assert removed.stdout == "pruned context:team\n"
    assert removed.stderr.startswith("Removed the local table ")
    assert not (graphit_home / "memory" / "memory-context-team").exists()
    assert (handbook / "AGENTS.md").exists()  # the source is never touched
    assert _context_list(cli) == []
    gone = cli("memory", "context", "remove", "team", "--yes")
    assert gone.exit_code == 4


def test_names_are_validated(cli, graphit_home: Path) -> None:
    for bad in ("Team", "../x", "a/b", "_x", "x" * 65, ".hidden"):
        result = cli("memory", "context", "add", bad, "--from", str(FIXTURES / "notes"))
        assert result.exit_code == 3, bad
        assert result.stderr.startswith(f"Error: invalid context name {bad!r}")
    assert not (graphit_home / "memory").exists() or not any(
        p.name.startswith("memory-context") for p in (graphit_home / "memory").iterdir()
    )
    empty = graphit_home.parent / "empty"
    empty.mkdir()
    nothing = cli("memory", "context", "add", "empty", "--from", str(empty))
    assert (nothing.exit_code, nothing.stderr) == (
        3,
        f"Error: nothing to import in {empty} as notes\n",
    )
    assert not (graphit_home / "memory" / "memory-context-empty").exists()  # no half-made context
    assert _context_list(cli) == []
    both = cli("memory", "context", "add", "x", "--from", "a", "--project", OTHER_PROJECT)
    assert both.exit_code == 3 and "exactly one of --from PATH or --project ULID" in both.stderr


def test_attach_another_project_read_only(
    cli, project_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    # Another project on this machine, with memories of its own.
    monkeypatch.setenv("GRAPHIT_PROJECT_ID", OTHER_PROJECT)
    made = cli(
        "memory",
        "upsert",
        "-f",
        "json",
        "--title",
        "Backend retries",
        "--body",
        "Retry idempotent calls three times.",
        "--mandatory",
    )
    other_id = made.json()[0]["id"]
    monkeypatch.delenv("GRAPHIT_PROJECT_ID")

    missing = cli("memory", "context", "add", "ghost", "--project", "01JD00000000000000000000ZZ")
    assert missing.exit_code == 7 and "no memory table" in missing.stderr

    added = cli("memory", "context", "add", "backend", "--project", OTHER_PROJECT, "--recall")
    assert added.exit_code == 0, added.stderr
    assert added.stderr == f"Added context backend (project {OTHER_PROJECT}, read-only).\n"
    [entry] = _context_list(cli)
    assert (entry["kind"], entry["memories"], entry["recall"]) == ("project", 1, True)

    found = cli("memory", "list", "--scope", "context:backend", "-f", "json").json()
    assert [m["id"] for m in found] == [other_id]
    write = cli("memory", "upsert", "--scope", "context:backend", "--title", "x", "--body", "y")
    assert write.exit_code == 6
    assert write.stderr == (
        f"Error: context backend is attached read-only from project {OTHER_PROJECT}: "
        "write to that project instead\n"
    )
    import graphit_cli.embed

    loads: list[str] = []
    monkeypatch.setattr(graphit_cli.embed, "load_default", lambda: loads.append("model"))
    refreshed = cli("memory", "context", "refresh", "backend")
    assert refreshed.exit_code == 0 and "nothing to refresh" in refreshed.stderr
    assert refreshed.stderr.count("\n") == 1 and loads == []  # nothing to embed: no model

    removed = cli("memory", "context", "remove", "backend", "--yes")
    assert removed.exit_code == 0
    assert (
        removed.stderr == f"Removed the attachment of project {OTHER_PROJECT} (its table stays).\n"
    )
    monkeypatch.setenv("GRAPHIT_PROJECT_ID", OTHER_PROJECT)
    assert [m["id"] for m in cli("memory", "list", "-f", "json").json()] == [other_id]
    assert PROJECT_ID != OTHER_PROJECT


def test_an_unknown_context_is_refused_and_nothing_is_created(cli, graphit_home: Path) -> None:
    """A mistyped context name used to create an empty table and answer "No memories."."""
    for args in (
        ("list",),
        ("search", "retry policy"),
        ("upsert", "--title", "t", "--body", "b"),
    ):
        result = cli("memory", *args, "--scope", "context:tema")
        assert result.exit_code == 4, (args, result.stderr)
        assert result.stderr.startswith(
            "Error: no context 'tema' (see `graphit memory context list`"
        )
        assert result.stdout == ""
    assert not (graphit_home / "memory" / "memory-context-tema").exists()


def test_a_pruned_context_leaves_no_registry_entry_and_no_read_brings_it_back(
    cli, graphit_home: Path, tmp_path: Path
) -> None:
    """`prune context:NAME` removes the context whole (as `context remove`): it used to leave
    the registry entry behind ("missing" in `context list`), and a read then made a new, empty
    table under the old name."""
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    shutil.copy(FIXTURES / "agents" / "CLAUDE.md", handbook / "AGENTS.md")
    assert cli("memory", "context", "add", "team", "--from", str(handbook)).exit_code == 0
    table = graphit_home / "memory" / "memory-context-team"
    assert table.is_dir()
    pruned = cli("memory", "prune", "context:team", "--yes")
    assert pruned.exit_code == 0, pruned.stderr
    assert pruned.stdout == "pruned context:team\n"
    assert "registry entry" in pruned.stderr
    assert _context_list(cli) == []
    assert (
        "team"
        not in json.loads((graphit_home / "memory" / "contexts.json").read_text())["contexts"]
    )
    for args in (("list",), ("search", "style"), ("recall", "style"), ("mandatory",)):
        result = cli("memory", *args, "--scope", "context:team")
        assert result.exit_code == 4, (args, result.stderr)
        assert result.stderr.startswith("Error: no context 'team'")
    assert not table.exists()
    again = cli("memory", "context", "add", "team", "--from", str(handbook))
    assert again.exit_code == 0, again.stderr  # the name is free again


def test_no_read_creates_a_table(cli, graphit_home: Path) -> None:
    """Reads of a scope that has no table answer as an empty table would, and leave nothing
    behind: no table directory, no scope record."""
    memory_id = "01JD00000000000000000000AB"
    table = graphit_home / "memory" / f"memory-project-{PROJECT_ID}"
    for args, code in (
        (("list", "-f", "json"), 0),
        (("important", "-f", "json"), 0),
        (("search", "anything", "-f", "json"), 0),
        (("recall", "anything", "--scope", "project", "-f", "json"), 0),
        (("source", memory_id), 4),
        (("history", memory_id), 4),
        (("list", "--user", "-f", "json"), 0),
    ):
        result = cli("memory", *args)
        assert result.exit_code == code, (args, result.stdout, result.stderr)
        if code == 0:
            found = result.json()
            assert found == [] or (found["mandatory"] == [] and not found["search"]["hits"])
    assert not table.exists()
    assert not (graphit_home / "memory" / "memory-user-anonymous").exists()
    written = cli("memory", "upsert", "--title", "t", "--body", "b")
    assert written.exit_code == 0 and table.is_dir()  # the first write creates it
