"""The mandatory memories of a scope, kept beside its table: session start without LanceDB.

Session start must print every mandatory memory within its budget, also while the daemon is
frozen, absent or starting and the hook's own process would need half a second or more just to
import LanceDB. So each scope's mandatory memories are kept as a small JSON block under
GRAPHIT_HOME/state/mandatory/ (0600; one file per scope, named by a hash of the scope), with
the table they were read from and its version:

- every commit of the service refreshes it (`watching.Watching`, the store of the Writer, the
  Upkeep and the SecretSweep): a commit whose rows carry a mandatory flag (before or after)
  or an id the block lists re-reads the mandatory memories; any other commit (a memory that
  is not mandatory, embeddings, folds, maintenance) moves the block's version along when the
  block was current before it, and while such commits land (a daemon's maintenance takes
  seconds) the block says so (`quiet`), so it is still trusted;
- every session start that reads the table (a warm process, or the hook in-process) writes
  what it read (`refresh`);
- the hook (`warm/hook.py`) reads the blocks (`load`) and checks each against its table: a
  local table's version is the newest manifest in its `_versions` directory (read with the
  standard library), so a block is `fresh` when it was read at that version. A stale block is
  refreshed by asking the table first, and printed as it is when no answer comes in time
  (better the mandatory memories as they were than none). A remote (S3) table's version is not
  known without a request: its block, a local cache, is served as is and refreshed whenever a
  process of this machine reads or writes the table.
Standard library and the core's models only, at import: the hook imports it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli.core.models import Memory

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.store.base import Store

FORMAT = 1
MAX_VERSION = (1 << 64) - 1  # Lance's newer manifest names count down from here


def blocks_dir() -> str:
    from graphit_cli.access.fingerprint import graphit_home

    return os.path.join(graphit_home(), "state", "mandatory")


def block_path(scope: Scope | str) -> str:
    digest = hashlib.sha256(str(scope).encode()).hexdigest()[:32]
    return os.path.join(blocks_dir(), f"{digest}.json")


QUIET_SECONDS = 600.0  # the longest a commit that changes no mandatory memory is trusted


@dataclass(frozen=True)
class Block:
    scope: str
    uri: str
    version: int
    memories: list[Memory]
    quiet: tuple[int, float] | None = None  # (pid, since): that process is committing what
    # changes no mandatory memory (embeddings, maintenance), and carries the block after

    @property
    def ids(self) -> set[str]:
        return {m.id for m in self.memories}


def local_version(uri: str) -> int | None:
    """A local table's current version, from its manifests' names (Lance's two naming
    schemes: `<version>.manifest`, or `<2^64-1 - version>.manifest` counting down); None for
    a remote URI or no table."""
    if "://" in uri:
        return None
    try:
        names = os.listdir(os.path.join(uri, "memory.lance", "_versions"))
    except OSError:
        return None
    numbers = [int(n[:-9]) for n in names if n.endswith(".manifest") and n[:-9].isdigit()]
    if not numbers:
        return None
    newest = min(numbers)
    if newest > MAX_VERSION // 2:  # counting down: the smallest name is the newest version
        return MAX_VERSION - newest
    return max(numbers)


def load(scope: Scope | str) -> Block | None:
    """The block kept for `scope`, or None (none, unreadable, another format)."""
    from graphit_cli.core import codec

    try:
        with open(block_path(scope), encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("format") != FORMAT or data.get("scope") != str(scope):
            return None
        memories = [codec.decode(Memory, m) for m in data["memories"]]
        quiet = data.get("quiet")
        held = (int(quiet[0]), float(quiet[1])) if isinstance(quiet, list) else None
        return Block(str(scope), str(data["uri"]), int(data["version"]), memories, held)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def fresh(block: Block, uri: str | None = None) -> bool:
    """Whether `block` is what its table holds now, as far as this machine can tell without
    opening it: a local table at the block's version (and at the URI expected, when given)."""
    if uri is not None and block.uri != uri:
        return False
    now = local_version(block.uri)
    if now == block.version:
        return True
    # Newer commits, all of them by a process that changes no mandatory memory and is still
    # at it (a daemon's embedding pass or maintenance): the block stays what the table holds.
    if now is None or now < block.version or block.quiet is None:
        return False
    import time

    pid, since = block.quiet
    return time.time() - since < QUIET_SECONDS and _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's: it exists
    return True


def save(
    scope: Scope | str,
    uri: str,
    version: int,
    memories: list[Memory],
    quiet: tuple[int, float] | None = None,
) -> None:
    """Keep `memories` as `scope`'s block at `version`, unless the block kept is newer (two
    writers: the later version stays). Never raises: the block is a cache."""
    from graphit_cli.access import statefile
    from graphit_cli.core import codec

    path = block_path(scope)
    data: dict[str, Any] = {
        "format": FORMAT,
        "scope": str(scope),
        "uri": uri,
        "version": version,
        "memories": [codec.encode(m, frozenset({"embedding"})) for m in memories],
    }
    if quiet is not None:
        data["quiet"] = list(quiet)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with statefile.locked(Path(path)):
            kept = load(scope)
            if kept is not None and kept.uri == uri and kept.version > version:
                return
            statefile.write_json(Path(path), data, mode=0o600)
    except (OSError, ValueError):
        pass


def refresh(store: Store, scope: Scope) -> list[Memory]:
    """The scope's live mandatory memories, read at one version, kept as its block."""
    from graphit_cli.core import ordering
    from graphit_cli.core.models import MemoryFilter

    with store.snapshot():
        version = store.version()
        memories = ordering.canonical_sort(store.live(MemoryFilter(mandatory=True)), lambda m: m)
    save(scope, store.uri, version, memories)
    return memories


def quiet(scope: Scope, uri: str, before: int) -> None:
    """This process starts commits that change no mandatory memory: the block, when it is
    current at `before`, stays trusted while they land (`fresh`), until `carry`."""
    import time

    kept = load(scope)
    if kept is not None and kept.uri == uri and kept.version == before:
        save(scope, uri, before, kept.memories, (os.getpid(), time.time()))


def carry(scope: Scope, uri: str, before: int, after: int) -> None:
    """A commit from `before` to `after` that changed no mandatory memory: the block, when it
    was current at `before`, is current at `after` too (and no longer `quiet`)."""
    kept = load(scope)
    if kept is not None and kept.uri == uri and kept.version == before and after >= before:
        save(scope, uri, after, kept.memories)
