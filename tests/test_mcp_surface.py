"""The tool surface a client can rely on: schemas with the enforced limits, an output schema and
structuredContent on every tool, the recall tool, prompt and resource, errors in the tools'
words, unknown contexts refused with nothing created, and the real MCP Inspector CLI.

One server runs in a real project directory (found from its working directory, as a client
starts it) for the module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from tests.conftest import PROJECT_ID
from tests.test_mcp import Session


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("surface")
    (root / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
    return root


def _env(project: Path) -> dict[str, str]:
    return {
        "GRAPHIT_HOME": str(project / "graphit-home"),
        "GRAPHIT_AUTHOR": "agent",
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),  # this checkout's code
        "PATH": os.environ.get("PATH", ""),
    }


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[Session]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphit_cli", "memory", "mcp"],
        env=_env(project),
        cwd=project,
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=120)) as client,
    ):
        yield Session(portal, client)


def _tools(s: Session) -> dict[str, Any]:
    return {t.name: t for t in s.portal.call(s.client.list_tools).tools}


def _type_arrays(schema: Any, path: str = "") -> list[str]:
    """Where a schema says `type` with a list (["string", "null"]): less portable."""
    found: list[str] = []
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), list):
            found.append(path or "/")
        for key, value in schema.items():
            found += _type_arrays(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found += _type_arrays(value, f"{path}/{i}")
    return found


def test_schemas_state_the_limits_and_refuse_extras(server: Session) -> None:
    tools = _tools(server)
    for name, tool in tools.items():
        assert tool.input_schema["additionalProperties"] is False, name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", name
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        # Every field the output schema names is always there, and each type is one type.
        properties = tool.output_schema["properties"]
        assert properties and sorted(tool.output_schema.get("required", [])) == sorted(
            properties
        ), name
        assert _type_arrays(tool.output_schema) == [], name
        assert _type_arrays(tool.input_schema) == [], name
    search = tools["graphit_memory_search"].input_schema["properties"]
    assert (search["page_size"]["minimum"], search["page_size"]["maximum"]) == (1, 100)
    assert search["top_k"]["minimum"] == 0 and search["query"]["minLength"] == 1
    assert search["mode"]["enum"] == ["auto", "hybrid", "fts", "vector"]
    insert = tools["graphit_memory_insert"].input_schema["properties"]
    assert insert["title"]["maxLength"] == 300 and insert["title"]["minLength"] == 1
    assert insert["title"]["pattern"] == "^[^\\r\\n]+$" and insert["body"]["minLength"] == 1
    assert "fact" in insert["type"]["enum"]
    update = tools["graphit_memory_update"].input_schema["properties"]
    assert update["title"]["maxLength"] == 300 and update["expected_revision"]["minimum"] == 1
    threshold = tools["graphit_memory_consolidate"].input_schema["properties"]["threshold"]
    assert (threshold["exclusiveMinimum"], threshold["maximum"]) == (0, 1)
    assert tools["graphit_memory_list"].input_schema["properties"]["limit"]["minimum"] == 0
    source = tools["graphit_memory_source"].input_schema["properties"]
    assert source["start_line"]["minimum"] == 1 and source["end_line"]["minimum"] == 0


def _check(tool: Any, result: Any) -> dict[str, Any]:
    """structuredContent is there and matches the tool's outputSchema, every listed field."""
    data = result.structured_content
    assert not result.is_error and isinstance(data, dict), result
    jsonschema.validate(data, tool.output_schema)
    assert set(tool.output_schema["properties"]) <= set(data), (tool.name, sorted(data))
    return data


def test_every_tool_answers_structured_content_in_either_format(server: Session) -> None:
    s, tools = server, _tools(server)
    written = {}
    for fmt in ("text", "json"):
        calls: list[tuple[str, dict[str, Any]]] = [
            ("graphit_memory_insert", {"title": f"Structured {fmt}", "body": f"In {fmt}."}),
        ]
        result = s.call(calls[0][0], format=fmt, **calls[0][1])
        data = _check(tools[calls[0][0]], result)
        written[fmt] = data["id"]
        if fmt == "json":
            assert json.loads(result.content[0].text) == data
        else:
            assert result.content[0].text.startswith("created ")
    memory_id = written["text"]
    calls = [
        ("graphit_memory_recall", {"context": "structured"}),
        ("graphit_memory_mandatory", {}),
        ("graphit_memory_search", {"query": "structured"}),
        ("graphit_memory_source", {"id": memory_id}),
        ("graphit_memory_list", {}),
        ("graphit_memory_important", {}),
        ("graphit_memory_update", {"id": memory_id, "body": "Changed."}),
        ("graphit_memory_promote", {"id": memory_id}),
        ("graphit_memory_demote", {"id": memory_id}),
        ("graphit_memory_mark_mandatory", {"id": memory_id}),
        ("graphit_memory_unmark_mandatory", {"id": memory_id}),
        ("graphit_memory_consolidate", {}),
        ("graphit_memory_apply_consolidation", {"plan": {"version": 1, "actions": []}}),
        ("graphit_memory_delete", {"id": written["json"]}),
    ]
    assert {c[0] for c in calls} | {"graphit_memory_insert"} == set(tools)
    for name, arguments in calls:
        for fmt in ("text", "json"):
            if fmt == "json" and name == "graphit_memory_delete":
                continue
            _check(tools[name], s.call(name, format=fmt, **arguments))


def test_recall_tool_prompt_and_resource_load_the_mandatory_memories(server: Session) -> None:
    s = server
    rule = s.json(
        "graphit_memory_insert",
        title="Releases are cut on Tuesdays",
        body="Never on a Friday.",
        type="convention",
        mandatory=True,
    )["id"]
    note = s.json(
        "graphit_memory_insert", title="The release script lives in tools/", body="release."
    )["id"]
    text = s.ok("graphit_memory_recall", context="release")
    assert "Never on a Friday." in text  # in full
    data = s.call("graphit_memory_recall", context="release").structured_content
    assert rule in [m["id"] for m in data["mandatory"]]
    hits = [h["id"] for h in data["search"]["hits"]]
    assert note in hits and rule not in hits  # mandatory memories are not repeated
    alone = s.call("graphit_memory_recall").structured_content
    assert alone["search"] is None and rule in [m["id"] for m in alone["mandatory"]]

    prompts = s.portal.call(s.client.list_prompts).prompts
    assert [p.name for p in prompts] == ["graphit_recall"]
    got = s.portal.call(s.client.get_prompt, "graphit_recall", {"task": "release"})
    assert "Never on a Friday." in got.messages[0].content.text
    resources = s.portal.call(s.client.list_resources).resources
    assert [str(r.uri) for r in resources] == ["graphit://memory/mandatory"]
    read = s.portal.call(s.client.read_resource, "graphit://memory/mandatory")
    assert "Never on a Friday." in read.contents[0].text


def test_an_unknown_context_is_refused_and_nothing_is_created(
    server: Session, project: Path
) -> None:
    home = project / "graphit-home"
    for tool, arguments in [
        ("graphit_memory_list", {}),
        ("graphit_memory_insert", {"title": "Lost", "body": "Nowhere."}),
        ("graphit_memory_search", {"query": "x"}),
    ]:
        text = server.error(tool, scope="context:nope", **arguments)
        assert text == (
            'Error: no context \'nope\': pass scope "project", "user", "all" or '
            "context:NAME of a context the user added"
        )
    assert not [p for p in home.rglob("*") if "nope" in p.name]


def test_errors_name_tools_and_arguments_not_commands(server: Session) -> None:
    s = server
    memory_id = s.json("graphit_memory_insert", title="Raced", body="One.")["id"]
    s.ok("graphit_memory_update", id=memory_id, body="Two.")
    stale = s.error("graphit_memory_update", id=memory_id, body="Three.", expected_revision=1)
    assert stale == (
        f"Error: memory {memory_id} is at revision 2, not 1: it changed since it was read; "
        "read it again with graphit_memory_source"
    )
    missing = s.error("graphit_memory_source", id=f"{memory_id}/01JD00000000000000000000AA")
    assert "graphit memory" not in missing and "graphit_memory_source" in missing


def test_scope_all_outside_a_project_says_the_project_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.mcp.recall import recall
    from graphit_cli.mcp.server import respond
    from graphit_cli.mcp.tools import MemoryTools

    monkeypatch.chdir(tmp_path)  # no graphit.lock.json here or above, no GRAPHIT_PROJECT_ID
    tools = MemoryTools()
    for call in (
        lambda: tools.mandatory(scope="all", types=None, tags=None),
        lambda: tools.search("x", scope="all"),
        lambda: recall(tools, "x"),
    ):
        result = respond(tools, "text", call)
        assert result.is_error
        assert result.content[0].text == (
            'Error: scope "all" includes the project, but the server is not inside a graphit '
            "project (no graphit.lock.json in its working directory or above, and no "
            'GRAPHIT_PROJECT_ID): pass scope: "user" for the user scope alone'
        )
    user = respond(tools, "text", lambda: tools.mandatory(scope="user", types=None, tags=None))
    assert not user.is_error
    project = respond(tools, "text", lambda: tools.catalogue(scope="project"))
    assert project.content[0].text.endswith('or pass scope: "user"')


# --- the real MCP Inspector CLI -------------------------------------------------------------

INSPECTOR = ["npx", "-y", "@modelcontextprotocol/inspector", "--cli"]


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    if shutil.which("npx") is None:
        pytest.skip("node/npx is not installed")
    try:
        probe = subprocess.run([*INSPECTOR, "--help"], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.skip("the Inspector package could not be fetched in time")
    if probe.returncode != 0:
        pytest.skip(f"the Inspector package is not available: {probe.stderr.strip()[:200]}")
    return INSPECTOR


def _inspect(inspector: list[str], project: Path, *method: str) -> Any:
    # The Inspector refuses an empty value ("KEY="): pass only the variables that are set.
    env_args = [a for k, v in _env(project).items() if v for a in ("-e", f"{k}={v}")]
    done = subprocess.run(
        [*inspector, *env_args, sys.executable, "-m", "graphit_cli", "memory", "mcp", *method],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# The Inspector version with `--strict` (the cached unversioned package may be older).
STRICT_INSPECTOR = ["npx", "-y", "@modelcontextprotocol/inspector@2.12.0", "--cli"]
SERVER = [sys.executable, "-m", "graphit_cli", "memory", "mcp"]


@pytest.mark.slow  # node, npx and a server process
def test_the_inspector_finds_no_portability_problem(inspector: list[str], project: Path) -> None:
    env_args = [a for k, v in _env(project).items() if v for a in ("-e", f"{k}={v}")]
    done = subprocess.run(
        [*STRICT_INSPECTOR, *env_args, "--strict", "--method", "tools/list", *SERVER],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if "Unknown option" in done.stderr or "unknown option" in done.stderr:
        pytest.skip("this Inspector has no --strict")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["tools"]) == 15
    reported = [line for line in done.stderr.splitlines() if not line.startswith("npm warn")]
    assert not [line for line in reported if line.startswith(("Warning", "Error"))], reported


@pytest.mark.slow  # node, npx and a server process per call
def test_the_inspector_lists_and_calls_the_tools(
    inspector: list[str], server: Session, project: Path
) -> None:
    listed = _inspect(inspector, project, "--method", "tools/list")
    names = {t["name"] for t in listed["tools"]}
    assert names == set(_tools(server))
    assert all(t["outputSchema"]["type"] == "object" for t in listed["tools"])
    server.json(
        "graphit_memory_insert",
        title="Inspected memories are mandatory",
        body="Seen by the Inspector.",
        mandatory=True,
    )
    called = _inspect(
        inspector,
        project,
        "--method",
        "tools/call",
        "--tool-name",
        "graphit_memory_recall",
        "--tool-arg",
        "context=inspector",
    )
    assert called.get("isError") is not True, called
    assert "Seen by the Inspector." in called["content"][0]["text"]
    mandatory = called["structuredContent"]["mandatory"]
    assert "Inspected memories are mandatory" in [m["title"] for m in mandatory]
