"""Anchors: what in the project a memory depends on, found at write time, checked at read time.

An anchor is one string, of one of three kinds:

- a repo-relative path: `src/orderly/payments/retry.py`, `k8s/cronjobs/order-export.yaml`;
- a symbol where it was defined: `RetryPolicy@src/orderly/payments/retry.py` (a class,
  function, type ... defined in that file when the memory was written);
- a make target: `make up`.

`detect(title, body, root)` finds them in a memory's text at write time: paths named anywhere,
make targets and symbols named in code spans, each kept only when it resolves in the working tree
then (so prose is never taken for code). `check(memories, root)` tells, for this checkout, which
anchors no longer hold: a path gone (with its likely new name from git's rename detection), a
symbol no longer defined where it was (moved: `renamed_to` names the file that defines it now)
or anywhere, a make target gone. It reads the working tree and git's index and is cached by
their state (HEAD, the index's mtime, each file's stat), so a warm hook pays a few stats; git
runs only for what is broken or new. Nothing here writes a table: staleness belongs to the
checkout that reads, and outside a git checkout nothing is stale.

Standard library only (a hook imports this).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli.anchors.tree import (
    MAKEFILES,
    Renames,
    breaking_commit,
    checkout_root,
    definitions,
    git,
    git_root,
    git_word,
    head_state,
    inside,
    kind,
    make_targets,
    stat_key,
)

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, MemoryDraft

__all__ = [
    "Stale",
    "broken_by",
    "check",
    "checker",
    "checkout_root",
    "detect",
    "git_root",
    "hook_note",
    "normalise",
    "stale_dicts",
    "with_anchors",
    "with_anchors_many",
]


@dataclass(frozen=True)
class Stale:
    """One anchor that no longer holds in this checkout, and why."""

    anchor: str
    reason: str
    renamed_to: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"anchor": self.anchor, "reason": self.reason, "renamed_to": self.renamed_to}

    def describe(self) -> str:
        return f"{self.anchor}: {self.reason}"


# --- read time: the check ---------------------------------------------------------------------

_CACHE: dict[tuple[str, str, bool], tuple[Any, Stale | None]] = {}
_CACHE_LIMIT = 4096


def check(
    memories: Iterable[Any], root: Path | str | None, *, detail: bool = True
) -> dict[str, list[Stale]]:
    """Memory id -> its anchors that no longer hold in the checkout at `root` (absent: every
    anchor holds, or there is none). Outside a git checkout nothing is stale.

    Which anchors are broken never depends on `detail`; with it (the default) a broken one
    also says where it went (git's rename detection, a search for the symbol's definition:
    git runs). Without it nothing but stats and file reads: what a hook that starts a
    process per prompt can afford ("file no longer exists", "no longer defined in <file>")."""
    top = git_root(root)
    if top is None:
        return {}
    rows = [(m.id, tuple(getattr(m, "anchors", ()) or ())) for m in memories]
    if not any(anchors for _, anchors in rows):
        return {}
    state = head_state(top)
    verdicts = {a: _check_one(top, a, state, False, None) for _, anchors in rows for a in anchors}
    if detail:
        # What broke, said in full: git's renames read once, the broken symbols' definitions
        # looked up in one search, for every memory at once.
        context = _Detail(top, [a for a, found in verdicts.items() if found is not None])
        verdicts = {
            a: found and _check_one(top, a, state, True, context) for a, found in verdicts.items()
        }
    result: dict[str, list[Stale]] = {}
    for memory_id, anchors in rows:
        broken = [found for a in anchors if (found := verdicts[a]) is not None]
        if broken:
            result[memory_id] = broken
    return result


def detect(title: str, body: str, root: Path | str | None) -> tuple[str, ...]:
    """The anchors `title` and `body` name that resolve at `root` (anchors/finding.py)."""
    from graphit_cli.anchors import finding as found

    return found.detect(title, body, root)


def normalise(anchors: Iterable[str], root: Path | str | None) -> tuple[str, ...]:
    """Anchors given explicitly, normalised for the checkout at `root` (anchors/finding.py)."""
    from graphit_cli.anchors import finding as found

    return found.normalise(anchors, root)


def with_anchors(
    draft: MemoryDraft, root: Path | str | None, current: Memory | None = None
) -> MemoryDraft:
    """`draft` with its anchors resolved for the checkout at `root` (anchors/finding.py); a
    read never imports the detection."""
    from graphit_cli.anchors import finding as found

    return found.with_anchors(draft, root, current)


def with_anchors_many(
    drafts: Sequence[MemoryDraft], root: Path | str | None, current: Sequence[Memory | None]
) -> list[MemoryDraft]:
    """`with_anchors` for a batch, at the cost of one (anchors/finding.py)."""
    from graphit_cli.anchors import finding as found

    return found.with_anchors_many(drafts, root, current)


class _Detail:
    """What the detailed verdicts of one check share: the rename index and the definitions of
    every broken symbol (one `git grep` for all of them)."""

    def __init__(self, top: Path, broken: Sequence[str]) -> None:
        self.renames = Renames(top)
        names: set[str] = set()
        for anchor in broken:
            if kind(anchor) == "symbol":
                head, member, _ = parse(anchor)
                names.update((head, member) if member else (head,))
        self.defined = definitions(top, sorted(names)) if names else {}


def checker(root: Path | str | None) -> Any:
    """memory -> its broken anchors at `root` (None: all hold): what `render.staleness` takes
    where the memories to render are not known ahead (the MCP tools, the Explorer)."""
    return lambda memory: check([memory], root).get(memory.id)


def stale_dicts(found: Mapping[str, list[Stale]], memory_id: str) -> list[dict[str, Any]] | None:
    """The JSON contract's `stale` value for one memory: None when every anchor holds."""
    broken = found.get(memory_id)
    return [s.to_dict() for s in broken] if broken else None


def hook_note(broken: Sequence[Stale]) -> str:
    """The words a hook line adds for a stale memory (the recall helper renders the line)."""
    if not broken:
        return ""
    named = "; ".join(
        f"`{s.anchor}` {s.reason}" + (f" (now `{s.renamed_to}`?)" if s.renamed_to else "")
        for s in broken[:3]
    )
    return f"may be stale: {named}; check before acting, then update or verify it"


def parse(anchor: str) -> tuple[str, str | None, str]:
    """A symbol anchor's (name, member or None, file or ""): `Worker.run@src/worker.py` is
    ("Worker", "run", "src/worker.py")."""
    name, _, where = anchor.partition("@")
    head, _, member = name.partition(".")
    return head, member.split(".")[0] or None, where


def _outside(anchor: str, sort: str) -> bool:
    """Whether `anchor` names something outside the checkout (never stat'ed nor read)."""
    if sort == "path":
        return not inside(anchor)
    if sort == "symbol":
        where = anchor.partition("@")[2]
        return bool(where) and not inside(where)
    return False


def _check_one(
    top: Path, anchor: str, state: tuple[Any, ...], detail: bool, context: _Detail | None
) -> Stale | None:
    sort = kind(anchor)
    if _outside(anchor, sort):
        return None  # never in this checkout: nothing here can break it
    if sort == "path":
        key: Any = (state, stat_key(top / anchor) is not None)
    elif sort == "make":
        makefile = next((top / n for n in MAKEFILES if (top / n).is_file()), None)
        key = (makefile and stat_key(makefile),)
    else:
        where = anchor.partition("@")[2]
        key = (state, stat_key(top / where) if where else None)
    cache_key = (str(top), anchor, detail)
    cached = _CACHE.get(cache_key)
    if cached is not None and cached[0] == key:
        return cached[1]
    if detail and context is not None:
        found = _judge(top, anchor, sort, context)
    else:
        found = _quick(top, anchor, sort)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[cache_key] = (key, found)
    return found


def _quick(top: Path, anchor: str, sort: str) -> Stale | None:
    """`_judge` without git: the same verdict, less said about where things went."""
    if sort == "path":
        return None if (top / anchor).exists() else Stale(anchor, "file no longer exists")
    if sort == "make" or "@" not in anchor:
        if sort == "make":
            return _judge(top, anchor, sort, _Detail(top, ()))
        return None  # a bare name, never resolved: nothing to compare
    head, member, where = parse(anchor)
    missing = _missing(top, where, head, member)
    return None if missing is None else Stale(anchor, f"{missing} no longer defined in {where}")


def _missing(top: Path, where: str, head: str, member: str | None) -> str | None:
    """What of `head`(.`member`) the file `where` no longer defines (None: all of it, or the
    file cannot be read: too large, binary, not a regular file)."""
    from graphit_cli.anchors.languages import defines, read_text

    path = top / where
    if not path.exists():
        return head
    text = read_text(path)
    if text is None:
        return None
    if not defines(where, text, head):
        return head
    if member and not defines(where, text, member, member=True):
        return f"{head}.{member}"
    return None


def _judge(top: Path, anchor: str, sort: str, context: _Detail) -> Stale | None:
    if sort == "path":
        if (top / anchor).exists():
            return None
        new = context.renames.of(anchor)
        if new:
            return Stale(anchor, f"renamed to {new}", new)
        return Stale(anchor, "file no longer exists")
    if sort == "make":
        target = anchor.split(None, 1)[1]
        if target in make_targets(top):
            return None
        return Stale(anchor, "make target no longer defined")
    head, member, where = parse(anchor)
    if where:
        missing = _missing(top, where, head, member)
        if missing is None:
            return None
    else:
        missing = head
    name = member if member and missing != head else head
    elsewhere = context.defined.get(name)
    if elsewhere and not where:
        return None
    if elsewhere:
        return Stale(
            anchor, f"{missing} no longer defined in {where}; defined in {elsewhere}", elsewhere
        )
    if where and not (top / where).exists():
        new = context.renames.of(where)
        if new:
            return Stale(anchor, f"{missing} no longer defined anywhere; {where} renamed to {new}")
    return Stale(anchor, f"{missing} no longer defined anywhere")


def broken_by(root: Path | str | None, stale: Stale) -> str | None:
    """`<short sha> <subject>` of the commit that broke `stale`'s anchor, from git."""
    top = git_root(root)
    if top is None:
        return None
    sort = kind(stale.anchor)
    if _outside(stale.anchor, sort):
        return None
    if sort == "path":
        commit = breaking_commit(top, stale.anchor)
    elif sort == "make":
        target = stale.anchor.split(None, 1)[1]
        makefile = next((n for n in MAKEFILES if (top / n).exists()), "Makefile")
        commit = breaking_commit(top, makefile, f"^{re.escape(target)}[[:space:]]*:")
    else:
        head, member, where = parse(stale.anchor)
        word = member if member and stale.reason.startswith(f"{head}.{member} ") else head
        commit = breaking_commit(top, where or ".", git_word(word))
    if commit is None:
        return None
    out = git(top, "log", "-1", "--format=%h %s", commit)
    return out.strip() if out else commit[:12]
