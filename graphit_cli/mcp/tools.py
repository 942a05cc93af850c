"""The graphit_memory_* tools without the protocol: arguments in, a ToolReply (text + JSON) out.

`MemoryTools` keeps one MemoryService per scope open for the life of the server, so the table
handle (and, through the service, the embedding model) stay warm between calls. Each method
validates its arguments, calls the service and renders the result twice: compact text for the
model to read, and a JSON document (the CLI's field names) for clients that ask for it.
The text and JSON shapes are in `replies.py`, search cursors in `cursors.py`.
Failures are GraphitErrors with the CLI's one-line messages; the server turns them into MCP
error results. No MCP SDK, Typer or Rich imports here. One job, tool by tool (validate, make
the one service call, render), which is why the module runs past 400 lines.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from graphit_cli import anchors
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import (
    Memory,
    MemoryDraft,
    MemoryFilter,
    SearchHit,
    WriteAction,
    WriteResult,
)
from graphit_cli.errors import InvalidInput, NoProject, NotFound
from graphit_cli.formats import parse, render
from graphit_cli.mcp.cursors import decode_cursor, encode_cursor, search_binding
from graphit_cli.mcp.replies import (
    ToolReply,
    count,
    duplicate_reply,
    hit_lines,
    memory_line,
    rival_note,
    verified_reply,
    write_reply,
)

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
DEFAULT_LIST_LIMIT = 50


class MemoryTools:
    """The tools of one server process; a lock serialises calls (the SDK runs them in threads)."""

    def __init__(self, opener: Callable[[Scope], MemoryService] | None = None) -> None:
        self._opener = opener or self._open
        self._services: dict[Scope, MemoryService] = {}
        self.lock = threading.RLock()
        # Loading the model takes seconds: the warm-up does it without holding `lock`, so calls
        # that need no model are answered meanwhile, and the ones that do wait here for it.
        self._model_lock = threading.Lock()
        self.wrote = threading.Event()  # set after a consolidation: the backfill looks again
        # The checkout the server runs in: anchors resolve and are checked against it.
        self.root = anchors.checkout_root()

    def stale_of(self, memory: Memory) -> list[anchors.Stale] | None:
        """The memory's anchors that no longer hold in the server's checkout (None: all hold)."""
        found: list[anchors.Stale] | None = anchors.checker(self.root)(memory)
        return found

    def _open(self, scope: Scope) -> MemoryService:
        from graphit_cli.mcp import handshake
        from graphit_cli.opening import open_service

        client = handshake.client_name
        return open_service(scope, embedder=self._embedder, keep=True, via="mcp", client=client)

    def _embedder(self) -> Embedder | None:
        from graphit_cli.embed import load_default

        with self._model_lock:
            return load_default()

    def service(self, scope: str | None) -> MemoryService:
        from graphit_cli.portability.across import resolve_label

        resolved = resolve_label(scope)
        if resolved.kind == "context":
            from graphit_cli.access import contexts

            try:  # a typo must not become a new, empty table (the CLI refuses it too)
                contexts.require(resolved)
            except NotFound:
                raise NotFound(
                    f'no context {resolved.id!r}: pass scope "project", "user", "all" '
                    "or context:NAME of a context the user added"
                ) from None
        return self._service(resolved)

    def _service(self, resolved: Scope) -> MemoryService:
        with self.lock:
            service = self._services.get(resolved)
            if service is None:
                service = self._services[resolved] = self._opener(resolved)
            from graphit_cli.mcp import handshake

            service.say_client(handshake.client_name)
            return service

    def opened(self) -> list[MemoryService]:
        """The scopes the server has opened so far (what the background backfill serves)."""
        with self.lock:
            return list(self._services.values())

    def wake(self) -> None:
        """Ask the background thread (background.py) for a sweep now."""
        self.wrote.set()

    def _written(self, service: MemoryService, result: WriteResult) -> WriteResult:
        """A memory written through the server is embedded before the call returns (waiting
        for the model the warm-up is loading), so the next search finds it by meaning too."""
        if result.action in (WriteAction.CREATED, WriteAction.UPDATED):
            model = self._embedder()
            if model is not None:
                with self.lock:
                    service.embed_now([result.memory.id], model)
        return result

    def every_scope(self) -> list[MemoryService]:
        """scope "all": the project, the user scope and the recall contexts."""
        from graphit_cli.portability.across import recall_scopes

        found = recall_scopes()[0]
        if not any(s.kind == "project" for s in found):
            raise NoProject(
                'scope "all" includes the project, but the server is not inside a graphit '
                "project (no graphit.lock.json in its working directory or above, and no "
                'GRAPHIT_PROJECT_ID): pass scope: "user" for the user scope alone'
            )
        return [self._service(s) for s in found]

    # --- reads -----------------------------------------------------------------------------

    def mandatory(
        self, *, scope: str | None, types: Sequence[str] | None, tags: Sequence[str] | None
    ) -> ToolReply:
        if _is_all(scope):
            from graphit_cli.portability import across

            services = self.every_scope()
            where = "all scopes (" + ", ".join(str(s.scope) for s in services) + ")"
            flt = parse.filter_from(types, tags, mandatory=True)
            memories = [m for m in across.mandatory(services) if _matches(m, flt)]
            extra = [render.scope_field]
        else:
            service = self.service(scope)
            memories = service.catalogue(parse.filter_from(types, tags, mandatory=True))
            where = str(service.scope)
            extra = []
        if not memories:
            text = f"No mandatory memories in {where}.\n"
        else:
            text = (
                f"{count(len(memories), 'mandatory memory', 'mandatory memories')} in {where}; "
                "read all of them:\n\n"
                + "\n".join(render.to_markdown(m, [f(m) for f in extra]) for m in memories)
            )
        data = {"scope": where, "memories": [render.to_dict(m) for m in memories]}
        return ToolReply(text, data)

    def search(
        self,
        query: str,
        *,
        scope: str | None,
        top_k: int = 10,
        page_size: int = DEFAULT_PAGE_SIZE,
        cursor: str | None = None,
        exclude_mandatory: bool = False,
        include_deleted: bool = False,
        types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        mode: str = "auto",
    ) -> ToolReply:
        if top_k < 0:
            raise InvalidInput("top_k must not be negative (0 means no limit)")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise InvalidInput(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
        flt = parse.filter_from(types, tags)
        mode = mode.strip().lower()
        services = self.every_scope() if _is_all(scope) else [self.service(scope)]
        if _is_all(scope):
            where = "all scopes (" + ", ".join(str(s.scope) for s in services) + ")"
            bound = Scope("all", ",".join(str(s.scope) for s in services))
        else:
            where, bound = str(services[0].scope), services[0].scope
        binding = search_binding(bound, query, flt, top_k, exclude_mandatory, mode, include_deleted)
        offset = decode_cursor(cursor, binding) if cursor else 0
        args = {
            "top_k": top_k,
            "flt": flt,
            "exclude_mandatory": exclude_mandatory,
            "include_deleted": include_deleted,
            "mode": mode,
        }
        if _is_all(scope):
            from graphit_cli.portability import across

            result = across.search(services, query, **args)  # type: ignore[arg-type]
        else:
            result = services[0].search(query, **args)  # type: ignore[arg-type]
        hits = result.hits
        if not _is_all(scope) and services[0].review.policy is not None:
            hits = hits + _own_proposals(services[0], query, len(hits))
        page = hits[offset : offset + page_size]
        end = offset + len(page)
        next_cursor = encode_cursor(end, binding) if end < len(hits) else None

        how = f"{result.mode} search"
        if exclude_mandatory:
            how += "; mandatory memories excluded"
        if include_deleted:
            how += "; deleted memories included"
        lines: list[str] = []
        if result.notice:
            lines.append(f"Note: {result.notice}.")
        if not hits:
            lines.append(f"No memories match {query.strip()!r} in {where} ({how}).")
        elif not page:
            lines.append(f"No more results: all {len(hits)} were on earlier pages.")
        else:
            lines.append(
                f"{count(len(hits), 'memory', 'memories')} for {query.strip()!r} in {where} "
                f"({how}); showing {offset + 1}-{end}:"
            )
            lines.append("")
            lines += [hit_lines(h, with_scope=bound.kind == "all") for h in page]
            lines.append("")
            if next_cursor:
                lines.append(
                    f'More: call graphit_memory_search again with cursor="{next_cursor}" '
                    "and the same query and filters."
                )
            lines.append("Read a memory in full with graphit_memory_source.")
        data = {
            "scope": where,
            "query": query,
            "mode": result.mode,
            "notice": result.notice,
            "total": len(hits),
            "offset": offset,
            "hits": [render.hit_to_dict(h) for h in page],
            "next_cursor": next_cursor,
        }
        return ToolReply("\n".join(lines) + "\n", data)

    def source(
        self, ref: str, *, scope: str | None, start_line: int = 1, end_line: int = 0
    ) -> ToolReply:
        if start_line < 1:
            raise InvalidInput("start_line must be 1 or more")
        if end_line < 0:
            raise InvalidInput("end_line must not be negative (0 means to the end)")
        if end_line and end_line < start_line:
            raise InvalidInput(f"end_line {end_line} is before start_line {start_line}")
        memory = self.service(scope).review.source(ref)
        lines = render.to_markdown(memory).split("\n")[:-1]  # the text ends with a newline
        total = len(lines)
        if start_line > total:
            raise InvalidInput(f"start_line {start_line} is past the end ({total} lines)")
        last = min(end_line or total, total)
        text = "\n".join(lines[start_line - 1 : last]) + "\n"
        if (start_line, last) != (1, total):
            more = f"; call again with start_line={last + 1} for more" if last < total else ""
            text += f"\n[lines {start_line}-{last} of {total}{more}]\n"
        data = {k: v for k, v in render.to_dict(memory).items() if k != "body"}
        data |= {"text": text, "start_line": start_line, "end_line": last, "total_lines": total}
        return ToolReply(text, data)

    def catalogue(
        self,
        *,
        scope: str | None,
        types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        important: bool | None = None,
        mandatory: bool | None = None,
        limit: int = DEFAULT_LIST_LIMIT,
        what: str = "live memories",
    ) -> ToolReply:
        if limit < 0:
            raise InvalidInput("limit must not be negative (0 means no limit)")
        service = self.service(scope)
        flt = parse.filter_from(types, tags, important=important, mandatory=mandatory)
        everything = service.catalogue(flt)
        if service.review.policy is not None:  # the author's own open proposals follow
            everything = everything + service.review.visible(flt=flt)
        shown = everything[:limit] if limit else everything
        where = str(service.scope)
        if not everything:
            text = f"No {what} in {where}.\n"
        else:
            head = f"{len(everything)} {what} in {where} (mandatory, important, then the rest"
            text = head + "; newest first):\n\n" + "".join(memory_line(m) for m in shown)
            if len(shown) < len(everything):
                text += (
                    f"\nShowing the first {len(shown)} of {len(everything)}: pass limit=0 for "
                    "all, or filter by type or tag.\n"
                )
        data = {
            "scope": where,
            "total": len(everything),
            "memories": [render.to_dict(m) for m in shown],
        }
        return ToolReply(text, data)

    # --- writes ----------------------------------------------------------------------------

    def insert(
        self,
        *,
        scope: str | None,
        title: str,
        body: str,
        type: str = "fact",
        tags: Sequence[str] | None = None,
        important: bool = False,
        mandatory: bool = False,
        force: bool = False,
        anchors_given: Sequence[str] | None = None,
    ) -> ToolReply:
        service = self.service(scope)
        draft = MemoryDraft(
            title=title,
            body=body,
            type=type,
            tags=tuple(tags or ()),
            important=important,
            mandatory=mandatory,
            anchors=tuple(anchors_given) if anchors_given is not None else None,
        )
        draft = anchors.with_anchors(draft, self.root)
        if not force:
            existing = service.find_duplicate(draft)
            if existing is not None:
                return duplicate_reply(existing, service.scope)
        rival = service.find_rival(draft)
        reply = write_reply(self._written(service, service.upsert(draft)), service.scope)
        return rival_note(reply, rival) if rival is not None else reply

    def update(
        self,
        memory_id: str,
        *,
        scope: str | None,
        title: str | None = None,
        body: str | None = None,
        type: str | None = None,
        tags: Sequence[str] | None = None,
        important: bool | None = None,
        mandatory: bool | None = None,
        expected_revision: int | None = None,
        anchors_given: Sequence[str] | None = None,
        verify: bool = False,
    ) -> ToolReply:
        changes = (title, body, type, tags, important, mandatory, anchors_given)
        if all(value is None for value in changes) and not verify:
            raise InvalidInput(
                "nothing to update: give title, body, type, tags, important, mandatory, "
                "anchors, or verify=true"
            )
        if expected_revision is not None and expected_revision < 1:
            raise InvalidInput("expected_revision must be 1 or more")
        service = self.service(scope)
        current = self._live(service, memory_id)
        if all(value is None for value in changes):  # verify alone: it still holds
            return verified_reply(service.verify(current.id))
        draft = MemoryDraft(
            id=current.id,
            title=title,
            body=body,
            type=type,
            tags=tuple(tags) if tags is not None else None,
            important=important,
            mandatory=mandatory,
            expected_revision=expected_revision,
            anchors=tuple(anchors_given) if anchors_given is not None else None,
        )
        draft = anchors.with_anchors(draft, self.root, current)
        return write_reply(self._written(service, service.upsert(draft)), service.scope)

    def set_flag(self, memory_id: str, *, scope: str | None, flag: str, value: bool) -> ToolReply:
        """Set `important` or `mandatory` (the two flags are independent)."""
        if flag not in ("important", "mandatory"):
            raise ValueError(f"unknown flag {flag!r}")
        service = self.service(scope)
        current = self._live(service, memory_id)
        draft = MemoryDraft(
            id=current.id,
            important=value if flag == "important" else None,
            mandatory=value if flag == "mandatory" else None,
        )
        return write_reply(service.upsert(draft), service.scope)

    def delete(self, memory_id: str, *, scope: str | None) -> ToolReply:
        service = self.service(scope)
        result = service.delete(memory_id)
        final = result.memory
        text = (
            f"deleted {final.id}: {final.title}\n"
            f"Its history stays readable; the final revision is {final.key}.\n"
        )
        return ToolReply(text, render.write_to_dict(result))

    @staticmethod
    def _live(service: MemoryService, memory_id: str) -> Memory:
        """The live row an update applies to: an update never creates or revives a memory."""
        current = service.source(memory_id)
        if not current.is_live:  # `<id>/<revision-id>` names an archived revision
            raise InvalidInput(
                f"{memory_id} is an archived revision: update the memory by its id, {current.id}"
            )
        return current


def _is_all(scope: str | None) -> bool:
    return (scope or "").strip() == "all"


def _matches(memory: Memory, flt: MemoryFilter) -> bool:
    return (not flt.types or memory.type in flt.types) and set(flt.tags) <= set(memory.tags)


def _own_proposals(service: MemoryService, query: str, after: int) -> list[SearchHit]:
    """The caller's own open proposals matching `query`, as hits after the search's own."""
    found = service.review.matching(query)
    return [SearchHit(r, r, 0.0, after + n, r.body[:160]) for n, r in enumerate(found, 1)]
