"""What a write checks before it plans a row, and the stamp each row it writes carries: the
drafts validated field by field and given ids, then checked for secrets (`core.secrets`) by
the Writer's policy; exported rows checked the same way. Must not import Typer or Rich.

A `Stamp` is who a write is made as (`updated_by`), the provenance its revisions carry and the
review status of the chain's main line. The Writer has its own (read from the checkout at the
first write); a write made as someone else (the review gate landing an approved proposal as
its proposer's) passes its stamp into the call, so nothing a writer holds is lent or changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from graphit_cli.core import revisions
from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.core.provenance import Provenance
from graphit_cli.errors import GraphitError, InvalidInput, SecretRefused

SECRET_POLICIES = ("refuse", "redact", "allow")


@dataclass(frozen=True)
class Stamp:
    """Who a write is made as, the provenance its revisions carry (stamped by graphit, never
    by the caller) and the review status of the main line (None: the project has no review)."""

    author: str
    provenance: Provenance
    status: str | None = None

    def via(self, via: str) -> Stamp:
        """The same stamp, by way of `via` (a restore says so)."""
        return replace(self, provenance=self.provenance.but(via=via))

    def redacted(self) -> Stamp:
        """The stamp with a secret in its author replaced (the "redact" policy)."""
        from graphit_cli.core import secrets

        if not secrets.find(self.author):
            return self
        author = secrets.redact(self.author)
        return replace(self, author=author, provenance=self.provenance.but(author=author))


def at(index: int, exc: GraphitError) -> GraphitError:
    """`exc` naming the record it is about when the batch has more than one."""
    return type(exc)(exc.message if index == 0 else f"record {index + 1}: {exc.message}")


def prepared(index: int, draft: MemoryDraft) -> tuple[int, MemoryDraft]:
    """`draft` with its id (a new ULID when it names none), every field validated up front so
    that a bad record fails the batch before anything is written."""
    from ulid import ULID

    try:
        memory_id = revisions.validate_id(draft.id) if draft.id else str(ULID())
        if draft.title is not None:
            revisions.validate_title(draft.title)
        if draft.body is not None:
            revisions.normalise_body(draft.body)
        if draft.type is not None:
            revisions.validate_type(draft.type)
        if draft.tags is not None:
            revisions.normalise_tags(draft.tags)
        if draft.id is None and (draft.title is None or draft.body is None):
            raise InvalidInput("a new memory needs a title and a body")
    except InvalidInput as exc:
        raise at(index, exc) from None
    return index, replace(draft, id=memory_id)


def without_secrets(
    policy: str,
    drafts: list[tuple[int, MemoryDraft]],
    given: Sequence[MemoryDraft],
    author: str,
) -> list[tuple[int, MemoryDraft]]:
    """The drafts, checked for secrets (with the `author` they are written as) before anything
    is written or embedded: refused as a whole batch, or redacted, or (`allow`) as they are."""
    if policy == "allow":
        return drafts
    from graphit_cli.core import secrets

    refused: list[str] = []
    out: list[tuple[int, MemoryDraft]] = []
    for index, draft in drafts:
        found = secrets.in_draft(
            draft.title, draft.body, tags=draft.tags, anchors=draft.anchors, author=author
        )
        if found and policy == "redact":
            draft = secrets.redacted_draft(draft)
        elif found:
            name = _record_name(index, given[index], len(drafts))
            refused += secrets.refusal_lines(name, found)
        out.append((index, draft))
    if refused:
        raise SecretRefused(secrets.refusal(refused))
    return out


def rows_without_secrets(policy: str, rows: list[Memory]) -> list[Memory]:
    """Exported rows checked as drafts are (the importer leaves out or redacts the chains
    that hold one before it gets here; this is the write boundary's own check)."""
    if policy == "allow":
        return rows
    from graphit_cli.core import secrets

    refused: list[str] = []
    out: list[Memory] = []
    for row in rows:
        found = secrets.in_row(row)
        if found and policy == "redact":
            row = secrets.redacted_row(row)
        elif found:
            name = f"row {row.key} ({secrets.safe_title(row.title)!r})"
            refused += secrets.refusal_lines(name, found)
        out.append(row)
    if refused:
        raise SecretRefused(secrets.refusal(refused))
    return out


def _record_name(index: int, draft: MemoryDraft, total: int) -> str:
    """How a refusal names a record: its place in a batch, its id when given, and its title
    (with any secret in the title redacted)."""
    from graphit_cli.core import secrets

    parts = [f"record {index + 1}" if total > 1 else "memory"]
    if draft.id:
        parts.append(draft.id)
    if draft.title:
        parts.append(repr(secrets.safe_title(draft.title)))
    return " ".join(parts)
