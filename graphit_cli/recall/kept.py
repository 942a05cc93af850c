"""Session start from the mandatory blocks kept beside the tables (service/mandatory.py).

`from_blocks` answers a session start without opening a table: the recall scopes' blocks, in
recall order, rendered as `session_answer` renders what it reads. It says whether every block
is known to be current (`fresh`: each local table at its block's version); the hook prints a
fresh answer at once, and a stale one only when the table gives no answer in time.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from graphit_cli.recall import render
from graphit_cli.recall.hook import Delivery, session_entry, stale_notes
from graphit_cli.service import mandatory as blocks

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import Memory


def from_blocks(
    project: Scope, root: str | None, client: str, session_id: str | None
) -> tuple[Delivery | None, bool]:
    """(the session start's answer from the kept blocks, whether all of them are fresh);
    (None, False) when no recall scope has a block."""
    from graphit_cli.portability import across

    scopes, _ = across.recall_scopes(project)
    found: list[Memory] = []
    seen: set[str] = set()
    fresh, any_block = True, False
    for scope in scopes:
        block = blocks.load(scope)
        if block is None:
            fresh = False
            continue
        any_block = True
        fresh = fresh and blocks.fresh(block)
        for memory in block.memories:
            if memory.content_hash in seen:
                continue
            seen.add(memory.content_hash)
            same = (memory.scope_kind, memory.scope_id) == (scope.kind, scope.id)
            found.append(
                memory if same else replace(memory, scope_kind=scope.kind, scope_id=scope.id)
            )
    if not any_block:
        return None, False
    text = render.session_block(found, stale_notes(found, root))
    entry = session_entry(client, session_id, found, len(text))
    return Delivery(text, [(m.id, m.revision) for m in found], entry), fresh
