"""The Explorer end to end in a real headless Chromium (Debian's package, driven by Playwright):
the real server on 127.0.0.1, real LanceDB tables, the page's own JavaScript.

Chromium is /usr/bin/chromium, or the one $CHROMIUM names. A plain `pytest` skips these tests
where it is missing; `make test` stops before it would (Makefile, `browser`), and CI installs
it (`apt-get install -y chromium`).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.explorer.server import ExplorerServer
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService

CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # DNS rebinding, for real: a foreign name that resolves to this machine's loopback.
    # and a "tracking pixel" host, so a request to it would reach a server the test watches.
    "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP tracker.example 127.0.0.1",
]

# How long a locator or an `expect` waits for the page: a bound against a hang, never a speed
# check (Playwright's own `expect` default, 5 s, failed on a loaded machine).
WAIT_MS = 60_000

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` runs the browser tests",
)

HOSTILE_BODY = """Nothing here may run.

<script>window.__pwned = "script"; alert("script")</script>

<img src="x" onerror="window.__pwned = 'onerror'; alert('onerror')">

<svg onload="window.__pwned = 'svg'"></svg>

[click me](javascript:window.__pwned='link';alert('link'))

[data link](data:text/html,<script>alert(1)</script>)
"""

TABLE_BODY = """## Ports

| service | port |
|---|--:|
| api | 8080 |
| explorer | 7420 |

```python
def answer() -> int:
    return 42
```
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@dataclass
class Watch:
    """What the page did that it must not: dialogs, console errors, uncaught exceptions."""

    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)


@pytest.fixture
def explorer(project_dir: Path) -> Iterator[ExplorerServer]:
    server = ExplorerServer(port=0, cwd=project_dir)
    thread = threading.Thread(target=server.run, name="explorer", daemon=True)
    thread.start()
    assert server.started.wait(60), "the explorer did not start"
    yield server
    server.stop()
    thread.join(30)
    assert not thread.is_alive()


@pytest.fixture
def page(browser: Any) -> Iterator[tuple[Any, Watch]]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    opened = context.new_page()
    watch = Watch()

    def on_dialog(dialog: Any) -> None:
        watch.dialogs.append(dialog.message)
        dialog.dismiss()

    opened.on("dialog", on_dialog)
    opened.on(
        "console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None
    )
    opened.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    opened.set_default_timeout(WAIT_MS)
    yield opened, watch
    context.close()


@pytest.fixture
def service(scope: Scope) -> MemoryService:
    opened = open_service(scope, embedder=lambda: None)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    moments = (start + timedelta(minutes=i) for i in range(10_000))
    opened.clock = lambda: next(moments)
    return opened


def test_catalogue_lists_filters_and_searches(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService, project_dir: Path
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    service.upsert(MemoryDraft(title="Old fact", body="Plain fact about caches.", tags=("cache",)))
    service.upsert(
        MemoryDraft(
            title="Deploy rule", body="Deploy on Tuesdays.", type="decision", important=True
        )
    )
    service.upsert(
        MemoryDraft(
            title="Always read",
            body="Mandatory cache policy.",
            type="convention",
            mandatory=True,
            tags=("Cache", "policy"),
        )
    )
    service.upsert(MemoryDraft(title="New fact", body="Newest fact.", tags=("misc",)))

    tab.goto(explorer.url)
    items = tab.locator("#list .item-title")
    expect(items).to_have_text(["Always read", "Deploy rule", "New fact", "Old fact"])
    assert tab.title() == f"Graphit Memory - Project {project_dir.name}"
    assert tab.url.endswith("/memory/explorer/project/")  # the token left the address bar
    expect(tab.locator("#count")).to_have_text("4 memories")
    expect(tab.locator("#list .item").first.locator(".badge.mandatory")).to_have_text("Mandatory")

    # the filters come from the facets and narrow the list
    assert tab.locator("#f-type option").all_inner_texts() == [
        "All",
        "convention",
        "decision",
        "fact",
    ]
    tab.select_option("#f-type", "fact")
    expect(items).to_have_text(["New fact", "Old fact"])
    tab.select_option("#f-type", "")
    expect(items).to_have_count(4)
    tab.select_option("#f-tag", "cache")  # tags match case-insensitively
    expect(items).to_have_text(["Always read", "Old fact"])
    expect(tab.locator("#count")).to_have_text("2 memories")
    tab.select_option("#f-tag", "")
    tab.select_option("#f-important", "true")
    expect(items).to_have_text(["Deploy rule"])
    expect(tab.locator("#count")).to_have_text("1 memory")
    tab.select_option("#f-important", "")
    expect(items).to_have_count(4)

    # the search box is debounced and shows snippets; the keyboard reaches it with "/"
    tab.locator("#detail").focus()
    tab.keyboard.press("/")
    tab.keyboard.type("cache")
    expect(tab.locator("#count")).to_have_text("2 matches")
    expect(items).to_have_text(["Always read", "Old fact"])
    expect(tab.locator("#list .item-snippet").first).to_contain_text("cache")
    assert watch.page_errors == [] and watch.console_errors == [] and watch.dialogs == []


def test_catalogue_pages_instead_of_loading_everything(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, _ = page
    service.upsert_many([MemoryDraft(title=f"M{i:03d}", body=f"body {i}") for i in range(120)])
    tab.goto(explorer.url)
    expect(tab.locator("#list .item")).to_have_count(50)
    expect(tab.locator("#range")).to_have_text("1–50 of 120")
    expect(tab.locator("#list .item-title").first).to_have_text("M119")
    tab.click("#next")
    expect(tab.locator("#range")).to_have_text("51–100 of 120")
    expect(tab.locator("#list .item").first.locator(".item-title")).to_have_text("M069")
    tab.click("#next")
    expect(tab.locator("#list .item")).to_have_count(20)
    assert tab.locator("#next").is_disabled()


def test_opening_a_memory_renders_gfm(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    memory = service.upsert(MemoryDraft(title="Ports", body=TABLE_BODY, tags=("ops",))).memory
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Ports").click()
    expect(tab.locator(".markdown-body table")).to_be_visible()
    assert tab.url.endswith(f"/memory/explorer/project/{memory.id}")
    headers = tab.locator(".markdown-body table th").all_inner_texts()
    assert headers == ["service", "port"]
    assert tab.locator(".markdown-body table td").all_inner_texts() == [
        "api",
        "8080",
        "explorer",
        "7420",
    ]
    assert tab.locator(".markdown-body td.align-right").count() == 2
    code = tab.locator(".markdown-body pre code").inner_text()
    assert code == "def answer() -> int:\n    return 42\n"
    expect(tab.locator(".markdown-body h2")).to_have_text("Ports")
    assert tab.locator("#memory-title").inner_text() == "Ports"
    expect(tab.locator("#memory-address")).to_have_text(f"{memory.id} · revision 1")
    expect(tab.locator("#state")).to_have_text("Current")
    expect(tab.locator(".meta")).to_contain_text(memory.content_hash)
    # the address is shareable: a fresh load at it shows the same memory
    tab.reload()
    expect(tab.locator("#memory-title")).to_have_text("Ports")
    assert watch.page_errors == [] and watch.console_errors == []


def test_a_hostile_body_executes_nothing(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    memory = service.upsert(MemoryDraft(title="Hostile", body=HOSTILE_BODY)).memory
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Hostile").click()
    body = tab.locator(".markdown-body")
    expect(body).to_contain_text("Nothing here may run.")
    expect(body).to_contain_text('<script>window.__pwned = "script"')  # shown as text
    assert body.locator("script, svg, iframe, [onerror], [onload]").count() == 0
    assert body.locator("img").count() == 0
    assert body.locator("a").count() == 0  # javascript: and data: links stay text
    text = body.get_by_text("click me")
    text.click()  # even clicking what was a javascript: link does nothing
    tab.locator("#memory-title").click()
    assert tab.evaluate("window.__pwned") is None
    assert tab.url.endswith(f"/memory/explorer/project/{memory.id}")
    assert watch.dialogs == []
    # a CSP violation would show up as a console error: nothing even tried to run
    assert watch.console_errors == [] and watch.page_errors == []


def test_edit_creates_a_revision_shown_in_the_timeline(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    memory = service.upsert(MemoryDraft(title="Install", body="We use pip.")).memory
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Install").click()
    expect(tab.locator("#timeline li")).to_have_count(1)
    tab.click("#edit")
    tab.fill("#ed-body", "We use uv.\n\nNever pip.")
    tab.fill("#ed-tags", "python, tools")
    tab.check("#ed-important")
    tab.click("#ed-save")
    expect(tab.locator("#timeline li")).to_have_count(2)
    expect(tab.locator("#memory-address")).to_have_text(f"{memory.id} · revision 2")
    assert tab.locator("#timeline .rev").all_inner_texts() == ["rev 2", "rev 1"]
    expect(tab.locator(".markdown-body")).to_contain_text("Never pip.")
    expect(tab.locator(".line-diff .del")).to_have_text(["- We use pip.\n"])
    assert tab.locator(".line-diff .add").all_inner_texts() == [
        "+ We use uv.\n",
        "+ \n",
        "+ Never pip.\n",
    ]
    expect(tab.locator(".tags")).to_contain_text("python")
    expect(tab.locator(".badge.important").first).to_be_visible()

    # the older revision has its own address, and shows as superseded
    tab.locator("#timeline a", has_text="rev 1").click()
    expect(tab.locator("#state")).to_have_text("Superseded")
    history = service.history(memory.id)
    assert tab.url.endswith(f"/memory/explorer/project/{history[0].key}")
    expect(tab.locator(".markdown-body")).to_have_text("We use pip.")
    assert tab.locator("#edit").count() == 0  # history is read-only
    tab.go_back()
    expect(tab.locator("#state")).to_have_text("Current")

    stored = service.source(memory.id)
    assert (stored.revision, stored.body, stored.tags, stored.important) == (
        2,
        "We use uv.\n\nNever pip.",
        ("python", "tools"),
        True,
    )
    assert watch.page_errors == [] and watch.console_errors == []


def test_create_and_flag_from_the_page_with_the_keyboard(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, _ = page
    tab.goto(explorer.url)
    expect(tab.locator("#count")).to_have_text("0 memories")
    tab.keyboard.press("n")
    expect(tab.locator("#ed-title")).to_be_focused()
    tab.keyboard.type("Release train")
    tab.select_option("#ed-type", "procedure")
    tab.fill("#ed-body", "Every **Tuesday**.")
    tab.locator("#ed-body").press("Control+Enter")
    expect(tab.locator("#memory-title")).to_have_text("Release train")
    expect(tab.locator("#list .item")).to_have_count(1)
    tab.click("#toggle-mandatory")
    expect(tab.locator("#toggle-mandatory")).to_have_text("Unmark mandatory")
    [created] = service.catalogue()
    assert (created.title, created.type, created.body, created.mandatory, created.revision) == (
        "Release train",
        "procedure",
        "Every **Tuesday**.",
        True,
        2,
    )


def test_remove_asks_first_and_only_removes_after_confirming(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    memory = service.upsert(MemoryDraft(title="Temporary", body="Remove me later.")).memory
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Temporary").click()
    tab.click("#remove")
    dialog = tab.locator("#confirm")
    expect(dialog).to_be_visible()
    expect(tab.locator("#confirm-text")).to_have_text(
        'Remove "Temporary"? The current record is removed and its final revision kept.'
    )
    tab.keyboard.press("Escape")  # cancelled: nothing happens
    expect(dialog).to_be_hidden()
    assert [m.id for m in service.catalogue()] == [memory.id]
    expect(tab.locator("#state")).to_have_text("Current")

    tab.click("#remove")
    tab.click("#confirm-cancel")
    expect(dialog).to_be_hidden()
    assert [m.id for m in service.catalogue()] == [memory.id]

    tab.click("#remove")
    tab.click("#confirm-remove")
    expect(tab.locator("#state")).to_have_text("Deleted")
    expect(tab.locator("#list .item")).to_have_count(0)
    assert service.catalogue() == []
    final = service.history(memory.id)[-1]
    assert (final.is_live, final.next, final.title) == (False, None, "Temporary")
    assert watch.dialogs == []  # the confirmation is in the page, not a browser dialog


class _Attacker(BaseHTTPRequestHandler):
    """A page on another origin (another port of 127.0.0.1: same site, other origin) that tries
    to write and delete through the Explorer's API with the victim's cookie."""

    target = ""
    victim = ""

    def do_GET(self) -> None:
        script = f"""
        window.results = [];
        async function attempt(name, url, init) {{
          try {{
            const r = await fetch(url, {{credentials: "include", ...init}});
            window.results.push(name + ":" + r.status + ":" + r.type);
          }} catch (e) {{ window.results.push(name + ":failed"); }}
        }}
        (async () => {{
          await attempt("json-post", "{self.target}/api/memories", {{method: "POST",
            headers: {{"Content-Type": "application/json"}},
            body: JSON.stringify({{title: "Injected", body: "by another origin"}})}});
          await attempt("simple-post", "{self.target}/api/memories", {{method: "POST",
            mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
            body: JSON.stringify({{title: "Injected", body: "by another origin"}})}});
          await attempt("delete", "{self.target}/api/memories/{self.victim}?confirm=true",
            {{method: "DELETE"}});
          window.done = true;
        }})();
        """
        html = f"<!doctype html><title>attacker</title><script>{script}</script>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(html)))
        self.end_headers()
        self.wfile.write(html)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_wrong_host_foreign_origin_and_no_token_are_refused(
    page: tuple[Any, Watch], browser: Any, explorer: ExplorerServer, service: MemoryService
) -> None:
    tab, _ = page
    victim = service.upsert(MemoryDraft(title="Precious", body="Keep me.")).memory
    port = explorer.port

    # no token: the page and the API refuse a browser that never opened the printed URL
    response = tab.goto(f"http://127.0.0.1:{port}/memory/explorer/project/")
    assert response is not None and response.status == 401
    assert "missing token" in tab.content()
    api = tab.request.get(f"http://127.0.0.1:{port}/api/memories")
    assert api.status == 401
    assert json.loads(api.text())["error"].startswith("missing token")

    # DNS rebinding: a foreign name that resolves to 127.0.0.1 is refused, even with the token
    query = re.sub(r"^http://[^/]+", "", explorer.url)
    rebound = tab.goto(f"http://evil.example:{port}{query}")
    assert rebound is not None and rebound.status == 403
    assert "host not allowed" in tab.content()

    # a foreign origin with the victim's cookie: log in first, then visit the attacker's page
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Precious").wait_for()
    _Attacker.target = f"http://127.0.0.1:{port}"
    _Attacker.victim = victim.id
    attacker = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    serving = threading.Thread(target=attacker.serve_forever, daemon=True)
    serving.start()
    try:
        tab.goto(f"http://127.0.0.1:{attacker.server_address[1]}/")
        tab.wait_for_function("window.done === true")
        results = tab.evaluate("window.results")
    finally:
        attacker.shutdown()
        attacker.server_close()
    # The JSON POST and the DELETE die in CORS preflight. The "simple" POST is sent (its
    # answer is withheld from the page by CORP): had the guard let it through, the memory
    # would be in the table. Nothing changed.
    assert results[0] == "json-post:failed"
    assert results[1] in ("simple-post:failed", "simple-post:0:opaque")
    assert results[2] == "delete:failed"
    assert [(m.id, m.title) for m in service.catalogue()] == [(victim.id, "Precious")]


class _Tracker(BaseHTTPRequestHandler):
    """A remote image host: records every request that reaches it."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Tracker.hits.append(self.path)
        pixel = bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d4944415478da63f8ffff3f0005fe02fe0dd4e5450000000049454e44ae426082"
        )
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(pixel)))
        self.end_headers()
        self.wfile.write(pixel)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def tracker() -> Iterator[str]:
    _Tracker.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tracker)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    yield f"tracker.example:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_remote_image_is_shown_as_a_link_and_never_fetched(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService, tracker: str
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    body = (
        f"Read me.\n\n![pixel](http://{tracker}/pixel.png?reader=1)\n\n"
        f"![](//{tracker}/protocol-relative.png)\n\n![ref][t]\n\n"
        f"[t]: http://{tracker}/reference.png\n"
    )
    service.upsert(MemoryDraft(title="Shared note", body=body))
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Shared note").click()
    rendered = tab.locator(".markdown-body")
    expect(rendered).to_contain_text("Read me.")
    assert rendered.locator("img").count() == 0
    links = rendered.locator("a.remote-image")
    expect(links).to_have_count(3)
    assert links.first.inner_text() == "pixel"
    assert links.first.get_attribute("href") == f"http://{tracker}/pixel.png?reader=1"

    # the CSP is the second wall: an <img> put in the page by script is refused too
    tab.evaluate(
        f"""() => {{ const img = document.createElement("img");
        img.src = "http://{tracker}/injected.png"; document.body.append(img); }}"""
    )
    tab.locator("#memory-title").click()
    tab.wait_for_timeout(300)  # room for a fetch to go out (none may)
    tab.reload()
    expect(tab.locator("#memory-title")).to_have_text("Shared note")
    assert _Tracker.hits == []
    assert [url for url in requested if "tracker.example" in url] == [] or all(
        "injected.png" in url for url in requested if "tracker.example" in url
    )
    assert watch.page_errors == []


def test_restore_brings_back_a_removed_memory_and_an_old_revision(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, watch = page
    memory = service.upsert(MemoryDraft(title="Runbook", body="Restart the worker.")).memory
    tab.goto(explorer.url)
    tab.locator("#list .item", has_text="Runbook").click()
    tab.click("#remove")
    tab.click("#confirm-remove")
    expect(tab.locator("#state")).to_have_text("Deleted")
    expect(tab.locator("#list .item")).to_have_count(0)

    # a removed memory: Restore brings it back as a new revision; the timeline keeps the delete
    expect(tab.locator("#restore")).to_have_text("Restore this memory")
    tab.click("#restore")
    expect(tab.locator("#state")).to_have_text("Current")
    expect(tab.locator("#memory-address")).to_have_text(f"{memory.id} · revision 2")
    expect(tab.locator("#list .item")).to_have_count(1)
    metas = tab.locator("#timeline .rev-meta")
    expect(metas.nth(0)).to_contain_text("current")
    expect(metas.nth(1)).to_contain_text("deleted")
    assert service.source(memory.id).body == "Restart the worker."

    # an old revision: opened from the timeline, restored as the newest revision
    service.upsert(MemoryDraft(id=memory.id, body="Reboot the host."))
    tab.reload()
    expect(tab.locator("#memory-address")).to_have_text(f"{memory.id} · revision 3")
    tab.locator("#timeline a", has_text="rev 2").click()
    expect(tab.locator("#state")).to_have_text("Superseded")
    expect(tab.locator("#restore")).to_have_text("Restore this revision")
    tab.click("#restore")
    expect(tab.locator("#memory-address")).to_have_text(f"{memory.id} · revision 4")
    expect(tab.locator("#state")).to_have_text("Current")
    expect(tab.locator(".markdown-body")).to_have_text("Restart the worker.")
    assert tab.url.endswith(f"/memory/explorer/project/{memory.id}")
    assert [(m.revision, m.body) for m in service.history(memory.id)][-2:] == [
        (3, "Reboot the host."),
        (4, "Restart the worker."),
    ]
    expect(metas).to_have_count(4)
    expect(metas.nth(3)).to_contain_text("deleted")  # revision 1, still
    assert watch.page_errors == [] and watch.console_errors == []


def test_a_slow_first_search_shows_that_it_is_searching(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    tab, _ = page
    service.upsert(MemoryDraft(title="Cache policy", body="Caches expire hourly."))
    service.upsert(MemoryDraft(title="Deploys", body="On Tuesdays."))
    tab.goto(explorer.url)
    expect(tab.locator("#list .item")).to_have_count(2)
    held: list[Any] = []  # the search request, kept waiting as if the model were loading
    tab.route(re.compile(r"/api/memories\?.*query="), lambda route: held.append(route))
    tab.fill("#search", "caches")
    expect(tab.locator("#count")).to_have_text("Searching…")
    expect(tab.locator("#list")).to_have_class(re.compile(r"\bloading\b"))
    expect(tab.locator("#list")).to_have_attribute("aria-busy", "true")
    # The page may say "Searching…" before its request is out (the search is debounced, and a
    # busy machine delays the route's callback): wait for the request, a bound against a hang.
    deadline = time.monotonic() + WAIT_MS / 1000
    while not held:
        assert time.monotonic() < deadline, "the page never sent its search"
        tab.wait_for_timeout(50)  # lets Playwright deliver the route's callback
    tab.wait_for_timeout(200)  # a second request, had the page sent one, shows up too
    assert len(held) == 1
    held[0].continue_()
    expect(tab.locator("#count")).to_have_text("1 match")
    expect(tab.locator("#list .item-title")).to_have_text(["Cache policy"])
    expect(tab.locator("#list")).not_to_have_class(re.compile(r"\bloading\b"))
    assert tab.locator("#list").get_attribute("aria-busy") is None


def test_a_narrow_window_keeps_new_memory_on_screen(
    browser: Any, explorer: ExplorerServer, service: MemoryService
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 420, "height": 800})
    try:
        tab = context.new_page()
        tab.set_default_timeout(WAIT_MS)
        service.upsert(MemoryDraft(title="Narrow", body="Seen on a phone."))
        tab.goto(explorer.url)
        expect(tab.locator("#list .item")).to_have_count(1)
        for selector in ("#new", "#scope", "#search"):
            box = tab.locator(selector).bounding_box()
            assert box is not None and box["x"] >= 0, selector
            assert box["x"] + box["width"] <= 420, f"{selector} is cut off: {box}"
        assert tab.evaluate("document.documentElement.scrollWidth") <= 420
        tab.click("#new")
        expect(tab.locator("#ed-title")).to_be_focused()
    finally:
        context.close()


def test_the_recalls_panel_shows_each_hook_call_and_its_outcome(
    page: tuple[Any, Watch], explorer: ExplorerServer, service: MemoryService
) -> None:
    """The panel renders the log's entries as text (it once showed `[object HTMLElement]`),
    with what became of each call: shown, late."""
    from playwright.sync_api import expect

    from graphit_cli.core.models import MemoryFilter
    from graphit_cli.recall import log
    from graphit_cli.recall.hook import PromptRequest, prompt_context

    tab, watch = page
    tab.goto(explorer.url)
    tab.locator("#recalls").click()
    expect(tab.locator("#detail")).to_contain_text("No hook call recorded yet.")

    service.upsert(MemoryDraft(title="The CI pip cache lives in the ci-cache bucket", body="b"))
    [memory] = service.catalogue(MemoryFilter())
    ask = PromptRequest("where does the ci pip cache live?", "sess-1", mode="fts")
    assert memory.id in prompt_context([service], ask)
    log.append({"event": "prompt", "client": "claude-code", "session": "sess-1",
                "prompt": "and the wheel cache?", "outcome": "late", "ms": 812,
                "waiting": "the search in this process"})  # fmt: skip
    tab.locator("#recalls").click()
    panel = tab.locator("#detail")
    expect(panel).to_contain_text("Session sess-1 (claude-code)")
    text = panel.inner_text()
    assert "[object" not in text, text
    assert f"+ The CI pip cache lives in the ci-cache bucket ({memory.id}" in text, text
    assert '"where does the ci pip cache live?"' in text and "shown, " in text, text
    assert "late (812 ms, waiting for the search in this process): nothing shown" in text, text
    assert watch.page_errors == [] and watch.console_errors == [] and watch.dialogs == []
