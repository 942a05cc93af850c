"""What applying a plan needs from the table: the service, or a simulation of it (dry run)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from graphit_cli.core import revisions
from graphit_cli.core.models import Memory, MemoryDraft, WriteAction
from graphit_cli.errors import Conflict, NotFound

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService


class Table(Protocol):
    """What applying needs from the table: the service, or a simulation of it (dry run)."""

    def live(self, memory_id: str) -> Memory | None: ...

    def final(self, memory_id: str) -> Memory | None: ...

    def write(self, draft: MemoryDraft, members: Sequence[Memory] = ()) -> tuple[Memory, bool]: ...

    def delete(self, memory_id: str, expected_revision: int) -> Memory: ...

    def live_count(self) -> int: ...


class ServiceTable:
    """The scope's real table, through the service's public methods."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    def live(self, memory_id: str) -> Memory | None:
        try:
            return self.service.source(memory_id)
        except NotFound:
            return None

    def final(self, memory_id: str) -> Memory | None:
        try:
            chain = self.service.history(memory_id)
        except NotFound:
            return None
        last = chain[-1]
        return None if last.is_live else last

    def write(self, draft: MemoryDraft, members: Sequence[Memory] = ()) -> tuple[Memory, bool]:
        """Write `draft`; a merge's survivor names its `members`, whose provenance its
        revision keeps."""
        service = self.service.folding(members) if members else self.service
        result = service.upsert(draft)
        return result.memory, result.action is not WriteAction.UNCHANGED

    def delete(self, memory_id: str, expected_revision: int) -> Memory:
        """Remove the memory only while it is still the revision that was checked (the
        store's compare-and-swap): a concurrent edit makes this a Conflict, never a loss."""
        return self.service.delete(memory_id, expected_revision=expected_revision).memory

    def live_count(self) -> int:
        return len(self.service.catalogue())


class Simulation:
    """The table as the plan would leave it, in memory: a dry run predicts the apply."""

    def __init__(self, rows: Iterable[Memory], author: str, now: datetime) -> None:
        self.rows = {m.id: m for m in rows}
        self.gone: dict[str, Memory] = {}
        self.author = author
        self.now = now

    def live(self, memory_id: str) -> Memory | None:
        return self.rows.get(memory_id)

    def final(self, memory_id: str) -> Memory | None:
        return self.gone.get(memory_id)

    def write(self, draft: MemoryDraft, members: Sequence[Memory] = ()) -> tuple[Memory, bool]:
        assert draft.id is not None
        current = self.rows.get(draft.id)
        if current is None:
            final = self.gone.pop(draft.id)
            revived = revisions.plan_revive(final, draft, author=self.author, now=self.now)[1]
            self.rows[draft.id] = revived
            return revived, True
        if draft.expected_revision not in (None, current.revision):
            raise Conflict(f"memory {current.id} is at revision {current.revision}")
        revised = revisions.revise(current, draft, author=self.author, now=self.now)
        if revised is None:
            return current, False
        self.rows[draft.id] = revised
        return revised, True

    def delete(self, memory_id: str, expected_revision: int) -> Memory:
        current = self.rows[memory_id]
        if current.revision != expected_revision:
            raise Conflict(f"memory {memory_id} is at revision {current.revision}")
        final = self.rows.pop(memory_id)
        self.gone[memory_id] = final
        return final

    def live_count(self) -> int:
        return len(self.rows)
