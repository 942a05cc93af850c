"""The dataclasses the service hands to its adapters (the CLI, later the MCP server and Explorer).

Pure data: no I/O, no heavy imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from graphit_cli.core.provenance import Provenance

MEMORY_TYPES: tuple[str, ...] = (
    "fact",
    "decision",
    "convention",
    "correction",
    "preference",
    "constraint",
    "procedure",
    "skill",
    "tension",
)
DEFAULT_TYPE = "fact"


class Category(StrEnum):
    """The canonical-order category of a memory: mandatory, then important, then normal."""

    MANDATORY = "mandatory"
    IMPORTANT = "important"
    NORMAL = "normal"


@dataclass(frozen=True)
class Memory:
    """One row of a scope's table: a live memory (`revision_id == ""`) or an archived revision."""

    key: str
    id: str
    revision_id: str
    revision: int
    previous: str | None
    next: str | None
    superseded: bool
    title: str
    body: str
    type: str
    tags: tuple[str, ...]
    important: bool
    mandatory: bool
    created_at: datetime
    updated_at: datetime
    scope_kind: str
    scope_id: str
    updated_by: str
    content_hash: str
    embedding: tuple[float, ...] | None = None
    # What in the project the memory depends on (repo-relative paths, symbols, make targets,
    # commands), as the revision that wrote it found or was given them (graphit_cli/anchors).
    anchors: tuple[str, ...] = ()
    # When a write or an explicit verify last confirmed the memory (no read sets it).
    verified_at: datetime | None = None
    # Who wrote this revision, how and from where (core/provenance.py); None for a row
    # written before provenance existed.
    provenance: Provenance | None = None
    # Review: None or "approved" on the chain's main line; "proposed", "rejected" or
    # "accepted" on a proposal row (off the main line, never read as a revision).
    status: str | None = None

    @property
    def is_live(self) -> bool:
        return self.revision_id == ""

    @property
    def category(self) -> Category:
        if self.mandatory:
            return Category.MANDATORY
        if self.important:
            return Category.IMPORTANT
        return Category.NORMAL


@dataclass(frozen=True)
class MemoryDraft:
    """What a caller asks to write. `None` means "keep the current value" on an update."""

    id: str | None = None
    title: str | None = None
    body: str | None = None
    type: str | None = None
    tags: tuple[str, ...] | None = None
    important: bool | None = None
    mandatory: bool | None = None
    # Optimistic concurrency: refuse the update when the live revision is no longer this one.
    expected_revision: int | None = None
    # Honoured only when the draft creates a memory (imports keep their original dates).
    created_at: datetime | None = None
    updated_at: datetime | None = None
    # Anchors given explicitly (frontmatter `anchors:`, --anchor, the MCP argument); None:
    # found in the title and body at write time (graphit_cli/anchors).
    anchors: tuple[str, ...] | None = None


@dataclass(frozen=True)
class MemoryFilter:
    """Filters shared by list and search. Tags must all be present."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    important: bool | None = None
    mandatory: bool | None = None


class WriteAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    DELETED = "deleted"
    PROPOSED = "proposed"  # review held the write back: a proposal row, not a revision


@dataclass(frozen=True)
class WriteResult:
    action: WriteAction
    memory: Memory  # the live row after the write; the final archive for a delete


@dataclass(frozen=True)
class BatchResult:
    results: list[WriteResult] = field(default_factory=list)

    def count(self, action: WriteAction) -> int:
        return sum(1 for r in self.results if r.action is action)


SEARCH_MODES = ("auto", "hybrid", "fts", "vector")


@dataclass(frozen=True)
class LexicalHit:
    """A full-text (BM25) hit as the store returns it; `has_vector` is False until the row's
    embedding is computed (a memory written since the last embedding pass)."""

    row: Memory
    score: float
    has_vector: bool = True
    address: int | None = None  # the row's address in the table (matches `term_postings`)


@dataclass(frozen=True)
class SearchHit:
    """One memory in a search result, after chain collapse.

    `memory` is the current row (live), or the final archive when the memory was deleted;
    `matched` is the row the query matched (the live row, or an archived revision).
    """

    memory: Memory
    matched: Memory
    score: float
    rank: int  # 1-based position by relevance among the collapsed candidates
    snippet: str
    # The evidence behind `score`, absolute where the score is relative to the best hit: the
    # share of the query's term weight the matched row carries (a full-text hit) and its
    # cosine to the query (the vector leg saw it). The per-prompt hook's gate reads them.
    share: float | None = None
    similarity: float | None = None
    # A newer live memory among the matches on the same subject says otherwise
    # (`contradiction.newer_rival`): its id. Metadata: selection and order ignore it.
    replaced_by: str | None = None

    @property
    def superseded(self) -> bool:
        """Only an older revision matched: the hit points at the current memory."""
        return not self.matched.is_live

    @property
    def deleted(self) -> bool:
        return not self.memory.is_live

    @property
    def current_id(self) -> str | None:
        return self.memory.id if self.memory.is_live else None


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    mode: str  # the mode actually used: hybrid, fts or vector
    notice: str | None = None  # e.g. why the search fell back to lexical


@dataclass(frozen=True)
class RecallResult:
    mandatory: list[Memory]
    search: SearchResult | None


@dataclass(frozen=True)
class EmbedReport:
    model_id: str
    embedded: int
    skipped: int  # rows edited while being embedded (their new text waits for the next pass)
    seconds: float
    reembedded: bool  # the table had vectors from another model


@dataclass(frozen=True)
class TableState:
    """What the due-time gate and `status` read off a table."""

    rows: int
    live_rows: int
    rows_with_vectors: int
    fragments: int
    small_fragments: int
    indexed_rows: int  # rows covered by every FTS index
    unindexed_rows: int  # rows some FTS index has not folded in yet
    vector_index: bool
    versions: int
    prunable_versions: int  # versions older than the retention window
    bytes: int


@dataclass(frozen=True)
class MaintenanceReport:
    scope: str
    ran: bool
    reasons: list[str]  # why the gate opened (or "forced"); empty when nothing was due
    actions: list[str]
    before: TableState
    after: TableState
    seconds: float
    retries: int = 0


# --- the Explorer's catalogue ----------------------------------------------------------------


@dataclass(frozen=True)
class LiveSummary:
    """What the catalogue sorts, filters and counts by: one live memory, without its text."""

    id: str
    type: str
    tags: tuple[str, ...]
    important: bool
    mandatory: bool
    updated_us: int  # updated_at (created_at for legacy rows), microseconds since the epoch


@dataclass(frozen=True)
class CatalogueEntry:
    """One memory on a catalogue page; `snippet` and `score` only when a query chose it."""

    memory: Memory  # the live row
    snippet: str | None = None
    score: float | None = None


@dataclass(frozen=True)
class CataloguePage:
    """A page of the catalogue, with what a browser needs to offer filters and paging."""

    entries: list[CatalogueEntry]
    total: int  # memories matching the query and filters, before paging
    types: list[str]  # facets over every live memory of the scope, before filtering
    tags: list[str]


# --- review (service/review.py) ----------------------------------------------------------


@dataclass(frozen=True)
class Proposal:
    """A proposal and the memory as it now reads (None: a new memory, or deleted)."""

    row: Memory
    current: Memory | None


@dataclass(frozen=True)
class AuditEvent:
    """One thing someone did to a memory: wrote, proposed, approved, rejected, deleted,
    restored or redacted it; `actor` is the identity the revision records."""

    at: datetime
    action: str
    actor: str
    id: str
    key: str
    revision: int
    title: str
    via: str | None = None
    reason: str | None = None
