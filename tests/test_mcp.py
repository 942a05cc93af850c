"""The agent tool surface: `graphit memory mcp` through the MCP SDK's own client over stdio.

One real server subprocess serves the whole module (start-up costs about a second). Tests that
need an empty table of their own use a `context:<name>` scope, so they stay independent while
sharing the server; the recall test owns the project scope. The CLI side (`instructions`, the
upsert duplicate warning) and the service's duplicate guard are tested in-process at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from graphit_cli.core.models import MemoryDraft
from graphit_cli.formats import guidance
from tests.conftest import PROJECT_ID

TOOLS = {
    "graphit_memory_recall",
    "graphit_memory_mandatory",
    "graphit_memory_search",
    "graphit_memory_source",
    "graphit_memory_list",
    "graphit_memory_important",
    "graphit_memory_insert",
    "graphit_memory_update",
    "graphit_memory_delete",
    "graphit_memory_promote",
    "graphit_memory_demote",
    "graphit_memory_mark_mandatory",
    "graphit_memory_unmark_mandatory",
    "graphit_memory_consolidate",
    "graphit_memory_apply_consolidation",
}
READ_ONLY = {
    "graphit_memory_recall",
    "graphit_memory_consolidate",
    "graphit_memory_mandatory",
    "graphit_memory_search",
    "graphit_memory_source",
    "graphit_memory_list",
    "graphit_memory_important",
}
MISSING_ID = "01JD00000000000000000000ZZ"
# The contexts the tests write into: an unknown context is refused (as the CLI refuses it),
# so the fixture creates their empty tables before the server starts.
CONTEXTS = ["delete", "duplicates", "errors", "flags", "ids", "list", "other", "paging"]
CONTEXTS += ["slicing", "update"]


@dataclass
class Session:
    """A synchronous handle on the async MCP client (the portal runs its event loop)."""

    portal: BlockingPortal
    client: Client

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(self.client.call_tool, tool, arguments)

    def ok(self, tool: str, **arguments: Any) -> str:
        result = self.call(tool, **arguments)
        text = result.content[0].text
        assert not result.is_error, text
        return text

    def json(self, tool: str, **arguments: Any) -> Any:
        result = self.call(tool, format="json", **arguments)
        text = result.content[0].text
        assert not result.is_error, text
        data = json.loads(text)
        assert result.structured_content == data
        return data

    def error(self, tool: str, **arguments: Any) -> str:
        result = self.call(tool, **arguments)
        assert result.is_error, result
        [block] = result.content
        return block.text


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    root = tmp_path_factory.mktemp("mcp")
    env = {
        "GRAPHIT_HOME": str(root / "graphit-home"),
        "GRAPHIT_PROJECT_ID": PROJECT_ID,
        "GRAPHIT_AUTHOR": "agent",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),  # this checkout's code, not main's
    }
    create = (
        "import sys\nfrom graphit_cli.access.scopes import Scope\n"
        "from graphit_cli.opening import open_service\n"
        "for name in sys.argv[1:]:\n    open_service(Scope('context', name))"
    )
    subprocess.run([sys.executable, "-c", create, *CONTEXTS], env=env, check=True, timeout=120)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "graphit_cli", "memory", "mcp"], env=env, cwd=root
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120)) as client,
    ):
        yield Session(portal, client)


def insert(s: Session, title: str, body: str, **extra: Any) -> str:
    data = s.json("graphit_memory_insert", title=title, body=body, **extra)
    assert data["action"] == "created", data
    return str(data["id"])


# --- the tool list and the guidance -------------------------------------------------------


def test_lists_every_tool_with_guidance(mcp_server: Session) -> None:
    listed = mcp_server.portal.call(mcp_server.client.list_tools).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description == guidance.TOOL_DESCRIPTIONS[tool.name]
        properties = tool.input_schema["properties"]
        default_scope = "all" if tool.name == "graphit_memory_recall" else "project"
        assert properties["scope"]["default"] == default_scope, tool.name
        assert properties["format"]["enum"] == ["text", "json"], tool.name
        assert tool.annotations is not None
        # An omitted readOnlyHint means false (the protocol's default).
        assert bool(tool.annotations.read_only_hint) is (tool.name in READ_ONLY), tool.name
    by_name = {t.name: t for t in listed}
    assert "exclude_mandatory" in by_name["graphit_memory_search"].description
    assert "force" in by_name["graphit_memory_insert"].input_schema["properties"]
    assert by_name["graphit_memory_delete"].annotations.destructive_hint is True

    instructions = mcp_server.client.instructions
    assert instructions == guidance.server_instructions()
    assert "graphit_memory_mandatory" in instructions and "exclude_mandatory: true" in instructions


# The 12 memory tools measured 11,934 characters (tools/list as JSON plus the instructions), 14,533
# with the two consolidation tools, their guidance and the scope "all" guidance, 16,471 with
# the output schemas' `required` lists and `anyOf` nullable fields; the budget leaves
# a little room for the tools other features add. Every agent session pays for this text.
SURFACE_BUDGET = 16_750


def test_tool_surface_fits_its_budget(mcp_server: Session) -> None:
    listed = mcp_server.portal.call(mcp_server.client.list_tools)
    tools_json = listed.model_dump_json(by_alias=True, exclude_none=True)
    instructions = mcp_server.client.instructions or ""
    total = len(tools_json) + len(instructions)
    assert total <= SURFACE_BUDGET, f"{len(tools_json)} + {len(instructions)} = {total}"
    # The recall protocol and capture rules, whole, within what Claude Code keeps (2,048).
    assert 1_000 < len(instructions) <= guidance.SERVER_INSTRUCTIONS_LIMIT
    # No schema noise: pydantic's titles, null branches and null defaults are compacted away.
    for tool in listed.tools:
        assert "title" not in tool.input_schema, tool.name
        for prop in tool.input_schema["properties"].values():
            assert not {"title", "anyOf"} & set(prop), (tool.name, prop)
            assert prop.get("default", 0) is not None, tool.name


def test_source_takes_id_and_still_accepts_ref(mcp_server: Session) -> None:
    s = mcp_server
    memory_id = insert(s, "Named by id", "Like every other tool.", scope="context:ids")
    by_id = s.ok("graphit_memory_source", id=memory_id, scope="context:ids")
    assert by_id.startswith(f'---\nid: "{memory_id}"\n')
    assert s.ok("graphit_memory_source", ref=memory_id, scope="context:ids") == by_id
    listed = s.portal.call(s.client.list_tools).tools
    [source] = [t for t in listed if t.name == "graphit_memory_source"]
    assert (
        source.input_schema["required"] == ["id"] and "ref" not in source.input_schema["properties"]
    )


# --- recall, reads ------------------------------------------------------------------------


def test_recall_protocol_mandatory_then_search_then_source(mcp_server: Session) -> None:
    s = mcp_server
    assert s.ok("graphit_memory_mandatory") == f"No mandatory memories in project:{PROJECT_ID}.\n"
    rule = insert(
        s,
        "The project is in development",
        "So changes need no backward compatibility or data migrations.",
        mandatory=True,
    )
    deploy = insert(
        s,
        "Deploy with the release script",
        "Run scripts/release.sh; it tags, builds and uploads the deploy artefacts.",
        type="procedure",
        tags=["deploy"],
    )
    flaky = insert(
        s,
        "Deploy tests are flaky on Mondays",
        "The staging deploy cache expires on Mondays: rerun once before debugging.",
        important=True,
    )
    insert(s, "Unrelated", "Nothing to do with releases.")

    # 1. Every mandatory memory, in full.
    text = s.ok("graphit_memory_mandatory")
    assert text.startswith(f"1 mandatory memory in project:{PROJECT_ID}; read all of them:\n\n")
    assert f'id: "{rule}"' in text
    assert text.endswith(
        "# The project is in development\n\n"
        "So changes need no backward compatibility or data migrations.\n"
    )

    # 2. The contextual search leaves the mandatory memory out; important comes first.
    found = s.json("graphit_memory_search", query="deploy", exclude_mandatory=True)
    assert [h["id"] for h in found["hits"]] == [flaky, deploy]
    # Written only through this server, yet found by meaning too: it embeds what it writes.
    assert (found["total"], found["next_cursor"], found["mode"]) == (2, None, "hybrid")
    assert found["notice"] is None  # no "lexical search only" any more
    text = s.ok("graphit_memory_search", query="deploy", exclude_mandatory=True)
    assert f"2 memories for 'deploy' in project:{PROJECT_ID} (hybrid search; mandatory" in text
    assert text.index(flaky) < text.index(deploy) and rule not in text
    assert f"- {deploy} (procedure; rev 1; " in text and "[deploy]" in text
    with_mandatory = s.json("graphit_memory_search", query="development deploy")
    assert with_mandatory["hits"][0]["id"] == rule
    # The user scope is a table of its own, loaded by the same two steps.
    assert s.ok("graphit_memory_mandatory", scope="user") == (
        "No mandatory memories in user:anonymous.\n"
    )
    mine = insert(
        s,
        "Answer tersely",
        "I prefer short answers.",
        type="preference",
        mandatory=True,
        scope="user",
    )
    assert [m["id"] for m in s.json("graphit_memory_mandatory", scope="user")["memories"]] == [mine]
    assert mine not in s.ok("graphit_memory_mandatory")

    # 3. Read the selected one in full.
    source = s.ok("graphit_memory_source", id=deploy)
    assert source.startswith(f'---\nid: "{deploy}"\ntitle: "Deploy with the release script"\n')
    assert 'updated_by: "agent"' in source
    assert source.endswith(
        "# Deploy with the release script\n\nRun scripts/release.sh; "
        "it tags, builds and uploads the deploy artefacts.\n"
    )


def test_list_and_important_with_filters(mcp_server: Session) -> None:
    scope = "context:list"
    s = mcp_server
    assert s.ok("graphit_memory_list", scope=scope) == "No live memories in context:list.\n"
    first = insert(s, "Use uv", "Install with uv.", type="convention", tags=["python"], scope=scope)
    second = insert(s, "Ruff formats", "Run ruff format.", tags=["python"], scope=scope)
    third = insert(s, "Go tests", "Table-driven.", important=True, tags=["go"], scope=scope)

    listed = s.json("graphit_memory_list", scope=scope)
    assert [m["id"] for m in listed["memories"]] == [third, second, first]
    assert listed["total"] == 3 and listed["scope"] == "context:list"
    only = s.json("graphit_memory_list", scope=scope, types=["convention"], tags=["python"])
    assert [m["id"] for m in only["memories"]] == [first]
    limited = s.ok("graphit_memory_list", scope=scope, limit=1)
    assert limited.startswith("3 live memories in context:list")
    assert "Showing the first 1 of 3: pass limit=0 for all" in limited

    important = s.json("graphit_memory_important", scope=scope)
    assert [m["id"] for m in important["memories"]] == [third]
    assert s.ok("graphit_memory_important", scope=scope, tags=["python"]) == (
        "No important memories in context:list.\n"
    )


def test_source_line_slicing(mcp_server: Session) -> None:
    scope = "context:slicing"
    s = mcp_server
    body = "\n".join(f"line {n}" for n in range(1, 21))
    memory_id = insert(s, "Long", body, scope=scope)
    full = s.ok("graphit_memory_source", id=memory_id, scope=scope).split("\n")[:-1]
    total = len(full)

    part = s.ok("graphit_memory_source", id=memory_id, scope=scope, start_line=2, end_line=4)
    more = "call again with start_line=5 for more"
    assert part == "\n".join(full[1:4]) + f"\n\n[lines 2-4 of {total}; {more}]\n"
    tail = s.json("graphit_memory_source", id=memory_id, scope=scope, start_line=total - 1)
    assert tail["text"] == "line 19\nline 20\n\n" + f"[lines {total - 1}-{total} of {total}]\n"
    assert (tail["start_line"], tail["end_line"], tail["total_lines"]) == (total - 1, total, total)
    assert tail["id"] == memory_id and "body" not in tail

    past = s.error("graphit_memory_source", id=memory_id, scope=scope, start_line=total + 1)
    assert past == f"Error: start_line {total + 1} is past the end ({total} lines)"
    backwards = s.error(
        "graphit_memory_source", id=memory_id, scope=scope, start_line=3, end_line=2
    )
    assert backwards == "Error: end_line 2 is before start_line 3"


# --- writes -------------------------------------------------------------------------------


def test_insert_update_makes_a_revision(mcp_server: Session) -> None:
    scope = "context:update"
    s = mcp_server
    text = s.ok("graphit_memory_insert", title="Use uv", body="Install with uv.", scope=scope)
    assert text.startswith("created ") and text.endswith(" (revision 1, fact): Use uv\n")
    memory_id = text.split()[1]

    text = s.ok(
        "graphit_memory_update",
        id=memory_id,
        body="Install with uv, never pip: the lock file is uv's.",
        type="convention",
        scope=scope,
    )
    assert text == f"updated {memory_id} (revision 2, convention): Use uv\n"
    same = s.json("graphit_memory_update", id=memory_id, type="convention", scope=scope)
    assert (same["action"], same["revision"]) == ("unchanged", 2)

    current = s.json("graphit_memory_source", id=memory_id, scope=scope)
    assert (current["revision"], current["type"]) == (2, "convention")
    archived = s.ok("graphit_memory_source", id=current["previous"], scope=scope)
    assert "revision: 1\n" in archived and "superseded: true\n" in archived
    assert archived.endswith("# Use uv\n\nInstall with uv.\n")

    stale = s.error(
        "graphit_memory_update", id=memory_id, body="Other.", expected_revision=1, scope=scope
    )
    assert stale.startswith(f"Error: memory {memory_id} is at revision 2, not 1: it changed")
    nothing = s.error("graphit_memory_update", id=memory_id, scope=scope)
    assert nothing == (
        "Error: nothing to update: give title, body, type, tags, important, mandatory, "
        "anchors, or verify=true"
    )
    archive = s.error("graphit_memory_update", id=current["previous"], title="X", scope=scope)
    assert archive.startswith(f"Error: {current['previous']} is an archived revision")


def test_flags_promote_demote_mandatory(mcp_server: Session) -> None:
    scope = "context:flags"
    s = mcp_server
    memory_id = insert(s, "Flag me", "Body.", scope=scope)

    text = s.ok("graphit_memory_promote", id=memory_id, scope=scope)
    assert text == f"updated {memory_id} (revision 2, fact, important): Flag me\n"
    again = s.json("graphit_memory_promote", id=memory_id, scope=scope)
    assert (again["action"], again["important"]) == ("unchanged", True)
    marked = s.json("graphit_memory_mark_mandatory", id=memory_id, scope=scope)
    assert (marked["revision"], marked["mandatory"], marked["important"]) == (3, True, True)
    assert f'id: "{memory_id}"' in s.ok("graphit_memory_mandatory", scope=scope)

    s.ok("graphit_memory_demote", id=memory_id, scope=scope)
    cleared = s.json("graphit_memory_unmark_mandatory", id=memory_id, scope=scope)
    assert (cleared["revision"], cleared["mandatory"], cleared["important"]) == (5, False, False)
    assert s.json("graphit_memory_mandatory", scope=scope)["memories"] == []


def test_duplicate_guard_refuses_and_force_writes(mcp_server: Session) -> None:
    scope = "context:duplicates"
    s = mcp_server
    title, body = "Use uv for installs", "We install Python packages with uv, not pip."
    original = insert(s, title, body, type="convention", scope=scope)

    text = s.ok("graphit_memory_insert", title=title, body=body, type="convention", scope=scope)
    assert text.startswith(
        f'Not written: memory {original} already says this ("Use uv for installs"; '
        "convention; revision 1). Read it with graphit_memory_source and update it with "
        f"graphit_memory_update id={original}"
    )
    # Near-identical wording (case, punctuation, word order, other tags) is the same memory.
    near = s.json(
        "graphit_memory_insert",
        title="use uv for installs!",
        body="We install Python packages with uv (not with pip).",
        tags=["python"],
        scope=scope,
    )
    assert (near["action"], near["written"], near["id"]) == ("duplicate", False, original)
    assert len(s.json("graphit_memory_list", scope=scope)["memories"]) == 1

    # Something else on the same subject is not a duplicate.
    other = insert(s, "Pin uv's version", "CI pins uv 0.9 so lock files stay stable.", scope=scope)
    assert other != original

    forced = s.json("graphit_memory_insert", title=title, body=body, force=True, scope=scope)
    assert forced["action"] == "created" and forced["id"] not in (original, other)
    assert len(s.json("graphit_memory_list", scope=scope)["memories"]) == 3


def test_delete_keeps_history(mcp_server: Session) -> None:
    scope = "context:delete"
    s = mcp_server
    memory_id = insert(s, "Short-lived", "Soon gone.", scope=scope)
    deleted = s.json("graphit_memory_delete", id=memory_id, scope=scope)
    assert deleted["action"] == "deleted" and deleted["key"].startswith(f"{memory_id}/")

    gone = s.error("graphit_memory_source", id=memory_id, scope=scope)
    assert gone == f"Error: memory {memory_id} was deleted (its final revision is {deleted['key']})"
    assert "Soon gone." in s.ok("graphit_memory_source", id=deleted["key"], scope=scope)
    assert s.error("graphit_memory_delete", id=memory_id, scope=scope) == gone
    assert s.error("graphit_memory_update", id=memory_id, body="Back?", scope=scope) == gone
    assert s.error("graphit_memory_promote", id=memory_id, scope=scope) == gone


# --- paging -------------------------------------------------------------------------------


def test_search_pages_with_a_cursor_bound_to_the_query(mcp_server: Session) -> None:
    scope = "context:paging"
    s = mcp_server
    ids = {
        insert(s, f"Paging note {n}", f"Paging detail number {n}.", scope=scope, force=True)
        for n in range(7)
    }

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        extra = {"cursor": cursor} if cursor else {}
        page = s.json(
            "graphit_memory_search", query="paging", top_k=0, page_size=3, scope=scope, **extra
        )
        pages += 1
        assert page["total"] == 7 and page["offset"] == len(seen)
        seen += [h["id"] for h in page["hits"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and len(seen) == 7 and set(seen) == ids

    first = s.json("graphit_memory_search", query="paging", top_k=0, page_size=3, scope=scope)
    text = s.ok(
        "graphit_memory_search",
        query="paging",
        top_k=0,
        page_size=3,
        scope=scope,
        cursor=first["next_cursor"],
    )
    assert "7 memories for 'paging' in context:paging (hybrid search); showing 4-6:" in text
    assert "More: call graphit_memory_search again with cursor=" in text
    # top_k bounds the selection: 5 memories, pages of 3.
    small = s.json("graphit_memory_search", query="paging", top_k=5, page_size=3, scope=scope)
    rest = s.json(
        "graphit_memory_search",
        query="paging",
        top_k=5,
        page_size=3,
        scope=scope,
        cursor=small["next_cursor"],
    )
    assert (small["total"], len(rest["hits"]), rest["next_cursor"]) == (5, 2, None)

    token = first["next_cursor"]
    foreign = "Error: this cursor belongs to another search (a different query, filters, top_k "
    for changed in (
        {"query": "detail"},
        {"query": "paging", "types": ["decision"]},
        {"query": "paging", "top_k": 3},
        {"query": "paging", "exclude_mandatory": True},
        {"query": "paging", "scope": "context:other"},
    ):
        args = {"top_k": 0, "scope": scope, **changed, "cursor": token}
        assert s.error("graphit_memory_search", **args).startswith(foreign), changed
    for bad in ("not-a-cursor", "e30", token[:-3]):
        message = s.error("graphit_memory_search", query="paging", scope=scope, cursor=bad)
        assert message == (
            "Error: invalid cursor: pass the next_cursor of a graphit_memory_search result "
            "unchanged"
        )


# --- bad arguments ------------------------------------------------------------------------


def test_bad_arguments_are_error_results_and_the_server_lives_on(mcp_server: Session) -> None:
    s = mcp_server
    scope = "context:errors"
    memory_id = insert(s, "Survivor", "Still here.", scope=scope)
    cases: list[tuple[str, dict[str, Any], str]] = [
        (
            "graphit_memory_search",
            {"query": "x", "top_k": -1},
            "Error: invalid arguments for graphit_memory_search: top_k: Input should be greater "
            "than or equal to 0",
        ),
        (
            "graphit_memory_insert",
            {"title": "T", "body": "B", "type": "opinion"},
            "Error: unknown type 'opinion': use one of fact, decision, convention, correction, "
            "preference, constraint, procedure, skill, tension",
        ),
        (
            "graphit_memory_list",
            {"types": ["opinion"]},
            "Error: unknown type 'opinion': use one of fact, decision, convention, correction, "
            "preference, constraint, procedure, skill, tension",
        ),
        ("graphit_memory_source", {"id": MISSING_ID}, f"Error: no memory {MISSING_ID}"),
        ("graphit_memory_delete", {"id": MISSING_ID}, f"Error: no memory {MISSING_ID}"),
        (
            "graphit_memory_update",
            {"id": MISSING_ID, "body": "B"},
            f"Error: no memory {MISSING_ID}",
        ),
        (
            "graphit_memory_source",
            {"ref": "nope"},
            "Error: invalid memory id 'nope': expected a 26-character ULID",
        ),
        ("graphit_memory_search", {"query": "  "}, "Error: the search query must not be empty"),
        (
            "graphit_memory_search",
            {"query": "x", "page_size": 0},
            "Error: invalid arguments for graphit_memory_search: page_size: Input should be "
            "greater than or equal to 1",
        ),
        (
            "graphit_memory_search",
            {"query": "x", "page_size": 101},
            "Error: invalid arguments for graphit_memory_search: page_size: Input should be "
            "less than or equal to 100",
        ),
        (
            "graphit_memory_insert",
            {"title": "Two\nlines", "body": "B"},
            "Error: invalid arguments for graphit_memory_insert: title: String should match "
            "pattern '^[^\\r\\n]+$'",
        ),
        (
            "graphit_memory_insert",
            {"title": "t" * 301, "body": "B"},
            "Error: invalid arguments for graphit_memory_insert: title: String should have at "
            "most 300 characters",
        ),
        (
            "graphit_memory_insert",
            {"title": "T", "body": ""},
            "Error: invalid arguments for graphit_memory_insert: body: String should have at "
            "least 1 character",
        ),
        (
            "graphit_memory_consolidate",
            {"threshold": 1.5},
            "Error: invalid arguments for graphit_memory_consolidate: threshold: Input should "
            "be less than or equal to 1",
        ),
        (
            "graphit_memory_update",
            {"id": MISSING_ID, "body": "B", "expected_revision": 0},
            "Error: invalid arguments for graphit_memory_update: expected_revision: Input "
            "should be greater than or equal to 1",
        ),
        (
            "graphit_memory_insert",
            {"title": "T", "body": "B", "tags": ["has space"]},
            "Error: invalid tag 'has space': use letters, digits and . + # / : @ - "
            "(no spaces, quotes, % or ;, at most 64 characters)",
        ),
        (
            "graphit_memory_list",
            {"scope": "team"},
            "Error: unknown scope 'team': use project, user or context:<name>",
        ),
        (
            "graphit_memory_list",
            {"format": "yaml"},
            "Error: unknown format 'yaml': use text or json",
        ),
        (
            "graphit_memory_search",
            {"query": "x", "top_k": "many"},
            "Error: invalid arguments for graphit_memory_search: top_k: Input should be a "
            "valid integer, unable to parse string as an integer",
        ),
        (
            "graphit_memory_insert",
            {"title": "T"},
            "Error: invalid arguments for graphit_memory_insert: body: Field required",
        ),
    ]
    for tool, arguments, expected in cases:
        args = {"scope": scope, **arguments}
        assert s.error(tool, **args) == expected, (tool, arguments)
    unknown = s.error("graphit_memory_search", query="x", type="fact", scope=scope)
    assert unknown.startswith("Error: unknown argument(s) type for graphit_memory_search; it takes")
    # Nothing was written by the failed calls, and the server still answers.
    listed = s.json("graphit_memory_list", scope=scope)
    assert [m["id"] for m in listed["memories"]] == [memory_id]


def test_error_messages_match_the_cli(mcp_server: Session, cli) -> None:
    for tool, arguments, command in [
        ("graphit_memory_source", {"id": MISSING_ID}, ["memory", "source", MISSING_ID]),
        ("graphit_memory_source", {"id": "bad/id/x"}, ["memory", "source", "bad/id/x"]),
        ("graphit_memory_list", {"tags": ["a'b"]}, ["memory", "list", "--tag", "a'b"]),
    ]:
        result = cli(*command)
        assert result.exit_code != 0
        assert mcp_server.error(tool, **arguments) == result.stderr.strip()


def test_an_unexpected_failure_is_an_error_result_not_a_crash() -> None:
    from graphit_cli.mcp.server import respond
    from graphit_cli.mcp.tools import MemoryTools

    def broken() -> Any:
        raise RuntimeError("boom\nsecond line")

    result = respond(MemoryTools(), "text", broken)
    assert result.is_error
    assert result.content[0].text == (
        "Error: internal error: boom (run with GRAPHIT_DEBUG=1 for the traceback)"
    )


# --- the CLI side -------------------------------------------------------------------------


def test_instructions_prints_the_shared_guidance(cli) -> None:
    result = cli("memory", "instructions")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == guidance.markdown("cli")
    assert result.stdout.startswith("# Graphit memory: recall and capture\n")
    for heading in ("## Recall at the start", "## When to write a memory", "## How to write it"):
        assert heading in result.stdout
    assert "`graphit memory mandatory`" in result.stdout and "--exclude-mandatory" in result.stdout
    assert "graphit_memory_" not in result.stdout

    for_mcp = cli("memory", "instructions", "--for", "mcp")
    assert for_mcp.stdout == guidance.markdown("mcp")
    assert "`graphit_memory_search` for the current task with `exclude_mandatory: true`" in (
        " ".join(for_mcp.stdout.split())
    )
    assert all(len(line) <= 96 or "`" in line for line in for_mcp.stdout.splitlines())


def test_upsert_warns_about_a_duplicate_and_still_writes(cli) -> None:
    args = ["memory", "upsert", "-f", "json", "--title", "Use uv", "--body", "Install with uv."]
    first = cli(*args)
    assert (first.exit_code, first.stderr) == (0, "")
    [created] = first.json()

    second = cli(*args)
    assert second.exit_code == 0
    [again] = second.json()
    assert again["action"] == "created" and again["id"] != created["id"]
    assert second.stderr == (
        f"Warning: memory {created['id']} ('Use uv') already says this; to change it, use "
        f"`graphit memory upsert --id {created['id']}` (written anyway as a new memory)\n"
    )
    # An update by id, and a different memory, are not warned about.
    update = cli("memory", "upsert", "--id", created["id"], "--body", "Install with uv only.")
    assert (update.exit_code, update.stderr) == (0, "")
    other = cli("memory", "upsert", "--title", "Use ruff", "--body", "Lint with ruff.")
    assert (other.exit_code, other.stderr) == (0, "")


def test_mcp_help_does_not_import_the_sdk(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.argv = ['graphit', 'memory', 'mcp', '--help']\n"
        "from graphit_cli.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} & {'mcp', 'mcp_types', 'lancedb'}),"
        " file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.startswith("Usage: graphit memory mcp [OPTIONS]")
    assert result.stderr.strip().splitlines()[-1] == "[]"


# --- the service's duplicate guard (embeddings) ---------------------------------------------


class ConceptEmbedder:
    """Maps texts to a few hand-made directions, so paraphrases get close vectors."""

    model_id = "test/concepts"
    dim = 384
    CONCEPTS = (("uv", "installer"), ("ruff", "lint"), ("deploy", "release"))

    def _one(self, text: str) -> list[float]:
        low = text.lower()
        vector = [0.0] * self.dim
        for i, words in enumerate(self.CONCEPTS):
            vector[i] = float(sum(low.count(w) for w in words))
        vector[-1] = 0.01  # never a zero vector
        norm = sum(v * v for v in vector) ** 0.5
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


def test_find_duplicate_by_hash_wording_and_embedding(scope) -> None:
    from graphit_cli.opening import open_service
    from graphit_cli.service.memory import MemoryService

    model = ConceptEmbedder()
    service = MemoryService(open_service(scope).store, scope, embedder=lambda: model)
    kept = service.upsert(
        MemoryDraft(title="Installer: uv", body="Packages come from the uv installer.")
    ).memory
    service.embed(model)

    assert service.find_duplicate(MemoryDraft(title=kept.title, body=kept.body)) == kept
    paraphrase = MemoryDraft(title="Installer is uv", body="We always use uv to get dependencies.")
    assert service.find_duplicate(paraphrase, semantic=False) is None  # the words differ
    found = service.find_duplicate(paraphrase)
    assert found is not None and found.id == kept.id
    # Close by embedding but a different title: not the same memory.
    assert service.find_duplicate(MemoryDraft(title="Dependencies", body="uv uv uv")) is None
    # Updates (a draft with an id) and unrelated memories are never duplicates.
    assert service.find_duplicate(MemoryDraft(id=kept.id, title=kept.title, body=kept.body)) is None
    assert service.find_duplicate(MemoryDraft(title="Lint with ruff", body="ruff check")) is None
