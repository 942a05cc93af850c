"""`graphit memory review ...` and `graphit memory audit`: a project's review policy, its queue
of proposals, a reviewer's decisions, and the audit read from the chains (service/review.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from graphit_cli.cli.client import ScopeClient
from graphit_cli.cli.common import (
    CHECK,
    LISTING,
    WRITTEN,
    Format,
    FormatOpt,
    WrittenFormatOpt,
    handle_errors,
    note,
    out,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.errors import InvalidInput, NoProject

review_app = typer.Typer(
    name="review",
    help="Review agents' and non-reviewers' writes before the team sees them.\n\n"
    "Without a subcommand: the queue of open proposals, each with its change against the "
    "memory as it now reads.",
    invoke_without_command=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
memory_app.add_typer(review_app, name="review", rich_help_panel=CHECK)


@review_app.callback()
@handle_errors
def queue(ctx: typer.Context, fmt: FormatOpt = None) -> None:
    """Review agents' and non-reviewers' writes before the team sees them.

    Without a subcommand, print the queue of open proposals (oldest first), each with its
    change against the memory as it now reads (`-f json`: {"proposal", "current",
    "change"}). Approve or reject one with `graphit memory review approve|reject KEY`.
    """
    if ctx.invoked_subcommand is not None:
        return
    from graphit_cli.formats import render
    from graphit_cli.formats import review as shown

    found = ScopeClient(None, False).reader.review.queue()
    chosen = LISTING.resolve(fmt)
    if chosen in (Format.json, Format.ndjson):
        items = [shown.proposal_to_dict(p) for p in found]
        as_json = render.dumps_json(items) if chosen is Format.json else None
        out(as_json if as_json is not None else render.dumps_ndjson(items))
    elif chosen is Format.markdown:
        out("\n".join(shown.proposal_to_markdown(p) for p in found))
    else:
        out(shown.queue_table(found))
    if not found:
        note("No open proposals.")


@review_app.command("on")
@handle_errors
def review_on(
    reviewers: Annotated[
        list[str],
        typer.Option("--reviewer", metavar="EMAIL", help="A reviewer's email (repeatable)."),
    ],
) -> None:
    """Switch review on for this project, naming its reviewers, in graphit.lock.json.

    Commit the lock file: the policy is the project's. From then on, a write by an agent
    (MCP, hooks, import) or by someone who is not a reviewer lands as a proposal, which
    teammates do not see until a reviewer approves it. Authors are what each checkout says
    (git's user.email or GRAPHIT_AUTHOR): accountability, not access control.

    Example:

      graphit memory review on --reviewer ana@example.com --reviewer bo@example.com
    """
    from graphit_cli.access import policy

    found = policy.write(_lock_file(), list(reviewers))
    assert found is not None
    note(f"Review on; reviewers: {', '.join(found.reviewers)}. Commit graphit.lock.json.")


@review_app.command("off")
@handle_errors
def review_off() -> None:
    """Switch review off for this project (graphit.lock.json): writes land directly again.

    Open proposals stay hidden from teammates; switch review on again to decide them.
    """
    from graphit_cli.access import policy

    policy.write(_lock_file(), None)
    note("Review off. Commit graphit.lock.json.")


@review_app.command("approve")
@handle_errors
def approve(
    key: Annotated[str, typer.Argument(metavar="ID/REVISION_ID", help="The proposal.")],
    fmt: WrittenFormatOpt = None,
) -> None:
    """Approve a proposal: it becomes the memory's next revision (a reviewer only: exit 6).

    The revision keeps the proposer as its author and records you as its approver.
    """
    from graphit_cli.cli import output

    result = ScopeClient(None, False).service.review.approve(key)
    output.writes([result], WRITTEN.resolve(fmt))


@review_app.command("reject")
@handle_errors
def reject(
    key: Annotated[str, typer.Argument(metavar="ID/REVISION_ID", help="The proposal.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded with the rejection).")],
    fmt: WrittenFormatOpt = None,
) -> None:
    """Reject a proposal with a reason (a reviewer only: exit 6).

    The proposal stays in the memory's chain as history, seen by its author and the audit,
    never by teammates' reads.
    """
    from graphit_cli.cli import output

    row = ScopeClient(None, False).service.review.reject(key, reason)
    output.memories([row], WRITTEN.resolve(fmt))


@memory_app.command("audit", rich_help_panel=CHECK)
@handle_errors
def audit(
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="DATE", help="Only events at or after DATE (ISO 8601)."),
    ] = None,
    author: Annotated[
        str | None,
        typer.Option("--author", metavar="EMAIL", help="Only events by this identity."),
    ] = None,
    fmt: FormatOpt = None,
) -> None:
    """Who wrote, proposed, approved, rejected, deleted, restored or redacted what, and when.

    Read from the revision chains of the project's table, oldest first. Each event names
    the identity its revision records (what the writer's checkout said: a forged name shows
    as the name it wrote).

    Example:

      graphit memory audit --since 2026-01-01 --author ana@example.com -f json
    """
    from graphit_cli.formats import render
    from graphit_cli.formats import review as shown

    moment = _date(since) if since else None
    events = ScopeClient(None, False).reader.review.audit(since=moment, author=author)
    chosen = LISTING.resolve(fmt)
    if chosen is Format.json:
        out(render.dumps_json([shown.event_to_dict(e) for e in events]))
    elif chosen is Format.ndjson:
        out(render.dumps_ndjson(shown.event_to_dict(e) for e in events))
    elif chosen is Format.markdown:
        out("".join(shown.event_to_markdown(e) for e in events))
    else:
        out(shown.audit_table(events))
    if not events:
        note("No events.")


def _lock_file() -> Path:
    from graphit_cli import config

    found = config.find_project_lock()
    if found is None:
        raise NoProject("not inside a graphit project (no graphit.lock.json here or above)")
    return found


def _date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(f"invalid date {text!r}: use ISO 8601 (2026-01-31T12:00Z)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
