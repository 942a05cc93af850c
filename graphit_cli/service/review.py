"""Review: a project's writes by agents and non-reviewers held back as proposals; the queue,
approval and rejection; the audit read from the chains. Must not import Typer or Rich.

A proposal is a row of the memory's chain in the same table, off its main line
(core/provenance.py): key `<id>/<revision-id>`, `status` "proposed", `previous` the key of the
revision it was written against, `next` empty. No read of the main line sees it (the store
leaves proposal rows out of every chain, catalogue and search read), so teammates keep
reading the last approved revision; its author's reads and the review queue ask for it
(`Review.visible`). Approval claims the proposal (a compare-and-swap on its status) and then
writes its text as the chain's next revision, provenance kept (the proposer as author, the
reviewer as approver): the proposer's stamp is passed into the write (`Stamp`), so nothing the
writer holds is lent or changed. Rejection records the reviewer and the reason on the row,
which stays in the chain as history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from graphit_cli.core import revisions
from graphit_cli.core.models import (
    AuditEvent,
    BatchResult,
    Memory,
    MemoryDraft,
    MemoryFilter,
    Proposal,
    WriteAction,
    WriteResult,
)
from graphit_cli.core.provenance import (
    ACCEPTED,
    AGENT_VIAS,
    APPROVED,
    PROPOSED,
    REJECTED,
    Provenance,
)
from graphit_cli.errors import CommitContention, Conflict, InvalidInput, NotFound, NotReviewer
from graphit_cli.service.common import MAX_ATTEMPTS, backoff, missing, phantom, restoring
from graphit_cli.service.write_checks import Stamp

if TYPE_CHECKING:
    from graphit_cli.access.policy import ReviewPolicy
    from graphit_cli.access.scopes import Scope
    from graphit_cli.service.reads import Reader
    from graphit_cli.service.writes import Writer
    from graphit_cli.store.base import MergeCounts, Store


class Review:
    """The review gate over a scope's writer, and the queue, decisions and audit."""

    def __init__(
        self,
        store: Store,
        scope: Scope,
        writer: Writer,
        reader: Reader,
        policy: ReviewPolicy | None,
    ) -> None:
        self.store = store
        self.scope = scope
        self.writer = writer
        self.reader = reader
        self.policy = policy if scope.kind == "project" else None

    # --- the gate ----------------------------------------------------------------------------

    @property
    def proposing(self) -> bool:
        """Whether this service's writes land as proposals: review is on, and the writer is
        an agent (MCP, hook, import) or not a reviewer."""
        if self.policy is None:
            return False
        stamp = self.writer.provenance
        return stamp.via in AGENT_VIAS or not self.policy.is_reviewer(stamp.author)

    def upsert(self, draft: MemoryDraft) -> WriteResult:
        return self.upsert_many([draft]).results[0]

    def upsert_many(self, drafts: Sequence[MemoryDraft]) -> BatchResult:
        if not self.proposing:
            return self.writer.upsert_many(drafts)
        return BatchResult([self._propose(d) for d in self.writer.checked(drafts)])

    def delete(self, memory_id: str, *, expected_revision: int | None = None) -> WriteResult:
        if not self.proposing:
            return self.writer.delete(memory_id, expected_revision=expected_revision)
        memory_id = revisions.validate_id(memory_id)
        live, tail = self._head(memory_id)
        if live is None:
            raise missing(memory_id, tail)
        if expected_revision is not None and live.revision != expected_revision:
            raise Conflict(
                f"memory {memory_id} is at revision {live.revision}, not {expected_revision}"
            )
        row = replace(live, revision=live.revision + 1, updated_by=self.writer.stamp_for().author)
        return self._insert(row, live, tail, change="delete")

    def restore(self, ref: str) -> WriteResult:
        if not self.proposing:  # a revision written by way of a restore says so
            return self.writer.restore(ref, stamp=self.writer.stamp.via("restore"))
        old = self.reader.source(ref)
        draft = restoring(old)
        return self._propose(self.writer.checked([draft])[0])

    def import_rows(
        self,
        rows: list[Memory],
        plan: Callable[[list[Memory], list[Memory]], tuple[list[Memory], list[str]]],
        *,
        embedding_model: str | None = None,
    ) -> MergeCounts | None:
        """Rows exported by graphit, written with their history: under review only by a
        reviewer (whatever the command's `via`), since whole chains cannot wait as proposals;
        anyone else's exit 6 names the reviewers."""
        if self.policy is not None and not self.policy.is_reviewer(self.writer.author):
            raise NotReviewer(
                "this project's memory is reviewed: a graphit export is imported by a "
                "reviewer (text files such as AGENTS.md import as proposals); its reviewers: "
                + ", ".join(self.policy.reviewers)
            )
        return self.writer.import_rows(rows, plan, embedding_model=embedding_model)

    def _head(self, memory_id: str) -> tuple[Memory | None, Memory | None]:
        with self.store.snapshot():
            live, tail = self.store.heads([memory_id], vectors=False).get(memory_id, (None, None))
        return (None, tail) if phantom(live, tail) else (live, tail)

    def _propose(self, draft: MemoryDraft) -> WriteResult:
        assert draft.id is not None
        live, tail = self._head(draft.id)
        action, row = self.writer.next_row(draft, (live, tail))
        if action is WriteAction.UNCHANGED:
            return WriteResult(action, row)
        return self._insert(row, live, tail, change=None)

    def _insert(
        self, row: Memory, live: Memory | None, tail: Memory | None, *, change: str | None
    ) -> WriteResult:
        """Insert `row` as a proposal against `live` (or a deleted chain's `tail`)."""
        from ulid import ULID

        now = self.writer.clock()
        rid = str(ULID())
        previous = None
        if live is not None:  # the key revision `live` has once archived (deterministic)
            base_rid = revisions.revision_id_for(live.id, live.revision, live.updated_at)
            previous = revisions.archive_key(live.id, base_rid)
        elif tail is not None:
            previous = tail.key
        own = self.writer.stamp_for().provenance
        stamp = own.but(proposed_at=now.isoformat(), change=change)
        proposal = replace(
            row,
            key=revisions.archive_key(row.id, rid),
            revision_id=rid,
            superseded=True,
            previous=previous,
            next="",
            updated_at=now,
            status=PROPOSED,
            provenance=stamp,
            embedding=None,
        )
        for attempt in range(MAX_ATTEMPTS):  # a new key: only contention can stop it
            try:
                with self.writer.hold():
                    counts = self.store.merge([proposal])
                break
            except CommitContention:
                backoff(attempt)
        else:
            raise Conflict(f"gave up writing the proposal for {row.id}: nothing written")
        if counts.inserted != 1:
            raise Conflict(f"the proposal for {row.id} was not written; try again")
        self.store.fold_if_needed()
        return WriteResult(WriteAction.PROPOSED, proposal)

    # --- what a reader sees of proposals ------------------------------------------------------

    def visible(
        self, *, include_all: bool = False, flt: MemoryFilter | None = None
    ) -> list[Memory]:
        """Open proposals this service's author may see: their own, or (`include_all`, a
        reviewer's queue, `--include-proposed`) everyone's; with `flt`, those passing it."""
        rows = self.store.proposals(statuses=(PROPOSED,))
        if flt is not None:
            rows = [r for r in rows if _passes(r, flt)]
        if include_all:
            return rows
        me = self.writer.author.casefold()
        return [r for r in rows if _author(r).casefold() == me]

    def matching(self, query: str, *, include_all: bool = False) -> list[Memory]:
        """The visible open proposals sharing a word with `query`, most shared first: what a
        search adds for their author (or with `--include-proposed`). Proposals are few; a
        word count over their text is enough, and no index holds them apart."""
        words = set(_words(query))
        scored = []
        for row in self.visible(include_all=include_all):
            shared = len(words & set(_words(f"{row.title} {row.body} {' '.join(row.tags)}")))
            if shared:
                scored.append((-shared, row.updated_at.timestamp() * -1, row.key, row))
        return [row for *_, row in sorted(scored, key=lambda t: t[:3])]

    def source(self, ref: str) -> Memory:
        """`ref` as `Reader.source` reads it, or one of the reader's own proposals."""
        try:
            return self.reader.source(ref)
        except NotFound:
            memory_id, revision_id = revisions.parse_ref(ref)
            if not revision_id:
                raise
            key = revisions.archive_key(memory_id, revision_id)
            mine = [r for r in self.store.proposals([memory_id]) if r.key == key]
            if mine and _author(mine[0]).casefold() == self.writer.author.casefold():
                return mine[0]
            raise

    def history(self, memory_id: str, *, include_all: bool = False) -> list[Memory]:
        """The chain with the proposals made on it (every status) that the reader may see:
        their own, or with `include_all` everyone's; in the order they were written."""
        try:
            chain = self.reader.history(memory_id)
        except NotFound:
            chain = []  # a proposed new memory: its proposals are its whole chain
        rows = self.store.proposals([revisions.validate_id(memory_id)])
        me = self.writer.author.casefold()
        shown = [r for r in rows if include_all or _author(r).casefold() == me]
        if not chain and not shown:
            raise NotFound(f"no memory {memory_id}")
        return sorted([*chain, *shown], key=lambda r: (r.updated_at, r.revision))

    # --- the queue and decisions ------------------------------------------------------------

    def queue(self) -> list[Proposal]:
        """Every open proposal, oldest first, each with the memory as it now reads."""
        rows = self.store.proposals(statuses=(PROPOSED,))
        heads = self.store.heads(sorted({r.id for r in rows}), vectors=False) if rows else {}
        found = []
        for row in rows:
            live, tail = heads.get(row.id, (None, None))
            found.append(Proposal(row, None if phantom(live, tail) else live))
        return found

    def approve(self, key: str) -> WriteResult:
        """Make proposal `key` the memory's next revision (a reviewer only)."""
        reviewer = self._reviewer()
        row = self._open_proposal(key)
        now = self.writer.clock()
        stamp = _stamp_of(row).but(approved_by=reviewer, approved_at=now.isoformat())
        if not self._decide(row.key, ACCEPTED, stamp):
            raise Conflict(f"proposal {row.key} was decided meanwhile; see `graphit memory review`")
        landed = stamp.but(proposal=row.key)
        as_proposed = Stamp(author=landed.author, provenance=landed, status=APPROVED)
        if landed.change == "delete":
            return self.writer.delete(row.id, stamp=as_proposed)
        return self.writer.upsert(restoring(row, anchors=True), stamp=as_proposed)

    def reject(self, key: str, reason: str) -> Memory:
        """Record the rejection of proposal `key` with `reason` (a reviewer only); the row
        stays in the chain as history, seen by its author only."""
        reason = " ".join(reason.split())
        if not reason:
            raise InvalidInput("give the reason for the rejection with --reason")
        reviewer = self._reviewer()
        row = self._open_proposal(key)
        now = self.writer.clock()
        stamp = _stamp_of(row).but(rejected_by=reviewer, rejected_at=now.isoformat(), reason=reason)
        if not self._decide(row.key, REJECTED, stamp):
            raise Conflict(f"proposal {row.key} was decided meanwhile; see `graphit memory review`")
        return replace(row, status=REJECTED, provenance=stamp)

    def _decide(self, key: str, status: str, stamp: Provenance) -> bool:
        """The decision's compare-and-swap, retried while other writers contend."""
        for attempt in range(MAX_ATTEMPTS):
            try:
                return self.store.decide(key, status, stamp.to_json())
            except CommitContention:
                backoff(attempt)
        raise Conflict(f"gave up recording the decision on {key}: other writers kept committing")

    def _reviewer(self) -> str:
        if self.policy is None:
            raise InvalidInput(
                "review is off for this project: `graphit memory review on --reviewer EMAIL`"
            )
        me = self.writer.author
        if not self.policy.is_reviewer(me):
            raise NotReviewer(
                f"{me} is not a reviewer of this project; its reviewers: "
                + ", ".join(self.policy.reviewers)
            )
        return me

    def _open_proposal(self, key: str) -> Memory:
        memory_id, revision_id = revisions.parse_ref(key)
        if not revision_id:
            raise InvalidInput(
                f"give the proposal as {memory_id}/<revision-id> (see `graphit memory review`)"
            )
        ref = revisions.archive_key(memory_id, revision_id)
        found = [r for r in self.store.proposals([memory_id]) if r.key == ref]
        if not found:
            raise NotFound(f"no proposal {ref}")
        if found[0].status != PROPOSED:
            done = "approved" if found[0].status == ACCEPTED else found[0].status
            raise Conflict(f"proposal {ref} was already {done}")
        return found[0]

    # --- the audit ----------------------------------------------------------------------------

    def audit(
        self, *, since: datetime | None = None, author: str | None = None
    ) -> list[AuditEvent]:
        """Who did what to which memory, and when (service/audit.py)."""
        from graphit_cli.service.audit import audit

        return audit(self.store, since=since, author=author)


def _words(text: str) -> list[str]:
    import re

    return [w for w in re.findall(r"\w+", text.casefold()) if len(w) > 2]


def _passes(row: Memory, flt: MemoryFilter) -> bool:
    if flt.types and row.type not in flt.types:
        return False
    if any(tag not in row.tags for tag in flt.tags):
        return False
    if flt.important is not None and row.important != flt.important:
        return False
    return flt.mandatory is None or row.mandatory == flt.mandatory


def _author(row: Memory) -> str:
    return row.provenance.author if row.provenance else row.updated_by


def _stamp_of(row: Memory) -> Provenance:
    return row.provenance or Provenance(author=row.updated_by, via="")
