"""Import and export through the CLI, on real tables: foreign formats (fixtures written for
these tests, with broken items among good ones), graphit's own round trip, idempotence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from graphit_cli.portability.importer import source_id
from tests.conftest import PROJECT_ID

FIXTURES = Path(__file__).parent / "fixtures"


def lines(stdout: str) -> list[list[str]]:
    return [line.split("\t") for line in stdout.splitlines()]


def memory(cli, memory_id: str, *scope: str) -> dict:
    result = cli("memory", "source", memory_id, "-f", "json", *scope)
    assert result.exit_code == 0, result.stderr
    return result.json()


def state(service) -> tuple[int, int]:
    return service.store.count(), service.store.version()


# --- foreign formats ----------------------------------------------------------------------


def test_agent_files_one_mandatory_memory_per_section(cli, service, tmp_path) -> None:
    # A copy outside any repository: a file inside one is also tagged with its path there
    # (tests/test_import_identity.py).
    source = tmp_path / "agents"
    shutil.copytree(FIXTURES / "agents", source)
    result = cli("memory", "import", str(source))
    assert result.exit_code == 3  # some sections were rejected; the others imported
    assert [(r[0], r[2], r[3]) for r in lines(result.stdout)] == [
        ("created", "Payments service", "AGENTS.md:1"),
        ("created", "Setup", "AGENTS.md:6"),
        ("created", "Testing", "AGENTS.md:11"),
        ("created", "Architecture decisions", "AGENTS.md:25"),
        ("created", "Constraints", "AGENTS.md:32"),
        ("created", "Style", "CLAUDE.md:3"),
        ("created", "Commit messages", "CLAUDE.md:7"),
        ("created", "Python style for the API and workers", ".cursor/rules/python.mdc:1"),
        ("created", "Security rules that apply to every change", ".cursor/rules/security.mdc:1"),
        ("created", "Cursor rules", ".cursorrules:1"),
    ]
    assert result.stderr.splitlines() == [
        "AGENTS.md:36: unknown type 'gossip': use one of fact, decision, convention, "
        "correction, preference, constraint, procedure, skill, tension",
        "AGENTS.md:42: section 'Release' is empty: skipped",
        ".cursor/rules/broken.mdc:3: malformed frontmatter: expected ',' or ']', but got ':'",
        f"{source} (agents): 10 created, 0 updated, 0 skipped, 3 rejected.",
    ]
    ids = {r[2]: r[1] for r in lines(result.stdout)}
    testing = memory(cli, ids["Testing"])
    assert (testing["type"], testing["tags"], testing["mandatory"]) == (
        "convention",
        ["agents.md"],
        True,
    )
    # The fenced `## comment` is not a heading; the ### subsection stays in its section.
    assert "## this is a comment inside a code block" in testing["body"]
    assert testing["body"].endswith(
        "Factories live in `tests/factories.py`; do not build models by hand."
    )
    decision = memory(cli, ids["Architecture decisions"])
    assert decision["type"] == "decision" and not decision["body"].startswith("Type:")
    assert memory(cli, ids["Constraints"])["type"] == "constraint"
    preamble = memory(cli, ids["Payments service"])
    assert preamble["body"].startswith("This repository holds the payments API")
    python = memory(cli, ids["Python style for the API and workers"])
    assert (python["important"], python["mandatory"]) == (True, False)
    assert python["tags"] == ["cursor", "src/py", "tests/py"]
    assert python["body"].endswith("Applies to: `src/**/*.py`, `tests/**/*.py`")
    security = memory(cli, ids["Security rules that apply to every change"])
    assert (security["important"], security["mandatory"]) == (False, True)
    legacy = memory(cli, ids["Cursor rules"])
    assert legacy["mandatory"] and legacy["body"].startswith("You are working on a payments")
    # The id is the stable source key's: file + heading.
    assert ids["Setup"] == source_id("agents:AGENTS.md#Setup")

    # Importing again changes nothing at all: no revision, no commit.
    before = state(service)
    again = cli("memory", "import", str(source))
    assert {r[0] for r in lines(again.stdout)} == {"skipped"}
    assert {r[4] for r in lines(again.stdout)} == {"unchanged"}
    assert state(service) == before


def test_reimport_of_an_edited_file_updates_instead_of_duplicating(
    cli, service, tmp_path: Path
) -> None:
    agents = tmp_path / "AGENTS.md"
    shutil.copy(FIXTURES / "agents" / "CLAUDE.md", agents)
    first = cli("memory", "import", str(agents))
    assert first.exit_code == 0, first.stderr
    ids = {r[2]: r[1] for r in lines(first.stdout)}
    agents.write_text(agents.read_text().replace("under 400 lines", "under 300 lines"))
    second = cli("memory", "import", str(agents), "-f", "json")
    assert second.exit_code == 0
    report = second.json()
    assert (report["created"], report["updated"], report["skipped"]) == (0, 1, 1)
    style = memory(cli, ids["Style"])
    assert style["revision"] == 2 and "under 300 lines" in style["body"]
    assert len(cli("memory", "list", "-f", "json").json()) == 2


def test_dry_run_writes_nothing(cli, service) -> None:
    cli("memory", "list")  # opens (creates) the table
    before = state(service)
    result = cli("memory", "import", str(FIXTURES / "notes"), "--dry-run", "-f", "json")
    assert result.exit_code == 3
    report = result.json()
    assert report["dry_run"] and report["created"] == 3
    assert [p["path"] for p in report["problems"]] == ["broken-yaml.md", "projects/bad-type.md"]
    assert state(service) == before
    assert cli("memory", "list", "-f", "json").json() == []


def test_mcp_memory_entities_with_observations_and_relations(cli) -> None:
    result = cli("memory", "import", str(FIXTURES / "mcp" / "memory.jsonl"), "--user")
    assert result.exit_code == 3
    assert [(r[0], r[2], r[3]) for r in lines(result.stdout)] == [
        ("created", "Dana Whitfield", "memory.jsonl:1"),
        ("created", "payments-api", "memory.jsonl:2"),
        ("created", "Use idempotency keys", "memory.jsonl:3"),
        ("created", "Kafka cluster", "memory.jsonl:9"),
    ]
    assert result.stderr.splitlines()[:2] == [
        "memory.jsonl:6: invalid JSON: Expecting ',' delimiter",
        "memory.jsonl:7: entity without a name: skipped",
    ]
    # A relation from an entity the file does not hold still shows on its known end.
    api = memory(cli, source_id("mcp-memory:payments-api"), "--user")
    assert api["body"].endswith(
        "Relations:\n- Dana Whitfield owns payments-api\n- payments-api depends on Postgres 16\n"
        "- Ghost Service calls payments-api"
    )
    dana = memory(cli, source_id("mcp-memory:Dana Whitfield"), "--user")
    assert dana["body"] == (
        "- Leads the payments team\n- Prefers async reviews over meetings\n"
        "- Based in Lisbon (UTC+0)\n\nRelations:\n- Dana Whitfield owns payments-api"
    )
    assert (dana["type"], dana["tags"]) == ("fact", ["mcp-memory", "person"])
    decision = memory(cli, source_id("mcp-memory:Use idempotency keys"), "--user")
    assert decision["type"] == "decision"


def test_mcp_memory_imports_every_entity_the_server_accepts(cli, tmp_path: Path) -> None:
    long_name = " ".join(["a-very-long-entity-name-word"] * 12)  # 347 characters
    records = [
        {"type": "entity", "name": "Alice", "entityType": "person", "observations": []},
        {"type": "entity", "name": long_name, "entityType": "concept", "observations": ["Big."]},
        {
            "type": "entity",
            "name": "Release",
            "entityType": "procedure",
            "observations": ["Steps:\n1. Tag\n   - signed\n2. Push", "Then announce."],
        },
        {"type": "relation", "from": "Alice", "to": "Release", "relationType": "runs"},
    ]
    path = tmp_path / "memory.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    result = cli("memory", "import", str(path), "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert (result.json()["created"], result.json()["problems"]) == (3, [])
    alice = memory(cli, source_id("mcp-memory:Alice"))
    assert alice["title"] == "Alice"
    assert alice["body"] == (
        "An entity of type person with no observations yet.\n\nRelations:\n- Alice runs Release"
    )
    big = memory(cli, source_id(f"mcp-memory:{long_name}"))
    assert len(big["title"]) <= 300 and big["title"].endswith("word…")
    assert long_name.startswith(big["title"][:-1])
    assert big["body"] == f"Name: {long_name}\n\n- Big."
    release = memory(cli, source_id("mcp-memory:Release"))
    # The relation shows on its target too; the observation's list keeps its indentation.
    assert release["body"] == (
        "- Steps:\n  1. Tag\n     - signed\n  2. Push\n- Then announce.\n\n"
        "Relations:\n- Alice runs Release"
    )
    assert release["type"] == "procedure"
    again = cli("memory", "import", str(path), "-f", "json").json()
    assert (again["created"], again["updated"], again["skipped"]) == (0, 0, 3)


def test_markdown_notes_frontmatter_or_first_heading(cli) -> None:
    result = cli("memory", "import", str(FIXTURES / "notes"), "--input-format", "notes")
    assert result.exit_code == 3
    assert sorted(r[3] for r in lines(result.stdout)) == [
        "preference.md:1",
        "projects/onboarding.md:1",
        "retry-policy.md:1",
    ]  # .obsidian/ is skipped
    assert result.stderr.splitlines()[:2] == [
        "broken-yaml.md:3: malformed frontmatter: expected ',' or ']', but got '<stream end>'",
        "projects/bad-type.md:3: unknown type 'meeting': use one of fact, decision, "
        "convention, correction, preference, constraint, procedure, skill, tension",
    ]
    retry = memory(cli, source_id("notes:retry-policy.md"))
    assert (retry["type"], retry["tags"]) == ("decision", ["reliability", "webhooks"])
    assert (retry["created_at"], retry["updated_at"]) == (
        "2026-03-14T00:00:00Z",
        "2026-09-02T10:15:00Z",
    )
    onboarding = memory(cli, source_id("notes:projects/onboarding.md"))
    assert onboarding["title"] == "Onboarding checklist"
    assert onboarding["body"].startswith("1. Ask for access")
    terse = memory(cli, source_id("notes:preference.md"))
    assert (terse["type"], terse["tags"], terse["important"]) == ("preference", ["style"], True)


def test_content_a_live_memory_already_has_is_skipped(cli) -> None:
    existing = cli(
        "memory",
        "upsert",
        "-f",
        "json",
        "--title",
        "Retry policy for outbound webhooks",
        "--body",
        "Retry with exponential backoff (1 s, 2 s, 4 s ... capped at 10 min) for 24 "
        "hours, then\npark the event in the dead-letter table for manual replay.",
        "-t",
        "decision",
        "--tag",
        "webhooks",
        "--tag",
        "reliability",
    ).json()[0]["id"]
    result = cli("memory", "import", str(FIXTURES / "notes" / "retry-policy.md"))
    assert result.exit_code == 0, result.stderr
    [row] = lines(result.stdout)
    assert row[0] == "skipped" and row[4] == f"same content as memory {existing}"
    assert len(cli("memory", "list", "-f", "json").json()) == 1


def test_bad_paths_and_formats(cli, tmp_path: Path) -> None:
    missing = cli("memory", "import", str(tmp_path / "nope.md"))
    assert (missing.exit_code, missing.stderr) == (
        3,
        f"Error: no such file or folder: {tmp_path / 'nope.md'}\n",
    )
    odd = tmp_path / "data.csv"
    odd.write_text("a,b\n")
    unknown = cli("memory", "import", str(odd))
    assert unknown.exit_code == 3 and "cannot tell the format" in unknown.stderr
    assert cli("memory", "import", str(odd), "--input-format", "yaml").exit_code == 2


@pytest.mark.parametrize("name", ["note.md", "memory.jsonl"])
def test_a_file_that_is_not_utf8_is_named_with_its_line(cli, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"# Title\n\nSome text here that is fine,\nand then \xff a latin-1 byte\n")
    result = cli("memory", "import", str(path))
    assert result.exit_code == 3
    # As `upsert` says it: the file, the line and the byte; no codec's byte offset.
    assert result.stderr.splitlines()[0] == (
        f"{name}:4: not UTF-8 text: byte 0xff (convert it first, e.g. `iconv -f latin1 -t utf-8`)"
    )
    upserted = cli("memory", "upsert", str(path))
    assert "byte 0xff on line 4" in upserted.stderr
    assert cli("memory", "list").stdout == ""


# --- graphit's own formats ----------------------------------------------------------------


def _history_fixture(cli) -> list[str]:
    """Memories with history: edited, flagged, deleted, revived; bodies with tricky text."""

    def up(*args: str) -> str:
        result = cli("memory", "upsert", "-f", "json", *args)
        assert result.exit_code == 0, result.stderr
        return str(result.json()[0]["id"])

    a = up("--title", "Use uv", "--body", "Install with uv.", "-t", "convention", "--mandatory")
    up("--id", a, "--body", "Install with uv, never pip.\n\n---\n\nCI too.")
    up("--id", a, "--important")
    b = up("--title", "Staging is read-only", "--body", "Writes go to the primary.", "--tag", "db")
    c = up("--title", "Old decision", "--body", "We used Redis for sessions.", "-t", "decision")
    up("--id", c, "--body", "We use Postgres for sessions now.")
    assert cli("memory", "delete", c, "--yes").exit_code == 0
    d = up("--title", "Revived", "--body", "First text.")
    assert cli("memory", "delete", d, "--yes").exit_code == 0
    up("--id", d, "--body", 'Back again with new text. Ünïcödé and "quotes" and [bold]x[/bold]')
    return [a, b, c, d]


def _outputs(cli, ids: list[str], *scope: str) -> dict[str, tuple[str, str, str]]:
    found = {}
    for i in ids:
        source = cli("memory", "source", i, *scope)
        found[i] = (
            source.stdout + source.stderr,
            cli("memory", "history", i, "-f", "markdown", *scope).stdout,
            cli("memory", "history", i, "-f", "json", *scope).stdout,
        )
    return found


@pytest.mark.parametrize("fmt", ["ndjson", "markdown"])
def test_export_with_history_round_trips_into_a_fresh_home(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    ids = _history_fixture(cli)
    before = _outputs(cli, ids)
    listed = cli("memory", "list", "-f", "markdown").stdout
    target = tmp_path / ("export.ndjson" if fmt == "ndjson" else "export")
    exported = cli("memory", "export", "--history", "-f", fmt, "-o", str(target))
    assert exported.exit_code == 0, exported.stderr
    assert exported.stderr == (
        f"Exported 3 memories (8 rows) from project:{PROJECT_ID} to {target}.\n"
    )
    if fmt == "markdown":
        assert sorted(p.name for p in target.glob("*.md")) == sorted(
            f"{i}.md" for i in ids if i != ids[2]
        )
        assert len(list(target.glob("history/*/*.md"))) == 5

    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path / "fresh-home"))
    first = cli("memory", "import", str(target), "-f", "json")
    assert first.exit_code == 0, first.stderr
    assert (first.json()["created"], first.json()["format"]) == (4, fmt)
    after = _outputs(cli, ids)
    if fmt == "ndjson":
        assert after == before  # byte-identical, JSON (microsecond timestamps) included
        assert cli("memory", "list", "-f", "markdown").stdout == listed
    else:  # Markdown carries timestamps to the second, as `source` prints them
        assert {i: v[:2] for i, v in after.items()} == {i: v[:2] for i, v in before.items()}

    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID))
    rows_version = state(service)
    second = cli("memory", "import", str(target), "-f", "json")
    assert (second.json()["created"], second.json()["updated"], second.json()["skipped"]) == (
        0,
        0,
        4,
    )
    assert state(service) == rows_version  # importing twice changes nothing: not even a commit
    assert _outputs(cli, ids) == after


def test_a_newer_export_moves_chains_forward_never_back(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "graphit-home"
    a, b, c, d = _history_fixture(cli)
    old = tmp_path / "old.ndjson"
    cli("memory", "export", "--history", "-o", str(old))
    cli("memory", "upsert", "--id", b, "--body", "Writes go to the primary in eu-west-1.")
    assert cli("memory", "delete", a, "--yes").exit_code == 0
    new = tmp_path / "new.ndjson"
    cli("memory", "export", "--history", "-o", str(new))
    expected = _outputs(cli, [a, b, c, d])

    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path / "other"))
    assert cli("memory", "import", str(old)).exit_code == 0
    report = cli("memory", "import", str(new), "-f", "json").json()
    assert (report["created"], report["updated"], report["skipped"]) == (0, 2, 2)
    assert _outputs(cli, [a, b, c, d]) == expected
    # The older export again: nothing goes back, and the report says why.
    stale = cli("memory", "import", str(old), "-f", "json").json()
    assert stale["updated"] == 0 and stale["created"] == 0
    reasons = {i["id"]: i["reason"] for i in stale["items"]}
    assert reasons[b] == "this table is at revision 2, the import at 1"
    assert reasons[d] == "unchanged"
    assert _outputs(cli, [a, b, c, d]) == expected
    # A local edit at the same revision number as the import's is kept, and reported.
    cli("memory", "upsert", "--id", d, "--body", "Edited here.")
    exported = [json.loads(line) for line in new.read_text().splitlines()]
    [other_edit] = [r for r in exported if r["id"] == d and r["current"]]
    clash = tmp_path / "clash.ndjson"
    clash.write_text(json.dumps({**other_edit, "revision": 3, "body": "Edited there."}) + "\n")
    kept = cli("memory", "import", str(clash), "-f", "json").json()
    assert kept["items"][0]["reason"] == "revision 3 differs from this table's; kept this table's"
    assert "Edited here." in cli("memory", "source", d).stdout
    assert home.exists()


def test_native_rows_with_errors_are_reported_per_line(cli, tmp_path: Path) -> None:
    ids = _history_fixture(cli)
    export = cli("memory", "export").stdout.splitlines()
    broken = [export[0], "{not json", json.dumps({**json.loads(export[1]), "type": "gossip"})]
    path = tmp_path / "broken.ndjson"
    path.write_text("\n".join(broken) + "\n")
    result = cli("memory", "import", str(path), "--dry-run")
    assert result.exit_code == 3
    assert result.stderr.splitlines()[:2] == [
        "broken.ndjson:2: invalid JSON: Expecting property name enclosed in double quotes",
        "broken.ndjson:3: unknown type 'gossip': use one of fact, decision, convention, "
        "correction, preference, constraint, procedure, skill, tension",
    ]
    assert len(ids) == 4


def test_vectors_travel_with_the_export(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service
    from tests.embedders import HashingEmbedder

    ids = _history_fixture(cli)
    service = open_service(Scope("project", PROJECT_ID))
    assert service.embed(HashingEmbedder()).embedded == 8
    path = tmp_path / "v.ndjson"
    assert cli("memory", "export", "--history", "--vectors", "-o", str(path)).exit_code == 0
    first = json.loads(path.read_text().splitlines()[0])
    assert first["embedding_model"] == "test/hashing-384" and len(first["embedding"]) == 384
    vectors = {r.key: r.embedding for r in service.store.export_rows(archived=True, vectors=True)}

    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path / "fresh"))
    assert cli("memory", "import", str(path)).exit_code == 0
    fresh = open_service(Scope("project", PROJECT_ID))
    assert fresh.store.embedding_model() == "test/hashing-384"
    copied = {r.key: r.embedding for r in fresh.store.export_rows(archived=True, vectors=True)}
    assert copied.keys() == vectors.keys()
    for key, vector in vectors.items():
        assert copied[key] == pytest.approx(vector)
    assert len(ids) == 4


def test_export_refuses_a_non_empty_folder(cli, tmp_path: Path) -> None:
    _history_fixture(cli)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    result = cli("memory", "export", "-f", "markdown", "-o", str(tmp_path / "out"))
    assert (result.exit_code, result.stderr) == (
        3,
        f"Error: {tmp_path / 'out'} exists and is not an empty folder: choose a new path\n",
    )
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["keep.txt"]
