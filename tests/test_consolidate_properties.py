"""Property tests of consolidation's guards over random plans, on real LanceDB tables.

Each example builds a fresh table (its own `context:` scope) of a few memories with random
flags, types, tags and partly repeated text, then applies a random plan: merges, updates, flag
changes and deletes, with right, stale and unknown ids and revisions, malformed actions, and
allow_mass_removal on or off. Whatever the plan says:

- flags are never lost: every memory important or mandatory before is afterwards live with the
  flag, or absorbed (its final revision says where) into a live survivor that has it, unless an
  applied promote/demote/mandatory/optional action explicitly cleared it;
- no guard is bypassed: no bare delete removes a flagged memory, the scope keeps a live memory,
  a plan removing too many memories without allow_mass_removal writes nothing;
- apply then undo restores every memory's content and flags;
- a concurrent edit between the plan and the apply is never overwritten;
- a flag another writer sets during the apply (between a check and a removal) is never lost:
  the removal is refused.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from graphit_cli.access.scopes import Scope
from graphit_cli.consolidate.consolidator import Consolidator, removal_limit
from graphit_cli.consolidate.plan import FLAG_ACTIONS
from graphit_cli.core.models import MEMORY_TYPES, Memory, MemoryDraft, WriteAction
from graphit_cli.errors import InvalidInput, NotFound
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from tests.conftest import examples

SETTINGS = settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TEXTS = [
    ("Use uv", "We install Python packages with uv, never pip."),
    ("Release day", "We ship on Thursdays after the demo."),
    ("Logging", "Structured logs go to stderr as JSON lines."),
]
UNKNOWN = "01JD00000000000000000000ZZ"
_tables = itertools.count()

memory_spec = st.tuples(
    st.integers(0, len(TEXTS) - 1),
    st.booleans(),
    st.booleans(),
    st.sampled_from(MEMORY_TYPES),
    st.sets(st.sampled_from(["a", "b", "c"]), max_size=2),
    st.booleans(),  # share the text of an earlier memory (exact duplicates)
)
# An action over memory indexes (resolved to ids once the table exists): (kind, picks, how)
action_spec = st.tuples(
    st.sampled_from(["merge"] * 4 + ["update", *FLAG_ACTIONS, "delete", "delete", "malformed"]),
    st.lists(st.integers(0, 9), min_size=1, max_size=3),
    st.sampled_from(["seen", "seen", "seen", "stale", "unknown"]),
    st.booleans(),  # merge: give the plan's own text
)


def build(specs: list[tuple[Any, ...]]) -> tuple[MemoryService, list[str]]:
    service = open_service(Scope("context", f"prop{next(_tables)}"))
    drafts = []
    for n, (text, important, mandatory, kind, tags, repeat) in enumerate(specs):
        title, body = TEXTS[text] if repeat else (f"Memory {n}", f"Distinct memory number {n}.")
        drafts.append(
            MemoryDraft(
                title=title,
                body=body,
                type=kind,
                tags=tuple(sorted(tags)),
                important=important,
                mandatory=mandatory,
            )
        )
    ids = [r.memory.id for r in service.upsert_many(drafts).results]
    return service, ids


def make_plan(ids: list[str], actions: list[tuple[Any, ...]]) -> dict[str, Any]:
    out: list[Any] = []
    for kind, picks, how, own_text in actions:
        chosen = list(dict.fromkeys(ids[p % len(ids)] for p in picks))
        if how == "unknown":
            chosen[-1] = UNKNOWN
        revision = 1 if how != "stale" else 7
        if kind == "malformed":
            out.append({"action": "merge", "ids": chosen, "revisions": "nope"})
        elif kind == "merge":
            action = {
                "action": "merge",
                "ids": chosen + ([ids[(picks[0] + 1) % len(ids)]] if len(chosen) == 1 else []),
                "reason": "property test",
            }
            action["keep_id"] = action["ids"][-1]
            action["revisions"] = {i: revision for i in action["ids"]}
            if own_text:
                action |= {"title": "Merged", "body": "One merged text."}
            out.append(action)
        elif kind == "update":
            out.append({"action": "update", "id": chosen[0], "body": "new", "revision": revision})
        else:
            out.append({"action": kind, "id": chosen[0], "revision": revision})
    return {"version": 1, "actions": out}


def state(service: MemoryService) -> dict[str, tuple[Any, ...]]:
    return {
        m.id: (m.title, m.body, m.type, m.tags, m.important, m.mandatory)
        for m in service.catalogue()
    }


def final_of(service: MemoryService, memory_id: str) -> Memory:
    return service.history(memory_id)[-1]


def survivor_of(service: MemoryService, memory_id: str, live: dict[str, Memory]) -> Memory | None:
    """Follow "[merged into X]" final revisions to the live memory that absorbed `memory_id`."""
    current = memory_id
    for _ in range(20):
        if current in live:
            return live[current]
        title = final_of(service, current).title
        if not title.startswith("[merged into "):
            return None
        current = title.removeprefix("[merged into ")[:26]
    return None


@SETTINGS
@given(
    specs=st.lists(memory_spec, min_size=2, max_size=8),
    actions=st.lists(action_spec, min_size=1, max_size=5),
    allow=st.sampled_from([True, True, False]),
)
def test_no_plan_loses_a_flag_bypasses_a_guard_or_survives_undo(
    graphit_home, specs, actions, allow
) -> None:
    service, ids = build(specs)
    before_rows = {m.id: m for m in service.catalogue()}
    before = state(service)
    plan = make_plan(ids, actions)
    consolidator = Consolidator(service)
    try:
        outcome = consolidator.apply(plan, apply=True, allow_mass_removal=allow)
    except InvalidInput as exc:
        # Only the mass-removal guard refuses a well-formed plan as a whole; nothing written.
        assert not allow and "--allow-mass-removal" in exc.message
        event("mass removal refused")
        assert state(service) == before
        return
    live = {m.id: m for m in service.catalogue()}
    assert live, "the last live memory was removed"
    for entry in outcome.applied:
        event(f"applied {entry.action}")
    for entry in outcome.refused:
        event("refused: " + entry.detail.split(": ", 1)[1].split(" ")[1])
    removed = [i for i in before_rows if i not in live]
    assert allow or len(removed) <= removal_limit(len(before_rows))

    cleared = set()
    for entry in outcome.applied:
        if entry.action in FLAG_ACTIONS and not FLAG_ACTIONS[entry.action][1]:
            cleared.add((entry.ids[0], FLAG_ACTIONS[entry.action][0]))
    for memory_id, row in before_rows.items():
        for flag in ("important", "mandatory"):
            if not getattr(row, flag) or (memory_id, flag) in cleared:
                continue
            holder = survivor_of(service, memory_id, live)
            assert holder is not None, f"{memory_id} lost its {flag} memory"
            assert getattr(holder, flag), f"{memory_id}'s {flag} flag was lost"
    for memory_id in removed:
        final = final_of(service, memory_id)
        if not final.title.startswith("[merged into "):  # a bare delete
            assert not (before_rows[memory_id].important or before_rows[memory_id].mandatory)

    if outcome.log is None:
        assert state(service) == before
        return
    undone = consolidator.undo(outcome.log)
    assert undone.refused == [] and undone.failed == []
    assert state(service) == before


@SETTINGS
@given(
    specs=st.lists(memory_spec, min_size=3, max_size=6),
    actions=st.lists(action_spec, min_size=1, max_size=4),
    victim=st.integers(0, 9),
)
def test_a_concurrent_edit_is_never_overwritten(graphit_home, specs, actions, victim) -> None:
    service, ids = build(specs)
    plan = make_plan(ids, actions)
    edited = ids[victim % len(ids)]
    service.upsert(MemoryDraft(id=edited, body="Edited after the plan was written."))
    after_edit = service.source(edited)
    outcome = Consolidator(service).apply(plan, apply=True, allow_mass_removal=True)
    now = service.source(edited)  # still live: nothing may delete or absorb it
    assert (now.title, now.body, now.revision) == (
        after_edit.title,
        after_edit.body,
        after_edit.revision,
    )
    assert all(edited not in e.ids for e in outcome.applied)


# A concurrent writer's schedule: before the apply's n-th write or delete, another handle on
# the same table sets a flag on the memory that call is about ("self") or on another one.
flip_spec = st.lists(
    st.tuples(
        st.integers(0, 12),
        st.sampled_from(["self", "self", "other"]),
        st.integers(0, 9),
        st.sampled_from(["important", "mandatory"]),
    ),
    min_size=1,
    max_size=4,
)


@SETTINGS
@given(
    specs=st.lists(memory_spec, min_size=3, max_size=6),
    actions=st.lists(action_spec, min_size=1, max_size=4),
    flips=flip_spec,
)
def test_a_flag_set_during_the_apply_is_never_removed(
    graphit_home, monkeypatch, specs, actions, flips
) -> None:
    """Flags flipped on by another writer between the plan (and its checks) and the removal:
    every guarded removal is a compare-and-swap on the revision it checked, so the memory the
    other writer flagged is refused, never deleted anyway; nothing else is lost either."""
    from graphit_cli.consolidate import tables

    service, ids = build(specs)
    before_rows = {m.id: m for m in service.catalogue()}
    other = MemoryService(service.store.__class__.open(service.store.uri), service.scope)
    plan = make_plan(ids, actions)
    calls = itertools.count()
    flipped: dict[str, set[str]] = {}

    def writer(about: str) -> None:
        n = next(calls)
        for at, whom, pick, flag in flips:
            if at != n:
                continue
            target = about if whom == "self" else ids[pick % len(ids)]
            try:
                current = other.source(target)
            except NotFound:
                continue  # deleted already: nothing to flag
            result = other.upsert(
                MemoryDraft(id=target, expected_revision=current.revision, **{flag: True})
            )
            if result.action is not WriteAction.UNCHANGED:
                flipped.setdefault(target, set()).add(flag)
                event("a flag flipped during the apply")

    real_write, real_delete = tables.ServiceTable.write, tables.ServiceTable.delete

    def write(self, draft, *args, **kw):
        writer(draft.id)
        return real_write(self, draft, *args, **kw)

    def delete(self, memory_id, *args, **kw):
        writer(memory_id)
        return real_delete(self, memory_id, *args, **kw)

    monkeypatch.setattr(tables.ServiceTable, "write", write)
    monkeypatch.setattr(tables.ServiceTable, "delete", delete)
    outcome = Consolidator(service).apply(plan, apply=True, allow_mass_removal=True)
    monkeypatch.undo()
    live = {m.id: m for m in service.catalogue()}
    assert live, "the last live memory was removed"
    for entry in outcome.refused:
        event("refused: " + entry.detail.split(": ", 1)[1].split(" ")[1])
    # A flag another writer set during the apply is on a live memory afterwards: no plan
    # action may touch that memory any more (its revision moved on).
    for memory_id, flags in flipped.items():
        assert memory_id in live, f"{memory_id} was flagged {flags} during the apply, then removed"
        for flag in flags:
            assert getattr(live[memory_id], flag), f"{memory_id} lost the {flag} set meanwhile"
    # No removed memory was flagged when it was removed (its final revision says).
    for memory_id in before_rows:
        if memory_id in live:
            continue
        final = final_of(service, memory_id)
        if not final.title.startswith("[merged into "):
            assert not (final.important or final.mandatory), f"bare delete of flagged {memory_id}"
        else:
            holder = survivor_of(service, memory_id, live)
            assert holder is not None
            if any(e.action in FLAG_ACTIONS and holder.id in e.ids for e in outcome.applied):
                continue  # the plan changed the survivor's flags itself
            for flag in ("important", "mandatory"):
                assert not getattr(final, flag) or getattr(holder, flag)
