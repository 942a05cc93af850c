"""Write time: the anchors a memory's title and body name that resolve in the checkout then.

Paths named anywhere count when the file or folder exists; make targets when the Makefile
defines them; symbols when a file defines them, recorded with that file (`Name@path`): a name
in a code span is looked for in the files the memory names, then in the whole working tree; a
CamelCase name in prose only in the files the memory names. Prose never resolves, so it is
never taken for code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphit_cli.anchors.tree import (
    DEFINITION,
    definitions,
    git_root,
    kind,
    make_targets,
    stat_key,
)

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, MemoryDraft

MAX_ANCHORS = 20  # per memory: a long note names many things; the first ones matter

_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_PATHLIKE = re.compile(
    r"(?<![\w/.-])\.?/?((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,8}|(?:[\w.-]+/)+[\w.-]+)"
)
_MAKE = re.compile(r"\bmake\s+([A-Za-z0-9][\w.-]*)")
_MODULE = re.compile(r"(?:^|\s)-m\s+([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)")  # python -m pkg.mod
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def detect(title: str, body: str, root: Path | str | None) -> tuple[str, ...]:
    """The anchors `title` and `body` name that resolve in the checkout at `root` now."""
    return detect_many([(title, body)], root)[0]


def detect_many(texts: Sequence[tuple[str, str]], root: Path | str | None) -> list[tuple[str, ...]]:
    """`detect` for each (title, body), a batch at the cost of one: paths and targets are
    stats and one Makefile read, a symbol is looked for first in the files its memory names
    (read here), and the symbols still missing, of every memory at once, in one `git grep`."""
    top = git_root(root)
    if top is None:
        return [() for _ in texts]
    targets = make_targets(top)
    named = [_candidates(top, f"{title}\n{body}", targets) for title, body in texts]
    missing: set[str] = set()
    local: list[dict[str, str]] = []
    for paths, _, names in named:
        here = {n: p for n, _ in names for p in paths if _defines_in(top / p, n)}
        local.append(here)
        missing.update(n for n, spanned in names if spanned and n not in here)
    elsewhere = definitions(top, sorted(missing)) if missing else {}
    found = []
    for (paths, makes, names), here in zip(named, local, strict=True):
        where = {**elsewhere, **here}
        symbols = [f"{n}@{where[n]}" for n, _ in names if n in where]
        found.append(tuple([*paths, *makes, *symbols][:MAX_ANCHORS]))
    return found


def _candidates(
    top: Path, text: str, targets: set[str]
) -> tuple[list[str], list[str], list[tuple[str, bool]]]:
    """(paths that exist, make targets the Makefile defines, symbol names to look up, each
    with whether a code span names it: a name in prose is looked for in the memory's files
    only, so a write whose prose says "PostgreSQL" searches nothing)."""
    spans = _CODE_SPAN.findall(text)
    paths: list[str] = []
    for candidate in _PATHLIKE.findall(text):
        path = candidate.strip(".,;:()'\"").removeprefix("./")
        if path and _inside(top, path) and (top / path).exists() and path not in paths:
            paths.append(path)
    for span in spans:  # `python -m pkg.jobs.export`: the module's file
        for module in _MODULE.findall(span):
            path = _module_file(top, module)
            if path is not None and path not in paths:
                paths.append(path)
    makes: list[str] = []
    for target in _MAKE.findall(text):
        if target in targets and f"make {target}" not in makes:
            makes.append(f"make {target}")
    names: dict[str, bool] = {}
    for span in spans:
        if span.strip().startswith("make "):
            continue
        for ident in _IDENT.findall(span):
            head = ident.split(".")[0]
            if len(head) >= 3 and head not in names and not (top / ident).exists():
                names[head] = True
    for ident in re.findall(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b", text):  # CamelCase
        names.setdefault(ident, False)
    return paths, makes, [(n, s) for n, s in names.items() if re.fullmatch(r"[A-Za-z_]\w*", n)]


_TEXTS: dict[Path, tuple[object, str]] = {}


def _defines_in(path: Path, name: str) -> bool:
    """Whether the file at `path` defines `name` (its text kept while its stat stays)."""
    key = stat_key(path)
    cached = _TEXTS.get(path)
    if cached is None or cached[0] != key:
        if len(_TEXTS) > 256:
            _TEXTS.clear()
        try:
            text = path.read_text(encoding="utf-8", errors="replace") if key else ""
        except OSError:
            text = ""
        cached = _TEXTS[path] = (key, text)
    return re.search(DEFINITION.format(name=re.escape(name)), cached[1], re.MULTILINE) is not None


def normalise(anchors: Iterable[str], root: Path | str | None) -> tuple[str, ...]:
    """Anchors given explicitly (`--anchor`, frontmatter, MCP): a symbol given bare gets the
    file that defines it now; a path loses a leading `./`. Kept as given when unresolved."""
    top = git_root(root)
    out: list[str] = []
    for raw in anchors:
        anchor = raw.strip().removeprefix("./")
        if not anchor:
            continue
        if top is not None and kind(anchor) == "symbol" and "@" not in anchor:
            where = definitions(top, [anchor.split(".")[0]]).get(anchor.split(".")[0])
            if where:
                anchor = f"{anchor.split('.')[0]}@{where}"
        if anchor not in out:
            out.append(anchor)
    return tuple(out)


def with_anchors(
    draft: MemoryDraft, root: Path | str | None, current: Memory | None = None
) -> MemoryDraft:
    """`draft` with its anchors resolved for the checkout at `root`: given ones normalised,
    else found in the title and body the memory will have (an update that gives one of them
    takes the other from `current`, the live memory; a flag-only update keeps its anchors)."""
    return with_anchors_many([draft], root, [current])[0]


def with_anchors_many(
    drafts: Sequence[MemoryDraft], root: Path | str | None, current: Sequence[Memory | None]
) -> list[MemoryDraft]:
    """`with_anchors` for a batch (one `git grep` for all of it: a 10k NDJSON upsert)."""
    from dataclasses import replace

    found: list[MemoryDraft] = list(drafts)
    pending: list[tuple[int, str, str]] = []
    for index, (draft, live) in enumerate(zip(drafts, current, strict=True)):
        if draft.anchors is not None:
            found[index] = replace(draft, anchors=normalise(draft.anchors, root))
        elif draft.title is not None or draft.body is not None:
            title = draft.title if draft.title is not None else (live.title if live else "")
            body = draft.body if draft.body is not None else (live.body if live else "")
            pending.append((index, title, body))
    detected = detect_many([(title, body) for _, title, body in pending], root)
    for (index, _, _), anchors in zip(pending, detected, strict=True):
        found[index] = replace(found[index], anchors=anchors)
    return found


def _module_file(top: Path, module: str) -> str | None:
    base = module.replace(".", "/")
    for root in ("", "src/"):
        for candidate in (f"{root}{base}.py", f"{root}{base}/__main__.py"):
            if (top / candidate).is_file():
                return candidate
    return None


def _inside(top: Path, path: str) -> bool:
    return not path.startswith(("/", "..")) and ".git/" not in f"{path}/"
