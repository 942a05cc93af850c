"""Ranking ideas for search, measured one at a time under the spec's rule.

    .venv/bin/python benchmarks/ranking_ideas.py --embed-cache /tmp/graphit-embed-cache-search \\
        [--memories ../shared/data/locomo-dev/memories_observations.jsonl] \\
        [--queries ../shared/data/locomo-dev/queries.jsonl] [--only depth,rrf,...]

Loads the memories through graphit's service as `calibrate_floor.py` does, keeps every query's
store hits (BM25 and vector, the whole scope) and lexical shares, and then, per idea, builds the
fused candidates or re-orders the matches and runs graphit's own match rule and selection
(`ranking.matches`, `ranking.collapse`, `relevance.select`, top_k 10), without and with the
seeded flags of `retrieval.py --flags`. One line per variant: recall@10 and MRR in relevance
order (plain / flagged), the median number of matches, the share of off-topic queries that
return nothing, and recall@10 per question category.

An idea either changes the candidates (`make`: depth, vectors, query vector, FTS columns or
tokenizer, which re-index the loaded tables and collect again) or re-orders the matches the
current rule admits (`rerank`: rank fusion, phrase, date, feedback boosts), so the match set,
and with it the spec's selection, stays the one `search` computes. graphit's code is not
changed: the variants are computed here.
"""

from __future__ import annotations

import argparse
import calendar
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from _common import REPO, clear_graphit_env, log
from calibrate_floor import DATA, OFF_TOPIC
from retrieval import (
    CachedEmbedder,
    flagged_copy,
    load_scopes,
    query_metrics,
    read_jsonl,
    select_queries,
)

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

TOP_K = 10
ALL_ROWS = 100_000  # "every row of the scope" as a retriever depth
IDEAS = (
    "depth",
    "rrf",
    "adaptive",
    "vectors",
    "query",
    "columns",
    "tokenizer",
    "phrase",
    "date",
    "feedback",
)


@dataclass
class Item:
    """One query's candidates as the store returns them (gold None: an off-topic query)."""

    scope: str
    text: str
    category: str
    gold: set[str] | None
    lexical: list[Any]
    near: list[Any]
    shares: dict[str, float]
    vector: list[float]


Make = Callable[[Item], list[Any]]
Rerank = Callable[[Item, list[Any]], dict[str, float]]


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        from graphit_cli.embed import load_default

        memories = read_jsonl(args.memories)
        queries = read_jsonl(args.queries)
        self.chosen, _ = select_queries(
            queries, args.gold, {r["scope_id"] for r in memories}, {r["id"] for r in memories}
        )
        self.gold_field = args.gold
        clear_graphit_env()
        os.environ["GRAPHIT_HOME"] = tempfile.mkdtemp(prefix="graphit-ideas-")
        os.environ["GRAPHIT_AUTHOR"] = "benchmark"
        embedder = load_default()
        if embedder is None:
            raise SystemExit("the embedding model is not installed")
        if args.embed_cache:
            embedder = CachedEmbedder(embedder, args.embed_cache)
        self.embedder = embedder
        self.services, self.to_file_id, _ = load_scopes(memories, embedder)
        from_file = {v: k for k, v in self.to_file_id.items()}
        self.flags = {
            from_file[r["id"]]: (r["important"], r["mandatory"])
            for r in flagged_copy(memories)
            if r["important"] or r["mandatory"]
        }
        texts = sorted({q["question"] for q in self.chosen} | set(OFF_TOPIC))
        self.vectors = {t: embedder.embed_query(t) for t in texts}
        self.items = self.collect()

    def collect(self, lexical_text: Callable[[str], str] | None = None) -> list[Item]:
        """Every query's store hits (the whole scope) and lexical shares, as `search` gets them."""
        for service in self.services.values():
            service.store.searches._postings = (-1, {})
        pairs = [
            (q["scope_id"], q["question"], q["category_name"], set(q[self.gold_field]))
            for q in self.chosen
        ]
        pairs += [(scope, text, "off-topic", None) for scope in self.services for text in OFF_TOPIC]
        items = []
        for scope, text, category, gold in pairs:
            service = self.services[scope]
            lexical_query = lexical_text(text) if lexical_text else text
            lexical = service.store.search_text(lexical_query, ALL_ROWS)
            near = service.store.search_vector(self.vectors[text], ALL_ROWS)
            shares, _ = service.reads._lexical_shares(lexical_query, lexical, lexical_only=False)
            items.append(
                Item(scope, text, category, gold, lexical, near, shares, self.vectors[text])
            )
        return items

    def reindex(self, column: str, **options: Any) -> None:
        from lancedb.index import FTS

        for service in self.services.values():
            service.store.table.create_index(
                column, config=FTS(**options), name=f"{column}_fts", replace=True
            )

    def measure(
        self,
        label: str,
        make: Make | None = None,
        rerank: Rerank | None = None,
        items: list[Item] | None = None,
    ) -> None:
        from graphit_cli.core import ranking, relevance

        make = make or fused
        recall: dict[bool, list[float]] = {False: [], True: []}
        mrr: dict[bool, list[float]] = {False: [], True: []}
        sizes: list[int] = []
        by_category: dict[str, list[float]] = {}
        empty = off = 0
        for item in items or self.items:
            matched = ranking.matches(make(item))
            if item.gold is None:
                off += 1
                empty += not matched
                continue
            if rerank is not None:
                order = rerank(item, matched)
                matched = [replace(s, score=order[s.row.key]) for s in matched]
            chains = ranking.collapse(matched)
            sizes.append(len(chains))
            for flagged in (False, True):
                ranked = []
                for rank, chain in enumerate(chains):
                    important, mandatory = (
                        self.flags.get(chain.matched.id, (False, False))
                        if flagged
                        else (False, False)
                    )
                    row = replace(chain.matched, important=important, mandatory=mandatory)
                    ranked.append((rank, row))
                chosen = relevance.select(ranked, lambda r: r[1], TOP_K)
                ids = [
                    self.to_file_id.get(r[1].id, r[1].id)
                    for r in sorted(chosen, key=lambda r: r[0])
                ]
                metrics = query_metrics(ids, item.gold)
                recall[flagged].append(metrics["recall@10"])
                mrr[flagged].append(metrics["mrr"])
                if not flagged:
                    by_category.setdefault(item.category, []).append(metrics["recall@10"])
        plain, flags = statistics.fmean(recall[False]), statistics.fmean(recall[True])
        categories = " ".join(
            f"{name} {statistics.fmean(values):.3f}" for name, values in sorted(by_category.items())
        )
        print(
            f"{label:58s} | {plain:.3f} {flags:.3f} {flags - plain:+.3f}"
            f" | {statistics.fmean(mrr[False]):.3f} {statistics.fmean(mrr[True]):.3f}"
            f" | {statistics.median(sizes):3.0f} | {empty / max(off, 1):.2f} | {categories}",
            flush=True,
        )


# --- fusion helpers -----------------------------------------------------------------------


def fused(item: Item, depth: int | None = None, vector_depth: int | None = None) -> list[Any]:
    """What `search` fuses: each retriever's CANDIDATE_DEPTH rows (or the depths given)."""
    from graphit_cli.core import ranking, relevance

    lexical_depth = depth or relevance.CANDIDATE_DEPTH
    near_depth = vector_depth or depth or relevance.CANDIDATE_DEPTH
    return ranking.fuse(item.lexical[:lexical_depth], item.near[:near_depth], shares=item.shares)


def with_near(item: Item, near: list[Any]) -> list[Any]:
    from graphit_cli.core import ranking, relevance

    near = sorted(near, key=lambda pair: -pair[1])[: relevance.CANDIDATE_DEPTH]
    return ranking.fuse(item.lexical[: relevance.CANDIDATE_DEPTH], near, shares=item.shares)


def rank_fusion(item: Item, k: int) -> dict[str, float]:
    """Reciprocal rank fusion of the lexical list (ordered by BM25 x share) and the vector list,
    scaled so the best is 1."""
    from graphit_cli.core import relevance

    depth = relevance.CANDIDATE_DEPTH
    lexical = sorted(item.lexical[:depth], key=lambda h: -h.score * item.shares.get(h.row.key, 0.0))
    scores: dict[str, float] = {}
    for order in ([h.row.key for h in lexical], [row.key for row, _ in item.near[:depth]]):
        for position, key in enumerate(order):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + position + 1)
    top = max(scores.values(), default=1.0)
    return {key: value / top for key, value in scores.items()}


def blend(k: int, alpha: Callable[[Item], float]) -> Rerank:
    def rerank(item: Item, matched: list[Any]) -> dict[str, float]:
        rrf = rank_fusion(item, k)
        a = alpha(item)
        return {s.row.key: a * s.score + (1 - a) * rrf.get(s.row.key, 0.0) for s in matched}

    return rerank


def idea_adaptive(bench: Bench) -> None:
    """The fusion's lexical weight per query, from lo to hi with the best hit's share of the
    query's term weight, or with the overlap of the two retrievers' top 10s."""
    from graphit_cli.core import ranking, relevance

    depth = relevance.CANDIDATE_DEPTH

    def confidence(item: Item, basis: str) -> float:
        if basis == "share":
            return max(item.shares.values(), default=0.0)
        lexical = sorted(
            item.lexical[:depth], key=lambda h: -h.score * item.shares.get(h.row.key, 0.0)
        )
        top = {h.row.key for h in lexical[:10]}
        return len(top & {row.key for row, _ in item.near[:10]}) / 10

    for basis in ("share", "agreement"):
        for lo, hi in ((0.3, 0.6), (0.4, 0.6), (0.5, 0.7), (0.6, 0.4)):

            def make(item: Item, lo: float = lo, hi: float = hi, basis: str = basis) -> list[Any]:
                weight = lo + (hi - lo) * confidence(item, basis)
                return ranking.fuse(
                    item.lexical[:depth],
                    item.near[:depth],
                    lexical_weight=weight,
                    shares=item.shares,
                )

            bench.measure(f"lexical weight {lo}..{hi} by {basis}", make)


def unit(vector: Any) -> Any:
    import numpy as np

    array = np.asarray(vector, dtype=np.float64)
    return array / max(float(np.linalg.norm(array)), 1e-12)


# --- the ideas ----------------------------------------------------------------------------


def idea_depth(bench: Bench) -> None:
    for depth in (100, 150, 250, 300, ALL_ROWS):
        bench.measure(f"candidate depth {depth} per retriever", lambda i, d=depth: fused(i, d))
    bench.measure("vector depth: the whole scope, lexical 200", lambda i: fused(i, None, ALL_ROWS))


def idea_rrf(bench: Bench) -> None:
    from graphit_cli.core import relevance

    for k in (5, 10, 60):
        bench.measure(f"matches ordered by RRF k={k}", rerank=blend(k, lambda _: 0.0))
    for a in (0.25, 0.5, 0.75):
        bench.measure(
            f"{a} x score fusion + {1 - a} x RRF k=10", rerank=blend(10, lambda _, a=a: a)
        )
    for cut in (3, 4):
        for short, long in ((0.5, 1.0), (1.0, 0.5), (0.75, 1.0)):

            def alpha(
                item: Item, cut: int = cut, short: float = short, long: float = long
            ) -> float:
                return short if len(relevance.informative_terms(item.text)) <= cut else long

            bench.measure(
                f"<= {cut} terms {short} x score + RRF k=10, else {long}",
                rerank=blend(10, alpha),
            )


def idea_vectors(bench: Bench) -> None:
    """A second vector per memory, of its body alone (the title here is 'X: observation from
    session N'); the row's cosine becomes a mix of both."""
    rows = {row.key: row for item in bench.items for row, _ in item.near}
    start = time.perf_counter()
    bodies = bench.embedder.embed_documents([row.body for row in rows.values()])
    seconds = time.perf_counter() - start
    body = {key: unit(v) for key, v in zip(rows, bodies, strict=True)}
    print(f"# body vectors: {len(body)} rows in {seconds:.1f} s (0 s when cached)")

    def mixed(combine: Callable[[float, float], float]) -> Make:
        def make(item: Item) -> list[Any]:
            query = unit(item.vector)
            near = [(row, combine(cos, float(body[row.key] @ query))) for row, cos in item.near]
            return with_near(item, near)

        return make

    bench.measure("body-only vector", mixed(lambda _, b: b))
    bench.measure("max(title+body, body) cosine", mixed(max))
    bench.measure("mean(title+body, body) cosine", mixed(lambda a, b: (a + b) / 2))
    bench.measure("0.75 x title+body + 0.25 x body cosine", mixed(lambda a, b: 0.75 * a + 0.25 * b))


LEAD = re.compile(
    r"^\s*(what|when|where|who|whom|which|how|why)\b(\s+(kind|type|sort|many|much|often|long)\b)?"
    r"(\s+of\b)?(\s+(did|does|do|is|are|was|were|has|have|had|would|could|can|will|might)\b)?",
    re.I,
)


def idea_query(bench: Bench) -> None:
    """The query vector of the question with its question words stripped, or of its
    informative terms, alone or averaged with the question's own vector."""
    from graphit_cli.core import relevance

    def strip(text: str) -> str:
        return LEAD.sub("", text).strip(" ?") or text

    def terms(text: str) -> str:
        return " ".join(relevance.informative_terms(text)) or text

    rows = {row.key: row for item in bench.items for row, _ in item.near}
    from graphit_cli.embed import document_text

    docs = bench.embedder.embed_documents([document_text(r.title, r.body) for r in rows.values()])
    vectors = {key: unit(v) for key, v in zip(rows, docs, strict=True)}

    def requery(rewrite: Callable[[Item], Any]) -> Make:
        cache: dict[str, Any] = {}

        def make(item: Item) -> list[Any]:
            if item.text not in cache:
                cache[item.text] = unit(rewrite(item))
            query = cache[item.text]
            return with_near(item, [(row, float(vectors[row.key] @ query)) for row, _ in item.near])

        return make

    embed = bench.embedder.embed_query
    bench.measure("query vector recomputed (= baseline)", requery(lambda i: i.vector))
    bench.measure(
        "question words stripped before embedding", requery(lambda i: embed(strip(i.text)))
    )
    bench.measure("informative terms alone embedded", requery(lambda i: embed(terms(i.text))))
    bench.measure(
        "mean of the question's and the stripped question's vectors",
        requery(lambda i: unit(i.vector) + unit(embed(strip(i.text)))),
    )
    meta = set(
        [
            "kind",
            "kinds",
            "type",
            "types",
            "sort",
            "many",
            "much",
            "times",
            "often",
            "mention",
            "mentioned",
            "mentions",
        ]
    )
    meta |= {"name", "names", "thing", "things", "something", "ever"}

    def lexical_text(text: str) -> str:
        kept = [w for w in re.findall(r"\w+", text) if w.lower() not in meta]
        return " ".join(kept) or text

    bench.measure(
        "question meta-words (kind, many, times, mention...) left out of BM25",
        items=bench.collect(lexical_text),
    )


def idea_columns(bench: Bench) -> None:
    from graphit_cli.store import search

    saved = dict(search.TEXT_BOOSTS)
    for columns in (("body",), ("body", "tags_json"), ("body", "title")):
        search.TEXT_BOOSTS.clear()
        search.TEXT_BOOSTS.update({c: saved[c] for c in columns})
        bench.measure(f"BM25 over {' + '.join(columns)} only", items=bench.collect())
    search.TEXT_BOOSTS.clear()
    search.TEXT_BOOSTS.update(saved)


def idea_tokenizer(bench: Bench) -> None:
    """The FTS index's options (graphit's: stem, stop words, lower case, ascii folding)."""
    variants: list[tuple[str, dict[str, Any]]] = [
        ("no stemming", {"stem": False}),
        ("with positions (BM25 unchanged)", {"with_position": True}),
        (
            "3-gram tokens, no stemming, no stop words",
            {"base_tokenizer": "ngram", "stem": False, "remove_stop_words": False},
        ),
    ]
    from graphit_cli.store.table import FTS_COLUMNS

    for label, options in variants:
        for column in FTS_COLUMNS:
            bench.reindex(column, **options)
        bench.measure(f"FTS tokenizer: {label}", items=bench.collect())
    for column in FTS_COLUMNS:
        bench.reindex(column)  # back to graphit's options (LanceDB's defaults = graphit's)


def phrase_hits(bench: Bench, slop: int) -> dict[tuple[str, str], list[set[str]]]:
    """Per query, the rows whose body holds each pair of consecutive informative words."""
    from lancedb.query import PhraseQuery

    from graphit_cli.core import relevance

    found: dict[tuple[str, str], list[set[str]]] = {}
    for item in bench.items:
        words = [
            w
            for w in (x.lower() for x in re.findall(r"\w+", item.text))
            if w not in relevance.STOP_WORDS
        ]
        table = bench.services[item.scope].store.table
        found[(item.scope, item.text)] = [
            set(
                table.search(PhraseQuery(f"{a} {b}", "body", slop=slop), query_type="fts")
                .select(["key", "_score"])
                .limit(ALL_ROWS)
                .to_arrow()
                .column("key")
                .to_pylist()
            )
            for a, b in itertools.pairwise(words)
        ]
    return found


def phrase_boost(
    hits: dict[tuple[str, str], list[set[str]]], weight: float
) -> Callable[[Item, Any], float]:
    def boost(item: Item, scored: Any) -> float:
        pairs = hits[(item.scope, item.text)]
        return weight * sum(scored.row.key in keys for keys in pairs) / max(len(pairs), 1)

    return boost


MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
DATE = re.compile(
    r"\b(?:(\d{1,2})\s+)?(" + "|".join(MONTHS) + r")\b(?:\s+(\d{1,2}))?(?:,?\s*((?:19|20)\d\d))?"
    r"|\b((?:19|20)\d\d)\b",
    re.I,
)


def named_span(text: str) -> tuple[date, date] | None:
    """The dates a query names: a year, a month of a year, or a day (+- 3 days)."""
    for found in DATE.finditer(text):
        day_before, month, day_after, year, year_alone = found.groups()
        if year_alone and not month:
            return date(int(year_alone), 1, 1), date(int(year_alone), 12, 31)
        if month and year:
            m, y = MONTHS[month.lower()], int(year)
            day = day_before or day_after
            if day and 1 <= int(day) <= calendar.monthrange(y, m)[1]:
                named = date(y, m, int(day))
                return named - timedelta(days=3), named + timedelta(days=3)
            return date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1])
    return None


def date_boost(weight: float) -> Callable[[Item, Any], float]:
    def boost(item: Item, scored: Any) -> float:
        span = named_span(item.text)
        created = scored.row.created_at.date() if scored.row.created_at else None
        return weight if span and created and span[0] <= created <= span[1] else 0.0

    return boost


def boosted(*boosts: Callable[[Item, Any], float]) -> Rerank:
    def rerank(item: Item, matched: list[Any]) -> dict[str, float]:
        return {s.row.key: s.score + sum(b(item, s) for b in boosts) for s in matched}

    return rerank


def idea_phrase(bench: Bench) -> None:
    bench.reindex("body", with_position=True)
    bench.items = bench.collect()
    for slop in (0, 2):
        hits = phrase_hits(bench, slop)
        for weight in (0.1, 0.2):
            bench.measure(
                f"phrase boost: + {weight} x share of word pairs in the body, slop {slop}",
                rerank=boosted(phrase_boost(hits, weight)),
            )
    hits = phrase_hits(bench, 2)
    bench.measure(
        "phrase boost (slop 2, 0.1) and date boost (0.1)",
        rerank=boosted(phrase_boost(hits, 0.1), date_boost(0.1)),
    )
    bench.reindex("body")
    bench.items = bench.collect()


def idea_date(bench: Bench) -> None:
    named = sum(named_span(i.text) is not None for i in bench.items if i.gold is not None)
    print(f"# queries naming a date: {named}")
    for weight in (0.05, 0.1, 0.2):
        bench.measure(
            f"date boost: + {weight} when created within the named date",
            rerank=boosted(date_boost(weight)),
        )


def idea_feedback(bench: Bench) -> None:
    """Lexical pseudo-relevance feedback: BM25 of the best terms of the top fused rows."""
    from graphit_cli.core import relevance

    word = re.compile(r"[a-z]{3,}")
    counts: dict[str, tuple[Counter[str], int]] = {}
    for scope, service in bench.services.items():
        rows = service.store.live(None)
        df: Counter[str] = Counter()
        for row in rows:
            df.update(set(word.findall(row.body.lower())))
        counts[scope] = (df, len(rows))
    for top, size in ((3, 5), (3, 10)):
        expanded: dict[tuple[str, str], dict[str, float]] = {}
        for item in bench.items:
            df, n = counts[item.scope]
            asked = set(relevance.informative_terms(item.text))
            tf: Counter[str] = Counter()
            for s in fused(item)[:top]:
                tf.update(
                    w
                    for w in word.findall(s.row.body.lower())
                    if w not in relevance.STOP_WORDS and w not in asked
                )
            terms = sorted(tf, key=lambda w: -tf[w] * math.log(1 + n / (1 + df[w])))[:size]
            hits = (
                bench.services[item.scope].store.search_text(" ".join(terms), ALL_ROWS)
                if terms
                else []
            )
            best = max((h.score for h in hits), default=1.0) or 1.0
            expanded[(item.scope, item.text)] = {h.row.key: h.score / best for h in hits}
        for weight in (0.05, 0.1):

            def boost(
                item: Item, scored: Any, weight: float = weight, found: Any = expanded
            ) -> float:
                return weight * found[(item.scope, item.text)].get(scored.row.key, 0.0)

            bench.measure(
                f"lexical feedback: top {top} rows, {size} terms, + {weight} x BM25",
                rerank=boosted(boost),
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--memories", type=Path, default=DATA / "memories_observations.jsonl")
    parser.add_argument("--queries", type=Path, default=DATA / "queries.jsonl")
    parser.add_argument("--gold", default="gold_observation_ids")
    parser.add_argument("--embed-cache", type=Path, help="as retrieval.py --embed-cache")
    parser.add_argument("--only", default=",".join(IDEAS), help=f"ideas: {','.join(IDEAS)}")
    args = parser.parse_args()
    ideas = [i for i in args.only.split(",") if i]
    unknown = sorted(set(ideas) - set(IDEAS))
    if unknown:
        parser.error(f"unknown ideas {unknown}; known: {', '.join(IDEAS)}")
    bench = Bench(args)
    log(f"{len(bench.chosen)} queries, {len(bench.flags)} memories flagged")
    print(
        f"{'variant':58s} | recall@10 plain flagged delta | MRR plain flagged | n | off"
        " | recall@10 by category"
    )
    bench.measure("baseline (what search does)")
    for name in ideas:
        globals()[f"idea_{name}"](bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
