"""What counts as a match, how deep candidates are fetched, and which matches a search shows.

The search policy in one place (pure; the service feeds it the store's facts):

- **Candidates**: each retriever returns its `depth(top_k)` best rows. The depth never shrinks
  when `top_k` grows and `top_k = 0` uses the smallest one, so a memory that matches with
  `top_k = 0` is a candidate for every `top_k`.
- **A match**, one test for every category alike (flags play no part in it):
  - *words that carry meaning*: the query's informative terms are its words without stop
    words. A term is weighted by its inverse document frequency in the table (BM25's idf),
    which on a small table calls "use" as rare as "database"; so each word's frequency in
    the language counts too (`commonness`: wordfreq's Zipf frequencies for English, German,
    Spanish, French and Portuguese, a word's highest among them, shipped as package data).
    A word at least `CARRIER_ZIPF` common in one of those languages ("use", "have", "make",
    "get", "work", "need", "de", "wir") is a *common word*: when the query has any other
    word, a hit that shares only common words with it carries none of its weight (share 0),
    in every mode, so it is never a lexical match and adds nothing to the fused score. A
    query of nothing but common words ("use") is matched on them;
  - *lexical*: a full-text hit matches when the terms it contains carry at least
    `LEXICAL_SHARE` of the query's total weight. A term no memory contains still counts in
    the total, so a query about something the table never mentions matches nothing by one
    stray word;
  - *lexical-only search* (`--mode fts`, or no vectors yet) has no semantic branch to catch a
    row that names the query's subject in other words, so there a term's weight is its idf
    times `commonness_factor` (1 up to `RARE_ZIPF`, `COMMON_FLOOR` from `COMMON_ZIPF`), and
    a full-text hit also matches when it carries at least `MIN_SHARE` of the weight and its
    lexical relevance (BM25 times that share, `ranking.fuse`) is at least `BM25_RELATIVE`
    of the best hit's. Hybrid search keeps idf alone in the weights: the language factor
    lowered its MRR on dev (docs/decisions/0003-what-counts-as-a-match.md);
  - *semantic*: the cosine similarity to the query reaches the model's similarity floor and
    the fused relevance stands out from the candidates': at least their mean plus the model's
    `fused_z` standard deviations (`fused_threshold`). Both belong to the model that embedded
    the table (`profiles.ModelProfile`: each model's cosines spread differently). The mean
    and deviation are taken over the candidates at `CANDIDATE_DEPTH`, whatever `top_k` is,
    so a deeper pool never raises the bar.
  A query about nothing returns nothing: one whose every informative word is unknown, in no
  memory of the table and no word of the languages (`about_nothing`: "zzzz", "xyzzy plugh"),
  is not searched at all, since a model still places such a text somewhere and its nearest
  memory would otherwise be the best of the candidates, however far.
- **Selection**: among the matches, mandatory ones first, then important, then normal, each
  by relevance; the first `top_k` are kept and shown in canonical order (`ordering`). So no
  matched memory of a higher category is ever left out while a lower-category one is shown,
  and the score decides only among memories of one category.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from graphit_cli.core import commonness, ordering
from graphit_cli.core.models import Category, Memory

T = TypeVar("T")

# Calibrated on the LoCoMo dev observations by benchmarks/calibrate_floor.py
# (docs/decisions/0003-what-counts-as-a-match.md).
LEXICAL_SHARE = 0.5
# Lexical-only search: a hit with this share of the weight and this share of the best hit's
# relevance (BM25 x share; docs/decisions/0003-what-counts-as-a-match.md).
MIN_SHARE = 0.05
BM25_RELATIVE = 0.08
# The semantic rule's similarity floor and z are the model's (core/profiles.py).
# Rows each retriever returns at least (and for top_k = 0); deeper for a large top_k.
CANDIDATE_DEPTH = 200
DEPTH_FACTOR = 4
# Words that carry meaning (`commonness`: Zipf frequencies, "use" 5.8, "database" 4.3). A word
# at least CARRIER_ZIPF common in one of the languages is a common word: a hit that shares only
# common words with a query that has others carries none of its weight.
CARRIER_ZIPF = 5.5
# Lexical-only search weighs a term by its idf times its commonness factor: 1 up to RARE_ZIPF,
# COMMON_FLOOR from COMMON_ZIPF ("the" 7.7), linear in the Zipf frequency between.
RARE_ZIPF = 4.5
COMMON_ZIPF = 7.5
COMMON_FLOOR = 0.2
# Rows read per query term to count its documents and tell which hits contain it; a term in
# more rows than this is common, and its weight (idf at this count) is already small.
TERM_DEPTH = 1000

# The full-text index's English stop words (NLTK's list, which LanceDB's tokenizer removes),
# plus a few function words it keeps but that say nothing about a memory.
_STOP_TEXT = """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself
    she her hers herself it its itself they them their theirs themselves what which who whom this
    that these those am is are was were be been being have has had having do does did doing a an
    the and but if or because as until while of at by for with about against between into through
    during before after above below to from up down in out on off over under again further then
    once here there when where why how all any both each few more most other some such no nor not
    only own same so than too very can will just don should now ll re ve ain aren couldn didn
    doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn would could
    ought s t d m o y"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_TERM = re.compile(r"\w+", re.UNICODE)
_RANK = {Category.MANDATORY: 0, Category.IMPORTANT: 1, Category.NORMAL: 2}


# The most memories one search may select: more is a mistake (`--top-k 9223372036854775807`
# overflowed the engine's limit); 0 still means every match.
MAX_TOP_K = 10_000


def depth(top_k: int) -> int:
    """Candidate rows per retriever: never fewer for a larger top_k; top_k 0 is the least."""
    return max(CANDIDATE_DEPTH, DEPTH_FACTOR * top_k)


def informative_terms(text: str) -> list[str]:
    """The query's words that can say what it is about: lower case, stop words left out, each
    once, in query order (one-letter words too: the index keeps "x" and "1"; the service
    counts them only where a memory has them)."""
    words = (w.lower() for w in _TERM.findall(text))
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS))


def unknown_words(text: str) -> list[str]:
    """The query's informative words when every one of them is a word of no language graphit
    knows (`commonness`: Zipf 0 in all of them) written in plain letters ("zzzz", "xyzzy
    plugh"); [] when any is a known word, a number or in another script."""
    terms = informative_terms(text)
    if not terms or not all(t.isascii() and t.isalpha() and commonness.zipf(t) == 0 for t in terms):
        return []
    return terms


def about_nothing(
    text: str, postings: Callable[[list[str]], Mapping[str, Iterable[object]]]
) -> bool:
    """A query about nothing: its words are all unknown (`unknown_words`) and no memory
    contains any of them (`postings`: term -> the rows containing it)."""
    terms = unknown_words(text)
    return bool(terms) and not any(any(True for _ in rows) for rows in postings(terms).values())


def commonness_factor(zipf: float) -> float:
    """How much of its idf a word keeps, from its Zipf frequency in the language."""
    if zipf <= RARE_ZIPF:
        return 1.0
    if zipf >= COMMON_ZIPF:
        return COMMON_FLOOR
    return 1.0 - (1.0 - COMMON_FLOOR) * (zipf - RARE_ZIPF) / (COMMON_ZIPF - RARE_ZIPF)


def term_weights(
    document_counts: Mapping[str, int], rows: int, *, lexical_only: bool = False
) -> dict[str, float]:
    """Each term's weight: BM25's idf from the number of rows containing it; in a lexical-only
    search, times its commonness factor in the language (`commonness_factor`)."""
    return {
        term: math.log(1.0 + (rows - count + 0.5) / (count + 0.5))
        * (commonness_factor(commonness.zipf(term)) if lexical_only else 1.0)
        for term, count in document_counts.items()
    }


def carriers(terms: Iterable[str]) -> frozenset[str]:
    """The terms that are not common words (rarer than CARRIER_ZIPF in the language)."""
    return frozenset(t for t in terms if commonness.zipf(t) < CARRIER_ZIPF)


def lexical_share(
    covered: Iterable[str], weights: Mapping[str, float], carrying: frozenset[str] = frozenset()
) -> float:
    """The share of the query's term weight carried by the terms a row contains; none when the
    query has `carrying` terms (`carriers`) and the row contains none of them."""
    total = sum(weights.values())
    found = set(covered)
    if total <= 0 or (carrying and not carrying & found):
        return 0.0
    return sum(weights.get(term, 0.0) for term in found) / total


def shares_only_common_words(covered: Iterable[str], carrying: frozenset[str]) -> bool:
    """A row whose words in common with the query are all common words, while the query has
    others (`carrying`): "Use the shared modules" for "what do we use for DNS". Such a row is
    no match in any mode: not lexically (its share is 0) and not semantically either, since
    a model's similarity counts the shared common word too."""
    found = set(covered)
    return bool(carrying) and bool(found) and not carrying & found


def lexical_match(share: float | None, relative: float | None = None) -> bool:
    """A full-text hit that carries LEXICAL_SHARE of the query's term weight; in a lexical-only
    search (`relative` given: the hit's relevance / the best hit's) also one with MIN_SHARE
    whose relative relevance reaches BM25_RELATIVE."""
    if share is None:
        return False
    if share >= LEXICAL_SHARE:
        return True
    return relative is not None and share >= MIN_SHARE and relative >= BM25_RELATIVE


def fused_threshold(scores: Sequence[float], z: float) -> float:
    """The fused relevance a semantic match needs: the candidates' mean + `z` deviations,
    or the best candidate's when that is less (among a few candidates the bar can exceed
    every score; the best still has to pass the similarity floor)."""
    if not scores:
        return math.inf
    mean = math.fsum(scores) / len(scores)
    deviation = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
    return min(mean + z * deviation, max(scores))


def semantic_match(similarity: float | None, score: float, threshold: float, floor: float) -> bool:
    """Close in meaning: the cosine similarity reaches the model's `floor` and the fused
    relevance reaches `threshold` (`fused_threshold` of the candidates)."""
    return similarity is not None and similarity >= floor and score >= threshold


def select(ranked: Sequence[T], memory_of: Callable[[T], Memory], top_k: int) -> list[T]:
    """`top_k` matches (0 = all) from `ranked` (best first), in canonical order.

    Mandatory matches are taken first, then important, then normal, each in relevance order,
    so a lower-category memory is shown only when every higher-category match is.
    """
    by_category = sorted(enumerate(ranked), key=lambda p: (_RANK[memory_of(p[1]).category], p[0]))
    chosen = [item for _, item in by_category]
    if top_k > 0:
        chosen = chosen[:top_k]
    return ordering.canonical_sort(chosen, memory_of)
