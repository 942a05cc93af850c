"""Applying a plan: one guarded pass of its actions over a table (real or simulated).

Each action is checked against the live rows it names (the revisions the plan saw), then
written; flags are never dropped, a flagged memory or the last live one is never bare-deleted,
and every change is recorded (for the log) as it happens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphit_cli.consolidate.candidates import merge_order, normalised_content
from graphit_cli.consolidate.plan import FLAG_ACTIONS, Action, PlanEntry
from graphit_cli.consolidate.tables import Table
from graphit_cli.core import revisions
from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.errors import Conflict, GraphitError

# The most specific type wins a merge.
TYPE_ORDER = (
    "correction",
    "constraint",
    "convention",
    "decision",
    "preference",
    "procedure",
    "skill",
    "tension",
    "fact",
)


@dataclass
class PlanOutcome:
    scope: str
    analysed: int
    applied: list[PlanEntry] = field(default_factory=list)
    refused: list[PlanEntry] = field(default_factory=list)
    failed: list[PlanEntry] = field(default_factory=list)
    log: str | None = None
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "analysed": self.analysed,
            "applied": [e.to_dict() for e in self.applied],
            "refused": [e.to_dict() for e in self.refused],
            "failed": [e.to_dict() for e in self.failed],
            "log": self.log,
        }


def most_specific_type(types: Iterable[str]) -> str:
    present = set(types)
    return next((t for t in TYPE_ORDER if t in present), "fact")


def union_text(members: Sequence[Memory], keep_id: str, now: datetime) -> tuple[str, str]:
    """The survivor's text when the plan gives none: a provenance line, then every distinct
    member's title and body, the survivor first and the rest oldest first."""
    ordered = merge_order(members, keep_id)
    distinct: list[Memory] = []
    seen: set[str] = set()
    for memory in ordered:
        key = normalised_content(memory)
        if key not in seen:
            seen.add(key)
            distinct.append(memory)
    keep = ordered[0]
    if len(distinct) == 1:
        return keep.title, keep.body
    others = ", ".join(m.id for m in ordered[1:])
    parts = [f"Merged {others} into {keep.id} by consolidation on {now:%Y-%m-%d}."]
    parts += [f"## {m.title}\n\n{m.body}" for m in distinct]
    return keep.title, "\n\n".join(parts)


def absorbed_text(memory: Memory, keep_id: str, reason: str, now: datetime) -> tuple[str, str]:
    """The final revision of an absorbed memory: its title and body say where it went."""
    title = f"[merged into {keep_id}] {memory.title}"[: revisions.MAX_TITLE]
    why = f": {' '.join(reason.split())}" if reason.strip() else ""
    line = f"Merged into {keep_id} by consolidation on {now:%Y-%m-%d}{why}."
    return title, f"{line}\n\n{memory.body}"


def snapshot(memory: Memory) -> dict[str, Any]:
    return {
        "revision": memory.revision,
        "title": memory.title,
        "body": memory.body,
        "type": memory.type,
        "tags": list(memory.tags),
        "important": memory.important,
        "mandatory": memory.mandatory,
    }


class Run:
    """One pass over the plan's actions against a table (real or simulated)."""

    def __init__(self, table: Table, outcome: PlanOutcome, now: datetime) -> None:
        self.table = table
        self.outcome = outcome
        self.now = now
        self.changes: list[dict[str, Any]] = []
        self.removed = 0
        # survivor id -> the ids it absorbed in this run
        self.absorbed_by: dict[str, list[str]] = {}
        self.on_change: Callable[[], None] = lambda: None

    def record(self, action: str, before: Memory | None, after: Memory, deleted: bool) -> None:
        self.changes.append(
            {
                "action": action,
                "id": after.id,
                "before": snapshot(before) if before is not None else None,
                "after": {"revision": after.revision, "deleted": deleted},
            }
        )
        self.on_change()

    def current(self, action: Action) -> dict[str, Memory] | str:
        """The live rows the action names, or why it is refused."""
        rows: dict[str, Memory] = {}
        for memory_id in action.ids:
            taken_in = self.absorbed_by.get(memory_id)
            if taken_in:
                # The plan saw it before it absorbed them: a flag change or a delete written
                # against that revision could drop what it took in, even when the merge left
                # its own text and revision as they were.
                return (
                    f"{memory_id} absorbed {', '.join(taken_in)} earlier in this plan, and "
                    "carries their flags now; plan any change to it again"
                )
            live = self.table.live(memory_id)
            if live is None:
                final = self.table.final(memory_id)
                if final is None:
                    return f"unknown id {memory_id}"
                return f"{memory_id} was deleted since the plan was made"
            seen = action.revisions[memory_id]
            if live.revision != seen:
                return (
                    f"{memory_id} moved on: it is at revision {live.revision}, the plan saw "
                    f"{seen}; read it again and re-plan"
                )
            rows[memory_id] = live
        return rows

    def run(self, actions: Sequence[Action]) -> None:
        order = {name: rank for rank, name in enumerate(("merge", "update", "flag", "delete"))}
        for action in sorted(actions, key=lambda a: (order[_kind(a.action)], a.number)):
            rows = self.current(action)
            if isinstance(rows, str):
                self.refuse(action, rows)
                continue
            try:
                getattr(self, f"_{_kind(action.action)}")(action, rows)
            except Conflict as exc:
                self.refuse(action, f"changed while applying: {exc.message}")
            except GraphitError as exc:
                self.fail(action, exc.message)

    def refuse(self, action: Action, why: str) -> None:
        self.outcome.refused.append(
            PlanEntry(action.action, list(action.ids), f"action {action.number}: {why}")
        )

    def fail(self, action: Action, why: str) -> None:
        self.outcome.failed.append(
            PlanEntry(action.action, list(action.ids), f"action {action.number}: {why}")
        )

    def done(self, action: Action, detail: str) -> None:
        self.outcome.applied.append(PlanEntry(action.action, list(action.ids), detail))

    def _merge(self, action: Action, rows: dict[str, Memory]) -> None:
        assert action.keep_id is not None
        members = [rows[i] for i in action.ids]
        keep = rows[action.keep_id]
        title, body = union_text(members, keep.id, self.now)
        union = {t for m in members for t in m.tags}
        if len(union) > revisions.MAX_TAGS:
            self.refuse(
                action,
                f"the merged memory would carry {len(union)} tags, at most {revisions.MAX_TAGS}: "
                "drop some with an update first",
            )
            return
        tags = revisions.normalise_tags(sorted(union))
        draft = MemoryDraft(
            id=keep.id,
            title=action.title or title,
            body=action.body or body,
            type=most_specific_type(m.type for m in members),
            tags=tags,
            # Flags are inherited independently; no plan can drop them.
            important=any(m.important for m in members),
            mandatory=any(m.mandatory for m in members),
            expected_revision=keep.revision,
        )
        # The survivor (with its flags) is committed before any member is removed.
        survivor, changed = self.table.write(draft, members)
        if changed:
            self.record("merge", keep, survivor, deleted=False)
        absorbed: list[str] = []
        for member in merge_order(members, keep.id)[1:]:
            if self._absorb(action, member, keep.id):
                absorbed.append(member.id)
        if absorbed:
            self.absorbed_by[keep.id] = absorbed
        flags = ", ".join(
            f for f, on in (("mandatory", draft.mandatory), ("important", draft.important)) if on
        )
        keeps, absorbs = ("keeps", "absorbs") if self.outcome.dry_run else ("kept", "absorbed")
        self.done(
            action,
            f"{keeps} {keep.id} (revision {survivor.revision}{', ' + flags if flags else ''}); "
            f"{absorbs} {', '.join(absorbed) or 'nothing'}",
        )

    def _absorb(self, action: Action, member: Memory, keep_id: str) -> bool:
        """Mark `member` as merged into `keep_id`, then delete it; both steps are logged, so
        undo restores it even when the delete fails."""
        title, body = absorbed_text(member, keep_id, action.reason, self.now)
        where = f"action {action.number}: {member.id}"
        try:
            marked, _ = self.table.write(
                MemoryDraft(id=member.id, title=title, body=body, expected_revision=member.revision)
            )
        except GraphitError as exc:
            target = self.outcome.refused if isinstance(exc, Conflict) else self.outcome.failed
            target.append(
                PlanEntry(
                    "merge", [member.id], f"{where} not absorbed (it stays live): {exc.message}"
                )
            )
            return False
        self.record("merge", member, marked, deleted=False)
        try:
            # Only the revision just marked may go: the store's compare-and-swap refuses the
            # delete if another writer changed the memory (a flag flipped on) since.
            final = self.table.delete(member.id, marked.revision)
        except Conflict as exc:
            why = self._unmark(member, marked, exc)
            self.outcome.refused.append(
                PlanEntry("merge", [member.id], f"{where} stays live: {why}")
            )
            return False
        except GraphitError as exc:
            self.outcome.failed.append(
                PlanEntry(
                    "merge",
                    [member.id],
                    f"{where} is marked as merged into {keep_id} but still live (undo restores "
                    f"it): {exc.message}",
                )
            )
            return False
        self.changes[-1]["after"] = {"revision": final.revision, "deleted": True}
        self.on_change()
        self.removed += 1
        return True

    def _unmark(self, member: Memory, marked: Memory, exc: GraphitError) -> str:
        """After a refused absorb: give the member back its title and body (keeping whatever
        the concurrent writer changed) and say what happened."""
        why = f"it changed during the apply ({exc.message})"
        current = self.table.live(member.id)
        if current is None or (current.title, current.body) != (marked.title, marked.body):
            return f"{why}; undo restores its title and body"
        try:
            restored, _ = self.table.write(
                MemoryDraft(
                    id=member.id,
                    title=member.title,
                    body=member.body,
                    expected_revision=current.revision,
                )
            )
        except GraphitError:
            return f"{why}; undo restores its title and body"
        # The mark and its reversal cancel out: the log keeps neither (undo has nothing to do).
        self.changes.pop()
        self.on_change()
        return f"{why}; nothing of it was removed or rewritten (now revision {restored.revision})"

    def _update(self, action: Action, rows: dict[str, Memory]) -> None:
        [before] = rows.values()
        draft = MemoryDraft(
            id=before.id, title=action.title, body=action.body, expected_revision=before.revision
        )
        after, changed = self.table.write(draft)
        if changed:
            self.record("update", before, after, deleted=False)
        self.done(action, f"revision {after.revision}" if changed else "no change")

    def _flag(self, action: Action, rows: dict[str, Memory]) -> None:
        [before] = rows.values()
        flag, value = FLAG_ACTIONS[action.action]
        draft = MemoryDraft(
            id=before.id,
            important=value if flag == "important" else None,
            mandatory=value if flag == "mandatory" else None,
            expected_revision=before.revision,
        )
        after, changed = self.table.write(draft)
        if changed:
            self.record(action.action, before, after, deleted=False)
        state = flag if value else f"not {flag}"
        self.done(action, f"{state} (revision {after.revision})" if changed else f"already {state}")

    def _delete(self, action: Action, rows: dict[str, Memory]) -> None:
        [before] = rows.values()
        if before.important or before.mandatory:
            which = "mandatory" if before.mandatory else "important"
            self.refuse(
                action,
                f"{before.id} is {which}: a bare delete cannot remove it; fold it into another "
                "memory instead (a merge keeps its flags)",
            )
            return
        if self.table.live_count() <= 1:
            self.refuse(action, f"{before.id} is the last live memory of the scope")
            return
        # The removal is a compare-and-swap on the revision checked above: a concurrent edit
        # (say, the memory marked mandatory) makes it a refusal, never a delete anyway.
        final = self.table.delete(before.id, before.revision)
        self.record("delete", before, final, deleted=True)
        self.removed += 1
        self.done(action, f"deleted (final revision {final.revision})")


def _kind(action: str) -> str:
    return "flag" if action in FLAG_ACTIONS else action
