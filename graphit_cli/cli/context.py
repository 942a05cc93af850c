"""`graphit memory context add|list|refresh|remove`, and recall across scopes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli.common import (
    Format,
    FormatOpt,
    handle_errors,
    note,
    out,
    resolve_format,
    stdin_is_interactive,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.cli.transfer import ImportFormat, progress, render_report

if TYPE_CHECKING:
    from graphit_cli.portability.contexts import Context

context_app = typer.Typer(
    name="context",
    help="Named contexts: another body of memory (a team's conventions, another project's "
    "memory) attached under a name, searchable beside the project's own.\n\n"
    "Read one with --scope context:NAME; `graphit memory recall` also loads the mandatory "
    "memories of every context added with --recall.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
memory_app.add_typer(context_app, name="context")

NameArg = Annotated[
    str, typer.Argument(metavar="NAME", help="Lowercase letters, digits and . _ - (<= 64).")
]


@context_app.command("add")
@handle_errors
def add(
    name: NameArg,
    source: Annotated[
        Path | None,
        typer.Option("--from", help="A file or folder to import (any `memory import` format)."),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            metavar="ULID",
            help="Attach another project's memory, read-only, instead of importing.",
        ),
    ] = None,
    recall: Annotated[
        bool, typer.Option("--recall", help="Load its mandatory memories in `recall`.")
    ] = False,
    fmt: Annotated[
        ImportFormat,
        typer.Option("--format", "-f", case_sensitive=False, help="What --from holds."),
    ] = ImportFormat.auto,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Add a context: import --from PATH into its own table, or attach --project ULID.

    Examples:

      graphit memory context add team --from ~/src/handbook/AGENTS.md --recall

      graphit memory context add backend --project 01JD8Z3Q0000000000000000AB

      graphit memory search "retry policy" --scope context:team
    """
    from graphit_cli.portability import contexts

    entry, report = contexts.add(
        name, source=source, project=project, recall=recall, fmt=fmt.value, progress=progress
    )
    note(f"Added context {entry.name} ({_describe(entry)}).")
    if report is not None:
        render_report(report, as_json)


@context_app.command("list")
@handle_errors
def list_(fmt: FormatOpt = None) -> None:
    """List contexts: name, source, memories, last refreshed, recall on/off."""
    from graphit_cli import render
    from graphit_cli.portability import contexts

    found = contexts.listing()
    records: list[dict[str, object]] = [
        {
            "name": c.name,
            "kind": c.kind,
            "source": c.source,
            "format": c.format,
            "memories": count,
            "refreshed_at": c.refreshed_at,
            "recall": c.recall,
        }
        for c, count in found
    ]
    chosen = resolve_format(fmt)
    if chosen is Format.json:
        out(render.dumps_json(records))
    elif chosen is Format.ndjson:
        out(render.dumps_ndjson(records))
    else:
        rows = [
            [
                c.name,
                "missing" if count is None else str(count),
                (c.refreshed_at or "never")[:16].replace("T", " "),
                "on" if c.recall else "off",
                _describe(c),
            ]
            for c, count in found
        ]
        out(render.table(["NAME", "MEMORIES", "REFRESHED", "RECALL", "SOURCE"], rows))
        if not records:
            note("No contexts: add one with `graphit memory context add NAME --from PATH`.")


@context_app.command("refresh")
@handle_errors
def refresh(
    name: NameArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Import the context's source again: changed items become new revisions, nothing is
    duplicated. (An attached project is read where it lives: nothing to refresh.)"""
    from graphit_cli.portability import contexts

    entry, report = contexts.refresh(name, progress=progress)
    if report is None:
        note(f"Context {entry.name} is attached ({_describe(entry)}): nothing to refresh.")
        return
    render_report(report, as_json)


@context_app.command("remove")
@handle_errors
def remove(
    name: NameArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Remove a context: its local table and lock entry (like `prune`). The source it was
    imported from, and an attached project's table, are never touched."""
    from graphit_cli.portability import contexts

    contexts.validate_name(name)
    if not yes:
        if not stdin_is_interactive():
            raise typer.BadParameter("refusing to remove without --yes when not interactive")
        if not typer.confirm(f"Remove context {name}?", err=True):
            raise typer.Abort()
    described = contexts.remove(name)
    out(f"pruned context:{name}\n")
    note(f"Removed {described}.")


def _describe(entry: Context) -> str:
    if entry.kind == "project":
        return f"project {entry.source}, read-only"
    return f"from {entry.source}"
