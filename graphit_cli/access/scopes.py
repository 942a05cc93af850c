"""Scope identity, local table paths, the project lock, and the scope-reference lock.

A scope is `(kind, id)`: `project` (id = the project's ULID, found through `graphit.lock.json`),
`user` (the authenticated subject, or the reserved `anonymous`), or an imported context
`context:<name>`. Every id is validated (`ids`) before it can reach a path or a URI.

A leaf below `providers`: who the user is, and so what `--scope user` means, is the provider's
answer (`providers.resolve_scope`); this module never asks.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from graphit_cli import config, environ
from graphit_cli.access import runstate, statefile
from graphit_cli.core.ids import validate_safe_id as validate_safe_id
from graphit_cli.core.ids import validate_ulid as validate_ulid
from graphit_cli.errors import InvalidInput, NoProject

ANONYMOUS = "anonymous"
SCOPE_KINDS = ("project", "user", "context")


@dataclass(frozen=True)
class Scope:
    kind: str
    id: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.id}"

    @property
    def table_dir_name(self) -> str:
        return f"memory-{self.kind}-{self.id}"

    def local_path(self) -> Path:
        return config.memory_root() / self.table_dir_name


def is_remote_uri(uri: str) -> bool:
    """Whether a table URI (as recorded in the scope-reference lock) is remote: `prune` of such
    a scope removes only local state, never the table another machine may still use."""
    return "://" in uri and not uri.startswith("file://")


def read_project_id(lock_file: Path) -> str:
    try:
        data = json.loads(lock_file.read_text(encoding="utf-8"))
        raw = data["project"]["id"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InvalidInput(
            f'{lock_file}: not a graphit lock file (expected {{"project": {{"id": "<ULID>"}}}})'
        ) from None
    if not isinstance(raw, str):
        raise InvalidInput(f"{lock_file}: project.id must be a string")
    return validate_ulid(raw)


def current_project_id(start: Path | None = None) -> str:
    override = os.environ.get(environ.ENV_PROJECT_ID, "").strip()
    if override:
        return validate_ulid(override, f"{environ.ENV_PROJECT_ID}")
    lock_file = config.find_project_lock(start)
    if lock_file is None:
        raise NoProject(
            "not inside a graphit project (no graphit.lock.json here or above): "
            "run `graphit init`, set GRAPHIT_PROJECT_ID, or use --user"
        )
    return read_project_id(lock_file)


def init_project(directory: Path) -> tuple[str, bool]:
    """Create `graphit.lock.json` in `directory`; return (project id, created?)."""
    from ulid import ULID

    lock_file = directory / environ.PROJECT_LOCK_FILE
    if lock_file.exists():
        return read_project_id(lock_file), False
    project_id = str(ULID())
    payload = json.dumps({"project": {"id": project_id}}, indent=2) + "\n"
    try:
        with open(lock_file, "x", encoding="utf-8") as handle:  # never clobber a racing init
            handle.write(payload)
    except FileExistsError:
        return read_project_id(lock_file), False
    except OSError as exc:
        raise InvalidInput(f"cannot write {lock_file}: {exc.strerror}") from None
    return project_id, True


def parse_scope_ref(value: str) -> Scope:
    """Parse the `kind:id` form recorded in the scope-reference lock (and taken by `prune`)."""
    kind, sep, ident = value.partition(":")
    if not sep or kind not in SCOPE_KINDS:
        raise InvalidInput(
            f"invalid scope {value!r}: expected project:<ULID>, user:<id> or context:<name>"
        )
    if kind == "project":
        return Scope(kind, validate_ulid(ident))
    return Scope(kind, validate_safe_id(ident, f"{kind} id"))


# --- the scope-reference lock -------------------------------------------------------------


def scopes_lock_path() -> Path:
    return config.memory_root() / "scopes.lock"


def read_scope_refs() -> dict[str, dict[str, str]]:
    path = scopes_lock_path()
    try:
        data = statefile.read_json(path)
    except (OSError, ValueError):
        raise InvalidInput(f"{path} is not valid JSON: fix or remove it") from None
    scopes = data.get("scopes", {}) if isinstance(data, dict) else {}
    return scopes if isinstance(scopes, dict) else {}


def _write_scope_refs(scopes: dict[str, dict[str, str]]) -> None:
    statefile.write_json(scopes_lock_path(), {"version": 1, "scopes": scopes})


# `scopes` LAST USED and the active window need minutes, not seconds: a burst of commands on
# one scope writes the lock once.
USE_RESOLUTION = timedelta(minutes=1)


def record_scope_use(scope: Scope, uri: str, now: datetime | None = None) -> None:
    """Note that this machine uses `scope` now (at most one write a minute per scope)."""
    moment = now or datetime.now(UTC)
    if _recorded_recently(read_scope_refs().get(str(scope)), uri, moment):
        return
    with statefile.locked(scopes_lock_path()):
        refs = read_scope_refs()
        if _recorded_recently(refs.get(str(scope)), uri, moment):
            return  # another process recorded it meanwhile
        refs[str(scope)] = {
            "scope": str(scope),
            "uri": uri,
            "last_used": moment.isoformat(timespec="seconds"),
        }
        _write_scope_refs(refs)


def _recorded_recently(entry: dict[str, str] | None, uri: str, moment: datetime) -> bool:
    if not entry or entry.get("uri") != uri:
        return False
    last = _last_used(entry)
    return last is not None and timedelta(0) <= moment - last < USE_RESOLUTION


def _last_used(entry: dict[str, str]) -> datetime | None:
    try:
        moment = datetime.fromisoformat(entry["last_used"])
    except (KeyError, TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def recent_scopes(
    window: timedelta, *, used_since: datetime | None = None, now: datetime | None = None
) -> list[Scope]:
    """Recorded scopes last used within `window` (or at/after `used_since`), in name order.
    Entries that do not parse are skipped (a hand-edited lock never stops the daemon)."""
    moment = now or datetime.now(UTC)
    found = []
    for ref, entry in sorted(read_scope_refs().items()):
        last = _last_used(entry) if isinstance(entry, dict) else None
        if last is None:
            continue
        recent = used_since is not None and last >= used_since.replace(microsecond=0)
        if moment - last > window and not recent:
            continue
        try:
            found.append(parse_scope_ref(ref))
        except InvalidInput:
            continue
    return found


def forget_scope(scope: Scope) -> bool:
    with statefile.locked(scopes_lock_path()):
        scopes = read_scope_refs()
        removed = scopes.pop(str(scope), None) is not None
        if removed:
            _write_scope_refs(scopes)
    return removed


# --- pruning ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrunePlan:
    """What `prune` removes: a local table directory, or only this machine's record of a
    remote table (another machine may still use it; it is never deleted from here)."""

    scope: Scope
    uri: str
    local: Path | None

    def describe(self) -> str:
        if self.local is not None:
            return f"the local table {self.uri}"
        return f"the record of {self.uri} (the remote table stays)"


def plan_prune(scope: Scope) -> PrunePlan:
    from graphit_cli.errors import NotFound

    recorded = read_scope_refs().get(str(scope))
    uri = recorded["uri"] if recorded else str(scope.local_path())
    local = None if is_remote_uri(uri) else Path(uri)
    if recorded is None and (local is None or not local.exists()):
        raise NotFound(f"no scope {scope} on this machine (see `graphit memory scopes`)")
    if local is not None and local.resolve().parent != config.memory_root().resolve():
        raise NotFound(f"{uri} is not under {config.memory_root()}: refusing to remove it")
    return PrunePlan(scope, uri, local)


def prune(plan: PrunePlan) -> None:
    if plan.local is not None and plan.local.exists():
        _remove_tree(plan.local)
    forget_scope(plan.scope)
    runstate.forget_pass(str(plan.scope))


def _remove_tree(path: Path, attempts: int = 20) -> None:
    """Remove a table directory that a running daemon may be writing into at that moment (an
    index file landing in `_indices/` makes `rmtree` fail with "Directory not empty"): try
    again until it is gone, a bounded number of times; the last failure is raised."""
    import shutil
    import time

    for attempt in range(attempts):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
