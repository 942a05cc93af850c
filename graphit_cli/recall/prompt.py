"""The user's words in a hook's prompt: wrappers stripped, a long prompt cut to what it asks.

Clients hand the hook more than the user typed. Gemini CLI's headless mode (`gemini -p`) puts
the SessionStart hook's context, wrapped in `<hook_context>...</hook_context>`, before the
prompt; Claude Code wraps its own reminders in `<system-reminder>` and an IDE's selection or
open file in `<ide_selection>` / `<ide_opened_file>`, and a slash command's expansion in
`<command-name>` / `<command-message>` / `<local-command-stdout>`. None of it is the user's
question, so it is cut out before anything is searched.

A long prompt (a pasted log or traceback with the question under it) is searched by its
informative part, bounded to `QUERY_CHARS` so the embedding cost is bounded too: the start of
its first line (what the user says they paste), the exception lines of a traceback, and the
end, where the question is. Pure: the hot path imports `query_text` as well.
"""

from __future__ import annotations

import re

# What is searched at most: e5 embeds 300 characters in ~0.14 s on a loaded 2-core machine and
# 1,000 in ~0.67 s (the hot path's measure); the sessions score the same with either.
QUERY_CHARS = 300
HEAD_CHARS = 200  # the opening line of a long prompt ("Here is the traceback:")
TAIL_CHARS = 600  # the end of a long prompt: the question under a paste
ERROR_CHARS = 200  # a traceback's exception lines
EXCERPT_CHARS = 160  # the prompt's excerpt in the recalls log

# Blocks a client adds around or before the prompt; their content is not the user's words.
WRAPPERS = (
    "hook_context",
    "system-reminder",
    "ide_selection",
    "ide_opened_file",
    "command-name",
    "command-message",
    "local-command-stdout",
    "local-command-stderr",
    "user-prompt-submit-hook",
)
_BLOCK = re.compile(
    r"<(" + "|".join(re.escape(w) for w in WRAPPERS) + r")(?:\s[^>]*)?>.*?</\1>\s*",
    flags=re.DOTALL | re.IGNORECASE,
)
# An opening tag whose block never closes (a cut-off context): everything up to the end of it
# is the wrapper's, so keep only what follows the last closed one, or drop the open tail.
_OPEN = re.compile(r"<(" + "|".join(re.escape(w) for w in WRAPPERS) + r")(?:\s[^>]*)?>", re.I)
_ERROR_LINE = re.compile(r"^\s*(?:[\w.]+(?:Error|Exception|Warning|Exit|Interrupt)\b.*|E\s+.+)$")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", flags=re.DOTALL)


def clean(prompt: str) -> str:
    """The prompt without the clients' wrapper blocks (a slash command keeps its arguments)."""
    text = _COMMAND_ARGS.sub(lambda m: m.group(1), prompt)
    text = _BLOCK.sub("", text)
    opened = _OPEN.search(text)
    if opened is not None:
        text = text[: opened.start()]
    return text.strip()


def _cut(text: str, limit: int, *, from_end: bool = False) -> str:
    """At most `limit` characters, cut between words."""
    if len(text) <= limit:
        return text
    if from_end:
        part = text[-limit:]
        space = part.find(" ")
        return part[space + 1 :] if 0 <= space < limit // 4 else part
    part = text[:limit]
    space = part.rfind(" ")
    return part[:space] if space > limit * 3 // 4 else part


def query_text(prompt: str, limit: int = QUERY_CHARS) -> str:
    """What is searched for `prompt`: its user's words (`clean`), whole when short; else the
    opening line, a traceback's exception lines and the end, within `limit` characters."""
    text = clean(prompt)
    if len(text) <= limit:
        return text
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = _cut(lines[0], min(HEAD_CHARS, limit // 4)) if lines else ""
    tail = _cut(" ".join(lines[-12:]), min(TAIL_CHARS, limit // 2), from_end=True)
    errors: list[str] = []
    room = min(ERROR_CHARS, limit // 5)
    for line in lines[1:-12]:
        if _ERROR_LINE.match(line) and line not in errors:
            errors.append(_cut(line, room))
            room -= len(errors[-1])
            if room <= 40:
                break
    parts = [p for p in (head, *errors[-3:], tail) if p]
    return _cut("\n".join(dict.fromkeys(parts)), limit, from_end=True)


def excerpt(prompt: str, limit: int = EXCERPT_CHARS) -> str:
    """One line of the user's words for the recalls log, each secret in them redacted first
    (a key cut by the limit would no longer be recognised)."""
    from graphit_cli.core.secret_gate import worth_checking

    text = clean(prompt)
    if worth_checking(text):  # else nothing any rule finds: the detector is not even loaded
        from graphit_cli.core import secrets

        text = secrets.redact(text)
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
