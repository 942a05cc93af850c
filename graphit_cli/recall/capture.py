"""The capture request: ask the agent, once, to save what it learned before context is lost.

`graphit agent hook capture --event EVENT` calls `capture` with the client's event JSON. It
answers the text to show, or "" for nothing:
- GRAPHIT_CAPTURE=0 (the opt-out, as GRAPHIT_PROMPT_RECALL=0 for the prompt hook);
- no session id (nothing to count "once" against), or a Stop hook already continuing the turn;
- the session already wrote memories: its transcript shows a graphit insert or update tool
  call or a `graphit memory upsert|import|restore` command, or (read last, once per session
  and event, as it opens the tables) a memory of the recall scopes was written after the
  session started (its SessionStart or first prompt, recorded by the recall hooks:
  `recall/session.py`), which also covers clients that send no transcript;
- at Stop (the end of every turn), a session too short to have learned much yet: fewer than
  `STOP_MIN_TOOL_CALLS` tool calls in its transcript (it is asked at a later Stop instead; a
  compaction always means a long session). Claude Code starts its Stop hooks before the turn's
  last entries reach the transcript (anthropics/claude-code#15813): when the event's
  `last_assistant_message` is not in the transcript yet, the count waits for it, at most
  `FLUSH_WAIT_SECONDS` (a flush takes ~0.1 s), so the turn's own tool calls and writes count;
- the session was already asked at this event: at most once per session and event, counted in
  a small state file under GRAPHIT_HOME/state/ (0600; entries expire after a week). A compaction
  request is spent only once the client compacted: Claude Code's PreCompact is "pending" until
  the session start it sends after a compaction (source "compact", `compacted`); a PreCompact
  that finds its request still pending (the client aborted, e.g. "Not enough messages to
  compact.") asks again;
- Gemini CLI's PreCompress with trigger "auto": Gemini CLI 0.61 fires it before every turn,
  before it checks whether the history needs compressing at all (its ChatCompressionService),
  so only a manual `/compress` (trigger "manual") is a compression; SessionEnd in Claude Code
  (its output reaches nobody).

The text depends on who reads it: Claude Code's PreCompact output instructs the summariser,
Stop's reaches the model, Gemini CLI's PreCompress shows it to the user. Standard library only
(the hook runs before an agent goes on at every Stop), but for the one check that opens the
tables, reached at most once per session and event.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from graphit_cli import config, environ
from graphit_cli.access import statefile
from graphit_cli.core import events
from graphit_cli.core.flags import flag_value

EXPIRY_SECONDS = 7 * 24 * 3600
TRANSCRIPT_BYTES = 8 << 20  # the last 8 MB of a transcript: enough to see this session's writes
# A tool call of graphit's insert or update in the transcript (Claude Code names MCP tools
# mcp__graphit__graphit_memory_insert; Gemini CLI keeps the tool's own name).
# So is a command-line write run through the agent's shell tool.
_WROTE = re.compile(
    rb'"name"\s*:\s*"[^"]*graphit_memory_(?:insert|update)"'
    rb"|graphit memory (?:upsert|import|restore)\b"
)
_TOOL_CALL = re.compile(rb'"type"\s*:\s*"tool_use"|"functionCall"|"toolCalls"')
STOP_MIN_TOOL_CALLS = 8
FLUSH_WAIT_SECONDS = 1.0  # within the hook's 3 s (agents/entries.HOOK_SECONDS)
_FLUSH_POLL_SECONDS = 0.02
# A run of characters every JSON writer spells the same: the end of the last message, as the
# transcript holds it whatever the escaping of quotes, newlines or non-ASCII text around it.
_PLAIN_RUN = re.compile(r"[A-Za-z0-9 ,.;:()_-]{16,}")

_SAVE = (
    "save each durable learning of this session that is not in graphit yet (a decision and "
    "its reason, a convention, a pitfall, where something lives) with graphit_memory_insert, "
    "or graphit_memory_update for a memory that changed: one short, specific memory per fact; "
    "write where a secret lives, never the secret. If nothing durable came up, save nothing."
)
TEXT = {
    # Claude Code hands PreCompact's stdout to the summariser as extra instructions.
    events.PRE_COMPACT: (
        "graphit memory: in the summary, list under 'To save in graphit' the durable learnings "
        "of this conversation not yet saved with graphit_memory_insert (decisions and their "
        "reasons, conventions, pitfalls, where things live; never a secret's value), and say "
        "that the agent saves them with graphit_memory_insert right after compaction."
    ),
    # Gemini CLI shows PreCompress's systemMessage to the user; the model does not see it.
    events.PRE_COMPRESS: (
        "graphit: the conversation is being compressed and this session saved no memories. "
        "To keep what it learned, ask the agent to save durable learnings with "
        "graphit_memory_insert."
    ),
    # Gemini CLI shows SessionEnd's systemMessage to the user as it exits.
    events.SESSION_END: (
        "graphit: this session saved no memories. Next time, ask the agent to save what it "
        "learned with graphit_memory_insert before you leave."
    ),
}
PENDING_EVENTS = (events.PRE_COMPACT,)  # spent only once the client compacted (`compacted`)
DEFAULT = "Before this context is lost (graphit memory): " + _SAVE


def muted() -> bool:
    """GRAPHIT_CAPTURE is off (on when unset; a value it cannot read leaves it on)."""
    return flag_value(os.environ.get(environ.ENV_CAPTURE), default=True) is False


def state_file() -> Path:
    return config.home() / "state" / "capture.json"


def capture(event: str, client: str, session_id: str | None, stdin_event: dict[str, Any]) -> str:
    """The capture request for this `event` of `client`'s session, or "" for none."""
    if muted() or not session_id or stdin_event.get("stop_hook_active"):
        return ""
    if event == events.PRE_COMPRESS and stdin_event.get("trigger") != "manual":
        return ""  # fired before every turn, whether or not anything is compressed
    if event == events.SESSION_END and client != "gemini":
        return ""  # Claude Code reads no SessionEnd output
    path = stdin_event.get("transcript_path")
    transcript = _tail(path)
    if transcript is not None and _WROTE.search(transcript):
        return ""
    if event == events.STOP and transcript is not None and _short(transcript):
        transcript = _flushed(str(path), transcript, stdin_event.get("last_assistant_message"))
        if _WROTE.search(transcript):
            return ""
    if event == events.STOP and (transcript is None or _short(transcript)):
        return ""
    if not _first_time(f"{client}\0{session_id}\0{event}", pending=event in PENDING_EVENTS):
        return ""
    if _scopes_written_since_start(session_id):
        return ""
    return TEXT.get(event, DEFAULT)


def _scopes_written_since_start(session_id: str) -> bool:
    """A memory of the recall scopes was written after the session started, as the recall
    hooks recorded it (False when they did not: nothing to compare with). Opens the tables:
    reached at most once per session and event."""
    from graphit_cli.recall import session

    started = session.started(session_id)
    if started is None:
        return False
    from graphit_cli.opening import open_reader
    from graphit_cli.portability import across
    from graphit_cli.recall.hook import wrote_since

    scopes, _ = across.recall_scopes()
    return wrote_since([open_reader(s) for s in scopes], started)


def _short(transcript: bytes) -> bool:
    return len(_TOOL_CALL.findall(transcript)) < STOP_MIN_TOOL_CALLS


def _flushed(path: str, transcript: bytes, last_message: Any) -> bytes:
    """The transcript once it holds the turn's last message (the event's
    `last_assistant_message`), read again as it grows for at most FLUSH_WAIT_SECONDS; as given
    when it holds it already, or when the message has no plain run of 16 characters to look
    for (then nothing tells a stale transcript from a current one)."""
    runs = _PLAIN_RUN.findall(last_message) if isinstance(last_message, str) else []
    if not runs:
        return transcript
    needle = runs[-1][-48:].encode()
    deadline = time.monotonic() + FLUSH_WAIT_SECONDS
    size = -1
    while needle not in transcript and time.monotonic() < deadline:
        time.sleep(_FLUSH_POLL_SECONDS)
        try:
            grown = os.stat(path).st_size
        except OSError:
            break
        if grown != size:
            size = grown
            transcript = _tail(path) or transcript
    return transcript


def _tail(transcript: Any) -> bytes | None:
    """The end of the session's transcript (None: none given, or unreadable)."""
    if not isinstance(transcript, str) or not transcript:
        return None
    try:
        with open(transcript, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - TRANSCRIPT_BYTES))
            return handle.read()
    except OSError:
        return None


def _name(key: str) -> str:
    import hashlib

    return hashlib.sha256(key.encode()).hexdigest()[:32]  # no session id in the file


def _first_time(key: str, *, pending: bool = False) -> bool:
    """Whether `key` was not asked yet, or was asked but is still pending (`pending`: spent
    only once `compacted` says the client compacted); note it as asked. Expired keys go."""
    name = _name(key)
    with _state() as (asked, waiting):
        if name in asked and name not in waiting:
            return False
        asked[name] = time.time()
        if pending:
            waiting[name] = asked[name]
    return True


def compacted(client: str, session_id: str | None) -> None:
    """The client compacted the session (Claude Code's session start with source "compact"):
    its compaction request is spent. Never raises."""
    if not session_id:
        return
    names = {_name(f"{client}\0{session_id}\0{event}") for event in PENDING_EVENTS}
    try:
        with _state() as (_, waiting):
            for name in names:
                waiting.pop(name, None)
    except (OSError, ValueError):
        pass


@contextmanager
def _state() -> Iterator[tuple[dict[str, float], dict[str, float]]]:
    """The asked and the pending requests, for a read-modify-write under the file's lock."""
    path = state_file()
    now = time.time()
    with statefile.locked(path):
        try:
            found = statefile.read_json(path)
        except (OSError, ValueError):
            found = None  # a damaged file is replaced, never a reason to fail the hook
        found = found if isinstance(found, dict) else {}

        def live(key: str) -> dict[str, float]:
            kept = found.get(key)
            return {
                k: v
                for k, v in (kept if isinstance(kept, dict) else {}).items()
                if isinstance(v, int | float) and now - v < EXPIRY_SECONDS
            }

        asked, waiting = live("asked"), live("pending")
        yield asked, waiting
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        statefile.write_json(path, {"asked": asked, "pending": waiting}, mode=0o600)
