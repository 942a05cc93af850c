"""The model, for a command that works in-process: a write's vectors, a search's query.

A write embeds the rows it writes before its commit (`service.vectors.WriteVectors`, up to a
bound): the model loads, and embeds the batch's first texts, on a thread while the table opens;
a bar shows on a terminal while a larger batch embeds, and rows left without vectors (a model
that cannot load) are said on stderr. A search hands its query to the model before the table
opens. cli/client.py uses these when no daemon answers; so do the context commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from graphit_cli.service.vectors import WriteVectors


def write_vectors(texts: list[str] | None = None, *, expected: int | None = None) -> WriteVectors:
    """What an in-process write embeds its rows with: the default model, loading (and
    embedding `texts`, the batch's first new memories) on a thread from now on, while the
    table opens. A model that cannot load leaves the rows without vectors and says so."""
    from graphit_cli.embed import load_default
    from graphit_cli.service.vectors import WriteVectors

    vectors = WriteVectors(load_default)
    vectors.start(texts or (), expected=expected)
    return vectors


@contextmanager
def embedding_bar(vectors: WriteVectors) -> Iterator[None]:
    """A bar on a terminal while a batch's rows are embedded (more than a few of them)."""
    from graphit_cli.cli.progress import bar

    with bar("embedding", minimum=EMBED_BAR_MINIMUM) as progress:
        vectors.progress = progress
        yield


EMBED_BAR_MINIMUM = 16


def say_notice(vectors: WriteVectors, warn: Callable[[str], None]) -> None:
    notice = vectors.notice()
    if notice:
        warn(notice)


def expect_query(query: str) -> None:
    """Hand the query to the embedding model before the table opens: the light runtime builds
    its session and embeds the query without the GIL while `import lance` and the table's
    opening run (~0.2 s off a cold hybrid search). Only a head start: a model that cannot load
    is left to the search itself, which knows whether it needs one (a table without vectors
    does not) and says why it cannot."""
    from graphit_cli import embed
    from graphit_cli.errors import InvalidInput

    try:
        embed.expect_query(query)
    except InvalidInput:
        pass
