"""The write path of one scope's table: `Writer` (upsert, delete, restore, import of
exported rows). Every change to a chain is one atomic commit, a compare-and-swap on the live
row's revision, retried with backoff when another writer wins (see `core.revisions` for the
rows each write plans). Must not import Typer or Rich.

A Writer given `WriteVectors` (service/vectors.py) embeds the rows it is about to write before
its first commit, with no lock held, and commits each row with its vector in the same merge;
`hold` (the daemon's per-scope write lock) is taken around each commit only, never around
the model. Every write is checked for secrets here (`core.secrets`), so each boundary (CLI, MCP,
import, restore, Explorer, the daemon's forwarded writes) refuses one the same way: the
Writer's `secrets` policy is "refuse" (SecretRefused, nothing written), "redact" (the value
becomes `[REDACTED:kind]`) or "allow" (a false positive, the CLI's `--allow-secrets`).
Past 400 lines as one job: the write path, whose compare-and-swap plans and the
vectors its rows carry are decided together, in one attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
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
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, NotFound, SecretRefused
from graphit_cli.service.common import (
    MAX_ATTEMPTS,
    Clock,
    backoff,
    missing,
    phantom,
    restoring,
)
from graphit_cli.service.reads import Reader

if TYPE_CHECKING:
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.store.base import MergeCounts, Store

Hold = Callable[[], AbstractContextManager[object]]
Head = tuple[Memory | None, Memory | None]
SECRET_POLICIES = ("refuse", "redact", "allow")
_AHEAD_READ = 256  # chain heads read at once while choosing the texts to embed ahead


@dataclass
class _Plan:
    """One record's pending write: the rows to merge and what the live row must look like after."""

    index: int
    draft: MemoryDraft
    action: WriteAction
    rows: list[Memory]
    result: Memory  # the live row once committed (or the current one when unchanged)


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
        self._author = author  # None: the checkout's (access/identity.py), read at first use
        self.clock = clock
        self._reader = reader  # restore reads the revision it brings back
        self.vectors = vectors  # None: rows are written without vectors (the pass fills them)
        self.hold = hold  # taken around each commit (the daemon's per-scope write lock)
        self.secrets = secrets  # what a write holding a secret gets: refused, redacted, allowed
        # Stamped on every revision this writer makes (graphit's, never the caller's), with
        # the review status of the chain's main line (None where the project has no review).
        self._provenance = provenance
        self.status = status

    # --- writes ----------------------------------------------------------------------------

    def upsert(self, draft: MemoryDraft) -> WriteResult:
        return self.upsert_many([draft]).results[0]

    def upsert_many(self, drafts: Sequence[MemoryDraft]) -> BatchResult:
        """Create or update every draft; one commit per wave of distinct ids.

        An id that appears twice in the input is applied in order (its second occurrence goes
        into the next wave). Everything is validated before anything is written.
        """
        prepared = [self._prepare(i, d) for i, d in enumerate(drafts)]
        prepared = self._without_secrets(prepared, drafts)
        if self.vectors is not None:
            self._embed_ahead([(d, drafts[i].id is None) for i, d in prepared])
        waves: list[list[tuple[int, MemoryDraft]]] = []
        seen: dict[str, int] = {}
        for index, draft in prepared:
            assert draft.id is not None
            wave = seen.get(draft.id, -1) + 1
            seen[draft.id] = wave
            if wave == len(waves):
                waves.append([])
            waves[wave].append((index, draft))
        results: dict[int, WriteResult] = {}
        for wave_items in waves:
            with self.hold():
                results.update(self._commit_wave(wave_items))
        changed = sum(1 for r in results.values() if r.action is not WriteAction.UNCHANGED)
        if changed:
            self.store.fold_if_needed(written_rows=changed)
        return BatchResult([results[i] for i in range(len(prepared))])

    def _prepare(self, index: int, draft: MemoryDraft) -> tuple[int, MemoryDraft]:
        from ulid import ULID

        try:
            memory_id = revisions.validate_id(draft.id) if draft.id else str(ULID())
            # Validate every field up front, so a bad record fails the batch before any write.
            if draft.title is not None:
                revisions.validate_title(draft.title)
            if draft.body is not None:
                revisions.normalise_body(draft.body)
            if draft.type is not None:
                revisions.validate_type(draft.type)
            if draft.tags is not None:
                revisions.normalise_tags(draft.tags)
            if draft.id is None and (draft.title is None or draft.body is None):
                raise InvalidInput("a new memory needs a title and a body")
        except InvalidInput as exc:
            raise self._at(index, exc) from None
        return index, replace(draft, id=memory_id)

    def _without_secrets(
        self, prepared: list[tuple[int, MemoryDraft]], given: Sequence[MemoryDraft]
    ) -> list[tuple[int, MemoryDraft]]:
        """The drafts, checked for secrets before anything is written (or embedded): refused
        as a whole batch, or redacted, or (`allow`) as they are."""
        if self.secrets == "allow":
            return prepared
        from graphit_cli.core import secrets

        refused: list[str] = []
        out: list[tuple[int, MemoryDraft]] = []
        if self.secrets == "redact" and secrets.find(self.author):
            self._author = secrets.redact(self.author)
            self._provenance = self.provenance.but(author=self._author)
        for index, draft in prepared:
            found = secrets.in_draft(
                draft.title, draft.body, tags=draft.tags, anchors=draft.anchors, author=self.author
            )
            if found and self.secrets == "redact":
                draft = secrets.redacted_draft(draft)
            elif found:
                name = _record_name(index, given[index], len(prepared))
                refused += secrets.refusal_lines(name, found)
            out.append((index, draft))
        if refused:
            raise SecretRefused(secrets.refusal(refused))
        return out

    def _at(self, index: int, exc: GraphitError) -> GraphitError:
        return type(exc)(exc.message if index == 0 else f"record {index + 1}: {exc.message}")

    def _commit_wave(self, items: list[tuple[int, MemoryDraft]]) -> dict[int, WriteResult]:
        done: dict[int, WriteResult] = {}
        pending = items
        for attempt in range(MAX_ATTEMPTS):
            embedding = self._table_takes_vectors()
            # The version is read before the heads: if the commit lands right on top of it,
            # nobody wrote in between and every compare-and-swap saw what we planned against.
            with self.store.snapshot():
                base = self.store.version()
                heads = self.store.heads([d.id for _, d in pending if d.id])
            plans = [self._plan(i, d, heads.get(d.id or "", (None, None))) for i, d in pending]
            plans = [self._stamped(p) for p in plans]
            plans = [self._with_vector(p, _newest(heads, p.result.id), embedding) for p in plans]
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
                self._count_unembedded(writes, embedding)
                return done
            pending = []
            for plan, landed in self._verify(writes):
                if landed is not None:
                    done[plan.index] = WriteResult(plan.action, landed)
                    self._count_unembedded([plan], embedding)
                else:
                    pending.append((plan.index, plan.draft))
            if not pending:
                return done
            backoff(attempt)
        raise Conflict(
            f"gave up after {MAX_ATTEMPTS} attempts: other writers kept changing "
            f"{len(pending)} of these memories; nothing was written for them"
        )

    # --- vectors for the rows a write commits ------------------------------------------------

    def _embed_ahead(self, drafts: list[tuple[MemoryDraft, bool]]) -> None:
        """Embed the texts the batch's rows will have, before any commit and with no lock held:
        up to the bound, in input order. A draft that leaves its title or body out takes them
        from the live row; a row whose text keeps its vector is not embedded again."""
        from graphit_cli.embed import document_text

        vectors = self.vectors
        assert vectors is not None
        texts: list[str] = []
        partial: list[MemoryDraft] = []

        def known(batch: list[MemoryDraft]) -> None:
            heads = self.store.heads([d.id for d in batch if d.id], vectors=True)
            for draft in batch:
                live, tail = heads.get(draft.id or "", (None, None))
                current = live or tail
                if current is None:
                    if draft.title is not None and draft.body is not None:
                        texts.append(_text(draft.title, draft.body))
                    continue
                text = _text(
                    current.title if draft.title is None else draft.title,
                    current.body if draft.body is None else draft.body,
                )
                kept = current.embedding is not None
                if not kept or text != document_text(current.title, current.body):
                    texts.append(text)

        for draft, new in drafts:
            if len(texts) >= vectors.limit:
                break
            if new and draft.title is not None and draft.body is not None:
                texts.append(_text(draft.title, draft.body))
                continue
            partial.append(draft)
            if len(partial) >= _AHEAD_READ:
                known(partial)
                partial = []
        if partial and len(texts) < vectors.limit:
            known(partial)
        if texts:
            vectors.fill(texts)

    def _import_vectors(self, rows: list[Memory]) -> list[Memory]:
        """Exported rows with a vector each where the write's model can give one (the rows
        that came without; the live ones first), when the table's vectors are its model's."""
        from graphit_cli.embed import document_text

        vectors = self.vectors
        assert vectors is not None
        bare = sorted((r for r in rows if r.embedding is None), key=lambda r: not r.is_live)
        if not bare:
            return rows
        vectors.fill([document_text(r.title, r.body) for r in bare])
        if not self._table_takes_vectors():
            if vectors.failure:
                vectors.wrote(len(bare))
            return rows
        filled = [
            replace(r, embedding=_tuple(vectors.vector(document_text(r.title, r.body))))
            if r.embedding is None
            else r
            for r in rows
        ]
        vectors.wrote(sum(1 for r in filled if r.embedding is None))
        return filled

    def _table_takes_vectors(self) -> bool:
        """Whether this attempt commits vectors: the write embedded something and the table's
        vectors are (or, for a table no model has embedded yet, become) its model's. A table
        embedded by another model gets none: the embedding pass re-embeds it whole."""
        vectors = self.vectors
        if vectors is None or not vectors.embedded or vectors.model_id is None:
            return False
        current = self.store.embedding_model()
        if current is None:
            self.store.set_embedding_model(vectors.model_id)  # before the version is read
            current = self.store.embedding_model()  # a racing first writer's, if it won
        return current == vectors.model_id

    def _with_vector(self, plan: _Plan, live: Memory | None, embedding: bool) -> _Plan:
        """`plan` with its live row's vector: the one its text already had in the newest
        revision `live` (an edit of the type or tags: the vector is of the title and body),
        else with `embedding` the one embedded ahead; none when neither exists (the
        embedding pass fills it)."""
        from graphit_cli.embed import document_text

        row = plan.result
        if not plan.rows or row.embedding is not None:
            return plan
        text = document_text(row.title, row.body)
        vector = None
        if live is not None and document_text(live.title, live.body) == text:
            vector = live.embedding
        if vector is None and embedding and self.vectors is not None:
            vector = _tuple(self.vectors.vector(text))
        if vector is None:
            return plan
        with_vector = replace(row, embedding=vector)
        rows = [with_vector if r is row else r for r in plan.rows]
        return replace(plan, rows=rows, result=with_vector)

    def _count_unembedded(self, plans: list[_Plan], embedding: bool) -> None:
        if self.vectors is None or not (embedding or self.vectors.failure):
            return
        self.vectors.wrote(sum(1 for p in plans if p.rows and p.result.embedding is None))

    def _verify(self, writes: list[_Plan]) -> list[tuple[_Plan, Memory | None]]:
        """After a commit that raced with other writers: which plans landed intact?

        A plan landed when the live row is the one it wrote and sits at the head of an intact
        chain. A live row it wrote into a chain that a racing delete had just closed (the
        insert cannot be made conditional) is removed again, and the write is re-planned: it
        then continues the chain like any write to a deleted id.
        """
        after = self.store.heads([p.result.id for p in writes], vectors=False)
        outcome: list[tuple[_Plan, Memory | None]] = []
        for plan in writes:
            live, tail = after.get(plan.result.id, (None, None))
            if self._superseded(plan.result, live or tail):
                outcome.append((plan, plan.result))  # it landed; a later write followed it
            elif live is None or not revisions.same_state(live, plan.result):
                outcome.append((plan, None))
            elif revisions.linked(live, tail):
                outcome.append((plan, live))
            else:
                self.store.remove_exact(live)
                outcome.append((plan, None))
        return outcome

    def _superseded(self, written: Memory, current: Memory | None) -> bool:
        """Whether `written` (a live row this process committed) is in the chain already
        archived under a newer revision: another writer updated (or deleted) the memory
        between our commit and this check. Retrying it would apply the write twice."""
        if current is None or current.revision <= written.revision:
            return False
        revision_id = revisions.revision_id_for(written.id, written.revision, written.updated_at)
        archived = self.store.get(revisions.archive_key(written.id, revision_id))
        return archived is not None and (
            archived.revision,
            archived.content_hash,
            archived.updated_at,
            archived.updated_by,
        ) == (written.revision, written.content_hash, written.updated_at, written.updated_by)

    def _plan(
        self, index: int, draft: MemoryDraft, head: tuple[Memory | None, Memory | None]
    ) -> _Plan:
        live, tail = head
        now = self.clock()
        assert draft.id is not None
        if phantom(live, tail):
            assert live is not None
            self.store.remove_exact(live)  # left by a writer that lost to a delete
            live = None
        try:
            if live is not None:
                revised = revisions.revise(live, draft, author=self.author, now=now)
                if revised is None:  # already what the draft says, whatever revision it names
                    return _Plan(index, draft, WriteAction.UNCHANGED, [], live)
                if draft.expected_revision is not None and draft.expected_revision != live.revision:
                    raise Conflict(
                        f"memory {live.id} is at revision {live.revision}, not "
                        f"{draft.expected_revision}: it changed since it was read; "
                        "read it again with `graphit memory source`"
                    )
                rows = revisions.plan_update(live, tail, revised)
                return _Plan(index, draft, WriteAction.UPDATED, rows, rows[1])
            if tail is not None:  # deleted: the chain continues
                rows = revisions.plan_revive(tail, draft, author=self.author, now=now)
                return _Plan(index, draft, WriteAction.UPDATED, rows, rows[1])
            created = revisions.new_memory(
                draft,
                memory_id=draft.id,
                scope_kind=self.scope.kind,
                scope_id=self.scope.id,
                author=self.author,
                now=now,
            )
            return _Plan(index, draft, WriteAction.CREATED, [created], created)
        except GraphitError as exc:
            raise self._at(index, exc) from None

    def delete(self, memory_id: str, *, expected_revision: int | None = None) -> WriteResult:
        """Delete the live row; with `expected_revision`, only while it is still that revision.

        A guarded removal (consolidation, undo) passes the revision whose flags it checked: the
        store's compare-and-swap (`delete_live` at that revision) then refuses the delete when
        another writer changed the memory in between, instead of deleting the newer revision.
        """
        memory_id = revisions.validate_id(memory_id)
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
            deleted = deletion(live, self.provenance, self.clock())
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
        rows = self._rows_without_secrets(rows)
        if self.vectors is not None:
            rows = self._import_vectors(rows)
        with self.hold():
            counts = self.store.import_rows(rows, plan)
        if counts is not None:
            self.store.fold_if_needed(written_rows=counts.inserted + counts.updated)
        return counts

    def _rows_without_secrets(self, rows: list[Memory]) -> list[Memory]:
        """Exported rows checked as drafts are (the importer leaves out or redacts the chains
        that hold one before it gets here; this is the write boundary's own check)."""
        if self.secrets == "allow":
            return rows
        from graphit_cli.core import secrets

        refused: list[str] = []
        out: list[Memory] = []
        for row in rows:
            found = secrets.in_row(row)
            if found and self.secrets == "redact":
                row = secrets.redacted_row(row)
            elif found:
                name = f"row {row.key} ({secrets.safe_title(row.title)!r})"
                refused += secrets.refusal_lines(name, found)
            out.append(row)
        if refused:
            raise SecretRefused(secrets.refusal(refused))
        return out

    # --- restore (cli-polish) ---------------------------------------------------------------

    def restore(self, ref: str) -> WriteResult:
        """Make archived revision `<id>/<revision_id>` current again, as a new revision.

        Text, type, tags and flags come back as they were in that revision; the chain keeps
        everything in between. A deleted memory comes back the same way; when the revision is
        older than the one deleted, the memory first comes back as it was deleted, so the
        history keeps the delete (`revisions.closed_by_delete`). Restoring what is already
        current changes nothing.
        """
        memory_id, revision_id = revisions.parse_ref(ref)
        if not revision_id:
            raise InvalidInput(
                f"give the revision to restore as {memory_id}/<revision-id> "
                f"(see `graphit memory history {memory_id}`)"
            )
        old = self._reader.source(ref)
        draft = restoring(old)
        # Checked before anything is written: a refused restore leaves a deleted memory deleted.
        draft = self._without_secrets([(0, draft)], [draft])[0][1]
        if old.next is not None and self._deleted(memory_id):
            self.upsert(MemoryDraft(id=memory_id))  # back as deleted: the delete stays shown
        return self.upsert(draft)

    # --- provenance and review ---------------------------------------------------------------

    def checked(self, drafts: Sequence[MemoryDraft]) -> list[MemoryDraft]:
        """The drafts validated, given ids and checked for secrets, nothing written (review)."""
        prepared = [self._prepare(i, d) for i, d in enumerate(drafts)]
        return [d for _, d in self._without_secrets(prepared, drafts)]

    def next_row(self, draft: MemoryDraft, head: Head) -> tuple[WriteAction, Memory]:
        """The live row writing checked `draft` on `head` would make, stamped (review)."""
        plan = self._stamped(self._plan(0, draft, head))
        return plan.action, plan.result

    @property
    def author(self) -> str:
        if self._author is None:
            self._author = identity.author()
        return self._author

    @property
    def provenance(self) -> Provenance:
        if self._provenance is None:  # read at the first write: a read never pays for it
            self._provenance = identity.stamp("cli").but(author=self.author)
        return self._provenance

    def _stamped(self, plan: _Plan) -> _Plan:
        """`plan` with its new live row carrying this writer's provenance and status."""
        row = replace(plan.result, provenance=self.provenance, status=self.status)
        rows = [row if r is plan.result else r for r in plan.rows]
        return replace(plan, rows=rows, result=row) if plan.rows else plan

    def _deleted(self, memory_id: str) -> bool:
        try:
            self._reader.source(memory_id)
        except NotFound:
            return True
        return False


def _record_name(index: int, draft: MemoryDraft, total: int) -> str:
    """How a refusal names a record: its place in a batch, its id when given, and its title
    (with any secret in the title redacted)."""
    from graphit_cli.core import secrets

    parts = [f"record {index + 1}" if total > 1 else "memory"]
    if draft.id:
        parts.append(draft.id)
    if draft.title:
        parts.append(repr(secrets.safe_title(draft.title)))
    return " ".join(parts)


def _newest(heads: dict[str, tuple[Memory | None, Memory | None]], memory_id: str) -> Memory | None:
    """The live row, or for a deleted memory its final revision."""
    live, tail = heads.get(memory_id, (None, None))
    return live or tail


def _tuple(vector: list[float] | None) -> tuple[float, ...] | None:
    return tuple(vector) if vector is not None else None


def _text(title: str, body: str) -> str:
    """What the model embeds for a memory with this title and body (as the row will hold
    them)."""
    from graphit_cli.embed import document_text

    return document_text(revisions.validate_title(title), revisions.normalise_body(body))
