"""Named contexts, the use-cases: add (import a file or folder, or attach another project),
refresh, remove and list. What a context is, and the registry in `contexts.json`, live in
`context_registry`.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from graphit_cli.access import scopes
from graphit_cli.access.scopes import Scope
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, NotFound

if TYPE_CHECKING:
    from graphit_cli.portability.importer import Progress
    from graphit_cli.portability.model import ImportReport
    from graphit_cli.service.vectors import WriteVectors

from graphit_cli.access.contexts import ATTACHED, IMPORTED, Context, get, locked, now, read_all
from graphit_cli.access.contexts import validate_name as validate_name

# --- the use-cases --------------------------------------------------------------------------


def add(
    name: str,
    *,
    source: Path | None = None,
    project: str | None = None,
    recall: bool = False,
    fmt: str = "auto",
    progress: Progress | None = None,
    vectors: WriteVectors | None = None,
) -> tuple[Context, ImportReport | None]:
    """Import `source` into a new context, or attach `project`'s table under `name`. With
    `vectors`, the imported rows are written with their vectors (as `import` writes them)."""
    from graphit_cli.opening import open_service

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
        open_service(Scope("project", project), create=False)  # must exist
        entry = Context(name, ATTACHED, project, recall=recall, refreshed_at=now())
        with locked() as entries:
            entries[name] = entry
        return entry, None
    assert source is not None
    resolved = source.expanduser().resolve()
    if not resolved.exists():
        raise InvalidInput(f"no such file or folder: {source}")
    entry = Context(name, IMPORTED, str(resolved), fmt, recall)
    try:
        report = _import(entry, progress, vectors)
    except GraphitError:
        # Nothing was imported (an unreadable source, nothing in it): no half-made context.
        leftover = _plan_or_none(entry.scope)
        if leftover is not None:
            scopes.prune(leftover)
        raise
    entry = Context(name, IMPORTED, str(resolved), fmt, recall, now())
    with locked() as entries:
        entries[name] = entry
    return entry, report


def _import(
    entry: Context, progress: Progress | None, vectors: WriteVectors | None
) -> ImportReport:
    from graphit_cli.opening import open_service
    from graphit_cli.portability import importer

    service = open_service(entry.scope)
    if vectors is not None:
        service = service.writing(vectors=vectors)
    return importer.run(service, Path(entry.source), fmt=entry.format, progress=progress)


def refresh(
    name: str, *, progress: Progress | None = None, vectors: WriteVectors | None = None
) -> tuple[Context, ImportReport | None]:
    """Import the context's source again: changed items become new revisions, nothing is
    duplicated. An attached project needs no refresh (it is read where it lives). `vectors`
    as in `add`."""
    entry = get(name)
    if entry.kind == ATTACHED:
        return entry, None
    report = _import(entry, progress, vectors)
    with locked() as entries:
        current = entries.get(name, entry)
        entries[name] = Context(**{**asdict(current), "refreshed_at": now()})
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
    with locked() as entries:
        entries.pop(name, None)
    return described


def _plan_or_none(scope: Scope) -> scopes.PrunePlan | None:
    try:
        return scopes.plan_prune(scope)
    except NotFound:
        return None


def listing() -> list[tuple[Context, int | None, str | None]]:
    """Every context with its number of live memories (None when its table is missing or
    cannot be read) and, for one that cannot be read, why (a damaged table is reported on
    its own line; it never fails the listing of the others)."""
    from graphit_cli.errors import NoTable, in_words
    from graphit_cli.opening import open_service

    found = []
    entries = read_all()
    for name in sorted(entries):
        entry = entries[name]
        count: int | None = None
        why: str | None = None
        try:
            count = len(open_service(entry.scope, create=False).catalogue())
        except NoTable:
            pass
        except GraphitError as exc:
            why = exc.message if not exc.message.startswith("no memory table") else None
        except Exception as exc:  # a bug in one context: said there, the others still listed
            why = f"internal error: {in_words(exc)}"
        found.append((entry, count, why))
    return found
