"""The Store protocol: what the service asks of a scope's table, local or remote.

`store.lance.MemoryStore` implements it over a LanceDB table; `store.s3.RemoteStore` wraps one
for S3 (error mapping, credential renewal). Callers speak in Memory rows, MemoryFilters and
plain values; only the implementations speak SQL. Pure typing: no heavy imports.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from graphit_cli.core.models import LexicalHit, LiveSummary, Memory, MemoryFilter, TableState


@dataclass(frozen=True)
class MergeCounts:
    inserted: int
    updated: int
    deleted: int
    version: int  # the table version this commit created


class Store(Protocol):
    """One scope's authoritative table."""

    uri: str

    # reads: each sees every commit made before it began; inside `snapshot()`, the reads up
    # to the next write share one look for newer commits (one S3 LIST instead of one per read)
    # and one version of the table, whatever other requests on other threads do meanwhile
    def snapshot(self) -> AbstractContextManager[None]: ...
    def get(self, key: str, *, vectors: bool = False) -> Memory | None: ...
    def chain(self, memory_id: str) -> list[Memory]: ...
    def heads(
        self, memory_ids: list[str], *, vectors: bool = True
    ) -> dict[str, tuple[Memory | None, Memory | None]]: ...
    def live(self, flt: MemoryFilter | None = None) -> list[Memory]: ...
    def deleted_ids(self, memory_ids: list[str] | None = None) -> set[str]: ...
    def live_with_hash(self, content_hash: str, limit: int = 5) -> list[Memory]: ...
    def rows_for_keys(self, keys: list[str], *, vectors: bool = False) -> list[Memory]: ...
    def rows(self) -> int: ...
    # review: proposal rows, which no other read returns (core/provenance.py)
    def proposals(
        self, memory_ids: list[str] | None = None, *, statuses: tuple[str, ...] = ()
    ) -> list[Memory]: ...
    def count(self, where: str = "") -> int: ...

    # search
    def search_text(
        self,
        text: str,
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
        vector_flags: bool = True,
    ) -> list[LexicalHit]: ...
    def term_postings(self, terms: list[str], limit: int) -> dict[str, frozenset[int]]: ...
    def search_vector(
        self,
        vector: list[float],
        limit: int,
        *,
        flt: MemoryFilter | None = None,
        live_only: bool = False,
    ) -> list[tuple[Memory, float]]: ...

    # embeddings
    def embedding_model(self) -> str | None: ...
    def set_embedding_model(self, model_id: str) -> None: ...
    def clear_embeddings(self) -> None: ...
    def missing_vectors(self) -> int: ...
    def rows_to_embed(self, limit: int) -> list[Memory]: ...
    def write_embeddings(self, items: list[tuple[str, str, list[float]]]) -> int: ...

    # writes
    def merge(
        self,
        rows: list[Memory],
        *,
        delete_live: tuple[str, int] | None = None,
        chains_exist: bool = False,
    ) -> MergeCounts: ...
    def version(self) -> int: ...
    def set_verified(self, memory_id: str, revision: int, moment: datetime) -> bool: ...
    def remove_exact(self, row: Memory) -> int: ...
    def decide(self, key: str, status: str, provenance_json: str) -> bool: ...

    # index freshness and maintenance
    def fold_if_needed(self, written_rows: int = 1) -> str | None: ...
    def optimize(self) -> None: ...
    def refresh(self) -> None: ...
    def has_vector_index(self) -> bool: ...
    def build_vector_index(self, rows_with_vectors: int) -> None: ...
    def state(self) -> TableState: ...

    # `graphit memory doctor`
    def index_problems(self) -> list[str]: ...
    def history_problems(self) -> list[str] | None: ...
    def rebuild_indexes(self) -> None: ...

    # consolidation
    def live_vectors(self) -> tuple[list[str], Any]: ...

    # the Explorer's catalogue
    def live_index(self, flt: MemoryFilter | None = None) -> list[LiveSummary]: ...

    # export and import (portability)
    def export_rows(self, *, archived: bool = False, vectors: bool = False) -> list[Memory]: ...
    def import_rows(
        self,
        rows: list[Memory],
        plan: Callable[[list[Memory], list[Memory]], tuple[list[Memory], list[str]]],
    ) -> MergeCounts | None: ...

    # redaction of a secret (`graphit memory redact`)
    def rewrite(self, rows: list[Memory]) -> int: ...
    def purge_history(self) -> None: ...


ImportPlan = Callable[[list[Memory], list[Memory]], tuple[list[Memory], list[str]]]


class RefusesWrites:
    """The write half of `Store` for a store that must never write: every method that changes
    the table raises `refusal()`; folding the indexes after a write is a no-op, since no write
    happens. The base of `EmptyStore` (a scope without a table), which names its refusal; its
    methods are also the list of writes `StoreProxy` sends through `_write`."""

    def refusal(self) -> Exception:
        raise NotImplementedError

    def set_embedding_model(self, model_id: str) -> None:
        raise self.refusal()

    def clear_embeddings(self) -> None:
        raise self.refusal()

    def write_embeddings(self, items: list[tuple[str, str, list[float]]]) -> int:
        raise self.refusal()

    def merge(
        self,
        rows: list[Memory],
        *,
        delete_live: tuple[str, int] | None = None,
        chains_exist: bool = False,
    ) -> MergeCounts:
        raise self.refusal()

    def set_verified(self, memory_id: str, revision: int, moment: datetime) -> bool:
        raise self.refusal()

    def remove_exact(self, row: Memory) -> int:
        raise self.refusal()

    def decide(self, key: str, status: str, provenance_json: str) -> bool:
        raise self.refusal()

    def fold_if_needed(self, written_rows: int = 1) -> str | None:
        return None

    def optimize(self) -> None:
        raise self.refusal()

    def build_vector_index(self, rows_with_vectors: int) -> None:
        raise self.refusal()

    def import_rows(self, rows: list[Memory], plan: ImportPlan) -> MergeCounts | None:
        raise self.refusal()

    def rebuild_indexes(self) -> None:
        raise self.refusal()

    def rewrite(self, rows: list[Memory]) -> int:
        raise self.refusal()

    def purge_history(self) -> None:
        raise self.refusal()
