"""What makes a redaction finish: a journal of the redactions under way, and graphit's own logs
scanned and redacted.

A redaction writes its journal entry (`GRAPHIT_HOME/state/redactions/`, one 0600 file per table
and memory, naming no value) before it rewrites a row, and removes it only after the table's
older versions are purged and graphit's own logs are redacted. A redaction killed at any point
leaves its entry: `redact` again (of that memory, or of any memory of the table), `doctor
--repair` and `scan` read it, and the first two finish the job (the purge and the log pass are
idempotent). Scanning and redacting the logs is here too, since both the redaction and `scan`
need it: the recalls log (`state/recalls.jsonl` and its rotated `.1`, recall/log.py) and the
consolidation logs (`memory/consolidation/*.json`, consolidate/log.py). Must not import Typer or
Rich.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphit_cli import config
from graphit_cli.core import secrets

FILE_MODE = 0o600
DIR_MODE = 0o700


def journal_dir() -> Path:
    return config.home() / "state" / "redactions"


def recalls_logs() -> list[Path]:
    """The recalls log and its rotated predecessor (recall/log.py writes them)."""
    path = config.home() / "state" / "recalls.jsonl"
    return [path.with_name(path.name + ".1"), path]


def consolidation_logs() -> list[Path]:
    """Every consolidation apply or undo log (consolidate/log.py writes them)."""
    folder = config.memory_root() / "consolidation"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


class Journal:
    """The redactions under way on one table (by its URI)."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self._prefix = hashlib.sha256(uri.encode()).hexdigest()[:16]

    def _path(self, memory_id: str) -> Path:
        return journal_dir() / f"{self._prefix}-{memory_id}.json"

    def begin(self, memory_id: str) -> None:
        folder = journal_dir()
        folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        entry = {"uri": self.uri, "memory_id": memory_id, "started_at": time.time()}
        partial = self._path(memory_id).with_suffix(".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(entry))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, self._path(memory_id))

    def pending(self) -> list[str]:
        """The memories of this table whose redaction began and did not finish."""
        folder = journal_dir()
        if not folder.is_dir():
            return []
        found = []
        for path in sorted(folder.glob(f"{self._prefix}-*.json")):
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(entry, dict) and entry.get("uri") == self.uri:
                found.append(str(entry.get("memory_id")))
        return found

    def finish(self, memory_ids: list[str]) -> None:
        for memory_id in memory_ids:
            self._path(memory_id).unlink(missing_ok=True)


@dataclass(frozen=True)
class LogFinding:
    """A secret in one of graphit's own logs: which file, which line (a JSON record's number
    in the recalls log; 0 for a consolidation log, one JSON document), its kind."""

    path: str
    line: int
    kind: str


def scan_logs() -> list[LogFinding]:
    found: list[LogFinding] = []
    for path in recalls_logs():
        for number, record in enumerate(_records(path), start=1):
            found += [LogFinding(str(path), number, k) for k in _kinds(record)]
    for path in consolidation_logs():
        document = _document(path)
        if document is not None:
            found += [LogFinding(str(path), 0, k) for k in _kinds(document)]
    return found


def redact_logs() -> int:
    """Redact every secret in graphit's own logs, in place; the number of files rewritten."""
    rewritten = 0
    for path in recalls_logs():
        path.with_name(path.name + ".redacting").unlink(missing_ok=True)  # a killed pass's
        records = _records(path)
        cleaned = [secrets.redacted_value(r) for r in records]
        if cleaned != records:
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in cleaned)
            _replace(path, text)
            rewritten += 1
    for path in consolidation_logs():
        path.with_name(path.name + ".redacting").unlink(missing_ok=True)
        document = _document(path)
        if document is None:
            continue
        cleaned_document = secrets.redacted_value(document)
        if cleaned_document != document:
            _replace(path, json.dumps(cleaned_document, ensure_ascii=False, indent=1) + "\n")
            rewritten += 1
    return rewritten


def _kinds(value: Any) -> list[str]:
    return [finding.kind for _, finding in secrets.in_value(value)]


def _records(path: Path) -> list[Any]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # a line cut by a crash
    return records


def _document(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def _replace(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".redacting")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)
