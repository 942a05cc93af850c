"""The Explorer's HTTP API (the project's Explorer contract) over real LanceDB tables, through
Starlette's TestClient: every route, status and error string, and the security guard in front of
them."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.explorer.app import create_app
from graphit_cli.opening import open_service
from tests.conftest import PROJECT_ID

TOKEN = "test-token-0123456789"
BASE = "http://127.0.0.1:7420"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(project_dir: Path) -> Iterator[TestClient]:
    app = create_app(token=TOKEN, cwd=project_dir)
    with TestClient(app, base_url=BASE) as test_client:
        yield test_client


def fixed_clock(start: datetime) -> Any:
    """A clock that ticks one minute per call, so `updated_at` orders the writes."""
    moments = (start + timedelta(minutes=i) for i in range(10_000))
    return lambda: next(moments)


@pytest.fixture
def seeded(scope: Scope) -> dict[str, str]:
    """Five memories in a known canonical order, one of them edited and one deleted."""
    service = open_service(scope, embedder=lambda: None)
    service.clock = fixed_clock(datetime(2026, 11, 1, tzinfo=UTC))
    ids: dict[str, str] = {}

    def add(name: str, **fields: Any) -> None:
        ids[name] = service.upsert(MemoryDraft(**fields)).memory.id

    add("old", title="Old normal", body="An old normal cache note.", tags=("Go",))
    add(
        "mandatory",
        title="Always",
        body="Mandatory rule about caches.",
        mandatory=True,
        type="convention",
        tags=("policy",),
    )
    add(
        "important",
        title="Key fact",
        body="Important fact about deploys.",
        important=True,
        type="decision",
        tags=("go", "deploy"),
    )
    add("new", title="New normal", body="A newer normal note.", type="procedure")
    add("gone", title="Gone", body="This one is deleted.", type="tension", tags=("obsolete",))
    service.upsert(MemoryDraft(id=ids["old"], body="An old normal cache note, edited."))
    service.delete(ids["gone"])
    return ids


def get(client: TestClient, path: str, **params: Any) -> Any:
    return client.get(path, params=params, headers=AUTH)


def error_of(response: Any) -> str:
    return str(response.json()["error"])


# --- scopes -------------------------------------------------------------------------------------


def test_scopes_lists_project_user_and_known_contexts(
    client: TestClient, project_dir: Path
) -> None:
    open_service(Scope("context", "team-notes"), embedder=lambda: None)
    response = get(client, "/api/memories/scopes")
    assert response.status_code == 200
    assert response.json() == [
        {
            "id": "project",
            "label": f"Project {project_dir.name}",
            "scope_id": PROJECT_ID,
            "kind": "project",
        },
        {"id": "user", "label": "User anonymous", "scope_id": "anonymous", "kind": "user"},
        {
            "id": "context:team-notes",
            "label": "Context team-notes",
            "scope_id": "team-notes",
            "kind": "context",
        },
    ]


def test_unsupported_scope_and_bad_project_dir_are_400(client: TestClient, tmp_path: Path) -> None:
    for bad in ("bogus", "context:", "context:../x", "project:01JD"):
        response = get(client, "/api/memories", scope=bad)
        assert response.status_code == 400
        assert error_of(response) == f'unsupported memory scope "{bad}"'
    elsewhere = tmp_path / "not-a-project"
    elsewhere.mkdir()
    response = get(client, "/api/memories/scopes", project_dir=str(elsewhere))
    assert response.status_code == 400
    assert error_of(response) == f'project_dir "{elsewhere}" is not an initialised graphit project'


def test_project_dir_selects_another_project(client: TestClient, tmp_path: Path) -> None:
    other_id = "01JE0000000000000000000000"
    other = tmp_path / "other"
    other.mkdir()
    (other / "graphit.lock.json").write_text(json.dumps({"project": {"id": other_id}}))
    open_service(Scope("project", other_id), embedder=lambda: None).upsert(
        MemoryDraft(title="Elsewhere", body="In the other project.")
    )
    listed = get(client, "/api/memories", project_dir=str(other)).json()
    assert [r["title"] for r in listed["results"]] == ["Elsewhere"]
    assert get(client, "/api/memories").json()["total"] == 0
    scopes = get(client, "/api/memories/scopes", project_dir=str(other)).json()
    assert scopes[0]["scope_id"] == other_id


# --- the catalogue ------------------------------------------------------------------------------


def test_catalogue_lists_live_rows_in_canonical_order_with_facets(
    client: TestClient, seeded: dict[str, str]
) -> None:
    response = get(client, "/api/memories")
    assert response.status_code == 200
    data = response.json()
    # mandatory, important, then normal newest first (the edited "old" is the newest write)
    assert [r["id"] for r in data["results"]] == [
        seeded["mandatory"],
        seeded["important"],
        seeded["old"],
        seeded["new"],
    ]
    assert data["total"] == 4
    assert data["types"] == ["convention", "decision", "fact", "procedure"]  # not "tension"
    assert data["tags"] == ["Go", "deploy", "go", "policy"]
    first = data["results"][2]
    assert set(first) == {
        "id",
        "title",
        "type",
        "tags",
        "important",
        "mandatory",
        "created_at",
        "updated_at",
        "revision",
        "stale",  # null: outside a git checkout nothing is stale
    }
    assert first["stale"] is None
    assert first["revision"] == 2
    assert first["title"] == "Old normal"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", first["updated_at"])


def test_browse_pages_follow_the_canonical_order_of_the_catalogue(scope: Scope) -> None:
    """browse sorts summaries, not Memory rows: its order must stay the catalogue's."""
    service = open_service(scope, embedder=lambda: None)
    ticks = iter(range(1000))
    # every third write shares its timestamp with the one before: the id breaks the tie
    service.clock = lambda: (
        datetime(2026, 11, 1, tzinfo=UTC) + timedelta(seconds=next(ticks) // 3 * 2)
    )
    service.upsert_many(
        [
            MemoryDraft(title=f"M{i}", body=f"b {i}", important=i % 4 == 1, mandatory=i % 7 == 3)
            for i in range(40)
        ]
    )
    first = service.catalogue()[5]
    service.upsert(MemoryDraft(id=first.id, body="edited, so newest in its category"))
    service.delete(service.catalogue()[-1].id)
    paged = [
        e.memory.id
        for offset in range(0, 40, 7)
        for e in service.browse(limit=7, offset=offset).entries
    ]
    assert paged == [m.id for m in service.catalogue()]
    assert service.browse(limit=7).total == 39


def test_browse_search_pages_slice_one_selection(scope: Scope) -> None:
    service = open_service(scope, embedder=lambda: None)
    service.upsert_many(
        [
            MemoryDraft(title=f"Alpha {i}", body=f"alpha note {i}", important=i == 9)
            for i in range(12)
        ]
    )
    selected = [h.memory.id for h in service.search("alpha", top_k=5).hits]
    assert len(selected) == 5
    pages = [service.browse("alpha", top_k=5, limit=2, offset=o) for o in (0, 2, 4, 6)]
    assert [e.memory.id for p in pages for e in p.entries] == selected
    assert {p.total for p in pages} == {5}
    assert all(e.snippet and e.score for p in pages for e in p.entries)


def test_browse_sees_writes_from_other_handles(scope: Scope) -> None:
    """The live index is reused only while the table's version stands still."""
    explorer = open_service(scope, embedder=lambda: None)
    other = open_service(scope, embedder=lambda: None)  # another process, in effect
    other.upsert(MemoryDraft(title="First", body="one", tags=("a",)))
    assert explorer.browse().total == 1
    assert explorer.browse().tags == ["a"]
    created = other.upsert(MemoryDraft(title="Second", body="two", tags=("b",))).memory
    page = explorer.browse()
    assert (page.total, page.tags) == (2, ["a", "b"])
    other.delete(created.id)
    assert [e.memory.title for e in explorer.browse().entries] == ["First"]


def test_catalogue_filters_are_case_insensitive_and_facets_ignore_them(
    client: TestClient, seeded: dict[str, str]
) -> None:
    by_type = get(client, "/api/memories", type="DECISION").json()
    assert [r["id"] for r in by_type["results"]] == [seeded["important"]]
    assert by_type["total"] == 1
    assert by_type["types"] == ["convention", "decision", "fact", "procedure"]
    by_tag = get(client, "/api/memories", tag="GO").json()
    assert [r["id"] for r in by_tag["results"]] == [seeded["important"], seeded["old"]]
    assert get(client, "/api/memories", tag="nothing").json()["total"] == 0


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"important": "true"}, ["important"]),
        ({"important": "false"}, ["mandatory", "old", "new"]),
        ({"mandatory": "true"}, ["mandatory"]),
        ({"mandatory": "false", "important": "false"}, ["old", "new"]),
        ({"mandatory": "all", "important": ""}, ["mandatory", "important", "old", "new"]),
    ],
)
def test_catalogue_flag_filters(
    client: TestClient, seeded: dict[str, str], params: dict[str, str], expected: list[str]
) -> None:
    data = get(client, "/api/memories", **params).json()
    assert [r["id"] for r in data["results"]] == [seeded[name] for name in expected]


@pytest.mark.parametrize("name", ["important", "mandatory"])
def test_catalogue_flag_must_be_true_or_false(client: TestClient, name: str) -> None:
    response = get(client, "/api/memories", **{name: "yes"})
    assert response.status_code == 400
    assert error_of(response) == f"{name} must be true or false"


def test_catalogue_pages_with_limit_and_offset(client: TestClient, scope: Scope) -> None:
    service = open_service(scope, embedder=lambda: None)
    service.clock = fixed_clock(datetime(2026, 11, 1, tzinfo=UTC))
    service.upsert_many([MemoryDraft(title=f"M{i:02d}", body=f"body {i}") for i in range(12)])
    pages = [get(client, "/api/memories", limit=5, offset=o).json() for o in (0, 5, 10)]
    titles = [[r["title"] for r in p["results"]] for p in pages]
    assert titles == [
        ["M11", "M10", "M09", "M08", "M07"],
        ["M06", "M05", "M04", "M03", "M02"],
        ["M01", "M00"],
    ]
    assert {p["total"] for p in pages} == {12}
    assert get(client, "/api/memories", offset=40).json()["results"] == []
    for params, message in (
        ({"limit": "0"}, "limit must be an integer from 1 to 200"),
        ({"limit": "201"}, "limit must be an integer from 1 to 200"),
        ({"limit": "x"}, "limit must be an integer from 1 to 200"),
        ({"offset": "-1"}, "offset must be an integer of at least 0"),
    ):
        response = get(client, "/api/memories", **params)
        assert response.status_code == 400
        assert error_of(response) == message


def test_catalogue_query_uses_search_with_snippet_and_score(
    client: TestClient, seeded: dict[str, str]
) -> None:
    data = get(client, "/api/memories", query="cache").json()
    # both matches, in canonical order (mandatory first), deleted memories never listed
    assert [r["id"] for r in data["results"]] == [seeded["mandatory"], seeded["old"]]
    assert data["total"] == 2
    assert all("cache" in r["snippet"].lower() and r["score"] > 0 for r in data["results"])
    assert data["types"] == ["convention", "decision", "fact", "procedure"]
    filtered = get(client, "/api/memories", query="cache", mandatory="false").json()
    assert [r["id"] for r in filtered["results"]] == [seeded["old"]]
    assert get(client, "/api/memories", query="deleted").json()["results"] == []
    assert get(client, "/api/memories", query="zzzunmatched").json()["total"] == 0


# --- create -------------------------------------------------------------------------------------


def test_create_returns_201_and_the_trace_view(client: TestClient, scope: Scope) -> None:
    response = client.post(
        "/api/memories",
        headers=AUTH,
        json={
            "title": "Use uv",
            "body": "We install with **uv**.",
            "tags": ["python", "tools"],
            "important": True,
        },
    )
    assert response.status_code == 201
    trace = response.json()
    memory = trace["memory"]
    assert trace["current"] is True
    assert memory["type"] == "fact"  # no type: fact
    assert (memory["title"], memory["tags"], memory["important"], memory["mandatory"]) == (
        "Use uv",
        ["python", "tools"],
        True,
        False,
    )
    assert memory["body"] == "We install with **uv**."
    assert memory["body_html"] == "<p>We install with <strong>uv</strong>.</p>\n"
    assert (memory["scope"], memory["scope_id"], memory["key"]) == (
        "project",
        PROJECT_ID,
        memory["id"],
    )
    assert (memory["previous"], memory["next"], memory["revision"]) == (None, None, 1)
    assert memory["updated_by"] == "tester"
    assert len(memory["content_hash"]) == 64
    stamp = trace["revisions"][0].pop("provenance")  # stamped by graphit: the Explorer wrote it
    assert (
        (stamp["author"], stamp["via"])
        == ("tester", "explorer")
        == (
            memory["provenance"]["author"],
            memory["provenance"]["via"],
        )
    )
    assert trace["revisions"] == [
        {
            "revision_id": "",
            "revision": 1,
            "title": "Use uv",
            "updated_at": memory["updated_at"],
            "updated_by": "tester",
            "superseded": False,
            "key": memory["id"],
        }
    ]
    stored = open_service(scope, embedder=lambda: None).source(memory["id"])
    assert (stored.title, stored.important) == ("Use uv", True)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{not json", "invalid JSON body"),
        ("[1, 2]", "invalid JSON body"),
        ('{"title": "t"}', "title and body are required"),
        ('{"title": "  ", "body": "b"}', "title and body are required"),
        ('{"title": "t", "body": 5}', "title and body are required"),
        ('{"title": "t", "body": "b", "type": "bogus"}', 'invalid memory type "bogus"'),
        ('{"title": "t", "body": "b", "tags": "one"}', "tags must be a list of strings"),
        ('{"title": "t", "body": "b", "important": "yes"}', "important must be true or false"),
        ('{"title": "t", "body": "b", "colour": "red"}', 'unknown field "colour"'),
        ('{"title": "t", "body": "b", "revision": 1}', 'unknown field "revision"'),
    ],
)
def test_create_rejects_bad_input_and_writes_nothing(
    client: TestClient, scope: Scope, body: str, message: str
) -> None:
    response = client.post(
        "/api/memories", headers={**AUTH, "Content-Type": "application/json"}, content=body
    )
    assert response.status_code == 400
    assert error_of(response) == message
    assert open_service(scope, embedder=lambda: None).catalogue() == []


def test_create_reports_the_services_validation(client: TestClient, scope: Scope) -> None:
    response = client.post(
        "/api/memories", headers=AUTH, json={"title": "t", "body": "b", "tags": ["bad tag"]}
    )
    assert response.status_code == 400
    assert error_of(response).startswith("invalid tag 'bad tag'")
    assert open_service(scope, embedder=lambda: None).catalogue() == []


# --- read ---------------------------------------------------------------------------------------


def test_trace_view_walks_the_chain_newest_first(
    client: TestClient, seeded: dict[str, str]
) -> None:
    response = get(client, f"/api/memories/{seeded['old']}")
    assert response.status_code == 200
    trace = response.json()
    assert trace["current"] is True
    assert [r["revision"] for r in trace["revisions"]] == [2, 1]
    live, archived = trace["revisions"]
    assert (live["revision_id"], live["superseded"], live["key"]) == ("", False, seeded["old"])
    assert archived["superseded"] is True
    assert archived["key"] == f"{seeded['old']}/{archived['revision_id']}"
    assert trace["memory"]["previous"] == archived["key"]
    assert trace["memory"]["body"] == "An old normal cache note, edited."


def test_deleted_memory_shows_its_final_archive(client: TestClient, seeded: dict[str, str]) -> None:
    trace = get(client, f"/api/memories/{seeded['gone']}").json()
    assert trace["current"] is False
    assert trace["memory"]["superseded"] is True
    assert trace["memory"]["next"] is None
    assert trace["memory"]["title"] == "Gone"
    assert [r["key"] for r in trace["revisions"]] == [trace["memory"]["key"]]


@pytest.mark.parametrize("memory_id", ["01JZZZZZZZZZZZZZZZZZZZZZZZ", "not-an-id"])
def test_unknown_memory_is_404(client: TestClient, memory_id: str) -> None:
    response = get(client, f"/api/memories/{memory_id}")
    assert response.status_code == 404
    assert error_of(response) == "memory not found"


def test_archived_revision_by_address(client: TestClient, seeded: dict[str, str]) -> None:
    trace = get(client, f"/api/memories/{seeded['old']}").json()
    revision_id = trace["revisions"][1]["revision_id"]
    response = get(client, f"/api/memories/{seeded['old']}/revisions/{revision_id}")
    assert response.status_code == 200
    row = response.json()
    assert (row["revision"], row["body"], row["superseded"]) == (
        1,
        "An old normal cache note.",
        True,
    )
    assert row["next"] == seeded["old"]
    assert row["body_html"] == "<p>An old normal cache note.</p>\n"
    assert {
        "id",
        "title",
        "type",
        "tags",
        "important",
        "mandatory",
        "created_at",
        "updated_at",
        "revision",
    } <= set(row)
    for bad in ("01JZZZZZZZZZZZZZZZZZZZZZZZ", "nope"):
        missing = get(client, f"/api/memories/{seeded['old']}/revisions/{bad}")
        assert missing.status_code == 404
        assert error_of(missing) == "revision not found"


def test_body_html_is_gfm_and_carries_no_script(client: TestClient) -> None:
    body = (
        "| a | b |\n|:-|-:|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~\n\n```py\nprint(1)\n```\n\n"
        "<script>alert(1)</script> <img src=x onerror=alert(2)>\n\n"
        "[js](javascript:alert(3)) [vb](vbscript:x) [data](data:text/html,hi) "
        "![pic](data:image/png;base64,AAAA) [ok](https://example.org)"
    )
    created = client.post("/api/memories", headers=AUTH, json={"title": "GFM", "body": body})
    html = created.json()["memory"]["body_html"]
    assert '<th class="align-left">a</th>' in html and '<td class="align-right">2</td>' in html
    assert '<input class="task-list-item-checkbox" checked="checked" disabled="disabled"' in html
    assert "<s>old</s>" in html and "<pre><code>print(1)\n</code></pre>" in html
    assert '<img src="data:image/png;base64,AAAA" alt="pic">' in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">ok</a>' in html
    elements = parse_elements(html)
    assert "script" not in {tag for tag, _ in elements}
    assert not [name for _, attrs in elements for name in attrs if name.startswith("on")]
    links = [attrs["href"] for tag, attrs in elements if tag == "a"]
    assert links == ["https://example.org"]  # javascript:, vbscript:, data: left as text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as text, never as markup


def test_remote_images_become_links_and_no_img_fetches_a_host(client: TestClient) -> None:
    body = (
        "![pixel](https://tracker.example/p.png?who=me) ![](http://tracker.example/q.gif)\n\n"
        "![proto](//tracker.example/r.png) ![rel](pixel.png) ![ref][t]\n\n"
        "[![*inner*](https://tracker.example/s.png)](https://example.org)\n\n"
        "![inline](data:image/png;base64,AAAA)\n\n[t]: https://tracker.example/t.png"
    )
    created = client.post("/api/memories", headers=AUTH, json={"title": "Pix", "body": body})
    elements = parse_elements(created.json()["memory"]["body_html"])
    assert [attrs.get("src") for tag, attrs in elements if tag == "img"] == [
        "data:image/png;base64,AAAA"
    ]
    remote = [attrs["href"] for tag, attrs in elements if attrs.get("class") == "remote-image"]
    assert remote == [
        "https://tracker.example/p.png?who=me",
        "http://tracker.example/q.gif",
        "//tracker.example/r.png",
        "pixel.png",
        "https://tracker.example/t.png",
    ]
    # an image inside a link keeps only its alt text; the link stays
    assert [a["href"] for tag, a in elements if tag == "a" and "class" not in a] == [
        "https://example.org"
    ]
    html = created.json()["memory"]["body_html"]
    assert ">pixel</a>" in html and ">http://tracker.example/q.gif</a>" in html
    inner = '<a href="https://example.org" rel="noopener noreferrer nofollow"><em>inner</em></a>'
    assert inner in html


def parse_elements(html: str) -> list[tuple[str, dict[str, str]]]:
    """Every start tag of `html` with its attributes, as a browser's tokenizer sees them."""
    from html.parser import HTMLParser

    found: list[tuple[str, dict[str, str]]] = []

    class Collector(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, {k: v or "" for k, v in attrs}))

    Collector().feed(html)
    return found


# --- edit ---------------------------------------------------------------------------------------


def test_edit_makes_a_revision_and_tags_replace(client: TestClient, seeded: dict[str, str]) -> None:
    memory_id = seeded["important"]
    response = client.patch(
        f"/api/memories/{memory_id}",
        headers=AUTH,
        json={"body": "Deploys happen on Tuesdays.", "tags": ["release"], "revision": 1},
    )
    assert response.status_code == 200
    trace = response.json()
    assert trace["memory"]["revision"] == 2
    assert trace["memory"]["tags"] == ["release"]
    assert trace["memory"]["important"] is True  # left out: kept
    assert trace["memory"]["title"] == "Key fact"
    assert [r["revision"] for r in trace["revisions"]] == [2, 1]


def test_flag_change_and_unchanged_edit(client: TestClient, seeded: dict[str, str]) -> None:
    memory_id = seeded["new"]
    flagged = client.patch(f"/api/memories/{memory_id}", headers=AUTH, json={"mandatory": True})
    assert flagged.status_code == 200
    assert flagged.json()["memory"]["mandatory"] is True
    revision = flagged.json()["memory"]["revision"]
    same = client.patch(f"/api/memories/{memory_id}", headers=AUTH, json={"mandatory": True})
    assert same.status_code == 200
    assert same.json()["memory"]["revision"] == revision  # nothing changed: no revision
    listed = get(client, "/api/memories", mandatory="true").json()
    assert seeded["new"] in [r["id"] for r in listed["results"]]


def test_edit_with_a_stale_revision_is_409(client: TestClient, seeded: dict[str, str]) -> None:
    response = client.patch(
        f"/api/memories/{seeded['old']}", headers=AUTH, json={"title": "Late", "revision": 1}
    )
    assert response.status_code == 409
    assert "is at revision 2, not 1" in error_of(response)
    assert get(client, f"/api/memories/{seeded['old']}").json()["memory"]["title"] == "Old normal"


def test_edit_errors(client: TestClient, seeded: dict[str, str]) -> None:
    for memory_id in ("01JZZZZZZZZZZZZZZZZZZZZZZZ", seeded["gone"], "zzz"):
        response = client.patch(f"/api/memories/{memory_id}", headers=AUTH, json={"title": "x"})
        assert response.status_code == 404
        assert error_of(response) == "memory not found"
    cases = [
        ("{oops", "invalid JSON body"),
        ('{"type": "wish"}', 'invalid memory type "wish"'),
        ('{"title": ""}', "title must not be empty"),
        ('{"revision": "2"}', "revision must be a positive integer"),
        ('{"mandatory": 1}', "mandatory must be true or false"),
    ]
    for body, message in cases:
        response = client.patch(
            f"/api/memories/{seeded['new']}",
            headers={**AUTH, "Content-Type": "application/json"},
            content=body,
        )
        assert response.status_code == 400, body
        assert error_of(response) == message
    assert get(client, f"/api/memories/{seeded['new']}").json()["memory"]["revision"] == 1


# --- remove -------------------------------------------------------------------------------------


def test_remove_needs_confirm_first(client: TestClient, seeded: dict[str, str]) -> None:
    for target in (seeded["new"], "01JZZZZZZZZZZZZZZZZZZZZZZZ"):
        for suffix in ("", "?confirm=false", "?confirm=yes"):
            response = client.delete(f"/api/memories/{target}{suffix}", headers=AUTH)
            assert response.status_code == 409
            assert error_of(response) == "removal requires confirm=true"
    assert get(client, f"/api/memories/{seeded['new']}").json()["current"] is True


def test_remove_keeps_the_final_revision(client: TestClient, seeded: dict[str, str]) -> None:
    memory_id = seeded["new"]
    response = client.delete(f"/api/memories/{memory_id}?confirm=true", headers=AUTH)
    assert response.status_code == 200
    assert response.json() == {"id": memory_id, "removed": True}
    trace = get(client, f"/api/memories/{memory_id}").json()
    assert trace["current"] is False
    assert trace["memory"]["title"] == "New normal"
    assert memory_id not in [r["id"] for r in get(client, "/api/memories").json()["results"]]
    again = client.delete(f"/api/memories/{memory_id}?confirm=true", headers=AUTH)
    assert again.status_code == 404
    assert error_of(again) == "memory not found"


def test_restore_an_old_revision_and_a_removed_memory(
    client: TestClient, seeded: dict[str, str]
) -> None:
    def restore(memory_id: str, revision_id: str) -> Any:
        url = f"/api/memories/{memory_id}/revisions/{revision_id}/restore"
        return client.post(url, headers=AUTH, json={})

    old = seeded["old"]
    first = get(client, f"/api/memories/{old}").json()["revisions"][-1]
    restored = restore(old, first["revision_id"])
    assert restored.status_code == 200
    trace = restored.json()
    assert (trace["current"], trace["memory"]["revision"]) == (True, 3)
    assert trace["memory"]["body"] == "An old normal cache note."
    assert [r["revision"] for r in trace["revisions"]] == [3, 2, 1]

    # a removed memory comes back, and its chain still shows the delete
    gone = seeded["gone"]
    final = get(client, f"/api/memories/{gone}").json()["revisions"][0]
    back = restore(gone, final["revision_id"]).json()
    assert (back["current"], back["memory"]["revision"], back["memory"]["title"]) == (
        True,
        2,
        "Gone",
    )
    assert [r["revision"] for r in back["revisions"]] == [2, 1]
    assert gone in [r["id"] for r in get(client, "/api/memories").json()["results"]]

    # removed again, an older revision is restored: both deletes stay in the chain
    client.patch(f"/api/memories/{gone}", headers=AUTH, json={"body": "Edited.", "revision": 2})
    client.delete(f"/api/memories/{gone}?confirm=true", headers=AUTH)
    again = restore(gone, final["revision_id"]).json()
    assert again["memory"]["body"] == "This one is deleted."
    assert [r["revision"] for r in again["revisions"]] == [5, 4, 3, 2, 1]
    # revision 4 is revision 3 back as it was deleted, revision 5 the restored text
    rows = {
        r["revision"]: get(client, f"/api/memories/{gone}/revisions/{r['revision_id']}").json()
        for r in again["revisions"][1:]
    }
    assert rows[4]["content_hash"] == rows[3]["content_hash"] != again["memory"]["content_hash"]

    for memory_id, revision_id in ((old, "01JZZZZZZZZZZZZZZZZZZZZZZZ"), (old, "nope")):
        missing = restore(memory_id, revision_id)
        assert (missing.status_code, error_of(missing)) == (404, "revision not found")
    unknown = restore("01JZZZZZZZZZZZZZZZZZZZZZZZ", first["revision_id"])
    assert unknown.status_code == 404
    plain = client.post(
        f"/api/memories/{old}/revisions/{first['revision_id']}/restore",
        headers={**AUTH, "Content-Type": "text/plain"},
        content=b"{}",
    )
    assert plain.status_code == 403  # a mutation like the others: JSON only (CSRF)
    assert get(client, f"/api/memories/{old}").json()["memory"]["revision"] == 3


# --- security -----------------------------------------------------------------------------------


def test_no_token_is_401_and_a_wrong_one_403(client: TestClient, seeded: dict[str, str]) -> None:
    response = client.get("/api/memories")
    assert response.status_code == 401
    assert error_of(response).startswith("missing token")
    wrong = client.get("/api/memories", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert error_of(wrong) == "invalid token"
    deleted = client.delete(f"/api/memories/{seeded['new']}?confirm=true")
    assert deleted.status_code == 401
    assert get(client, f"/api/memories/{seeded['new']}").json()["current"] is True


def test_wrong_host_is_refused(client: TestClient) -> None:
    for host in ("evil.example:7420", "127.0.0.1.evil.example", "192.168.1.9:7420"):
        response = client.get("/api/memories", headers={**AUTH, "Host": host})
        assert response.status_code == 403
        assert error_of(response).startswith("host not allowed")
    page = client.get("/memory/explorer/project/", headers={"Host": "evil.example"})
    assert page.status_code == 403
    for host in ("localhost:7420", "127.0.0.1:7420", "LOCALHOST"):
        assert client.get("/api/memories", headers={**AUTH, "Host": host}).status_code == 200


def test_foreign_origin_and_non_json_mutations_are_refused(
    client: TestClient, scope: Scope, seeded: dict[str, str]
) -> None:
    payload = json.dumps({"title": "CSRF", "body": "should not land"})
    refused = [
        client.post(
            "/api/memories",
            content=payload,
            headers={**AUTH, "Content-Type": "application/json", "Origin": "http://evil.example"},
        ),
        client.post(
            "/api/memories",
            content=payload,
            headers={**AUTH, "Content-Type": "application/json", "Origin": "null"},
        ),
        client.post(
            "/api/memories",
            content=payload,
            headers={**AUTH, "Content-Type": "application/json", "Origin": "http://127.0.0.1:9999"},
        ),
        client.post(
            "/api/memories",
            content=payload,
            headers={**AUTH, "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
        ),
        client.delete(
            f"/api/memories/{seeded['new']}?confirm=true",
            headers={**AUTH, "Origin": "http://evil.example"},
        ),
    ]
    assert [r.status_code for r in refused] == [403] * 5
    assert error_of(refused[0]) == "cross-origin request refused"
    assert error_of(refused[3]) == "cross-site request refused"
    for content_type in ("text/plain", "application/x-www-form-urlencoded", ""):
        response = client.post(
            "/api/memories", content=payload, headers={**AUTH, "Content-Type": content_type}
        )
        assert response.status_code == 403
        assert error_of(response) == "mutations need Content-Type: application/json"
    form_patch = client.patch(
        f"/api/memories/{seeded['new']}",
        content="title=x",
        headers={**AUTH, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form_patch.status_code == 403
    titles = [m.title for m in open_service(scope, embedder=lambda: None).catalogue()]
    assert "CSRF" not in titles and "New normal" in titles
    own = client.post(
        "/api/memories",
        content=payload,
        headers={
            **AUTH,
            "Content-Type": "application/json; charset=utf-8",
            "Origin": BASE,
            "Sec-Fetch-Site": "same-origin",
        },
    )
    assert own.status_code == 201


def test_page_trades_the_token_for_a_strict_cookie(client: TestClient) -> None:
    assert client.get("/memory/explorer/project/").status_code == 401
    bad = client.get("/memory/explorer/project/?token=wrong", follow_redirects=False)
    assert bad.status_code == 403
    login = client.get(
        f"/memory/explorer/project/?project_dir=/x&token={TOKEN}", follow_redirects=False
    )
    assert login.status_code == 303
    assert login.headers["location"] == "/memory/explorer/project/?project_dir=%2Fx"
    cookie = login.headers["set-cookie"]
    assert cookie.startswith(f"graphit_explorer_7420={TOKEN};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    # the client keeps the cookie: the page and the API now answer without a header
    page = client.get("/memory/explorer/project/01JZZZZZZZZZZZZZZZZZZZZZZZ")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert client.get("/api/memories").status_code == 200


def test_every_response_carries_the_csp_and_the_page_has_no_inline_script(
    client: TestClient,
) -> None:
    client.get(f"/memory/explorer/project/?token={TOKEN}")
    responses = [
        client.get("/memory/explorer/project/"),
        client.get("/api/memories"),
        client.get("/api/memories/nothing/here"),
        client.get("/memory/explorer/static/explorer.js"),
        client.get("/api/memories", headers={"Host": "evil.example"}),
    ]
    for response in responses:
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "img-src 'self' data:;" in csp  # no remote image host, not even https:
        assert response.headers["x-content-type-options"] == "nosniff"
    html = responses[0].text
    assert re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S) == [""]  # no inline code
    elements = parse_elements(html)
    assert [a.get("src") for tag, a in elements if tag == "script"] == [
        "/memory/explorer/static/explorer.js"
    ]
    assert not [n for _, attrs in elements for n in attrs if n.startswith("on") or n == "style"]


def test_static_assets_need_no_token_but_the_host_check_still_applies(
    client: TestClient,
) -> None:
    script = client.get("/memory/explorer/static/explorer.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert client.get("/memory/explorer/static/explorer.css").status_code == 200
    assert (
        client.get(
            "/memory/explorer/static/explorer.js", headers={"Host": "evil.example"}
        ).status_code
        == 403
    )


def test_unknown_api_route_is_json_404(client: TestClient) -> None:
    response = get(client, "/api/memories/a/b/c")
    assert response.status_code == 404
    assert response.json() == {"error": "not found"}
    response = client.put("/api/memories", headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 405
    assert response.json() == {"error": "method not allowed"}


# --- S3 -----------------------------------------------------------------------------------------


def test_the_api_works_on_an_s3_scope(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The same routes over a table on S3 (moto on 127.0.0.1): the RemoteStore serves the
    catalogue's live index like the local store."""
    pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")
    from tests.s3_harness import MotoServer, use_moto

    moto = MotoServer()
    try:
        moto.client("s3").create_bucket(Bucket="graphit-explorer")
        use_moto(monkeypatch, moto.endpoint, "graphit-explorer", "team", tmp_path)
        with TestClient(create_app(token=TOKEN, cwd=project_dir), base_url=BASE) as client:
            created = client.post(
                "/api/memories",
                headers=AUTH,
                json={"title": "On S3", "body": "Remote.", "tags": ["s3"]},
            )
            assert created.status_code == 201
            memory_id = created.json()["memory"]["id"]
            edited = client.patch(
                f"/api/memories/{memory_id}", headers=AUTH, json={"body": "Remote, edited."}
            )
            assert [r["revision"] for r in edited.json()["revisions"]] == [2, 1]
            listed = get(client, "/api/memories").json()
            assert (listed["total"], listed["tags"]) == (1, ["s3"])
            assert listed["results"][0]["revision"] == 2
            assert get(client, "/api/memories", query="edited").json()["total"] == 1
            removed = client.delete(f"/api/memories/{memory_id}?confirm=true", headers=AUTH)
            assert removed.json() == {"id": memory_id, "removed": True}
            assert get(client, "/api/memories").json()["total"] == 0
        keys = moto.client("s3").list_objects_v2(Bucket="graphit-explorer", Prefix="team/")
        assert any(
            f"team/v2/projects/{PROJECT_ID}/memory/" in item["Key"] for item in keys["Contents"]
        )
        assert not (
            Path(os.environ["GRAPHIT_HOME"]) / "memory" / f"memory-project-{PROJECT_ID}"
        ).exists()
    finally:
        moto.stop()
