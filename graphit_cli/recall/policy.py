"""Which memories a prompt gets: relevance against an absolute gate, a few, never twice.

Search's selection is the spec's (mandatory, then important, then normal, each by relevance;
`core/relevance.py`) and its match rule is relative to the candidates, so for a prompt about
nothing its best candidate still matches. The hook asks something else of every candidate
search matched (`top_k = 0`: all of them, any category):

1. the gate (`admit`): bars that do not move with the candidates, on the evidence search
   kept for each hit: the share of the query's term weight the memory carries, its cosine to
   the query (hybrid), its lexical relevance against the best hit's (lexical-only). Their
   values are the model profile's (`core/profiles.RecallGate`); a flag plays no part;
2. once per session: a memory this session was shown at its current revision is left out;
3. the best few by relevance are kept (the gate's `limit`), whatever their category;
4. the newer belief: a kept memory with a newer live memory on the same subject that says
   otherwise (`contradiction.rivals`) is shown with it, or dropped when the session already
   saw the newer one; never the older alone.

`choose` returns what is shown and, for the recalls log, what was left out and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from graphit_cli.core import ordering, relevance
from graphit_cli.core.models import Memory
from graphit_cli.core.profiles import RecallGate

MAX_MEMORIES = 3  # a few at most: every prompt pays for them
STEM_CHARS = 5
# Words of conversation, not of a subject: "thanks", "ok go on", "looks good" name nothing a
# memory is about, however rare some of them are in the language at large ("thanks" is
# rarer than the common-word bar, `relevance.CARRIER_ZIPF`).
_CHATTER_TEXT = """thanks thank thx ty ok okay k great nice good cool awesome perfect yes yeah
    yep no nope sure please pls lgtm continue go going on proceed next done fine right alright
    hi hello hey bye cheers wow well looks look seems sounds agreed agree"""
CHATTER = frozenset(_CHATTER_TEXT.split())
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Candidate:
    """One memory search matched for the prompt, with the evidence the gate reads."""

    memory: Memory
    score: float  # search's fused relevance (relative to its scope's best hit)
    share: float | None  # share of the query's term weight the memory carries
    similarity: float | None  # cosine to the query (a hybrid search)
    relative: float  # score / the best hit's score in the same search
    words: tuple[str, ...]  # the query's informative words the memory contains
    gate: RecallGate


@dataclass
class Choice:
    """What one prompt gets (`shown`, canonical order) and what was left out, and why."""

    shown: list[Candidate] = field(default_factory=list)
    left: list[tuple[Candidate, str]] = field(default_factory=list)
    # older memory id -> the newer memory on its subject that says otherwise
    newer: dict[str, Memory] = field(default_factory=dict)


def _stem(word: str) -> str:
    """A crude stem: the first STEM_CHARS letters of a longer word ("released" ~ "release",
    "refunds" ~ "refund"); enough to tell whether two texts share a word."""
    return word[:STEM_CHARS] if len(word) > STEM_CHARS else word


def matched_words(query_terms: Sequence[str], memory: Memory) -> tuple[str, ...]:
    """The query's informative words found (`_stem`) in the memory's title or body. Tags do
    not count: a memory tagged `python` is not about "how do I reverse a list in Python"."""
    found = {_stem(w.lower()) for w in _WORD.findall(f"{memory.title} {memory.body}")}
    return tuple(t for t in query_terms if _stem(t) in found)


def admit(c: Candidate) -> str | None:
    """None when `c` clears its gate (`profiles.RecallGate`); else why not (for the log)."""
    gate = c.gate
    share = c.share or 0.0
    similarity = c.similarity
    if c.relative < gate.min_relative:
        return f"relevance {c.relative:.2f} of the best < {gate.min_relative:.2f}"
    if similarity is not None and similarity >= gate.alone_similarity:
        return None
    if not relevance.carriers(c.words) - CHATTER:
        return "shares no informative word with the prompt"
    if share < gate.min_share:
        return f"words {share:.2f} < {gate.min_share:.2f}"
    if similarity is not None and similarity < gate.min_similarity:
        return f"cosine {similarity:.3f} < {gate.min_similarity:.2f}"
    return None


Seen = Callable[[Memory], bool]
# memories -> each one's id -> the newer live memories on its subject that say otherwise,
# newest first (asked once for all the kept memories: their subjects are read together)
Rivals = Callable[[Sequence[Memory]], Mapping[str, list[Memory]]]


def choose(candidates: Sequence[Candidate], seen: Seen, newer_of: Rivals) -> Choice:
    """Gate, drop what the session has seen, keep the best few (the gate's `limit`, at most
    MAX_MEMORIES), pair an older belief with its newer counterpart (`newer_of`: the newer
    live memories on each one's subject that say otherwise, newest first)."""
    choice = Choice()
    ranked = sorted(candidates, key=lambda c: -c.score)
    admitted: list[Candidate] = []
    for c in ranked:
        why = admit(c)
        if why is None and seen(c.memory):
            why = "shown earlier in this session"
        limit = min(c.gate.limit, MAX_MEMORIES)
        if why is None and len(admitted) >= limit:
            why = f"beyond the {limit} best"
        if why is None:
            admitted.append(c)
        else:
            choice.left.append((c, why))
    by_id = {c.memory.id: c for c in admitted}
    kept: list[Candidate] = []
    rivals = newer_of([c.memory for c in admitted]) if admitted else {}
    for c in admitted:
        newer = [m for m in rivals.get(c.memory.id, []) if m.id != c.memory.id]
        if not newer:
            kept.append(c)
            continue
        latest = newer[0]
        if latest.id in by_id:  # the newer one is shown too: the pair is there
            choice.newer[c.memory.id] = latest
            kept.append(c)
        elif seen(latest):
            choice.left.append((c, f"older than {latest.id}, which this session was shown"))
        else:
            choice.newer[c.memory.id] = latest
            kept.append(c)
            pair = Candidate(latest, c.score, None, None, c.relative, (), c.gate)
            by_id[latest.id] = pair
            kept.append(pair)
    # Still a few: past MAX_MEMORIES, an older memory gives way to its newer counterpart
    # (shown instead of it, no longer with it), the weakest first.
    for c in sorted(kept, key=lambda c: c.score):
        if len(kept) <= MAX_MEMORIES:
            break
        if c.memory.id in choice.newer:
            kept.remove(c)
            choice.left.append((c, f"older than {choice.newer.pop(c.memory.id).id}, shown instead"))
    choice.shown = ordering.canonical_sort(kept, lambda c: c.memory)
    return choice


# --- the same subject, saying otherwise ------------------------------------------------------


def newer_rivals(memory: Memory, candidates: Sequence[Memory]) -> list[Memory]:
    """The live candidates on `memory`'s subject that say otherwise (the contradiction detector,
    `core/contradiction.rivals`, from the words: search's rows carry no vectors) and were
    written after it, newest first."""
    from graphit_cli.core import contradiction

    found = [
        m for m in contradiction.rivals(memory, candidates) if m.updated_at > memory.updated_at
    ]
    return sorted(found, key=lambda m: m.updated_at, reverse=True)
