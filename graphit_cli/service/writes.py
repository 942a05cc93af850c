"""The write path of one scope's table: `Writer` (upsert, delete, restore, import of
exported rows). Every change to a chain is one atomic commit, a compare-and-swap on the live
row's revision, retried with backoff when another writer wins (see `core.revisions` for the
rows each write plans). Must not import Typer or Rich.

A Writer given `WriteVectors` (service/vectors.py) embeds the rows it is about to write before
its first commit, with no lock held, and commits each row with its vector in the same merge
(service/row_vectors.py); `hold` (the daemon's per-scope write lock) is taken around each
commit only, never around the model. Every write is checked for secrets here
(service/write_checks.py), so each boundary (CLI, MCP, import, restore, Explorer, the daemon's
forwarded writes) refuses one the same way: the Writer's `secrets` policy is "refuse"
(SecretRefused, nothing written), "redact" (the value becomes `[REDACTED:kind]`) or "allow"
(a false positive, the CLI's `--allow-secrets`).

Each revision carries a `Stamp` (author, provenance, review status): the writer's own, or the
one a write passes in (`stamp=`), so a write made as someone else changes nothing the writer
holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING

from graphit_cli.access import identity
from graphit_cli.access.scopes import Scope
from graphit_cli.core import revisions
from graphit_cli.core.models import (
    BatchResult,
    Memory,
    MemoryDraft,
    WriteAction,
    WriteResult,
)
from graphit_cli.core.provenance import Provenance, deletion
from graphit_cli.errors import Conflict, InvalidInput, NotFound
from graphit_cli.service import write_plans
from graphit_cli.service.common import (
    MAX_ATTEMPTS,
    Clock,
    backoff,
    missing,
    phantom,
    restoring,
)
from graphit_cli.service.reads import Reader
from graphit_cli.service.row_vectors import RowVectors
from graphit_cli.service.write_checks import (
    SECRET_POLICIES,
    Stamp,
    prepared,
    rows_without_secrets,
    without_secrets,
)

if TYPE_CHECKING:
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.store.base import MergeCounts, Store

Hold = Callable[[], AbstractContextManager[object]]


class Writer:
    """The write path of one scope's table: every change to a chain is one atomic commit."""

    def __init__(
        self,
        store: Store,
        scope: Scope,
        reader: Reader,
        *,
        author: str | None,
        clock: Clock,
        vectors: WriteVectors | None = None,
        hold: Hold = nullcontext,
        secrets: str = "refuse",
        provenance: Provenance | None = None,
        status: str | None = None,
    ):
        if secrets not in SECRET_POLICIES:
            raise InvalidInput(f"secrets must be one of {', '.join(SECRET_POLICIES)}")
        self.store = store
        self.scope = scope
        self.clock = clock
        self._reader = reader  # restore reads the revision it brings back
        self.vectors = vectors  # None: rows are written without vectors (the pass fills them)
        self._rows = RowVectors(store, vectors) if vectors is not None else None
        self.hold = hold  # taken around each commit (the daemon's per-scope write lock)
        self.secrets = secrets  # what a write holding a secret gets: refused, redacted, allowed
        # This writer's own stamp, put together at the first write (a read never pays for the
        # checkout's identity): `author` and `provenance` when given, else the checkout's.
        self._given = (author, provenance, status)
        self._stamp: Stamp | None = None

    # --- writes ----------------------------------------------------------------------------

    def upsert(self, draft: MemoryDraft, *, stamp: Stamp | None = None) -> WriteResult:
        return self.upsert_many([draft], stamp=stamp).results[0]

    def upsert_many(
        self, drafts: Sequence[MemoryDraft], *, stamp: Stamp | None = None
    ) -> BatchResult:
        """Create or update every draft, as `stamp` says (default: the writer's own); one
        commit per wave of distinct ids.

        An id that appears twice in the input is applied in order (its second occurrence goes
        into the next wave). Everything is validated before anything is written.
        """
        stamp = self.stamp_for(stamp)
        ready = [prepared(i, d) for i, d in enumerate(drafts)]
        ready = without_secrets(self.secrets, ready, drafts, stamp.author)
        if self._rows is not None:
            self._rows.embed_ahead([(d, drafts[i].id is None) for i, d in ready])
        waves: list[list[tuple[int, MemoryDraft]]] = []
        seen: dict[str, int] = {}
        for index, draft in ready:
            assert draft.id is not None
            wave = seen.get(draft.id, -1) + 1
            seen[draft.id] = wave
            if wave == len(waves):
                waves.append([])
            waves[wave].append((index, draft))
        results: dict[int, WriteResult] = {}
        for wave_items in waves:
            with self.hold():
                results.update(self._commit_wave(wave_items, stamp))
        changed = sum(1 for r in results.values() if r.action is not WriteAction.UNCHANGED)
        if changed:
            self.store.fold_if_needed(written_rows=changed)
        return BatchResult([results[i] for i in range(len(ready))])

    def _commit_wave(
        self, items: list[tuple[int, MemoryDraft]], stamp: Stamp
    ) -> dict[int, WriteResult]:
        done: dict[int, WriteResult] = {}
        pending = items
        for attempt in range(MAX_ATTEMPTS):
            embedding = self._rows is not None and self._rows.table_takes_vectors()
            # The version is read before the heads: if the commit lands right on top of it,
            # nobody wrote in between and every compare-and-swap saw what we planned against.
            with self.store.snapshot():
                base = self.store.version()
                heads = self.store.heads([d.id for _, d in pending if d.id])
            plans = [
                write_plans.plan(
                    self.store,
                    self.scope,
                    i,
                    d,
                    heads.get(d.id or "", (None, None)),
                    stamp,
                    self.clock(),
                )
                for i, d in pending
            ]
            plans = [write_plans.stamped(p, stamp) for p in plans]
            plans = [
                self._with_vector(p, write_plans.newest(heads, p.result.id), embedding)
                for p in plans
            ]
            writes = [p for p in plans if p.rows]
            for plan in plans:
                if not plan.rows:
                    done[plan.index] = WriteResult(plan.action, plan.result)
            if not writes:
                return done
            try:
                counts = self.store.merge(
                    [row for p in writes for row in p.rows],
                    chains_exist=all(p.action is WriteAction.UPDATED for p in writes),
                )
                clean = counts.version == base + 1 and counts.inserted == len(writes)
            except Conflict:  # contention on the table: find out what landed, retry the rest
                clean = False
            if clean:
                done.update({p.index: WriteResult(p.action, p.result) for p in writes})
                self._count_unembedded([p.result for p in writes], embedding)
                return done
            pending = []
            for plan, landed in write_plans.verify(self.store, writes):
                if landed is not None:
                    done[plan.index] = WriteResult(plan.action, landed)
                    self._count_unembedded([plan.result], embedding)
                else:
                    pending.append((plan.index, plan.draft))
            if not pending:
                return done
            backoff(attempt)
        raise Conflict(
            f"gave up after {MAX_ATTEMPTS} attempts: other writers kept changing "
            f"{len(pending)} of these memories; nothing was written for them"
        )

    def _with_vector(
        self, plan: write_plans.Plan, newest: Memory | None, embedding: bool
    ) -> write_plans.Plan:
        """`plan` with the vector its live row commits with, when there is one
        (`RowVectors.vector_for`)."""
        row = plan.result
        if self._rows is None or not plan.rows or row.embedding is not None:
            return plan
        vector = self._rows.vector_for(row, newest, embedding)
        if vector is None:
            return plan
        with_vector = replace(row, embedding=vector)
        rows = [with_vector if r is row else r for r in plan.rows]
        return replace(plan, rows=rows, result=with_vector)

    def _count_unembedded(self, written: list[Memory], embedding: bool) -> None:
        if self._rows is not None:
            self._rows.count_unembedded(written, embedding)

    def delete(
        self,
        memory_id: str,
        *,
        expected_revision: int | None = None,
        stamp: Stamp | None = None,
    ) -> WriteResult:
        """Delete the live row, as `stamp` says (default: the writer's own); with
        `expected_revision`, only while it is still that revision.

        A guarded removal (consolidation, undo) passes the revision whose flags it checked: the
        store's compare-and-swap (`delete_live` at that revision) then refuses the delete when
        another writer changed the memory in between, instead of deleting the newer revision.
        """
        memory_id = revisions.validate_id(memory_id)
        stamp = self.stamp_for(stamp)
        for attempt in range(MAX_ATTEMPTS):
            live, tail = self.store.heads([memory_id]).get(memory_id, (None, None))
            if live is not None and phantom(live, tail):
                self.store.remove_exact(live)
                live = None
            if live is None:
                raise missing(memory_id, tail)
            if expected_revision is not None and live.revision != expected_revision:
                raise Conflict(
                    f"memory {memory_id} is at revision {live.revision}, not "
                    f"{expected_revision}: it changed since it was checked; nothing deleted"
                )
            rows = revisions.plan_delete(live, tail)
            deleted = deletion(live, stamp.provenance, self.clock())
            rows[0] = replace(rows[0], provenance=deleted)
            try:
                with self.hold():
                    counts = self.store.merge(rows, delete_live=(live.key, live.revision))
            except Conflict:
                backoff(attempt)
                continue
            if counts.inserted == 1 and counts.deleted == 1:
                self.store.fold_if_needed()
                return WriteResult(WriteAction.DELETED, rows[0])
            backoff(attempt)
        raise Conflict(
            f"gave up deleting {memory_id} after {MAX_ATTEMPTS} attempts: nothing deleted"
        )

    # --- import of exported rows (portability) ---------------------------------------------

    def import_rows(
        self,
        rows: list[Memory],
        plan: Callable[[list[Memory], list[Memory]], tuple[list[Memory], list[str]]],
        *,
        embedding_model: str | None = None,
    ) -> MergeCounts | None:
        """Write rows exported by graphit with their ids, revisions, links and dates (see
        `portability.native`, which plans what to write); None when nothing changed.

        Vectors in the rows are kept only when they come from the table's model (a table
        without vectors yet adopts `embedding_model`). With `vectors`, rows that come without
        one are embedded before the commit (up to the bound, live rows first)."""
        current = self.store.embedding_model()
        if embedding_model and current is None:
            self.store.set_embedding_model(embedding_model)
            current = self.store.embedding_model()  # a racing writer's, if it named one first
        if current != embedding_model:
            rows = [replace(r, embedding=None) if r.embedding is not None else r for r in rows]
        rows = rows_without_secrets(self.secrets, rows)
        if self._rows is not None:
            rows = self._rows.imported(rows)
        with self.hold():
            counts = self.store.import_rows(rows, plan)
        if counts is not None:
            self.store.fold_if_needed(written_rows=counts.inserted + counts.updated)
        return counts

    # --- restore (cli-polish) ---------------------------------------------------------------

    def restore(self, ref: str, *, stamp: Stamp | None = None) -> WriteResult:
        """Make archived revision `<id>/<revision_id>` current again, as a new revision.

        Text, type, tags and flags come back as they were in that revision; the chain keeps
        everything in between. A deleted memory comes back the same way; when the revision is
        older than the one deleted, the memory first comes back as it was deleted, so the
        history keeps the delete (`revisions.closed_by_delete`). Restoring what is already
        current changes nothing. Written as `stamp` says (default: the writer's own).
        """
        memory_id, revision_id = revisions.parse_ref(ref)
        if not revision_id:
            raise InvalidInput(
                f"give the revision to restore as {memory_id}/<revision-id> "
                f"(see `graphit memory history {memory_id}`)"
            )
        stamp = self.stamp_for(stamp)
        old = self._reader.source(ref)
        draft = restoring(old)
        # Checked before anything is written: a refused restore leaves a deleted memory deleted.
        draft = without_secrets(self.secrets, [(0, draft)], [draft], stamp.author)[0][1]
        if old.next is not None and self._deleted(memory_id):
            # back as deleted first: the delete stays shown
            self.upsert(MemoryDraft(id=memory_id), stamp=stamp)
        return self.upsert(draft, stamp=stamp)

    # --- provenance and review ---------------------------------------------------------------

    def checked(self, drafts: Sequence[MemoryDraft]) -> list[MemoryDraft]:
        """The drafts validated, given ids and checked for secrets, nothing written (review)."""
        ready = [prepared(i, d) for i, d in enumerate(drafts)]
        author = self.stamp_for().author
        return [d for _, d in without_secrets(self.secrets, ready, drafts, author)]

    def next_row(self, draft: MemoryDraft, head: write_plans.Head) -> tuple[WriteAction, Memory]:
        """The live row writing checked `draft` on `head` would make, stamped (review)."""
        stamp = self.stamp_for()
        plan = write_plans.stamped(
            write_plans.plan(self.store, self.scope, 0, draft, head, stamp, self.clock()), stamp
        )
        return plan.action, plan.result

    @property
    def stamp(self) -> Stamp:
        """This writer's own stamp: the author and provenance it was given, else the
        checkout's (read at the first write: a read never pays for it)."""
        if self._stamp is None:
            author, provenance, status = self._given
            author = author or identity.author()
            provenance = provenance or identity.stamp("cli").but(author=author)
            self._stamp = Stamp(author, provenance, status)
        return self._stamp

    def stamp_for(self, stamp: Stamp | None = None) -> Stamp:
        """The stamp a write carries: `stamp`, else the writer's own; under the "redact"
        policy with a secret in its author replaced."""
        stamp = stamp or self.stamp
        return stamp.redacted() if self.secrets == "redact" else stamp

    def say_client(self, client: str) -> None:
        """Name the client in this writer's own stamp (an MCP client says its name in its
        handshake, which may come after the server opened the scope)."""
        own = self.stamp
        self._stamp = replace(own, provenance=own.provenance.but(client=client))

    @property
    def author(self) -> str:
        return self.stamp.author

    @property
    def provenance(self) -> Provenance:
        return self.stamp.provenance

    @property
    def status(self) -> str | None:
        return self.stamp.status

    def _deleted(self, memory_id: str) -> bool:
        try:
            self._reader.source(memory_id)
        except NotFound:
            return True
        return False
