"""`graphit memory scan` and `graphit memory redact`: adapters over `service.secrets`.

Neither ever prints a secret: a finding is its memory, revision, kind and line:column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphit_cli.cli import common
from graphit_cli.cli.common import (
    CHECK,
    Format,
    JsonAliasOpt,
    Output,
    ScopeOpt,
    UserOpt,
    YesOpt,
    format_option,
    handle_errors,
    json_alias,
    note,
    out,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.errors import ExitCode, GraphitError, StorageUnavailable, UsageError, in_words

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService


# What `scan` prints: one line per finding, also for markdown.
FINDINGS = Output(
    Format.table,
    Format.table,
    "table and markdown: one tab-separated line per finding; json: one array; ndjson: one "
    "finding per line.",
)
FindingsFormatOpt = Annotated[Format | None, format_option(FINDINGS)]


@memory_app.command("scan", rich_help_panel=CHECK)
@handle_errors
def scan(
    every: Annotated[
        bool, typer.Option("--all", help="Every scope this machine uses, not just one.")
    ] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FindingsFormatOpt = None,
    as_json: JsonAliasOpt = False,
) -> None:
    """Look for secrets in every row of a scope, archived revisions included, and in graphit's
    own logs.

    Prints one line per finding: scope, memory id, revision (live or archived), kind, field
    (title, body, tag N, anchor N, author) and line:column; never the value. Also a redaction
    that was interrupted (its old values may still be in the table's older versions) and each
    secret in the recalls and consolidation logs. Exits 11 when there is a finding (the scan
    worked and found one), 0 when there is none; any other code is a failure to scan
    (docs/reference/exit-codes.md). Remove one with `graphit memory redact ID` (which also
    finishes an interrupted redaction and redacts the logs).
    """
    from graphit_cli.cli.client import ScopeClient
    from graphit_cli.formats import render

    chosen = FINDINGS.resolve(json_alias(fmt, as_json))
    if every and (scope or user):
        raise typer.BadParameter("--all scans every scope: leave out --scope and --user")
    from graphit_cli.service.redaction_journal import scan_logs

    unscanned: list[str] = []
    targets = _every_scope(unscanned) if every else [ScopeClient(scope, user).reader]
    found = [(str(svc.scope), f) for svc in targets for f in _scanned(svc, every, unscanned)]
    # A redaction killed before it finished: the table's older versions may still hold it.
    unfinished = [
        (str(svc.scope), m)
        for svc in targets
        if str(svc.scope) not in unscanned
        for m in svc.interrupted_redactions()
    ]
    in_logs = scan_logs()
    if chosen in (Format.json, Format.ndjson):
        rows = [
            {
                "scope": where,
                "id": f.memory_id,
                "revision": f.revision,
                "revision_id": f.revision_id or None,
                "live": f.live,
                "field": f.field,
                "kind": f.kind,
                "line": f.line,
                "column": f.column,
            }
            for where, f in found
        ]
        rows += [{"scope": w, "id": m, "interrupted_redaction": True} for w, m in unfinished]
        rows += [{"log": f.path, "line": f.line, "kind": f.kind} for f in in_logs]
        out(render.dumps_json(rows) if chosen is Format.json else render.dumps_ndjson(rows))
    else:
        out(
            "".join(
                f"{where}\t{f.memory_id}\trevision {f.revision} "
                f"({'live' if f.live else f.revision_id})\t{f.kind}\t{f.field} {f.position}\n"
                for where, f in found
            )
            + "".join(
                f"{where}\t{m}\tinterrupted redaction: older versions may hold it\n"
                for where, m in unfinished
            )
            + "".join(f"log\t{f.path}\tline {f.line}\t{f.kind}\n" for f in in_logs)
        )
    memories = len({(where, f.memory_id) for where, f in found})
    scanned = len(targets) - sum(1 for svc in targets if str(svc.scope) in unscanned)
    note(f"{len(found)} secrets in {memories} memories ({scanned} scopes scanned).")
    if found:
        note("Remove each with `graphit memory redact ID` (every revision of it).")
    if unfinished:
        note(
            f"{len(unfinished)} redactions did not finish: run `graphit memory redact ID --yes` "
            "again (or `graphit memory doctor --repair`)."
        )
    if in_logs:
        note(f"{len(in_logs)} secrets in graphit's own logs: `graphit memory redact` removes them.")
    if found or unfinished or in_logs:
        raise typer.Exit(int(ExitCode.FOUND))
    if unscanned:  # a table that could not be read is never reported clean
        raise StorageUnavailable(
            f"{len(unscanned)} scope{'s' if len(unscanned) > 1 else ''} not scanned"
            f" ({', '.join(unscanned)}): see above"
        )


def _every_scope(unscanned: list[str]) -> list[MemoryService]:
    from graphit_cli.access import scopes
    from graphit_cli.opening import open_reader

    services: list[MemoryService] = []
    for ref in sorted(scopes.read_scope_refs()):
        try:
            services.append(open_reader(scopes.parse_scope_ref(ref)))
        except Exception as exc:  # a scope that cannot be opened is said, the rest scanned
            note(f"{ref}: not scanned: {in_words(exc)}")
            unscanned.append(ref)
    return services


def _scanned(svc: MemoryService, every: bool, unscanned: list[str]) -> list[Any]:
    """`svc`'s findings. With --all a table that cannot be read is said and counted, and the
    other scopes are still scanned; scanning one scope, its failure is the command's."""
    if not every:
        return list(svc.scan_secrets())
    try:
        return list(svc.scan_secrets())
    except GraphitError as exc:
        note(f"{svc.scope}: not scanned: {exc.message}")
        unscanned.append(str(svc.scope))
        return []


@memory_app.command("redact", rich_help_panel=CHECK)
@handle_errors
def redact(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory holding a secret.")],
    yes: YesOpt = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
) -> None:
    """Replace every secret in a memory, in every revision, with [REDACTED:<kind>].

    The chain keeps its shape (ids, revisions, links, dates); content hashes and vectors are
    recomputed. The table's older versions and its full-text indexes are then rebuilt without
    it, so `export --history` and the files on disk no longer hold it. Other processes reading
    the table at that moment may have to retry. Asks first on a terminal (always on a shared
    table); --yes does not ask.
    """
    from graphit_cli.cli.client import ScopeClient

    client = ScopeClient(scope, user)
    service = client.service
    shared = "://" in service.store.uri
    if not yes:
        if not common.stdin_is_interactive():
            raise UsageError("refusing to redact without --yes when not interactive")
        where = "a shared table: everyone using it" if shared else str(service.scope)
        if not typer.confirm(f"Rewrite every revision of {memory_id} in {where}?", err=True):
            note("Aborted; nothing changed.")
            return
    done = service.redact(memory_id)
    if not done.rows and done.finished:
        note(
            f"Finished the interrupted redaction of {', '.join(done.finished)}: the table's "
            "older versions are gone and graphit's logs are redacted."
        )
        return
    if not done.rows:
        note(f"No secret found in {done.memory_id}; nothing changed (graphit's logs redacted).")
        return
    note(
        f"Redacted {', '.join(done.kinds)} in {done.rows} revisions of {done.memory_id}; "
        "the table's older versions are gone."
    )
