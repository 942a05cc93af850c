"""What the hooks print: dated lines within a budget, and a compact session start.

- Per prompt: one line per memory, `**title** (`id`, YYYY-MM-DD): body`, the body cut so the
  whole block stays within `PROMPT_BUDGET` characters; an older memory shown with its newer
  counterpart says so on its line. Then one pointer to the full text.
- Session start: every mandatory memory in full (the spec: complete content), as Markdown
  with a one-line frontmatter (id, type, date; the scope when it is not the project), a body
  with a line that could read as graphit's frame fenced (`framed`: memory text is data, it
  cannot close the fence or forge graphit's header), and one pointer to
  `graphit_memory_source` for the rest (tags, history, authors).
- Memory text never reaches the agent raw: control characters are shown (formats/visible.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphit_cli.core.models import Memory
from graphit_cli.formats.visible import visible

PROMPT_BUDGET = 1200  # characters a prompt's block may take
BODY_MAX = 120  # a line's body at most, however much budget is left (the title is whole)
BODY_MIN = 80  # and at least this much of it (a title alone is rarely enough)
POINTER = "Full text: graphit_memory_source ID."
START_HEAD = "# Mandatory memories (graphit; full record: graphit_memory_source)"


def date(memory: Memory) -> str:
    return memory.updated_at.strftime("%Y-%m-%d")


def _where(memory: Memory) -> str:
    """The scope, when it is not the project's (an id alone finds a project memory)."""
    if memory.scope_kind in ("", "project"):
        return ""
    return f", {memory.scope_kind}:{memory.scope_id}"


def _flat(text: str, limit: int) -> str:
    flat = " ".join(visible(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def prompt_block(
    memories: Sequence[Memory], newer: dict[str, Memory], stale: dict[str, str] | None = None
) -> str:
    """The Markdown for one prompt (`newer`: older id -> the newer memory shown with it;
    `stale`: id -> the note of a memory whose anchors broke in this checkout)."""
    if not memories:
        return ""
    head = "## Memories on this prompt (graphit)"
    heads = []
    for m in memories:
        note = f"; `{newer[m.id].id}` is newer" if m.id in newer else ""
        note += f"; {stale[m.id]}" if stale and m.id in stale else ""
        heads.append(f"- **{_flat(m.title, 500)}** (`{m.id}`, {date(m)}{_where(m)}{note})")
    fixed = len(head) + len(POINTER) + sum(len(h) + 3 for h in heads) + 4
    room = max(BODY_MIN, min(BODY_MAX, (PROMPT_BUDGET - fixed) // len(memories)))
    lines = [head]
    for h, m in zip(heads, memories, strict=True):
        body = _flat(m.body, room)
        lines.append(f"{h}: {body}" if body else h)
    lines.append(POINTER)
    return "\n".join(lines) + "\n"


def session_block(memories: Sequence[Memory], stale: dict[str, str] | None = None) -> str:
    """Every mandatory memory in full, with a one-line frontmatter each (and the note of one
    whose anchors broke in this checkout)."""
    if not memories:
        return ""
    parts = [START_HEAD]
    for m in memories:
        note = f" · {stale[m.id]}" if stale and m.id in stale else ""
        meta = f"{m.id} · {m.type} · {date(m)}{_where(m)}{note}"
        parts.append(f"## {_flat(m.title, 500)}\n{meta}\n{framed(m.body.strip())}")
    return "\n".join(parts) + "\n"


# Lines of memory text that would read as graphit's own framing (its headers).
_OWN_HEADS = re.compile(r"^([ \t]*)(#+[ \t]*(?:Mandatory memories|Memories on this prompt))", re.M)
# A line that could read as part of the frame: a heading, a code fence, an id line.
_FRAME_LIKE = re.compile(r"^[ \t]*(?:#|```|~~~|[0-9A-HJKMNP-TV-Z]{26} · )", re.M)


def framed(body: str) -> str:
    """A memory's body as data, as the session start shows it: its control characters
    visible; fenced (`fenced`) when a line of it could read as graphit's frame (a heading,
    a code fence, an id line), else as it is (a plain body imitates nothing, and the session
    start stays within its budget)."""
    text = visible(body)
    return fenced(text) if _FRAME_LIKE.search(text) else text


def fenced(body: str) -> str:
    """A memory's body as data: its control characters visible, inside a code fence longer
    than any run of backticks in it (so no line of it can close the fence), with a line that
    imitates graphit's own header escaped (`\\# Mandatory memories ...`)."""
    text = _OWN_HEADS.sub(lambda m: m.group(1) + "\\" + m.group(2), visible(body))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def own_text(memories: Sequence[Memory]) -> int:
    """The mandatory memories' own title and body characters (the session start's yardstick)."""
    return sum(len(m.title) + len(m.body.strip()) for m in memories)
