"""The vectors of the rows a write commits: `RowVectors`, the Writer's part that embeds the
texts a batch's rows will have before its first commit (with no lock held), gives each row
the vector it commits with, and fills exported rows that come without one. Must not import
Typer or Rich.

A row commits with a vector only when the table's vectors are the write's model's (a table no
model has embedded yet adopts it); a table embedded by another model gets none, and the
embedding pass re-embeds it whole. What is left without a vector is counted on
`WriteVectors` (service/vectors.py), for the CLI to say so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from graphit_cli.core import revisions
from graphit_cli.core.models import Memory, MemoryDraft

if TYPE_CHECKING:
    from graphit_cli.service.vectors import WriteVectors
    from graphit_cli.store.base import Store

_AHEAD_READ = 256  # chain heads read at once while choosing the texts to embed ahead


class RowVectors:
    """The vectors for one writer's rows: `vectors` embeds, `store` says whose vectors the
    table holds."""

    def __init__(self, store: Store, vectors: WriteVectors) -> None:
        self.store = store
        self.vectors = vectors

    def embed_ahead(self, drafts: list[tuple[MemoryDraft, bool]]) -> None:
        """Embed the texts the batch's rows will have (each draft with whether it is new),
        up to the bound, in input order. A draft that leaves its title or body out takes them
        from the live row; a row whose text keeps its vector is not embedded again."""
        from graphit_cli.embed import document_text

        vectors = self.vectors
        texts: list[str] = []
        partial: list[MemoryDraft] = []

        def known(batch: list[MemoryDraft]) -> None:
            heads = self.store.heads([d.id for d in batch if d.id], vectors=True)
            for draft in batch:
                live, tail = heads.get(draft.id or "", (None, None))
                current = live or tail
                if current is None:
                    if draft.title is not None and draft.body is not None:
                        texts.append(_text(draft.title, draft.body))
                    continue
                text = _text(
                    current.title if draft.title is None else draft.title,
                    current.body if draft.body is None else draft.body,
                )
                kept = current.embedding is not None
                if not kept or text != document_text(current.title, current.body):
                    texts.append(text)

        for draft, new in drafts:
            if len(texts) >= vectors.limit:
                break
            if new and draft.title is not None and draft.body is not None:
                texts.append(_text(draft.title, draft.body))
                continue
            partial.append(draft)
            if len(partial) >= _AHEAD_READ:
                known(partial)
                partial = []
        if partial and len(texts) < vectors.limit:
            known(partial)
        if texts:
            vectors.fill(texts)

    def imported(self, rows: list[Memory]) -> list[Memory]:
        """Exported rows with a vector each where the write's model can give one (the rows
        that came without; the live ones first), when the table's vectors are its model's."""
        from graphit_cli.embed import document_text

        vectors = self.vectors
        bare = sorted((r for r in rows if r.embedding is None), key=lambda r: not r.is_live)
        if not bare:
            return rows
        vectors.fill([document_text(r.title, r.body) for r in bare])
        if not self.table_takes_vectors():
            if vectors.failure:
                vectors.wrote(len(bare))
            return rows
        filled = [
            replace(r, embedding=_tuple(vectors.vector(document_text(r.title, r.body))))
            if r.embedding is None
            else r
            for r in rows
        ]
        vectors.wrote(sum(1 for r in filled if r.embedding is None))
        return filled

    def table_takes_vectors(self) -> bool:
        """Whether this attempt commits vectors: the write embedded something and the table's
        vectors are (or, for a table no model has embedded yet, become) its model's. A table
        embedded by another model gets none: the embedding pass re-embeds it whole."""
        vectors = self.vectors
        if not vectors.embedded or vectors.model_id is None:
            return False
        current = self.store.embedding_model()
        if current is None:
            self.store.set_embedding_model(vectors.model_id)  # before the version is read
            current = self.store.embedding_model()  # a racing first writer's, if it won
        return current == vectors.model_id

    def vector_for(
        self, row: Memory, newest: Memory | None, embedding: bool
    ) -> tuple[float, ...] | None:
        """The vector live row `row` commits with: the one its text already had in the newest
        revision `newest` (an edit of the type or tags: the vector is of the title and body),
        else with `embedding` the one embedded ahead; None when neither exists (the
        embedding pass fills it)."""
        from graphit_cli.embed import document_text

        text = document_text(row.title, row.body)
        vector = None
        if newest is not None and document_text(newest.title, newest.body) == text:
            vector = newest.embedding
        if vector is None and embedding:
            vector = _tuple(self.vectors.vector(text))
        return vector

    def count_unembedded(self, written: list[Memory], embedding: bool) -> None:
        """Count the committed live rows `written` that went without a vector."""
        if embedding or self.vectors.failure:
            self.vectors.wrote(sum(1 for row in written if row.embedding is None))


def _tuple(vector: list[float] | None) -> tuple[float, ...] | None:
    return tuple(vector) if vector is not None else None


def _text(title: str, body: str) -> str:
    """What the model embeds for a memory with this title and body (as the row will hold
    them)."""
    from graphit_cli.embed import document_text

    return document_text(revisions.validate_title(title), revisions.normalise_body(body))
