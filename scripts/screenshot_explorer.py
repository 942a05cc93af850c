"""Screenshot the Memory Explorer for the README: a real server, a real browser, a seeded scope.

    .venv/bin/python scripts/screenshot_explorer.py [--out docs/explorer.png]

Seeds a realistic project scope in a temporary GRAPHIT_HOME (mandatory and important memories,
an edited memory with a revision chain, a table and code in its body), starts the Explorer on
127.0.0.1 with a free port, opens it in Debian's Chromium (/usr/bin/chromium, driven by
Playwright), selects the edited memory and saves the window as a PNG. Nothing outside the
temporary directory is touched; it is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PROJECT_ID = "01JF3XQ8V5T2M9K7H4C6B1N0RW"

RELEASE_V1 = """Releases go out from `main` on Tuesdays.

1. Tag the commit.
2. Run the deploy script.
"""

RELEASE_V3 = """Releases go out from `main` on **Tuesdays**, after the staging soak.

| environment | soak | who approves |
|---|---|---|
| staging | 24 h | the on-call engineer |
| production | - | the release owner |

```sh
make release VERSION=1.8.0
./scripts/deploy.sh --env production --wait
```

- [x] changelog updated
- [ ] announce in #releases

> Never release on a Friday: nobody is around to roll back.
"""

SEEDS = [
    dict(
        title="Run `make test` before every push",
        body="CI runs the same target; a red `main` blocks every release.",
        type="convention",
        tags=("ci", "testing"),
        mandatory=True,
    ),
    dict(
        title="The project is in development: no migrations needed",
        body="Schema changes may break old data; nothing is deployed to users yet, so there is "
        "no backward compatibility to keep and no data migration to write.",
        type="fact",
        tags=("lifecycle",),
        mandatory=True,
        important=True,
    ),
    dict(
        title="Postgres is the source of truth; Redis only caches",
        body="Every write goes to Postgres first. Redis entries expire after 10 minutes and may "
        "be flushed at any time.",
        type="decision",
        tags=("architecture", "storage"),
        important=True,
    ),
    dict(
        title="Prefer table-driven Go tests",
        body="Use table-driven cases for related scenarios: the shared setup keeps assertions "
        "consistent.",
        type="convention",
        tags=("go", "testing"),
    ),
    dict(
        title="Timeouts in the payment client are 30 s, not 5 s",
        body="The provider's sandbox answers slowly; 5 s caused false failures in CI.",
        type="correction",
        tags=("payments",),
    ),
    dict(
        title="Flaky test: test_upload_resume on the ARM runner",
        body="It races the temp-file cleanup; rerun once before investigating.",
        type="fact",
        tags=("ci", "flaky"),
    ),
    dict(
        title="Use uv, never pip, in the dev container",
        body="The lock file is uv's; pip ignores it.",
        type="preference",
        tags=("python", "tools"),
    ),
]


def seed(home: Path) -> str:
    """Write the memories; return the id of the edited release procedure."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    moments = (start + timedelta(hours=7 * i) for i in range(1000))
    service.clock = lambda: next(moments)
    authors = iter(["ana", "ana", "ben", "ana", "chen", "ben", "chen", "ana", "ben", "ana"])
    for fields in SEEDS:
        service.author = next(authors)
        service.upsert(MemoryDraft(**fields))  # type: ignore[arg-type]
    service.author = "ben"
    release = service.upsert(
        MemoryDraft(title="Release procedure", body=RELEASE_V1, type="procedure", tags=("ops",))
    ).memory
    service.author = "chen"
    service.upsert(MemoryDraft(id=release.id, body=RELEASE_V1 + "3. Announce in #releases.\n"))
    service.author = "ana"
    service.upsert(
        MemoryDraft(id=release.id, body=RELEASE_V3, tags=("ops", "release"), important=True)
    )
    return release.id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "explorer.png"))
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install -y chromium")

    temp = Path(tempfile.mkdtemp(prefix="graphit-screenshot-"))
    for name in [k for k in os.environ if k.startswith("GRAPHIT_")]:
        del os.environ[name]
    os.environ["GRAPHIT_HOME"] = str(temp / "home")
    project = temp / "checkout-service"
    project.mkdir()
    (project / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
    try:
        from playwright.sync_api import expect, sync_playwright

        from graphit_cli.explorer.server import ExplorerServer

        release_id = seed(temp)
        server = ExplorerServer(port=0, cwd=project)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        server.started.wait(60)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": args.width, "height": args.height})
                page.emulate_media(color_scheme="light")
                page.goto(server.url)
                page.locator(f"#list a[data-id='{release_id}']").click()
                expect(page.locator(".markdown-body table")).to_be_visible()
                expect(page.locator(".line-diff")).to_be_visible()
                out = Path(args.out)
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out))
                browser.close()
        finally:
            server.stop()
            thread.join(30)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    print(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out)


if __name__ == "__main__":
    sys.exit(main())
