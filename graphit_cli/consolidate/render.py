"""A consolidation report and outcome as JSON-ready dicts and Markdown (CLI and MCP alike)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphit_cli.consolidate.candidates import Report
from graphit_cli.core.models import Memory

if TYPE_CHECKING:
    from graphit_cli.consolidate.apply import Outcome


def member_dict(memory: Memory) -> dict[str, Any]:
    from graphit_cli.formats.render import format_time

    return {
        "id": memory.id,
        "revision": memory.revision,
        "title": memory.title,
        "type": memory.type,
        "important": memory.important,
        "mandatory": memory.mandatory,
        "updated_at": format_time(memory.updated_at, precise=True),
        "body": memory.body,
    }


def report_dict(report: Report) -> dict[str, Any]:
    return {
        "scope": report.scope,
        "analysed": report.analysed,
        "groups": [
            {
                "kind": g.kind,
                "ids": g.ids,
                "keep_id": g.keep_id,
                "similarity": g.similarity,
                "members": [member_dict(m) for m in g.members],
            }
            for g in report.groups
        ],
        "stale": [m.id for m in report.stale],
    }


def _kind(kind: str) -> str:
    if kind == "contradiction":
        return "contradiction: one subject, different beliefs; keep the newer"
    return f"{kind} duplicates"


def _flags(memory: Memory) -> str:
    pairs = (("mandatory", memory.mandatory), ("important", memory.important))
    return ", ".join(name for name, on in pairs if on) or "-"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def report_markdown(report: Report, *, bodies: bool = False) -> str:
    from graphit_cli.formats.render import format_time

    lines = [
        f"# Consolidation candidates in {report.scope}",
        "",
        f"{report.analysed} live memories analysed: {len(report.groups)} duplicate group(s), "
        f"{len(report.stale)} stale.",
    ]
    for number, group in enumerate(report.groups, start=1):
        lines += [
            "",
            f"## Group {number}: {_kind(group.kind)} (similarity {group.similarity:.2f}), "
            f"keep {group.keep_id}",
            "",
            "| # | id | rev | type | flags | updated | title |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {n} | {m.id} | {m.revision} | {m.type} | {_flags(m)} | "
            f"{format_time(m.updated_at)[:10]} | {_cell(m.title)} |"
            for n, m in enumerate(group.members, start=1)
        ]
        if len(group.pairs) > 1:
            position = {m.id: n for n, m in enumerate(group.members, start=1)}
            shown = ", ".join(f"#{position[a]}~#{position[b]} {s:.2f}" for a, b, s in group.pairs)
            lines += ["", f"Pairwise similarity: {shown}."]
        if bodies:
            for m in group.members:
                lines += ["", f"### {m.id}: {m.title}", "", m.body]
    if report.stale:
        lines += [
            "",
            "## Stale: anchors that no longer hold in this checkout (update or verify each; "
            "`graphit memory stale` names the commits)",
            "",
            "| id | rev | type | verified | title |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {m.id} | {m.revision} | {m.type} | "
            f"{format_time(m.verified_at)[:10] if m.verified_at else 'never'} | {_cell(m.title)} |"
            for m in report.stale
        ]
    return "\n".join(lines) + "\n"


def outcome_markdown(outcome: Outcome) -> str:
    if outcome.dry_run:
        head = "Dry run: nothing was written. Apply with --apply (MCP: apply: true)."
    elif outcome.log:
        head = f"Applied. Log: {outcome.log} (undo: graphit memory consolidate undo LOG)."
    else:
        head = "Nothing changed."
    lines = [f"# Consolidation of {outcome.scope}", "", head]
    for title, entries in (
        ("Would apply" if outcome.dry_run else "Applied", outcome.applied),
        ("Refused", outcome.refused),
        ("Failed", outcome.failed),
    ):
        lines += ["", f"## {title} ({len(entries)})"]
        if entries:
            lines += ["", "| action | ids | detail |", "|---|---|---|"]
            lines += [f"| {e.action} | {', '.join(e.ids)} | {_cell(e.detail)} |" for e in entries]
    return "\n".join(lines) + "\n"
