"""The Explorer's review queue in a real headless Chromium: a reviewer approves one agent's
proposal and rejects another with a reason; the catalogue then shows the approved text with its
provenance, and never the rejected one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphit_cli.access.policy import ReviewPolicy
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.core.provenance import Provenance
from graphit_cli.explorer.server import ExplorerServer
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from tests.conftest import PROJECT_ID
from tests.test_explorer_browser import (  # noqa: F401  (the fixtures: browser, page, server)
    WAIT_MS,
    Watch,
    browser,
    explorer,
    page,
    pytestmark,
)


def test_the_review_queue_approves_and_rejects(
    page: tuple[Any, Watch],  # noqa: F811
    explorer: ExplorerServer,  # noqa: F811
    project_dir: Path,
) -> None:
    from playwright.sync_api import expect

    lock = {"project": {"id": PROJECT_ID}, "review": {"reviewers": ["tester"]}}
    (project_dir / "graphit.lock.json").write_text(json.dumps(lock))
    scope = Scope("project", PROJECT_ID)
    store = open_service(scope, embedder=lambda: None).store
    policy = ReviewPolicy(("tester",))

    def as_(author: str, via: str) -> MemoryService:
        stamp = Provenance(author=author, via=via, client="agent-one")
        return MemoryService(store, scope, provenance=stamp, review=policy, embedder=lambda: None)

    base = as_("tester", "cli").upsert(MemoryDraft(title="Deploys", body="Deploy on Tuesdays."))
    agent = as_("ana@example.com", "mcp")
    agent.upsert(MemoryDraft(id=base.memory.id, body="Deploy on Tuesdays and Thursdays."))
    agent.upsert(MemoryDraft(title="Guess", body="The cache is probably Redis."))

    tab, watch = page
    tab.goto(explorer.url)
    expect(tab.locator("#list .item-title")).to_have_text(["Deploys"])
    tab.click("#review")
    expect(tab.locator("#review-policy")).to_contain_text("Reviewers: tester. You are tester.")
    proposals = tab.locator("#queue .proposal")
    expect(proposals).to_have_count(2)
    expect(proposals.nth(0)).to_contain_text("Deploys (update)")
    expect(proposals.nth(0).locator(".diff-text")).to_contain_text("+Deploy on Tuesdays and")
    expect(proposals.nth(1)).to_contain_text("ana@example.com · via mcp · agent-one")

    proposals.nth(0).locator(".approve").click()
    expect(proposals).to_have_count(1)
    proposals.nth(0).locator(".reject").click()  # no reason: refused with a word
    expect(tab.locator("#status")).to_contain_text("Give the reason")
    expect(proposals).to_have_count(1)
    proposals.nth(0).locator(".reason").fill("a guess, not a fact")
    proposals.nth(0).locator(".reject").click()
    expect(tab.locator("#queue-empty")).to_have_text("No open proposals.")

    expect(tab.locator("#list .item-title")).to_have_text(["Deploys"])
    tab.locator("#list .item-title").first.click()
    expect(tab.locator(".markdown-body")).to_contain_text("Deploy on Tuesdays and Thursdays.")
    expect(tab.locator(".meta")).to_contain_text("approved by tester")
    expect(tab.locator(".meta")).to_contain_text("ana@example.com · via mcp")
    assert "Redis" not in tab.locator("#list").inner_text()
    assert watch.page_errors == [] and watch.console_errors == [] and watch.dialogs == []
    assert WAIT_MS > 0
