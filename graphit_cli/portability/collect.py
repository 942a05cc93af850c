"""What an import reads: the format (given, or told from the files), every file to read, and
each record as an exported row or a draft, with the problems of those that are not.

graphit's own exports are read as rows (`native`); each foreign format is its own module's
(`foreign`, `mcp_memory`, `notes`); a stream is spooled to a file first (`sources.spool`).
Nothing is written here: `importer.run` writes what `collect` found.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import Memory
from graphit_cli.errors import InvalidInput
from graphit_cli.portability import foreign, mcp_memory, native, notes, sources
from graphit_cli.portability.markdown import FrontmatterError, read_document
from graphit_cli.portability.model import Item, Problem

FORMATS = ("auto", "ndjson", "markdown", "agents", "cursor", "mcp-memory", "notes")


@dataclass
class Collected:
    format: str
    items: list[Item] = field(default_factory=list)
    rows: list[tuple[Memory, str]] = field(default_factory=list)  # native rows, origin
    problems: list[Problem] = field(default_factory=list)
    model: str | None = None  # the embedding model of exported vectors
    redacted: dict[str, str] = field(default_factory=dict)  # item key or memory id -> what


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
