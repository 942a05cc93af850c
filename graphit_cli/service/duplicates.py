"""The service's duplicate guard: does a new memory say what a live one already says?

`DuplicateGuard` is one of `MemoryService`'s collaborators (see service_base.py); callers use
it through `MemoryService`. Must not import Typer or Rich.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from graphit_cli.core import profiles, revisions
from graphit_cli.core.models import Memory, MemoryDraft
from graphit_cli.errors import InvalidInput
from graphit_cli.service.common import EmbedderFactory, one_view

if TYPE_CHECKING:
    from graphit_cli.store.base import Store

_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
DUPLICATE_CANDIDATES = 8  # nearest live memories compared, per retriever
DUPLICATE_WORDS = 0.9  # Dice overlap of the bodies' word counts
DUPLICATE_TITLE = 0.6  # title similarity (character or word overlap, whichever is higher)
BATCH_HASH_LOOKUPS = 20  # a batch with more new records reads the live rows once instead


class DuplicateGuard:
    """Finds the live memory a new one would repeat (exact, near-exact wording, or meaning)."""

    def __init__(self, store: Store, embedder: EmbedderFactory) -> None:
        self.store = store
        self._embedder_factory = embedder

    def duplicate_notes(self, drafts: Sequence[MemoryDraft]) -> list[str]:
        """The warnings `graphit memory upsert` prints on stderr before writing anyway: new
        memories that live ones already say (the CLI in-process and the daemon alike).

        A single record is compared by wording, a batch by exact content (cheap for imports);
        neither waits for the model. Records with an id name their memory and are not checked.
        """
        from graphit_cli.errors import GraphitError

        if len(drafts) > 1:
            repeats = self.live_duplicates(drafts)
            notes = [
                f"Warning: record {index + 1} repeats memory {same.id} ({same.title!r}); "
                f'give it "id": "{same.id}" to update that memory instead '
                "(written anyway as a new memory)"
                for index, same in repeats[:5]
            ]
            if len(repeats) > 5:
                notes.append(f"Warning: {len(repeats) - 5} more records repeat live memories")
            return notes
        try:
            existing = self.find_duplicate(drafts[0], semantic=False)
            rival = None if existing is not None else self.find_rival(drafts[0])
        except GraphitError:
            return []  # the write itself reports what is wrong with the draft
        if rival is not None:
            return [
                f"Note: memory {rival.id} ({rival.title!r}) is on the same subject and says "
                f"otherwise; if this replaces it, update it instead: `graphit memory upsert "
                f"--id {rival.id}` (written anyway as a new memory)"
            ]
        if existing is None:
            return []
        return [
            f"Warning: memory {existing.id} ({existing.title!r}) already says this; to change "
            f"it, use `graphit memory upsert --id {existing.id}` (written anyway as a new memory)"
        ]

    @one_view
    def find_rival(self, draft: MemoryDraft) -> Memory | None:
        """A live memory on the new memory's subject that says something different (the one
        it may update: core/contradiction.py), among its nearest by words; None for an update."""
        from graphit_cli.core import contradiction, revisions
        from graphit_cli.embed import document_text

        if draft.id is not None or draft.title is None or draft.body is None:
            return None
        probe = revisions.new_memory(
            draft,
            memory_id="0" * 26,
            scope_kind="",
            scope_id="",
            author="",
            now=_EPOCH,
        )
        hits = self.store.search_text(
            document_text(probe.title, probe.body),
            DUPLICATE_CANDIDATES,
            live_only=True,
            vector_flags=False,
        )
        found = contradiction.rivals(probe, [hit.row for hit in hits])
        return found[0] if found else None

    @one_view
    def find_duplicate(self, draft: MemoryDraft, *, semantic: bool = True) -> Memory | None:
        """A live memory that already says what `draft` would create, or None.

        Only a creation without an id is checked (a draft with an id names its memory). A
        duplicate has the same content hash; or near-identical wording (bag of words) and a
        similar title; or, when `semantic` and the table's vectors come from the available
        model, an embedding at the model's duplicate cosine (`profiles`) and a similar title.
        Rows still waiting for their vector are covered by the first two tests.
        """
        from graphit_cli.core.models import DEFAULT_TYPE
        from graphit_cli.embed import document_text

        if draft.id is not None or draft.title is None or draft.body is None:
            return None
        title = revisions.validate_title(draft.title)
        body = revisions.normalise_body(draft.body)
        memory_type = revisions.validate_type(draft.type or DEFAULT_TYPE)
        tags = revisions.normalise_tags(draft.tags or ())
        for form in _forms(title, body):  # as written, NFC, NFD: one text, however composed
            exact = self.store.live_with_hash(
                revisions.content_hash(*form, memory_type, tags), limit=1
            )
            if exact:
                return exact[0]
        words = _word_counts(body)
        text = document_text(title, body)
        for hit in self.store.search_text(
            text, DUPLICATE_CANDIDATES, live_only=True, vector_flags=False
        ):
            row = hit.row
            if _dice(words, _word_counts(row.body)) >= DUPLICATE_WORDS and _similar_title(
                title, row.title
            ):
                return row
        if not semantic or (table_model := self.store.embedding_model()) is None:
            return None
        embedder = self._embedder_factory()
        if embedder is None or embedder.model_id != table_model:
            return None
        cosine = profiles.profile_for(table_model).duplicate_cosine
        vector = embedder.embed_documents([text])[0]
        for row, similarity in self.store.search_vector(
            vector, DUPLICATE_CANDIDATES, live_only=True
        ):
            if similarity >= cosine and _similar_title(title, row.title):
                return row
        return None

    def live_duplicates(self, drafts: Sequence[MemoryDraft]) -> list[tuple[int, Memory]]:
        """(index, live memory) for each new draft (no id) whose exact content is already live.

        The cheap check for batches: a content-hash lookup, no wording or vector comparison
        (the single-record guard is `find_duplicate`). Invalid drafts are skipped; the write
        reports them.
        """
        from graphit_cli.core.models import DEFAULT_TYPE

        wanted: dict[str, list[int]] = {}
        for index, draft in enumerate(drafts):
            if draft.id is not None or draft.title is None or draft.body is None:
                continue
            try:
                title = revisions.validate_title(draft.title)
                body = revisions.normalise_body(draft.body)
                memory_type = revisions.validate_type(draft.type or DEFAULT_TYPE)
                tags = revisions.normalise_tags(draft.tags or ())
            except InvalidInput:
                continue
            for form in _forms(title, body):
                wanted.setdefault(revisions.content_hash(*form, memory_type, tags), []).append(
                    index
                )
        if len(wanted) <= BATCH_HASH_LOOKUPS:
            found = [m for h in wanted for m in self.store.live_with_hash(h, limit=1)]
        else:  # one pass over the live rows beats a lookup per record
            found = [m for m in self.store.live() if m.content_hash in wanted]
        by_hash = {m.content_hash: m for m in found}
        pairs = {i: by_hash[h] for h, indexes in wanted.items() if h in by_hash for i in indexes}
        return sorted(pairs.items(), key=lambda pair: pair[0])


def _forms(title: str, body: str) -> list[tuple[str, str]]:
    """The text as written, then its NFC and NFD forms where they differ: duplicates are
    decided on the text a reader sees, not on how its accents were composed. The stored text
    stays as written (the content hash, exports and `source` keep the author's bytes)."""
    forms = [(title, body)]
    for name in ("NFC", "NFD"):
        form = (unicodedata.normalize(name, title), unicodedata.normalize(name, body))
        if form not in forms:
            forms.append(form)
    return forms


def _word_counts(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", unicodedata.normalize("NFC", text).casefold()))


def _dice(a: Counter[str], b: Counter[str]) -> float:
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 1.0


def _similar_title(a: str, b: str) -> bool:
    from difflib import SequenceMatcher

    left = unicodedata.normalize("NFC", a).casefold()
    right = unicodedata.normalize("NFC", b).casefold()
    chars = SequenceMatcher(None, left, right).ratio()
    words_a, words_b = set(re.findall(r"\w+", left)), set(re.findall(r"\w+", right))
    union = words_a | words_b
    words = len(words_a & words_b) / len(union) if union else 1.0
    return max(chars, words) >= DUPLICATE_TITLE
