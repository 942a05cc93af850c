"""The store of a scope that has no table yet: every read answers as an empty table would, and
nothing is created (a read never makes a table; the first write does).

`opening.open_reader` hands it out when a read names a scope without a table, so
`list`, `search`, `source`, `history` and `recall` answer exactly as on an empty table (the
same service code runs over it) and leave no directory or object behind. A write through it
is a bug in the caller: it is refused, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from graphit_cli.core.models import LexicalHit, LiveSummary, Memory, MemoryFilter, TableState
from graphit_cli.errors import StorageUnavailable
from graphit_cli.store.base import RefusesWrites


class EmptyStore(RefusesWrites):
    """A Store with no rows, for reading a scope whose table does not exist; a write through
    it is refused (`RefusesWrites`), never silently dropped."""

    def __init__(self, uri: str) -> None:
        self.uri = uri

    def refusal(self) -> StorageUnavailable:
        return StorageUnavailable(f"no memory table at {self.uri}")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        yield

    def get(self, key: str, *, vectors: bool = False) -> Memory | None:
        return None

    def chain(self, memory_id: str) -> list[Memory]:
        return []

    def heads(
        self, memory_ids: list[str], *, vectors: bool = True
    ) -> dict[str, tuple[Memory | None, Memory | None]]:
        return {i: (None, None) for i in memory_ids}

    def live(self, flt: MemoryFilter | None = None) -> list[Memory]:
        return []

    def deleted_ids(self, memory_ids: list[str] | None = None) -> set[str]:
        return set()

    def live_with_hash(self, content_hash: str, limit: int = 5) -> list[Memory]:
        return []

    def rows_for_keys(self, keys: list[str], *, vectors: bool = False) -> list[Memory]:
        return []

    def rows(self) -> int:
        return 0

    def proposals(
        self, memory_ids: list[str] | None = None, *, statuses: tuple[str, ...] = ()
    ) -> list[Memory]:
        return []

    def count(self, where: str = "") -> int:
        return 0

    def search_text(
        self,
        text: str,
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
        vector_flags: bool = True,
    ) -> list[LexicalHit]:
        return []

    def term_postings(self, terms: list[str], limit: int) -> dict[str, frozenset[int]]:
        return {t: frozenset() for t in terms}

    def search_vector(
        self,
        vector: list[float],
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
    ) -> list[tuple[Memory, float]]:
        return []

    def embedding_model(self) -> str | None:
        return None

    def missing_vectors(self) -> int:
        return 0

    def rows_to_embed(self, limit: int) -> list[Memory]:
        return []

    def version(self) -> int:
        return 0

    def has_vector_index(self) -> bool:
        return False

    def state(self) -> TableState:
        return TableState(0, 0, 0, 0, 0, 0, 0, False, 0, 0, 0)

    def index_problems(self) -> list[str]:
        return []

    def history_problems(self) -> list[str]:
        return []

    def live_vectors(self) -> tuple[list[str], Any]:
        return [], None

    def live_index(self, flt: MemoryFilter | None = None) -> list[LiveSummary]:
        return []

    def export_rows(self, *, archived: bool = False, vectors: bool = False) -> list[Memory]:
        return []

    def refresh(self) -> None:
        return None
