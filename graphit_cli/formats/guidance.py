"""What agents are told: the recall protocol, when (not) to write a memory, and how.

One source of truth for three places: the MCP server's instructions, the MCP tool descriptions,
and `graphit memory instructions` (Markdown for agents that call the CLI instead of MCP tools).
The wording follows the spec's "Acquisition from user context", "Acquisition from agent
discoveries" and "Initial recall protocol". Pure text: no I/O, no imports beyond the stdlib.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

SURFACES = ("cli", "mcp")


@dataclass(frozen=True)
class _Names:
    """How each operation is spelled on one surface (MCP tool calls or CLI commands)."""

    mandatory: str
    search: str
    source: str
    shortcut: str
    insert: str
    update: str
    scopes: str
    user_scope: str
    important: str
    mandatory_flag: str
    duplicate_rule: str
    every_scope: str
    verify: str
    exit_codes: str = ""  # what a command's exit code tells (the CLI's; a tool call has isError)


_MCP = _Names(
    mandatory=(
        'Call `graphit_memory_mandatory` with `scope: "all"` and read every memory it returns'
    ),
    search=(
        "Call `graphit_memory_search` for the current task with `exclude_mandatory: true` "
        'and `scope: "all"`'
    ),
    source="`graphit_memory_source`",
    shortcut="`graphit_memory_recall` with `context` (the current task) does both in one call.",
    insert="",
    update="`graphit_memory_update`",
    scopes=(
        'Every tool takes `scope`: "project" (the default), "user", or `context:NAME` for an '
        'imported context; recall, mandatory and search also take "all" (the project, the '
        "user and recall contexts)."
    ),
    user_scope='`scope: "user"`',
    important="`important: true`",
    mandatory_flag="`mandatory: true`",
    duplicate_rule=(
        "`graphit_memory_insert` refuses what a live memory already says and answers with "
        "its id; `force: true` only for a genuinely separate memory."
    ),
    every_scope=(
        "Each memory and hit says its `scope`: pass it to `graphit_memory_source` to read one."
    ),
    verify="`graphit_memory_update` with `verify: true`",
)

_CLI = _Names(
    mandatory="Run `graphit memory mandatory` and read every memory it prints",
    search='Run `graphit memory search "<the current task>" --exclude-mandatory`',
    source="`graphit memory source <id>`",
    shortcut=(
        '`graphit memory recall "<the current task>"` runs both steps in one call, over the '
        "project, the user scope and the contexts added with `--recall`, each memory labelled "
        "with its scope."
    ),
    insert=(
        'To write a new memory: `graphit memory upsert --title "<one-line statement>" '
        '--body "<what and why>" --type <type> [--tag <tag>]...`.'
    ),
    update="`graphit memory upsert --id <id> ...` (only the fields you give change)",
    scopes="",
    user_scope="`--user`",
    important="`--important`",
    mandatory_flag="`--mandatory`",
    duplicate_rule=(
        "`graphit memory upsert` without `--id` warns on stderr when a live memory already "
        "says the same thing (it still writes): then delete the new one and update the old."
    ),
    every_scope="",
    verify="`graphit memory verify <id>` (`graphit memory stale` lists them all)",
    exit_codes=(
        "## Exit codes\n\n"
        "0: done. 11: `graphit memory scan` found a secret (a finding, not a failure: remove it "
        "with `graphit memory redact <id>`). 2 to 10: the command refused or could not do it, "
        "and its one `Error:` line on stderr says why; 130: interrupted. 1: a bug in graphit. "
        "`graphit --help` lists every code."
    ),
)


def _names(surface: str) -> _Names:
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}: use one of {', '.join(SURFACES)}")
    return _MCP if surface == "mcp" else _CLI


def recall_protocol(surface: str = "mcp") -> str:
    n = _names(surface)
    shortcut = f"\n{n.shortcut}\n" if n.shortcut else ""
    every = f"\n   {n.every_scope}" if n.every_scope else ""
    return f"""\
## Recall at the start of every session

1. {n.mandatory}, in full: they apply to every session. They include the user scope
   ({n.user_scope}): the user's cross-project preferences.{every}
2. {n.search} (mandatory memories are already loaded), then read what you need in full with
   {n.source}.
{shortcut}
Search again when the work moves to another area. Results come mandatory, important, then
normal, newest first; the score is only match metadata. A hit marked superseded matched an
older revision: the memory it names is the current belief.

A memory that names code (a path, a symbol, a make target) is checked against this checkout:
one marked `stale` names what moved or went away. Check it in the code before acting on it,
then fix it with {n.update}, or, when it still holds, verify it with {n.verify}.
"""


CAPTURE_WHEN = """\
## When to write a memory

Write one unasked; the user need not say "remember this" or repeat it.

- **From the user**: something about the project you did not know, or standing guidance on how
  to work. Presume it durable when it describes the project, its lifecycle or environment,
  policies or conventions, or would change later planning, implementation, review,
  compatibility, migration, safety or risk decisions.
- **From your own work**: confirmed, non-obvious knowledge that is structural, reusable or
  costly to rediscover: invariants and contracts, sources of truth and generation flows,
  hidden dependencies and coupling, recurring root causes and failure modes, decisions and
  trade-offs, surprising tool, infrastructure or lifecycle behaviour, learned procedures. The
  test: would another agent plan or act better, or skip real investigation, by knowing it?

Do not write instructions limited to the current task; transient state, progress or one-off
results; questions, guesses or unconfirmed hypotheses; what code or documentation plainly
says; trivial observations. Memory holds the durable conclusion; it supplements the task's own
report, never replaces it.
"""


def capture_how(surface: str = "mcp") -> str:
    n = _names(surface)
    return f"""\
## How to write it

- **Scope**: project (the default) for everything about this project, team conventions
  included; user ({n.user_scope}) only for personal preferences that apply across projects.
- **Type**: `fact` (lifecycle, environment and other facts), `decision` (a choice and its
  trade-off), `convention` (standing practice), `constraint` (a hard limit), `preference` (how
  the user likes things done), `correction` (the user corrected you), `procedure` (learned
  steps), `skill` (a reusable technique), `tension` (competing goals to balance).
- **Mandatory** ({n.mandatory_flag}) when every session needs it in full from the start;
  **important** ({n.important}) for reference whose relevance depends on the task. They are
  independent; most memories are neither.
- **Keep the rationale** with the rule: "The project is in development, so changes do not
  require backward compatibility or data migrations" keeps the fact and its policy together.
- **One idea per memory**: a title that states it, a body that says what and why.
- **Never write a credential** (an API key, token, password, private key, a connection string
  or URL with its password): write where it lives instead ("the deploy key is in 1Password,
  vault Ops", "set DB_PASSWORD in .env"). A write holding one is refused, naming the kind and
  position; rewrite it that way rather than looking for a way past.
- **Update, do not duplicate**: search first; when a live memory covers the subject or new
  guidance contradicts it, update it with {n.update}; its revision chain keeps the history.
  {n.duplicate_rule}
{n.insert}"""


def markdown(surface: str = "cli") -> str:
    """The whole guidance as one Markdown document (for AGENTS.md or a system prompt)."""
    n = _names(surface)
    intro = (
        "# Graphit memory: recall and capture\n\n"
        "Durable memory for agents, per project and per user, with every revision kept. "
        + n.scopes
        + "\n"
    )
    parts = [intro, recall_protocol(surface), CAPTURE_WHEN, capture_how(surface)]
    parts.append(consolidation(surface))
    if n.exit_codes:
        parts.append(n.exit_codes)
    return reflow("\n".join(parts))


_ITEM = re.compile(r"^(- |\d+\. )")
_CODE = re.compile(r"`[^`]*`")
_NBSP = "\x00"


def reflow(text: str, width: int = 96) -> str:
    """Re-wrap every paragraph and list item (after the names were filled in) to `width`."""
    blocks = []
    for block in text.strip("\n").split("\n\n"):
        if block.startswith("#"):
            blocks.append(block)
            continue
        items: list[list[str]] = []
        for line in block.split("\n"):
            if _ITEM.match(line) or not items:
                items.append([line])
            else:
                items[-1].append(line.strip())
        wrapped = []
        for item in items:
            marker = _ITEM.match(item[0])
            indent = " " * len(marker.group(1)) if marker else ""
            # A space inside `code` is not a break point: commands stay on one line.
            joined = _CODE.sub(lambda m: m.group(0).replace(" ", _NBSP), " ".join(item))
            filled = textwrap.fill(
                joined,
                width,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
            wrapped.append(filled.replace(_NBSP, " "))
        blocks.append("\n".join(wrapped))
    return "\n\n".join(blocks) + "\n"


SERVER_INSTRUCTIONS_LIMIT = 2048  # Claude Code keeps the first 2,048 characters, drops the rest


_SERVER_SHORT = """\
# Graphit memory

Durable memory for this project and this user, every revision kept. Tools take `scope`:
"project" (the default), "user" or `context:NAME`; recall, mandatory and search also take "all".

## Recall at the start of every session

1. `graphit_memory_mandatory` with `scope: "all"`: read every memory it returns, in full.
2. `graphit_memory_search` for the current task with `exclude_mandatory: true` and `scope:
   "all"`, then read what you need with `graphit_memory_source` (with the hit's `scope`).

`graphit_memory_recall` with `context` (the task) does both. Search again when the work moves.

## Write a memory, unasked, when you learn

- **From the user**: a project fact you did not know, or standing guidance on how to work
  (conventions, policies, environment, lifecycle).
- **From your work**: confirmed, non-obvious knowledge costly to rediscover: invariants, sources
  of truth, hidden coupling, root causes, decisions and trade-offs, learned procedures.

Not: instructions for this task only, transient state or progress, guesses, what code or docs
plainly say.

## How

- Search first: when a live memory covers the subject, update it (`graphit_memory_update`);
  never write a duplicate.
- Check a memory that names code before acting on it; one marked `stale` is fixed with an
  update, or `verify: true` when it still holds.
- One idea per memory: a title that states it, a body with what and why (keep the rationale).
- Project scope for the project and its team; `scope: "user"` only for personal preferences
  across projects. `mandatory: true` only for what every session needs; `important: true` for
  reference whose relevance depends on the task.
- **Never a credential** (key, token, password, private key, URL with a password): write where
  it lives ("the deploy key is in 1Password, vault Ops"). A write holding one is refused.

The full guidance (memory types, consolidation) is in CLAUDE.md, AGENTS.md or GEMINI.md, and
`graphit memory instructions --for mcp` prints it.
"""


def server_instructions() -> str:
    """What the MCP server tells its client at initialisation: the recall protocol and the
    capture rules within the strictest client's limit (Claude Code keeps 2,048 characters);
    the full text (`markdown("mcp")`) goes in the client's instructions file."""
    return _SERVER_SHORT


# --- MCP tool descriptions ------------------------------------------------------------------
# Short on purpose: every agent session pays for this text. What a scope, a type or the flags
# mean, and when to write, is said once in the server instructions above.

TOOL_DESCRIPTIONS: dict[str, str] = {
    "graphit_memory_recall": (
        "Session start, in one call: every mandatory memory in full (read them all), then a "
        "search for context with them left out."
    ),
    "graphit_memory_mandatory": (
        "Recall step 1, at session start: every mandatory memory, in full; read them all."
    ),
    "graphit_memory_search": (
        "Recall step 2: search for the current task, with exclude_mandatory=true after "
        "graphit_memory_mandatory. Full-text and semantic, current and past revisions, one hit "
        "per memory: mandatory, important, normal, newest first (score is metadata). Matches "
        "only (most of the query's rare words, or close meaning); empty: nothing on it. "
        "Deleted only with include_deleted. Pass next_cursor back for more."
    ),
    "graphit_memory_source": (
        "Read one memory in full (Markdown with YAML frontmatter); <id>/<revision-id> reads an "
        "archived revision. start_line/end_line read a slice."
    ),
    "graphit_memory_list": (
        "Browse live memories without a query: mandatory, important, then the rest, newest first."
    ),
    "graphit_memory_important": (
        "The important memories: reference whose relevance depends on the task."
    ),
    "graphit_memory_insert": (
        "Write a new memory, unasked, as the instructions say: durable project facts, standing "
        "guidance, confirmed non-obvious knowledge, with the rationale. If a live memory "
        "already says it, nothing is written and its id comes back: update that one. Never a "
        "credential: write where it lives."
    ),
    "graphit_memory_update": (
        "Change a memory: only the fields passed change; the old text becomes an archived "
        "revision. verify=true alone records that a stale one still holds."
    ),
    "graphit_memory_delete": (
        "Delete a memory that is wrong or no longer applies (update one that only changed). "
        "Its history stays readable."
    ),
    "graphit_memory_promote": "Mark a memory important (still not loaded at session start).",
    "graphit_memory_demote": "Clear a memory's important flag.",
    "graphit_memory_mark_mandatory": (
        "Mark a memory mandatory: loaded in full at every session start. Only for context "
        "every session needs."
    ),
    "graphit_memory_unmark_mandatory": "Clear a memory's mandatory flag (it stays searchable).",
}


# --- consolidation (graphit_cli/consolidate/, graphit_cli/mcp/consolidation.py) ---------------

_MERGE_RULES = (
    "A good merge keeps every rationale, prefers the newest belief where members disagree, "
    "and never drops a constraint."
)


_MERGE_SHORT = (
    "Good merge: keep every rationale, prefer the newest belief, never drop a constraint."
)


def consolidation(surface: str = "mcp") -> str:
    if _names(surface) is _MCP:  # the tool descriptions carry the rest
        return (
            "## Consolidating memories\n\nWhen asked to tidy memory, or when searches keep "
            "returning near-identical memories: `graphit_memory_consolidate` lists the groups, "
            "then apply a plan with `graphit_memory_apply_consolidation` (a dry run until "
            "`apply: true`).\n"
        )
    find = "`graphit memory consolidate --format json`"
    apply = "`graphit memory consolidate --plan plan.json` (a dry run until `--apply`)"
    return f"""\
## Consolidating memories

When asked to tidy memory, or when searches keep returning near-identical memories, list
duplicate and contradicting groups and stale memories with {find}, write a plan (merged
title and body per group, with the revisions the report showed) and apply it with
{apply}. {_MERGE_RULES} Survivors keep every member's important and mandatory flags;
stale memories (broken anchors) are only for review.
"""


TOOL_DESCRIPTIONS.update(
    {
        "graphit_memory_consolidate": (
            "Groups of duplicate or contradicting memories (keep_id proposed: for a "
            "contradiction the newer) with revisions and bodies, and stale ones to review. "
            "Plan merges from it for graphit_memory_apply_consolidation. " + _MERGE_SHORT
        ),
        "graphit_memory_apply_consolidation": (
            'Apply a plan {"version":1,"actions":[...]}: merge {ids, keep_id, title, body, '
            "reason, revisions:{id:rev}}; update {id, title|body, revision}; "
            "promote|demote|mandatory|optional|delete {id, revision}. Dry run unless "
            "apply=true. A memory changed since its revision is refused. Survivors keep all "
            "tags and flags; delete cannot remove flagged memories. " + _MERGE_SHORT
        ),
    }
)
