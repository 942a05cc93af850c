"""Consolidation: deterministic candidates, agent-written plans, guarded apply, undo.

graphit finds candidates (exact and near duplicates, stale memories) deterministically; an agent
or a person writes the merged text as a plan; `Consolidator` applies the plan under guards that
no plan can talk its way past, logs every change and undoes a logged apply. The contract is
`contracts/consolidation.md`. The CLI, the MCP server and the Explorer call `Consolidator`, so
they share its guards.

Longer than ~400 lines on purpose: candidates, the plan, the guards and undo are one use-case
whose rules refer to each other, and splitting them would scatter the guards. numpy is imported
inside the functions that compare vectors (never at module level: `graphit --help`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from graphit_cli import config, revisions
from graphit_cli.errors import Conflict, GraphitError, InvalidInput, NotFound
from graphit_cli.models import Memory, MemoryDraft, WriteAction

if TYPE_CHECKING:
    from graphit_cli.service import MemoryService

# Calibrated on benchmarks/data/dedup_pairs.jsonl with all-MiniLM-L6-v2 (benchmarks/dedup.py):
# precision 0.97, recall 0.89 for pairs to consolidate (duplicates, paraphrases, contradictions
# against related-but-different memories); every threshold from 0.475 to 0.55 keeps P >= 0.95
# and R >= 0.80, so the default sits in the middle of that plateau.
DEFAULT_THRESHOLD = 0.50
LEXICAL_CONFIRM = 0.15  # word overlap (of the smaller text) that confirms an embedding match
LEXICAL_ONLY = 0.50  # word Jaccard between memories compared without a vector (conservative)
STALE_DAYS = 90
MASS_FRACTION = 0.25  # a plan removing more than this share of the live memories ...
MASS_COUNT = 20  # ... or more than this many is refused without allow_mass_removal
PLAN_VERSION = 1
LOG_VERSION = 1
_BLOCK = 1024  # rows per block of the similarity matrix (1024 x n float32 at a time)

# The most specific type wins a merge.
TYPE_ORDER = (
    "correction",
    "constraint",
    "convention",
    "decision",
    "preference",
    "procedure",
    "skill",
    "tension",
    "fact",
)
FLAG_ACTIONS = {
    "promote": ("important", True),
    "demote": ("important", False),
    "mandatory": ("mandatory", True),
    "optional": ("mandatory", False),
}
ACTIONS = ("merge", "update", *FLAG_ACTIONS, "delete")
_WORD = re.compile(r"\w+")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be been but by can do does for from has have if in into is it its "
        "not of on or so such than that the their then there these they this to was we were "
        "when which will with you your our us i me my should must",
    )
)


# --- finding candidates (pure) ----------------------------------------------------------------


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
    """Title + body with whitespace and case folded: equal for exact duplicates."""
    return " ".join(f"{memory.title}\n{memory.body}".casefold().split())


def words(text: str) -> frozenset[str]:
    """Content words: lower-case, stop words out, a plural `s` folded."""
    raw = set(_WORD.findall(text.casefold())) - _STOP
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in raw)


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


def _ordered(members: Iterable[Memory], keep_id: str) -> list[Memory]:
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
    stale_days: int = STALE_DAYS,
) -> Report:
    """Exact and near duplicate groups, and stale memories, among live `rows`.

    `vectors` holds one stored embedding per id in `vector_ids` (ids not in `rows` are
    ignored). Every pair inside a near group is similar: an embedding cosine >= `threshold`
    confirmed by word overlap >= `lexical_confirm`, or, when either memory has no vector, a
    word Jaccard >= `lexical_only`. Deterministic: the same rows give the same report.
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
    groups: list[Group] = []
    for clique in _cliques(edges):
        members = [m for rep in clique for m in clusters[rep]]
        keep = min(members, key=survivor_order)
        ordered = _ordered(members, keep.id)
        rep_of = {m.id: rep for rep in clique for m in clusters[rep]}
        pairs = [
            (a.id, b.id, _similarity(edges, rep_of[a.id], rep_of[b.id]))
            for i, a in enumerate(ordered)
            for b in ordered[i + 1 :]
        ]
        low = min(p[2] for p in pairs)
        groups.append(Group("near", keep.id, low, ordered, pairs))
    in_near = {m.id for g in groups for m in g.members}
    for rep_id, same in clusters.items():
        if len(same) > 1 and rep_id not in in_near:
            groups.append(Group("exact", rep_id, 1.0, _ordered(same, rep_id)))
    groups.sort(key=lambda g: (g.kind != "exact", -g.similarity, g.keep_id))
    cutoff = now - timedelta(days=stale_days)
    stale = sorted(
        (m for m in rows if not m.important and not m.mandatory and m.updated_at < cutoff),
        key=lambda m: (m.updated_at, m.id),
    )
    return Report(scope, len(rows), groups, stale)


class _Words(dict[str, frozenset[str]]):
    """Word sets by id, computed on first use: most memories never need theirs."""

    def __init__(self, rows: Mapping[str, Memory]) -> None:
        super().__init__()
        self.rows = rows

    def __missing__(self, memory_id: str) -> frozenset[str]:
        memory = self.rows[memory_id]
        found = self[memory_id] = words(f"{memory.title}\n{memory.body}")
        return found


def _similarity(edges: Mapping[tuple[str, str], float], rep_a: str, rep_b: str) -> float:
    """Two members' similarity from their representatives (exact duplicates: 1.0)."""
    return 1.0 if rep_a == rep_b else round(edges[_pair(rep_a, rep_b)], 4)


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


# --- the plan -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """One validated plan action (shape only: whether it applies is decided against the table)."""

    number: int  # 1-based position in the plan, for messages
    action: str
    ids: tuple[str, ...]
    revisions: dict[str, int]
    keep_id: str | None = None
    title: str | None = None
    body: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class Entry:
    """One line of an outcome: an action, the ids it names and what happened."""

    action: str
    ids: list[str]
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "ids": self.ids, "detail": self.detail}


_KEYS = {
    "merge": {"action", "ids", "keep_id", "title", "body", "reason", "revisions"},
    "update": {"action", "id", "title", "body", "revision", "reason"},
    "flag": {"action", "id", "revision", "reason"},
}


def read_plan(text: str, origin: str = "plan") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{origin} is not valid JSON: {exc.msg} (line {exc.lineno})") from None


def parse_plan(data: Any, scope: str) -> tuple[list[Action], list[Entry]]:
    """The plan's well-formed actions, and a refusal for each malformed one.

    A plan that is not a plan at all (not an object, another version or scope, no action
    list) is an InvalidInput: nothing of it applies.
    """
    if not isinstance(data, dict):
        raise InvalidInput('a plan is a JSON object: {"version": 1, "actions": [...]}')
    unknown = sorted(set(data) - {"version", "scope", "actions"})
    if unknown:
        raise InvalidInput(f"unknown plan field(s): {', '.join(unknown)}")
    if data.get("version", PLAN_VERSION) != PLAN_VERSION:
        raise InvalidInput(f"unsupported plan version {data.get('version')!r}: expected 1")
    named = data.get("scope")
    if named is not None and named not in (scope, scope.partition(":")[0]):
        raise InvalidInput(f"the plan is for scope {named!r}, not {scope}: pass --scope")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise InvalidInput('a plan needs an "actions" list')
    parsed: list[Action] = []
    refused: list[Entry] = []
    for number, raw in enumerate(actions, start=1):
        try:
            parsed.append(_parse_action(number, raw))
        except InvalidInput as exc:
            name = raw.get("action") if isinstance(raw, dict) else None
            refused.append(
                Entry(
                    str(name) if isinstance(name, str) else "?",
                    _loose_ids(raw),
                    f"action {number}: {exc.message}",
                )
            )
    return parsed, refused


def _loose_ids(raw: Any) -> list[str]:
    if not isinstance(raw, dict):
        return []
    ids = raw.get("ids") if "ids" in raw else [raw.get("id")]
    return [str(i) for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def _revision(value: Any, memory_id: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(
            f"revision of {memory_id} must be the positive integer from the report "
            "(it guards against overwriting a newer edit)"
        )
    return value


def _text(raw: dict[str, Any], name: str) -> str | None:
    value = raw.get(name)
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value


def _parse_action(number: int, raw: Any) -> Action:
    if not isinstance(raw, dict):
        raise InvalidInput("an action is a JSON object")
    name = raw.get("action")
    if name not in ACTIONS:
        raise InvalidInput(f"unknown action {name!r}: use {', '.join(ACTIONS)}")
    shape = "merge" if name == "merge" else "update" if name == "update" else "flag"
    extra = sorted(set(raw) - _KEYS[shape])
    if extra:
        raise InvalidInput(f"unknown field(s) for {name}: {', '.join(extra)}")
    reason = _text(raw, "reason") or ""
    title, body = _text(raw, "title"), _text(raw, "body")
    if title is not None:
        title = revisions.validate_title(title)
    if body is not None:
        body = revisions.normalise_body(body)
    if name == "merge":
        ids_raw = raw.get("ids")
        if not isinstance(ids_raw, list) or not all(isinstance(i, str) for i in ids_raw):
            raise InvalidInput("a merge needs ids: a list of memory ids")
        ids = tuple(dict.fromkeys(revisions.validate_id(i) for i in ids_raw))
        if len(ids) < 2:
            raise InvalidInput("a merge needs at least two distinct memories")
        keep_raw = raw.get("keep_id")
        if not isinstance(keep_raw, str):
            raise InvalidInput("a merge needs keep_id: the id that survives")
        keep = revisions.validate_id(keep_raw)
        if keep not in ids:
            raise InvalidInput(f"keep_id {keep} is not one of the merged ids")
        seen = raw.get("revisions")
        if not isinstance(seen, dict):
            raise InvalidInput("a merge needs revisions: {id: revision} as the report showed")
        by_id = {revisions.validate_id(str(k)): v for k, v in seen.items()}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise InvalidInput(f"revisions has no entry for {', '.join(missing)}")
        revs = {i: _revision(by_id[i], i) for i in ids}
        return Action(number, name, ids, revs, keep, title, body, reason)
    id_raw = raw.get("id")
    if not isinstance(id_raw, str):
        raise InvalidInput(f"{name} needs id")
    memory_id = revisions.validate_id(id_raw)
    if "revision" not in raw:
        raise InvalidInput(f"{name} needs revision: the revision the report showed")
    revs = {memory_id: _revision(raw["revision"], memory_id)}
    if name == "update" and title is None and body is None:
        raise InvalidInput("an update needs a title or a body")
    return Action(number, name, (memory_id,), revs, None, title, body, reason)


def most_specific_type(types: Iterable[str]) -> str:
    present = set(types)
    return next((t for t in TYPE_ORDER if t in present), "fact")


def union_text(members: Sequence[Memory], keep_id: str, now: datetime) -> tuple[str, str]:
    """The survivor's text when the plan gives none: a provenance line, then every distinct
    member's title and body, the survivor first and the rest oldest first."""
    ordered = _ordered(members, keep_id)
    distinct: list[Memory] = []
    seen: set[str] = set()
    for memory in ordered:
        key = normalised_content(memory)
        if key not in seen:
            seen.add(key)
            distinct.append(memory)
    keep = ordered[0]
    if len(distinct) == 1:
        return keep.title, keep.body
    others = ", ".join(m.id for m in ordered[1:])
    parts = [f"Merged {others} into {keep.id} by consolidation on {now:%Y-%m-%d}."]
    parts += [f"## {m.title}\n\n{m.body}" for m in distinct]
    return keep.title, "\n\n".join(parts)


def absorbed_text(memory: Memory, keep_id: str, reason: str, now: datetime) -> tuple[str, str]:
    """The final revision of an absorbed memory: its title and body say where it went."""
    title = f"[merged into {keep_id}] {memory.title}"[: revisions.MAX_TITLE]
    why = f": {' '.join(reason.split())}" if reason.strip() else ""
    line = f"Merged into {keep_id} by consolidation on {now:%Y-%m-%d}{why}."
    return title, f"{line}\n\n{memory.body}"


# --- applying (guarded) -------------------------------------------------------------------------


@dataclass
class Outcome:
    scope: str
    analysed: int
    applied: list[Entry] = field(default_factory=list)
    refused: list[Entry] = field(default_factory=list)
    failed: list[Entry] = field(default_factory=list)
    log: str | None = None
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "analysed": self.analysed,
            "applied": [e.to_dict() for e in self.applied],
            "refused": [e.to_dict() for e in self.refused],
            "failed": [e.to_dict() for e in self.failed],
            "log": self.log,
        }


class _Table(Protocol):
    """What applying needs from the table: the service, or a simulation of it (dry run)."""

    def live(self, memory_id: str) -> Memory | None: ...

    def final(self, memory_id: str) -> Memory | None: ...

    def write(self, draft: MemoryDraft) -> tuple[Memory, bool]: ...

    def delete(self, memory_id: str) -> Memory: ...

    def live_count(self) -> int: ...


class _Service:
    def __init__(self, service: MemoryService) -> None:
        self.service = service

    def live(self, memory_id: str) -> Memory | None:
        try:
            return self.service.source(memory_id)
        except NotFound:
            return None

    def final(self, memory_id: str) -> Memory | None:
        try:
            chain = self.service.history(memory_id)
        except NotFound:
            return None
        last = chain[-1]
        return None if last.is_live else last

    def write(self, draft: MemoryDraft) -> tuple[Memory, bool]:
        result = self.service.upsert(draft)
        return result.memory, result.action is not WriteAction.UNCHANGED

    def delete(self, memory_id: str) -> Memory:
        return self.service.delete(memory_id).memory

    def live_count(self) -> int:
        return len(self.service.catalogue())


class _Simulation:
    """The table as the plan would leave it, in memory: a dry run predicts the apply."""

    def __init__(self, rows: Iterable[Memory], author: str, now: datetime) -> None:
        self.rows = {m.id: m for m in rows}
        self.gone: dict[str, Memory] = {}
        self.author = author
        self.now = now

    def live(self, memory_id: str) -> Memory | None:
        return self.rows.get(memory_id)

    def final(self, memory_id: str) -> Memory | None:
        return self.gone.get(memory_id)

    def write(self, draft: MemoryDraft) -> tuple[Memory, bool]:
        assert draft.id is not None
        current = self.rows.get(draft.id)
        if current is None:
            final = self.gone.pop(draft.id)
            revived = revisions.plan_revive(final, draft, author=self.author, now=self.now)[1]
            self.rows[draft.id] = revived
            return revived, True
        if draft.expected_revision not in (None, current.revision):
            raise Conflict(f"memory {current.id} is at revision {current.revision}")
        revised = revisions.revise(current, draft, author=self.author, now=self.now)
        if revised is None:
            return current, False
        self.rows[draft.id] = revised
        return revised, True

    def delete(self, memory_id: str) -> Memory:
        final = self.rows.pop(memory_id)
        self.gone[memory_id] = final
        return final

    def live_count(self) -> int:
        return len(self.rows)


def snapshot(memory: Memory) -> dict[str, Any]:
    return {
        "revision": memory.revision,
        "title": memory.title,
        "body": memory.body,
        "type": memory.type,
        "tags": list(memory.tags),
        "important": memory.important,
        "mandatory": memory.mandatory,
    }


class _Run:
    """One pass over the plan's actions against a table (real or simulated)."""

    def __init__(self, table: _Table, outcome: Outcome, now: datetime) -> None:
        self.table = table
        self.outcome = outcome
        self.now = now
        self.changes: list[dict[str, Any]] = []
        self.removed = 0
        self.on_change: Callable[[], None] = lambda: None

    def record(self, action: str, before: Memory | None, after: Memory, deleted: bool) -> None:
        self.changes.append(
            {
                "action": action,
                "id": after.id,
                "before": snapshot(before) if before is not None else None,
                "after": {"revision": after.revision, "deleted": deleted},
            }
        )
        self.on_change()

    def current(self, action: Action) -> dict[str, Memory] | str:
        """The live rows the action names, or why it is refused."""
        rows: dict[str, Memory] = {}
        for memory_id in action.ids:
            live = self.table.live(memory_id)
            if live is None:
                final = self.table.final(memory_id)
                if final is None:
                    return f"unknown id {memory_id}"
                return f"{memory_id} was deleted since the plan was made"
            seen = action.revisions[memory_id]
            if live.revision != seen:
                return (
                    f"{memory_id} moved on: it is at revision {live.revision}, the plan saw "
                    f"{seen}; read it again and re-plan"
                )
            rows[memory_id] = live
        return rows

    def run(self, actions: Sequence[Action]) -> None:
        order = {name: rank for rank, name in enumerate(("merge", "update", "flag", "delete"))}
        for action in sorted(actions, key=lambda a: (order[_kind(a.action)], a.number)):
            rows = self.current(action)
            if isinstance(rows, str):
                self.refuse(action, rows)
                continue
            try:
                getattr(self, f"_{_kind(action.action)}")(action, rows)
            except Conflict as exc:
                self.refuse(action, f"changed while applying: {exc.message}")
            except GraphitError as exc:
                self.fail(action, exc.message)

    def refuse(self, action: Action, why: str) -> None:
        self.outcome.refused.append(
            Entry(action.action, list(action.ids), f"action {action.number}: {why}")
        )

    def fail(self, action: Action, why: str) -> None:
        self.outcome.failed.append(
            Entry(action.action, list(action.ids), f"action {action.number}: {why}")
        )

    def done(self, action: Action, detail: str) -> None:
        self.outcome.applied.append(Entry(action.action, list(action.ids), detail))

    def _merge(self, action: Action, rows: dict[str, Memory]) -> None:
        assert action.keep_id is not None
        members = [rows[i] for i in action.ids]
        keep = rows[action.keep_id]
        title, body = union_text(members, keep.id, self.now)
        union = {t for m in members for t in m.tags}
        if len(union) > revisions.MAX_TAGS:
            self.refuse(
                action,
                f"the merged memory would carry {len(union)} tags, at most {revisions.MAX_TAGS}: "
                "drop some with an update first",
            )
            return
        tags = revisions.normalise_tags(sorted(union))
        draft = MemoryDraft(
            id=keep.id,
            title=action.title or title,
            body=action.body or body,
            type=most_specific_type(m.type for m in members),
            tags=tags,
            # Flags are inherited independently; no plan can drop them.
            important=any(m.important for m in members),
            mandatory=any(m.mandatory for m in members),
            expected_revision=keep.revision,
        )
        # The survivor (with its flags) is committed before any member is removed.
        survivor, changed = self.table.write(draft)
        if changed:
            self.record("merge", keep, survivor, deleted=False)
        absorbed: list[str] = []
        for member in _ordered(members, keep.id)[1:]:
            if self._absorb(action, member, keep.id):
                absorbed.append(member.id)
        flags = ", ".join(
            f for f, on in (("mandatory", draft.mandatory), ("important", draft.important)) if on
        )
        keeps, absorbs = ("keeps", "absorbs") if self.outcome.dry_run else ("kept", "absorbed")
        self.done(
            action,
            f"{keeps} {keep.id} (revision {survivor.revision}{', ' + flags if flags else ''}); "
            f"{absorbs} {', '.join(absorbed) or 'nothing'}",
        )

    def _absorb(self, action: Action, member: Memory, keep_id: str) -> bool:
        """Mark `member` as merged into `keep_id`, then delete it; both steps are logged, so
        undo restores it even when the delete fails."""
        title, body = absorbed_text(member, keep_id, action.reason, self.now)
        where = f"action {action.number}: {member.id}"
        try:
            marked, _ = self.table.write(
                MemoryDraft(id=member.id, title=title, body=body, expected_revision=member.revision)
            )
        except GraphitError as exc:
            self.outcome.failed.append(
                Entry("merge", [member.id], f"{where} not absorbed (it stays live): {exc.message}")
            )
            return False
        self.record("merge", member, marked, deleted=False)
        try:
            final = self.table.delete(member.id)
        except GraphitError as exc:
            self.outcome.failed.append(
                Entry(
                    "merge",
                    [member.id],
                    f"{where} is marked as merged into {keep_id} but still live (undo restores "
                    f"it): {exc.message}",
                )
            )
            return False
        self.changes[-1]["after"] = {"revision": final.revision, "deleted": True}
        self.on_change()
        self.removed += 1
        if final.revision != marked.revision:  # edited between our two writes
            self.outcome.failed.append(
                Entry(
                    "merge",
                    [member.id],
                    f"{where} was edited during the apply; that edit is its final archived "
                    f"revision {final.revision}",
                )
            )
        return True

    def _update(self, action: Action, rows: dict[str, Memory]) -> None:
        [before] = rows.values()
        draft = MemoryDraft(
            id=before.id, title=action.title, body=action.body, expected_revision=before.revision
        )
        after, changed = self.table.write(draft)
        if changed:
            self.record("update", before, after, deleted=False)
        self.done(action, f"revision {after.revision}" if changed else "no change")

    def _flag(self, action: Action, rows: dict[str, Memory]) -> None:
        [before] = rows.values()
        flag, value = FLAG_ACTIONS[action.action]
        draft = MemoryDraft(
            id=before.id,
            important=value if flag == "important" else None,
            mandatory=value if flag == "mandatory" else None,
            expected_revision=before.revision,
        )
        after, changed = self.table.write(draft)
        if changed:
            self.record(action.action, before, after, deleted=False)
        state = flag if value else f"not {flag}"
        self.done(action, f"{state} (revision {after.revision})" if changed else f"already {state}")

    def _delete(self, action: Action, rows: dict[str, Memory]) -> None:
        [before] = rows.values()
        if before.important or before.mandatory:
            which = "mandatory" if before.mandatory else "important"
            self.refuse(
                action,
                f"{before.id} is {which}: a bare delete cannot remove it; fold it into another "
                "memory instead (a merge keeps its flags)",
            )
            return
        if self.table.live_count() <= 1:
            self.refuse(action, f"{before.id} is the last live memory of the scope")
            return
        final = self.table.delete(before.id)
        self.record("delete", before, final, deleted=True)
        self.removed += 1
        if final.revision != before.revision:
            self.fail(action, f"{before.id} was edited during the apply; deleted anyway")
            return
        self.done(action, f"deleted (final revision {final.revision})")


def _kind(action: str) -> str:
    return "flag" if action in FLAG_ACTIONS else action


def removal_limit(live: int) -> int:
    """How many memories a plan may remove without allow_mass_removal."""
    return min(MASS_COUNT, int(live * MASS_FRACTION))


class Consolidator:
    """Consolidation of one scope's table, through the service's public methods."""

    def __init__(
        self, service: MemoryService, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.service = service
        self.clock = clock or service.clock

    # --- report ----------------------------------------------------------------------------

    def report(self, threshold: float = DEFAULT_THRESHOLD) -> Report:
        rows = self.service.catalogue()
        ids, vectors = self.service.live_vectors()
        return find_candidates(
            rows, ids, vectors, scope=str(self.service.scope), now=self.clock(), threshold=threshold
        )

    # --- apply -----------------------------------------------------------------------------

    def apply(self, plan: Any, *, apply: bool = False, allow_mass_removal: bool = False) -> Outcome:
        """Check the plan against the table and, with `apply`, carry it out.

        Always simulated first, so the dry run and the guards see exactly what the apply
        would do; a plan removing too many memories is an InvalidInput unless allowed.
        """
        scope = str(self.service.scope)
        actions, malformed = parse_plan(plan, scope)
        total = len(plan["actions"])
        now = self.clock()
        rows = self.service.catalogue()
        dry = Outcome(scope, total, refused=list(malformed), dry_run=True)
        simulation = _Run(_Simulation(rows, self.service.author, now), dry, now)
        simulation.run(actions)
        limit = removal_limit(len(rows))
        if simulation.removed > limit and not allow_mass_removal:
            raise InvalidInput(
                f"the plan would remove {simulation.removed} of {len(rows)} live memories "
                f"(more than {limit}: a quarter, at most {MASS_COUNT}); check it, then pass "
                "--allow-mass-removal (MCP: allow_mass_removal: true)"
            )
        if not apply:
            dry.refused.sort(key=_entry_order)
            return dry
        outcome = Outcome(scope, total, refused=list(malformed))
        run = _Run(_Service(self.service), outcome, now)
        log = LogWriter(self.service, "apply", now)
        run.on_change = lambda: log.write(run.changes)
        run.run(actions)
        outcome.refused.sort(key=_entry_order)
        outcome.log = str(log.path) if run.changes else None
        return outcome

    # --- undo ------------------------------------------------------------------------------

    def undo(self, log_path: str | Path) -> Outcome:
        """Restore what a logged apply changed, newest change first; an edit made since is
        reported, never overwritten."""
        entry_log = read_log(log_path)
        scope = str(self.service.scope)
        if entry_log["scope"] != scope:
            raise InvalidInput(f"{log_path} is a log of {entry_log['scope']}, not {scope}")
        changes = entry_log["changes"]
        now = self.clock()
        outcome = Outcome(scope, len(changes))
        table = _Service(self.service)
        run = _Run(table, outcome, now)
        log = LogWriter(self.service, "undo", now)
        run.on_change = lambda: log.write(run.changes)
        for change in reversed(changes):
            self._restore(table, run, change)
        outcome.log = str(log.path) if run.changes else None
        return outcome

    def _restore(self, table: _Service, run: _Run, change: dict[str, Any]) -> None:
        memory_id = change["id"]
        before, after = change["before"], change["after"]
        live = table.live(memory_id)
        ids = [memory_id]
        if after["deleted"]:
            final = table.final(memory_id) if live is None else None
            if final is None or final.revision != after["revision"]:
                now_at = f"live at revision {live.revision}" if live else "not in the table"
                run.outcome.refused.append(
                    Entry("restore", ids, f"{memory_id} changed after the apply ({now_at})")
                )
                return
        elif live is None or live.revision != after["revision"]:
            where = f"at revision {live.revision}" if live else "deleted"
            run.outcome.refused.append(
                Entry(
                    "restore",
                    ids,
                    f"{memory_id} was edited after the apply (now {where}, the apply left "
                    f"{after['revision']}): not overwritten",
                )
            )
            return
        try:
            if before is None:  # the change created or revived it: remove it again
                assert live is not None
                if live.important or live.mandatory:
                    raise InvalidInput(f"{memory_id} is flagged; not deleted by an undo")
                final = table.delete(memory_id)
                run.record("restore", live, final, deleted=True)
                run.outcome.applied.append(Entry("restore", ids, "deleted again"))
                return
            draft = MemoryDraft(
                id=memory_id,
                title=before["title"],
                body=before["body"],
                type=before["type"],
                tags=tuple(before["tags"]),
                important=before["important"],
                mandatory=before["mandatory"],
                expected_revision=live.revision if live is not None else None,
            )
            restored, _ = table.write(draft)
        except GraphitError as exc:
            run.outcome.failed.append(Entry("restore", ids, exc.message))
            return
        run.record("restore", live, restored, deleted=False)
        run.outcome.applied.append(
            Entry(
                "restore",
                ids,
                f"{'revived' if live is None else 'restored'} {memory_id} to its revision "
                f"{before['revision']} content (now revision {restored.revision})",
            )
        )


def _entry_order(entry: Entry) -> tuple[int, str]:
    match = re.match(r"action (\d+):", entry.detail)
    return (int(match.group(1)) if match else 0, entry.detail)


# --- the apply log ------------------------------------------------------------------------------


def log_dir() -> Path:
    """`~/.graphit/memory/consolidation/` (GRAPHIT_HOME relocates it)."""
    return config.memory_root() / "consolidation"


class LogWriter:
    """Writes a log of every change as it happens, so a crash mid-apply can still be undone."""

    def __init__(self, service: MemoryService, kind: str, now: datetime) -> None:
        scope = str(service.scope)
        stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        self.path = log_dir() / f"{stamp}-{kind}-{scope.replace(':', '-')}.json"
        self.header = {
            "version": LOG_VERSION,
            "kind": kind,
            "scope": scope,
            "created_at": now.astimezone(UTC).isoformat(),
            "author": service.author,
        }

    def write(self, changes: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({**self.header, "changes": changes}, ensure_ascii=False, indent=1)
        partial = self.path.with_suffix(".tmp")
        partial.write_text(text + "\n", encoding="utf-8")
        partial.replace(self.path)


def read_log(path: str | Path) -> Any:
    target = Path(path).expanduser()
    if not target.is_file() and not target.is_absolute() and (log_dir() / target).is_file():
        target = log_dir() / target
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"no such log: {path} (logs are in {log_dir()})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read the log {path}: {exc}") from None
    valid = (
        isinstance(data, dict)
        and data.get("version") == LOG_VERSION
        and isinstance(data.get("scope"), str)
        and isinstance(data.get("changes"), list)
        and all(_valid_change(c) for c in data["changes"])
    )
    if not valid:
        raise InvalidInput(f"{path} is not a graphit consolidation log")
    return data


def _valid_change(change: Any) -> bool:
    if not isinstance(change, dict) or not isinstance(change.get("id"), str):
        return False
    after, before = change.get("after"), change.get("before")
    if not isinstance(after, dict) or not isinstance(after.get("revision"), int):
        return False
    keys = {"revision", "title", "body", "type", "tags", "important", "mandatory"}
    return before is None or (isinstance(before, dict) and keys <= set(before))


# --- rendering (shared by the CLI and the MCP tools) --------------------------------------------


def member_dict(memory: Memory) -> dict[str, Any]:
    from graphit_cli.render import format_time

    return {
        "id": memory.id,
        "revision": memory.revision,
        "title": memory.title,
        "type": memory.type,
        "important": memory.important,
        "mandatory": memory.mandatory,
        "updated_at": format_time(memory.updated_at, precise=True),
        "body": memory.body,
    }


def report_dict(report: Report) -> dict[str, Any]:
    return {
        "scope": report.scope,
        "analysed": report.analysed,
        "groups": [
            {
                "kind": g.kind,
                "ids": g.ids,
                "keep_id": g.keep_id,
                "similarity": g.similarity,
                "members": [member_dict(m) for m in g.members],
            }
            for g in report.groups
        ],
        "stale": [m.id for m in report.stale],
    }


def _flags(memory: Memory) -> str:
    pairs = (("mandatory", memory.mandatory), ("important", memory.important))
    return ", ".join(name for name, on in pairs if on) or "-"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def report_markdown(report: Report, *, bodies: bool = False) -> str:
    from graphit_cli.render import format_time

    lines = [
        f"# Consolidation candidates in {report.scope}",
        "",
        f"{report.analysed} live memories analysed: {len(report.groups)} duplicate group(s), "
        f"{len(report.stale)} stale.",
    ]
    for number, group in enumerate(report.groups, start=1):
        lines += [
            "",
            f"## Group {number}: {group.kind} duplicates (similarity {group.similarity:.2f}), "
            f"keep {group.keep_id}",
            "",
            "| # | id | rev | type | flags | updated | title |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {n} | {m.id} | {m.revision} | {m.type} | {_flags(m)} | "
            f"{format_time(m.updated_at)[:10]} | {_cell(m.title)} |"
            for n, m in enumerate(group.members, start=1)
        ]
        if len(group.pairs) > 1:
            position = {m.id: n for n, m in enumerate(group.members, start=1)}
            shown = ", ".join(f"#{position[a]}~#{position[b]} {s:.2f}" for a, b, s in group.pairs)
            lines += ["", f"Pairwise similarity: {shown}."]
        if bodies:
            for m in group.members:
                lines += ["", f"### {m.id}: {m.title}", "", m.body]
    if report.stale:
        lines += [
            "",
            f"## Stale: normal memories not updated for {STALE_DAYS} days (review only)",
            "",
            "| id | rev | type | updated | title |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {m.id} | {m.revision} | {m.type} | {format_time(m.updated_at)[:10]} | "
            f"{_cell(m.title)} |"
            for m in report.stale
        ]
    return "\n".join(lines) + "\n"


def outcome_markdown(outcome: Outcome) -> str:
    if outcome.dry_run:
        head = "Dry run: nothing was written. Apply with --apply (MCP: apply: true)."
    elif outcome.log:
        head = f"Applied. Log: {outcome.log} (undo: graphit memory consolidate undo LOG)."
    else:
        head = "Nothing changed."
    lines = [f"# Consolidation of {outcome.scope}", "", head]
    for title, entries in (
        ("Would apply" if outcome.dry_run else "Applied", outcome.applied),
        ("Refused", outcome.refused),
        ("Failed", outcome.failed),
    ):
        lines += ["", f"## {title} ({len(entries)})"]
        if entries:
            lines += ["", "| action | ids | detail |", "|---|---|---|"]
            lines += [f"| {e.action} | {', '.join(e.ids)} | {_cell(e.detail)} |" for e in entries]
    return "\n".join(lines) + "\n"
