"""MemoryService: the memory use-cases (upsert, delete, source, history, search, ...).

The CLI, the MCP server, the Explorer and the daemon call these methods and render what they
return. Business rules live in the service's collaborators and the pure core (`core/`);
LanceDB lives in `store/`. Must not import Typer or Rich.

`MemoryService` is composed of collaborators with one job each, all working on the scope's
store: `Writer` (service/writes.py: upsert, delete, restore, import of exported rows),
`Reader` (service/reads.py: source, history, catalogue, search, recall, browse), `Upkeep`
(service/upkeep.py: embeddings, maintenance, status), `DuplicateGuard`
(service/duplicates.py) and `SecretSweep` (service/secrets.py: scan, redact). Those that
change the table do it through `Watching` (service/watching.py), which keeps the scope's
mandatory block current (service/mandatory.py). `opening.open_service` builds one for a scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from graphit_cli.access.scopes import Scope
from graphit_cli.core.provenance import APPROVED
from graphit_cli.service.common import (
    Clock,
    EmbedderFactory,
)
from graphit_cli.service.duplicates import DuplicateGuard
from graphit_cli.service.reads import Reader
from graphit_cli.service.review import Review
from graphit_cli.service.secrets import SecretSweep
from graphit_cli.service.upkeep import Upkeep
from graphit_cli.service.watching import Watching

if TYPE_CHECKING:
    from graphit_cli.access.policy import ReviewPolicy
    from graphit_cli.core.models import Memory
    from graphit_cli.core.provenance import Provenance
    from graphit_cli.embed import Embedder
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.service.writes import Hold
    from graphit_cli.store.base import Store


from graphit_cli.service.writes import Writer


def utcnow() -> datetime:
    return datetime.now(UTC)


class MemoryService:
    """One scope's memory use-cases, each carried out by the collaborator whose job it is."""

    def __init__(
        self,
        store: Store,
        scope: Scope,
        *,
        author: str | None = None,
        clock: Clock = utcnow,
        embedder: EmbedderFactory | None = None,
        vectors: WriteVectors | None = None,
        hold: Hold = nullcontext,
        secrets: str = "refuse",
        provenance: Provenance | None = None,
        review: ReviewPolicy | None = None,
    ) -> None:
        self.store = store
        self.scope = scope
        embedder = embedder or _default_embedder
        self._embedder = embedder
        self.reads = Reader(store, scope, embedder)
        # What changes the table goes through `Watching`: each commit keeps the scope's
        # mandatory block current, for session starts that open no table (mandatory.py).
        watched = Watching(store, scope)
        self.writes = Writer(
            watched,
            scope,
            self.reads,
            author=author or (provenance.author if provenance else None),
            clock=clock,
            vectors=vectors,
            hold=hold,
            secrets=secrets,
            provenance=provenance,
            status=APPROVED if review is not None and scope.kind == "project" else None,
        )
        self.review = Review(store, scope, self.writes, self.reads, review)
        self.upkeep = Upkeep(watched, scope, embedder)
        self.duplicates = DuplicateGuard(store, embedder)
        self.sweep = SecretSweep(watched, embedder)
        # The use-cases, as their collaborators define them (typed by those methods).
        # Writes pass the review gate (service/review.py): proposals where the policy says so.
        self.upsert = self.review.upsert
        self.upsert_many = self.review.upsert_many
        self.delete = self.review.delete
        self.restore = self.review.restore
        self.import_rows = self.review.import_rows
        self.source = self.reads.source
        self.history = self.reads.history
        self.catalogue = self.reads.catalogue
        self.search = self.reads.search
        self.recall = self.reads.recall
        self.browse = self.reads.browse
        self.embed = self.upkeep.embed
        self.embed_now = self.upkeep.embed_now
        self.embed_step = self.upkeep.embed_step
        self.needs_embedding = self.upkeep.needs_embedding
        self.is_empty = self.upkeep.is_empty
        self.has_vectors = self.upkeep.has_vectors
        self.query_vector = self.upkeep.query_vector
        self.maintain = self.upkeep.maintain
        self.table_state = self.upkeep.table_state
        self.live_vectors = self.upkeep.live_vectors
        self.find_duplicate = self.duplicates.find_duplicate
        self.find_rival = self.duplicates.find_rival
        self.live_duplicates = self.duplicates.live_duplicates
        self.duplicate_notes = self.duplicates.duplicate_notes
        self.scan_secrets = self.sweep.scan
        self.redact = self.sweep.redact
        self.interrupted_redactions = self.sweep.interrupted
        self.finish_redactions = self.sweep.finish

    def verify(self, memory_id: str) -> Memory:
        """Record that the live memory still holds (its `verified_at` becomes now), in place:
        no new revision, since nothing it says changes. Refused for a deleted memory."""
        from dataclasses import replace

        from graphit_cli.core import revisions
        from graphit_cli.errors import NotFound

        memory_id = revisions.validate_id(memory_id)
        for _ in range(5):  # a write landing in between moves the revision: read it again
            current = self.store.get(memory_id)
            if current is None or not current.is_live:
                raise NotFound(f"no live memory {memory_id}")
            moment = self.clock()
            if self.store.set_verified(memory_id, current.revision, moment):
                return replace(current, verified_at=moment)
        raise NotFound(f"memory {memory_id} kept changing; try again")

    def writing(
        self,
        *,
        author: str | None = None,
        vectors: WriteVectors | None = None,
        hold: Hold | None = None,
        secrets: str | None = None,
        provenance: Provenance | None = None,
    ) -> MemoryService:
        """This scope's service for one write: as `author`, embedding the rows it writes with
        `vectors` before each commit, taking `hold` around each commit (the daemon's
        per-scope write lock), treating a secret by `secrets` ("refuse", "redact", "allow";
        default: refuse). Over the same store handle, clock and embedder; `self` is
        left as it was, so concurrent requests never share a write's state."""
        author = author or (provenance.author if provenance else None) or self.author
        stamp = provenance or self.writes.provenance
        return MemoryService(
            self.store,
            self.scope,
            author=author,
            clock=self.clock,
            embedder=self._embedder,
            vectors=vectors,
            hold=hold or self.writes.hold,
            secrets=secrets or "refuse",
            provenance=stamp.but(author=author),
            review=self.review.policy,
        )

    def say_client(self, client: str | None) -> None:
        """Name the client in the provenance of the writes to come (an MCP client says its
        name in its handshake, which may come after the server opened the scope)."""
        stamp = self.writes.provenance
        if client and stamp.client != client:
            self.writes.say_client(client)

    def folding(self, members: Sequence[Memory]) -> MemoryService:
        """This scope's service for writing a consolidation's survivor: its revision's
        provenance keeps the provenance of the memories folded into it."""
        kept = tuple(
            {
                "id": m.id,
                "revision": m.revision,
                **(m.provenance.to_dict() if m.provenance else {"author": m.updated_by}),
            }
            for m in members
        )
        stamp = self.writes.provenance.but(members=kept)
        return self.writing(provenance=stamp, secrets=self.secrets)

    @property
    def secrets(self) -> str:
        """What a write holding a secret gets: "refuse", "redact" or "allow"."""
        return self.writes.secrets

    @property
    def author(self) -> str:
        """Who the writes are recorded as (`updated_by`)."""
        return self.writes.author

    @property
    def clock(self) -> Clock:
        """The time the writes are stamped with (a test may set another)."""
        return self.writes.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        self.writes.clock = clock


def _default_embedder() -> Embedder | None:
    from graphit_cli.embed import load_default

    return load_default()
