"""`where` strings under hostile values (the design notes' "Errors and bad input").

The CLI validates ids, tags and types before they reach the store; these tests skip that first
line of defence and pass quoted, operator-laden and unicode values straight to the store's and
the service's read and filter methods. Rows are seeded with the same hostile values as keys,
ids, tags and types, so each test proves both halves: a value matches exactly the rows that
hold it, and nothing else (no `' OR '1'='1` widening, no LIKE wildcard, no backslash escape).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graphit_cli.core import revisions
from graphit_cli.core.models import Memory, MemoryDraft, MemoryFilter
from graphit_cli.errors import InvalidInput
from graphit_cli.store import sql
from graphit_cli.store.lance import MemoryStore
from tests.conftest import examples
from tests.embedders import HashingEmbedder

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

# Values that would change a naively formatted query: quotes, comment and statement
# separators, LIKE wildcards, backslash escapes, JSON punctuation, SQL keywords, unicode.
HOSTILE = [
    "x' OR '1'='1",
    "' OR 1=1 --",
    "x') OR ('1'='1",
    "'; DELETE FROM memory; --",
    "'",
    "''",
    "%",
    "_",
    "a%",
    "%a%",
    "a_c",
    "\\",
    "\\'",
    "x\\' OR 1=1 --",
    "\\%",
    '"',
    'a"b',
    '", "b',
    '"]',
    "[",
    ";",
    "*",
    "NULL",
    "true",
    "a\tb",
    "line\nbreak",
    "ünïcødé",
    "日本語",
    "emoji 😀",
    "zero\u200bwidth",
    "a'b",
    "a''b",
    "abc",
]
PLAIN_TAG = "abc"  # a substring of several hostile values above


def row(key: str, *, memory_id: str | None = None, **changes: object) -> Memory:
    """A live row with any key, id, tags or type: no validation, straight to the store."""
    base = revisions.new_memory(
        MemoryDraft(title=f"title {key}", body=f"body of {key}"),
        memory_id="01JD0000000000000000000000",
        scope_kind="project",
        scope_id="01JD0000000000000000000000",
        author="tester",
        now=NOW,
    )
    return replace(base, key=key, id=memory_id or key, **changes)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    """One table for the module (reads never change it): a row per hostile value, used as its
    key, its id, its only tag and its type; plus plain rows that must never be matched."""
    store = MemoryStore.open(str(tmp_path_factory.mktemp("hostile") / "table"))
    rows = [
        row(value, tags=(value,), type=value, content_hash=f"hash:{value}") for value in HOSTILE
    ]
    rows += [
        row(f"plain-{n}", tags=("plain", f"p{n}"), type="fact", content_hash=f"plain:{n}")
        for n in range(3)
    ]
    counts = store.merge(rows)
    assert counts.inserted == len(rows)
    yield store


def test_every_hostile_value_round_trips_as_a_key(seeded: MemoryStore) -> None:
    total = seeded.count()
    for value in HOSTILE:
        found = seeded.get(value)
        assert found is not None, value
        assert (found.key, found.id, found.tags, found.type) == (value, value, (value,), value)
        assert seeded.count(f"key = {sql.literal(value)}") == 1, value
        assert seeded.get(value + "x") is None, value
        assert seeded.get("x" + value) is None, value
    assert seeded.count() == total  # reads never write


def test_chain_heads_and_deleted_ids_match_only_their_id(seeded: MemoryStore) -> None:
    for value in HOSTILE:
        assert [m.key for m in seeded.chain(value)] == [value]
        heads = seeded.heads([value])
        assert set(heads) == {value}
        live, tail = heads[value]
        assert live is not None and live.key == value and tail is None
        assert seeded.deleted_ids([value]) == set()
    everything = seeded.heads(HOSTILE)
    assert set(everything) == set(HOSTILE)
    assert {m.key for m in seeded.live()} == {*HOSTILE, "plain-0", "plain-1", "plain-2"}


def test_a_tag_filter_matches_exactly_the_rows_with_that_tag(seeded: MemoryStore) -> None:
    for value in HOSTILE:
        found = seeded.live(MemoryFilter(tags=(value,)))
        assert [m.key for m in found] == [value], value
    # Two tags must both be present: no row holds two hostile tags.
    assert seeded.live(MemoryFilter(tags=("x' OR '1'='1", "%"))) == []
    assert {m.key for m in seeded.live(MemoryFilter(tags=("plain",)))} == {
        "plain-0",
        "plain-1",
        "plain-2",
    }
    # A tag is matched whole, never as a substring of another tag or of its JSON spelling.
    for fragment in ("a", "b", "x", "OR", "1", "p", "lain", '","', ",", "]", " "):
        found = seeded.live(MemoryFilter(tags=(fragment,)))
        assert found == [], fragment


def test_a_type_filter_matches_exactly_the_rows_of_that_type(seeded: MemoryStore) -> None:
    for value in HOSTILE:
        assert [m.key for m in seeded.live(MemoryFilter(types=(value,)))] == [value], value
    both = seeded.live(MemoryFilter(types=("%", "_")))
    assert sorted(m.key for m in both) == ["%", "_"]
    assert len(seeded.live(MemoryFilter(types=("fact",)))) == 3


def test_content_hash_lookup_is_exact(seeded: MemoryStore) -> None:
    for value in HOSTILE:
        assert [m.key for m in seeded.live_with_hash(f"hash:{value}")] == [value]
    assert seeded.live_with_hash("hash:%") == [seeded.get("%")]
    assert seeded.live_with_hash("hash:") == []
    assert seeded.live_with_hash("%") == []


def test_search_filters_use_the_same_escaping(seeded: MemoryStore) -> None:
    """The filter of a full-text and a vector search matches only the tagged row."""
    vector = HashingEmbedder().embed_query("body")
    for value in HOSTILE:
        flt = MemoryFilter(tags=(value,))
        hits = seeded.search_text("body", 100, flt=flt, live_only=True)
        assert [h.row.key for h in hits] == [value], value
        by_type = seeded.search_text("body", 100, flt=MemoryFilter(types=(value,)))
        assert [h.row.key for h in by_type] == [value], value
        # No row has a vector yet: the filter must still parse and match nothing.
        assert seeded.search_vector(vector, 100, flt=flt, live_only=True) == []


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    value=st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        min_size=1,
        max_size=20,
    )
)
@example(value="' OR ''='")
@example(value="%%")
@example(value="\\\\")
def test_any_value_matches_only_itself(seeded: MemoryStore, value: str) -> None:
    """Arbitrary text as key, id, tag or type finds a seeded row only when it is that value."""
    expected = [value] if value in HOSTILE else []
    found = seeded.get(value)
    assert ([found.key] if found else []) == expected
    assert [m.key for m in seeded.chain(value)] == expected
    assert [m.key for m in seeded.live(MemoryFilter(tags=(value,)))] == expected
    assert [m.key for m in seeded.live(MemoryFilter(types=(value,)))] == expected


_TAG_CHARS = ["a", "b", '"', "\\", ",", " ", "[", "]", "'", "%", "é", "-", ".", "*", "(", "{"]
_TAG_CHARS += ["^", "$", "|", "?", "+", "#", "&", "~"]
_TAG_TEXT = st.text(st.sampled_from(_TAG_CHARS), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def tagged(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[MemoryStore, dict[str, tuple[str, ...]]]:
    """A table of rows whose tags are short strings of JSON and regex punctuation, among them
    the pairs where a tag ending in `[` or `, ` once supplied another tag's anchor."""
    import random

    rng = random.Random(7)
    lists = [(",", "'["), ("a, ", ",b"), (", ",), ("[", "]"), ('"', "\\"), ("a-b", "a.b")]
    lists += [
        tuple(
            {
                "".join(rng.choices(_TAG_CHARS, k=rng.randint(1, 4)))
                for _ in range(rng.randint(1, 4))
            }
        )
        for _ in range(300)
    ]
    store = MemoryStore.open(str(tmp_path_factory.mktemp("tags") / "table"))
    rows = [
        row(f"t{n}", tags=tuple(sorted(tags)), content_hash=f"t{n}") for n, tags in enumerate(lists)
    ]
    store.merge(rows)
    return store, {r.key: r.tags for r in rows}


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(probe=_TAG_TEXT)
@example(probe=", ")
@example(probe=",")
@example(probe="]")
def test_a_tag_filter_matches_a_row_exactly_when_the_tag_is_an_element(
    tagged: tuple[MemoryStore, dict[str, tuple[str, ...]]], probe: str
) -> None:
    """On a real table: the tag filter's `where` (strpos, then a regex over the whole JSON
    array) finds exactly the rows whose tags hold `probe` as an element."""
    store, tags = tagged
    found = {m.key for m in store.live(MemoryFilter(tags=(probe,)))}
    assert found == {key for key, held in tags.items() if probe in held}
    assert sql.tag_pattern(probe).startswith("^")


def test_nul_bytes_are_refused_before_they_reach_a_query() -> None:
    with pytest.raises(ValueError, match="NUL"):
        sql.literal("a\x00' OR '1'='1")


# --- the service: hostile filters and queries on a real table ----------------------------


@pytest.fixture
def filled(service):
    """Four memories through the service; their texts share no token with the attacks below."""
    service.upsert(
        MemoryDraft(title="Deploy", body="Releases go through blue green.", tags=("ops",))
    )
    service.upsert(MemoryDraft(title="Style", body="Indent with four spaces.", tags=("style",)))
    service.upsert(
        MemoryDraft(
            title="Quoted",
            body="The literal text x' OR '1'='1 appears here; also 100% and a_b.",
            tags=("sql",),
        )
    )
    service.upsert(MemoryDraft(title="Uni", body="Café ünïcødé 日本語 notes.", tags=("i18n",)))
    return service


def test_service_filters_with_hostile_tags_and_types_match_nothing(filled) -> None:
    assert len(filled.catalogue()) == 4
    for value in HOSTILE:
        assert filled.catalogue(MemoryFilter(tags=(value,))) == [], value
        assert filled.catalogue(MemoryFilter(types=(value,))) == [], value
        result = filled.search("releases", flt=MemoryFilter(tags=(value,)), mode="fts")
        assert result.hits == [], value
    assert len(filled.catalogue(MemoryFilter(tags=("ops",)))) == 1
    assert filled.store.count() == 4


@pytest.mark.parametrize(
    ("query", "titles"),
    [
        ("x' OR '1'='1", {"Quoted"}),  # the tokens x and 1 are in that body only
        ("' OR ''='", set()),
        ("%", set()),
        ("_", set()),
        ("\\", set()),
        ('"', set()),
        ("; DROP", set()),
        ("*", set()),
        ("ünïcødé", {"Uni"}),
        ("日本語", {"Uni"}),
        ("releases OR 1=1", {"Deploy", "Quoted"}),
    ],
)
def test_hostile_queries_are_plain_text(filled, query: str, titles: set[str]) -> None:
    result = filled.search(query, mode="fts", top_k=10)
    assert {h.memory.title for h in result.hits} == titles


@pytest.mark.parametrize("ref", ["x' OR '1'='1", "%", "_", "*", "01JD'%", "\\", "日本語"])
def test_hostile_references_are_refused(filled, ref: str) -> None:
    with pytest.raises(InvalidInput):
        filled.source(ref)
    with pytest.raises(InvalidInput):
        filled.history(ref)
    with pytest.raises(InvalidInput):
        filled.delete(ref)
    assert filled.store.count() == 4


def test_a_quoted_tag_in_the_table_does_not_leak_into_its_neighbours(tmp_path: Path) -> None:
    """Tags are stored as a JSON array: a tag that spells another tag's JSON is still itself."""
    store = MemoryStore.open(str(tmp_path / "t"))
    store.merge(
        [
            row("k1", tags=("a", "b")),
            row("k2", tags=('a", "b',)),  # would look like two tags in a naive substring match
            row("k3", tags=("a\\",)),
            row("k4", tags=("ab",)),
        ]
    )
    assert {m.key for m in store.live(MemoryFilter(tags=("a",)))} == {"k1"}
    assert {m.key for m in store.live(MemoryFilter(tags=("b",)))} == {"k1"}
    assert {m.key for m in store.live(MemoryFilter(tags=('a", "b',)))} == {"k2"}
    assert {m.key for m in store.live(MemoryFilter(tags=("a\\",)))} == {"k3"}
    assert {m.key for m in store.live(MemoryFilter(tags=("a", "b")))} == {"k1"}
    assert {m.key for m in store.live(MemoryFilter(tags=("ab",)))} == {"k4"}
