"""`graphit memory doctor`: one scope's table checked end to end, and repaired where that loses
no row.

The checks, in order: the table opens (a missing version history, a damaged manifest, a
missing data file: `opening` and the store say which, as TableDamaged); every chain
holds its invariants (one live row, revisions 1..n, previous/next links, no key twice); every
index is there and can be read; the vectors are the table's model's (no NaN or zero vector,
a model id recorded, and a sample embedded again with that model lands where it was).

Repairs (`repair=True`) rebuild the indexes from the rows and embed again the rows whose
vectors are wrong; they never delete, rewrite or reorder a row. What cannot be repaired that
way (a broken chain, a table that does not open) is said, with what to do.

Must not import Typer or Rich.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphit_cli.core.models import Memory

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.service.common import EmbedderFactory
    from graphit_cli.store.base import Store

# Live rows embedded again to compare with their stored vectors.
SAMPLE = 16
# Below this cosine, a stored vector is not the table's model's for that text (the same model
# under another backend still lands above 0.99).
SAME_VECTOR = 0.95


@dataclass
class CheckResult:
    """One line of the report: `ok`, `problem` (not repaired), `repaired`."""

    status: str
    check: str
    text: str


@dataclass
class DoctorReport:
    scope: str
    findings: list[CheckResult] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not any(f.status == "problem" for f in self.findings)

    def add(self, status: str, check: str, text: str) -> None:
        self.findings.append(CheckResult(status, check, text))


def examine(
    store: Store, scope: Scope, embedder: EmbedderFactory, *, repair: bool = False
) -> DoctorReport:
    """Check `scope`'s open table (see the module) and, with `repair`, repair what can be."""
    report = DoctorReport(str(scope))
    rows = store.export_rows(archived=True, vectors=True)
    report.add("ok", "opens", f"{len(rows)} rows")
    _chains(store, rows, report)
    _history(store, report)
    _indexes(store, report, repair)
    _vectors(store, rows, embedder, report, repair)
    _redactions(store, report, repair)
    return report


def _redactions(store: Store, report: DoctorReport, repair: bool) -> None:
    """A redaction killed before it finished leaves the old values in the table's older
    versions; repair finishes it (service/redaction_journal.py)."""
    from graphit_cli.service.redaction_journal import Journal, redact_logs

    journal = Journal(store.uri)
    pending = journal.pending()
    if not pending:
        return
    what = f"the redaction of {', '.join(pending)} did not finish"
    if not repair:
        report.add(
            "problem",
            "redactions",
            f"{what}: older versions may still hold its values "
            "(`graphit memory doctor --repair` or `graphit memory redact ID --yes` finishes it)",
        )
        return
    store.purge_history()
    redact_logs()
    journal.finish(pending)
    report.add("repaired", "redactions", f"{what}: finished (older versions purged)")


def _chains(store: Store, rows: list[Memory], report: DoctorReport) -> None:
    problems: list[str] = []
    keys = Counter(r.key for r in rows)
    twice = sorted(k for k, n in keys.items() if n > 1)
    if twice:
        problems.append(f"{len(twice)} keys stored more than once (first: {twice[0]})")
    hidden = store.count() - len(rows) - len(store.proposals())  # proposals: off the chains
    if hidden > 0:
        problems.append(f"{hidden} live rows of deleted memories")
    by_id: dict[str, list[Memory]] = {}
    for row in rows:
        by_id.setdefault(row.id, []).append(row)
    for memory_id, chain in sorted(by_id.items()):
        wrong = _chain_problem(chain)
        if wrong:
            problems.append(f"memory {memory_id}: {wrong}")
    if not problems:
        report.add("ok", "chains", f"{len(by_id)} memories, every revision chain whole")
        return
    for text in problems[:20]:
        report.add(
            "problem",
            "chains",
            f"{text} (not repaired: no row is rewritten; `graphit memory history` shows the"
            " chain, `graphit memory export --history` keeps every row)",
        )
    if len(problems) > 20:
        report.add("problem", "chains", f"{len(problems) - 20} more broken chains")


def _chain_problem(chain: list[Memory]) -> str | None:
    """What is wrong with one memory's rows (None: nothing): one live row at most, and that
    one the newest; revisions 1..n; each row's `previous` the row before, `next` the row
    after (the live key for the newest archive; None after a delete)."""
    live = [r for r in chain if r.is_live]
    if len(live) > 1:
        return f"{len(live)} live rows"
    ordered = sorted(chain, key=lambda r: (r.revision, r.is_live))
    revisions = [r.revision for r in ordered]
    if revisions != list(range(1, len(ordered) + 1)):
        return f"revisions {revisions[:8]} are not 1..{len(ordered)}"
    if live and ordered[-1] is not live[0]:
        return "the live row is not the newest revision"
    if live and live[0].key != live[0].id:
        return "the live row's key is not the memory's id"
    if ordered[0].previous is not None:
        return "revision 1 points back at a row before it"
    for before, after in itertools.pairwise(ordered):
        if before.next != after.key:
            return f"revision {before.revision} does not point at revision {after.revision}"
        if after.previous != before.key:
            return f"revision {after.revision} does not point back at revision {before.revision}"
    if ordered[-1].next is not None:
        return f"the newest revision ({ordered[-1].revision}) points at a row that is not there"
    return None


def _history(store: Store, report: DoctorReport) -> None:
    problems = store.history_problems()
    if problems is None:
        report.add(
            "unchecked",
            "history",
            "whether the newest commit is there is not known: the storage keeps no record of"
            " it (an S3 table); a backup or an export is what can bring a lost one back",
        )
        return
    if not problems:
        report.add("ok", "history", "the newest version committed is there")
        return
    for text in problems:
        report.add(
            "problem",
            "history",
            f"{text} (not repaired: restore the table from a backup to get them back; the"
            " next write makes the table's state as it reads now the newest one)",
        )


def _indexes(store: Store, report: DoctorReport, repair: bool) -> None:
    problems = store.index_problems()
    if not problems:
        report.add("ok", "indexes", "every index is there and answers")
        return
    if not repair:
        for text in problems:
            report.add(
                "problem", "indexes", f"{text} (`graphit memory doctor --repair` rebuilds it)"
            )
        return
    store.rebuild_indexes()
    left = store.index_problems()
    for text in problems:
        if text in left:
            report.add("problem", "indexes", f"{text} (rebuilding did not help)")
        else:
            report.add("repaired", "indexes", f"{text}: rebuilt from the rows")


def _vectors(
    store: Store,
    rows: list[Memory],
    factory: EmbedderFactory,
    report: DoctorReport,
    repair: bool,
) -> None:
    from graphit_cli.embed import document_text
    from graphit_cli.service.common import embedder_for

    embedded = [r for r in rows if r.embedding is not None]
    model = store.embedding_model()
    if not embedded:
        report.add("ok", "vectors", "no vectors yet (the embedding pass fills them)")
        return
    bad = {r.key: r for r in embedded if not _finite_unit(r.embedding)}
    if model is None:
        report.add(
            "problem",
            "vectors",
            f"{len(embedded)} rows have vectors but the table names no model"
            " (`graphit memory embed --reembed` embeds them again with this machine's model)",
        )
        return
    embedder = embedder_for(factory, model)
    if embedder is None:
        note = f"model {model} is not installed here: the vectors' model cannot be checked"
        report.add("ok" if not bad else "problem", "vectors", note)
    else:
        live = [r for r in embedded if r.is_live and r.key not in bad][:SAMPLE]
        fresh = embedder.embed_documents([document_text(r.title, r.body) for r in live])
        for row, vector in zip(live, fresh, strict=True):
            if _cosine(row.embedding or (), vector) < SAME_VECTOR:
                bad[row.key] = row
    if not bad:
        report.add("ok", "vectors", f"{len(embedded)} vectors of {model}")
        return
    what = f"{len(bad)} rows have vectors that are not {model}'s for their text"
    if not repair or embedder is None:
        todo = (
            "`graphit memory doctor --repair` embeds them again"
            if embedder
            else (f"install {model}, then `graphit memory doctor --repair`")
        )
        report.add("problem", "vectors", f"{what} ({todo})")
        return
    items = []
    targets = list(bad.values())
    for start in range(0, len(targets), 64):
        chunk = targets[start : start + 64]
        vectors = embedder.embed_documents([document_text(r.title, r.body) for r in chunk])
        items += [(r.key, r.content_hash, v) for r, v in zip(chunk, vectors, strict=True)]
    written = store.write_embeddings(items)
    report.add("repaired", "vectors", f"{what}: {written} embedded again with {model}")


def _finite_unit(vector: tuple[float, ...] | None) -> bool:
    if vector is None:
        return True
    if any(not math.isfinite(v) for v in vector):
        return False
    return math.sqrt(sum(v * v for v in vector)) > 1e-6


def _cosine(a: tuple[float, ...] | list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
