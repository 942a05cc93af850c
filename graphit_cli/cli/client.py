"""Where a memory command runs: the daemon's warm path when one answers, else in-process.

The one place that makes this choice. A running daemon already has the table open and the
model loaded, and runs the same service code, so its answer renders exactly like an
in-process one; `GRAPHIT_NO_DAEMON=1` always works in-process. Writes to the project and user
scopes go to the daemon too: it answers once its commit has returned (durable on return, with
the rows embedded when it holds the model), so a write costs no `import lancedb` here. A daemon
that took a write and gave no answer is an error, never a second attempt in-process. In-process,
a write embeds the rows it writes before its commit (`service.upkeep.WriteVectors`, up to a
bound): the model loads, and embeds the batch's first texts, on a thread while the table opens.
Nothing heavy is imported at module level.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

from graphit_cli.cli.common import scope_spec

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import (
        Memory,
        MemoryDraft,
        MemoryFilter,
        RecallResult,
        SearchResult,
        WriteResult,
    )
    from graphit_cli.portability.model import ImportReport
    from graphit_cli.service.memory import MemoryService
    from graphit_cli.service.upkeep import WriteVectors


class Client:
    """One command's view of one scope (`--scope`/`--user` as given)."""

    def __init__(self, scope: str | None, user: bool, *, known_context: bool = True) -> None:
        self.spec = scope_spec(scope, user)
        self.known_context = known_context  # False: `import` may fill a context's first table

    @cached_property
    def scope(self) -> Scope:
        from graphit_cli.access.providers import resolve_scope

        scope = resolve_scope(self.spec)
        if scope.kind == "context" and self.known_context:
            from graphit_cli.access import contexts

            contexts.require(scope)
        return scope

    @cached_property
    def service(self) -> MemoryService:
        """The scope's service in this process (opens the table: about a second cold)."""
        from graphit_cli.access.opening import open_service

        return open_service(self.scope)

    def _daemon(self, request: dict[str, Any], *, write: bool = False) -> Any:
        """The daemon's answer to `request`, or None when no daemon answers."""
        from graphit_cli import config
        from graphit_cli.access import runstate
        from graphit_cli.daemon import wire

        if config.no_daemon():
            return None
        if write:
            if self.scope.kind not in ("project", "user"):
                return None  # a context scope's table may be another project's: in-process
            request = {**request, "author": config.author()}
        reply = wire.call(
            runstate.socket_path(),
            {**request, "scope": str(self.scope)},
            wire.WRITE_TIMEOUT if write else wire.REPLY_TIMEOUT,
            write=write,
        )
        return None if reply is None else reply["result"]

    # --- writes ----------------------------------------------------------------------------

    def upsert(
        self, drafts: list[MemoryDraft], *, warn: Callable[[str], None]
    ) -> list[WriteResult]:
        """Write the drafts; `warn` gets each duplicate warning before the write, and a line
        after it when some rows were written without their vector."""
        from graphit_cli.daemon import wire
        from graphit_cli.service.upkeep import texts_ahead

        request = {"op": "upsert", "drafts": [wire.draft_to_wire(d) for d in drafts], "warn": True}
        found = self._daemon(request, write=True)
        if found is not None:
            for line in found["notes"]:
                warn(line)
            return [wire.write_from_wire(w) for w in found["writes"]]
        vectors = _write_vectors(texts_ahead(drafts), expected=len(drafts))
        for line in self.service.duplicate_notes(drafts):
            warn(line)
        with _embedding_bar(vectors):
            results = self.service.writing(vectors=vectors).upsert_many(drafts).results
        _say(vectors, warn)
        return results

    def delete(self, memory_id: str) -> WriteResult:
        return self._one_write("delete", memory_id)

    def restore(self, ref: str, *, warn: Callable[[str], None] | None = None) -> WriteResult:
        return self._one_write("restore", ref, warn)

    def _one_write(
        self, op: str, ref: str, warn: Callable[[str], None] | None = None
    ) -> WriteResult:
        from graphit_cli.daemon import wire

        found = self._daemon({"op": op, "ref": ref}, write=True)
        if found is not None:
            for line in found.get("notes", []):
                if warn is not None:
                    warn(line)
            return wire.write_from_wire(found["writes"][0])
        if op == "delete":
            return self.service.delete(ref)
        vectors = _write_vectors(expected=2)  # the revision, and a deleted memory's revival
        result = self.service.writing(vectors=vectors).restore(ref)
        if warn is not None:
            _say(vectors, warn)
        return result

    def import_(
        self,
        path: Path,
        fmt: str,
        *,
        dry_run: bool,
        progress: Any = None,
        warn: Callable[[str], None] | None = None,
    ) -> ImportReport:
        """`import PATH`: the daemon reads PATH itself (same user, same machine). `warn` gets
        a line when some rows were written without their vector."""
        from graphit_cli.daemon import wire

        request = {
            "op": "import",
            "path": str(path.absolute()),
            "source": str(path),
            "format": fmt,
            "dry_run": dry_run,
        }
        found = self._daemon(request, write=True)
        if found is not None:
            for line in found.get("notes", []):
                if warn is not None:
                    warn(line)
            return wire.report_from_wire(found)
        from graphit_cli.portability import importer

        if dry_run:  # writes nothing: nothing to embed
            return importer.run(self.service, path, fmt=fmt, dry_run=True, progress=progress)
        vectors = _write_vectors()
        service = self.service.writing(vectors=vectors)
        report = importer.run(service, path, fmt=fmt, dry_run=False, progress=progress)
        if warn is not None:
            _say(vectors, warn)
        return report

    # --- reads -----------------------------------------------------------------------------

    def catalogue(self, flt: MemoryFilter, limit: int | None = None) -> list[Memory]:
        """Live memories in canonical order."""
        from graphit_cli.daemon import wire

        found = self._daemon(
            {"op": "catalogue", "filter": wire.filter_to_wire(flt), "limit": limit}
        )
        if found is not None:
            return [wire.memory_from_wire(m) for m in found]
        return self.service.catalogue(flt, limit)

    def source(self, ref: str) -> Memory:
        from graphit_cli.daemon import wire

        found = self._daemon({"op": "source", "ref": ref})
        return wire.memory_from_wire(found) if found is not None else self.service.source(ref)

    def search(
        self,
        query: str,
        flt: MemoryFilter,
        *,
        top_k: int,
        exclude_mandatory: bool,
        include_deleted: bool,
        mode: str,
    ) -> SearchResult:
        from graphit_cli.daemon import wire

        args = {
            "top_k": top_k,
            "exclude_mandatory": exclude_mandatory,
            "include_deleted": include_deleted,
            "mode": mode,
        }
        request = {"op": "search", "query": query, "filter": wire.filter_to_wire(flt), **args}
        found = self._daemon(request)
        if found is not None:
            return wire.search_from_wire(found)
        if mode != "fts":
            _expect_query(query)
        return self.service.search(query, flt=flt, **args)  # type: ignore[arg-type]

    def recall(self, context: str | None, *, top_k: int) -> RecallResult:
        from graphit_cli.daemon import wire

        found = self._daemon({"op": "recall", "context": context, "top_k": top_k})
        if found is not None:
            return wire.recall_from_wire(found)
        if context and context.strip():
            _expect_query(context)
        return self.service.recall(context, top_k=top_k)


def _write_vectors(texts: list[str] | None = None, *, expected: int | None = None) -> WriteVectors:
    """What an in-process write embeds its rows with: the default model, loading (and
    embedding `texts`, the batch's first new memories) on a thread from now on, while the
    table opens. A model that cannot load leaves the rows without vectors and says so."""
    from graphit_cli.embed import load_default
    from graphit_cli.service.upkeep import WriteVectors

    vectors = WriteVectors(load_default)
    vectors.start(texts or (), expected=expected)
    return vectors


@contextmanager
def _embedding_bar(vectors: WriteVectors) -> Iterator[None]:
    """A bar on a terminal while a batch's rows are embedded (more than a few of them)."""
    from graphit_cli.cli.progress import bar

    with bar("embedding", minimum=EMBED_BAR_MINIMUM) as progress:
        vectors.progress = progress
        yield


EMBED_BAR_MINIMUM = 16


def _say(vectors: WriteVectors, warn: Callable[[str], None]) -> None:
    notice = vectors.notice()
    if notice:
        warn(notice)


def _expect_query(query: str) -> None:
    """Hand the query to the embedding model before the table opens: the light runtime builds
    its session and embeds the query without the GIL while `import lance` and the table's
    opening run (~0.2 s off a cold hybrid search). Only a head start: a model that cannot load
    is left to the search itself, which knows whether it needs one (a table without vectors
    does not) and says why it cannot."""
    from graphit_cli.embed import expect_query
    from graphit_cli.errors import InvalidInput

    try:
        expect_query(query)
    except InvalidInput:
        pass
