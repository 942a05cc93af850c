"""Named contexts: another body of memory attached to this machine under a name.

A context is either imported (`--from PATH`: the file or folder is imported into the local
table `memory-context-NAME/`, and `refresh` imports it again) or attached (`--project ULID`:
another project's table, read-only; in S3 mode that project's table is opened directly).
`--recall` makes its mandatory memories part of `graphit memory recall`.

Metadata (source, kind, recall flag, last refresh) lives in `contexts.json` beside the
scope-reference lock under GRAPHIT_HOME, written atomically under a file lock. Removing a
context prunes its local table and lock entry (an attached project's table is never touched).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from graphit_cli import config, scopes
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, NotFound
from graphit_cli.scopes import Scope

if TYPE_CHECKING:
    from graphit_cli.portability.importer import Progress
    from graphit_cli.portability.model import ImportReport
    from graphit_cli.service import MemoryService

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
IMPORTED = "import"
ATTACHED = "project"


@dataclass(frozen=True)
class Context:
    name: str
    kind: str  # "import" (a local table filled from `source`) or "project" (attached)
    source: str  # the imported path (absolute), or the attached project's ULID
    format: str = "auto"
    recall: bool = False
    refreshed_at: str | None = None

    @property
    def scope(self) -> Scope:
        return Scope("context", self.name)


def validate_name(name: str) -> str:
    if not _NAME.fullmatch(name) or ".." in name:
        raise InvalidInput(
            f"invalid context name {name!r}: lowercase letters, digits and . _ - "
            "(starting with a letter or digit, at most 64)"
        )
    return name


def metadata_path() -> Path:
    return config.memory_root() / "contexts.json"


def read_all() -> dict[str, Context]:
    path = metadata_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        raise InvalidInput(f"{path} is not valid JSON: fix or remove it") from None
    entries = data.get("contexts", {}) if isinstance(data, dict) else {}
    found = {}
    for name, raw in (entries if isinstance(entries, dict) else {}).items():
        try:
            found[name] = Context(**{k: raw[k] for k in raw if k in Context.__dataclass_fields__})
        except TypeError:
            continue  # a hand-edited entry missing fields: ignored, not fatal
    return found


def get(name: str) -> Context:
    found = read_all().get(validate_name(name))
    if found is None:
        raise NotFound(f"no context {name!r} (see `graphit memory context list`)")
    return found


def require(scope: Scope) -> None:
    """A context named on the command line must exist: added with `context add`, or already
    holding a table. A typo is refused instead of becoming a new, empty table."""
    if scope.id in read_all() or scope.local_path().exists():
        return
    raise NotFound(
        f"no context {scope.id!r} (see `graphit memory context list`; "
        "`graphit memory context add` creates one)"
    )


@contextmanager
def _locked() -> Iterator[dict[str, Context]]:
    """Read-modify-write of the metadata file under a lock; written atomically on exit."""
    import fcntl

    path = metadata_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".json.guard"), "a+") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        try:
            entries = read_all()
            yield entries
            payload = {"version": 1, "contexts": {n: asdict(c) for n, c in entries.items()}}
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".contexts.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(payload, indent=2, sort_keys=True) + "\n")
            os.replace(tmp, path)
        finally:
            fcntl.flock(guard, fcntl.LOCK_UN)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- opening --------------------------------------------------------------------------------


def attached_project(scope: Scope) -> str | None:
    """The project ULID a context scope is attached to, if it is an attachment."""
    if scope.kind != "context":
        return None
    entry = read_all().get(scope.id)
    return entry.source if entry is not None and entry.kind == ATTACHED else None


# --- the use-cases --------------------------------------------------------------------------


def add(
    name: str,
    *,
    source: Path | None = None,
    project: str | None = None,
    recall: bool = False,
    fmt: str = "auto",
    progress: Progress | None = None,
) -> tuple[Context, ImportReport | None]:
    """Import `source` into a new context, or attach `project`'s table under `name`."""
    from graphit_cli.service import MemoryService

    name = validate_name(name)
    if (source is None) == (project is None):
        raise InvalidInput("give exactly one of --from PATH or --project ULID")
    if name in read_all() or Scope("context", name).local_path().exists():
        raise Conflict(
            f"context {name!r} already exists: `graphit memory context refresh {name}` "
            f"re-imports it, `graphit memory context remove {name}` removes it"
        )
    if project is not None:
        project = scopes.validate_ulid(project)
        MemoryService.open(Scope("project", project), create=False)  # must exist
        entry = Context(name, ATTACHED, project, recall=recall, refreshed_at=_now())
        with _locked() as entries:
            entries[name] = entry
        return entry, None
    assert source is not None
    resolved = source.expanduser().resolve()
    if not resolved.exists():
        raise InvalidInput(f"no such file or folder: {source}")
    entry = Context(name, IMPORTED, str(resolved), fmt, recall)
    try:
        report = _import(entry, progress)
    except GraphitError:
        # Nothing was imported (an unreadable source, nothing in it): no half-made context.
        leftover = _plan_or_none(entry.scope)
        if leftover is not None:
            scopes.prune(leftover)
        raise
    entry = Context(name, IMPORTED, str(resolved), fmt, recall, _now())
    with _locked() as entries:
        entries[name] = entry
    return entry, report


def _import(entry: Context, progress: Progress | None) -> ImportReport:
    from graphit_cli.portability import importer
    from graphit_cli.service import MemoryService

    service = MemoryService.open(entry.scope)
    return importer.run(service, Path(entry.source), fmt=entry.format, progress=progress)


def refresh(name: str, *, progress: Progress | None = None) -> tuple[Context, ImportReport | None]:
    """Import the context's source again: changed items become new revisions, nothing is
    duplicated. An attached project needs no refresh (it is read where it lives)."""
    entry = get(name)
    if entry.kind == ATTACHED:
        return entry, None
    report = _import(entry, progress)
    with _locked() as entries:
        current = entries.get(name, entry)
        entries[name] = Context(**{**asdict(current), "refreshed_at": _now()})
    return entries[name], report


def remove(name: str) -> str:
    """Prune an imported context's local table and lock entry; detach an attached one.
    Returns what was removed, in `prune`'s words."""
    name = validate_name(name)
    entry = read_all().get(name)
    scope = Scope("context", name)
    if entry is not None and entry.kind == ATTACHED:
        described = f"the attachment of project {entry.source} (its table stays)"
    else:
        plan = scopes.plan_prune(scope) if entry is None else _plan_or_none(scope)
        described = plan.describe() if plan is not None else "the context's record"
        if plan is not None:
            scopes.prune(plan)
    with _locked() as entries:
        entries.pop(name, None)
    return described


def _plan_or_none(scope: Scope) -> scopes.PrunePlan | None:
    try:
        return scopes.plan_prune(scope)
    except NotFound:
        return None


def listing() -> list[tuple[Context, int | None]]:
    """Every context with its number of live memories (None when its table is missing)."""
    from graphit_cli.service import MemoryService

    found = []
    for name in sorted(read_all()):
        entry = read_all()[name]
        try:
            count: int | None = len(MemoryService.open(entry.scope, create=False).catalogue())
        except GraphitError:
            count = None
        found.append((entry, count))
    return found


def recall_contexts() -> list[Context]:
    return [c for _, c in sorted(read_all().items()) if c.recall]


def service_for(entry: Context) -> MemoryService:
    from graphit_cli.service import MemoryService

    return MemoryService.open(entry.scope, create=False)
