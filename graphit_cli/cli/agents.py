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
            help="No capture hooks (claude-code, gemini); GRAPHIT_CAPTURE=0 mutes them.",
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
    (none for a prompt about nothing), and capture hooks that ask, once per session, to
    save what was learned before context is lost (Claude Code: PreCompact, Stop,
    SessionEnd; Gemini CLI: PreCompress, SessionEnd). Each
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
    """Show, per client, what is installed where (server entry, hooks, guidance block), and
    how many of the last prompts got their memories in time.

    "outdated" means an entry graphit would now write differently (another executable
    path or environment): run install again to update it. "unreadable" is a file install
    would refuse, with the reason. The last line counts the recent prompt hooks that got
    nothing in time (late) or failed, from the recalls log, and says what to do.
    """
    from graphit_cli.agents.status import status as read_status

    rows = read_status()
    health = recall_health()
    if health:
        note(health)  # on stderr: the table and the JSON stay what they were
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
        lines.append(f"{head}: {_outcome(call)}")
        for item in call.get("injected") or []:
            extra = figures(item) or item.get("why", "")
            lines.append(f"    + {item['title']} ({item['id']}, {item.get('date')}) {extra}")
        for item in call.get("left") or []:
            lines.append(
                f"    - {item['title']} ({item['id']}): {item.get('why')}; {figures(item)}"
            )
    return "\n".join(lines) + "\n\n"


RECENT_PROMPTS = 20


def recall_health(recent: int = RECENT_PROMPTS) -> str | None:
    """One line on the last `recent` prompt hooks of the recalls log: how many got nothing in
    time (late) or failed, and what to do; None when none was recorded or all were in time."""
    from graphit_cli.recall import log

    calls = [e for e in log.read() if e.get("event") == "prompt" and e.get("outcome")][-recent:]
    late = sum(1 for e in calls if e.get("outcome") == "late")
    failed = [e for e in calls if e.get("outcome") == "failed"]
    if not calls or not (late or failed):
        return None
    said = []
    if late:
        said.append(
            f"{late} of the last {len(calls)} prompts got nothing in time (the hook's budget "
            "ran out): run `graphit memory daemon` (or keep the agent's MCP server configured) "
            "so prompts are answered warm; a second late answer without one starts it"
        )
    if failed:
        cause = failed[-1].get("cause") or "see `graphit agent recalls`"
        said.append(f"{len(failed)} of the last {len(calls)} prompts failed (last: {cause})")
    return "Recall: " + "; ".join(said) + "."


def _outcome(call: dict[str, object]) -> str:
    """What became of a hook call, in words (entries before outcomes were logged: shown)."""
    outcome = call.get("outcome")
    if outcome == "late":
        waiting = call.get("waiting") or "an answer"
        return f"late ({call.get('ms')} ms, waiting for {waiting}): nothing shown"
    if outcome == "failed":
        return f"failed: {call.get('cause')}"
    if outcome == "nothing":
        return "nothing relevant"
    return f"shown, {call.get('chars', 0)} characters"


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
    they count as shown for the session once printed (the prompt hook does not repeat them);
    with source "compact" (after a compaction) what the session was shown before starts
    again. Read from the blocks kept beside the tables when they are current, without
    opening a table. Prints nothing outside a graphit project, when there is no mandatory
    memory, or with --user in a project whose own settings run this hook.
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
    outside a graphit project, or with GRAPHIT_PROMPT_RECALL=0. A memory counts as shown
    only once printed within the budget; past it nothing is printed and the call is logged
    late. `graphit agent recalls` shows each call's outcome and why each memory was shown or
    left out.
    """
    from graphit_cli.cli import hooks

    hooks.prompt(user, hooks.read_stdin(), for_.value)


@hook_app.command("capture")
def hook_capture(
    event: Annotated[
        str,
        typer.Option(
            "--event",
            help="The client's event: PreCompact, Stop, SessionEnd (Claude Code); PreCompress, "
            "SessionEnd (Gemini CLI).",
        ),
    ],
    user: HookUserOpt = False,
    for_: HookForOpt = HookClient.claude_code,
) -> None:
    """Ask, once per session and event, to save durable learnings before context is lost.

    The event's JSON on stdin (its session_id, and the transcript to see whether the session
    already saved memories). Nothing outside a graphit project, when the session already
    wrote memories, after the first time (a PreCompact the client did not follow with a
    compaction is asked again), at a Stop before the session made 8 tool calls, at Claude
    Code's SessionEnd (nobody reads it), at Gemini CLI's automatic PreCompress (fired before
    every turn), or with GRAPHIT_CAPTURE=0.
    """
    from graphit_cli.cli import capture_hook

    code = capture_hook.run(event, user, for_.value, capture_hook.read_stdin())
    if code:
        raise typer.Exit(code)
