"""The operation table's writes: upsert, delete, restore and import, each defined once.

A write is its request's parameter object (`parse`: the request's fields validated as the CLI
validates its arguments), how it runs on a writing view of its scope's service (`run`, with an
opener: the daemon's view, holding the scope's lock, written as the command's author and
embedded by the warm model; or the command's own view in its process, with its model and its
bar) and how its outcome crosses the socket (`encode`; the client's side is `decode`). The
command (`cli/client.py`) sends it through `transport.Socket` to the daemon and, when the
daemon does not carry it, runs it `InProcess`; the daemon (`daemon/warmpath.py`) parses and
runs the same object. A write's claim (never carried out twice) is the socket's and the
daemon's; the views (author, lock, vectors, provenance) are each side's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from graphit_cli.access import scopes
from graphit_cli.errors import InvalidInput
from graphit_cli.warm import values, wire

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft, WriteResult
    from graphit_cli.portability.model import ImportReport
    from graphit_cli.service.memory import MemoryService
    from graphit_cli.service.vectors import WriteVectors

Opener = Callable[["Scope"], "MemoryService"]
Tell = Callable[[str], None]
MAX_RECORDS = 100_000  # one upsert request (a CLI batch from stdin)


@dataclass
class Written:
    """A write's outcome, whichever transport carried it: what was written (an import: its
    report) and the notes to tell the user (duplicate warnings, rows left without vectors)."""

    results: list[WriteResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    report: ImportReport | None = None

    def noting(self, vectors: WriteVectors | None) -> Written:
        """This outcome, with the line that says when rows were left without their vector."""
        notice = vectors.notice() if vectors is not None else None
        if notice:
            self.notes.append(notice)
        return self


def _scope(request: dict[str, Any]) -> Scope:
    return scopes.parse_scope_ref(str(wire.text_field(request, "scope")))


def _secrets(request: dict[str, Any]) -> str:
    """What a draft holding a secret gets (the writer checks the policy's name)."""
    return str(wire.text_field(request, "secrets", optional=True) or "refuse")


def _told(notes: list[str], tell: Tell | None) -> list[str]:
    """The notes, said at once where `tell` is given (the command's stderr, before a long
    write), else kept for the outcome (a daemon's reply)."""
    if tell is None:
        return notes
    for line in notes:
        tell(line)
    return []


@dataclass(frozen=True)
class UpsertCall:
    op: ClassVar[str] = "upsert"
    scope: Scope
    drafts: list[MemoryDraft]
    secrets: str = "refuse"
    warn: bool = True  # the duplicate warnings, before the write

    def fields(self) -> dict[str, Any]:
        drafts = [values.draft_to_wire(d) for d in self.drafts]
        return {"op": "upsert", "scope": str(self.scope), "drafts": drafts, "warn": self.warn,
                "secrets": self.secrets}  # fmt: skip

    @classmethod
    def parse(cls, request: dict[str, Any]) -> UpsertCall:
        records = request.get("drafts")
        if not isinstance(records, list) or not records or len(records) > MAX_RECORDS:
            raise InvalidInput(f"drafts must be a list of 1 to {MAX_RECORDS} records")
        drafts = [values.draft_from_wire(d) for d in records]
        return cls(_scope(request), drafts, _secrets(request), wire.bool_field(request, "warn"))

    def run(self, opener: Opener, tell: Tell | None = None) -> Written:
        service = opener(self.scope)
        if self.warn:  # a secret is refused before a warning could quote the draft it is in
            service.writes.checked(self.drafts)
        notes = service.duplicate_notes(self.drafts) if self.warn else []
        notes = _told(notes, tell)
        return Written(service.upsert_many(self.drafts).results, notes)


@dataclass(frozen=True)
class DeleteCall:
    op: ClassVar[str] = "delete"
    scope: Scope
    ref: str
    secrets: str = "refuse"  # sent as every write sends it; a deletion writes no text

    def fields(self) -> dict[str, Any]:
        return {"op": self.op, "scope": str(self.scope), "ref": self.ref, "secrets": self.secrets}

    @classmethod
    def parse(cls, request: dict[str, Any]) -> DeleteCall:
        return cls(_scope(request), str(wire.text_field(request, "ref")), _secrets(request))

    def run(self, opener: Opener, tell: Tell | None = None) -> Written:
        return Written([opener(self.scope).delete(self.ref)])


@dataclass(frozen=True)
class RestoreCall(DeleteCall):
    op: ClassVar[str] = "restore"

    def run(self, opener: Opener, tell: Tell | None = None) -> Written:
        return Written([opener(self.scope).restore(self.ref)])


@dataclass(frozen=True)
class ImportCall:
    """`graphit memory import PATH`: whichever process runs it reads PATH (the daemon: the
    same user on the same machine, PATH made absolute), and every message names it as the
    user typed it (`source`)."""

    op: ClassVar[str] = "import"
    scope: Scope
    path: Path
    source: str
    format: str
    dry_run: bool
    secrets: str = "refuse"

    def fields(self) -> dict[str, Any]:
        return {"op": "import", "scope": str(self.scope), "path": str(self.path.absolute()),
                "source": self.source, "format": self.format, "dry_run": self.dry_run,
                "secrets": self.secrets}  # fmt: skip

    @classmethod
    def parse(cls, request: dict[str, Any]) -> ImportCall:
        path = Path(str(wire.text_field(request, "path")))
        if not path.is_absolute():
            raise InvalidInput("path must be absolute")
        return cls(
            _scope(request),
            path,
            str(wire.text_field(request, "source")),
            str(wire.text_field(request, "format")),
            wire.bool_field(request, "dry_run"),
            _secrets(request),
        )

    def run(self, opener: Opener, tell: Tell | None = None, progress: Any = None) -> Written:
        from graphit_cli.errors import GraphitError
        from graphit_cli.portability import importer

        service = opener(self.scope)
        try:
            report = importer.run(
                service, self.path, fmt=self.format, dry_run=self.dry_run, progress=progress
            )
        except GraphitError as exc:
            raise type(exc)(exc.message.replace(str(self.path), self.source)) from None
        report.source = self.source
        report.problems = [
            replace(p, path=self.source) if p.path == str(self.path) else p for p in report.problems
        ]
        return Written(report=report)


WriteCall = UpsertCall | DeleteCall | RestoreCall | ImportCall
PARSE: dict[str, Callable[[dict[str, Any]], WriteCall]] = {
    "upsert": UpsertCall.parse,
    "delete": DeleteCall.parse,
    "restore": RestoreCall.parse,
    "import": ImportCall.parse,
}


def encode(written: Written) -> dict[str, Any]:
    """A write's outcome on the wire: an import's report (with the notes when there are any),
    else the writes and the notes."""
    if written.report is not None:
        found = values.report_to_wire(written.report)
        return {**found, "notes": written.notes} if written.notes else found
    return {"writes": [values.write_to_wire(r) for r in written.results], "notes": written.notes}


def decode(found: dict[str, Any]) -> Written:
    """The client's side of `encode`."""
    notes = [str(n) for n in found.get("notes", [])]
    if "writes" in found:
        return Written([values.write_from_wire(w) for w in found["writes"]], notes)
    return Written(notes=notes, report=values.report_from_wire(found))
