"""`graphit memory consolidate`: candidates, guarded plan apply, undo (adapters over Consolidator).

Registered on the `memory` group by `cli/app.py` importing this module. The service and the
consolidation module are imported inside the commands, so `--help` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli.common import (
    CHECK,
    Format,
    Output,
    ScopeOpt,
    UserOpt,
    format_option,
    handle_errors,
    out,
    scope_spec,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.consolidate.consolidator import MASS_COUNT, MASS_FRACTION
from graphit_cli.core.profiles import PROFILES

if TYPE_CHECKING:
    from graphit_cli.consolidate.apply import PlanOutcome
    from graphit_cli.service.memory import MemoryService


consolidate_app = typer.Typer(
    name="consolidate",
    invoke_without_command=True,
    no_args_is_help=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
memory_app.add_typer(consolidate_app, name="consolidate", rich_help_panel=CHECK)

# What consolidation prints: a Markdown report (also for table); json and ndjson: one object.
REPORT = Output(
    Format.markdown,
    Format.markdown,
    "table prints the Markdown report too; json and ndjson print one object.",
)
ReportFormatOpt = Annotated[Format | None, format_option(REPORT)]


CONSOLIDATE_HELP = """Find duplicate and stale memories; apply a consolidation plan; undo one.

Without --plan: a read-only report of exact duplicates, near duplicates (stored
embedding cosine >= --threshold, confirmed by shared words; memories without a vector
are compared by words alone; every pair in a group is similar; memories of different
types only when they restate each other), contradictions (one subject, different
beliefs: the newer is the proposed survivor) and stale memories (whose anchors no longer
hold in this checkout, oldest-verified first; listed for review only).

With --plan: a JSON plan an agent or a person wrote from the report:

\b
  {"version": 1, "actions": [
    {"action": "merge", "ids": ["A", "B"], "keep_id": "A", "title": "...",
     "body": "...", "reason": "...", "revisions": {"A": 3, "B": 1}},
    {"action": "update", "id": "C", "body": "...", "revision": 2},
    {"action": "promote|demote|mandatory|optional|delete", "id": "D", "revision": 5}]}

Dry run unless --apply. Merges run first, then updates, flag changes, deletes. A
merge writes the survivor first (the plan's text, or the members' texts joined; the
most specific type; all tags; important and mandatory if any member had them), then
removes the others, whose final revision says "[merged into A]". An action whose
memory changed since the plan (its revision moved on), names an unknown id, or is
malformed is refused with a reason; the rest applies. A bare delete never removes an
important or mandatory memory, nor the last memory. Each apply writes a log under
~/.graphit/memory/consolidation/ that `graphit memory consolidate undo LOG` reverts.

Exit codes: 0 when nothing failed (refused actions are reported, not failures);
3 for a plan that is not valid JSON or not a plan, or that removes too many
memories without --allow-mass-removal; 5 when an action failed while applying.

\b
Examples:
  graphit memory consolidate                       # report, Markdown
  graphit memory consolidate --format json > candidates.json
  graphit memory consolidate --plan plan.json      # dry run
  graphit memory consolidate --plan plan.json --apply
  graphit memory consolidate undo ~/.graphit/memory/consolidation/<log>.json
"""


@consolidate_app.callback(help=CONSOLIDATE_HELP)
@handle_errors
def consolidate(
    ctx: typer.Context,
    plan: Annotated[
        str | None,
        typer.Option(
            "--plan",
            metavar="PLAN.json",
            help="Check (or with --apply, carry out) this plan; - reads it from stdin.",
            show_default=False,
        ),
    ] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Write the plan's changes (default: dry run).")
    ] = False,
    allow_mass_removal: Annotated[
        bool,
        typer.Option(
            "--allow-mass-removal",
            help=f"Allow a plan that removes more than {MASS_FRACTION:.0%} of the live memories "
            f"(or {MASS_COUNT}).",
        ),
    ] = False,
    threshold: Annotated[
        float | None,
        typer.Option(
            "--threshold",
            min=0.01,
            max=1.0,
            show_default=False,
            help="Embedding cosine at which two memories are near duplicates. Default: the "
            "value calibrated for the model that embedded the table on 128 labelled pairs "
            "(benchmarks/dedup.py): "
            + ", ".join(f"{p.near_duplicate:g} for {p.model_id}" for p in PROFILES.values())
            + ". Raise it for fewer, closer groups.",
        ),
    ] = None,
    bodies: Annotated[
        bool, typer.Option("--bodies", help="Markdown report: print each member's body too.")
    ] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: ReportFormatOpt = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from graphit_cli.consolidate.consolidator import Consolidator
    from graphit_cli.consolidate.plan import read_plan
    from graphit_cli.consolidate.render import report_dict, report_markdown

    consolidator = Consolidator(_service(scope, user))
    chosen = REPORT.resolve(fmt)
    if plan is None:
        if apply or allow_mass_removal:
            raise typer.BadParameter("--apply and --allow-mass-removal need --plan")
        from graphit_cli import anchors

        report = consolidator.report(threshold, anchors.checkout_root())
        out(
            _dumps(report_dict(report), chosen)
            if chosen in (Format.json, Format.ndjson)
            else report_markdown(report, bodies=bodies)
        )
        return
    data = read_plan(_read(plan), origin="stdin" if plan == "-" else plan)
    outcome = consolidator.apply(data, apply=apply, allow_mass_removal=allow_mass_removal)
    _finish(outcome, chosen)


@consolidate_app.command()
@handle_errors
def undo(
    log: Annotated[
        str,
        typer.Argument(
            metavar="LOG", help="An apply log (a path, or a file name in the log folder)."
        ),
    ],
    fmt: ReportFormatOpt = None,
) -> None:
    """Revert a logged apply: revive absorbed and deleted memories (their chains continue)
    and restore the previous text and flags of the memories it changed.

    A memory edited after the apply is reported and left alone. The undo writes a log of
    its own (so it can be undone too). Works on the scope named in the log.

    Example (the log path is printed by --apply):

      graphit memory consolidate undo ~/.graphit/memory/consolidation/<log>.json
    """
    from graphit_cli.access.scopes import parse_scope_ref
    from graphit_cli.consolidate.consolidator import Consolidator
    from graphit_cli.consolidate.log import read_log
    from graphit_cli.opening import open_service

    recorded = read_log(log)
    service = open_service(parse_scope_ref(recorded["scope"]), create=False, via="consolidate")
    _finish(Consolidator(service).undo(log), REPORT.resolve(fmt))


def _dumps(value: dict[str, object], fmt: Format) -> str:
    """One object: indented for json, on one line for ndjson."""
    from graphit_cli.formats import render

    return render.dumps_json(value) if fmt is Format.json else render.dumps_ndjson([value])


def _finish(outcome: PlanOutcome, fmt: Format) -> None:
    from graphit_cli.consolidate.render import outcome_markdown
    from graphit_cli.errors import ExitCode

    as_json = fmt in (Format.json, Format.ndjson)
    out(_dumps(outcome.to_dict(), fmt) if as_json else outcome_markdown(outcome))
    if outcome.failed:
        raise typer.Exit(int(ExitCode.CONFLICT))


def _service(scope: str | None, user: bool) -> MemoryService:
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.opening import open_service

    return open_service(resolve_scope(scope_spec(scope, user)), via="consolidate")


def _read(plan: str) -> str:
    from graphit_cli.errors import InvalidInput

    if plan == "-":
        return sys.stdin.read()
    try:
        return Path(plan).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {plan}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {plan}: {exc}") from None
