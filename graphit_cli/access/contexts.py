"""The registry of named contexts: which contexts this machine knows, and what each one is.

A context is either imported (`--from PATH`: the file or folder is imported into the local
table `memory-context-NAME/`, and `refresh` imports it again) or attached (`--project ULID`:
another project's table, read-only; in S3 mode that project's table is opened directly).
`--recall` makes its mandatory memories part of `graphit memory recall`.

Metadata (source, kind, recall flag, last refresh) lives in `contexts.json` beside the
scope-reference lock under GRAPHIT_HOME, written atomically under a file lock. Removing a
context prunes its local table and lock entry (an attached project's table is never touched).
The use-cases that fill and remove contexts live in `portability.contexts`; this registry is
what opening a scope and naming one on the command line need, so it imports no service.
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

from graphit_cli import config
from graphit_cli.access.scopes import Scope
from graphit_cli.errors import InvalidInput, NotFound

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
def locked() -> Iterator[dict[str, Context]]:
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


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- what other parts ask ---------------------------------------------------------------


def attached_project(scope: Scope) -> str | None:
    """The project ULID a context scope is attached to, if it is an attachment."""
    if scope.kind != "context":
        return None
    entry = read_all().get(scope.id)
    return entry.source if entry is not None and entry.kind == ATTACHED else None


def recall_contexts() -> list[Context]:
    """The contexts whose mandatory memories are part of `graphit memory recall`."""
    return [c for _, c in sorted(read_all().items()) if c.recall]
