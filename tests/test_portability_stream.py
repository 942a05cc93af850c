"""`graphit memory list > all.md; graphit memory upsert all.md` is a batch, never one memory.

The stream `list`, `mandatory` and `source` print (Markdown documents with frontmatter, one
after another) used to be read as ONE memory: the first memory's body swallowed every other
memory's frontmatter. These tests pipe real output back through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphit_cli.core.revisions import normalise_body
from graphit_cli.formats import parse, render

# Bodies that look like document boundaries to a naive splitter: horizontal rules, setext
# headings, a fenced frontmatter example, a YAML-looking block between rules.
TRICKY_BODIES = [
    "Use uv for every install.\n\n---\n\nNever pip, even in CI.",
    "Release checklist\n-----------------\n\n1. tag\n2. push",
    "The presentation format looks like this:\n\n```markdown\n---\n"
    'id: "01ARZ3NDEKTSV4RRFFQ69G5FAV"\n'
    'title: "Example"\n---\n\n# Example\n```\n\nNothing else.',
    "Config notes\n\n---\nregion: eu-west-1\nbucket: team-memory\n---\n\nKeep both in sync.",
    '~~~\n---\ntitle: "fenced with tildes"\n---\n~~~\nDone.',
]
PLAIN = [
    ("Prefer table-driven Go tests", "Use table-driven cases for related scenarios.", "convention"),
    ("Staging database is read-only", "Writes go to the primary in eu-west-1.", "fact"),
    ("We chose LanceDB", "One table per scope; no sidecar index.", "decision"),
    ("Terse answers", "The user prefers short answers with code first.", "preference"),
    ("Never force-push main", "Protected branch; rebase locally instead.", "constraint"),
    ("How to cut a release", "Bump, tag, push, wait for CI.", "procedure"),
    (
        "CI caches wheels",
        "The wheel cache lives in .ci/cache; clear it on lockfile changes.",
        "fact",
    ),
]


def _seed(cli) -> list[str]:
    """The tricky and the plain memories, written as one batch (one commit), and one of them
    edited once, so revisions are part of what must not move."""
    drafts: list[dict[str, object]] = [
        {
            "title": f"Tricky {n}",
            "body": body,
            "tags": ["tricky"],
            "mandatory" if n % 2 == 0 else "important": True,
        }
        for n, body in enumerate(TRICKY_BODIES)
    ]
    drafts += [{"title": title, "body": body, "type": kind} for title, body, kind in PLAIN]
    result = cli("memory", "upsert", "-", "-f", "json", input=json.dumps(drafts))
    assert result.exit_code == 0, result.stderr
    ids = [r["id"] for r in result.json()]
    assert len(ids) == len(drafts)
    edited = cli("memory", "upsert", "-f", "json", "--id", ids[-1], "--body", "Cache in .ci/cache.")
    assert edited.json()[0]["revision"] == 2
    return ids


def _snapshot(cli, ids: list[str]) -> dict[str, list[str]]:
    """Every row of each memory, live and archived, as the export writes it (text, flags,
    revisions, links, hashes, dates): one command for the whole table."""
    exported = cli("memory", "export", "--history")
    assert exported.exit_code == 0, exported.stderr
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    return {i: sorted(json.dumps(r, sort_keys=True) for r in rows if r["id"] == i) for i in ids}


def test_split_documents_keeps_bodies_whole() -> None:
    docs = "\n".join(
        render.to_markdown(_memory(f"01JD00000000000000000000{n:02d}", body))
        for n, body in enumerate(TRICKY_BODIES)
    )
    parts = parse.split_documents(docs)
    assert len(parts) == len(TRICKY_BODIES)
    drafts = parse.parse_input(docs)
    assert [normalise_body(d.body or "") for d in drafts] == TRICKY_BODIES
    assert parts[0][0] == 1
    # Each document's first line is where its `---` sits in the stream.
    lines = docs.split("\n")
    assert all(lines[line - 1] == "---" for line, _ in parts)


def test_list_piped_back_changes_nothing(cli, service, tmp_path: Path) -> None:
    ids = _seed(cli)
    before = _snapshot(cli, ids)
    rows, version = service.store.count(), service.store.version()

    listed = cli("memory", "list", "-f", "markdown").stdout
    stream = tmp_path / "all.md"
    stream.write_text(listed)
    result = cli("memory", "upsert", str(stream), "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert [r["action"] for r in result.json()] == ["unchanged"] * len(ids)
    assert result.stderr == f"{len(ids)} unchanged\n"
    assert (service.store.count(), service.store.version()) == (rows, version)
    assert _snapshot(cli, ids) == before

    # `mandatory` output too, through stdin.
    mandatory = cli("memory", "mandatory").stdout
    again = cli("memory", "upsert", "-", "-f", "json", input=mandatory)
    assert [r["action"] for r in again.json()] == ["unchanged"] * 3
    assert _snapshot(cli, ids) == before


def test_one_edited_document_in_the_stream_updates_only_that_memory(cli, tmp_path: Path) -> None:
    ids = _seed(cli)
    before = _snapshot(cli, ids)
    listed = cli("memory", "list", "-f", "markdown").stdout
    target = ids[len(TRICKY_BODIES)]  # "Prefer table-driven Go tests"
    edited = listed.replace(
        "Use table-driven cases for related scenarios.",
        "Use table-driven cases for related scenarios.\n\n---\n\nName each case.",
    )
    assert edited != listed
    stream = tmp_path / "all.md"
    stream.write_text(edited)
    result = cli("memory", "upsert", str(stream), "-f", "json")
    assert result.exit_code == 0, result.stderr
    actions = {r["id"]: r["action"] for r in result.json()}
    assert actions.pop(target) == "updated"
    assert set(actions.values()) == {"unchanged"}
    after = _snapshot(cli, ids)
    assert {i for i in ids if after[i] != before[i]} == {target}
    body = cli("memory", "source", target, "-f", "json").json()["body"]
    assert body == "Use table-driven cases for related scenarios.\n\n---\n\nName each case."
    # No memory's body swallowed another's frontmatter.
    for i in ids:
        assert cli("memory", "source", i).stdout.count("\nupdated_by: ") == 1


def test_a_broken_document_in_the_stream_writes_nothing(cli, service, tmp_path: Path) -> None:
    _seed(cli)
    listed = cli("memory", "list", "-f", "markdown").stdout
    rows, version = service.store.count(), service.store.version()
    broken = listed.replace('type: "decision"', 'type: "gossip"')
    stream = tmp_path / "all.md"
    stream.write_text(broken)
    result = cli("memory", "upsert", str(stream))
    assert result.exit_code == 3
    assert result.stderr.startswith("Error: record ") and "unknown type 'gossip'" in result.stderr
    assert (service.store.count(), service.store.version()) == (rows, version)


def _memory(memory_id: str, body: str):
    from datetime import UTC, datetime

    from graphit_cli.core.models import Memory

    moment = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    return Memory(
        key=memory_id,
        id=memory_id,
        revision_id="",
        revision=1,
        previous=None,
        next=None,
        superseded=False,
        title="T",
        body=body,
        type="fact",
        tags=(),
        important=False,
        mandatory=False,
        created_at=moment,
        updated_at=moment,
        scope_kind="project",
        scope_id="x",
        updated_by="me",
        content_hash="h",
    )


# --- hand-written files of several memories -----------------------------------------------

TWO_HAND_WRITTEN = """---
type: convention
tags: [python]
---
# Install with uv

We install with uv, never pip.

---

A rule above, inside this body, stays in it.
---
type: decision
important: true
---
# We chose LanceDB

One table per scope.
"""


def test_two_hand_written_documents_are_two_memories(cli, service, tmp_path: Path) -> None:
    path = tmp_path / "two.md"
    path.write_text(TWO_HAND_WRITTEN)
    result = cli("memory", "upsert", str(path), "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert [r["action"] for r in result.json()] == ["created", "created"]
    first, second = (service.source(r["id"]) for r in result.json())
    assert (first.title, first.type, first.tags) == ("Install with uv", "convention", ("python",))
    assert first.body == (
        "We install with uv, never pip.\n\n---\n\nA rule above, inside this body, stays in it."
    )
    assert (second.title, second.type, second.important) == ("We chose LanceDB", "decision", True)
    assert second.body == "One table per scope."


@pytest.mark.parametrize(
    ("second", "line", "why"),
    [
        ("---\ntitle: Two\nauthor: me\n---\n# Two\nbody", 4, "mixes graphit fields (title)"),
        ("---\ntype: fact\n# Two\nbody", 4, "never closed"),
        ("---\ntype: [fact\n---\n# Two\nbody", 4, "not valid YAML"),
        ("---\n---\n# Two\nbody", 4, "empty `---` block before a `# Title`"),
    ],
)
def test_an_ambiguous_second_document_is_refused_with_its_line(
    cli, service, tmp_path: Path, second: str, line: int, why: str
) -> None:
    cli("memory", "list")  # opens (creates) the table
    before = (service.store.count(), service.store.version())
    path = tmp_path / "ambiguous.md"
    path.write_text(f"# One\n\nBody one.\n{second}\n")
    result = cli("memory", "upsert", str(path))
    assert result.exit_code == 3
    assert result.stderr.startswith(f"Error: {path}: line {line}: ") and why in result.stderr
    assert result.stderr.count("\n") == 1  # one line
    assert (service.store.count(), service.store.version()) == before


def test_a_body_with_horizontal_rules_stays_one_memory(cli, service, tmp_path: Path) -> None:
    body = (
        "Part one.\n\n---\n\nPart two.\n\n---\nregion: eu-west-1\nbucket: team\n---\n\n"
        "Part three\n---\n\n- a list\n- after a rule"
    )
    path = tmp_path / "rules.md"
    path.write_text(f"---\ntype: fact\n---\n# Rules\n\n{body}\n")
    result = cli("memory", "upsert", str(path), "-f", "json")
    assert result.exit_code == 0, result.stderr
    [written] = result.json()
    assert service.source(written["id"]).body == body
