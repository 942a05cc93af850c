"""The Explorer's catalogue: one page of a scope's live memories, with its facets.

`Browser` is one of `MemoryService`'s collaborators (see memory.py), over the scope's `Reader`
(a query is the reader's search). Must not import Typer or Rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphit_cli.core import ordering
from graphit_cli.core.models import CatalogueEntry, CataloguePage, LiveSummary, MemoryFilter
from graphit_cli.errors import InvalidInput
from graphit_cli.service.common import one_view

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory
    from graphit_cli.service.reads import Reader

BROWSE_TOP_K = 100  # memories the Explorer's search box selects (as `search --top-k 100`)


class Browser:
    """Pages of one scope's live catalogue, by the reader's table and search."""

    def __init__(self, reader: Reader) -> None:
        self.store = reader.store
        self.search = reader.search
        # The live index, by the table version it was read at (`_live_index`).
        self._index_cache: tuple[int, list[LiveSummary]] | None = None

    def _live_index(self) -> list[LiveSummary]:
        """The store's live index, reused while the table has not moved (a version check costs
        ~0.1 ms; the index ~30-100 ms at 10k rows). The version is read first: a write landing
        in between only makes the cached index look older than it is."""
        version = self.store.version()
        cached = self._index_cache
        if cached is not None and cached[0] == version:
            return cached[1]
        index = self.store.live_index()
        self._index_cache = (version, index)
        return index

    @one_view
    def browse(
        self,
        query: str = "",
        *,
        memory_type: str | None = None,
        tag: str | None = None,
        important: bool | None = None,
        mandatory: bool | None = None,
        limit: int = 50,
        offset: int = 0,
        top_k: int = BROWSE_TOP_K,
    ) -> CataloguePage:
        """One page of the live catalogue, with its total and the scope's type and tag facets.

        Without a query: live memories in canonical order. With one: the search's selection
        of `top_k` memories (as `search --top-k`), in canonical order, with snippet and score;
        pages slice that one selection, so they never overlap. `memory_type` and `tag`
        compare case-insensitively; the facets cover every live memory of the scope, before
        filtering.
        """
        if limit < 1 or offset < 0:
            raise InvalidInput("limit must be positive and offset must not be negative")
        index = self._live_index()
        types = sorted({m.type for m in index})
        tags = sorted({t for m in index for t in m.tags})
        wanted_type = memory_type.strip().casefold() if memory_type else None
        wanted_tag = tag.strip().casefold() if tag else None

        def keep(memory: Memory | LiveSummary) -> bool:
            if wanted_type is not None and memory.type.casefold() != wanted_type:
                return False
            if important is not None and memory.important != important:
                return False
            if mandatory is not None and memory.mandatory != mandatory:
                return False
            return wanted_tag is None or wanted_tag in {t.casefold() for t in memory.tags}

        if query.strip():
            # Stored types are lower case (validate_type): the type can go to the table.
            flt = MemoryFilter(
                types=(wanted_type,) if wanted_type else (),
                important=important,
                mandatory=mandatory,
            )
            found = self.search(query, top_k=top_k, flt=flt)
            entries = [
                CatalogueEntry(h.memory, h.snippet, h.score)
                for h in found.hits
                if h.memory.is_live and keep(h.memory)
            ]
            return CataloguePage(entries[offset : offset + limit], len(entries), types, tags)
        # The canonical order (ordering.canonical_key) on the summaries: category, then
        # updated_at descending, then id; only the page's rows are then read in full.
        chosen = sorted((m for m in index if keep(m)), key=ordering.summary_key)
        wanted = [m.id for m in chosen[offset : offset + limit]]
        heads = self.store.heads(wanted, vectors=False) if wanted else {}
        page = [
            CatalogueEntry(live)
            for memory_id in wanted
            if (live := heads.get(memory_id, (None, None))[0]) is not None
        ]
        return CataloguePage(page, len(chosen), types, tags)
