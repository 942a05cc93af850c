"""The consolidation use-case the adapters call: report, apply (simulated first), undo."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli.consolidate.apply import PlanOutcome, Run
from graphit_cli.consolidate.candidates import Report, find_candidates
from graphit_cli.consolidate.log import LogWriter, read_log
from graphit_cli.consolidate.plan import Action, PlanEntry, parse_plan
from graphit_cli.consolidate.tables import ServiceTable, Simulation
from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.errors import GraphitError, InvalidInput, NotReviewer, SecretRefused

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService

MASS_FRACTION = 0.25  # a plan removing more than this share of the live memories ...
MASS_COUNT = 20  # ... or more than this many is refused without allow_mass_removal
MASS_FLOOR = 2  # removing this many is never a mass removal (a small scope can consolidate)


def removal_limit(live: int) -> int:
    """How many memories a plan may remove without allow_mass_removal: a quarter of the live
    ones, at most 20, and never fewer than two (merging two of three memories is not mass
    removal; the last live memory stays protected by its own guard)."""
    return max(MASS_FLOOR, min(MASS_COUNT, int(live * MASS_FRACTION)))


class Consolidator:
    """Consolidation of one scope's table, through the service's public methods."""

    def __init__(
        self, service: MemoryService, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.service = service
        self.clock = clock or service.clock

    # --- report ----------------------------------------------------------------------------

    def report(self, threshold: float | None = None, root: Path | None = None) -> Report:
        """The candidates; `threshold` defaults to the near-duplicate cosine of the model that
        embedded the table (its profile: each model's cosines spread differently). `root`:
        the caller's checkout, whose broken anchors make the stale candidates (none without)."""
        from graphit_cli import anchors

        if threshold is None:
            from graphit_cli.core import profiles

            threshold = profiles.profile_for(self.service.store.embedding_model()).near_duplicate
        rows = self.service.catalogue()
        ids, vectors = self.service.live_vectors()
        return find_candidates(
            rows,
            ids,
            vectors,
            scope=str(self.service.scope),
            now=self.clock(),
            threshold=threshold,
            stale=anchors.check(rows, root),
        )

    # --- apply -----------------------------------------------------------------------------

    def apply(
        self, plan: Any, *, apply: bool = False, allow_mass_removal: bool = False
    ) -> PlanOutcome:
        """Check the plan against the table and, with `apply`, carry it out.

        Always simulated first, so the dry run and the guards see exactly what the apply
        would do; a plan removing too many memories is an InvalidInput unless allowed.
        """
        scope = str(self.service.scope)
        actions, malformed = parse_plan(plan, scope)
        _refuse_secrets(actions, self.service.secrets)
        total = len(plan["actions"])
        now = self.clock()
        rows = self.service.catalogue()
        dry = PlanOutcome(scope, total, refused=list(malformed), dry_run=True)
        simulation = Run(Simulation(rows, self.service.author, now), dry, now)
        simulation.run(actions)
        limit = removal_limit(len(rows))
        if simulation.removed > limit and not allow_mass_removal:
            raise InvalidInput(
                f"the plan would remove {simulation.removed} of {len(rows)} live memories "
                f"(more than {limit}: a quarter, at most {MASS_COUNT}, at least {MASS_FLOOR}); "
                "check it, then pass "
                "--allow-mass-removal (MCP: allow_mass_removal: true)"
            )
        if not apply:
            dry.refused.sort(key=entry_order)
            return dry
        self._may_write()
        outcome = PlanOutcome(scope, total, refused=list(malformed))
        run = Run(ServiceTable(self.service), outcome, now)
        log = LogWriter(self.service, "apply", now)
        run.on_change = lambda: log.write(run.changes)
        run.run(actions)
        outcome.refused.sort(key=entry_order)
        outcome.log = str(log.path) if run.changes else None
        return outcome

    def _may_write(self) -> None:
        """A project under review is consolidated by a reviewer from the command line: an
        agent's or a non-reviewer's merges would be a heap of proposals, not one change."""
        review = self.service.review
        if review.proposing and review.policy is not None:
            names = ", ".join(review.policy.reviewers)
            raise NotReviewer(
                "this project's memory is reviewed: consolidation is applied by a reviewer "
                f"(`graphit memory consolidate`); its reviewers: {names}"
            )

    # --- undo ------------------------------------------------------------------------------

    def undo(self, log_path: str | Path) -> PlanOutcome:
        """Restore what a logged apply changed, newest change first; an edit made since is
        reported, never overwritten."""
        entry_log = read_log(log_path)
        scope = str(self.service.scope)
        if entry_log["scope"] != scope:
            raise InvalidInput(f"{log_path} is a log of {entry_log['scope']}, not {scope}")
        changes = entry_log["changes"]
        self._may_write()
        now = self.clock()
        outcome = PlanOutcome(scope, len(changes))
        table = ServiceTable(self.service)
        run = Run(table, outcome, now)
        log = LogWriter(self.service, "undo", now)
        run.on_change = lambda: log.write(run.changes)
        for change in reversed(changes):
            self._restore(table, run, change)
        outcome.log = str(log.path) if run.changes else None
        return outcome

    def _restore(self, table: ServiceTable, run: Run, change: dict[str, Any]) -> None:
        memory_id = change["id"]
        before, after = change["before"], change["after"]
        live = table.live(memory_id)
        ids = [memory_id]
        undone = _already_undone(before, live)
        if undone is not None:
            run.outcome.refused.append(PlanEntry("restore", ids, f"{memory_id} {undone}"))
            return
        if after["deleted"]:
            final = table.final(memory_id) if live is None else None
            if final is None or final.revision != after["revision"]:
                now_at = f"live at revision {live.revision}" if live else "not in the table"
                run.outcome.refused.append(
                    PlanEntry("restore", ids, f"{memory_id} changed after the apply ({now_at})")
                )
                return
        elif live is None or live.revision != after["revision"]:
            where = f"at revision {live.revision}" if live else "deleted"
            run.outcome.refused.append(
                PlanEntry(
                    "restore",
                    ids,
                    f"{memory_id} was edited after the apply (now {where}, the apply left "
                    f"{after['revision']}): not overwritten",
                )
            )
            return
        try:
            if before is None:  # the change created or revived it: remove it again
                assert live is not None
                if live.important or live.mandatory:
                    raise InvalidInput(f"{memory_id} is flagged; not deleted by an undo")
                final = table.delete(memory_id, live.revision)
                run.record("restore", live, final, deleted=True)
                run.outcome.applied.append(PlanEntry("restore", ids, "deleted again"))
                return
            draft = MemoryDraft(
                id=memory_id,
                title=before["title"],
                body=before["body"],
                type=before["type"],
                tags=tuple(before["tags"]),
                important=before["important"],
                mandatory=before["mandatory"],
                expected_revision=live.revision if live is not None else None,
            )
            restored, _ = table.write(draft)
        except GraphitError as exc:
            run.outcome.failed.append(PlanEntry("restore", ids, exc.message))
            return
        run.record("restore", live, restored, deleted=False)
        run.outcome.applied.append(
            PlanEntry(
                "restore",
                ids,
                f"{'revived' if live is None else 'restored'} {memory_id} to its revision "
                f"{before['revision']} content (now revision {restored.revision})",
            )
        )


_CONTENT = ("title", "body", "type", "tags", "important", "mandatory")


def _already_undone(before: dict[str, Any] | None, live: Memory | None) -> str | None:
    """Why there is nothing to undo for a change (the memory is already as it was before the
    apply, e.g. this log was undone before), or None."""
    if before is None:
        return "was already undone: it is deleted again" if live is None else None
    if live is None:
        return None
    now = {
        "title": live.title,
        "body": live.body,
        "type": live.type,
        "tags": list(live.tags),
        "important": live.important,
        "mandatory": live.mandatory,
    }
    if any(now[k] != before[k] for k in _CONTENT):
        return None
    return (
        f"was already undone: it is back at its revision {before['revision']} content "
        f"(now revision {live.revision}); nothing to do"
    )


def _refuse_secrets(actions: list[Action], policy: str) -> None:
    """A plan whose title, body or reason holds a secret is refused whole, before anything is
    simulated or applied (a reason is written into the bodies of merged memories)."""
    if policy == "allow":
        return
    from graphit_cli.core import secrets

    lines: list[str] = []
    for action in actions:
        for field in ("title", "body", "reason"):
            text = getattr(action, field) or ""
            found = secrets.find(text)
            name = f"action {action.number} ({action.action})"
            lines += [f"{name}: {secrets.describe(f, field)}" for f in found]
    if lines:
        head = "refused: a secret in the plan (nothing was applied)"
        raise SecretRefused("\n".join([head, *lines, secrets.INSTEAD]))


def entry_order(entry: PlanEntry) -> tuple[int, str]:
    match = re.match(r"action (\d+):", entry.detail)
    return (int(match.group(1)) if match else 0, entry.detail)
