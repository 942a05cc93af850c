"""The graphit_memory_* tools without the protocol: arguments in, a ToolReply (text + JSON) out.

`MemoryTools` runs on the server's open services, one per scope (services.py). Each method
validates its arguments, calls the service and renders the result twice: compact text for the
model to read, and a JSON document (the CLI's field names) for clients that ask for it.
The text and JSON shapes are in `replies.py`, search cursors in `cursors.py`.
Failures are GraphitErrors with the CLI's one-line messages; the server turns them into MCP
error results. No MCP SDK, Typer or Rich imports here. One job, tool by tool: validate, make
the one service call, render.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphit_cli import anchors
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import (
    Memory,
    MemoryDraft,
    MemoryFilter,
    SearchHit,
)
from graphit_cli.errors import InvalidInput
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
from graphit_cli.mcp.services import ScopeServices

if TYPE_CHECKING:
    from graphit_cli.service.memory import MemoryService

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
DEFAULT_LIST_LIMIT = 50


class MemoryTools(ScopeServices):
    """The tools of one server process, on its open services (`ScopeServices`)."""

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
        service.writes.checked([draft])  # a secret is refused as one, before "already says this"
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
