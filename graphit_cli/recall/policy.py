"""Which memories a prompt gets: the ones the ranking says answer it, a few, never twice.

Search's selection is the spec's (mandatory, then important, then normal, each by relevance;
`core/relevance.py`) and its match rule is relative to the candidates. The hook asks something
else of every candidate search matched (`top_k = 0`: all of them, any category):

1. the prompt's kind (`chatter`): conversation ("thanks", "ok go on") gets nothing;
2. the evidence (`admit`, `RecallRule`): how far a memory's cosine to the prompt stands above the
   prompt's cosines to the scope's other memories (`Spread`: in standard deviations, so the
   bar means the same on any project and any prompt length), whether its words agree (the
   share of the prompt's term weight it carries), and for a further match how close it is to
   the best one. Not an absolute share of the prompt's words: a bug report in symptom words
   shares few with the rule it needs. Without vectors the words decide; a flag plays no part;
3. once per session: a memory this session was shown at its current revision is left out;
4. the best few by relevance are kept (`RecallRule.limit`, at most MAX_MEMORIES);
5. the newer belief: a kept memory with a newer live memory on the same subject that says
   otherwise (`contradiction.newer_rivals`) is shown with it, or dropped when the session
   already saw the newer one; never the older alone.

`choose` returns what is shown and, for the recalls log, what was left out and why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from graphit_cli.core import ordering, relevance
from graphit_cli.core.models import Memory

MAX_MEMORIES = 3  # a few at most: every prompt pays for them
MIN_SPREAD = 5  # memories below which a scope's cosines have no spread to read against
STEM_CHARS = 5
# Words of conversation, not of a subject: "thanks", "ok go on", "looks good" name nothing a
# memory is about, however rare some of them are in the language at large ("thanks" is
# rarer than the common-word bar, `relevance.CARRIER_ZIPF`).
_CHATTER_TEXT = """thanks thank thx ty ok okay k great nice good cool awesome perfect yes yeah
    yep no nope sure please pls lgtm continue go going on proceed next done fine right alright
    hi hello hey bye cheers wow well looks look seems sounds agreed agree"""
CHATTER = frozenset(_CHATTER_TEXT.split())
# Words that close a piece of work in conversation ("that worked", "summarise what we did").
# Not "commit", "push" or "merge": "looks good, commit it" asks for the commit conventions.
DONE_WORDS = frozenset(
    ["today", "summarise", "summarize", "summary", "worked", "works", "fixed", "helped", "ahead"]
)
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Spread:
    """The query's cosines to every live memory of a scope (mandatory ones aside): a
    memory's cosine means something only against them (e5's cosines all sit in ~0.7-0.9)."""

    count: int
    mean: float
    deviation: float
    best: float
    # Too few memories for a spread (`MIN_SPREAD`): the cosine at which the best match is
    # close in the model's space (`profiles.ModelProfile.recall_cosine`).
    lone: float = 0.85

    @classmethod
    def of(cls, cosines: Sequence[float], lone: float = 0.85) -> Spread | None:
        if not cosines:
            return None
        mean = math.fsum(cosines) / len(cosines)
        deviation = math.sqrt(math.fsum((c - mean) ** 2 for c in cosines) / len(cosines))
        return cls(len(cosines), mean, deviation, max(cosines), lone)

    def z(self, cosine: float | None) -> float | None:
        """How many deviations `cosine` stands above the memories' mean; None when there are
        too few memories for a spread (`MIN_SPREAD`) or no cosine."""
        if cosine is None or self.count < MIN_SPREAD or self.deviation <= 0:
            return None
        return (cosine - self.mean) / self.deviation


@dataclass(frozen=True)
class Candidate:
    """One memory search matched for the prompt, with the evidence the policy reads."""

    memory: Memory
    score: float  # search's fused relevance (relative to its scope's best hit)
    share: float | None  # share of the query's term weight the memory carries
    similarity: float | None  # cosine to the query (a hybrid search)
    relative: float  # score / the best hit's score in the same search
    words: tuple[str, ...]  # the query's informative words the memory contains
    rank: int = 1  # its place by relevance among its scope's matches
    spread: Spread | None = None  # the query's cosines to the scope's memories

    @property
    def z(self) -> float | None:
        return None if self.spread is None else self.spread.z(self.similarity)


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


def chatter(query: str) -> bool:
    """A prompt of conversation, not of a subject ("thanks", "ok go on", "looks good, commit
    it"): none of its informative words says what a memory could be about."""
    return not relevance.carriers(relevance.informative_terms(query)) - CHATTER - DONE_WORDS


@dataclass(frozen=True)
class RecallRule:
    """What a memory must show to be brought to a prompt (`admit`), read off the ranking
    itself: how far a memory's cosine stands above the query's cosines to the scope's other
    memories (`Spread.z`, in deviations: a bar that means the same on any project and any
    prompt length), whether the words agree, and how close a second hit is to the first.
    Fitted on the labelled sessions (`benchmarks/recall_sessions.py --calibrate`), each
    project left out in turn, two projects never fitted on (benchmarks/README.md)."""

    # The best match: its cosine `z` deviations above the mean when it shares an informative
    # word with the prompt, `z_alone` when it shares none (a general question that only
    # sounds like the project: "how do I reverse a list in Python").
    z: float = 1.9
    z_alone: float = 3.6
    # ... or `z_words` deviations when its words agree strongly: `words` of the query's weight.
    z_words: float = 1.6
    words: float = 0.5
    # ... or above the mean at all when it carries every informative word of the prompt: a
    # crowd of memories on the prompt's subject narrows the spread, never the answer away.
    whole: float = 0.99
    # A further match: `z_next` deviations, within `gap` of the best's, and words that agree:
    # `agree` of the best match's share at least ...
    z_next: float = 1.8
    gap: float = 0.9
    agree: float = 0.6
    # ... or `z_lead` deviations when it carries at least the best match's share of the
    # query's weight and `lead` of it at all: a prompt of two subjects ("add pagination to the
    # refunds endpoint") whose second answer the words point to more than the first's.
    z_lead: float = 1.2
    lead: float = 0.3
    # By words alone (no vectors: a table not yet embedded, a model that cannot load): the
    # best match's `share` of the query's term weight, further ones within `agree` of it.
    share: float = 0.25
    # Any match: relevance at least `relative` of the best match's.
    relative: float = 0.7
    limit: int = 3


RULE = RecallRule()


def admit(c: Candidate, top: Candidate, rule: RecallRule = RULE) -> str | None:
    """None when `c` answers the prompt by the ranking's own evidence (`top`: the best
    match of its search); else why not."""
    if c.relative < rule.relative:
        return f"relevance {c.relative:.2f} of the best < {rule.relative:.2f}"
    share = c.share or 0.0
    first = c is top or c.rank == 1
    # An informative word of the prompt in its title or body (not its tags, not chatter).
    worded = bool(relevance.carriers(c.words) - CHATTER)
    if c.similarity is None or top.similarity is None:  # words only
        if not worded:
            return "shares no informative word with the prompt"
        if first:
            return None if share >= rule.share else f"words {share:.2f} < {rule.share:.2f}"
        bar = max(rule.share, rule.agree * (top.share or 0.0))
        return None if share >= bar else f"words {share:.2f} < {bar:.2f}"
    z, best = c.z, top.z
    if z is None or best is None:  # too few memories for a spread: the cosine, or the words
        lone = c.spread.lone if c.spread is not None else 1.0
        if first and (c.similarity >= lone or (worded and share >= rule.share)):
            return None
        return f"cosine {c.similarity:.3f} < {lone:.2f}, words {share:.2f} (too few memories)"
    if first:
        if share >= rule.words and z >= rule.z_words:
            return None
        if worded and share >= rule.whole and z > 0:
            return None
        bar = rule.z if worded else rule.z_alone
        return None if z >= bar else f"cosine {z:.2f} deviations above the mean < {bar:.2f}"
    if worded and share >= max(rule.lead, top.share or 0.0) and z >= rule.z_lead:
        return None
    bar = max(rule.z_next, best - rule.gap)
    if z < bar:
        return f"cosine {z:.2f} deviations above the mean < {bar:.2f} (the best: {best:.2f})"
    words = rule.agree * (top.share or 0.0)
    if not worded or share < words:
        return f"words {share:.2f} < {words:.2f} of the best's"
    return None


Seen = Callable[[Memory], bool]
# memories -> each one's id -> the newer live memories on its subject that say otherwise,
# newest first (asked once for all the kept memories: their subjects are read together)
Rivals = Callable[[Sequence[Memory]], Mapping[str, list[Memory]]]


def choose(
    query: str,
    candidates: Sequence[Candidate],
    seen: Seen,
    newer_of: Rivals,
    rule: RecallRule = RULE,
) -> Choice:
    """Gate, drop what the session has seen, keep the best few (the gate's `limit`, at most
    MAX_MEMORIES), pair an older belief with its newer counterpart (`newer_of`: the newer
    live memories on each one's subject that say otherwise, newest first)."""
    choice = Choice()
    ranked = sorted(candidates, key=lambda c: -c.score)
    admitted: list[Candidate] = []
    quiet = chatter(query)
    for c in ranked:
        top = next(t for t in ranked if t.rank == 1 and t.spread is c.spread) if c.rank > 1 else c
        why = "the prompt is conversation, about no subject" if quiet else admit(c, top, rule)
        if why is None and seen(c.memory):
            why = "shown earlier in this session"
        limit = min(rule.limit, MAX_MEMORIES)
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
            pair = Candidate(latest, c.score, None, None, c.relative, (), c.rank, c.spread)
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
    """The live candidates on `memory`'s subject that say otherwise and were written after
    it, newest first (`contradiction.newer_rivals`, from the words: search's rows carry no
    vectors)."""
    from graphit_cli.core import contradiction

    return contradiction.newer_rivals(memory, candidates)
