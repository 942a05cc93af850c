"""`graphit memory doctor`: every scope's table checked end to end (service/doctor.py), and
repaired with --repair where no row is lost."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphit_cli.cli.common import (
    RUN,
    TEXT,
    Format,
    ScopeOpt,
    TextFormatOpt,
    UserOpt,
    handle_errors,
    note,
    out,
    scope_spec,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.errors import ExitCode, GraphitError, TableDamaged, in_words

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.service.doctor import DoctorReport


@memory_app.command(rich_help_panel=RUN)
@handle_errors
def doctor(
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Repair what can be repaired without losing a row: rebuild the indexes, "
            "embed wrong vectors again.",
        ),
    ] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: TextFormatOpt = None,
) -> None:
    """Check each scope's table end to end: it opens, every memory's revision chain is whole
    (one live row, revisions 1..n, links, no key twice), every index is there and answers,
    the vectors are the table's model's. Without --scope or --user: every scope this machine
    uses and the user scope. Exits 7 when a problem is left (docs/troubleshooting.md)."""

    reports: list[DoctorReport] = []
    for name, get in _targets(scope, user):
        reports.append(_examine(name, get, repair))
    chosen = TEXT.resolve(fmt)
    if chosen in (Format.json, Format.ndjson):
        from graphit_cli.formats import render

        items = [_report_dict(r) for r in reports]
        out(render.dumps_json(items) if chosen is Format.json else render.dumps_ndjson(items))
    else:
        out("".join(_report_text(r) for r in reports))
    if any(not r.healthy for r in reports):
        note("Error: problems left: see above (docs/troubleshooting.md says what each means)")
        raise typer.Exit(int(ExitCode.STORAGE_UNAVAILABLE))


def _targets(scope: str | None, user: bool) -> list[tuple[str, Callable[[], Scope]]]:
    from graphit_cli.daemon import scopes as daemon_scopes

    if scope is None and not user:
        return daemon_scopes.machine_targets()
    from graphit_cli.access.providers import resolve_scope

    chosen = resolve_scope(scope_spec(scope, user))
    return [(str(chosen), daemon_scopes.constant(chosen))]


def _examine(name: str, get: Callable[[], Scope], repair: bool) -> DoctorReport:
    """One scope's report; a scope that cannot be opened is a problem of its own line."""
    from graphit_cli.daemon import scopes as daemon_scopes
    from graphit_cli.embed import load_default
    from graphit_cli.service.doctor import DoctorReport, examine

    report = DoctorReport(name)
    try:
        scope = get()
        report.scope = str(scope)
        svc, _uri = daemon_scopes.open_quietly(scope, create=False, embedder=load_default)
        if svc is None:
            report.add("ok", "opens", "no table here (nothing written yet, or read-only)")
            return report
        return examine(svc.store, scope, load_default, repair=repair)
    except TableDamaged as exc:  # confirmed here: the whole table was read (or not opened)
        report.add("problem", "opens", exc.remedy)
    except GraphitError as exc:
        report.add("problem", "opens", exc.message)
    except Exception as exc:  # a bug in one scope's check: said there, the others checked
        report.add("problem", "opens", f"internal error: {in_words(exc)}")
    return report


def _report_dict(report: DoctorReport) -> dict[str, Any]:
    return {
        "scope": report.scope,
        "healthy": report.healthy,
        "findings": [
            {"status": f.status, "check": f.check, "text": f.text} for f in report.findings
        ],
    }


def _report_text(report: DoctorReport) -> str:
    problems = sum(1 for f in report.findings if f.status == "problem")
    head = "ok" if not problems else f"{problems} problem{'s' if problems > 1 else ''}"
    lines = [f"{report.scope}: {head}"]
    lines += [
        f"  {f.check}: {f.text}" if f.status == "ok" else f"  {f.check}: {f.status}: {f.text}"
        for f in report.findings
    ]
    return "\n".join(lines) + "\n"
