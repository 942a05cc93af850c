"""What the service's collaborators share: one read view, chain checks, backoff.

`MemoryService` (memory.py) is composed of collaborators with one job each: the write path
(`Writer`, writes.py), reads and search (`Reader`, reads.py), embeddings and maintenance
(`Upkeep`, upkeep.py) and the duplicate guard (`DuplicateGuard`, duplicates.py). Each takes
the store it works on. Must not import Typer or Rich.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.errors import NotFound, TableDamaged

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.store.base import Store

MAX_ATTEMPTS = 30

EmbedderFactory = Callable[[], "Embedder | None"]
Clock = Callable[[], datetime]


def embedder_for(factory: EmbedderFactory, model_id: str) -> Embedder | None:
    """The embedder whose vectors share `model_id`'s space (a table's recorded model): the
    process's own when it is that model, else that model's installed backend
    (`embed.load_for_model`), else None. A vector of one model is never compared with
    another model's."""
    own = factory()
    if own is not None and own.model_id == model_id:
        return own
    from graphit_cli.embed import load_for_model

    return load_for_model(model_id)


class _OnStore(Protocol):
    store: Store


_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T")


# Whether this thread (or request context) already runs inside a `one_view`.
_IN_VIEW: ContextVar[bool] = ContextVar("graphit-in-view", default=False)
# How often a read that met a missing or unreadable file looks again at the newest commit
# before the table is called damaged, and the pause before each look.
DAMAGE_LOOKS = 3
DAMAGE_PAUSE_SECONDS = 0.2


def one_view(method: _F) -> _F:
    """A read-only use-case: its reads share one look for newer commits (`Store.snapshot`).

    A file missing or unreadable under a read is, while other processes commit, most often a
    version that moved on under it (its files compacted or cleaned up), not damage: the whole
    use-case runs again in a new view, at the newest commit, before the table is called
    damaged (`reread_on_damage`)."""

    @functools.wraps(method)
    def wrapper(self: _OnStore, *args: Any, **kwargs: Any) -> Any:
        def once() -> Any:
            with self.store.snapshot():
                return method(self, *args, **kwargs)

        if _IN_VIEW.get():
            return once()  # the outermost view looks again, not each nested one
        token = _IN_VIEW.set(True)
        try:
            return reread_on_damage(once)
        finally:
            _IN_VIEW.reset(token)

    return wrapper  # type: ignore[return-value]


def reread_on_damage(attempt: Callable[[], _T]) -> _T:
    """`attempt()`, run again at the newest commit when it meets what looks like damage
    (TableDamaged); the damage is said only when every look meets it."""
    for look in range(DAMAGE_LOOKS):
        try:
            return attempt()
        except TableDamaged:
            if look == DAMAGE_LOOKS - 1:
                raise
            time.sleep(DAMAGE_PAUSE_SECONDS * (look + 1))
    raise AssertionError("unreachable")


def restoring(old: Memory, *, anchors: bool = False) -> MemoryDraft:
    """The draft that makes revision `old` current again: its text, type, tags and flags;
    with `anchors`, its anchors too (an approved proposal lands as it was proposed), else the
    live row's anchors stay."""
    return MemoryDraft(
        id=old.id,
        title=old.title,
        body=old.body,
        type=old.type,
        tags=old.tags,
        important=old.important,
        mandatory=old.mandatory,
        anchors=old.anchors if anchors else None,
    )


def phantom(live: Memory | None, tail: Memory | None) -> bool:
    """A live row in a chain that a delete closed: written by a writer that lost the race."""
    return live is not None and tail is not None and not tail.is_live and tail.next is None


def missing(memory_id: str, tail: Memory | None) -> NotFound:
    if tail is not None:
        return NotFound(f"memory {memory_id} was deleted (its final revision is {tail.key})")
    return NotFound(f"no memory {memory_id}")


def backoff(attempt: int) -> None:
    """Jittered exponential backoff for a lost compare-and-swap: 10 ms doubling, at most 1 s."""
    time.sleep(random.uniform(0, min(1.0, 0.01 * (2**attempt))))
