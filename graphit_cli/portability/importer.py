"""`graphit memory import`: find the format, read every item, write the valid ones.

graphit's own exports are written as rows (ids, revisions, links and dates kept; see
`native`); foreign records become drafts whose id is derived from their stable source key,
so importing the same file again updates those memories instead of adding new ones. A record
whose content a live memory already has is skipped; broken records are reported with their
file and line while the others import, one commit per batch. A record holding a secret is
left out and reported (an export's whole chain), or redacted, or written as it is: the
service's `secrets` policy ("refuse", "redact", "allow").

What is read (the format, the files, each record as a row or a draft) is `collect.py`'s; where
records come from (streams, repository paths) is `sources.py`'s, each format its own module's.
Here: the secrets held back, then the rows and drafts planned and written, batch by batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from graphit_cli.core import revisions, secrets
from graphit_cli.core.models import DEFAULT_TYPE, Memory, MemoryDraft, WriteAction
from graphit_cli.errors import GraphitError
from graphit_cli.portability import native
from graphit_cli.portability.collect import Collected, collect
from graphit_cli.portability.model import ImportOutcome, ImportReport, Item, Problem
from graphit_cli.service.memory import MemoryService

# Rows (or records) per commit: each commit may fold the indexes (seconds at this size), so
# batches are large; 10k exported rows import in one commit.
BATCH = 10_000
Progress = Callable[[int, int], None]


def source_id(key: str) -> str:
    """The memory id a foreign record's stable source key names (a ULID from its hash)."""
    from ulid import ULID

    return str(ULID.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:16]))


def run(
    service: MemoryService,
    path: Path,
    *,
    fmt: str = "auto",
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    found = collect(path, fmt, service.scope)
    report = ImportReport(str(path), found.format, dry_run, problems=list(found.problems))
    if service.secrets != "allow":
        _hold_back_secrets(found, report, redact=service.secrets == "redact")
    if found.rows:
        _apply_rows(service, found, report, progress)
    if found.items:
        _apply_items(service, found.items, report, progress, found.redacted)
    return report


def _hold_back_secrets(found: Collected, report: ImportReport, *, redact: bool) -> None:
    """Leave out (or, with `redact`, mark for redaction) every item and exported chain that
    holds a secret, reporting each by file, line, kind and position (never the value)."""
    items: list[Item] = []
    for item in found.items:
        draft = item.draft
        hits = secrets.in_draft(draft.title, draft.body, tags=draft.tags, anchors=draft.anchors)
        if not hits:
            items.append(item)
        elif redact:
            items.append(replace(item, draft=secrets.redacted_draft(item.draft)))
            found.redacted[item.key] = secrets.summary(hits)
        else:
            title = secrets.safe_title(item.draft.title or "")
            report.problems.append(
                Problem(item.path, item.line, f"{title!r} not imported: {secrets.summary(hits)}")
            )
    found.items = items
    bad: dict[str, list[str]] = {}
    for row, origin in found.rows:
        hits = secrets.in_row(row)
        if hits:
            bad.setdefault(row.id, []).append(f"{origin}: {secrets.summary(hits)}")
    if redact:
        found.redacted.update({i: "; ".join(lines) for i, lines in bad.items()})
        return
    found.rows = [(row, origin) for row, origin in found.rows if row.id not in bad]
    for memory_id, lines in bad.items():
        for line in lines:
            report.problems.append(
                Problem(report.source, 0, f"memory {memory_id} not imported (whole chain): {line}")
            )


def _apply_rows(
    service: MemoryService, found: Collected, report: ImportReport, progress: Progress | None
) -> None:
    chains: dict[str, list[tuple[Memory, str]]] = {}
    for row, origin in found.rows:
        chains.setdefault(row.id, []).append((row, origin))
    plan = native.RowPlan()
    ids = list(chains)
    done = 0
    batch: list[Memory] = []

    def flush() -> None:
        if not batch:
            return
        if report.dry_run:

            def look(
                incoming: list[Memory], existing: list[Memory]
            ) -> tuple[list[Memory], list[str]]:
                plan(incoming, existing)
                return [], []

            service.import_rows(list(batch), look)
        else:
            service.import_rows(list(batch), plan, embedding_model=found.model)
        batch.clear()

    for memory_id in ids:
        batch += [row for row, _ in chains[memory_id]]
        done += len(chains[memory_id])
        if len(batch) >= BATCH:
            flush()
            if progress:
                progress(done, len(found.rows))
    flush()
    if progress:
        progress(done, len(found.rows))
    for memory_id in ids:
        rows = chains[memory_id]
        head, origin = max(rows, key=lambda r: (r[0].revision, r[0].is_live))
        why = _redacted(found.redacted.get(memory_id))
        title = secrets.redact(head.title) if why else head.title
        if memory_id in plan.created:
            report.outcomes.append(ImportOutcome("created", memory_id, title, origin, why))
        elif memory_id in plan.updated:
            report.outcomes.append(ImportOutcome("updated", memory_id, title, origin, why))
        else:
            reason = plan.conflicts.get(memory_id, "unchanged")
            report.outcomes.append(ImportOutcome("skipped", memory_id, title, origin, reason))


def _apply_items(
    service: MemoryService,
    items: list[Item],
    report: ImportReport,
    progress: Progress | None,
    redacted: dict[str, str],
) -> None:
    live = {m.id: m for m in service.catalogue()}
    by_hash = {m.content_hash: m.id for m in live.values()}
    pending: list[tuple[Item, MemoryDraft]] = []
    adopted: set[str] = set()
    for item in items:
        memory_id = _adopt(item, live, adopted)
        draft = replace(item.draft, id=memory_id)
        digest = _digest(draft)
        current = live.get(memory_id)
        if current is not None and _unchanged(current, draft, digest):
            report.outcomes.append(
                ImportOutcome("skipped", memory_id, current.title, item.origin, "unchanged")
            )
            continue
        twin = by_hash.get(digest)
        if current is None and twin is not None:
            report.outcomes.append(
                ImportOutcome(
                    "skipped",
                    memory_id,
                    draft.title or "",
                    item.origin,
                    f"same content as memory {twin}",
                )
            )
            continue
        by_hash[digest] = memory_id
        pending.append((item, draft))
    total = len(pending)
    for start in range(0, total, BATCH):
        chunk = pending[start : start + BATCH]
        if report.dry_run:
            for item, draft in chunk:
                action = "updated" if draft.id in live else "created"
                why = _redacted(redacted.get(item.key))
                report.outcomes.append(
                    ImportOutcome(action, draft.id or "", draft.title or "", item.origin, why)
                )
            continue
        try:
            results = service.upsert_many([d for _, d in chunk]).results
        except GraphitError as exc:
            report.problems.append(Problem(report.source, 0, f"batch not written: {exc.message}"))
            continue
        for (item, _), result in zip(chunk, results, strict=True):
            action = "skipped" if result.action is WriteAction.UNCHANGED else result.action.value
            reason = "unchanged" if action == "skipped" else _redacted(redacted.get(item.key))
            report.outcomes.append(
                ImportOutcome(action, result.memory.id, result.memory.title, item.origin, reason)
            )
        if progress:
            progress(min(start + BATCH, total), total)


def _adopt(item: Item, live: dict[str, Memory], adopted: set[str]) -> str:
    """The id of the memory `item` writes. A record keyed by its file's path whose memory was
    imported under the old key (the file's name: `agents:CLAUDE.md#Testing`) keeps that
    memory's id, once: unless a memory already has the new key's id, or the old one was taken
    over by another file (it carries that file's path tag) or by an earlier record of this
    import."""
    memory_id = source_id(item.key)
    if memory_id in live or item.legacy_key is None:
        return memory_id
    old = live.get(source_id(item.legacy_key))
    if old is None or old.id in adopted:
        return memory_id
    suffix = "/" + (item.legacy_key.split(":", 1)[1].split("#", 1)[0].lower())
    taken = [t for t in old.tags if t.endswith(suffix) and t != item.claim_tag]
    if taken:
        return memory_id  # another file's since the paths came in: this one is new
    adopted.add(old.id)
    return old.id


def _redacted(where: str | None) -> str:
    return f"redacted: {where.removeprefix('holds a secret ')}" if where else ""


def _digest(draft: MemoryDraft) -> str:
    return revisions.content_hash(
        revisions.validate_title(draft.title or ""),
        revisions.normalise_body(draft.body or ""),
        revisions.validate_type(draft.type or DEFAULT_TYPE),
        revisions.normalise_tags(draft.tags or ()),
    )


def _unchanged(current: Memory, draft: MemoryDraft, digest: str) -> bool:
    important = current.important if draft.important is None else draft.important
    mandatory = current.mandatory if draft.mandatory is None else draft.mandatory
    return (digest, important, mandatory) == (
        current.content_hash,
        current.important,
        current.mandatory,
    )
