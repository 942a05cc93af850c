"""The apply log: every change of an apply (or undo), written as it happens, read for undo."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli import config
from graphit_cli.errors import InvalidInput

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService

LOG_VERSION = 1


def log_dir() -> Path:
    """`~/.graphit/memory/consolidation/` (GRAPHIT_HOME relocates it)."""
    return config.memory_root() / "consolidation"


class LogWriter:
    """Writes a log of every change as it happens, so a crash mid-apply can still be undone."""

    def __init__(self, service: MemoryService, kind: str, now: datetime) -> None:
        scope = str(service.scope)
        stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        self.path = log_dir() / f"{stamp}-{kind}-{scope.replace(':', '-')}.json"
        self.header = {
            "version": LOG_VERSION,
            "kind": kind,
            "scope": scope,
            "created_at": now.astimezone(UTC).isoformat(),
            "author": service.author,
        }

    def write(self, changes: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({**self.header, "changes": changes}, ensure_ascii=False, indent=1)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(text + "\n", encoding="utf-8")
        partial.replace(self.path)


def read_log(path: str | Path) -> Any:
    target = Path(path).expanduser()
    if not target.is_file() and not target.is_absolute() and (log_dir() / target).is_file():
        target = log_dir() / target
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"no such log: {path} (logs are in {log_dir()})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read the log {path}: {exc}") from None
    valid = (
        isinstance(data, dict)
        and data.get("version") == LOG_VERSION
        and isinstance(data.get("scope"), str)
        and isinstance(data.get("changes"), list)
        and all(_valid_change(c) for c in data["changes"])
    )
    if not valid:
        raise InvalidInput(f"{path} is not a graphit consolidation log")
    return data


def _valid_change(change: Any) -> bool:
    if not isinstance(change, dict) or not isinstance(change.get("id"), str):
        return False
    after, before = change.get("after"), change.get("before")
    if not isinstance(after, dict) or not isinstance(after.get("revision"), int):
        return False
    keys = {"revision", "title", "body", "type", "tags", "important", "mandatory"}
    return before is None or (isinstance(before, dict) and keys <= set(before))
