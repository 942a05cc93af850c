"""What an import reads and reports (pure data)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphit_cli.core.models import MemoryDraft


@dataclass(frozen=True)
class Problem:
    """An item that could not be imported: where it is and why."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: {self.message}"
            if self.line
            else f"{self.path}: {self.message}"
        )


@dataclass(frozen=True)
class Item:
    """One foreign record as a draft, with the stable source key that names its memory."""

    key: str  # e.g. "agents:AGENTS.md#Testing", "mcp-memory:Alice"
    path: str
    line: int
    draft: MemoryDraft
    # The key an earlier graphit gave this record (the file's name, not its path), when it
    # differs: a memory imported under it keeps its id (importer.py `_adopt`).
    legacy_key: str | None = None
    claim_tag: str | None = None  # the tag that says which file a memory came from

    @property
    def origin(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class Outcome:
    action: str  # created, updated, skipped
    id: str
    title: str
    origin: str
    reason: str = ""


@dataclass
class ImportReport:
    source: str
    format: str
    dry_run: bool
    outcomes: list[Outcome] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(1 for o in self.outcomes if o.action == action)

    def summary(self) -> str:
        verb = "would be " if self.dry_run else ""
        parts = [f"{self.count(a)} {verb}{a}" for a in ("created", "updated", "skipped")]
        if self.problems:
            parts.append(f"{len(self.problems)} rejected")
        return ", ".join(parts)
