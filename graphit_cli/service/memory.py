"""MemoryService: the memory use-cases (upsert, delete, source, history, search, ...).

The CLI, the MCP server, the Explorer and the daemon call these methods and render what they
return. Business rules live in the service's collaborators and the pure core (`core/`);
LanceDB lives in `store/`. Must not import Typer or Rich.

`MemoryService` is composed of collaborators with one job each, all working on the scope's
store: `Writer` (service/writes.py: upsert, delete, restore, import of exported rows),
`Reader` (service/reads.py: source, history, catalogue, search, recall), `Browser`
(service/browsing.py: the Explorer's pages), `Upkeep`
(service/upkeep.py: embeddings, maintenance, status), `DuplicateGuard`
(service/duplicates.py), `SecretSweep` (service/secrets.py: scan, redact) and `Review`
(service/review.py: the gate every write passes). Each is built, and its module imported, at
its first use: a read builds the reader alone, never a writer, a duplicate guard or a secret
sweep. Those that change the table do it through `Watching` (service/watching.py), which keeps
the scope's mandatory block current (service/mandatory.py). The use-cases are the
collaborators' own methods (`_USES`). `opening.open_service` builds one for a scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from graphit_cli.access.scopes import Scope
from graphit_cli.service.common import Clock, EmbedderFactory

if TYPE_CHECKING:
    from graphit_cli.access.policy import ReviewPolicy
    from graphit_cli.core.models import Memory
    from graphit_cli.core.provenance import Provenance
    from graphit_cli.embed import Embedder
    from graphit_cli.service.browsing import Browser
    from graphit_cli.service.duplicates import DuplicateGuard
    from graphit_cli.service.reads import Reader
    from graphit_cli.service.review import Review
    from graphit_cli.service.secrets import SecretSweep
    from graphit_cli.service.upkeep import Upkeep
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.service.watching import Watching
    from graphit_cli.service.writes import Hold, Writer
    from graphit_cli.store.base import Store


def utcnow() -> datetime:
    return datetime.now(UTC)


# Each use-case: (the collaborator whose job it is, its method). Writes pass the review gate.
_USES: dict[str, tuple[str, str]] = {
    "upsert": ("review", "upsert"),
    "upsert_many": ("review", "upsert_many"),
    "delete": ("review", "delete"),
    "restore": ("review", "restore"),
    "import_rows": ("review", "import_rows"),
    "source": ("reads", "source"),
    "history": ("reads", "history"),
    "catalogue": ("reads", "catalogue"),
    "search": ("reads", "search"),
    "recall": ("reads", "recall"),
    "browse": ("browser", "browse"),
    "embed": ("upkeep", "embed"),
    "embed_now": ("upkeep", "embed_now"),
    "embed_step": ("upkeep", "embed_step"),
    "needs_embedding": ("upkeep", "needs_embedding"),
    "is_empty": ("upkeep", "is_empty"),
    "query_vector": ("upkeep", "query_vector"),
    "maintain": ("upkeep", "maintain"),
    "table_state": ("upkeep", "table_state"),
    "live_vectors": ("upkeep", "live_vectors"),
    "find_duplicate": ("duplicates", "find_duplicate"),
    "find_rival": ("duplicates", "find_rival"),
    "live_duplicates": ("duplicates", "live_duplicates"),
    "duplicate_notes": ("duplicates", "duplicate_notes"),
    "scan_secrets": ("sweep", "scan"),
    "redact": ("sweep", "redact"),
    "interrupted_redactions": ("sweep", "interrupted"),
}


class MemoryService:
    """One scope's memory use-cases, each carried out by the collaborator whose job it is
    (built at its first use)."""

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
        self._embedder = embedder or _default_embedder
        self._clock = clock
        self._writer_args: dict[str, Any] = {
            "author": author or (provenance.author if provenance else None),
            "vectors": vectors,
            "hold": hold,
            "secrets": secrets,
            "provenance": provenance,
        }
        self._policy = review
        if secrets != "refuse":  # a policy the writer refuses is refused now, not at a write
            self.writes  # noqa: B018
        if TYPE_CHECKING:  # what `__getattr__` hands out, typed as the collaborators' methods
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
            self.browse = self.browser.browse
            self.embed = self.upkeep.embed
            self.embed_now = self.upkeep.embed_now
            self.embed_step = self.upkeep.embed_step
            self.needs_embedding = self.upkeep.needs_embedding
            self.is_empty = self.upkeep.is_empty
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

    def __getattr__(self, name: str) -> Any:
        """A use-case (`_USES`): the method of the collaborator whose job it is."""
        route = _USES.get(name)
        if route is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        part, method = route
        return getattr(getattr(self, part), method)

    # --- the collaborators, each built at its first use --------------------------------------

    @cached_property
    def reads(self) -> Reader:
        from graphit_cli.service.reads import Reader

        return Reader(self.store, self.scope, self._embedder)

    @cached_property
    def browser(self) -> Browser:
        from graphit_cli.service.browsing import Browser

        return Browser(self.reads)

    @cached_property
    def watched(self) -> Watching:
        """The store as every change goes through it: each commit keeps the scope's mandatory
        block current, for session starts that open no table (mandatory.py)."""
        from graphit_cli.service.watching import Watching

        return Watching(self.store, self.scope)

    @cached_property
    def writes(self) -> Writer:
        from graphit_cli.core.provenance import APPROVED
        from graphit_cli.service.writes import Writer

        reviewed = self._policy is not None and self.scope.kind == "project"
        return Writer(
            self.watched,
            self.scope,
            self.reads,
            clock=self._clock,
            status=APPROVED if reviewed else None,
            **self._writer_args,
        )

    @cached_property
    def review(self) -> Review:
        """The gate every write passes: proposal rows where the project's policy says so."""
        from graphit_cli.service.review import Review

        return Review(self.store, self.scope, self.writes, self.reads, self._policy)

    @cached_property
    def upkeep(self) -> Upkeep:
        from graphit_cli.service.upkeep import Upkeep

        return Upkeep(self.watched, self.scope, self._embedder)

    @cached_property
    def duplicates(self) -> DuplicateGuard:
        from graphit_cli.service.duplicates import DuplicateGuard

        return DuplicateGuard(self.store, self._embedder)

    @cached_property
    def sweep(self) -> SecretSweep:
        from graphit_cli.service.secrets import SecretSweep

        return SecretSweep(self.watched, self._embedder)

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
            self.writes._provenance = stamp.but(client=client)

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
        return str(self._writer_args["secrets"])

    @property
    def author(self) -> str:
        """Who the writes are recorded as (`updated_by`)."""
        return self.writes.author

    @property
    def clock(self) -> Clock:
        """The time the writes are stamped with (a test may set another)."""
        return self._clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        self._clock = clock
        if "writes" in self.__dict__:  # a writer built already stamps with it too
            self.writes.clock = clock


def _default_embedder() -> Embedder | None:
    from graphit_cli.embed import load_default

    return load_default()
