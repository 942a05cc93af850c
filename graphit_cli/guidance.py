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
    user_scope: str
    important: str
    mandatory_flag: str
    duplicate_rule: str
    every_scope: str


_MCP = _Names(
    mandatory=(
        'Call `graphit_memory_mandatory` with `scope: "all"` and no query, and read every '
        "memory it returns"
    ),
    search=(
        "Call `graphit_memory_search` for the current task with `exclude_mandatory: true` "
        'and `scope: "all"`'
    ),
    source="`graphit_memory_source`",
    shortcut="",
    insert="`graphit_memory_insert`",
    update="`graphit_memory_update`",
    user_scope='`scope: "user"`',
    important="`important: true` (or `graphit_memory_promote`)",
    mandatory_flag="`mandatory: true` (or `graphit_memory_mark_mandatory`)",
    duplicate_rule=(
        "`graphit_memory_insert` refuses a memory that an existing one already says and "
        "answers with that memory's id: update it; pass `force: true` only when the new "
        "memory is genuinely separate."
    ),
    every_scope=(
        '`scope: "all"` reads the project, the user scope and the contexts added with '
        "`--recall` together; each memory and hit says its `scope`: pass it to "
        "`graphit_memory_source` to read one."
    ),
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
        '`graphit memory upsert --title "<one-line statement>" --body "<what and why>" '
        "--type <type> [--tag <tag>]...`"
    ),
    update="`graphit memory upsert --id <id> ...` (only the fields you give change)",
    user_scope="`--user`",
    important="`--important`",
    mandatory_flag="`--mandatory`",
    duplicate_rule=(
        "`graphit memory upsert` without `--id` warns on stderr when an existing memory "
        "already says the same thing (it still writes): if it does, delete the new one and "
        "update the existing memory instead."
    ),
    every_scope="",
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
   ({n.user_scope}), which holds the user's cross-project preferences.{every}
2. {n.search} (the mandatory memories are already loaded), then read the memories you need in
   full with {n.source}.
{shortcut}
Search again when the work moves to another area. Results come mandatory first, then important,
then normal, newest first; the score is only match metadata. A hit marked superseded matched an
older revision: the memory it names is the current belief.
"""


CAPTURE_WHEN = """\
## When to write a memory

Write one without being asked; the user does not have to say "remember this" or repeat it.

- **From the user**: a statement that tells you something about the project you did not know,
  or standing guidance on how you should work. Presume it is durable when it describes the
  project, its lifecycle or environment, its policies or conventions, or when knowing it would
  change planning, implementation, review, compatibility, migration, safety or risk decisions
  later.
- **From your own work**: analysis, implementation, debugging or review that confirms relevant,
  non-obvious knowledge that is structural, reusable across tasks or costly to rediscover:
  implicit invariants and contracts, sources of truth and generation flows, hidden dependencies
  and coupling, recurring root causes and failure modes, confirmed decisions and trade-offs,
  surprising tool, infrastructure or lifecycle behaviour, learned procedures. The test: would
  another agent plan or act better, or skip real investigation, by knowing it?

Do not write:

- instructions limited to the current task (they stay with the task);
- transient task state, progress, or one-off results with no future value;
- questions, guesses, unconfirmed hypotheses and speculation;
- what the code or documentation already states plainly, and trivial observations.

Memory holds the durable, reusable conclusion; it supplements the task's own report and never
replaces it.
"""


def capture_how(surface: str = "mcp") -> str:
    n = _names(surface)
    return f"""\
## How to write it

- **Scope**: project (the default) for everything about this project, team conventions
  included. The user scope ({n.user_scope}) only for personal preferences that genuinely apply
  across projects.
- **Type**: `fact` for the project's lifecycle or environment state and other facts;
  `decision` for a choice that was made and its trade-off; `convention` for standing project
  practice; `constraint` for a hard limit; `preference` for how the user likes things done;
  `correction` when the user corrected you; `procedure` for a learned step-by-step way to do
  something; `skill` for a reusable technique; `tension` for competing goals that must be
  balanced.
- **Mandatory or important**: mandatory ({n.mandatory_flag}) when every session needs it, in
  full, from the start; important ({n.important}) for valuable reference material whose
  relevance depends on the task. The two are independent, and most memories are neither.
- **Keep the rationale**: record the user's reason with the rule it leads to. "The project is
  in development, so changes do not require backward compatibility or data migrations" keeps
  the fact and the policy derived from it in one memory.
- **One idea per memory**: a title that states it, a body that says what and why.
- **Update, do not duplicate**: search before writing. When a live memory covers the subject,
  or new guidance contradicts it, update it with {n.update}: its revision chain keeps the
  history. {n.duplicate_rule}

To write a new memory: {n.insert}.
"""


def markdown(surface: str = "cli") -> str:
    """The whole guidance as one Markdown document (for AGENTS.md or a system prompt)."""
    intro = (
        "# Graphit memory: recall and capture\n\n"
        "Graphit memory keeps durable knowledge for agents: preferences, corrections, "
        "decisions, constraints, facts, conventions and learned procedures, per project and per "
        "user, with every revision kept.\n"
    )
    parts = [intro, recall_protocol(surface), CAPTURE_WHEN, capture_how(surface)]
    parts.append(consolidation(surface))
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


def server_instructions() -> str:
    """What the MCP server tells its client at initialisation."""
    return markdown("mcp")


# --- MCP tool descriptions ------------------------------------------------------------------

_SCOPE_NOTE = (
    'Every tool takes `scope`: "project" (default), "user" or "context:<name>"; mandatory '
    'and search also take "all" (project, user and recall contexts together).'
)

TOOL_DESCRIPTIONS: dict[str, str] = {
    "graphit_memory_mandatory": (
        "Step 1 of recall at session start: every mandatory memory of the scope, in full "
        '(Markdown with frontmatter). Call it with scope "all" and no query, and read all '
        "of them: the project's, the user's cross-project preferences and the recall "
        "contexts', each labelled with its scope. " + _SCOPE_NOTE
    ),
    "graphit_memory_search": (
        "Step 2 of recall: search memories for the current task. Pass exclude_mandatory=true "
        "after graphit_memory_mandatory, so the result window does not repeat memories already "
        "loaded. Full-text plus semantic search over current and past revisions, one hit per "
        "memory, shown mandatory first, then important, then normal, newest first. Only real "
        "matches come back (a full-text hit or close meaning): an empty result means memory "
        "holds nothing on it. Deleted memories are left out unless include_deleted. top_k is "
        "how many memories to select (0 = every match); results arrive page_size at a time: "
        "pass next_cursor back, with the same query and filters, for the next page. Read a "
        "hit in full with graphit_memory_source. Search before writing a memory, to update "
        "an existing one instead of duplicating it. " + _SCOPE_NOTE
    ),
    "graphit_memory_source": (
        "Read one memory in full as Markdown with YAML frontmatter: `<id>` for the current "
        "revision, `<id>/<revision-id>` for an archived one. start_line/end_line return a "
        "slice of a long memory. " + _SCOPE_NOTE
    ),
    "graphit_memory_list": (
        "Browse live memories (no query): mandatory first, then important, then the rest, "
        "newest first, with optional type and tag filters. " + _SCOPE_NOTE
    ),
    "graphit_memory_important": (
        "The important memories (curated reference material whose relevance depends on the "
        "task), in canonical order, with optional type and tag filters. Important does not "
        "mean mandatory: these are not loaded at session start. " + _SCOPE_NOTE
    ),
    "graphit_memory_insert": (
        "Write a new durable memory. Write one, unasked, when the user tells you something "
        "about the project you did not know or gives standing guidance, or when your own work "
        "confirms non-obvious knowledge another agent would otherwise have to rediscover "
        "(invariants, sources of truth, coupling, root causes, decisions and trade-offs, "
        "surprising behaviour, procedures). Not for task-limited instructions, transient "
        "state, speculation, or what the code already says. Keep the user's rationale with "
        "the rule. type: fact (lifecycle, environment), decision, convention (standing "
        "practice), constraint, preference, correction, procedure, skill or tension. "
        "mandatory=true only when every session needs it; important=true for conditional "
        "reference material. Scope project by default; user only for preferences that apply "
        "across projects. If a live memory already says the same thing, nothing is written "
        "and its id comes back: update that one (force=true writes anyway). " + _SCOPE_NOTE
    ),
    "graphit_memory_update": (
        "Change an existing memory by id: only the fields you pass change, and the previous "
        "text becomes an archived revision. Use it when new guidance refines or contradicts "
        "a live memory, instead of inserting a second one. expected_revision makes the "
        "update fail if someone else changed the memory since you read it. " + _SCOPE_NOTE
    ),
    "graphit_memory_delete": (
        "Delete a memory that is wrong or no longer applies (prefer an update when it only "
        "changed). Its history stays readable with graphit_memory_source. " + _SCOPE_NOTE
    ),
    "graphit_memory_promote": (
        "Mark a memory important: reference material worth surfacing first when relevant "
        "(it is still not loaded at session start; see mark_mandatory). " + _SCOPE_NOTE
    ),
    "graphit_memory_demote": "Clear a memory's important flag. " + _SCOPE_NOTE,
    "graphit_memory_mark_mandatory": (
        "Mark a memory mandatory: loaded in full at the start of every session. Only for "
        "standing context that every session needs. " + _SCOPE_NOTE
    ),
    "graphit_memory_unmark_mandatory": (
        "Clear a memory's mandatory flag (it stays searchable). " + _SCOPE_NOTE
    ),
}


# --- consolidation (graphit_cli/consolidate.py, graphit_cli/mcp/consolidation.py) -------------

_MERGE_RULES = (
    "A good merge keeps every rationale, prefers the newest belief where members disagree, "
    "and never drops a constraint."
)


_MERGE_SHORT = (
    "Good merge: keep every rationale, prefer the newest belief, never drop a constraint."
)


def consolidation(surface: str = "mcp") -> str:
    if _names(surface) is _MCP:
        find = "`graphit_memory_consolidate`"
        apply = "`graphit_memory_apply_consolidation` (a dry run until you pass `apply: true`)"
    else:
        find = "`graphit memory consolidate --format json`"
        apply = "`graphit memory consolidate --plan plan.json` (a dry run until `--apply`)"
    return f"""\
## Consolidating memories

When asked to tidy memory, or when searches keep returning near-identical memories, list
duplicate groups and stale memories with {find}, write a plan (merged title and body per
group, with the revisions the report showed) and apply it with {apply}. {_MERGE_RULES}
Survivors keep every member's important and mandatory flags; stale memories are only for review.
"""


TOOL_DESCRIPTIONS.update(
    {
        "graphit_memory_consolidate": (
            "Read-only: groups of duplicate memories (every pair similar; keep_id proposed) "
            "with revisions and bodies, and stale ones to review. Plan merges from it for "
            "graphit_memory_apply_consolidation. " + _MERGE_SHORT
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
