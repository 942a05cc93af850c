"""Where a memory command runs: the daemon's warm path when one answers, else in-process.

The one place that makes this choice, for every command: one job, whatever its length. A
running daemon already has the table open and the model loaded, and runs the same service
code, so its answer renders exactly like an in-process one; `GRAPHIT_NO_DAEMON=1` always works
in-process. Writes to the project and user scopes go to the daemon too: it answers once its
commit has returned (durable on return, with the rows embedded when it holds the model), so a
write costs no `import lancedb` here. A daemon that took a write and gave no answer is an
error, never a second attempt in-process. Nothing heavy is imported at module level.

Both ways go through `warm/transport.py`: a `Socket` given the command's scopes, then
`InProcess` on the scope's reader for the operation table's reads (`warm/ops.py`). A request
carries what decides its answer (`access/fingerprint.py`: the table each scope
resolves to, the grant, the settings that change a result); a daemon that would resolve it
otherwise declines before doing anything, and the command then works in-process. The cross-
scope reads (`portability/across.py`) go through here too: the use-cases below the adapters
never know whether a daemon runs. A read never creates a table (`open_reader`).

In-process, a write embeds the rows it writes before its commit, and a search hands its query
to the model first (cli/inprocess.py).
"""

from __future__ import annotations

from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from graphit_cli.cli.inprocess import embedding_bar, expect_query, write_vectors
from graphit_cli.cli.plain import scope_spec

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
    from graphit_cli.portability.across import AcrossRecall
    from graphit_cli.portability.model import ImportReport
    from graphit_cli.service.memory import MemoryService
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.warm.writes import WriteCall, Written


class ScopeClient:
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
        """The scope's service in this process, for writing (opens the table, creating it:
        about a second cold)."""
        from graphit_cli.opening import open_service

        return open_service(self.scope, via="cli")

    @cached_property
    def reviewed(self) -> bool:
        """Whether this checkout's project has review on (its writes run in-process, through
        the review gate; its reads add the proposals the reader may see)."""
        from graphit_cli.opening import review_of

        return review_of(self.scope) is not None

    @cached_property
    def reader(self) -> MemoryService:
        """The scope's service in this process, for reading: a scope without a table reads
        as an empty one, and nothing is created."""
        from graphit_cli.opening import open_reader

        return open_reader(self.scope)

    def _write(
        self, call: WriteCall, vectors: Callable[[], WriteVectors] | None, **options: Any
    ) -> Written:
        """A write (`warm/writes.py`): the daemon's, else this process's (`transport.InProcess`
        on a writing view embedding with `vectors()`, a bar on a terminal; `options` go to the
        call's `run`). A context scope's table may be another project's, and a reviewed
        project's writes pass this checkout's review gate: both are written here."""
        from graphit_cli.warm.transport import InProcess, Socket
        from graphit_cli.warm.writes import ImportCall

        if self.scope.kind in ("project", "user") and not self.reviewed:
            found = Socket(scopes=[self.scope], write=True).call(call)
            if found is not None:
                return found  # type: ignore[no-any-return]
        # The model loads on a thread from here (its first texts with it) while the table opens.
        embedding = vectors() if vectors is not None else None  # None: nothing to embed
        stamp = None
        if isinstance(call, ImportCall):
            stamp = self.service.writes.provenance.but(via="import")
        view = self.service.writing(vectors=embedding, secrets=call.secrets, provenance=stamp)
        if embedding is None:
            return InProcess(lambda _: view, **options).call(call)  # type: ignore[no-any-return]
        with embedding_bar(embedding):
            written: Written = InProcess(lambda _: view, **options).call(call)
        return written.noting(embedding)

    def _read(self, call: Any, query: str | None = None) -> Any:
        """A read of the operation table (`warm/ops.py`): the daemon's answer, else this
        process's (`transport.InProcess` on the scope's reader), which hands `query` to the
        model before the table opens."""
        from graphit_cli.warm.transport import InProcess, Socket

        found = Socket(scopes=[self.scope]).call(call)
        if found is not None:
            return found
        if query:
            expect_query(query)
        return InProcess(lambda _: self.reader).call(call)

    # --- writes ----------------------------------------------------------------------------

    def upsert(
        self, drafts: list[MemoryDraft], *, warn: Callable[[str], None], secrets: str = "refuse"
    ) -> list[WriteResult]:
        """Write the drafts; `warn` gets each duplicate warning (before the write, when it is
        written here), and a line after it when some rows were written without their vector.
        `secrets`: what a draft holding a secret gets ("refuse", "redact", "allow")."""
        from graphit_cli.service.vectors import texts_ahead
        from graphit_cli.warm.writes import UpsertCall

        call = UpsertCall(self.scope, drafts, secrets)
        vectors = partial(write_vectors, texts_ahead(drafts), expected=len(drafts))
        return _told(self._write(call, vectors, tell=warn), warn).results

    def delete(self, memory_id: str) -> WriteResult:
        from graphit_cli.warm.writes import DeleteCall

        [result] = self._write(DeleteCall(self.scope, memory_id), None).results
        return result

    def restore(
        self, ref: str, *, warn: Callable[[str], None] | None = None, secrets: str = "refuse"
    ) -> WriteResult:
        from graphit_cli.warm.writes import RestoreCall

        vectors = partial(write_vectors, expected=2)  # the revision, and a revival's
        [result] = _told(self._write(RestoreCall(self.scope, ref, secrets), vectors), warn).results
        return result

    def import_(
        self,
        path: Path,
        fmt: str,
        *,
        dry_run: bool,
        progress: Any = None,
        warn: Callable[[str], None] | None = None,
        secrets: str = "refuse",
    ) -> ImportReport:
        """`import PATH` (the daemon reads PATH itself: same user, same machine). `warn` gets
        a line when some rows were written without their vector."""
        from graphit_cli.warm.writes import ImportCall

        call = ImportCall(self.scope, path, str(path), fmt, dry_run, secrets)
        vectors = None if dry_run else write_vectors  # a dry run writes nothing to embed
        report = _told(self._write(call, vectors, progress=progress), warn).report
        assert report is not None  # an import's outcome is its report
        return report

    # --- reads -----------------------------------------------------------------------------

    def catalogue(
        self, flt: MemoryFilter, limit: int | None = None, *, include_proposed: bool = False
    ) -> list[Memory]:
        """Live memories in canonical order; with `include_proposed`, the open proposals
        after them (read here: the daemon does not carry them)."""
        from graphit_cli.warm.calls import checkout
        from graphit_cli.warm.ops import CatalogueCall

        call = CatalogueCall(self.scope, flt, limit, checkout())
        found: list[Memory] = self._read(call)
        if include_proposed:
            found = found + self.reader.review.visible(include_all=True, flt=flt)
        return found

    def source(self, ref: str) -> Memory:
        from graphit_cli.warm.calls import checkout
        from graphit_cli.warm.ops import SourceCall

        return self._read(SourceCall(self.scope, ref, checkout()))  # type: ignore[no-any-return]

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
        from graphit_cli.warm.calls import checkout
        from graphit_cli.warm.ops import SearchCall

        call = SearchCall(
            self.scope, query, flt, top_k, exclude_mandatory, include_deleted, mode, checkout()
        )
        return self._read(call, query if mode != "fts" else None)  # type: ignore[no-any-return]

    def recall(self, context: str | None, *, top_k: int) -> RecallResult:
        from graphit_cli.warm.calls import checkout
        from graphit_cli.warm.ops import RecallCall

        call = RecallCall(self.scope, context, top_k, checkout())
        ahead = context if context and context.strip() else None
        return self._read(call, ahead)  # type: ignore[no-any-return]

    def history(self, memory_id: str, include_proposed: bool = False) -> list[Memory]:
        """Every revision of a memory (in-process: the daemon does not carry history); with
        `include_proposed`, the proposals made on it too, in the order written."""
        if include_proposed:
            return self.reader.review.history(memory_id, include_all=True)
        return self.reader.history(memory_id)


def _told(written: Written, warn: Callable[[str], None] | None) -> Written:
    """`written`, its notes said through `warn` (kept unsaid without one)."""
    if warn is not None:
        for line in written.notes:
            warn(line)
    return written


# --- recall and search across scopes --------------------------------------------------------


def recall_across(scopes: list[Scope], context: str | None, *, top_k: int) -> AcrossRecall:
    """`portability.across.recall` over `scopes`, by the daemon when it serves them as this
    process would, else here."""
    from graphit_cli.portability import across
    from graphit_cli.warm import values
    from graphit_cli.warm.calls import checkout
    from graphit_cli.warm.transport import Socket

    request = {"op": "across", "what": "recall", "scopes": [str(s) for s in scopes]}
    request["root"] = checkout()  # as the other reads send it; anchors are checked here
    data = Socket(scopes=scopes).send({**request, "context": context, "top_k": top_k})
    if data is None:
        return across.recall(scopes, context, top_k=top_k)
    found = data.get("search")
    return across.AcrossRecall(
        list(data["scopes"]),
        [values.memory_from_wire(m) for m in data["mandatory"]],
        None if found is None else values.search_from_wire(found),
        list(data.get("notices", [])),
    )


def search_across(
    scopes: list[Scope],
    query: str,
    flt: MemoryFilter,
    *,
    top_k: int,
    exclude_mandatory: bool,
    include_deleted: bool,
    mode: str,
) -> SearchResult:
    """`portability.across.search` over `scopes`, by the daemon or here."""
    from graphit_cli.opening import open_reader
    from graphit_cli.portability import across
    from graphit_cli.warm import values

    args = {
        "top_k": top_k,
        "exclude_mandatory": exclude_mandatory,
        "include_deleted": include_deleted,
        "mode": mode,
    }
    from graphit_cli.warm.calls import checkout
    from graphit_cli.warm.transport import Socket

    request = {
        "op": "across",
        "what": "search",
        "root": checkout(),
        "scopes": [str(s) for s in scopes],
        "query": query,
        "filter": values.filter_to_wire(flt),
        **args,
    }
    found = Socket(scopes=scopes).send(request)
    if found is not None:
        return values.search_from_wire(found)
    services = [open_reader(s) for s in scopes]
    return across.search(services, query, flt=flt, **args)  # type: ignore[arg-type]
