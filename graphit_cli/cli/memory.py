"""`graphit memory ...`: adapters over MemoryService. Each command parses, calls, renders."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from graphit_cli.cli import common
from graphit_cli.cli.common import (
    Format,
    FormatOpt,
    ScopeOpt,
    UserOpt,
    handle_errors,
    note,
    out,
    resolve_format,
    scope_spec,
    stdin_is_interactive,
)

if TYPE_CHECKING:
    from graphit_cli.models import Memory, MemoryDraft, MemoryFilter, SearchHit, WriteResult
    from graphit_cli.service import MemoryService

T = TypeVar("T")

memory_app = typer.Typer(
    name="memory",
    help="Store, read and search durable memories (preferences, decisions, conventions, ...).\n\n"
    "Every command works on one scope's table: the current project by default "
    "(found through graphit.lock.json), --user for cross-project preferences.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

TypeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--type", "-t", help="Only this type (repeatable): fact, decision, convention, ..."
    ),
]
TagOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--tag", metavar="TAG", help="Only memories with this tag (repeatable: all must match)."
    ),
]


def _service(scope: str | None, user: bool) -> MemoryService:
    from graphit_cli.providers import resolve_scope
    from graphit_cli.service import MemoryService

    return MemoryService.open(resolve_scope(scope_spec(scope, user)))


def _via_daemon(scope: str | None, user: bool, request: dict[str, Any]) -> Any:
    """The warm path: ask a running daemon (no model or lancedb import here); None if absent.

    The daemon runs the same service code, so its answer renders exactly like an
    in-process one. `GRAPHIT_NO_DAEMON=1` always works in-process.
    """
    from graphit_cli import config, runstate, wire
    from graphit_cli.providers import resolve_scope

    if config.no_daemon():
        return None
    target = resolve_scope(scope_spec(scope, user))
    reply = wire.call(runstate.socket_path(), {**request, "scope": str(target)})
    return None if reply is None else reply["result"]


def _catalogue(
    scope: str | None, user: bool, flt: MemoryFilter, limit: int | None = None
) -> list[Memory]:
    """Live memories in canonical order, from the daemon when it runs."""
    from graphit_cli import wire

    request = {"op": "catalogue", "filter": wire.filter_to_wire(flt), "limit": limit}
    found = _via_daemon(scope, user, request)
    if found is not None:
        return [wire.memory_from_wire(m) for m in found]
    return _service(scope, user).catalogue(flt, limit)


def _filter(
    types: list[str] | None, tags: list[str] | None, important: bool | None, mandatory: bool | None
) -> MemoryFilter:
    from graphit_cli.models import MemoryFilter
    from graphit_cli.revisions import normalise_tags, validate_type

    return MemoryFilter(
        types=tuple(validate_type(t) for t in types or ()),
        tags=normalise_tags(tags or ()),
        important=important,
        mandatory=mandatory,
    )


def _emit(
    items: Sequence[T],
    fmt: Format,
    as_dict: Callable[[T], dict[str, Any]],
    as_markdown: Callable[[T], str],
    as_table: Callable[[list[T]], str],
    empty: str,
) -> None:
    """Print records in the chosen format: data on stdout, the empty-table notice on stderr."""
    from graphit_cli import render

    if fmt is Format.json:
        out(render.dumps_json([as_dict(i) for i in items]))
    elif fmt is Format.ndjson:
        out(render.dumps_ndjson(as_dict(i) for i in items))
    elif fmt is Format.markdown:
        out("\n".join(as_markdown(i) for i in items))
    else:
        out(as_table(list(items)))
        if not items:
            note(empty)


def _render_memories(memories: list[Memory], fmt: Format) -> None:
    from graphit_cli import render

    _emit(memories, fmt, render.to_dict, render.to_markdown, render.memory_table, "No memories.")


# --- writes -------------------------------------------------------------------------------


@memory_app.command()
@handle_errors
def upsert(
    file: Annotated[
        str | None,
        typer.Argument(
            help="Markdown with frontmatter, JSON or NDJSON to read; - for stdin.",
            show_default=False,
        ),
    ] = None,
    memory_id: Annotated[
        str | None, typer.Option("--id", help="Update this memory (or create it with this id).")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="One-line title.")] = None,
    body: Annotated[str | None, typer.Option("--body", help="Markdown body.")] = None,
    memory_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            "-t",
            help="fact (default), decision, convention, correction, preference, constraint,"
            " procedure, skill or tension.",
        ),
    ] = None,
    tags: Annotated[
        list[str] | None,
        typer.Option("--tag", metavar="TAG", help="Tag (repeatable); replaces the memory's tags."),
    ] = None,
    important: Annotated[
        bool | None,
        typer.Option(
            "--important/--no-important", help="Curated reference material.", show_default=False
        ),
    ] = None,
    mandatory: Annotated[
        bool | None,
        typer.Option(
            "--mandatory/--no-mandatory",
            help="Loaded in full at every session start.",
            show_default=False,
        ),
    ] = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Create or update memories from flags, a Markdown file, or JSON/NDJSON batches.

    Without --id a new memory is created (with a warning on stderr when a live memory
    already says the same thing). With --id (or an `id` in the input) the memory is
    updated: fields you leave out keep their values, and the old text becomes an archived
    revision. Writing the same content again changes nothing. A batch is one commit.

    Examples:

      graphit memory upsert --title "Use uv" --body "We install with uv, not pip." -t convention

      graphit memory source 01J... > m.md; $EDITOR m.md; graphit memory upsert m.md

      cat memories.ndjson | graphit memory upsert -
    """
    from dataclasses import replace

    from graphit_cli import render
    from graphit_cli.models import MemoryDraft

    overrides = {
        "title": title,
        "body": body,
        "type": memory_type,
        "tags": tuple(tags) if tags is not None else None,
        "important": important,
        "mandatory": mandatory,
    }
    given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    drafts: list[MemoryDraft]
    text = _read_input(file, wants_stdin=not given and memory_id is None)
    if text is not None:
        drafts = render.parse_input(text, origin=file if file not in (None, "-") else "stdin")
        if memory_id is not None:
            if len(drafts) != 1:
                raise typer.BadParameter("--id applies to a single record, not a batch")
            drafts = [replace(drafts[0], id=memory_id)]
        drafts = [replace(d, **given) for d in drafts]
    else:
        drafts = [MemoryDraft(id=memory_id, **given)]
    service = _service(scope, user)
    _warn_if_duplicate(service, drafts)
    result = service.upsert_many(drafts)
    _render_writes(result.results, resolve_format(fmt))
    if len(result.results) > 1:
        from graphit_cli.models import WriteAction

        note(", ".join(f"{result.count(a)} {a.value}" for a in WriteAction if result.count(a)))


def _warn_if_duplicate(service: MemoryService, drafts: list[MemoryDraft]) -> None:
    """A single new memory that a live one already says: warn on stderr, then write anyway.

    The CLI does what it is told (scripts rely on that); the MCP insert refuses instead. The
    check compares wording, not embeddings, so a write never waits for the model; batches
    (imports, idempotent by id) are not checked.
    """
    from graphit_cli.errors import GraphitError

    if len(drafts) > 1:
        repeats = service.live_duplicates(drafts)
        for index, same in repeats[:5]:
            note(
                f"Warning: record {index + 1} repeats memory {same.id} ({same.title!r}); "
                f'give it "id": "{same.id}" to update that memory instead '
                "(written anyway as a new memory)"
            )
        if len(repeats) > 5:
            note(f"Warning: {len(repeats) - 5} more records repeat live memories")
        return
    if drafts[0].id is not None:
        return
    try:
        existing = service.find_duplicate(drafts[0], semantic=False)
    except GraphitError:
        return  # the write itself reports what is wrong with the draft
    if existing is not None:
        note(
            f"Warning: memory {existing.id} ({existing.title!r}) already says this; to change "
            f"it, use `graphit memory upsert --id {existing.id}` (written anyway as a new memory)"
        )


def _read_input(file: str | None, *, wants_stdin: bool) -> str | None:
    from graphit_cli import render
    from graphit_cli.errors import InvalidInput

    if file == "-" or (file is None and wants_stdin):
        if file is None and stdin_is_interactive():
            raise typer.BadParameter(
                "nothing to write: give --title and --body, a FILE, or pipe Markdown/JSON on stdin"
            )
        return render.decode_text(sys.stdin.buffer.read(), "stdin")
    if file is None:
        return None
    try:
        return render.decode_text(Path(file).read_bytes(), file)
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {file}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {file}: {exc.strerror or exc}") from None


def _render_writes(results: list[WriteResult], fmt: Format) -> None:
    from graphit_cli import render

    def item(r: WriteResult) -> dict[str, object]:
        return {
            "action": r.action.value,
            "id": r.memory.id,
            "key": r.memory.key,
            "revision": r.memory.revision,
            "title": r.memory.title,
        }

    if fmt is Format.json:
        out(render.dumps_json([item(r) for r in results]))
    elif fmt is Format.ndjson:
        out(render.dumps_ndjson(item(r) for r in results))
    else:
        out(
            "".join(
                f"{r.action.value}\t{r.memory.key}\t"
                f"revision {r.memory.revision}\t{r.memory.title}\n"
                for r in results
            )
        )


@memory_app.command()
@handle_errors
def delete(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory to delete.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Delete a memory. Its history stays readable: the last revision becomes the final archive."""
    service = _service(scope, user)
    if not yes:
        if not common.stdin_is_interactive():
            raise typer.BadParameter("refusing to delete without --yes when not interactive")
        current = service.source(memory_id)
        if not typer.confirm(f"Delete {current.id} ({current.title!r})?", err=True):
            note("Aborted; nothing deleted.")
            raise typer.Exit(0)
    result = service.delete(memory_id)
    _render_writes([result], resolve_format(fmt))


@memory_app.command()
@handle_errors
def restore(
    ref: Annotated[
        str,
        typer.Argument(metavar="ID/REVISION_ID", help="The archived revision to bring back."),
    ],
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Make an old revision current again, as a new revision (nothing in between is lost).

    Title, body, type, tags and flags come back as they were in that revision. Works on a
    deleted memory too. Find revision ids with `graphit memory history ID`.

    Example:

      graphit memory restore 01J.../01H...
    """
    result = _service(scope, user).restore(ref)
    _render_writes([result], resolve_format(fmt))


# --- reads --------------------------------------------------------------------------------


@memory_app.command()
@handle_errors
def source(
    ref: Annotated[
        str,
        typer.Argument(
            metavar="ID[/REVISION_ID]", help="A memory, or one archived revision of it."
        ),
    ],
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Print one memory (or revision) as Markdown with YAML frontmatter.

    The output is byte-stable and can be edited and fed back to `graphit memory upsert`.
    """
    from graphit_cli import wire

    found = _via_daemon(scope, user, {"op": "source", "ref": ref})
    if found is not None:
        memory = wire.memory_from_wire(found)
    else:
        memory = _service(scope, user).source(ref)
    chosen = fmt or Format.markdown
    if chosen is Format.table:
        chosen = Format.markdown
    _render_memories([memory], chosen) if chosen is not Format.json else _render_one_json(memory)


def _render_one_json(memory: Memory) -> None:
    from graphit_cli import render

    out(render.dumps_json(render.to_dict(memory)))


@memory_app.command()
@handle_errors
def history(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory whose chain to show.")],
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Show a memory's revision chain, oldest first, with previous/next links."""
    from graphit_cli import render

    chain = _service(scope, user).history(memory_id)
    chosen = resolve_format(fmt)
    if chosen is Format.table:
        rows = [
            [
                m.key,
                str(m.revision),
                "current" if m.is_live else ("deleted" if m.next is None else "superseded"),
                render.format_time(m.updated_at),
                m.updated_by,
                m.title,
            ]
            for m in chain
        ]
        out(render.table(["KEY", "REV", "STATE", "UPDATED", "BY", "TITLE"], rows))
    else:
        _render_memories(chain, chosen)


@memory_app.command("list")
@handle_errors
def list_(
    types: TypeOpt = None,
    tags: TagOpt = None,
    important: Annotated[
        bool, typer.Option("--important", help="Only important memories.")
    ] = False,
    mandatory: Annotated[
        bool, typer.Option("--mandatory", help="Only mandatory memories.")
    ] = False,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=0, help="At most N memories.")
    ] = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """List live memories: mandatory first, then important, then the rest; newest first."""
    flt = _filter(types, tags, True if important else None, True if mandatory else None)
    _render_memories(_catalogue(scope, user, flt, limit), resolve_format(fmt))


@memory_app.command("important")
@handle_errors
def important_(
    types: TypeOpt = None,
    tags: TagOpt = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """List important memories (curated reference material), in canonical order."""
    flt = _filter(types, tags, True, None)
    _render_memories(_catalogue(scope, user, flt), resolve_format(fmt))


@memory_app.command("mandatory")
@handle_errors
def mandatory_(
    types: TypeOpt = None,
    tags: TagOpt = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Print every mandatory memory in full: what an agent loads at every session start."""
    flt = _filter(types, tags, None, True)
    _render_memories(_catalogue(scope, user, flt), fmt or Format.markdown)


# --- search -------------------------------------------------------------------------------

ModeOpt = Annotated[
    str,
    typer.Option(
        "--mode",
        help="auto (hybrid when vectors exist, else lexical), hybrid, fts or vector.",
    ),
]
TopKOpt = Annotated[
    int, typer.Option("--top-k", "-k", min=0, help="How many memories (0 = no limit).")
]


def _render_hits(hits: list[SearchHit], fmt: Format) -> None:
    from graphit_cli import render

    _emit(hits, fmt, render.hit_to_dict, render.hit_to_markdown, render.hits_table, "No matches.")


@memory_app.command()
@handle_errors
def search(
    query: Annotated[str, typer.Argument(help="What to look for (plain words; no syntax).")],
    top_k: TopKOpt = 10,
    exclude_mandatory: Annotated[
        bool,
        typer.Option("--exclude-mandatory", help="Leave out mandatory memories (already loaded)."),
    ] = False,
    include_deleted: Annotated[
        bool,
        typer.Option("--include-deleted", help="Also show deleted memories (marked deleted)."),
    ] = False,
    mode: ModeOpt = "auto",
    types: TypeOpt = None,
    tags: TagOpt = None,
    important: Annotated[bool, typer.Option("--important", help="Only important.")] = False,
    mandatory: Annotated[bool, typer.Option("--mandatory", help="Only mandatory.")] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Search current and archived memories; one hit per memory, in canonical order.

    Full-text (BM25) and vector (cosine) scores are fused, 0.3 / 0.7. A memory matches when
    it is a full-text hit or its cosine similarity to the query is at least 0.30, so a query
    about nothing returns nothing. A matched mandatory or important memory scoring at least
    0.75 of the best match is never crowded out by higher-scoring normal ones; the remaining
    slots go by relevance. Hits are shown mandatory first, then important, then normal,
    newest first; the score is metadata. Flags and filters are those of the current memory:
    a match on an old revision comes back as `superseded` under the current id. Deleted
    memories are left out unless --include-deleted.

    Examples: graphit memory search "how do we deploy" -k 5;
    graphit memory search "lint rules" --exclude-mandatory -f json

    `--scope all` searches the project, the user scope and recall contexts together.
    """
    from graphit_cli import wire

    flt = _filter(types, tags, True if important else None, True if mandatory else None)
    args = {
        "top_k": top_k,
        "exclude_mandatory": exclude_mandatory,
        "include_deleted": include_deleted,
        "mode": mode.lower(),
    }
    if scope == "all" and not user:  # the project, the user scope and recall contexts
        from graphit_cli.cli.context import search_across

        return search_across(query, fmt, flt=flt, **args)  # type: ignore[arg-type]
    found = _via_daemon(
        scope, user, {"op": "search", "query": query, "filter": wire.filter_to_wire(flt), **args}
    )
    if found is not None:
        result = wire.search_from_wire(found)
    else:
        result = _service(scope, user).search(query, flt=flt, **args)  # type: ignore[arg-type]
    if result.notice:
        note(result.notice)
    _render_hits(result.hits, resolve_format(fmt))


@memory_app.command()
@handle_errors
def recall(
    context: Annotated[
        str | None,
        typer.Argument(help="What the session is about; omit to load mandatory memories only."),
    ] = None,
    top_k: TopKOpt = 10,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """The initial recall protocol in one call: every mandatory memory in full, then a
    search for CONTEXT that leaves the mandatory memories out.

    Without --scope it reads the project, the user scope and every context added with
    --recall, each memory labelled with its scope; --scope/--user reads one scope only.
    """
    from graphit_cli import render, wire

    if scope is None and not user:  # the project, the user scope and recall contexts
        from graphit_cli.cli.context import recall_across

        return recall_across(context, top_k, fmt)
    found = _via_daemon(scope, user, {"op": "recall", "context": context, "top_k": top_k})
    if found is not None:
        result = wire.recall_from_wire(found)
    else:
        result = _service(scope, user).recall(context, top_k=top_k)
    hits = result.search.hits if result.search else []
    chosen = fmt or Format.markdown
    if result.search and result.search.notice:
        note(result.search.notice)
    if chosen is Format.json:
        out(
            render.dumps_json(
                {
                    "mandatory": [render.to_dict(m) for m in result.mandatory],
                    "search": None
                    if result.search is None
                    else {
                        "mode": result.search.mode,
                        "hits": [render.hit_to_dict(h) for h in hits],
                    },
                }
            )
        )
        return
    if chosen is Format.markdown:
        parts = [f"## Mandatory memories ({len(result.mandatory)})\n"]
        parts += [render.to_markdown(m) for m in result.mandatory]
        if result.search is not None:
            parts.append(f"## Relevant memories ({len(hits)})\n")
            parts += [render.hit_to_markdown(h) for h in hits]
        out("\n".join(parts))
        return
    note(f"Mandatory memories ({len(result.mandatory)}):")
    _render_memories(result.mandatory, chosen)
    if result.search is not None:
        note(f"Relevant memories ({len(hits)}):")
        _render_hits(hits, chosen)


@memory_app.command()
@handle_errors
def embed(
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """Compute the missing vectors (live and archived rows) with the packaged model.

    Embeds title + body (the model reads the first 256 word pieces). Rows edited while
    being embedded keep their new text and wait for the next pass. A table embedded by
    another model is re-embedded whole. The daemon runs this on its own.
    """
    import sys

    from graphit_cli import render

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\rembedding {done}/{total}")
            sys.stderr.flush()

    report = _service(scope, user).embed(progress=progress)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    rate = report.embedded / report.seconds if report.seconds else 0.0
    if resolve_format(fmt) in (Format.json, Format.ndjson):
        payload = {
            "model": report.model_id,
            "embedded": report.embedded,
            "skipped": report.skipped,
            "reembedded": report.reembedded,
            "seconds": round(report.seconds, 3),
            "rows_per_second": round(rate, 1),
        }
        out(render.dumps_json(payload))
    else:
        out(
            f"embedded {report.embedded} rows with {report.model_id} in {report.seconds:.1f} s "
            f"({rate:.1f} rows/s)"
            + (f"; {report.skipped} changed meanwhile" if report.skipped else "")
            + ("; re-embedded from another model" if report.reembedded else "")
            + "\n"
        )
