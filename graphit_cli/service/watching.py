"""`Watching`: the Writer's store, keeping the scope's mandatory block current (mandatory.py).

Every write of the write path goes through it: a commit whose rows carry a mandatory flag (the
live row written, or the archive of the revision it replaces, which carries the flags it had)
or an id the block lists re-reads the scope's mandatory memories into the block; any other
commit (a memory that is not mandatory, a fold of the indexes) moves the block's version along
when the block was current before it. A scope without a block gets one at its first mandatory
write, or at the next session start that reads the table.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from graphit_cli.service import mandatory
from graphit_cli.store.proxy import StoreProxy

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import Memory
    from graphit_cli.store.base import ImportPlan, MergeCounts, Store

R = TypeVar("R")


class Watching(StoreProxy):
    def __init__(self, inner: Store, scope: Scope) -> None:
        super().__init__(inner)
        self.scope = scope

    def _write(self, op: Callable[[Store], R]) -> R:
        return self._watched(None, op)

    def _watched(self, rows: list[Memory] | None, op: Callable[[Store], R]) -> R:
        kept = mandatory.load(self.scope)
        current = kept is not None and kept.uri == self.uri
        before = self.inner.version() if current else 0
        if current and rows is None:  # embeddings, maintenance: trusted while they commit
            mandatory.quiet(self.scope, self.uri, before)
        try:
            result = self._call(op)
        except BaseException:
            if current and rows is None:
                mandatory.carry(self.scope, self.uri, before, before)  # no longer quiet
            raise
        try:
            touched = rows is not None and any(
                r.mandatory or (kept is not None and r.id in kept.ids) for r in rows
            )
            if touched:
                mandatory.refresh(self.inner, self.scope)
            elif current:
                mandatory.carry(self.scope, self.uri, before, self.inner.version())
        except Exception:  # the block is a cache: the write stands, the next reader refreshes
            pass
        return result

    def merge(
        self,
        rows: list[Memory],
        *,
        delete_live: tuple[str, int] | None = None,
        chains_exist: bool = False,
    ) -> MergeCounts:
        return self._watched(
            rows, lambda s: s.merge(rows, delete_live=delete_live, chains_exist=chains_exist)
        )

    def remove_exact(self, row: Memory) -> int:
        return self._watched([row], lambda s: s.remove_exact(row))

    def import_rows(self, rows: list[Memory], plan: ImportPlan) -> MergeCounts | None:
        return self._watched(rows, lambda s: s.import_rows(rows, plan))

    def rewrite(self, rows: list[Memory]) -> int:
        return self._watched(rows, lambda s: s.rewrite(rows))

    def set_verified(self, memory_id: str, revision: int, moment: datetime) -> bool:
        return self._watched([], lambda s: s.set_verified(memory_id, revision, moment))
