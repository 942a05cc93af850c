"""`graphit memory verify` and `graphit memory stale`: memories checked against the code.

Registered on the `memory` group (`cli/app.py` imports this module). The check itself is
`graphit_cli.anchors` (read-time, for this checkout; never stored).
"""

from __future__ import annotations

from typing import Annotated

import typer

from graphit_cli.cli import common, output
from graphit_cli.cli.client import ScopeClient
from graphit_cli.cli.common import (
    CHECK,
    DOCUMENT,
    TEXT,
    DocumentFormatOpt,
    Format,
    ScopeOpt,
    TextFormatOpt,
    UserOpt,
    handle_errors,
    note,
)
from graphit_cli.cli.memory import memory_app


@memory_app.command(rich_help_panel=CHECK)
@handle_errors
def verify(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory that still holds.")],
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: DocumentFormatOpt = None,
) -> None:
    """Record that a memory still holds (its verified_at becomes now; no new revision).

    Use it after checking a memory `graphit memory stale` lists, when it is still right;
    when it is wrong, fix it with `graphit memory upsert --id ID` instead.
    """
    memory = ScopeClient(scope, user).service.verify(memory_id)
    output.one(memory, DOCUMENT.resolve(fmt))


@memory_app.command(rich_help_panel=CHECK)
@handle_errors
def stale(
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: TextFormatOpt = None,
) -> None:
    """List the memories whose anchors broke in this checkout, oldest-verified first.

    An anchor is what a memory names in the project (a path, a symbol, a make target); it
    breaks when the path is gone (with its new name when git saw a rename), the symbol is no
    longer defined where it was, or the target is gone. Each line names the commit that broke
    it. Fix each with `graphit memory upsert --id ID`, or `graphit memory verify ID`.
    """
    from datetime import UTC, datetime

    from graphit_cli import anchors
    from graphit_cli.core.models import MemoryFilter
    from graphit_cli.formats import render

    root = anchors.checkout_root()
    live = ScopeClient(scope, user).catalogue(MemoryFilter(), None)
    found = anchors.check(live, root)
    oldest = datetime.min.replace(tzinfo=UTC)
    listed = sorted(
        (m for m in live if m.id in found),
        key=lambda m: (m.verified_at or oldest, m.id),
    )
    fmt = TEXT.resolve(fmt)
    if fmt in (Format.json, Format.ndjson):
        rows = []
        with render.staleness(found):
            for m in listed:
                row = render.to_dict(m)
                for item, broken in zip(row["stale"], found[m.id], strict=True):
                    item["broken_by"] = anchors.broken_by(root, broken)
                rows.append(row)
        text = render.dumps_json(rows) if fmt is Format.json else render.dumps_ndjson(rows)
        common.out(text)
        return
    for m in listed:
        verified = render.format_time(m.verified_at) if m.verified_at else "never"
        common.out(f"{m.id}  {m.title}  (verified {verified})\n")
        for broken in found[m.id]:
            by = anchors.broken_by(root, broken)
            common.out(f"  {broken.describe()}" + (f"  [broken by {by}]" if by else "") + "\n")
    if not listed:
        note("No stale memories: every anchor holds in this checkout.")
