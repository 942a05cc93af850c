"""Write time: the anchors a memory's title and body name that resolve in the checkout then.

Paths named anywhere count when the file or folder exists; make targets when the Makefile
defines them; symbols (in code spans, or CamelCase names) when a tracked file defines them,
recorded with that file (`Name@path`). Prose never resolves, so it is never taken for code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from graphit_cli.anchors.tree import definitions, git_root, kind, make_targets

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
    top = git_root(root)
    if top is None:
        return ()
    text = f"{title}\n{body}"
    spans = _CODE_SPAN.findall(text)
    found: list[str] = []
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
    found += paths
    targets = make_targets(top)
    for target in _MAKE.findall(text):
        if target in targets and f"make {target}" not in found:
            found.append(f"make {target}")
    names: list[str] = []
    for span in spans:
        if span.strip().startswith("make "):
            continue
        for ident in _IDENT.findall(span):
            head = ident.split(".")[0]
            if len(head) >= 3 and head not in names and not (top / ident).exists():
                names.append(head)
    for ident in re.findall(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b", text):  # CamelCase
        if ident not in names:
            names.append(ident)
    for name, where in definitions(top, names, prefer=paths).items():
        found.append(f"{name}@{where}")
    return tuple(found[:MAX_ANCHORS])


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
    from dataclasses import replace

    if draft.anchors is not None:
        return replace(draft, anchors=normalise(draft.anchors, root))
    if draft.title is None and draft.body is None:
        return draft
    title = draft.title if draft.title is not None else (current.title if current else "")
    body = draft.body if draft.body is not None else (current.body if current else "")
    return replace(draft, anchors=detect(title, body, root))


def _module_file(top: Path, module: str) -> str | None:
    base = module.replace(".", "/")
    for root in ("", "src/"):
        for candidate in (f"{root}{base}.py", f"{root}{base}/__main__.py"):
            if (top / candidate).is_file():
                return candidate
    return None


def _inside(top: Path, path: str) -> bool:
    return not path.startswith(("/", "..")) and ".git/" not in f"{path}/"
