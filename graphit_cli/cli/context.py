"""`graphit memory context add|list|refresh|remove`, and recall across scopes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli import output
from graphit_cli.cli.common import (
    DOCUMENT,
    LISTING,
    SHARE,
    Format,
    ImportFormat,
    InputFormatOpt,
    JsonAliasOpt,
    Output,
    YesOpt,
    format_option,
    handle_errors,
    json_alias,
    note,
    out,
    stdin_is_interactive,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.cli.progress import bar
from graphit_cli.cli.transfer import ReportFormatOpt, render_report

if TYPE_CHECKING:
    from graphit_cli.access.contexts import Context
    from graphit_cli.core.models import Memory, MemoryFilter

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
memory_app.add_typer(context_app, name="context", rich_help_panel=SHARE)

# What `context list` prints: its table, also for markdown.
CONTEXTS = Output(Format.table, Format.table, "markdown prints the table.")
ContextsFormatOpt = Annotated[Format | None, format_option(CONTEXTS)]

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
    source_format: InputFormatOpt = ImportFormat.auto,
    fmt: ReportFormatOpt = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """Add a context: import --from PATH into its own table, or attach --project ULID.

    Examples:

      graphit memory context add team --from ~/src/handbook/AGENTS.md --recall

      graphit memory context add backend --project 01JD8Z3Q0000000000000000AB

      graphit memory search "retry policy" --scope context:team
    """
    from graphit_cli.cli.inprocess import say_notice, write_vectors
    from graphit_cli.portability import contexts

    # An imported context is written with its vectors, as `import` writes (up to a bound).
    vectors = write_vectors() if source is not None else None
    with bar("importing", minimum=500) as progress:
        entry, report = contexts.add(
            name,
            source=source,
            project=project,
            recall=recall,
            fmt=source_format.value,
            progress=progress,
            vectors=vectors,
        )
    if vectors is not None:
        say_notice(vectors, note)
    note(f"Added context {entry.name} ({_describe(entry)}).")
    if report is not None:
        render_report(report, json_alias(fmt, as_json))


@context_app.command("list")
@handle_errors
def list_(fmt: ContextsFormatOpt = None) -> None:
    """List contexts: name, source, memories, last refreshed, recall on/off."""
    from graphit_cli.formats import render
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
            "error": why,
        }
        for c, count, why in found
    ]
    chosen = CONTEXTS.resolve(fmt)
    if chosen is Format.json:
        out(render.dumps_json(records))
    elif chosen is Format.ndjson:
        out(render.dumps_ndjson(records))
    else:
        rows = [
            [
                c.name,
                ("error" if why else "missing") if count is None else str(count),
                (c.refreshed_at or "never")[:16].replace("T", " "),
                "on" if c.recall else "off",
                _describe(c),
            ]
            for c, count, why in found
        ]
        out(render.table(["NAME", "MEMORIES", "REFRESHED", "RECALL", "SOURCE"], rows))
        for c, _, why in found:
            if why:  # one line each: a damaged context never hides the others
                note(f"Error: context {c.name}: {why}")
        if not records:
            note("No contexts: add one with `graphit memory context add NAME --from PATH`.")


@context_app.command("refresh")
@handle_errors
def refresh(
    name: NameArg,
    fmt: ReportFormatOpt = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """Import the context's source again: changed items become new revisions, nothing is
    duplicated. (An attached project is read where it lives: nothing to refresh.)"""
    from graphit_cli.access import contexts as registry
    from graphit_cli.cli.inprocess import say_notice, write_vectors
    from graphit_cli.portability import contexts

    # An attached project is read where it lives: no model to load for it.
    attached = registry.get(name).kind == registry.ATTACHED
    vectors = None if attached else write_vectors()
    with bar("importing", minimum=500) as progress:
        entry, report = contexts.refresh(name, progress=progress, vectors=vectors)
    if vectors is not None:
        say_notice(vectors, note)
    if report is None:
        note(f"Context {entry.name} is attached ({_describe(entry)}): nothing to refresh.")
        return
    render_report(report, json_alias(fmt, as_json))


@context_app.command("remove")
@handle_errors
def remove(
    name: NameArg,
    yes: YesOpt = False,
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


# --- recall and search across scopes (called by `recall` and `search --scope all`) ----------


def recall_across(context: str | None, top_k: int, fmt: Format | None) -> None:
    """`graphit memory recall` without --scope: the project, the user scope and every recall
    context; mandatory memories in full, then one search with them left out."""
    from graphit_cli.cli import client
    from graphit_cli.formats import render
    from graphit_cli.portability import across

    scopes, notices = across.recall_scopes()
    result = client.recall_across(scopes, context, top_k=top_k)
    for notice in notices:
        note(f"Note: {notice}.")
    hits = result.search.hits if result.search else []
    if result.search and result.search.notice:
        note(result.search.notice)
    chosen = DOCUMENT.resolve(fmt)
    where = ", ".join(result.scopes) or "no scope"
    shown = [*result.mandatory, *(h.memory for h in hits)]
    with output.checked(shown, chosen):  # anchors, against this checkout
        if chosen in (Format.json, Format.ndjson):
            out(
                render.dumps_json(
                    {
                        "scopes": result.scopes,
                        "mandatory": [render.to_dict(m) for m in result.mandatory],
                        "search": None
                        if result.search is None
                        else {
                            "mode": result.search.mode,
                            "hits": [render.hit_to_dict(h) for h in hits],
                        },
                    }
                )
            )
            return
        if chosen is Format.markdown:
            parts = [f"## Mandatory memories ({len(result.mandatory)}) from {where}\n"]
            parts += [render.to_markdown(m, [render.scope_field(m)]) for m in result.mandatory]
            if result.search is not None:
                parts.append(f"## Relevant memories ({len(hits)})\n")
                parts += [render.hit_to_markdown(h, with_scope=True) for h in hits]
            out("\n".join(parts))
            return
        note(f"Mandatory memories ({len(result.mandatory)}) from {where}:")
        out(_scoped_table(result.mandatory))
        if result.search is not None:
            note(f"Relevant memories ({len(hits)}):")
            out(_scoped_table([h.memory for h in hits]))


def search_across(
    query: str,
    fmt: Format | None,
    *,
    flt: MemoryFilter,
    top_k: int,
    exclude_mandatory: bool,
    include_deleted: bool,
    mode: str,
) -> None:
    """`graphit memory search --scope all`: the recall scopes searched together."""
    from graphit_cli.cli import client
    from graphit_cli.formats import render
    from graphit_cli.portability import across

    scopes, notices = across.recall_scopes()
    for notice in notices:
        note(f"Note: {notice}.")
    result = client.search_across(
        scopes,
        query,
        flt,
        top_k=top_k,
        exclude_mandatory=exclude_mandatory,
        include_deleted=include_deleted,
        mode=mode,
    )
    if result.notice:
        note(result.notice)
    chosen = LISTING.resolve(fmt)
    with output.checked([h.memory for h in result.hits], chosen):
        if chosen is Format.json:
            out(render.dumps_json([render.hit_to_dict(h) for h in result.hits]))
        elif chosen is Format.ndjson:
            out(render.dumps_ndjson(render.hit_to_dict(h) for h in result.hits))
        elif chosen is Format.markdown:
            out("\n".join(render.hit_to_markdown(h, with_scope=True) for h in result.hits))
        else:
            out(_scoped_table([h.memory for h in result.hits]))
            if not result.hits:
                note("No matches.")


def _scoped_table(memories: list[Memory]) -> str:
    from graphit_cli.formats import render

    rows = [
        [
            m.id,
            f"{m.scope_kind}:{m.scope_id}",
            m.type,
            render.flags(m),
            render.format_time(m.updated_at)[:16].replace("T", " "),
            m.title,
        ]
        for m in memories
    ]
    return render.table(["ID", "SCOPE", "TYPE", "FLAGS", "UPDATED", "TITLE"], rows)
