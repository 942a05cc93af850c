"""What the MCP tools answer: a ToolReply (text for the model + a JSON document), and the text.

The text is compact, written for a model to read; the JSON uses the CLI's field names (see
`render`). No MCP SDK, Typer or Rich imports here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import Memory, SearchHit, WriteAction, WriteResult
from graphit_cli.errors import InvalidInput
from graphit_cli.formats import render

FORMATS = ("text", "json")


@dataclass(frozen=True)
class ToolReply:
    """One tool answer, rendered both ways; the caller's `format` picks one."""

    text: str
    data: dict[str, Any]


def check_format(value: str) -> str:
    chosen = value.strip().lower()
    if chosen not in FORMATS:
        raise InvalidInput(f"unknown format {value!r}: use text or json")
    return chosen


def count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _marks(memory: Memory) -> str:
    marks = [memory.type]
    marks += ["mandatory"] if memory.mandatory else []
    marks += ["important"] if memory.important else []
    return ", ".join(marks)


def memory_line(memory: Memory) -> str:
    tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
    updated = render.format_time(memory.updated_at)[:10]
    line = (
        f"- {memory.id} ({_marks(memory)}; rev {memory.revision}; {updated}) {memory.title}{tags}\n"
    )
    stale = render.stale_of(memory)
    if stale:  # checked against the server's checkout before the agent acts on it
        named = "; ".join(f"{s['anchor']} {s['reason']}" for s in stale[:3])
        line += f"  may be stale: {named}; check it, then update or verify it\n"
    return line


def hit_lines(hit: SearchHit, *, with_scope: bool = False) -> str:
    line = memory_line(hit.memory).rstrip("\n")
    if with_scope:
        line += f"\n  scope: {hit.memory.scope_kind}:{hit.memory.scope_id}"
    if hit.deleted:
        line += f"\n  deleted: its final revision is {hit.memory.key}"
    elif hit.superseded:
        line += (
            f"\n  matched revision {hit.matched.revision} ({hit.matched.key}), since superseded: "
            "the memory has changed"
        )
    if hit.replaced_by:
        line += f"\n  replaced by {hit.replaced_by}: a newer memory on its subject says otherwise"
    if hit.snippet:
        line += f"\n  {hit.snippet}"
    return line


def write_reply(result: WriteResult, scope: Scope) -> ToolReply:
    memory = result.memory
    text = f"{result.action.value} {memory.id} (revision {memory.revision}, {_marks(memory)})"
    text += f": {memory.title}\n"
    if result.action is WriteAction.PROPOSED:
        text += (
            f"This project's memory is reviewed: the change is proposal {memory.key}, which "
            "teammates see once a reviewer approves it (your own searches show it now).\n"
        )
    return ToolReply(text, render.write_to_dict(result))


def verified_reply(memory: Memory) -> ToolReply:
    """`graphit_memory_update` with verify=true alone: the memory, verified in place."""
    text = f"verified {memory.id} (revision {memory.revision}): {memory.title}\n"
    data = {k: v for k, v in render.to_dict(memory).items() if k != "body"}
    return ToolReply(text, data | {"action": "verified"})


def rival_note(reply: ToolReply, rival: Memory) -> ToolReply:
    """A write that may contradict a live memory: say which one it may update instead."""
    note = (
        f'Note: memory {rival.id} ("{rival.title}") is on the same subject and says '
        f"otherwise. If the new memory replaces it, update {rival.id} with "
        "graphit_memory_update instead (and delete the one just written), so one current "
        "belief stays."
    )
    data = {**reply.data, "may_update": {"id": rival.id, "title": rival.title}}
    return ToolReply(reply.text + note + "\n", data)


def duplicate_reply(existing: Memory, scope: Scope) -> ToolReply:
    message = (
        f"Not written: memory {existing.id} already says this "
        f'("{existing.title}"; {_marks(existing)}; revision {existing.revision}). Read it with '
        f"graphit_memory_source and update it with graphit_memory_update id={existing.id} so "
        "its revision chain keeps the history; insert again with force=true only if the new "
        "memory is genuinely separate."
    )
    data = {
        "action": "duplicate",
        "written": False,
        "id": existing.id,
        "key": existing.key,
        "revision": existing.revision,
        "title": existing.title,
        "important": existing.important,
        "mandatory": existing.mandatory,
        "scope": str(scope),
        "message": message,
    }
    return ToolReply(message + "\n", data)


# What the service says in the CLI's words, said in the tools' words (an agent calling MCP
# tools cannot run a command or pass a flag).
_MCP_WORDS = (
    ("read it again with `graphit memory source`", "read it again with graphit_memory_source"),
    ("run `graphit init`, set GRAPHIT_PROJECT_ID, or use --user", 'or pass scope: "user"'),
    ("pass --scope", "pass scope"),
)
_HISTORY = re.compile(r"see `graphit memory history ([^`]+)`")


# A refused secret: no way past over MCP (the CLI's --redact / --allow-secrets are a person's
# choice); the agent is told what to write instead.
_SECRET_WAY = (
    'record where the secret lives instead of its value (e.g. "the deploy key is in '
    '1Password, vault Ops" or "set DB_PASSWORD in .env"); the memory tools never store a '
    "secret"
)


def mcp_message(message: str) -> str:
    """A GraphitError's message for a tool caller: tools and arguments, not commands and flags."""
    for cli_words, tool_words in _MCP_WORDS:
        message = message.replace(cli_words, tool_words)
    if message.startswith("refused: a secret"):
        from graphit_cli.core import secrets  # only then: its rules compile on import

        message = message.replace(f"{secrets.INSTEAD}; {secrets.WAYS_PAST}", _SECRET_WAY)
    return _HISTORY.sub(r"graphit_memory_source id=\1 shows its previous revision", message)
