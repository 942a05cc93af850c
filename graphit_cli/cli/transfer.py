"""`graphit memory export` and `graphit memory import`: adapters over `portability`."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli.common import (
    AllowSecretsOpt,
    RedactOpt,
    ScopeOpt,
    UserOpt,
    handle_errors,
    note,
    out,
    secret_policy,
)
from graphit_cli.cli.memory import memory_app

if TYPE_CHECKING:
    from graphit_cli.portability.model import ImportReport


class ExportFormat(StrEnum):
    ndjson = "ndjson"
    markdown = "markdown"


class ImportFormat(StrEnum):
    auto = "auto"
    ndjson = "ndjson"
    markdown = "markdown"
    agents = "agents"
    cursor = "cursor"
    mcp_memory = "mcp-memory"
    notes = "notes"


@memory_app.command("export")
@handle_errors
def export(
    history: Annotated[
        bool, typer.Option("--history", help="Also write archived revisions (whole chains).")
    ] = False,
    vectors: Annotated[
        bool, typer.Option("--vectors", help="Also write embeddings (NDJSON only).")
    ] = False,
    fmt: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            "-f",
            case_sensitive=False,
            help="ndjson: one full row per line; markdown: a folder of <id>.md files and "
            "history/<id>/<revision_id>.md.",
        ),
    ] = ExportFormat.ndjson,
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

    service = ScopeClient(scope, user).reader  # a read: a scope without a table exports nothing
    model = service.store.embedding_model() if vectors else None
    rows = service.store.export_rows(archived=history, vectors=vectors)
    live = sum(1 for r in rows if r.is_live)
    if fmt is ExportFormat.markdown:
        if vectors:
            raise typer.BadParameter("--vectors needs --format ndjson (Markdown has no vectors)")
        if output is None:
            raise typer.BadParameter("--format markdown writes a folder: give -o FOLDER")
        native.write_markdown_folder(rows, output)
    elif output is None:
        out("".join(native.ndjson_lines(rows, model)))
    else:
        from graphit_cli.errors import InvalidInput

        try:
            with output.open("w", encoding="utf-8") as handle:
                handle.writelines(native.ndjson_lines(rows, model))
        except OSError as exc:
            raise InvalidInput(f"cannot write {output}: {exc.strerror}") from None
    where = f" to {output}" if output is not None else ""
    note(f"Exported {live} memories ({len(rows)} rows) from {service.scope}{where}.")


@memory_app.command("import")
@handle_errors
def import_(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="PATH", help="A file or folder: a graphit export, AGENTS.md, rules, notes ..."
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", "-n", help="Report what would change; write nothing.")
    ] = False,
    fmt: Annotated[
        ImportFormat,
        typer.Option(
            "--format",
            "-f",
            case_sensitive=False,
            help="What PATH holds (auto detects it from names and contents).",
        ),
    ] = ImportFormat.auto,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
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
            fmt.value,
            dry_run=dry_run,
            progress=progress,
            warn=note,
            secrets=secret_policy(redact, allow_secrets),
        )
    render_report(report, as_json)


def render_report(report: ImportReport, as_json: bool) -> None:
    """Outcomes on stdout, problems and the summary on stderr; exit 3 if any was rejected."""
    from graphit_cli.errors import ExitCode
    from graphit_cli.formats import render

    if as_json:
        out(
            render.dumps_json(
                {
                    "source": report.source,
                    "format": report.format,
                    "dry_run": report.dry_run,
                    "created": report.count("created"),
                    "updated": report.count("updated"),
                    "skipped": report.count("skipped"),
                    "items": [
                        {
                            "action": o.action,
                            "id": o.id,
                            "title": o.title,
                            "origin": o.origin,
                            "reason": o.reason or None,
                        }
                        for o in report.outcomes
                    ],
                    "problems": [
                        {"path": p.path, "line": p.line or None, "message": p.message}
                        for p in report.problems
                    ],
                }
            )
        )
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
