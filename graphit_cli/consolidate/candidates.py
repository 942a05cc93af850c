"""Finding consolidation candidates: exact and near duplicates, contradictions, and memories
whose anchors broke in the reader's checkout (pure).

A near group pairs memories that restate each other, never memories merely related: two of
different types (a constraint and a procedure) are grouped only when their words say the same
thing. Two live memories on one subject that say different things (core/contradiction.py) form
a `contradiction` group whose proposed survivor is the newer belief. A mandatory memory is
never proposed for absorption into a memory that is not mandatory. Stale candidates are the
memories whose anchors no longer hold (graphit_cli.anchors, computed by the caller for its
checkout), oldest-verified first; age alone makes nothing stale.

Rows and stored vectors in, a deterministic `Report` out. numpy is imported inside the function
that compares vectors (never at module level: `graphit --help`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphit_cli.core import profiles
from graphit_cli.core.models import Memory
from graphit_cli.errors import InvalidInput

# The near-duplicate cosine is the model's (core/profiles.py `near_duplicate`, calibrated per
# model on benchmarks/data/dedup_pairs.jsonl by benchmarks/dedup.py); the default is MiniLM's.
DEFAULT_THRESHOLD = profiles.DEFAULT.near_duplicate
LEXICAL_CONFIRM = 0.15  # word overlap (of the smaller text) that confirms an embedding match
LEXICAL_ONLY = 0.50  # word Jaccard between memories compared without a vector (conservative)
RELATED_TYPES = 0.7  # word Dice two memories of different types need to be grouped
CONTRADICTION_WORD_LIMIT = 50  # a title word shared by more memories names no subject
_BLOCK = 1024  # rows per block of the similarity matrix (1024 x n float32 at a time)
_WORD = re.compile(r"\w+")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be been but by can do does for from has have if in into is it its "
        "not of on or so such than that the their then there these they this to was we were "
        "when which will with you your our us i me my should must",
    )
)


@dataclass(frozen=True)
class Group:
    kind: str  # "exact" or "near"
    keep_id: str
    similarity: float  # the lowest similarity between any two members
    members: list[Memory]  # the proposed survivor first, then the rest oldest first
    pairs: list[tuple[str, str, float]] = field(default_factory=list)  # near groups' pairs

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.members]


@dataclass(frozen=True)
class Report:
    scope: str
    analysed: int
    groups: list[Group]
    stale: list[Memory]


def normalised_content(memory: Memory) -> str:
    """Title + body with whitespace, case and Unicode form (NFC) folded: equal for exact
    duplicates, however an editor composed their accents."""
    import unicodedata

    text = unicodedata.normalize("NFC", f"{memory.title}\n{memory.body}")
    return " ".join(text.casefold().split())


def words(text: str) -> frozenset[str]:
    """Content words: lower-case, stop words out, a plural `s` folded."""
    raw = set(_WORD.findall(_nfc(text).casefold())) - _STOP
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in raw)


def _nfc(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", text)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared words over the smaller set: a short restatement of a long memory still counts."""
    if not a or not b:
        return 1.0 if a == b else 0.0
    return len(a & b) / min(len(a), len(b))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def survivor_order(memory: Memory) -> tuple[int, int, float, int, str]:
    """Sort key of the proposed survivor: flagged first, then newest, highest revision."""
    return (
        -int(memory.mandatory),
        -int(memory.important),
        -memory.updated_at.timestamp(),
        -memory.revision,
        memory.id,
    )


def merge_order(members: Iterable[Memory], keep_id: str) -> list[Memory]:
    rows = list(members)
    keep = [m for m in rows if m.id == keep_id]
    rest = sorted((m for m in rows if m.id != keep_id), key=lambda m: (m.updated_at, m.id))
    return keep + rest


def find_candidates(
    rows: Sequence[Memory],
    vector_ids: Sequence[str],
    vectors: Any,
    *,
    scope: str,
    now: datetime,
    threshold: float = DEFAULT_THRESHOLD,
    lexical_confirm: float = LEXICAL_CONFIRM,
    lexical_only: float = LEXICAL_ONLY,
    stale: Mapping[str, Sequence[Any]] | None = None,
) -> Report:
    """Exact, near duplicate and contradiction groups, and stale memories, among live `rows`.

    `vectors` holds one stored embedding per id in `vector_ids` (ids not in `rows` are
    ignored). Every pair inside a near group is similar: an embedding cosine >= `threshold`
    confirmed by word overlap >= `lexical_confirm`, or, when either memory has no vector, a
    word Jaccard >= `lexical_only`; memories of different types also restate each other
    (RELATED_TYPES). `stale`: memory id -> its broken anchors (anchors.check for the
    reader's checkout). Deterministic: the same rows give the same report.
    """
    if not 0.0 < threshold <= 1.0:
        raise InvalidInput(f"threshold must be in (0, 1], not {threshold}")
    by_id = {m.id: m for m in rows}
    # Exact duplicates collapse to one representative before the near-duplicate search.
    exact: dict[str, list[Memory]] = {}
    for memory in sorted(rows, key=lambda m: m.id):
        exact.setdefault(normalised_content(memory), []).append(memory)
    clusters: dict[str, list[Memory]] = {}
    for same in exact.values():
        rep = min(same, key=survivor_order)
        clusters[rep.id] = same
    reps = sorted(clusters)
    text_words = _Words(by_id)
    edges = _vector_edges(reps, vector_ids, vectors, threshold, lexical_confirm, text_words)
    with_vector = {i for i in vector_ids if i in clusters}
    edges.update(_lexical_edges(reps, with_vector, text_words, lexical_only))
    edges = {pair: s for pair, s in edges.items() if _groupable(by_id[pair[0]], by_id[pair[1]])}
    rivals = _rival_pairs([by_id[r] for r in reps])
    groups: list[Group] = []
    # Exact duplicates are always an exact group of their own; a near group holds each exact
    # group's proposed survivor (its representative), never a copy at similarity 1.00.
    for rep_id, same in clusters.items():
        if len(same) > 1:
            groups.append(Group("exact", rep_id, 1.0, merge_order(same, rep_id)))
    grouped: set[str] = set()
    for clique in _cliques(edges):
        members = [by_id[rep] for rep in clique]
        grouped.update(clique)
        contradicts = any(_pair(a, b) in rivals for a in clique for b in clique if a < b)
        keep = min(members, key=newer_first if contradicts else survivor_order)
        ordered = merge_order(members, keep.id)
        pairs = [
            (a.id, b.id, round(edges[_pair(a.id, b.id)], 4))
            for i, a in enumerate(ordered)
            for b in ordered[i + 1 :]
        ]
        low = min(p[2] for p in pairs)
        groups.append(
            Group("contradiction" if contradicts else "near", keep.id, low, ordered, pairs)
        )
    for (a, b), score in sorted(rivals.items(), key=lambda r: (-r[1], r[0])):
        if a in grouped or b in grouped:
            continue
        grouped.update((a, b))
        keep = min((by_id[a], by_id[b]), key=newer_first)
        ordered = merge_order((by_id[a], by_id[b]), keep.id)
        groups.append(
            Group("contradiction", keep.id, round(score, 4), ordered, [(a, b, round(score, 4))])
        )
    kinds = {"exact": 0, "near": 1, "contradiction": 2}
    groups.sort(key=lambda g: (kinds[g.kind], -g.similarity, g.keep_id))
    oldest = datetime.min.replace(tzinfo=now.tzinfo)
    broken = sorted(
        (m for m in rows if stale and stale.get(m.id)),
        key=lambda m: (m.verified_at or oldest, m.id),
    )
    return Report(scope, len(rows), groups, broken)


def newer_first(memory: Memory) -> tuple[int, float, int, str]:
    """Sort key of a contradiction's survivor: the newer belief, unless absorbing the other
    would fold a mandatory memory into one that is not (then the mandatory one stays, and the
    merged text carries the newer belief)."""
    return (-int(memory.mandatory), -memory.updated_at.timestamp(), -memory.revision, memory.id)


def _groupable(a: Memory, b: Memory) -> bool:
    """Memories of different types are grouped only when their words say the same thing (a
    constraint and a release procedure on one topic are related, not one memory)."""
    if a.type == b.type:
        return True
    from graphit_cli.core.contradiction import restates

    return restates(a, b, RELATED_TYPES)


def _rival_pairs(rows: Sequence[Memory]) -> dict[tuple[str, str], float]:
    """Pairs on one subject that say different things (core/contradiction.py), found among
    memories sharing a title word (a word shared by more than CONTRADICTION_WORD_LIMIT
    memories is skipped: it names no subject)."""
    from graphit_cli.core import contradiction

    holders: dict[str, list[Memory]] = {}
    for memory in rows:
        for word in contradiction.title_words(memory):
            holders.setdefault(word, []).append(memory)
    found: dict[tuple[str, str], float] = {}
    seen: set[tuple[str, str]] = set()
    for group in holders.values():
        if len(group) > CONTRADICTION_WORD_LIMIT:
            continue
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                pair = _pair(a.id, b.id)
                if pair in seen:
                    continue
                seen.add(pair)
                score = contradiction.rival_score(a, b)
                if score is not None:
                    found[pair] = score
    return found


class _Words(dict[str, frozenset[str]]):
    """Word sets by id, computed on first use: most memories never need theirs."""

    def __init__(self, rows: Mapping[str, Memory]) -> None:
        super().__init__()
        self.rows = rows

    def __missing__(self, memory_id: str) -> frozenset[str]:
        memory = self.rows[memory_id]
        found = self[memory_id] = words(f"{memory.title}\n{memory.body}")
        return found


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _vector_edges(
    ids: list[str],
    vector_ids: Sequence[str],
    vectors: Any,
    threshold: float,
    lexical_confirm: float,
    text_words: Mapping[str, frozenset[str]],
) -> dict[tuple[str, str], float]:
    """Pairs of embedded memories at cosine >= threshold whose words also overlap."""
    import numpy as np

    wanted = set(ids)
    index = [k for k, i in enumerate(vector_ids) if i in wanted]
    if len(index) < 2:
        return {}
    names = [vector_ids[k] for k in index]
    matrix = np.asarray(vectors, dtype=np.float32)[index]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    edges: dict[tuple[str, str], float] = {}
    n = len(names)
    for start in range(0, n, _BLOCK):
        # Only the upper triangle: each block against itself and the rows after it.
        block = matrix[start : start + _BLOCK] @ matrix[start:].T
        rows_, cols = np.nonzero(block >= threshold - 1e-6)
        for r, c in zip(rows_.tolist(), cols.tolist(), strict=True):
            if c <= r:
                continue
            a, b = names[start + r], names[start + c]
            if overlap(text_words[a], text_words[b]) >= lexical_confirm:
                edges[_pair(a, b)] = min(1.0, float(block[r, c]))
    return edges


def _lexical_edges(
    ids: list[str],
    with_vector: set[str],
    text_words: Mapping[str, frozenset[str]],
    minimum: float,
) -> dict[tuple[str, str], float]:
    """Pairs with at least one memory without a vector, at word Jaccard >= minimum.

    Prefix filtering: with each word set sorted rarest first, two sets at Jaccard >= t share
    a word among their first |x| - ceil(t |x|) + 1 words, so only those are indexed.
    """
    if len(with_vector) == len(ids):
        return {}
    frequency = Counter(w for i in ids for w in text_words[i])
    index: dict[str, list[str]] = {}
    for memory_id in ids:
        ordered = sorted(text_words[memory_id], key=lambda w: (frequency[w], w))
        prefix = len(ordered) - math.ceil(minimum * len(ordered)) + 1
        for word in ordered[: max(prefix, 0)]:
            index.setdefault(word, []).append(memory_id)
    edges: dict[tuple[str, str], float] = {}
    for holders in index.values():
        for k, a in enumerate(holders):
            for b in holders[k + 1 :]:
                if a in with_vector and b in with_vector:
                    continue
                pair = _pair(a, b)
                if pair in edges:
                    continue
                score = jaccard(text_words[a], text_words[b])
                if score >= minimum:
                    edges[pair] = score
    return edges


def _cliques(edges: Mapping[tuple[str, str], float]) -> list[list[str]]:
    """Greedy clique partition: strongest pair first, then grow by the best common neighbour.

    Every pair inside a group is an edge (no chaining A~B~C when A and C are not alike); a
    memory belongs to at most one group; ties break by id, so the result is deterministic.
    """
    adjacent: dict[str, dict[str, float]] = {}
    for (a, b), score in edges.items():
        adjacent.setdefault(a, {})[b] = score
        adjacent.setdefault(b, {})[a] = score
    taken: set[str] = set()
    groups: list[list[str]] = []
    for (a, b), _ in sorted(edges.items(), key=lambda e: (-e[1], e[0])):
        if a in taken or b in taken:
            continue
        group = [a, b]
        common = (set(adjacent[a]) & set(adjacent[b])) - taken
        while common:
            best = min(common, key=lambda c: (-min(adjacent[c][m] for m in group), c))
            group.append(best)
            common = (common & set(adjacent[best])) - {best}
        taken.update(group)
        groups.append(sorted(group))
    return groups
