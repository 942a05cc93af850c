"""`graphit memory daemon | maintain | status | scopes | prune`: running and tending the tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphit_cli.cli.common import (
    RUN,
    TEXT,
    Format,
    Output,
    ScopeOpt,
    TextFormatOpt,
    UserOpt,
    YesOpt,
    format_option,
    handle_errors,
    note,
    out,
    scope_spec,
    stdin_is_interactive,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.config import DEFAULT_ACTIVE_DAYS
from graphit_cli.core.maintenance import VECTOR_INDEX_MIN_ROWS
from graphit_cli.daemon.supervisor import DaemonSettings
from graphit_cli.errors import GraphitError, UsageError, in_words

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MaintenanceReport, TableState
    from graphit_cli.service.memory import MemoryService

STATE_FIELDS = [
    "rows", "live_rows", "rows_with_vectors", "vector_index", "fragments", "small_fragments",
    "indexed_rows", "unindexed_rows", "versions", "prunable_versions", "bytes",
]  # fmt: skip


# Numbers that are policy are shown from where they live, so the help cannot drift.
_DEFAULTS = DaemonSettings()
_ACTIVE = f"the last {DEFAULT_ACTIVE_DAYS:g} days (GRAPHIT_ACTIVE_DAYS)"
MAINTAIN_HELP = f"""One maintenance pass: fold new rows into the indexes, compact fragments,
build the vector index (from {VECTOR_INDEX_MIN_ROWS} embedded rows), prune versions past the
retention window.

Without --force the table's due-time gate decides whether anything is due. Prints
what it did and the table's state before and after. Concurrent writers always win: a
conflicting commit is retried by maintenance, never by the writer. With --all, a scope
that cannot be reached is reported on stderr and the others are still maintained (the
exit code is then that scope's).
"""


DAEMON_HELP = f"""Run the embedding and maintenance loops in the foreground (Ctrl-C stops it).

Per scope: embedding immediately, then every {_DEFAULTS.embed_interval:g} seconds
(GRAPHIT_EMBED_INTERVAL); maintenance immediately, then every {_DEFAULTS.maintain_interval:g}
seconds (GRAPHIT_MAINTAIN_INTERVAL), behind the due-time gate. Failed loops restart with
backoff; a scope that cannot be reached (a broker down) fails its own loops only. One daemon at
a time: a second one exits with code 5. While it runs, `graphit memory search`, `recall`,
`source`, `list`, `important` and `mandatory` are answered by the daemon over a Unix socket in
~/.graphit/run/ (no lancedb or model import in the CLI).
"""


# What `scopes` prints: its table, also for markdown.
SCOPES = Output(Format.table, Format.table, "markdown prints the table.")
ScopesFormatOpt = Annotated[Format | None, format_option(SCOPES)]


def _state_dict(state: TableState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in STATE_FIELDS}


@memory_app.command(help=MAINTAIN_HELP, rich_help_panel=RUN)
@handle_errors
def maintain(
    force: Annotated[bool, typer.Option("--force", help="Skip the due-time gate.")] = False,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help=f"Every active scope with a table, used within {_ACTIVE}, and the user scope. "
            "Creates no table.",
        ),
    ] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: TextFormatOpt = None,
) -> None:
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.opening import open_service

    failure: GraphitError | None = None
    if every:
        reports = []
        for name, opener in _every_scope():
            try:
                svc = opener()
                if svc is not None:
                    reports.append(svc.maintain(force=force))
            except GraphitError as exc:
                note(f"Error: {name}: {exc.message}")
                failure = failure or exc
            except Exception as exc:  # a bug in one scope: reported, the others still run
                note(f"Error: {name}: internal error: {in_words(exc)}")
                failure = failure or GraphitError(in_words(exc))
    else:
        reports = [open_service(resolve_scope(scope_spec(scope, user))).maintain(force=force)]
    chosen = TEXT.resolve(fmt)
    if chosen in (Format.json, Format.ndjson):
        items = [_report_dict(r) for r in reports]
        from graphit_cli.formats import render

        out(render.dumps_json(items) if chosen is Format.json else render.dumps_ndjson(items))
    else:
        out("".join(_report_text(r) for r in reports))
    if failure is not None:
        raise typer.Exit(int(failure.exit_code))


def _every_scope() -> list[tuple[str, Callable[[], MemoryService | None]]]:
    """(name, open it) for every active scope and the user scope; opening yields None when the
    scope has no table (nothing is created) and raises when it cannot be reached."""
    from graphit_cli.daemon import scopes as daemon_scopes

    def opener(get: Callable[[], Scope]) -> Callable[[], MemoryService | None]:
        return lambda: daemon_scopes.open_quietly(get(), create=False)[0]

    return [(name, opener(get)) for name, get in daemon_scopes.machine_targets()]


def _report_dict(report: MaintenanceReport) -> dict[str, Any]:
    return {
        "scope": report.scope,
        "ran": report.ran,
        "reasons": report.reasons,
        "actions": report.actions,
        "retries": report.retries,
        "seconds": round(report.seconds, 3),
        "before": _state_dict(report.before),
        "after": _state_dict(report.after),
    }


def _report_text(report: MaintenanceReport) -> str:
    lines = [f"{report.scope}: " + ("maintained" if report.ran else "nothing due")]
    lines += [f"  due: {reason}" for reason in report.reasons]
    lines += [f"  did: {action}" for action in report.actions]
    if report.retries:
        lines.append(f"  retried {report.retries} commit conflicts with writers")
    width = max(len(name) for name in STATE_FIELDS)
    lines.append(f"  {'':<{width}}  {'before':>12}  {'after':>12}")
    for name in STATE_FIELDS:
        before, after = getattr(report.before, name), getattr(report.after, name)
        lines.append(f"  {name:<{width}}  {before!s:>12}  {after!s:>12}")
    lines.append(f"  took {report.seconds:.2f} s")
    return "\n".join(lines) + "\n"


@memory_app.command(help=DAEMON_HELP, rich_help_panel=RUN)
@handle_errors
def daemon(
    once: Annotated[bool, typer.Option("--once", help="Run every job once and exit.")] = False,
    scopes_named: Annotated[
        list[str] | None,
        typer.Option(
            "--scope",
            "-s",
            metavar="SCOPE",
            help="Only these scopes (repeatable: project, user, context:NAME, or kind:id). "
            f"Default: every scope used within {_ACTIVE}, any scope used while it runs, and "
            "the user scope.",
        ),
    ] = None,
    log_format: Annotated[
        str, typer.Option("--log-format", help="text (one event per line) or json.")
    ] = "text",
    idle_exit: Annotated[
        float,
        typer.Option(
            "--idle-exit",
            metavar="SECONDS",
            min=0,
            help="Stop after this many seconds without a request (0, the default: never). "
            "A daemon the prompt hook starts on its own stops after an hour.",
        ),
    ] = 0.0,
) -> None:
    from graphit_cli.daemon.process import Daemon, DaemonSettings, EventLog

    if log_format not in ("text", "json"):
        raise typer.BadParameter("--log-format must be text or json")
    named = [_parse_scope(s) for s in scopes_named] if scopes_named else None
    runner = Daemon(
        DaemonSettings.load(), scopes_named=named, log=EventLog(fmt=log_format), idle_exit=idle_exit
    )
    raise typer.Exit(runner.run_once() if once else runner.run())


def _parse_scope(value: str) -> Scope:
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.access.scopes import parse_scope_ref

    if value in ("project", "user") or value.startswith("context:"):
        return resolve_scope(value)
    return parse_scope_ref(value)


@memory_app.command(rich_help_panel=RUN)
@handle_errors
def status(fmt: TextFormatOpt = None) -> None:
    """Whether the daemon runs, its loops, and each active scope's table state, with the
    model that embedded the table (its vectors are searched only with that model).

    A scope that cannot be reached (a broker down) is listed with its error; the others
    are still shown.
    """
    from graphit_cli.daemon import process as daemon
    from graphit_cli.daemon import scopes as daemon_scopes

    running = daemon.ping()
    tables: list[dict[str, Any]] = []
    for name, get in daemon_scopes.machine_targets():
        entry: dict[str, Any] = {"scope": name, "uri": None, "state": None, "model": None}
        try:
            scope = get()  # the user scope asks the provider who the user is
            entry["scope"] = str(scope)
            # One open per scope: for a broker provider it asks for fresh credentials.
            svc, entry["uri"] = daemon_scopes.open_quietly(scope, create=False)
            if svc is not None:
                entry["state"] = _state_dict(svc.table_state())
                entry["model"] = svc.store.embedding_model()
        except GraphitError as exc:
            # One unreachable scope (a broker down) is reported, never fatal to the others.
            entry["error"] = exc.message
        except Exception as exc:  # a bug reading one scope: reported there, in words
            entry["error"] = f"internal error: {in_words(exc)}"
        tables.append(entry)
    payload = {
        "daemon": None
        if running is None
        else {"pid": running["pid"], "version": running["version"], "loops": running["loops"]},
        "scopes": tables,
    }
    chosen = TEXT.resolve(fmt)
    if chosen in (Format.json, Format.ndjson):
        from graphit_cli.formats import render

        out(render.dumps_json(payload) if chosen is Format.json else render.dumps_ndjson([payload]))
        return
    lines = []
    if running is None:
        lines.append("daemon: not running")
    else:
        lines.append(f"daemon: running (pid {running['pid']})")
        lines += [
            f"  {loop['loop']:<8} {loop['scope']:<40} {loop['status']:<8} "
            f"runs={loop['runs']} failures={loop['failures']}"
            + (f" error={loop['last_error']}" if loop["last_error"] else "")
            for loop in running["loops"]
        ]
    for entry in tables:
        state = entry["state"]
        if state is None:
            # A scope that cannot be read says why on its own line, never "no table".
            said = f"error: {entry['error']}" if "error" in entry else "no table"
            lines.append(f"{entry['scope']}: {said}")
            continue
        lines.append(
            f"{entry['scope']}: {state['live_rows']} memories, {state['rows']} rows, "
            f"{state['rows_with_vectors']} with vectors, vector index "
            f"{'yes' if state['vector_index'] else 'no'}, {state['fragments']} fragments, "
            f"{state['unindexed_rows']} unindexed, {state['versions']} versions, "
            f"model {entry['model'] or 'none yet'}"
        )
    out("\n".join(lines) + "\n")


@memory_app.command("scopes", rich_help_panel=RUN)
@handle_errors
def scopes_(fmt: ScopesFormatOpt = None) -> None:
    """List the scopes this machine uses (the scope-reference lock)."""
    from graphit_cli.access.scopes import read_scope_refs
    from graphit_cli.formats import render

    refs = [read_scope_refs()[k] for k in sorted(read_scope_refs())]
    chosen = SCOPES.resolve(fmt)
    if chosen is Format.json:
        out(render.dumps_json(refs))
    elif chosen is Format.ndjson:
        out(render.dumps_ndjson(refs))
    else:
        rows = [[r["scope"], r["last_used"], r["uri"]] for r in refs]
        out(render.table(["SCOPE", "LAST USED", "URI"], rows))
        if not refs:
            note("No scopes recorded yet.")


@memory_app.command(rich_help_panel=RUN)
@handle_errors
def prune(
    scope_ref: Annotated[
        str,
        typer.Argument(metavar="SCOPE", help="kind:id as `graphit memory scopes` shows it."),
    ],
    yes: YesOpt = False,
) -> None:
    """Remove a scope's local table and its entry in the scope-reference lock.

    A remote (S3) table is never deleted: another machine may still use it; only this
    machine's record of it goes. A context is removed whole, as `context remove` does: its
    entry in the context registry goes too, so the name is free again.
    """
    from graphit_cli.access import contexts, scopes

    target = (
        _parse_scope(scope_ref)
        if scope_ref in ("project", "user")
        else scopes.parse_scope_ref(scope_ref)
    )
    registered = target.kind == "context" and target.id in contexts.read_all()
    plan = None if registered else scopes.plan_prune(target)
    what = plan.describe() if plan is not None else f"context {target.id}"
    if not yes:
        if not stdin_is_interactive():
            raise UsageError("refusing to prune without --yes when not interactive")
        if not typer.confirm(f"Remove {what}?", err=True):
            note("Aborted; nothing removed.")
            return
    if target.kind == "context":
        # A context's registry entry without its table would list as "missing", and the name
        # would stay taken: prune means the context is gone (`context remove`).
        from graphit_cli.portability import contexts as context_uses

        what = context_uses.remove(target.id) + f" and context {target.id}'s registry entry"
    else:
        assert plan is not None
        scopes.prune(plan)
    out(f"pruned {target}\n")
    note(f"Removed {what}.")
