"""`graphit agent install|uninstall|status`: wire an MCP client to graphit in one command.

Glue only: `graphit_cli.agents.clients` plans the file changes; this module shows them (a
diff for `--dry-run`) or writes them, and says what it did on stderr.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli.common import choice, handle_errors, note, out
from graphit_cli.errors import UsageError

if TYPE_CHECKING:
    from graphit_cli.agents.clients import Change


class ClientName(StrEnum):
    claude_code = "claude-code"
    cursor = "cursor"
    vscode = "vscode"
    codex = "codex"
    gemini = "gemini"


class StatusFormat(StrEnum):
    table = "table"
    json = "json"


agent_app = typer.Typer(
    help="Connect an agent (Claude Code, Cursor, VS Code, Codex, Gemini CLI) to graphit memory.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ClientArg = Annotated[
    ClientName,
    typer.Argument(
        parser=choice(ClientName, "client"), help="claude-code, cursor, vscode, codex or gemini."
    ),
]
ProjectOpt = Annotated[
    bool, typer.Option("--project", help="The project's files (the default, except for codex).")
]
UserOpt = Annotated[
    bool, typer.Option("--user", help="The client's user-level files, for every project.")
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Print the changes as a diff; write nothing.")
]


def _level(project: bool, user: bool) -> str | None:
    if project and user:
        raise UsageError("--project and --user disagree; give one of them")
    return "project" if project else "user" if user else None


def _run(changes: list[Change], dry_run: bool, verb: str) -> None:
    pending = [c for c in changes if c.changed]
    if dry_run:
        out("".join(c.diff() for c in pending))
        note(f"Dry run: {len(pending)} file(s) would change; nothing was written.")
        return
    for change in pending:
        change.apply()
        action = "removed" if change.after is None else verb
        note(f"{action} {change.what}: {change.path}")
    if not pending:
        note("Nothing to change: already " + ("installed." if verb == "wrote" else "removed."))


@agent_app.command()
@handle_errors
def install(
    client: ClientArg,
    project: ProjectOpt = False,
    user: UserOpt = False,
    dry_run: DryRunOpt = False,
) -> None:
    """Add the graphit MCP server to CLIENT's configuration, with the recall guidance.

    Writes the server entry (the absolute path of this graphit, `memory mcp`, and
    GRAPHIT_HOME when set) into the client's own file, merged with what is there; for
    Claude Code also a SessionStart hook running `graphit memory recall`; and, for every
    client, the recall protocol and capture guidance as a marked block in its
    instructions file (CLAUDE.md, AGENTS.md, GEMINI.md). Running it again changes nothing.

    Files: claude-code .mcp.json (--user ~/.claude.json); cursor .cursor/mcp.json (--user
    ~/.cursor/mcp.json); vscode .vscode/mcp.json; codex $CODEX_HOME/config.toml (default
    ~/.codex/config.toml); gemini .gemini/settings.json (--user ~/.gemini/settings.json).
    """
    from graphit_cli.agents.clients import plan_install

    _run(plan_install(client.value, _level(project, user)), dry_run, "wrote")


@agent_app.command()
@handle_errors
def uninstall(
    client: ClientArg,
    project: ProjectOpt = False,
    user: UserOpt = False,
    dry_run: DryRunOpt = False,
) -> None:
    """Remove what `graphit agent install` added for CLIENT; everything else stays.

    The guidance block stays while another client configured at the same place reads the
    same instructions file (AGENTS.md is shared by cursor, vscode and codex).
    """
    from graphit_cli.agents.clients import plan_uninstall

    _run(plan_uninstall(client.value, _level(project, user)), dry_run, "updated")


@agent_app.command()
@handle_errors
def status(
    fmt: Annotated[
        StatusFormat,
        typer.Option("--format", parser=choice(StatusFormat, "format"), help="table or json."),
    ] = StatusFormat.table,
) -> None:
    """Show, per client, what is installed where (server entry, hook, guidance block).

    "outdated" means an entry graphit would now write differently (another executable
    path or environment): run install again to update it.
    """
    from graphit_cli.agents.status import status as read_status

    rows = read_status()
    if fmt is StatusFormat.json:
        out(json.dumps([r.to_dict() for r in rows], indent=2) + "\n")
        return
    lines = []
    for r in rows:
        parts = [f"server {r.server}"]
        if r.hook is not None:
            parts.append(f"hook {r.hook}")
        if r.instructions is not None:
            parts.append(f"guidance {r.guidance} ({r.instructions})")
        lines.append(f"{r.client:<12} {r.level:<8} {r.config}\n{'':<22}{'; '.join(parts)}\n")
    out("".join(lines))
