"""`graphit agent install|uninstall|status|recalls`: wire an MCP client to graphit in one command.

Glue only: `graphit_cli.agents.clients` plans the file changes; this module shows them (a
diff for `--dry-run`) or writes them, and says what it did on stderr. `agent hook ...` are the
commands the installed hooks run (`cli/hooks.py`).
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli.common import TEXT, Format, TextFormatOpt, choice, handle_errors, note, out
from graphit_cli.errors import UsageError

if TYPE_CHECKING:
    from graphit_cli.agents.clients import Change


class ClientName(StrEnum):
    claude_code = "claude-code"
    cursor = "cursor"
    vscode = "vscode"
    codex = "codex"
    gemini = "gemini"


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
    bool, typer.Option("--project", help="The project's files, for the team to commit (default).")
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


def _run(changes: list[Change], dry_run: bool, verb: str) -> bool:
    """Show or write the changes; whether anything was (or would be) written."""
    pending = [c for c in changes if c.changed]
    if dry_run:
        out("".join(c.diff() for c in pending))
        note(f"Dry run: {len(pending)} file(s) would change; nothing was written.")
        return False
    for change in pending:
        change.apply()
        action = "removed" if change.after is None else verb
        note(f"{action} {change.what}: {change.path}")
    if not pending:
        note("Nothing to change: already " + ("installed." if verb == "wrote" else "removed."))
    return bool(pending)


@agent_app.command()
@handle_errors
def install(
    client: ClientArg,
    project: ProjectOpt = False,
    user: UserOpt = False,
    dry_run: DryRunOpt = False,
    no_prompt_recall: Annotated[
        bool,
        typer.Option(
            "--no-prompt-recall",
            help="No per-prompt hook (claude-code, gemini); GRAPHIT_PROMPT_RECALL=0 mutes it.",
        ),
    ] = False,
    no_capture: Annotated[
        bool,
        typer.Option(
            "--no-capture",
            help="No capture hooks (claude-code); GRAPHIT_CAPTURE=0 mutes them.",
        ),
    ] = False,
) -> None:
    """Add the graphit MCP server to CLIENT's configuration, with the recall guidance.

    Project level (the default): files the team commits. The entry runs `graphit memory
    mcp` with `graphit` found on PATH, and names the project's id, never a path or
    GRAPHIT_HOME of this machine, so every teammate with graphit installed gets the same
    working setup. --user: the client's files for every project of this user; they pin
    this graphit's absolute path and GRAPHIT_HOME when set.

    Claude Code (.claude/settings.json) and Gemini CLI (its settings.json) also get hooks:
    at session start the mandatory memories, at each prompt the few memories it is about
    (none for a prompt about nothing), and for Claude Code capture hooks that ask, once per
    session, to save what was learned before context is lost (PreCompact and Stop). Each
    hook has a timeout of a few seconds and exits 0 where graphit is not installed. Every
    client gets the recall protocol and capture guidance as a marked block in its
    instructions file (CLAUDE.md, AGENTS.md, GEMINI.md). Only graphit's own entries change:
    other entries, comments and layout stay as written. Running it again changes nothing.
    After writing it says which files to commit and the client's first-run step (approve the
    server in Claude Code, trust the folder in Gemini CLI or the project in Codex).

    Files (project; --user): claude-code .mcp.json; ~/.claude.json. cursor
    .cursor/mcp.json; ~/.cursor/mcp.json. vscode .vscode/mcp.json; the user profile's
    mcp.json. codex .codex/config.toml; $CODEX_HOME/config.toml. gemini
    .gemini/settings.json; ~/.gemini/settings.json.
    """
    from graphit_cli.agents.clients import notes_after, notes_before, plan_install

    level = _level(project, user)
    for line in notes_before(client.value, level):
        note(line)
    changes = plan_install(
        client.value, level, prompt_recall=not no_prompt_recall, capture=not no_capture
    )
    _run(changes, dry_run, "wrote")
    if not dry_run:
        for line in notes_after(client.value, level, changes):
            note(line)


@agent_app.command()
@handle_errors
def uninstall(
    client: ClientArg,
    project: ProjectOpt = False,
    user: UserOpt = False,
    dry_run: DryRunOpt = False,
) -> None:
    """Remove what `graphit agent install` added for CLIENT; everything else stays.

    Every other byte of each file is as it was; a file install created is deleted, one
    that was there before (even an empty `{"mcpServers": {}}`) stays. The guidance block
    stays while another client configured at the same place reads the same instructions
    file (AGENTS.md is shared by cursor, vscode and codex).
    """
    from graphit_cli.agents.clients import plan_uninstall

    _run(plan_uninstall(client.value, _level(project, user)), dry_run, "updated")


@agent_app.command()
@handle_errors
def status(fmt: TextFormatOpt = None) -> None:
    """Show, per client, what is installed where (server entry, hooks, guidance block).

    "outdated" means an entry graphit would now write differently (another executable
    path or environment): run install again to update it. "unreadable" is a file install
    would refuse, with the reason.
    """
    from graphit_cli.agents.status import status as read_status

    rows = read_status()
    chosen = TEXT.resolve(fmt)
    if chosen is Format.json:
        out(json.dumps([r.to_dict() for r in rows], indent=2) + "\n")
        return
    if chosen is Format.ndjson:
        out("".join(json.dumps(r.to_dict()) + "\n" for r in rows))
        return
    lines = []
    for r in rows:
        parts = [f"server {r.server}"]
        if r.hook is not None:
            parts.append(f"hook {r.hook}")
        if r.prompt_hook is not None:
            parts.append(f"prompt hook {r.prompt_hook}")
        if r.capture_hooks is not None:
            parts.append(f"capture hooks {r.capture_hooks}")
        if r.instructions is not None:
            parts.append(f"guidance {r.guidance} ({r.instructions})")
        lines.append(f"{r.client:<12} {r.level:<8} {r.config}\n{'':<22}{'; '.join(parts)}\n")
    out("".join(lines))


@agent_app.command()
@handle_errors
def recalls(
    session: Annotated[
        str | None,
        typer.Option("--session", help="One session: its id, or the start of it."),
    ] = None,
    fmt: TextFormatOpt = None,
) -> None:
    """Show what the hooks injected, per session, and why (most recent session first).

    For each hook call: an excerpt of the prompt, each memory injected with its score, cosine
    to the prompt, share of the prompt's words and the words it shares, and each memory
    search matched that was left out, with the reason. Read from the local log
    ~/.graphit/state/recalls.jsonl (private to you, bounded in size).
    """
    from graphit_cli.recall import log

    groups = log.sessions(log.read(session))
    chosen = TEXT.resolve(fmt)
    if chosen is Format.json:
        out(json.dumps(groups, indent=2, ensure_ascii=False) + "\n")
        return
    if chosen is Format.ndjson:
        out("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in groups))
        return
    if not groups:
        note("no hook call recorded" + (f" for session {session}" if session else ""))
        return
    out("".join(_recalls_text(g) for g in groups))


def _recalls_text(group: dict[str, object]) -> str:
    from datetime import datetime

    def when(at: object) -> str:
        stamp = at if isinstance(at, (int, float)) else 0
        return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M:%S")

    def figures(item: dict[str, object]) -> str:
        parts = [f"score {item['score']}"] if item.get("score") is not None else []
        if item.get("similarity") is not None:
            parts.append(f"cosine {item['similarity']}")
        if item.get("share") is not None:
            parts.append(f"words {item['share']}")
        if item.get("words"):
            parts.append("[" + ", ".join(str(w) for w in item["words"]) + "]")  # type: ignore[attr-defined]
        return " ".join(parts)

    lines = [f"session {group['session'] or '(none)'} ({group['client']})"]
    for call in group["calls"]:  # type: ignore[attr-defined]
        head = f"  {when(call.get('at'))} {call.get('event')}"
        if call.get("prompt") is not None:
            head += f' "{call["prompt"]}" ({call.get("mode")})'
        lines.append(f"{head}: {call.get('chars', 0)} characters")
        for item in call.get("injected") or []:
            extra = figures(item) or item.get("why", "")
            lines.append(f"    + {item['title']} ({item['id']}, {item.get('date')}) {extra}")
        for item in call.get("left") or []:
            lines.append(
                f"    - {item['title']} ({item['id']}): {item.get('why')}; {figures(item)}"
            )
    return "\n".join(lines) + "\n\n"


hook_app = typer.Typer(
    help="What the installed hooks run (agents call these, not people).",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
agent_app.add_typer(hook_app, name="hook")

HookUserOpt = Annotated[
    bool,
    typer.Option("--user", help="The user-level hook: silent where the project has its own."),
]


class HookClient(StrEnum):
    claude_code = "claude-code"
    gemini = "gemini"


HookForOpt = Annotated[
    HookClient,
    typer.Option(
        "--for",
        parser=choice(HookClient, "client"),
        help="claude-code: Markdown on stdout; gemini: the JSON Gemini CLI reads.",
    ),
]


@hook_app.command("session-start")
def hook_session_start(
    user: HookUserOpt = False, for_: HookForOpt = HookClient.claude_code
) -> None:
    """Print the mandatory memories as Markdown (Claude Code adds them to the context).

    Each in full, with its id, type and date. The event's JSON on stdin: with its session_id
    they count as shown for the session (the prompt hook does not repeat them). Prints
    nothing outside a graphit project, when there is no mandatory memory, or with --user in
    a project whose own settings run this hook.
    """
    from graphit_cli.cli import hooks

    hooks.session_start(user, for_.value)


@hook_app.command("prompt")
def hook_prompt(user: HookUserOpt = False, for_: HookForOpt = HookClient.claude_code) -> None:
    """Print the few memories the prompt is about (the hook's JSON on stdin: `prompt`,
    `session_id`).

    Only memories that clear an absolute relevance gate, whatever their flags, at most 3, each
    dated, and never one this session was already shown unless it changed since; an older
    memory comes with the newer one that says otherwise. Nothing for a prompt about nothing,
    outside a graphit project, or with GRAPHIT_PROMPT_RECALL=0. `graphit agent recalls`
    shows why each memory was shown or left out.
    """
    from graphit_cli.cli import hooks

    hooks.prompt(user, hooks.read_stdin(), for_.value)


@hook_app.command("capture")
def hook_capture(
    event: Annotated[
        str,
        typer.Option("--event", help="The client's event: PreCompact or Stop (Claude Code)."),
    ],
    user: HookUserOpt = False,
    for_: HookForOpt = HookClient.claude_code,
) -> None:
    """Ask, once per session and event, to save durable learnings before context is lost.

    The event's JSON on stdin (its session_id, and the transcript to see whether the session
    already saved memories). Nothing outside a graphit project, when the session already
    wrote memories, after the first time, at a Stop before the session made 8 tool calls, or
    with GRAPHIT_CAPTURE=0.
    """
    from graphit_cli.cli import capture_hook

    code = capture_hook.run(event, user, for_.value, capture_hook.read_stdin())
    if code:
        raise typer.Exit(code)
