"""Rival memories: live memories on the same subject as another that say something different (pure).

`rivals(memory, candidates, similarity)` returns the candidates that may contradict `memory`:
"Celery broker is Redis DB 1" and "Celery broker moved to Amazon SQS" are rivals; "Celery beat
schedule" is only related (same area, other knowledge) and "Redis DB 1 is the Celery broker" is
a near-duplicate (the same claim, which the duplicate guard handles); neither is a rival. The
write path names a rival as the memory the write may update, recall never shows the older of two
rivals alone, and consolidation proposes each pair with the newer as survivor.

Two questions decide it, both answered from the words (so it works in a hook with no model):

1. Same subject? The weighted share of content words the two memories have in common, each word
   weighing by how rare it is in the language (`core/commonness.py`: "celery" outweighs
   "uses"), over the lighter of the two memories, the titles counting twice (a title names
   the subject); at least two distinct words in common (one, "Celery", names an area).
2. Says something different? A change marker on one side only ("moved", "no longer",
   "was removed", "instead": strong; "not", "now", "since": weak), numbers in the titles
   that differ, a negated title against a plain one, or parallel titles ("X is A" / "X is
   B": two words in common, a specific word of its own on each side); and not so close in
   wording, without a strong contrast, that it is the same claim restated (a near-duplicate).
   The subject score plus the contrast's bonus must reach RIVAL.

`similarity` is optional extra evidence for question 1, for callers that hold vectors:

- a callable `similarity(a, b) -> float | None`: how close the two memories' subjects are, on
  a 0..1 scale where 1 is the same subject, or None when it cannot tell (no vector for one of
  them); `cosine_similarity(floor, ceiling)` builds one from `Memory.embedding`, mapping a
  model's cosine `floor` (unrelated) .. `ceiling` (same subject) to 0..1;
- or a mapping `{candidate id: 0..1 score}` precomputed for `memory` against each candidate
  (e.g. the nearest-neighbour search's cosines rescaled the same way).

When it gives a score, the subject score is the mean of the lexical one and it; the "says
something different" test stays lexical (vectors do not tell a reversal from a restatement).
For e5, `cosine_similarity(0.84, 1.0)` meets the targets (reversals 94.4 % / 90.6 %, related
0 %); a lower floor lets related pairs in (0.74: 12.5 %). On these pairs vectors add nothing
over the words, so the write path uses words alone.
Without it (`None`), everything is lexical. Measured on labelled pairs by
benchmarks/contradictions.py (benchmarks/data/contradiction_pairs.jsonl and dedup_pairs.jsonl).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from graphit_cli.core.commonness import zipf
from graphit_cli.core.models import Memory

Similarity = Callable[[Memory, Memory], float | None]

# Calibrated on benchmarks/data/contradiction_pairs.jsonl (benchmarks/contradictions.py).
SAME_SUBJECT = 0.30  # the least subject score of rivals, whatever their contrast
SHARED_WORDS = 2  # distinct content words rivals have in common, at least (without vectors)
RIVAL = 0.50  # subject score, plus the contrast's bonus, that makes two memories rivals
STRONG_BONUS = 0.20  # a change marker on one side, numbers that differ, parallel titles
WEAK_BONUS = 0.10  # a negation or "now"/"since" on one side only
RESTATEMENT = 0.70  # weighted Dice at or above which, without a strong contrast, one claim
SPECIFIC = 0.5  # a word's weight (`_weight`) from which it names a value, not a verb
MAX_RIVALS = 3

_WORD = re.compile(r"[^\W_]+(?:[._/-][^\W_]+)*", re.UNICODE)
_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        re.findall(r"\w+", "zero one two three four five six seven eight nine ten eleven twelve")
    )
} | {"once": "1", "twice": "2", "single": "1", "double": "2", "half": "0.5", "week": "7"}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?|\b(?:" + "|".join(_NUMBERS) + r")\b", re.IGNORECASE)
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be been being but by can could do does did for from had has have if in "
        "into is it its of on or so such than that the their them then there these they this those "
        "to was we were when where which while who will with would you your our us i me my should "
        "must may might also just only every each all any some per via use uses used using "
        "here what how about after before over under up out off get gets go goes run runs "
        "make makes made keep kept",
    )
)
# Words that say a belief changed or is denied, compared per side: a marker on both sides
# (both say "never") is no contrast. Weak ones also occur in plain statements of one belief.
_WEAK = (r"\bnot\b", r"\bno\b", r"\bnever\b", r"n't\b", r"\bnow\b", r"\bsince\b", r"\bavoid\b")
_STRONG = (
    r"\bno longer\b",
    r"\binstead\b",
    r"\bany ?more\b",
    r"\bno more\b",
    r"\bmoved\b",
    r"\breplac\w*",
    r"\bremov\w*",
    r"\bdropp\w*",
    r"\bdeprecat\w*",
    r"\bswitch\w*",
    r"\bstopp\w*",
    r"\bretir\w*",
    r"\babandon\w*",
    r"\bdecommission\w*",
    r"\btook over\b",
    r"\btaken over\b",
    r"\bgone\b",
    r"\brenamed\b",
    r"\bclosed\b",
    r"\bcancel\w*",
    r"\bshut down\b",
    r"\bswitched off\b",
    r"\bdeleted\b",
    r"\barchived\b",
    r"\braised\b",
    r"\blowered\b",
    r"\bchanged\b",
    r"\bpostponed\b",
    r"\bread-only\b",
    r"\bended\b",
    r"\bcaused\b",
    r"\bwas \w+ed\b",
)
_WEAK_MARKER = re.compile("|".join(_WEAK), re.IGNORECASE)
_STRONG_MARKER = re.compile("|".join(_STRONG), re.IGNORECASE)


def rivals(
    memory: Memory,
    candidates: Iterable[Memory],
    similarity: Similarity | Mapping[str, float] | None = None,
) -> list[Memory]:
    """The live candidates on `memory`'s subject that say something different, closest first.

    `memory` itself, archived rows and other revisions of its chain are never rivals. At most
    MAX_RIVALS are returned. See the module docstring for `similarity`.
    """
    scored: list[tuple[float, str, Memory]] = []
    for other in candidates:
        if not other.is_live or other.id == memory.id:
            continue
        extra = _extra(similarity, memory, other)
        score = rival_score(memory, other, extra)
        if score is not None:
            scored.append((score, other.id, other))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [other for _, _, other in scored[:MAX_RIVALS]]


def newer_rivals(memory: Memory, candidates: Iterable[Memory]) -> list[Memory]:
    """The live candidates on `memory`'s subject that say otherwise (`rivals`, from the
    words) and were written after it, newest first. Written at the same instant (one batch),
    the later id is the newer (ids grow with the time of writing)."""
    found = [m for m in rivals(memory, candidates) if _written(m) > _written(memory)]
    return sorted(found, key=_written, reverse=True)


def _written(memory: Memory) -> tuple[object, str]:
    return memory.updated_at, memory.id


def is_rival(a: Memory, b: Memory, similarity: Similarity | None = None) -> bool:
    """Whether `a` and `b` are on one subject and say something different (symmetric)."""
    return rival_score(a, b, similarity(a, b) if similarity else None) is not None


def rival_score(a: Memory, b: Memory, extra: float | None = None) -> float | None:
    """The subject score of a rival pair, None when the two are not rivals.

    `extra` is a 0..1 subject score from vectors (averaged with the lexical one).
    """
    left, right = _profile(a.title, a.body), _profile(b.title, b.body)
    subject = _share(left.words, right.words)
    if extra is not None:
        subject = (subject + max(0.0, min(1.0, extra))) / 2
    if subject < SAME_SUBJECT:
        return None
    if extra is None and len(left.words.keys() & right.words.keys()) < SHARED_WORDS:
        return None  # one word in common ("Celery beat" / "Celery broker") names an area
    strong = _strong_contrast(left, right)
    weak = bool(left.weak ^ right.weak) or bool(
        left.numbers - right.numbers and right.numbers - left.numbers
    )
    if not strong and _dice(left.words, right.words) >= RESTATEMENT:
        return None  # the same claim in other words: a near-duplicate, not a rival
    if not (strong or weak):
        return None  # nothing one says that the other does not
    score = subject + STRONG_BONUS * strong + WEAK_BONUS * weak
    return subject if score >= RIVAL else None


class _Profile:
    __slots__ = ("numbers", "strong", "title", "title_numbers", "title_strong", "weak", "words")

    def __init__(self, title: str, body: str) -> None:
        self.title = dict(_content(title))  # stem -> weight
        words = dict(_content(body))
        for word, weight in self.title.items():  # the title names the subject: it counts twice
            words[word] = 2 * weight
        self.words = words
        text = f"{title}\n{body}"
        self.strong = frozenset(m.casefold() for m in _STRONG_MARKER.findall(text))
        self.weak = frozenset(m.casefold() for m in _WEAK_MARKER.findall(text))
        self.title_strong = bool(_WEAK_MARKER.search(title) or _STRONG_MARKER.search(title))
        self.numbers = frozenset(_number(n) for n in _NUMBER.findall(text))
        self.title_numbers = frozenset(_number(n) for n in _NUMBER.findall(title))


def restates(a: Memory, b: Memory, minimum: float) -> bool:
    """Whether `a` and `b` say one thing: weighted word Dice at least `minimum`, and no
    strong contrast between them."""
    left, right = _profile(a.title, a.body), _profile(b.title, b.body)
    return _dice(left.words, right.words) >= minimum and not _strong_contrast(left, right)


def title_words(memory: Memory) -> list[str]:
    """The stems of the memory's title content words (what candidate pairs are found by)."""
    return list(_profile(memory.title, memory.body).title)


def _number(text: str) -> str:
    return _NUMBERS.get(text.casefold(), text.replace(",", "."))


@lru_cache(maxsize=4096)
def _profile(title: str, body: str) -> _Profile:
    return _Profile(title, body)


def _strong_contrast(a: _Profile, b: _Profile) -> bool:
    """A change marker on one side only, numbers that differ, a negated title against a plain
    one, or parallel titles ("X is A" / "X is B": two words in common, a few of their own)."""
    if a.strong ^ b.strong or a.title_strong != b.title_strong:
        return True
    if a.title_numbers and b.title_numbers and a.title_numbers != b.title_numbers:
        return True
    return _parallel(a.title, b.title)


def _parallel(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """ "X is A" / "X is B": two title words in common, at most three of each title's own, a
    specific one (not a common word) among each title's own."""
    shared = {word for word in a.keys() & b.keys() if not word.isdigit()}
    own_a, own_b = a.keys() - b.keys(), b.keys() - a.keys()
    if len(shared) < 2 or not own_a or not own_b or len(own_a) > 3 or len(own_b) > 3:
        return False
    return max(a[w] for w in own_a) >= SPECIFIC and max(b[w] for w in own_b) >= SPECIFIC


def _content(text: str) -> list[tuple[str, float]]:
    """(stem, weight) of each content word: case folded, stop words out; the weight is the
    word's own (a stem such as "fronte" is no rare word)."""
    return [
        (_stem(raw), _weight(raw)) for raw in _WORD.findall(text.casefold()) if raw not in _STOP
    ]


def _stem(word: str) -> str:
    """A crude stem: a plural folded, then the first six letters ("formatting", "format")."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:6] if word.isalpha() else word


@lru_cache(maxsize=8192)
def _weight(word: str) -> float:
    """Rare words weigh more: 0.25 for the most common, 1.0 for words rarer than Zipf 3."""
    if word.isdigit():
        return 0.6
    frequency = zipf(word)
    if frequency == 0.0:
        return 1.0
    return max(0.25, min(1.0, (6.5 - frequency) / 3.5))


def _share(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Weight of the shared words over the lighter memory's weight."""
    if not a or not b:
        return 0.0
    shared = sum(min(a[w], b[w]) for w in a.keys() & b.keys())
    return shared / min(sum(a.values()), sum(b.values()))


def _dice(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    total = sum(a.values()) + sum(b.values())
    if not total:
        return 1.0
    return 2 * sum(min(a[w], b[w]) for w in a.keys() & b.keys()) / total


def _extra(
    similarity: Similarity | Mapping[str, float] | None, memory: Memory, other: Memory
) -> float | None:
    if similarity is None:
        return None
    if isinstance(similarity, Mapping):
        return similarity.get(other.id)
    return similarity(memory, other)


def cosine_similarity(floor: float, ceiling: float) -> Similarity:
    """A `Similarity` from the memories' stored embeddings: cosine `floor` (unrelated in the
    model's space) maps to 0, `ceiling` (same subject) to 1; None when one has no vector."""
    span = max(ceiling - floor, 1e-6)

    def similarity(a: Memory, b: Memory) -> float | None:
        if a.embedding is None or b.embedding is None:
            return None
        dot = sum(x * y for x, y in zip(a.embedding, b.embedding, strict=False))
        norm = math.sqrt(sum(x * x for x in a.embedding) * sum(y * y for y in b.embedding))
        cosine = dot / norm if norm else 0.0
        return max(0.0, min(1.0, (cosine - floor) / span))

    return similarity
