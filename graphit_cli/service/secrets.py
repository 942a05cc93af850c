"""Secrets already in a scope's table: `SecretSweep` finds them (every row, archived revisions
included) and redacts a memory's chain in place, then purges the table's history of them.

A write never lets one in (service/writes.py refuses it); this is for what came in before
that check, or through `--allow-secrets`. A redaction is journaled (service/redaction_journal.py)
so that one killed at any point is finished by the next `redact` or `doctor --repair`, and
it redacts graphit's own logs too. A finding names the memory, the revision, the kind
and the line:column, never the value. Must not import Typer or Rich.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphit_cli.core import revisions, secrets
from graphit_cli.errors import Conflict, NotFound
from graphit_cli.service.redaction_journal import Journal, redact_logs

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory
    from graphit_cli.service.common import EmbedderFactory
    from graphit_cli.store.base import Store


@dataclass(frozen=True)
class SecretFound:
    """One secret in one row: which memory and revision, where, of which kind."""

    memory_id: str
    revision: int
    revision_id: str  # "" for the live row
    live: bool
    field: str  # "title", "body", "tag 2", "anchor 1", "author"
    kind: str
    line: int
    column: int

    @property
    def position(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True)
class Redaction:
    memory_id: str
    rows: int  # rows of the chain rewritten
    kinds: tuple[str, ...]
    finished: tuple[str, ...] = ()  # memories whose interrupted redaction this finished


class SecretSweep:
    """Scan a table for secrets; redact one memory's chain and purge the old versions."""

    def __init__(self, store: Store, embedder: EmbedderFactory) -> None:
        self.store = store
        self._embedder = embedder

    def scan(self) -> list[SecretFound]:
        """Every secret in every row (live and archived), by memory id then revision."""
        found: list[SecretFound] = []
        for row in self.store.export_rows(archived=True):
            found += _in_row(row)
        return sorted(found, key=lambda f: (f.memory_id, f.revision, f.live, f.line, f.column))

    def redact(self, memory_id: str) -> Redaction:
        """Replace each secret in every row of `memory_id`'s chain with `[REDACTED:kind]`:
        the same keys, revisions and links; content hashes recomputed, and vectors where the
        table's model is at hand (else the embedding pass fills them). Then every older version
        of the table, and its indexes, are rebuilt without it (`Store.purge_history`)."""
        memory_id = revisions.validate_id(memory_id)
        chain = self.store.chain(memory_id)
        if not chain:
            raise NotFound(f"no memory {memory_id}")
        journal = Journal(self.store.uri)
        interrupted = journal.pending()
        holding = [row for row in chain if _in_row(row)]
        if not holding and not interrupted:
            redact_logs()
            return Redaction(memory_id, 0, ())
        kinds = sorted({f.kind for row in holding for f in _in_row(row)})
        done = 0
        if holding:
            journal.begin(memory_id)
            rewritten = self._with_vectors([secrets.redacted_row(row) for row in holding])
            rewritten = [_stamped(row) for row in rewritten]
            done = self.store.rewrite(rewritten)
            if done != len(rewritten):
                raise Conflict(
                    f"memory {memory_id} changed while it was being redacted "
                    f"({done} of {len(rewritten)} rows rewritten): run the redaction again"
                )
        finished = self.finish()
        return Redaction(memory_id, done, tuple(kinds), tuple(sorted(set(finished))))

    def interrupted(self) -> list[str]:
        """The memories of this table whose redaction was interrupted (its journal entry is
        still there): their old values may still be in the table's older versions."""
        return Journal(self.store.uri).pending()

    def finish(self) -> list[str]:
        """Finish every redaction under way on this table: purge the table's older versions,
        redact graphit's own logs, then clear the journal. Returns the memories finished."""
        journal = Journal(self.store.uri)
        pending = journal.pending()
        self.store.purge_history()
        redact_logs()
        journal.finish(pending)
        return pending

    def _with_vectors(self, rows: list[Memory]) -> list[Memory]:
        """The rows with vectors of their new text, when the model that embedded the table is
        the one this process loads (best effort: the embedding pass fills the rest)."""
        from dataclasses import replace

        from graphit_cli.embed import document_text

        current = self.store.embedding_model()
        if current is None:
            return rows
        try:
            model = self._embedder()
        except Exception:  # no model here: the embedding pass embeds them later
            return rows
        if model is None or model.model_id != current:
            return rows
        vectors = model.embed_documents([document_text(r.title, r.body) for r in rows])
        return [
            replace(row, embedding=tuple(float(x) for x in vector))
            for row, vector in zip(rows, vectors, strict=True)
        ]


def _stamped(row: Memory) -> Memory:
    """A redacted row's provenance: its own, and who redacted it when (the audit shows it)."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from graphit_cli.access import identity
    from graphit_cli.core.provenance import Provenance

    who = {**identity.stamp("cli").to_dict(), "at": datetime.now(UTC).isoformat()}
    kept = row.provenance or Provenance(author=row.updated_by, via="")
    return replace(row, provenance=kept.but(redaction=who))


def _in_row(row: Memory) -> list[SecretFound]:
    return [
        SecretFound(
            row.id,
            row.revision,
            row.revision_id,
            row.is_live,
            field,
            finding.kind,
            finding.line,
            finding.column,
        )
        for field, finding in secrets.in_row(row)
    ]
