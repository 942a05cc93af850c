"""Property tests of the revision chain (the design notes' "Record schema", "The revision chain").

A Hypothesis state machine drives a real MemoryService on a fresh LanceDB table per example
through creates, content updates, flag changes, no-op updates, stale (conflicting) updates,
batches, deletes and writes to deleted ids, and compares the table with a small in-memory
model after every step: contiguous revisions, links walkable both ways, one live row per live
memory, archive columns, `source` of every revision and its Markdown round trip, the catalogue.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from ulid import ULID

from graphit_cli.access.scopes import Scope
from graphit_cli.core import revisions
from graphit_cli.core.models import MEMORY_TYPES, Memory, MemoryDraft, WriteAction
from graphit_cli.errors import Conflict, InvalidInput, NotFound
from graphit_cli.formats import parse, render
from tests.conftest import examples

# --- the model ------------------------------------------------------------------------------
#
# Normalisation restated from the spec (one-line titles, trimmed bodies, sorted unique tags,
# all in Unicode's composed form, NFC) rather than imported, so the model does not trust the
# code it checks.


def norm_title(value: str) -> str:
    return unicodedata.normalize("NFC", " ".join(value.split()))


def norm_body(value: str) -> str:
    body = value.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip()
    return unicodedata.normalize("NFC", body)


def norm_tags(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(sorted({unicodedata.normalize("NFC", v.strip()) for v in values}))


@dataclass(frozen=True)
class Content:
    title: str
    body: str
    type: str
    tags: tuple[str, ...]
    important: bool
    mandatory: bool


@dataclass
class Model:
    """What one memory should look like: its content at every revision, and whether it is live."""

    history: list[Content] = field(default_factory=list)
    live: bool = True
    updated_at: datetime | None = None

    @property
    def current(self) -> Content:
        return self.history[-1]

    @property
    def revision(self) -> int:
        return len(self.history)


def content_of(row: Memory) -> Content:
    return Content(row.title, row.body, row.type, row.tags, row.important, row.mandatory)


def apply(base: Content, draft: MemoryDraft) -> Content:
    return Content(
        title=norm_title(draft.title) if draft.title is not None else base.title,
        body=norm_body(draft.body) if draft.body is not None else base.body,
        type=draft.type.strip().lower() if draft.type is not None else base.type,
        tags=norm_tags(draft.tags) if draft.tags is not None else base.tags,
        important=base.important if draft.important is None else draft.important,
        mandatory=base.mandatory if draft.mandatory is None else draft.mandatory,
    )


# --- strategies -----------------------------------------------------------------------------

# Printable text: letters, digits, punctuation, symbols and spaces from all of Unicode.
_PRINTABLE = st.characters(categories=("L", "N", "P", "S", "Zs"))
titles = st.text(_PRINTABLE, min_size=1, max_size=24).filter(lambda t: norm_title(t) != "")
bodies = st.text(
    st.one_of(_PRINTABLE, st.sampled_from("\n\r\t #*-`")), min_size=1, max_size=60
).filter(lambda b: norm_body(b).strip() != "")
types = st.sampled_from(MEMORY_TYPES).flatmap(lambda t: st.sampled_from([t, t.upper()]))
tag_lists = st.lists(
    st.sampled_from(["ci", "c++", "c#", "node.js", "team/backend", "area:db", "ünïcode", "a@b"]),
    max_size=4,
).map(tuple)
flags = st.one_of(st.none(), st.booleans())


@st.composite
def new_drafts(draw: st.DrawFn) -> MemoryDraft:
    return MemoryDraft(
        id=draw(st.one_of(st.none(), st.builds(lambda: str(ULID())))),
        title=draw(titles),
        body=draw(bodies),
        type=draw(st.one_of(st.none(), types)),
        tags=draw(st.one_of(st.none(), tag_lists)),
        important=draw(flags),
        mandatory=draw(flags),
    )


@st.composite
def changes(draw: st.DrawFn, current: Content) -> MemoryDraft:
    """An update draft: each field left out, set to a new value, or re-sent unchanged."""

    def pick(new: st.SearchStrategy, same: object) -> object:
        return draw(st.one_of(st.none(), new, st.just(same)))

    return MemoryDraft(
        title=pick(titles, current.title),
        body=pick(bodies, current.body),
        type=pick(types, current.type),
        tags=pick(tag_lists, current.tags),
        important=draw(flags),
        mandatory=draw(flags),
    )


def cosmetic_copy(current: Content) -> MemoryDraft:
    """The current content spelled differently: normalisation must make it a no-op."""
    return MemoryDraft(
        title="  " + current.title.replace(" ", "   ") + " ",
        body="\r\n\n" + current.body.replace("\n", "\r\n") + "  \n\n",
        type=current.type.upper(),
        tags=tuple(reversed(current.tags)) + current.tags,
        important=current.important,
        mandatory=current.mandatory,
    )


# --- the state machine ----------------------------------------------------------------------


class ChainMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        from graphit_cli.opening import open_service

        # A fresh table per example: tmp_path is per test, not per Hypothesis example.
        self.home = tempfile.mkdtemp(prefix="graphit-chain-")
        os.environ["GRAPHIT_HOME"] = self.home  # restored by the autouse graphit_home fixture
        self.service = open_service(Scope("project", str(ULID())))
        self.models: dict[str, Model] = {}
        self.verified: set[Memory] = set()  # rows whose `source` and Markdown were checked

    def teardown(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)

    # helpers

    def live_ids(self) -> list[str]:
        return sorted(i for i, m in self.models.items() if m.live)

    def deleted_ids(self) -> list[str]:
        return sorted(i for i, m in self.models.items() if not m.live)

    def has_live(self) -> bool:
        return bool(self.live_ids())

    def has_deleted(self) -> bool:
        return bool(self.deleted_ids())

    def rows_of(self, memory_id: str) -> int:
        return len(self.service.store.chain(memory_id))

    def expect_write(self, memory_id: str, draft: MemoryDraft, result_action: WriteAction) -> None:
        """Update the model for one write to `memory_id`; check the action the service reported."""
        model = self.models[memory_id]
        if not model.live:  # writing to a deleted id always continues the chain
            assert result_action is WriteAction.UPDATED
            model.history.append(apply(model.current, draft))
            model.live = True
            return
        wanted = apply(model.current, draft)
        if wanted == model.current:
            assert result_action is WriteAction.UNCHANGED
        else:
            assert result_action is WriteAction.UPDATED
            model.history.append(wanted)

    # rules

    @rule(draft=new_drafts())
    def create(self, draft: MemoryDraft) -> None:
        result = self.service.upsert(draft)
        assert result.action is WriteAction.CREATED
        row = result.memory
        if draft.id is not None:
            assert row.id == draft.id
        assert row.id not in self.models
        assert (row.key, row.revision, row.revision_id) == (row.id, 1, "")
        assert (row.previous, row.next, row.superseded) == (None, None, False)
        base = Content("", "", "fact", (), False, False)
        self.models[row.id] = Model(history=[apply(base, draft)], updated_at=row.updated_at)
        assert content_of(row) == self.models[row.id].current

    @precondition(has_live)
    @rule(data=st.data())
    def update(self, data: st.DataObject) -> None:
        memory_id = data.draw(st.sampled_from(self.live_ids()), label="id")
        draft = replace(data.draw(changes(self.models[memory_id].current)), id=memory_id)
        rows_before = self.rows_of(memory_id)
        result = self.service.upsert(draft)
        self.expect_write(memory_id, draft, result.action)
        model = self.models[memory_id]
        assert result.memory.revision == model.revision
        assert content_of(result.memory) == model.current
        if result.action is WriteAction.UNCHANGED:
            assert self.rows_of(memory_id) == rows_before  # a no-op writes no revision
        else:
            assert self.rows_of(memory_id) == rows_before + 1
            model.updated_at = result.memory.updated_at

    @precondition(has_live)
    @rule(data=st.data(), important=st.booleans(), mandatory=flags)
    def set_flags(self, data: st.DataObject, important: bool, mandatory: bool | None) -> None:
        memory_id = data.draw(st.sampled_from(self.live_ids()), label="id")
        draft = MemoryDraft(id=memory_id, important=important, mandatory=mandatory)
        result = self.service.upsert(draft)
        self.expect_write(memory_id, draft, result.action)
        assert (result.memory.important, result.memory.mandatory) == (
            self.models[memory_id].current.important,
            self.models[memory_id].current.mandatory,
        )
        if result.action is WriteAction.UPDATED:
            self.models[memory_id].updated_at = result.memory.updated_at

    @precondition(has_live)
    @rule(data=st.data())
    def noop_update(self, data: st.DataObject) -> None:
        memory_id = data.draw(st.sampled_from(self.live_ids()), label="id")
        model = self.models[memory_id]
        rows_before = self.rows_of(memory_id)
        draft = replace(cosmetic_copy(model.current), id=memory_id)
        result = self.service.upsert(draft)
        assert result.action is WriteAction.UNCHANGED
        assert result.memory.revision == model.revision
        assert result.memory.updated_at == model.updated_at
        assert self.rows_of(memory_id) == rows_before

    @precondition(lambda self: any(m.live and m.revision > 1 for m in self.models.values()))
    @rule(data=st.data())
    def stale_update(self, data: st.DataObject) -> None:
        """An update that read an older revision is refused and writes nothing."""
        candidates = [i for i in self.live_ids() if self.models[i].revision > 1]
        memory_id = data.draw(st.sampled_from(candidates), label="id")
        model = self.models[memory_id]
        stale = data.draw(st.integers(1, model.revision - 1), label="expected_revision")
        rows_before = self.rows_of(memory_id)
        with pytest.raises(Conflict):
            self.service.upsert(
                MemoryDraft(
                    id=memory_id, body="stale " + model.current.body, expected_revision=stale
                )
            )
        assert self.rows_of(memory_id) == rows_before

    @precondition(lambda self: len(self.models) > 0)
    @rule(data=st.data())
    def batch_twice(self, data: st.DataObject) -> None:
        """Two drafts for one id in one batch are applied in order."""
        memory_id = data.draw(st.sampled_from(sorted(self.models)), label="id")
        first = replace(data.draw(changes(self.models[memory_id].current)), id=memory_id)
        second = replace(
            data.draw(changes(apply(self.models[memory_id].current, first))), id=memory_id
        )
        batch = self.service.upsert_many([first, second])
        for draft, result in zip((first, second), batch.results, strict=True):
            self.expect_write(memory_id, draft, result.action)
            if result.action is not WriteAction.UNCHANGED:
                self.models[memory_id].updated_at = result.memory.updated_at
        assert batch.results[-1].memory.revision == self.models[memory_id].revision
        assert content_of(batch.results[-1].memory) == self.models[memory_id].current

    @precondition(has_live)
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        memory_id = data.draw(st.sampled_from(self.live_ids()), label="id")
        model = self.models[memory_id]
        result = self.service.delete(memory_id)
        assert result.action is WriteAction.DELETED
        final = result.memory
        assert final.key == f"{memory_id}/{final.revision_id}"
        assert (final.revision, final.superseded, final.next) == (model.revision, True, None)
        model.live = False

    @precondition(has_deleted)
    @rule(data=st.data())
    def delete_again(self, data: st.DataObject) -> None:
        memory_id = data.draw(st.sampled_from(self.deleted_ids()), label="id")
        rows_before = self.rows_of(memory_id)
        with pytest.raises(NotFound):
            self.service.delete(memory_id)
        with pytest.raises(NotFound):
            self.service.source(memory_id)
        assert self.rows_of(memory_id) == rows_before

    @precondition(has_deleted)
    @rule(data=st.data())
    def write_deleted(self, data: st.DataObject) -> None:
        """Writing to a deleted id continues its chain with a new live row."""
        memory_id = data.draw(st.sampled_from(self.deleted_ids()), label="id")
        draft = replace(data.draw(changes(self.models[memory_id].current)), id=memory_id)
        rows_before = self.rows_of(memory_id)
        result = self.service.upsert(draft)
        self.expect_write(memory_id, draft, result.action)
        model = self.models[memory_id]
        assert result.memory.revision == model.revision
        assert content_of(result.memory) == model.current
        assert self.rows_of(memory_id) == rows_before + 1
        model.updated_at = result.memory.updated_at

    # invariants

    @invariant()
    def chains_are_intact(self) -> None:
        total_rows = 0
        for memory_id, model in self.models.items():
            chain = self.service.store.chain(memory_id)
            total_rows += len(chain)
            check_chain(memory_id, chain, model)
            for row in chain:
                if row not in self.verified:  # new or changed since the last step
                    check_source(self.service, row)
                    self.verified.add(row)
        # nothing else in the table: no orphan archives, no duplicate rows
        assert self.service.store.count() == total_rows

    @invariant()
    def catalogue_matches_model(self) -> None:
        # The catalogue: live rows in canonical order.
        listed = self.service.catalogue()
        expected = sorted(
            (i for i, m in self.models.items() if m.live),
            key=lambda i: (
                0
                if self.models[i].current.mandatory
                else 1
                if self.models[i].current.important
                else 2,
                -self.models[i].updated_at.timestamp(),
                i,
            ),
        )
        assert [m.id for m in listed] == expected
        for row in listed:
            model = self.models[row.id]
            assert (row.revision, content_of(row)) == (model.revision, model.current)
            assert row.updated_at == model.updated_at


def check_chain(memory_id: str, chain: list[Memory], model: Model) -> None:
    assert [m.revision for m in chain] == list(range(1, model.revision + 1)), "revisions 1..N"
    assert [content_of(m) for m in chain] == model.history, "each revision keeps its content"
    keys = [m.key for m in chain]
    assert len(set(keys)) == len(keys), "no duplicate keys"
    live_rows = [m for m in chain if m.revision_id == ""]
    assert len(live_rows) == (1 if model.live else 0), "one live row per live memory"
    archived = chain[:-1] if model.live else chain
    for row in archived:
        assert row.revision_id != "" and row.superseded is True
        assert row.key == f"{memory_id}/{row.revision_id}"
        assert revisions.parse_ref(row.key) == (memory_id, row.revision_id)
    if model.live:
        head = chain[-1]
        assert (head.key, head.revision_id, head.superseded, head.next) == (
            memory_id,
            "",
            False,
            None,
        )
    # the links, both ways
    assert chain[0].previous is None
    for older, newer in pairwise(chain):
        assert older.next == newer.key, f"r{older.revision}.next"
        assert newer.previous == older.key, f"r{newer.revision}.previous"
    if archived:
        assert archived[-1].next == (memory_id if model.live else None)
    if model.live and archived:
        assert chain[-1].previous == archived[-1].key
    by_key = {m.key: m for m in chain}
    forward, key = [], chain[0].key
    while key is not None:
        forward.append(key)
        key = by_key[key].next
        assert len(forward) <= len(chain), "cycle in next links"
    assert forward == keys
    backward, key = [], chain[-1].key
    while key is not None:
        backward.append(key)
        key = by_key[key].previous
        assert len(backward) <= len(chain), "cycle in previous links"
    assert backward == keys[::-1]


def check_source(service, row: Memory) -> None:
    shown = service.source(row.key)
    assert shown == row
    assert_markdown_round_trip(shown)


def assert_markdown_round_trip(row: Memory) -> None:
    from graphit_cli.formats.visible import visible

    text = render.to_markdown(row)
    assert render.to_markdown(row) == text, "rendering is byte-stable"
    draft = parse.parse_markdown(text, "source")
    # What `upsert` would store from the parsed draft is the row's content.
    assert draft.id == row.id
    assert draft.title is not None and draft.body is not None
    assert revisions.validate_title(draft.title) == row.title
    # A control character is shown visibly (formats/visible.py): it comes back as its picture.
    assert revisions.normalise_body(draft.body) == revisions.normalise_body(visible(row.body))
    assert revisions.validate_type(draft.type or "") == row.type
    assert revisions.normalise_tags(draft.tags or ()) == row.tags
    assert (draft.important, draft.mandatory) == (row.important, row.mandatory)
    assert draft.expected_revision == row.revision


def run_chain_machine(examples: int, steps: int) -> None:
    run_state_machine_as_test(
        ChainMachine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


def test_revision_chain_state_machine() -> None:
    """A short run for the default tier; the long one below runs in the slow tier."""
    run_chain_machine(4, 10)


@pytest.mark.slow
def test_revision_chain_state_machine_long() -> None:
    run_chain_machine(25, 15)


# --- Markdown round trip of anything the service accepts ------------------------------------


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(title=st.text(min_size=1, max_size=30), body=st.text(min_size=1, max_size=60))
@example(title="plain title", body="plain body")
@example(title="a: b # c", body="---\nnot: frontmatter\n---\n# plain title")
@example(title="noncharacter \uffff", body="body")
@example(title="noncharacter \ufffe", body="body")
def test_source_markdown_round_trips_any_accepted_text(service, title: str, body: str) -> None:
    """Whatever `upsert` accepts, `source` renders as Markdown that `upsert` accepts back."""
    try:
        created = service.upsert(MemoryDraft(title=title, body=body, tags=("x",)))
    except InvalidInput:
        return  # refused up front: nothing to round-trip
    memory_id = created.memory.id
    service.upsert(MemoryDraft(id=memory_id, body=body + "\nedited"))
    for row in service.history(memory_id):  # the archived revision and the live row
        shown = service.source(row.key)
        assert shown == row
        assert_markdown_round_trip(shown)
