"""The memory CLI end to end (in-process through Typer's runner), on real LanceDB tables."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ID, Result, run_cli


def upsert(cli, *args: str, input: str | None = None) -> dict:
    result = cli("memory", "upsert", "-f", "json", *args, input=input)
    assert result.exit_code == 0, result.stderr
    [item] = result.json()
    return item


def table_state(service) -> tuple[int, int]:
    """(rows, table version): a failed command must change neither."""
    return service.store.count(), service.store.version()


@pytest.mark.smoke
def test_create_update_source_history(cli) -> None:
    created = upsert(
        cli,
        "--title",
        "Use uv",
        "--body",
        "Install with uv.",
        "-t",
        "convention",
        "--tag",
        "python",
        "--tag",
        "tooling",
    )
    assert created["action"] == "created" and created["revision"] == 1
    memory_id = created["id"]

    updated = upsert(cli, "--id", memory_id, "--body", "Install with uv, never pip.")
    assert (updated["action"], updated["revision"], updated["key"]) == ("updated", 2, memory_id)

    again = upsert(cli, "--id", memory_id, "--body", "Install with uv, never pip.")
    assert again["action"] == "unchanged" and again["revision"] == 2

    source = cli("memory", "source", memory_id)
    assert source.exit_code == 0
    assert source.stdout.startswith(
        f'---\nid: "{memory_id}"\ntitle: "Use uv"\ntype: "convention"\n'
    )
    assert 'tags: ["python", "tooling"]\n' in source.stdout
    assert "revision: 2\n" in source.stdout and 'updated_by: "tester"\n' in source.stdout
    assert source.stdout.endswith("---\n\n# Use uv\n\nInstall with uv, never pip.\n")
    assert cli("memory", "source", memory_id).stdout == source.stdout  # byte-stable

    chain = cli("memory", "history", memory_id, "-f", "json").json()
    assert [m["revision"] for m in chain] == [1, 2]
    archived, live = chain
    assert archived["superseded"] and not archived["current"]
    assert archived["body"] == "Install with uv."
    assert archived["next"] == memory_id and live["previous"] == archived["key"]

    old = cli("memory", "source", archived["key"])
    assert old.exit_code == 0
    assert f'revision_id: "{archived["revision_id"]}"\nsuperseded: true\n' in old.stdout
    assert f'next: "{memory_id}"' in old.stdout
    assert old.stdout.endswith("# Use uv\n\nInstall with uv.\n")


def test_markdown_round_trip_through_upsert(cli, tmp_path: Path) -> None:
    memory_id = upsert(
        cli, "--title", "Prefer table-driven Go tests", "--body", "## What\nUse tables."
    )["id"]
    text = cli("memory", "source", memory_id).stdout
    edited = tmp_path / "m.md"
    edited.write_text(
        text.replace("Use tables.", "Use table-driven cases.").replace(
            "important: false", "important: true"
        )
    )
    result = upsert(cli, str(edited))
    assert (result["id"], result["action"], result["revision"]) == (memory_id, "updated", 2)
    shown = cli("memory", "source", memory_id).stdout
    assert "important: true" in shown and shown.endswith("## What\nUse table-driven cases.\n")
    # Feeding the same file again is a no-op, even though it names revision 1.
    assert (
        upsert(cli, "-", input=cli("memory", "source", memory_id).stdout)["action"] == "unchanged"
    )


def test_stale_revision_in_frontmatter_is_a_conflict(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "one")["id"]
    stale = cli("memory", "source", memory_id).stdout
    upsert(cli, "--id", memory_id, "--body", "two")
    result = cli("memory", "upsert", "-", input=stale.replace("one", "three"))
    assert result.exit_code == 5
    assert result.stderr.startswith(f"Error: memory {memory_id} is at revision 2, not 1")
    assert cli("memory", "source", memory_id).stdout.endswith("two\n")


def test_ndjson_batch_is_idempotent_by_id(cli, service) -> None:
    ids = ["01JD00000000000000000000A1", "01JD00000000000000000000A2", "01JD00000000000000000000A3"]
    lines = "\n".join(
        json.dumps(
            {
                "id": i,
                "title": f"Fact {n}",
                "body": f"Body {n}",
                "tags": ["batch"],
                "created_at": f"2026-01-0{n}T00:00:00Z",
            }
        )
        for n, i in enumerate(ids, start=1)
    )
    first = cli("memory", "upsert", "-f", "json", "-", input=lines)
    assert first.exit_code == 0, first.stderr
    assert [r["action"] for r in first.json()] == ["created"] * 3
    assert first.stderr.strip() == "3 created"
    version = service.store.version()
    second = cli("memory", "upsert", "-f", "json", "-", input=lines)
    assert [r["action"] for r in second.json()] == ["unchanged"] * 3
    assert service.store.version() == version  # nothing written
    listed = cli("memory", "list", "-f", "json", "--tag", "batch").json()
    assert [m["id"] for m in listed] == list(reversed(ids))  # newest first
    assert listed[-1]["created_at"] == "2026-01-01T00:00:00Z"


def test_json_array_batch_with_a_repeated_id_applies_in_order(cli) -> None:
    memory_id = "01JD00000000000000000000B1"
    batch = [{"id": memory_id, "title": "T", "body": "first"}, {"id": memory_id, "body": "second"}]
    result = cli("memory", "upsert", "-f", "json", "-", input=json.dumps(batch))
    assert [r["action"] for r in result.json()] == ["created", "updated"]
    assert cli("memory", "source", memory_id).stdout.endswith("second\n")


def test_list_canonical_order_and_filters(cli) -> None:
    normal_old = upsert(cli, "--title", "normal old", "--body", "b", "--tag", "x")["id"]
    mandatory = upsert(cli, "--title", "mandatory", "--body", "b", "--mandatory")["id"]
    important = upsert(cli, "--title", "important", "--body", "b", "--important", "-t", "decision")[
        "id"
    ]
    normal_new = upsert(cli, "--title", "normal new", "--body", "b", "--tag", "x")["id"]
    both = upsert(cli, "--title", "both", "--body", "b", "--important", "--mandatory")["id"]

    def ids(*args: str) -> list[str]:
        result = cli("memory", "list", "-f", "json", *args)
        assert result.exit_code == 0, result.stderr
        return [m["id"] for m in result.json()]

    assert ids() == [both, mandatory, important, normal_new, normal_old]
    assert ids("--important") == [both, important]
    assert ids("--mandatory") == [both, mandatory]
    assert ids("--type", "decision") == [important]
    assert ids("--tag", "x") == [normal_new, normal_old]
    assert ids("--limit", "2") == [both, mandatory]
    important_cmd = cli("memory", "important", "-f", "ndjson")
    assert [json.loads(line)["id"] for line in important_cmd.stdout.splitlines()] == [
        both,
        important,
    ]
    mandatory_md = cli("memory", "mandatory").stdout
    assert mandatory_md.count("\n---\n\n# ") == 2 and "# both\n\nb\n" in mandatory_md


def test_delete_keeps_final_archive_and_revive_continues_chain(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "one")["id"]
    upsert(cli, "--id", memory_id, "--body", "two")
    deleted = cli("memory", "delete", memory_id, "--yes", "-f", "json")
    assert deleted.exit_code == 0 and deleted.json()[0]["action"] == "deleted"
    gone = cli("memory", "source", memory_id)
    assert gone.exit_code == 4 and "was deleted" in gone.stderr
    chain = cli("memory", "history", memory_id, "-f", "json").json()
    assert [(m["revision"], m["current"]) for m in chain] == [(1, False), (2, False)]
    assert chain[-1]["next"] is None
    assert cli("memory", "list", "-f", "json").json() == []
    assert cli("memory", "delete", memory_id, "--yes").exit_code == 4

    revived = upsert(cli, "--id", memory_id, "--body", "three")
    assert (revived["action"], revived["revision"]) == ("updated", 3)
    chain = cli("memory", "history", memory_id, "-f", "json").json()
    assert [m["revision"] for m in chain] == [1, 2, 3]
    assert chain[1]["next"] == memory_id and chain[2]["previous"] == chain[1]["key"]


def test_delete_refuses_without_yes_when_not_interactive(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "b")["id"]
    result = cli("memory", "delete", memory_id)
    assert result.exit_code == 2 and "--yes" in result.stderr
    assert cli("memory", "source", memory_id).exit_code == 0


@pytest.mark.parametrize(
    ("args", "stdin", "code", "message"),
    [
        (["upsert", "--title", "  ", "--body", "b"], None, 3, "title must not be empty"),
        (["upsert", "--title", "T", "--body", "\n \n"], None, 3, "body must not be empty"),
        (
            ["upsert", "--title", "T", "--body", "b", "--tag", "it's"],
            None,
            3,
            'invalid tag "it\'s"',
        ),
        (
            ["upsert", "--title", "T", "--body", "b", "--tag", "x' OR '1'='1"],
            None,
            3,
            "invalid tag",
        ),
        (["upsert", "--title", "T", "--body", "b", "--tag", "50%"], None, 3, "invalid tag '50%'"),
        (["upsert", "--title", "T", "--body", "b", "--tag", "a;b"], None, 3, "invalid tag 'a;b'"),
        (["upsert", "--title", "T", "--body", "b", "--tag", "a--b"], None, 3, "invalid tag 'a--b'"),
        (["upsert", "--id", "x' OR '1'='1", "--body", "b"], None, 3, "invalid memory id"),
        (["upsert", "--id", "../../etc", "--body", "b"], None, 3, "invalid memory id"),
        (["upsert", "-"], "---\ntitle: [unclosed\n---\nbody\n", 3, "malformed frontmatter"),
        (["upsert", "-"], "---\ntitle: T\nbody\n", 3, "frontmatter is not closed"),
        (["upsert", "-"], "---\n- a list\n---\nbody\n", 3, "frontmatter must be a YAML mapping"),
        (["upsert", "-"], "---\ntitle: T\ncolour: red\n---\nbody\n", 3, "unknown field(s) colour"),
        (["upsert", "-"], '{"title": "T", "body": ', 3, "invalid JSON"),
        (
            ["upsert", "-"],
            '{"title": "T", "body": "b"}\n{"title": }\n',
            3,
            "invalid NDJSON at line 2",
        ),
        (
            ["upsert", "-"],
            '[{"title": "T", "body": "b"}, {"title": "U"}]',
            3,
            "record 2: a new memory needs a title and a body",
        ),
        (["upsert", "-"], "just some words", 3, "expected Markdown with YAML frontmatter"),
        (["source", "01JD0000000000000000000999"], None, 4, "no memory 01JD0000000000000000000999"),
        (["source", "nope'"], None, 3, "invalid memory id"),
        (["list", "--tag", "a'b"], None, 3, "invalid tag"),
        (["list", "--scope", "context:../escape"], None, 3, "invalid context name '../escape'"),
        (["list", "--scope", "elsewhere"], None, 3, "unknown scope 'elsewhere'"),
    ],
)
def test_bad_input_gets_one_line_error_and_changes_nothing(
    cli,
    service,
    args: list[str],
    stdin: str | None,
    code: int,
    message: str,
) -> None:
    upsert(cli, "--title", "Existing", "--body", "untouched", "--tag", "keep")
    before = table_state(service)
    result: Result = cli("memory", *args, input=stdin)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr
    assert table_state(service) == before
    assert not (Path(service.store.uri).parent / "memory-context-..").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["upsert", "--title", "T", "--body", "b", "-t", "opinion"],
            "Invalid value for '--type' / '-t': unknown type 'opinion': use fact, decision, "
            "convention, correction, preference, constraint, procedure, skill or tension",
        ),
        (
            ["list", "--type", "Fact", "--type", "nonsense"],
            "Invalid value for '--type' / '-t': unknown type 'nonsense': use fact,",
        ),
        (
            ["search", "x", "--mode", "fuzzy"],
            "Invalid value for '--mode': unknown search mode 'fuzzy': use auto, hybrid, fts or "
            "vector\n",
        ),
        (
            ["list", "-f", "xml"],
            "Invalid value for '--format' / '-f' (env var: 'GRAPHIT_FORMAT'): unknown format "
            "'xml': use table, markdown, json or ndjson\n",
        ),
    ],
)
def test_choices_are_usage_errors_in_plain_words(cli, service, args, message) -> None:
    before = table_state(service)
    result = cli("memory", *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert f"\nError: {message}" in result.stderr
    assert "Value error" not in result.stderr
    assert table_state(service) == before


def test_choices_are_case_insensitive_and_complete_on_tab(cli, project_dir: Path) -> None:
    from tests.conftest import run_graphit

    upsert(cli, "--title", "T", "--body", "b", "-t", "Decision")
    assert [m["type"] for m in cli("memory", "list", "-t", "DECISION", "-f", "JSON").json()] == [
        "decision"
    ]
    for words, expected in [
        ("graphit memory search q --mode ", ["auto", "hybrid", "fts", "vector"]),
        ("graphit memory list --type con", ["convention", "constraint"]),
        ("graphit memory list -f ", ["table", "markdown", "json", "ndjson"]),
    ]:
        completed = run_graphit(
            cwd=project_dir,
            env={
                "_GRAPHIT_COMPLETE": "complete_bash",
                "COMP_WORDS": words,
                "COMP_CWORD": str(len(words.split(" ")) - 1),
            },
        )
        assert completed.stdout.split() == expected, (words, completed.stderr)


def test_revision_of_another_memory_is_not_found(cli) -> None:
    first = upsert(cli, "--title", "A", "--body", "one")["id"]
    upsert(cli, "--id", first, "--body", "two")
    second = upsert(cli, "--title", "B", "--body", "x")["id"]
    archived_key = cli("memory", "history", first, "-f", "json").json()[0]["key"]
    revision_id = archived_key.split("/")[1]
    result = cli("memory", "source", f"{second}/{revision_id}")
    assert result.exit_code == 4
    expected = f"Error: memory {second} has no revision {revision_id}: "
    assert result.stderr == expected + f"see `graphit memory history {second}`\n"


def test_outside_a_project_needs_user_scope(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "not-a-project"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = cli("memory", "list")
    assert result.exit_code == 8 and "not inside a graphit project" in result.stderr
    created = upsert(
        cli, "--user", "--title", "Prefer short answers", "--body", "Be terse.", "-t", "preference"
    )
    listed = cli("memory", "list", "--user", "-f", "json").json()
    assert [m["id"] for m in listed] == [created["id"]] and listed[0]["scope"] == "user:anonymous"


def test_a_ceiling_directory_stops_the_walk_up_to_a_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graphit.lock.json in a shared scratch directory (another run's, in /tmp) is not the
    project of the directories below it once GRAPHIT_CEILING_DIRECTORIES names that directory;
    the hooks' and thin commands' walk (environ.lock_dir) and config's agree."""
    from graphit_cli import config, environ

    scratch = tmp_path / "scratch"
    inner = scratch / "run" / "work"
    inner.mkdir(parents=True)
    (scratch / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
    monkeypatch.chdir(inner)
    monkeypatch.setenv("GRAPHIT_CEILING_DIRECTORIES", str(tmp_path))
    assert config.find_project_lock() == scratch / "graphit.lock.json"
    monkeypatch.setenv("GRAPHIT_CEILING_DIRECTORIES", f"relative/ignored{os.pathsep}{scratch}")
    assert config.find_project_lock() is None
    assert environ.lock_dir(str(inner)) is None
    assert environ.lock_dir(str(scratch)) == str(scratch)  # the start is always looked at
    result = run_cli(["memory", "list"])
    assert result.exit_code == 8 and "not inside a graphit project" in result.stderr


def test_project_found_by_walking_up_and_env_override(
    cli, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = project_dir / "a" / "b"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    created = upsert(cli, "--title", "T", "--body", "b")
    assert cli("memory", "list", "-f", "json").json()[0]["scope"] == f"project:{PROJECT_ID}"
    other = "01JD0000000000000000000OTH".replace("O", "0")
    monkeypatch.setenv("GRAPHIT_PROJECT_ID", other)
    assert cli("memory", "list", "-f", "json").json() == []
    monkeypatch.delenv("GRAPHIT_PROJECT_ID")
    assert cli("memory", "list", "-f", "json").json()[0]["id"] == created["id"]


def test_scope_table_layout_and_reference_lock(cli, graphit_home: Path) -> None:
    upsert(cli, "--title", "T", "--body", "b")
    upsert(cli, "--user", "--title", "U", "--body", "b")
    memory_root = graphit_home / "memory"
    assert (memory_root / f"memory-project-{PROJECT_ID}" / "memory.lance").is_dir()
    assert (memory_root / "memory-user-anonymous" / "memory.lance").is_dir()
    refs = json.loads((memory_root / "scopes.lock").read_text())["scopes"]
    assert set(refs) == {f"project:{PROJECT_ID}", "user:anonymous"}
    assert refs["user:anonymous"]["uri"] == str(memory_root / "memory-user-anonymous")


def test_init_creates_lock_once(cli, tmp_path: Path) -> None:
    target = tmp_path / "fresh"
    target.mkdir()
    first = cli("init", str(target))
    assert first.exit_code == 0 and len(first.stdout.strip()) == 26
    lock = json.loads((target / "graphit.lock.json").read_text())
    assert lock == {"project": {"id": first.stdout.strip()}}
    second = cli("init", str(target))
    assert second.stdout == first.stdout and "already exists" in second.stderr


def test_user_text_prints_as_written(cli) -> None:
    body = "[bold]not bold[/bold] and `code` and $HOME"
    memory_id = upsert(cli, "--title", "[red]Markup[/red]", "--body", body)["id"]
    assert cli("memory", "source", memory_id).stdout.endswith(f"# [red]Markup[/red]\n\n{body}\n")
    table = cli("memory", "list", "-f", "table").stdout
    assert "[red]Markup[/red]" in table


def test_flag_only_change_is_a_revision(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "b")["id"]
    flagged = upsert(cli, "--id", memory_id, "--mandatory")
    assert (flagged["action"], flagged["revision"]) == ("updated", 2)
    shown = cli("memory", "source", memory_id).stdout
    assert "mandatory: true" in shown and "important: false" in shown


def test_debug_shows_traceback(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphit_cli.errors import NotFound

    monkeypatch.setenv("GRAPHIT_DEBUG", "1")
    with pytest.raises(NotFound):
        cli("memory", "source", "01JD0000000000000000000999")


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frontmatter", "title", "tags"),
    [
        ("title: T\ntags: [no, ci]", "T", ["ci", "no"]),
        ("title: no", "no", []),
        ("title: yes\ntags: [on, off, 'y']", "yes", ["off", "on", "y"]),
        ("title: 2024-01-01", "2024-01-01", []),
        ("title: 1.0", "1.0", []),
        ("title: 1.10\ntags: [3.0, 2024-01-01]", "1.10", ["2024-01-01", "3.0"]),
        ("title: 0o17\ntags: null", "0o17", []),
    ],
)
def test_yaml_text_fields_load_as_written(
    cli, frontmatter: str, title: str, tags: list[str]
) -> None:
    result = cli("memory", "upsert", "-f", "json", "-", input=f"---\n{frontmatter}\n---\nbody\n")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    [written] = result.json()
    shown = cli("memory", "source", written["id"], "-f", "json").json()
    assert (shown["title"], shown["tags"], shown["important"]) == (title, tags, False)


def test_yaml_flags_still_read_as_booleans(cli) -> None:
    text = "---\ntitle: T\nimportant: true\nmandatory: false\nrevision: 1\n---\nbody\n"
    [written] = cli("memory", "upsert", "-f", "json", "-", input=text).json()
    shown = cli("memory", "source", written["id"], "-f", "json").json()
    assert (shown["important"], shown["mandatory"]) == (True, False)


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (
            ["search", "caf\udce9"],
            None,
            "Error: QUERY is not valid UTF-8 text: byte 0xe9\n",
        ),
        (
            ["upsert", "--title", "T\udcff", "--body", "b"],
            None,
            "Error: --title is not valid UTF-8 text: byte 0xff\n",
        ),
        (
            ["list", "--tag", "ok", "--tag", "caf\udce9"],
            None,
            "Error: --tag is not valid UTF-8 text: byte 0xe9\n",
        ),
        (
            ["upsert", "-"],
            "---\ntitle: caf\xe9\n---\nbody\n".encode("latin-1"),
            "Error: stdin is not UTF-8 text: byte 0xe9 on line 2 "
            "(convert it first, e.g. `iconv -f latin1 -t utf-8`)\n",
        ),
        (
            ["upsert", "-"],
            b'{"title": "T", "body": "b"}\n{"title": "caf\xe9", "body": "b"}\n',
            "Error: stdin is not UTF-8 text: byte 0xe9 on line 2 "
            "(convert it first, e.g. `iconv -f latin1 -t utf-8`)\n",
        ),
    ],
)
def test_non_utf8_input_says_what_is_wrong(cli, service, args, stdin, message) -> None:
    upsert(cli, "--title", "Existing", "--body", "untouched")
    before = table_state(service)
    result = cli("memory", *args, input=stdin)
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", message)
    assert table_state(service) == before


def test_non_utf8_file_says_what_is_wrong(cli, service, tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("# Caf\xe9\n\nbody\n".encode("latin-1"))
    before = table_state(service)
    result = cli("memory", "upsert", str(path))
    assert (result.exit_code, result.stdout) == (3, "")
    assert result.stderr == (
        f"Error: {path} is not UTF-8 text: byte 0xe9 on line 1 "
        "(convert it first, e.g. `iconv -f latin1 -t utf-8`)\n"
    )
    assert table_state(service) == before


def test_answering_no_at_the_delete_prompt_deletes_nothing(
    cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.cli import common

    memory_id = upsert(cli, "--title", "Keep me", "--body", "b")["id"]
    monkeypatch.setattr(common, "stdin_is_interactive", lambda: True)
    result = cli("memory", "delete", memory_id, input="n\n")
    # CliRunner echoes the typed answer to stdout; the prompt itself goes to stderr.
    assert (result.exit_code, result.stdout) == (0, " n\n")
    assert result.stderr == f"Delete {memory_id} ('Keep me')? [y/N]:Aborted; nothing deleted.\n"
    assert cli("memory", "source", memory_id).exit_code == 0
    deleted = cli("memory", "delete", memory_id, "-f", "json", input="y\n")
    echo, data = deleted.stdout.split("\n", 1)
    assert deleted.exit_code == 0 and echo == " y"
    assert json.loads(data)[0]["action"] == "deleted"


def test_batch_without_ids_run_twice_warns_about_duplicates(cli) -> None:
    lines = "".join(json.dumps({"title": f"Fact {n}", "body": f"Body {n}"}) + "\n" for n in (1, 2))
    first = cli("memory", "upsert", "-f", "json", "-", input=lines)
    assert first.exit_code == 0 and first.stderr == "2 created\n"
    ids = [r["id"] for r in first.json()]
    second = cli("memory", "upsert", "-f", "json", "-", input=lines)
    assert second.exit_code == 0
    assert second.stderr == (
        f'Warning: record 1 repeats memory {ids[0]} (\'Fact 1\'); give it "id": "{ids[0]}" '
        "to update that memory instead (written anyway as a new memory)\n"
        f'Warning: record 2 repeats memory {ids[1]} (\'Fact 2\'); give it "id": "{ids[1]}" '
        "to update that memory instead (written anyway as a new memory)\n"
        "2 created\n"
    )


def test_upserting_a_sourced_file_twice_is_a_no_op(cli, service, tmp_path: Path) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "one")["id"]
    edited = tmp_path / "m.md"
    edited.write_text(cli("memory", "source", memory_id).stdout.replace("one", "two"))
    assert upsert(cli, str(edited))["action"] == "updated"
    version = service.store.table.version
    again = cli("memory", "upsert", "-f", "json", str(edited))  # still names revision 1
    assert (again.exit_code, again.stderr) == (0, "")
    assert [(r["action"], r["revision"]) for r in again.json()] == [("unchanged", 2)]
    assert service.store.table.version == version


def history_lines(cli, memory_id: str) -> list[str]:
    shown = cli("memory", "history", memory_id, "-f", "table")
    assert shown.exit_code == 0, shown.stderr
    return shown.stdout.splitlines()[1:]


def test_history_keeps_a_delete_after_the_memory_is_restored(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "one")["id"]
    assert cli("memory", "delete", memory_id, "--yes").exit_code == 0
    final = cli("memory", "history", memory_id, "-f", "json").json()[-1]
    assert cli("memory", "restore", final["key"]).exit_code == 0
    assert [line.split()[1:3] for line in history_lines(cli, memory_id)] == [
        ["1", "deleted"],
        ["2", "current"],
    ]


def test_restore_makes_an_old_revision_current_as_a_new_revision(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "one", "--tag", "a", "--important")["id"]
    upsert(cli, "--id", memory_id, "--title", "U", "--body", "two", "--tag", "b")
    upsert(cli, "--id", memory_id, "--no-important")
    first = cli("memory", "history", memory_id, "-f", "json").json()[0]
    result = cli("memory", "restore", first["key"], "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert [(r["action"], r["revision"]) for r in result.json()] == [("updated", 4)]
    shown = cli("memory", "source", memory_id, "-f", "json").json()
    assert (shown["title"], shown["body"], shown["tags"], shown["important"]) == (
        "T",
        "one",
        ["a"],
        True,
    )
    chain = cli("memory", "history", memory_id, "-f", "json").json()
    assert [m["revision"] for m in chain] == [1, 2, 3, 4]
    assert chain[1]["body"] == "two"  # nothing in between is lost
    again = cli("memory", "restore", first["key"], "-f", "json")
    assert again.json()[0]["action"] == "unchanged"


def test_restore_revives_a_deleted_memory_and_refuses_a_bare_id(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "one")["id"]
    upsert(cli, "--id", memory_id, "--body", "two")
    assert cli("memory", "delete", memory_id, "--yes").exit_code == 0
    first = cli("memory", "history", memory_id, "-f", "json").json()[0]
    revived = cli("memory", "restore", first["key"], "-f", "json")
    # back first as it was deleted (revision 3, so the history keeps the delete), then revision
    # 1's text as revision 4
    assert [(r["action"], r["revision"]) for r in revived.json()] == [("updated", 4)]
    assert cli("memory", "source", memory_id).stdout.endswith("# T\n\none\n")
    states = [line.split()[2] for line in history_lines(cli, memory_id)]
    assert states == ["superseded", "deleted", "superseded", "current"]
    bare = cli("memory", "restore", memory_id)
    assert (bare.exit_code, bare.stdout) == (3, "")
    assert bare.stderr == (
        f"Error: give the revision to restore as {memory_id}/<revision-id> "
        f"(see `graphit memory history {memory_id}`)\n"
    )
    missing = cli("memory", "restore", f"{memory_id}/01JD0000000000000000000999")
    assert missing.exit_code == 4 and "has no revision" in missing.stderr


# --- output ----------------------------------------------------------------------------------

LONG_TITLE = "Postgres replicas lag behind the primary " + "by several seconds " * 8 + "postgres"


def test_piped_table_is_never_cut(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # a narrow terminal must not matter when piped
    memory_id = upsert(cli, "--title", LONG_TITLE, "--body", "b")["id"]
    listed = cli("memory", "list", "-f", "table")
    assert listed.exit_code == 0
    assert f"  {LONG_TITLE}\n" in listed.stdout and "…" not in listed.stdout
    scopes = cli("memory", "scopes", "-f", "table")
    uri = json.loads(cli("memory", "scopes", "-f", "json").stdout)[0]["uri"]
    assert scopes.stdout.rstrip("\n").endswith(uri)
    history = cli("memory", "history", memory_id, "-f", "table").stdout
    assert history.rstrip("\n").endswith(LONG_TITLE)


def test_table_on_a_terminal_is_cut_between_words() -> None:
    from graphit_cli.formats import render

    text = render.table(["ID", "TITLE"], [["x", "## What Use table-driven cases for Go"]], width=30)
    assert text == "ID  TITLE\nx   ## What Use table-driven…\n"


def test_history_timestamps_match_list(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "b")["id"]
    listed = cli("memory", "list", "-f", "table").stdout.splitlines()[1]
    history = cli("memory", "history", memory_id, "-f", "table").stdout.splitlines()[1]
    updated = cli("memory", "source", memory_id, "-f", "json").json()["updated_at"]
    short = updated[:16].replace("T", " ")
    assert f"  {short}  " in listed and f"  {short}  " in history


@pytest.mark.parametrize("command", ["upsert", "delete"])
def test_writes_honour_format(cli, command: str) -> None:
    def write(fmt: str) -> Result:
        memory_id = upsert(cli, "--title", "Use uv", "--body", "b", "--important")["id"]
        if command == "delete":
            return cli("memory", "delete", memory_id, "--yes", "-f", fmt)
        return cli("memory", "upsert", "--id", memory_id, "--body", "c", "-f", fmt)

    action, revision = ("deleted", 1) if command == "delete" else ("updated", 2)
    as_json = write("json")
    [item] = as_json.json()
    assert {k: item[k] for k in ("action", "revision", "title", "important", "mandatory")} == {
        "action": action,
        "revision": revision,
        "title": "Use uv",
        "important": True,
        "mandatory": False,
    }
    assert item["scope"] == f"project:{PROJECT_ID}"
    as_ndjson = write("ndjson")
    assert json.loads(as_ndjson.stdout)["action"] == action and as_ndjson.stdout.count("\n") == 1
    table = write("table").stdout.splitlines()
    assert table[0].split() == ["ACTION", "KEY", "REV", "FLAGS", "TITLE"]
    assert table[1].split()[0] == action and table[1].endswith(f"{revision}    -I     Use uv")
    markdown = write("markdown").stdout
    assert markdown.startswith("---\nid: ") and f'\naction: "{action}"\n---\n\n# Use uv\n' in (
        markdown
    )


def test_source_as_table_is_a_table(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "line one\nline two", "--tag", "a")["id"]
    lines = cli("memory", "source", memory_id, "-f", "table").stdout.splitlines()
    assert lines[0].split() == ["FIELD", "VALUE"]
    assert lines[1].split() == ["id", memory_id]
    assert lines[2].split() == ["title", "T"] and lines[4].split() == ["tags", "a"]
    assert lines[-2].split() == ["body", "line", "one"]
    assert lines[-1] == " " * lines[-2].index("line one") + "line two"
    assert not any(line.startswith(("---", "# ")) for line in lines)


@pytest.mark.parametrize(
    ("args", "notice"),
    [
        (["list", "--tag", "nosuch"], "No memories.\n"),
        (["important"], "No important memories.\n"),
        (["mandatory"], "No mandatory memories.\n"),
        # A query unlike the memory in words and meaning: every write now has its vector.
        (["search", "xylophone quantum banana"], "No matches.\n"),
    ],
)
@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "ndjson"])
def test_empty_listings_say_so_on_stderr(cli, args: list[str], notice: str, fmt: str) -> None:
    upsert(cli, "--title", "Something", "--body", "else")
    result = cli("memory", *args, "-f", fmt)
    assert result.exit_code == 0
    assert result.stdout == ("[]\n" if fmt == "json" else "")
    assert result.stderr.endswith(notice)


def test_delete_without_yes_when_piped_is_one_clean_line(cli) -> None:
    memory_id = upsert(cli, "--title", "T", "--body", "b")["id"]
    result = cli("memory", "delete", memory_id)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "Error: refusing to delete without --yes when not interactive\n"


def test_upsert_help_documents_the_limits(cli) -> None:
    text = " ".join(cli("memory", "upsert", "--help").stdout.split())
    assert "a body at most 1,000,000 characters" in text
    assert "the `# Title` line that opens the body is the title" in text


def test_editing_the_title_heading_renames_the_memory(cli, tmp_path: Path) -> None:
    memory_id = upsert(cli, "--title", "Old name", "--body", "## What\nthe body")["id"]
    edited = tmp_path / "m.md"
    edited.write_text(cli("memory", "source", memory_id).stdout.replace("# Old name", "# New name"))
    result = upsert(cli, str(edited))
    assert (result["action"], result["title"]) == ("updated", "New name")
    shown = cli("memory", "source", memory_id).stdout
    assert 'title: "New name"' in shown
    assert shown.endswith("---\n\n# New name\n\n## What\nthe body\n")  # no second H1


@pytest.mark.slow
def test_demo_explains_its_order_and_cleans_up(tmp_path: Path) -> None:
    """scripts/demo.sh end to end (real model: slow), with `graphit` on PATH."""
    import os
    import subprocess
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "graphit"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m graphit_cli "$@"\n')
    shim.chmod(0o755)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "TMPDIR": str(scratch)}
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        ["bash", str(root / "scripts" / "demo.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "the best-scoring hit can come last" in " ".join(done.stderr.split())
    left = [p.name for p in scratch.iterdir() if p.name.startswith("graphit-demo")]
    assert left == []  # the project and its GRAPHIT_HOME are gone (torch may leave its own)
    assert "…" not in done.stdout  # piped tables are never cut


def test_large_batch_repeat_warns_once_per_record_up_to_five(cli) -> None:
    # Past 20 new records the check reads the live rows once instead of one lookup each.
    lines = "".join(
        json.dumps({"title": f"Fact {n}", "body": f"Body {n}"}) + "\n" for n in range(25)
    )
    assert cli("memory", "upsert", "-", input=lines).exit_code == 0
    second = cli("memory", "upsert", "-f", "json", "-", input=lines)
    warnings = second.stderr.splitlines()
    assert warnings[0].startswith("Warning: record 1 repeats memory ")
    assert [w.split()[2] for w in warnings[:5]] == ["1", "2", "3", "4", "5"]
    assert warnings[5:] == ["Warning: 20 more records repeat live memories", "25 created"]
