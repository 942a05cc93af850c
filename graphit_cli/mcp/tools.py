"""The graphit_memory_* tools without the protocol: arguments in, a Reply (text + JSON) out.

`MemoryTools` keeps one MemoryService per scope open for the life of the server, so the table
handle (and, through the service, the embedding model) stay warm between calls. Each method
validates its arguments, calls the service and renders the result twice: compact text for the
model to read, and a JSON document (the CLI's field names) for clients that ask for it.
Failures are GraphitErrors with the CLI's one-line messages; the server turns them into MCP
error results. No MCP SDK, Typer or Rich imports here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphit_cli import render
from graphit_cli.errors import InvalidInput
from graphit_cli.models import (
    Memory,
    MemoryDraft,
    MemoryFilter,
    SearchHit,
    WriteAction,
    WriteResult,
)
from graphit_cli.scopes import Scope

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service import MemoryService

FORMATS = ("text", "json")
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
DEFAULT_LIST_LIMIT = 50
_CURSOR_VERSION = 1


@dataclass(frozen=True)
class Reply:
    """One tool answer, rendered both ways; the caller's `format` picks one."""

    text: str
    data: dict[str, Any]


def check_format(value: str) -> str:
    chosen = value.strip().lower()
    if chosen not in FORMATS:
        raise InvalidInput(f"unknown format {value!r}: use text or json")
    return chosen


class MemoryTools:
    """The tools of one server process; a lock serialises calls (the SDK runs them in threads)."""

    def __init__(self, opener: Callable[[Scope], MemoryService] | None = None) -> None:
        self._opener = opener or self._open
        self._services: dict[Scope, MemoryService] = {}
        self.lock = threading.RLock()
        # Loading the model takes seconds: the warm-up does it without holding `lock`, so calls
        # that need no model are answered meanwhile, and the ones that do wait here for it.
        self._model_lock = threading.Lock()

    def _open(self, scope: Scope) -> MemoryService:
        from graphit_cli.service import MemoryService

        return MemoryService.open(scope, embedder=self._embedder)

    def _embedder(self) -> Embedder | None:
        from graphit_cli.embed import load_default

        with self._model_lock:
            return load_default()

    def service(self, scope: str | None) -> MemoryService:
        from graphit_cli.portability.across import resolve_label

        return self._service(resolve_label(scope))

    def _service(self, resolved: Scope) -> MemoryService:
        with self.lock:
            service = self._services.get(resolved)
            if service is None:
                service = self._services[resolved] = self._opener(resolved)
            return service

    def warm(self, scope: str = "project") -> None:
        """Open the scope's table and, when its memories have vectors, load the model."""
        with self.lock:
            wants_model = self.service(scope).has_vectors()
        if wants_model:
            self._embedder()

    def _written(self, service: MemoryService, result: WriteResult) -> WriteResult:
        """A memory written through the server is embedded before the call returns when the
        server holds the model, so the next search finds it by meaning as well as by words."""
        from graphit_cli.embed import loaded

        model = loaded()
        if model is not None and result.action in (WriteAction.CREATED, WriteAction.UPDATED):
            with self.lock:
                service.embed_now([result.memory.id], model)
        return result

    def every_scope(self) -> list[MemoryService]:
        """scope "all": the project, the user scope and the recall contexts."""
        from graphit_cli.portability.across import recall_scopes

        return [self._service(s) for s in recall_scopes()[0]]

    # --- reads -----------------------------------------------------------------------------

    def mandatory(
        self, *, scope: str | None, types: Sequence[str] | None, tags: Sequence[str] | None
    ) -> Reply:
        if _is_all(scope):
            from graphit_cli.portability import across

            services = self.every_scope()
            where = "all scopes (" + ", ".join(str(s.scope) for s in services) + ")"
            flt = render.filter_from(types, tags, mandatory=True)
            memories = [m for m in across.mandatory(services) if _matches(m, flt)]
            extra = [render.scope_field]
        else:
            service = self.service(scope)
            memories = service.catalogue(render.filter_from(types, tags, mandatory=True))
            where = str(service.scope)
            extra = []
        if not memories:
            text = f"No mandatory memories in {where}.\n"
        else:
            text = (
                f"{_count(len(memories), 'mandatory memory', 'mandatory memories')} in {where}; "
                "read all of them:\n\n"
                + "\n".join(render.to_markdown(m, [f(m) for f in extra]) for m in memories)
            )
        data = {"scope": where, "memories": [render.to_dict(m) for m in memories]}
        return Reply(text, data)

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
    ) -> Reply:
        if top_k < 0:
            raise InvalidInput("top_k must not be negative (0 means no limit)")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise InvalidInput(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
        flt = render.filter_from(types, tags)
        mode = mode.strip().lower()
        services = self.every_scope() if _is_all(scope) else [self.service(scope)]
        if _is_all(scope):
            where = "all scopes (" + ", ".join(str(s.scope) for s in services) + ")"
            bound = Scope("all", ",".join(str(s.scope) for s in services))
        else:
            where, bound = str(services[0].scope), services[0].scope
        binding = _search_binding(
            bound, query, flt, top_k, exclude_mandatory, mode, include_deleted
        )
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
                f"{_count(len(hits), 'memory', 'memories')} for {query.strip()!r} in {where} "
                f"({how}); showing {offset + 1}-{end}:"
            )
            lines.append("")
            lines += [_hit_lines(h, with_scope=bound.kind == "all") for h in page]
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
        return Reply("\n".join(lines) + "\n", data)

    def source(
        self, ref: str, *, scope: str | None, start_line: int = 1, end_line: int = 0
    ) -> Reply:
        if start_line < 1:
            raise InvalidInput("start_line must be 1 or more")
        if end_line < 0:
            raise InvalidInput("end_line must not be negative (0 means to the end)")
        if end_line and end_line < start_line:
            raise InvalidInput(f"end_line {end_line} is before start_line {start_line}")
        memory = self.service(scope).source(ref)
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
        return Reply(text, data)

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
    ) -> Reply:
        if limit < 0:
            raise InvalidInput("limit must not be negative (0 means no limit)")
        service = self.service(scope)
        everything = service.catalogue(
            render.filter_from(types, tags, important=important, mandatory=mandatory)
        )
        shown = everything[:limit] if limit else everything
        where = str(service.scope)
        if not everything:
            text = f"No {what} in {where}.\n"
        else:
            head = f"{len(everything)} {what} in {where} (mandatory, important, then the rest"
            text = head + "; newest first):\n\n" + "".join(_memory_line(m) for m in shown)
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
        return Reply(text, data)

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
    ) -> Reply:
        service = self.service(scope)
        draft = MemoryDraft(
            title=title,
            body=body,
            type=type,
            tags=tuple(tags or ()),
            important=important,
            mandatory=mandatory,
        )
        if not force:
            existing = service.find_duplicate(draft)
            if existing is not None:
                return _duplicate_reply(existing, service.scope)
        return _write_reply(self._written(service, service.upsert(draft)), service.scope)

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
    ) -> Reply:
        changes = (title, body, type, tags, important, mandatory)
        if all(value is None for value in changes):
            raise InvalidInput(
                "nothing to update: give title, body, type, tags, important or mandatory"
            )
        if expected_revision is not None and expected_revision < 1:
            raise InvalidInput("expected_revision must be 1 or more")
        service = self.service(scope)
        current = self._live(service, memory_id)
        draft = MemoryDraft(
            id=current.id,
            title=title,
            body=body,
            type=type,
            tags=tuple(tags) if tags is not None else None,
            important=important,
            mandatory=mandatory,
            expected_revision=expected_revision,
        )
        return _write_reply(self._written(service, service.upsert(draft)), service.scope)

    def set_flag(self, memory_id: str, *, scope: str | None, flag: str, value: bool) -> Reply:
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
        return _write_reply(service.upsert(draft), service.scope)

    def delete(self, memory_id: str, *, scope: str | None) -> Reply:
        service = self.service(scope)
        result = service.delete(memory_id)
        final = result.memory
        text = (
            f"deleted {final.id}: {final.title}\n"
            f"Its history stays readable; the final revision is {final.key}.\n"
        )
        return Reply(text, render.write_to_dict(result))

    @staticmethod
    def _live(service: MemoryService, memory_id: str) -> Memory:
        """The live row an update applies to: an update never creates or revives a memory."""
        current = service.source(memory_id)
        if not current.is_live:  # `<id>/<revision-id>` names an archived revision
            raise InvalidInput(
                f"{memory_id} is an archived revision: update the memory by its id, {current.id}"
            )
        return current


# --- cursors ----------------------------------------------------------------------------------


def _search_binding(
    scope: Scope,
    query: str,
    flt: MemoryFilter,
    top_k: int,
    exclude_mandatory: bool,
    mode: str,
    include_deleted: bool,
) -> str:
    """What a cursor is bound to: the scope, the query and everything that shapes the result."""
    parts = [
        str(scope),
        " ".join(query.split()),
        sorted(flt.types),
        sorted(flt.tags),
        top_k,
        exclude_mandatory,
        mode,
        include_deleted,
    ]
    canonical = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def encode_cursor(offset: int, binding: str) -> str:
    payload = json.dumps({"v": _CURSOR_VERSION, "o": offset, "b": binding}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, binding: str) -> int:
    """The offset a cursor continues from; InvalidInput unless it came from this same search."""
    try:
        raw = cursor.strip()
        data = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        offset, bound = data["o"], data["b"]
        valid = data.get("v") == _CURSOR_VERSION and isinstance(bound, str)
        valid = valid and isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0
    except (ValueError, binascii.Error, KeyError, TypeError):
        valid = False
    if not valid:
        raise InvalidInput(
            "invalid cursor: pass the next_cursor of a graphit_memory_search result unchanged"
        )
    if bound != binding:
        raise InvalidInput(
            "this cursor belongs to another search (a different query, filters, top_k or "
            "scope): repeat the search without a cursor"
        )
    return int(offset)


# --- rendering --------------------------------------------------------------------------------


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _marks(memory: Memory) -> str:
    marks = [memory.type]
    marks += ["mandatory"] if memory.mandatory else []
    marks += ["important"] if memory.important else []
    return ", ".join(marks)


def _memory_line(memory: Memory) -> str:
    tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
    updated = render.format_time(memory.updated_at)[:10]
    return (
        f"- {memory.id} ({_marks(memory)}; rev {memory.revision}; {updated}) {memory.title}{tags}\n"
    )


def _hit_lines(hit: SearchHit, *, with_scope: bool = False) -> str:
    line = _memory_line(hit.memory).rstrip("\n")
    if with_scope:
        line += f"\n  scope: {hit.memory.scope_kind}:{hit.memory.scope_id}"
    if hit.deleted:
        line += f"\n  deleted: its final revision is {hit.memory.key}"
    elif hit.superseded:
        line += (
            f"\n  matched revision {hit.matched.revision} ({hit.matched.key}), since superseded: "
            "the memory has changed"
        )
    if hit.snippet:
        line += f"\n  {hit.snippet}"
    return line


def _write_reply(result: WriteResult, scope: Scope) -> Reply:
    memory = result.memory
    text = f"{result.action.value} {memory.id} (revision {memory.revision}, {_marks(memory)})"
    text += f": {memory.title}\n"
    return Reply(text, render.write_to_dict(result))


def _duplicate_reply(existing: Memory, scope: Scope) -> Reply:
    message = (
        f"Not written: memory {existing.id} already says this "
        f'("{existing.title}"; {_marks(existing)}; revision {existing.revision}). Read it with '
        f"graphit_memory_source and update it with graphit_memory_update id={existing.id} so "
        "its revision chain keeps the history; insert again with force=true only if the new "
        "memory is genuinely separate."
    )
    data = {
        "action": "duplicate",
        "written": False,
        "id": existing.id,
        "key": existing.key,
        "revision": existing.revision,
        "title": existing.title,
        "important": existing.important,
        "mandatory": existing.mandatory,
        "scope": str(scope),
        "message": message,
    }
    return Reply(message + "\n", data)


def _is_all(scope: str | None) -> bool:
    return (scope or "").strip() == "all"


def _matches(memory: Memory, flt: MemoryFilter) -> bool:
    return (not flt.types or memory.type in flt.types) and set(flt.tags) <= set(memory.tags)
