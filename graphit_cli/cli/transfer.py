"""`graphit memory export` and `graphit memory import`: adapters over `portability`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli.common import (
    SHARE,
    AllowSecretsOpt,
    DryRunOpt,
    Format,
    ImportFormat,
    InputFormatOpt,
    JsonAliasOpt,
    Output,
    RedactOpt,
    ScopeOpt,
    UserOpt,
    format_option,
    handle_errors,
    json_alias,
    note,
    out,
    secret_policy,
)
from graphit_cli.cli.memory import memory_app

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory
    from graphit_cli.portability.model import ImportReport

EXPORTED = Output(
    Format.ndjson,
    Format.ndjson,
    "ndjson: one full row per line (what `import` reads back); markdown: a folder of <id>.md "
    "files and history/<id>/<revision_id>.md (needs -o FOLDER); json: the same rows as one "
    "array; table: one line per row (id, revision, live, title), to look at.",
)
ExportFormatOpt = Annotated[Format | None, format_option(EXPORTED)]
# What import and `context add`/`refresh` print: a report of what each record became.
REPORTED = Output(
    Format.table,
    Format.table,
    "table and markdown: one tab-separated line per record (action, id, title, origin, "
    "reason); json: the report as one object; ndjson: one record per line.",
)
ReportFormatOpt = Annotated[
    Format | None, format_option(REPORTED, other="what PATH holds is --input-format, -i")
]


@memory_app.command("export", rich_help_panel=SHARE)
@handle_errors
def export(
    history: Annotated[
        bool, typer.Option("--history", help="Also write archived revisions (whole chains).")
    ] = False,
    vectors: Annotated[
        bool, typer.Option("--vectors", help="Also write embeddings (NDJSON only).")
    ] = False,
    fmt: ExportFormatOpt = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="File (ndjson; default stdout) or new folder (markdown)."
        ),
    ] = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
) -> None:
    """Write a scope's memories out, ids, revisions and dates included.

    `graphit memory import` reads the result back exactly (into this or another scope, on
    this or another machine); importing it twice changes nothing.

    Examples:

      graphit memory export --history -o project.ndjson

      graphit memory export --format markdown -o memory-folder/

      graphit memory export --user --history --vectors > me.ndjson
    """
    from graphit_cli.cli.client import ScopeClient
    from graphit_cli.portability import native

    chosen = EXPORTED.resolve(fmt)
    if vectors and chosen not in (Format.ndjson, Format.json):
        raise typer.BadParameter(f"--vectors needs --format ndjson (no vectors in {chosen})")
    if chosen is Format.markdown and output is None:
        raise typer.BadParameter("--format markdown writes a folder: give -o FOLDER")
    service = ScopeClient(scope, user).reader  # a read: a scope without a table exports nothing
    model = service.store.embedding_model() if vectors else None
    rows = service.store.export_rows(archived=history, vectors=vectors)
    live = sum(1 for r in rows if r.is_live)
    if chosen is Format.markdown:
        assert output is not None
        native.write_markdown_folder(rows, output)
    elif output is None:
        out("".join(_exported(rows, model, chosen)))
    else:
        from graphit_cli.errors import InvalidInput

        try:
            with output.open("w", encoding="utf-8") as handle:
                handle.writelines(_exported(rows, model, chosen))
        except OSError as exc:
            raise InvalidInput(f"cannot write {output}: {exc.strerror}") from None
    where = f" to {output}" if output is not None else ""
    note(f"Exported {live} memories ({len(rows)} rows) from {service.scope}{where}.")


def _exported(rows: list[Memory], model: str | None, fmt: Format) -> Iterable[str]:
    """The rows as `export` writes them in `fmt` (not markdown: that is a folder)."""
    from graphit_cli.formats import render
    from graphit_cli.portability import native

    if fmt is Format.ndjson:
        return native.ndjson_lines(rows, model)
    if fmt is Format.json:
        return [render.dumps_json([native.row_to_dict(r, model) for r in rows])]
    table = [[r.id, str(r.revision), "live" if r.is_live else "archived", r.title] for r in rows]
    return [render.table(["ID", "REVISION", "ROW", "TITLE"], table)]


@memory_app.command("import", rich_help_panel=SHARE)
@handle_errors
def import_(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="PATH", help="A file or folder: a graphit export, AGENTS.md, rules, notes ..."
        ),
    ],
    dry_run: DryRunOpt = False,
    source_format: InputFormatOpt = ImportFormat.auto,
    fmt: ReportFormatOpt = None,
    as_json: JsonAliasOpt = False,
    redact: RedactOpt = False,
    allow_secrets: AllowSecretsOpt = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
) -> None:
    """Import memories: graphit's own exports, and the files agents already read.

    Formats: a graphit export (NDJSON or a Markdown folder; ids, revisions and chains kept);
    AGENTS.md / CLAUDE.md / GEMINI.md (one mandatory convention per `##` section); Cursor
    rules (.cursor/rules/*.mdc, .cursorrules); the MCP memory server's memory.jsonl; a
    folder of Markdown notes with YAML frontmatter. A folder holding AGENTS.md, CLAUDE.md
    or Cursor rules imports all of them.

    Importing again updates instead of duplicating (each record keeps a stable key: file +
    heading, entity name); a record whose content a live memory has is skipped. Broken
    records are reported as FILE:LINE on stderr (exit 3) while the others still import.
    One line per record on stdout: created, updated or skipped, id, title, origin.
    A record holding a secret is not imported and is reported like a broken one (kind and
    line:column, never the value); --redact imports it as [REDACTED:<kind>] instead,
    --allow-secrets as it is. --dry-run reports both the same way.

    Examples:

      graphit memory import AGENTS.md --dry-run

      graphit memory import .   # AGENTS.md, CLAUDE.md, .cursor/rules ...

      graphit memory import ~/.local/share/mcp/memory.jsonl --user

      graphit memory import project.ndjson   # what `export` wrote
    """
    from graphit_cli.cli.client import ScopeClient
    from graphit_cli.cli.progress import bar

    with bar("importing", minimum=500) as progress:
        client = ScopeClient(scope, user, known_context=False)
        report = client.import_(
            path,
            source_format.value,
            dry_run=dry_run,
            progress=progress,
            warn=note,
            secrets=secret_policy(redact, allow_secrets),
        )
    render_report(report, json_alias(fmt, as_json))


def render_report(report: ImportReport, fmt: Format | None) -> None:
    """Outcomes on stdout, problems and the summary on stderr; exit 3 if any was rejected."""
    from graphit_cli.errors import ExitCode
    from graphit_cli.formats import render

    chosen = REPORTED.resolve(fmt)
    items = [
        {
            "action": o.action,
            "id": o.id,
            "title": o.title,
            "origin": o.origin,
            "reason": o.reason or None,
        }
        for o in report.outcomes
    ]
    if chosen is Format.json:
        out(
            render.dumps_json(
                {
                    "source": report.source,
                    "format": report.format,
                    "dry_run": report.dry_run,
                    "created": report.count("created"),
                    "updated": report.count("updated"),
                    "skipped": report.count("skipped"),
                    "items": items,
                    "problems": [
                        {"path": p.path, "line": p.line or None, "message": p.message}
                        for p in report.problems
                    ],
                }
            )
        )
    elif chosen is Format.ndjson:
        out(render.dumps_ndjson(items))
    else:
        out(
            "".join(
                f"{o.action}\t{o.id}\t{o.title}\t{o.origin}"
                + (f"\t{o.reason}" if o.reason else "")
                + "\n"
                for o in report.outcomes
            )
        )
    for problem in report.problems:
        note(f"{problem}")
    note(f"{report.source} ({report.format}): {report.summary()}.")
    if report.problems:
        raise typer.Exit(int(ExitCode.INVALID_INPUT))
