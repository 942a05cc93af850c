"""`graphit memory search` and `graphit memory recall`: the read path agents start from.

Registered on the `memory` group (`cli/app.py` imports this module). Like every command,
parse, one call through `client` (the daemon's warm path when it runs), render with `output`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from graphit_cli.cli import output
from graphit_cli.cli.client import ScopeClient
from graphit_cli.cli.common import (
    DOCUMENT,
    LISTING,
    READ,
    DocumentFormatOpt,
    FormatOpt,
    ImportantOpt,
    IncludeProposedOpt,
    MandatoryOpt,
    ScopeOpt,
    SearchMode,
    TagOpt,
    TopKOpt,
    TypeOpt,
    UserOpt,
    choice,
    filter_of,
    handle_errors,
    note,
)
from graphit_cli.cli.memory import memory_app
from graphit_cli.core import profiles, relevance

if TYPE_CHECKING:
    from graphit_cli.core.models import SearchHit

ModeOpt = Annotated[
    SearchMode,
    typer.Option(
        "--mode",
        parser=choice(SearchMode, "search mode"),
        help="auto: hybrid when vectors exist, else lexical.",
    ),
]


# The rule's numbers are shown from where they live (core/profiles.py: the default model's
# profile; core/relevance.py: the lexical shares), so the help cannot drift from the code.
_MODEL = profiles.DEFAULT
SEARCH_HELP = f"""Search current and archived memories; one hit per memory, in canonical order.

Full-text (BM25, times the share of the query's word weight a hit covers) and vector (cosine)
scores are fused with the weights of the model that embedded the table ({_MODEL.model_id}:
{_MODEL.lexical_weight:g} lexical, {1 - _MODEL.lexical_weight:g} semantic). A memory matches
when the query's informative words it contains (stop words left out) carry at least
{relevance.LEXICAL_SHARE:.0%} of their weight, or when it is close in meaning: its cosine
reaches the model's floor ({_MODEL.similarity_floor:.2f}) and its fused score the candidates'
mean plus {_MODEL.fused_z:g} standard deviations. Lexical-only search (--mode fts, or no vectors
yet) also takes a hit carrying {relevance.MIN_SHARE:.0%} of the weight whose score reaches
{relevance.BM25_RELATIVE:.0%} of the best hit's. The same test holds for every category, so a
query about nothing returns nothing and a word most memories share ("use") is not a match.

Among the matches, every mandatory one is selected before any important one and every important
one before any normal one (by relevance inside each); -k counts distinct memories. Hits are
shown mandatory, important, normal, newest first; the table's RELEVANCE column (#rank by
relevance, a bar against the best hit) tells which matched best. Flags and filters are those of
the current memory: a match on an old revision comes back as `superseded` under the current id.
Deleted memories are left out unless --include-deleted.

Examples: graphit memory search "how do we deploy" -k 5;
graphit memory search "lint rules" --exclude-mandatory -f json

`--scope all` searches the project, the user scope and recall contexts together.
"""


@memory_app.command(help=SEARCH_HELP, rich_help_panel=READ)
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
    mode: ModeOpt = SearchMode.auto,
    types: TypeOpt = None,
    tags: TagOpt = None,
    important: ImportantOpt = False,
    mandatory: MandatoryOpt = False,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: FormatOpt = None,
    include_proposed: IncludeProposedOpt = False,
) -> None:
    flt = filter_of(types, tags, important, mandatory)
    if scope == "all" and not user:  # the project, the user scope and recall contexts
        from graphit_cli.cli.context import search_across

        return search_across(
            query,
            fmt,
            flt=flt,
            top_k=top_k,
            exclude_mandatory=exclude_mandatory,
            include_deleted=include_deleted,
            mode=mode.value,
        )
    result = ScopeClient(scope, user).search(
        query,
        flt,
        top_k=top_k,
        exclude_mandatory=exclude_mandatory,
        include_deleted=include_deleted,
        mode=mode.value,
    )
    if result.notice:
        note(result.notice)
    hits = result.hits
    if include_proposed:
        hits = hits + _proposed_hits(ScopeClient(scope, user), query, len(hits))
    output.hits(hits, LISTING.resolve(fmt))


def _proposed_hits(client: ScopeClient, query: str, after: int) -> list[SearchHit]:
    """The open proposals matching `query` as hits after the search's own (ranked on)."""
    from graphit_cli.core.models import SearchHit

    found = client.reader.review.matching(query, include_all=True)
    return [SearchHit(row, row, 0.0, after + n, row.body[:160]) for n, row in enumerate(found, 1)]


@memory_app.command(rich_help_panel=READ)
@handle_errors
def recall(
    context: Annotated[
        str | None,
        typer.Argument(help="What the session is about; omit to load mandatory memories only."),
    ] = None,
    top_k: TopKOpt = 10,
    scope: ScopeOpt = None,
    user: UserOpt = False,
    fmt: DocumentFormatOpt = None,
) -> None:
    """The initial recall protocol in one call: every mandatory memory in full, then a
    search for CONTEXT that leaves the mandatory memories out.

    Without --scope it reads the project, the user scope and every context added with
    --recall, each memory labelled with its scope; --scope/--user reads one scope only.
    """
    if scope is None and not user:  # the project, the user scope and recall contexts
        from graphit_cli.cli.context import recall_across

        return recall_across(context, top_k, fmt)
    output.recall(ScopeClient(scope, user).recall(context, top_k=top_k), DOCUMENT.resolve(fmt))
