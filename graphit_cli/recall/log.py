"""Why each memory was shown, or not: the recalls log behind `graphit agent recalls`.

One JSON line per hook call in `~/.graphit/state/recalls.jsonl` (0600, in a 0700 directory):
when, the client and session, the event, an excerpt of the user's words, what was injected
(id, title, score, cosine, share of the query's words, the words it shares, its date) and
what cleared search but not the gate, with the reason. Local and private (it holds prompt
excerpts, each secret in them redacted before it is written); bounded: past `MAX_BYTES` the
file becomes `recalls.jsonl.1` (the one before is dropped), so it never holds more than twice
that.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from graphit_cli import config

MAX_BYTES = 512 * 1024
FILE_MODE = 0o600
DIR_MODE = 0o700


def log_path() -> Path:
    return config.home() / "state" / "recalls.jsonl"


def append(entry: dict[str, Any]) -> None:
    """Add one hook call's record (never raises: the log must not fail a hook)."""
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        if path.parent.stat().st_mode & 0o777 != DIR_MODE:
            os.chmod(path.parent, DIR_MODE)  # made earlier by something less careful
        if path.exists() and path.stat().st_size > MAX_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
        record = _redacted({"at": time.time(), **entry})
        line = json.dumps(record, ensure_ascii=False) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        pass


def _redacted(entry: dict[str, Any]) -> dict[str, Any]:
    """The record with every secret in its strings (a pasted key in the prompt, a title)
    replaced by `[REDACTED:<kind>]` (core/secrets.py): the log never holds one."""
    from graphit_cli.core import secrets

    cleaned = secrets.redacted_value(entry)
    return cleaned if isinstance(cleaned, dict) else entry


def read(session: str | None = None) -> list[dict[str, Any]]:
    """Every record kept (the rotated file first), oldest first; one session's when given
    (its id, or a prefix of it)."""
    path = log_path()
    found: list[dict[str, Any]] = []
    for each in (path.with_name(path.name + ".1"), path):
        try:
            lines = each.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash
            if isinstance(entry, dict):
                found.append(_redacted(entry))  # a line written before redaction, too
    if session:
        found = [e for e in found if str(e.get("session") or "").startswith(session)]
    return found


def sessions(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records grouped by session (most recent session first, calls oldest first in
    each): `{"session", "client", "first", "last", "calls"}`. Calls without a session id
    make one group under None."""
    groups: dict[str | None, dict[str, Any]] = {}
    for entry in entries:
        sid = entry.get("session")
        group = groups.setdefault(
            sid,
            {"session": sid, "client": entry.get("client"), "first": entry.get("at"), "calls": []},
        )
        group["calls"].append(entry)
        group["last"] = entry.get("at")
    return sorted(groups.values(), key=lambda g: -(g.get("last") or 0))
