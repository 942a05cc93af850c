"""`graphit memory import`: find the format, read every item, write the valid ones.

graphit's own exports are written as rows (ids, revisions, links and dates kept; see
`native`); foreign records become drafts whose id is derived from their stable source key,
so importing the same file again updates those memories instead of adding new ones. A record
whose content a live memory already has is skipped; broken records are reported with their
file and line while the others import, one commit per batch. A record holding a secret is
left out and reported (an export's whole chain), or redacted, or written as it is: the
service's `secrets` policy ("refuse", "redact", "allow").

Past 400 lines, it is one job: an import from its format to its report (finding the files,
parsing them with the formats' modules, planning and writing rows and drafts); where records
come from (streams, repository paths) is `sources.py`'s, each format its own module's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from graphit_cli.access.scopes import Scope
from graphit_cli.core import revisions, secrets
from graphit_cli.core.models import DEFAULT_TYPE, Memory, MemoryDraft, WriteAction
from graphit_cli.errors import GraphitError, InvalidInput
from graphit_cli.portability import foreign, mcp_memory, native, notes, sources
from graphit_cli.portability.markdown import FrontmatterError, read_document
from graphit_cli.portability.model import ImportOutcome, ImportReport, Item, Problem
from graphit_cli.service.memory import MemoryService

FORMATS = ("auto", "ndjson", "markdown", "agents", "cursor", "mcp-memory", "notes")
# Rows (or records) per commit: each commit may fold the indexes (seconds at this size), so
# batches are large; 10k exported rows import in one commit.
BATCH = 10_000
Progress = Callable[[int, int], None]


@dataclass
class Collected:
    format: str
    items: list[Item] = field(default_factory=list)
    rows: list[tuple[Memory, str]] = field(default_factory=list)  # native rows, origin
    problems: list[Problem] = field(default_factory=list)
    model: str | None = None  # the embedding model of exported vectors
    redacted: dict[str, str] = field(default_factory=dict)  # item key or memory id -> what


def source_id(key: str) -> str:
    """The memory id a foreign record's stable source key names (a ULID from its hash)."""
    from ulid import ULID

    return str(ULID.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:16]))


# --- reading ------------------------------------------------------------------------------


def collect(path: Path, fmt: str, scope: Scope) -> Collected:
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown import format {fmt!r}: use {', '.join(FORMATS)}")
    if not path.exists():
        raise InvalidInput(f"no such file or folder: {path}")
    if path.is_file() or path.is_dir():
        return _collect(path, fmt, scope)
    # A FIFO, a process substitution (`<(cat export.ndjson)`: /dev/fd/N) or a device: read
    # once, up to a bound, into a file of its own, then imported like any file.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="graphit-import-") as folder:
        return _collect(sources.spool(path, Path(folder), fmt), fmt, scope)


def _collect(path: Path, fmt: str, scope: Scope) -> Collected:
    chosen = detect(path) if fmt == "auto" else fmt
    found = Collected(chosen)
    for file, rel, kind in _files(path, chosen):
        if kind == "ndjson":
            _native_ndjson(file, rel, scope, found)
        elif kind == "markdown":
            _native_markdown(file, rel, scope, found)
        else:
            items, problems = _PARSERS[kind](file, rel)
            if kind == "agents":
                items = [sources.by_path(item, file, rel) for item in items]
            found.items += items
            found.problems += problems
    return found


def detect(path: Path) -> str:
    if path.is_file():
        return _detect_file(path)
    candidates = [*sorted(path.glob("*.md")), *sorted(path.glob(f"{native.HISTORY_DIR}/*/*.md"))]
    if candidates and all(_is_native_md(p) for p in candidates[:20]):
        return "markdown"  # what `export --format markdown` wrote
    names = {p.name.lower() for p in path.iterdir()}
    if names & {*foreign.AGENT_FILES, ".cursorrules"} or (path / ".cursor" / "rules").is_dir():
        return "agents"
    if any(path.glob("*.mdc")):
        return "cursor"
    if names & {"memory.jsonl", "memory.json"}:
        return "mcp-memory"
    return "notes"


def _detect_file(path: Path) -> str:
    name = path.name.lower()
    if name in foreign.AGENT_FILES:
        return "agents"
    if name == ".cursorrules" or path.suffix.lower() == ".mdc":
        return "cursor"
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        return "ndjson" if _first_record_is_native(path) else "mcp-memory"
    if path.suffix.lower() in (".md", ".markdown"):
        return "markdown" if _is_native_md(path) else "notes"
    raise InvalidInput(f"cannot tell the format of {path}: give --format ({', '.join(FORMATS)})")


def _first_record_is_native(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    return native.looks_native(json.loads(line))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return False


def _is_native_md(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            head = handle.read(4096)
        return native.looks_native_meta(read_document(head).meta)
    except (OSError, UnicodeDecodeError, FrontmatterError):
        return False


def _files(path: Path, fmt: str) -> list[tuple[Path, str, str]]:
    """(file, path shown in reports and source keys, parser) for every file to read."""
    if path.is_file():
        kind = fmt
        if fmt == "cursor" and path.suffix.lower() != ".mdc":
            kind = "cursorrules"
        return [(path, path.name, kind)]

    def rel(p: Path) -> str:
        return p.relative_to(path).as_posix()

    found: list[tuple[Path, str, str]] = []
    if fmt == "ndjson":
        found = [(p, rel(p), "ndjson") for p in sorted(path.glob("*.ndjson"))]
    elif fmt == "markdown":
        files = sorted(path.glob("*.md")) + sorted(path.glob(f"{native.HISTORY_DIR}/*/*.md"))
        found = [(p, rel(p), "markdown") for p in files]
    elif fmt in ("agents", "cursor"):
        if fmt == "agents":
            found += [
                (p, rel(p), "agents")
                for p in sorted(path.iterdir())
                if p.is_file() and p.name.lower() in foreign.AGENT_FILES
            ]
        rules = path / ".cursor" / "rules"
        mdc = sorted(rules.rglob("*.mdc")) if rules.is_dir() else sorted(path.glob("*.mdc"))
        found += [(p, rel(p), "cursor") for p in mdc]
        if (path / ".cursorrules").is_file():
            found.append((path / ".cursorrules", ".cursorrules", "cursorrules"))
    elif fmt == "mcp-memory":
        found = [
            (p, rel(p), "mcp-memory")
            for p in sorted(path.iterdir())
            if p.name.lower() in ("memory.jsonl", "memory.json")
        ]
    else:
        found = [
            (p, rel(p), "notes")
            for p in sorted(path.rglob("*.md"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
        ]
    if not found:
        raise InvalidInput(f"nothing to import in {path} as {fmt}")
    return found


def _native_ndjson(file: Path, rel: str, scope: Scope, found: Collected) -> None:
    text, problems = foreign.read_text(file, rel)
    found.problems += problems
    for number, line in enumerate((text or "").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            found.problems.append(Problem(rel, number, f"invalid JSON: {exc.msg}"))
            continue
        except RecursionError:
            found.problems.append(Problem(rel, number, "JSON nested too deeply"))
            continue
        try:
            if not native.looks_native(data):
                raise InvalidInput("not a row exported by `graphit memory export`")
            found.rows.append((native.row_from_dict(data, scope), f"{rel}:{number}"))
        except InvalidInput as exc:
            found.problems.append(Problem(rel, number, exc.message))
            continue
        if found.model is None and isinstance(data.get("embedding_model"), str):
            found.model = data["embedding_model"]


def _native_markdown(file: Path, rel: str, scope: Scope, found: Collected) -> None:
    text, problems = foreign.read_text(file, rel)
    found.problems += problems
    if text is None:
        return
    try:
        found.rows.append((native.row_from_markdown(read_document(text), scope), rel))
    except FrontmatterError as exc:
        found.problems.append(Problem(rel, exc.line, exc.message))
    except InvalidInput as exc:
        found.problems.append(Problem(rel, 1, exc.message))


_PARSERS: dict[str, Callable[[Path, str], foreign.Parsed]] = {
    "agents": foreign.agent_file,
    "cursor": foreign.cursor_rule,
    "cursorrules": foreign.cursorrules,
    "mcp-memory": mcp_memory.mcp_memory,
    "notes": notes.note,
}


# --- writing ------------------------------------------------------------------------------


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
