"""`graphit memory ...`: adapters over MemoryService. Each command parses, calls, renders.

Where the work runs (daemon or in-process) is `client`'s choice; what each format prints is
`output`'s. A command here only turns options into one call and hands the result on.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from graphit_cli.cli import common, output
from graphit_cli.cli.client import ScopeClient
from graphit_cli.cli.common import (
    DOCUMENT,
    LISTING,
    READ,
    RUN,
    WRITE,
    WRITTEN,
    AllowSecretsOpt,
    DocumentFormatOpt,
    Format,
    FormatOpt,
    ImportantOpt,
    LimitOpt,
    MandatoryOpt,
    MemoryType,
    Output,
    PanelGroup,
    RedactOpt,
    ScopeOpt,
    TagOpt,
    TypeOpt,
    UserOpt,
    WrittenFormatOpt,
    YesOpt,
    choice,
    filter_of,
    format_option,
    handle_errors,
    note,
    secret_policy,
)
from graphit_cli.errors import InvalidInput, UsageError

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, MemoryDraft

memory_app = typer.Typer(
    name="memory",
    help="Store, read and search durable memories (preferences, decisions, conventions, ...).\n\n"
    "Every command works on one scope's table: the current project by default "
    "(found through graphit.lock.json), --user for cross-project preferences.",
    cls=PanelGroup,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# What `embed` prints: one line, whatever the text format.
EMBEDDED = Output(Format.table, Format.table, "table and markdown print the same line.")
EmbedFormatOpt = Annotated[Format | None, format_option(EMBEDDED)]

# --- writes -------------------------------------------------------------------------------


@memory_app.command(rich_help_panel=WRITE)
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
    body: Annotated[
        str | None, typer.Option("--body", help="Markdown body (at most 1,000,000 characters).")
    ] = None,
    memory_type: Annotated[
        MemoryType | None,
        typer.Option(
            "--type", "-t", parser=choice(MemoryType, "type"), help="Default for a new one: fact."
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
    anchors: Annotated[
        list[str] | None,
        typer.Option(
            "--anchor",
            metavar="ANCHOR",
            help="What the memory depends on (repeatable): a repo path, a symbol, `make "
            "TARGET`; replaces the ones found in its text.",
        ),
    ] = None,
    redact: RedactOpt = False,
    allow_secrets: AllowSecretsOpt = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: WrittenFormatOpt = None,
) -> None:
    """Create or update memories from flags, a Markdown file, or JSON/NDJSON batches.

    Without --id a new memory is created (with a warning on stderr when a live memory
    already says the same thing). With --id (or an `id` in the input) the memory is
    updated: fields you leave out keep their values, and the old text becomes an archived
    revision. Writing the same content again changes nothing. A batch is one commit.

    In Markdown input the `# Title` line that opens the body is the title (it wins over a
    frontmatter `title:`). A title is one line of at most 300 characters; a body at most
    1,000,000 characters (the model embeds only its first 256 word pieces).

    A record holding a secret (an API key, a token, a password, a private key) is refused
    with exit 3 and nothing of the batch is written; the error names the record, the kind
    and line:column, never the value. Write where the secret lives instead, or pass
    --redact (stored as [REDACTED:<kind>]) or --allow-secrets (a false positive).

    Examples:

    \b
      graphit memory upsert --title "Use uv" --body "We install with uv." -t convention
      graphit memory source 01J... > m.md; $EDITOR m.md; graphit memory upsert m.md
      cat memories.ndjson | graphit memory upsert -
    """
    given = {
        "title": title,
        "body": body,
        "type": memory_type.value if memory_type else None,
        "tags": tuple(tags) if tags is not None else None,
        "important": important,
        "mandatory": mandatory,
        "anchors": tuple(anchors) if anchors is not None else None,
    }
    policy = secret_policy(redact, allow_secrets)
    drafts = _drafts(file, memory_id, {k: v for k, v in given.items() if v is not None})
    # Anchors resolve against this checkout, here, before the write goes anywhere (a daemon
    # serves every checkout).
    from graphit_cli import anchors as anchoring

    root = anchoring.checkout_root()
    client = ScopeClient(scope, user)
    drafts = anchoring.with_anchors_many(drafts, root, [_current(client, d) for d in drafts])
    # New memories that live ones already say are written anyway, with a warning on stderr
    # (scripts rely on the CLI doing what it is told; the MCP insert refuses instead).
    results = client.upsert(drafts, warn=note, secrets=policy)
    output.writes(results, WRITTEN.resolve(fmt))


def _current(client: ScopeClient, draft: MemoryDraft) -> Memory | None:
    """The live memory an update that gives only its title or only its body applies to: its
    anchors are found in the text the memory will have. None for anything else."""
    from graphit_cli.errors import GraphitError

    partial = (draft.title is None) != (draft.body is None)
    if draft.id is None or draft.anchors is not None or not partial:
        return None
    try:
        found = client.source(draft.id)
    except GraphitError:
        return None  # a new id, or a bad one: the write says so
    return found if found.is_live else None


def _drafts(file: str | None, memory_id: str | None, given: dict[str, Any]) -> list[MemoryDraft]:
    """The records to write: from FILE or stdin (flags override their fields), else flags."""
    from dataclasses import replace

    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.formats import parse

    text = _read_input(file, wants_stdin=not given and memory_id is None)
    if text is None:
        return [MemoryDraft(id=memory_id, **given)]
    drafts = parse.parse_input(text, origin=file if file not in (None, "-") else "stdin")
    if memory_id is not None:
        if len(drafts) != 1:
            raise UsageError("--id applies to a single record, not a batch")
        drafts = [replace(drafts[0], id=memory_id)]
    return [replace(d, **given) for d in drafts]


def _read_input(file: str | None, *, wants_stdin: bool) -> str | None:
    from graphit_cli.formats import parse

    if file == "-" or (file is None and wants_stdin):
        if file is None and common.stdin_is_interactive():
            raise UsageError(
                "nothing to write: give --title and --body, a FILE, or pipe Markdown/JSON on stdin"
            )
        return parse.decode_text(sys.stdin.buffer.read(), "stdin")
    if file is None:
        return None
    try:
        return parse.decode_text(Path(file).read_bytes(), file)
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {file}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {file}: {exc.strerror or exc}") from None


@memory_app.command(rich_help_panel=WRITE)
@handle_errors
def delete(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory to delete.")],
    yes: YesOpt = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: WrittenFormatOpt = None,
) -> None:
    """Delete a memory. Its history stays readable: the last revision becomes the final archive.

    Asks first on a terminal; answering no exits 0 with nothing deleted. Bring a deleted
    memory back with `graphit memory restore ID/REVISION_ID`.
    """
    client = ScopeClient(scope, user)
    if not yes:
        if not common.stdin_is_interactive():
            raise UsageError("refusing to delete without --yes when not interactive")
        current = client.source(memory_id)
        if not typer.confirm(f"Delete {current.id} ({current.title!r})?", err=True):
            note("Aborted; nothing deleted.")
            return
    output.writes([client.delete(memory_id)], WRITTEN.resolve(fmt))


@memory_app.command(rich_help_panel=WRITE)
@handle_errors
def restore(
    ref: Annotated[
        str,
        typer.Argument(metavar="ID/REVISION_ID", help="The archived revision to bring back."),
    ],
    redact: RedactOpt = False,
    allow_secrets: AllowSecretsOpt = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: WrittenFormatOpt = None,
) -> None:
    """Make an old revision current again, as a new revision (nothing in between is lost).

    Title, body, type, tags and flags come back as they were in that revision. Works on a
    deleted memory too. Find revision ids with `graphit memory history ID`. A revision
    holding a secret is refused like any write (exit 3), unless --redact or --allow-secrets.

    Example:

      graphit memory restore 01J.../01H...
    """
    policy = secret_policy(redact, allow_secrets)
    result = ScopeClient(scope, user).restore(ref, warn=note, secrets=policy)
    output.writes([result], WRITTEN.resolve(fmt))


# --- reads --------------------------------------------------------------------------------


@memory_app.command(rich_help_panel=READ)
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
    fmt: DocumentFormatOpt = None,
) -> None:
    """Print one memory (or revision) as Markdown with YAML frontmatter.

    The output is byte-stable and can be edited and fed back to `graphit memory upsert`.
    `-f table` shows the same fields as FIELD/VALUE lines; `-f json` one object.
    """
    output.one(ScopeClient(scope, user).source(ref), DOCUMENT.resolve(fmt))


@memory_app.command(rich_help_panel=READ)
@handle_errors
def history(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory whose chain to show.")],
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
    proposed: common.IncludeProposedOpt = False,
) -> None:
    """Show a memory's revision chain, oldest first, with previous/next links.

    Bring an old revision back with `graphit memory restore KEY`.
    """
    output.history(ScopeClient(scope, user).history(memory_id, proposed), LISTING.resolve(fmt))


@memory_app.command("list", rich_help_panel=READ)
@handle_errors
def list_(
    types: TypeOpt = None,
    tags: TagOpt = None,
    important: ImportantOpt = False,
    mandatory: MandatoryOpt = False,
    limit: LimitOpt = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
    proposed: common.IncludeProposedOpt = False,
) -> None:
    """List live memories: mandatory first, then important, then the rest; newest first.

    Example:

      graphit memory list --tag postgres -f table | grep -i replica
    """
    flt = filter_of(types, tags, important, mandatory)
    found = ScopeClient(scope, user).catalogue(flt, limit, include_proposed=proposed)
    output.memories(found, LISTING.resolve(fmt))


@memory_app.command("important", rich_help_panel=READ)
@handle_errors
def important_(
    types: TypeOpt = None,
    tags: TagOpt = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
) -> None:
    """List important memories (curated reference material), in canonical order."""
    found = ScopeClient(scope, user).catalogue(filter_of(types, tags, important=True))
    output.memories(found, LISTING.resolve(fmt), empty="No important memories.")


@memory_app.command("mandatory", rich_help_panel=READ)
@handle_errors
def mandatory_(
    types: TypeOpt = None,
    tags: TagOpt = None,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: DocumentFormatOpt = None,
) -> None:
    """Print every mandatory memory in full: what an agent loads at every session start."""
    found = ScopeClient(scope, user).catalogue(filter_of(types, tags, mandatory=True))
    output.memories(found, DOCUMENT.resolve(fmt), empty="No mandatory memories.")


@memory_app.command(rich_help_panel=RUN)
@handle_errors
def embed(
    reembed: Annotated[
        bool,
        typer.Option(
            "--reembed",
            help="Rewrite a shared (S3) table's vectors with this machine's model when "
            "another model embedded it (every machine then searches it with this one).",
        ),
    ] = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: EmbedFormatOpt = None,
) -> None:
    """Compute the missing vectors (live and archived rows) with the embedding model.

    Embeds title + body (the start of a long body). Rows edited while being embedded keep
    their new text and wait for the next pass. A table records the model that embedded
    it, and a search compares a query only with vectors of that model. A local table
    embedded by another model is re-embedded whole, with progress on stderr; interrupted,
    the next pass resumes it. A shared (S3) table embedded by another model is filled
    with that model when it is installed here; it is rewritten with this machine's model
    only with --reembed. The daemon runs this on its own (never with --reembed).
    """
    from graphit_cli.cli.progress import bar

    with bar("embedding") as progress:
        report = ScopeClient(scope, user).service.embed(progress=progress, reembed=reembed)
    output.embed_report(report, EMBEDDED.resolve(fmt))
