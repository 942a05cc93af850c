"""`StoreProxy`: a `Store` that passes every call to another store through one hook.

The two stores that wrap another one differ only in what happens around a call: the remote
store maps object-store failures and renews credentials (`store.s3.RemoteStore`), the
read-only store refuses writes (`ReadOnlyStore`, for an attached project). Each overrides a
hook (`_call` around every call, `_write` around the calls that change the table) instead of
forwarding by name, so mypy checks every method against the `Store` protocol (`open_store` and
`open_attached` return them as a `Store`), and a method added to the protocol fails the type
check until the proxy has it. No heavy imports.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, TypeVar

from graphit_cli.core.models import LexicalHit, LiveSummary, Memory, MemoryFilter, TableState
from graphit_cli.errors import AccessDenied
from graphit_cli.store.base import ImportPlan, MergeCounts, Store

R = TypeVar("R")


class StoreProxy:
    """Every `Store` method, each one `self._call(lambda store: store.<method>(...))`."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.uri = inner.uri

    def _call(self, op: Callable[[Store], R]) -> R:
        """Run `op` on the wrapped store (subclasses add what happens around it)."""
        return op(self.inner)

    def _write(self, op: Callable[[Store], R]) -> R:
        """A call that changes the table: through `_call` unless a subclass refuses it. Every
        write method of `RefusesWrites` goes through here (tests/test_access.py checks it)."""
        return self._call(op)

    # reads
    def snapshot(self) -> AbstractContextManager[None]:
        return self.inner.snapshot()

    def get(self, key: str, *, vectors: bool = False) -> Memory | None:
        return self._call(lambda s: s.get(key, vectors=vectors))

    def chain(self, memory_id: str) -> list[Memory]:
        return self._call(lambda s: s.chain(memory_id))

    def heads(
        self, memory_ids: list[str], *, vectors: bool = True
    ) -> dict[str, tuple[Memory | None, Memory | None]]:
        return self._call(lambda s: s.heads(memory_ids, vectors=vectors))

    def live(self, flt: MemoryFilter | None = None) -> list[Memory]:
        return self._call(lambda s: s.live(flt))

    def deleted_ids(self, memory_ids: list[str] | None = None) -> set[str]:
        return self._call(lambda s: s.deleted_ids(memory_ids))

    def live_with_hash(self, content_hash: str, limit: int = 5) -> list[Memory]:
        return self._call(lambda s: s.live_with_hash(content_hash, limit))

    def rows_for_keys(self, keys: list[str], *, vectors: bool = False) -> list[Memory]:
        return self._call(lambda s: s.rows_for_keys(keys, vectors=vectors))

    def rows(self) -> int:
        return self._call(lambda s: s.rows())

    def proposals(
        self, memory_ids: list[str] | None = None, *, statuses: tuple[str, ...] = ()
    ) -> list[Memory]:
        return self._call(lambda s: s.proposals(memory_ids, statuses=statuses))

    def count(self, where: str = "") -> int:
        return self._call(lambda s: s.count(where))

    # search
    def search_text(
        self,
        text: str,
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
        vector_flags: bool = True,
    ) -> list[LexicalHit]:
        return self._call(
            lambda s: s.search_text(
                text, limit, flt=flt, live_only=live_only, vector_flags=vector_flags
            )
        )

    def term_postings(self, terms: list[str], limit: int) -> dict[str, frozenset[int]]:
        return self._call(lambda s: s.term_postings(terms, limit))

    def search_vector(
        self,
        vector: list[float],
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
    ) -> list[tuple[Memory, float]]:
        return self._call(lambda s: s.search_vector(vector, limit, flt=flt, live_only=live_only))

    # embeddings
    def embedding_model(self) -> str | None:
        return self._call(lambda s: s.embedding_model())

    def set_embedding_model(self, model_id: str) -> None:
        self._write(lambda s: s.set_embedding_model(model_id))

    def clear_embeddings(self) -> None:
        self._write(lambda s: s.clear_embeddings())

    def missing_vectors(self) -> int:
        return self._call(lambda s: s.missing_vectors())

    def rows_to_embed(self, limit: int) -> list[Memory]:
        return self._call(lambda s: s.rows_to_embed(limit))

    def write_embeddings(self, items: list[tuple[str, str, list[float]]]) -> int:
        return self._write(lambda s: s.write_embeddings(items))

    # writes
    def merge(
        self,
        rows: list[Memory],
        *,
        delete_live: tuple[str, int] | None = None,
        chains_exist: bool = False,
    ) -> MergeCounts:
        return self._write(
            lambda s: s.merge(rows, delete_live=delete_live, chains_exist=chains_exist)
        )

    def version(self) -> int:
        return self._call(lambda s: s.version())

    def set_verified(self, memory_id: str, revision: int, moment: datetime) -> bool:
        return self._write(lambda s: s.set_verified(memory_id, revision, moment))

    def remove_exact(self, row: Memory) -> int:
        return self._write(lambda s: s.remove_exact(row))

    def decide(self, key: str, status: str, provenance_json: str) -> bool:
        return self._write(lambda s: s.decide(key, status, provenance_json))

    # index freshness and maintenance
    def fold_if_needed(self, written_rows: int = 1) -> str | None:
        return self._write(lambda s: s.fold_if_needed(written_rows))

    def optimize(self) -> None:
        self._write(lambda s: s.optimize())

    def refresh(self) -> None:
        self._call(lambda s: s.refresh())

    def has_vector_index(self) -> bool:
        return self._call(lambda s: s.has_vector_index())

    def build_vector_index(self, rows_with_vectors: int) -> None:
        self._write(lambda s: s.build_vector_index(rows_with_vectors))

    def state(self) -> TableState:
        return self._call(lambda s: s.state())

    def index_problems(self) -> list[str]:
        return self._call(lambda s: s.index_problems())

    def history_problems(self) -> list[str] | None:
        return self._call(lambda s: s.history_problems())

    def rebuild_indexes(self) -> None:
        self._write(lambda s: s.rebuild_indexes())

    # consolidation, the Explorer's catalogue, export and import
    def live_vectors(self) -> tuple[list[str], Any]:
        return self._call(lambda s: s.live_vectors())

    def live_index(self, flt: MemoryFilter | None = None) -> list[LiveSummary]:
        return self._call(lambda s: s.live_index(flt))

    def export_rows(self, *, archived: bool = False, vectors: bool = False) -> list[Memory]:
        return self._call(lambda s: s.export_rows(archived=archived, vectors=vectors))

    def import_rows(self, rows: list[Memory], plan: ImportPlan) -> MergeCounts | None:
        return self._write(lambda s: s.import_rows(rows, plan))

    def rewrite(self, rows: list[Memory]) -> int:
        return self._write(lambda s: s.rewrite(rows))

    def purge_history(self) -> None:
        self._write(lambda s: s.purge_history())


class ReadOnlyStore(StoreProxy):
    """A store whose writes are refused (an attached project is read, never written): every
    write raises `AccessDenied` naming `reason` before it reaches the wrapped store."""

    def __init__(self, inner: Store, reason: str) -> None:
        super().__init__(inner)
        self.reason = reason

    def _write(self, op: Callable[[Store], R]) -> R:
        raise AccessDenied(f"{self.reason}: write to that project instead")

    def fold_if_needed(self, written_rows: int = 1) -> str | None:
        return None  # no write happened, so nothing is left to fold
