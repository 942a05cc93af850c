"""Calibrate what search counts as a match on a retrieval set (LoCoMo dev by default).

    .venv/bin/python benchmarks/calibrate_floor.py \\
        [--memories ../shared/data/locomo-dev/memories_observations.jsonl] \\
        [--queries ../shared/data/locomo-dev/queries.jsonl] [--gold gold_observation_ids] \\
        [--embed-cache /tmp/graphit-embed-cache] [--embedder e5|onnx]

Loads the memories through graphit's service, embeds them with the packaged model, and for
every query keeps the store's BM25 and vector hits (`relevance.CANDIDATE_DEPTH` rows each) and
the query terms' coverage (which rows contain each term), as `search` gets them. Flags are then
laid over the same memories the way `retrieval.py --flags` does (seeded: 10 % important, 3 %
mandatory), and for each point of the grid (lexical weight of the fusion, lexical share,
similarity floor, FUSED_Z, the common-word constants CARRIER_ZIPF and, in `--mode fts`,
RARE_ZIPF / COMMON_ZIPF / COMMON_FLOOR, MIN_SHARE and BM25_RELATIVE; `--word-table` swaps the
language frequencies, e.g. for an English-only table) the script weighs each hit's share of
the query's term weight as `search` does, fuses
(`ranking.fuse`) and runs graphit's own match rule and selection (`ranking.matches`,
`relevance.select`, top_k 10) and prints recall@10 and MRR (relevance order) without and with
flags, how many memories a query matches (median), and the share of off-topic queries that
return nothing. It also prints the cosine similarities of gold rows and of off-topic queries'
best rows, which is what the similarity floor separates.

`--embedder` picks the model (as GRAPHIT_EMBEDDER); the grid's defaults are that model's
profile (core/profiles.py). The lexical thresholds are module constants of
`graphit_cli.core.relevance`, which this script sets for each run; the semantic ones (weight,
similarity floor, z) are the model's profile, replaced for each run. The end-to-end check of
the chosen values is `retrieval.py --flags --embedder ...` (through `search`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, clear_graphit_env, log, percentile
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

DATA = REPO.parent / "shared" / "data" / "locomo-dev"
TOP_K = 10
# Queries about nothing the conversations mention: a search should return nothing for them.
OFF_TOPIC = [
    "xylophone quantum banana",
    "kubernetes ingress controller certificate rotation",
    "postgres vacuum autovacuum tuning",
    "which rust crate parses toml",
    "quarterly tax filing deadline for llc",
    "mutual TLS client certificates",
    "how to configure a reverse proxy in nginx",
    "compile the linux kernel with clang",
]


def evaluate(
    lists: list[tuple[list[Any], set[str]]],
    flags: dict[str, tuple[bool, bool]],
    to_file_id: dict[str, str],
    lexical_only: bool = False,
    profile: Any = None,
) -> dict[str, float]:
    """recall@10 and MRR (relevance order) of graphit's match rule and selection."""
    from graphit_cli.core import profiles, ranking, relevance

    profile = profile or profiles.DEFAULT

    recall: list[float] = []
    mrr: list[float] = []
    sizes: list[int] = []
    for scored, gold in lists:
        matched = ranking.collapse(
            ranking.matches(scored, lexical_only=lexical_only, profile=profile)
        )
        sizes.append(len(matched))
        # (rank, row with the flags laid over it), best first
        ranked = []
        for rank, item in enumerate(matched):
            important, mandatory = flags.get(item.matched.id, (False, False))
            ranked.append((rank, replace(item.matched, important=important, mandatory=mandatory)))
        chosen = relevance.select(ranked, lambda r: r[1], TOP_K)
        by_rank = [to_file_id.get(r[1].id, r[1].id) for r in sorted(chosen, key=lambda r: r[0])]
        metrics = query_metrics(by_rank, gold)
        recall.append(metrics["recall@10"])
        mrr.append(metrics["mrr"])
    return {
        "recall@10": statistics.fmean(recall),
        "mrr": statistics.fmean(mrr),
        "matched": statistics.median(sizes),
    }


def candidates(service: Any, text: str, vector: list[float] | None) -> tuple[Any, Any, Any]:
    """The store's hits for one query and the query terms' coverage, as `search` gets them."""
    from graphit_cli.core import relevance

    lexical = service.store.search_text(text, relevance.CANDIDATE_DEPTH)
    near = service.store.search_vector(vector, relevance.CANDIDATE_DEPTH) if vector else []
    return lexical, near, service.reads._term_coverage(text, lexical)


def fused(hits: tuple[Any, Any, Any], weight: float, origin: float = 0.0) -> list[Any]:
    """The fused candidates, each hit's share weighed with `relevance`'s current constants."""
    from graphit_cli.core import ranking, relevance

    lexical, near, (counts, rows, covered) = hits
    weights = relevance.term_weights(counts, rows, lexical_only=not near)
    carrying = relevance.carriers(counts)
    shares = {
        key: relevance.lexical_share(terms, weights, carrying) for key, terms in covered.items()
    }
    scored = ranking.fuse(
        lexical, near, lexical_weight=weight, shares=shares, similarity_origin=origin
    )
    for item in scored:
        item.common_only = relevance.shares_only_common_words(
            covered.get(item.row.key, ()), carrying
        )
    return scored


def describe(lists: list[Any], off: list[Any], to_file_id: dict[str, str]) -> None:
    """Cosine similarities of gold rows and of off-topic queries' best rows; gold shares."""
    gold_sims = [
        s.similarity
        for scored, gold in lists
        for s in scored
        if s.similarity is not None and to_file_id.get(s.row.id) in gold
    ]
    gold_shares = [
        s.share
        for scored, gold in lists
        for s in scored
        if s.share is not None and to_file_id.get(s.row.id) in gold
    ]
    off_best = [max((s.similarity or 0.0 for s in scored), default=0.0) for scored in off]
    for name, values in (
        ("cosine of gold rows", gold_sims),
        ("cosine of an off-topic query's best row", off_best),
        ("lexical share of gold full-text hits", gold_shares),
    ):
        if values:
            cuts = ", ".join(f"p{p} {percentile(values, p):.3f}" for p in (5, 10, 50, 90, 100))
            print(f"{name} (n={len(values)}): {cuts}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--memories", type=Path, default=DATA / "memories_observations.jsonl")
    parser.add_argument("--queries", type=Path, default=DATA / "queries.jsonl")
    parser.add_argument("--gold", default="gold_observation_ids")
    parser.add_argument("--mode", choices=("hybrid", "fts"), default="hybrid")
    parser.add_argument("--embedder", help="GRAPHIT_EMBEDDER for the run: e5, onnx")
    parser.add_argument("--weight", help="fusion lexical weights (default: the profile's)")
    parser.add_argument("--origin", help="similarity origins (default: the profile's)")
    parser.add_argument("--share", default="0.5", help="LEXICAL_SHARE values")
    parser.add_argument("--similarity", help="similarity floors (default: the profile's)")
    parser.add_argument("--z", help="fused z values (default: the profile's)")
    parser.add_argument("--min-share", default="0.05", help="fts: MIN_SHARE values")
    parser.add_argument("--bm25", default="0.08", help="fts: BM25_RELATIVE values (x the best hit)")
    parser.add_argument("--rare", default="4.5", help="fts: RARE_ZIPF values (commonness)")
    parser.add_argument("--common", default="7.5", help="fts: COMMON_ZIPF values (commonness)")
    parser.add_argument("--floor", default="0.2", help="fts: COMMON_FLOOR values (commonness)")
    parser.add_argument("--carrier", default="5.5", help="CARRIER_ZIPF values (commonness)")
    parser.add_argument(
        "--word-table",
        type=Path,
        help="another word_frequencies.tsv (scripts/gen_word_frequencies.py --output), e.g. "
        "English only; `none` weighs by idf alone",
    )
    parser.add_argument("--embed-cache", type=Path, help="as retrieval.py --embed-cache")
    args = parser.parse_args()

    from graphit_cli.core import commonness, profiles, relevance
    from graphit_cli.embed import load_default

    if args.word_table is not None:
        commonness._data = b"\n" if str(args.word_table) == "none" else args.word_table.read_bytes()

    memories = read_jsonl(args.memories)
    queries = read_jsonl(args.queries)
    chosen, _ = select_queries(
        queries, args.gold, {r["scope_id"] for r in memories}, {r["id"] for r in memories}
    )
    clear_graphit_env()
    os.environ["GRAPHIT_HOME"] = tempfile.mkdtemp(prefix="graphit-calibrate-")
    os.environ["GRAPHIT_AUTHOR"] = "benchmark"
    if args.embedder:
        os.environ["GRAPHIT_EMBEDDER"] = args.embedder
    embedder = load_default()
    if embedder is None:
        raise SystemExit("the embedding model is not installed")
    base = profiles.profile_for(embedder.model_id)
    log(f"model {embedder.model_id}, profile {base}")
    args.weight = args.weight or str(base.lexical_weight)
    args.similarity = args.similarity or str(base.similarity_floor)
    args.z = args.z or str(base.fused_z)
    args.origin = args.origin or str(base.similarity_origin)
    if args.embed_cache:
        embedder = CachedEmbedder(embedder, args.embed_cache)
    services, to_file_id, _ = load_scopes(memories, embedder)
    texts = sorted({q["question"] for q in chosen} | set(OFF_TOPIC))
    log(f"embedding {len(texts)} queries")
    vectors = {text: embedder.embed_query(text) for text in texts}

    fts = args.mode == "fts"
    raw = [
        (
            candidates(
                services[q["scope_id"]], q["question"], None if fts else vectors[q["question"]]
            ),
            set(q[args.gold]),
        )
        for q in chosen
    ]
    off_raw = [
        candidates(s, t, None if fts else vectors[t]) for s in services.values() for t in OFF_TOPIC
    ]
    from_file = {v: k for k, v in to_file_id.items()}
    flags = {
        from_file[r["id"]]: (r["important"], r["mandatory"])
        for r in flagged_copy(memories)
        if r["important"] or r["mandatory"]
    }
    log(f"{len(flags)} of {len(memories)} memories flagged")

    def floats(text: str) -> list[float]:
        return [float(x) for x in text.split(",")]

    from graphit_cli.core import ranking

    print(
        "rare common floor carrier origin weight share  sim    z  min  bm25 | recall@10 plain"
        " flagged  delta | MRR plain flagged | matched | off-topic empty"
    )
    outer = [
        (rare, common, floor, carrier, origin, weight)
        for rare in floats(args.rare)
        for common in floats(args.common)
        for floor in floats(args.floor)
        for carrier in floats(args.carrier)
        for origin in floats(args.origin)
        for weight in floats(args.weight)
    ]
    for number, (rare, common, floor, carrier, origin, weight) in enumerate(outer):
        relevance.RARE_ZIPF, relevance.COMMON_ZIPF, relevance.COMMON_FLOOR = rare, common, floor
        relevance.CARRIER_ZIPF = carrier
        lists = [(fused(hits, weight, origin), gold) for hits, gold in raw]
        off = [fused(hits, weight, origin) for hits in off_raw]
        if number == 0:
            describe(lists, off, to_file_id)
        grid = [
            (share, sim, z, low, bm)
            for share in floats(args.share)
            for sim in floats(args.similarity)
            for z in floats(args.z)
            for low in floats(args.min_share)
            for bm in floats(args.bm25)
        ]
        for share, sim, z, low, bm in grid:
            relevance.LEXICAL_SHARE = share
            relevance.MIN_SHARE, relevance.BM25_RELATIVE = low, bm
            profile = replace(
                base,
                lexical_weight=weight,
                similarity_origin=origin,
                similarity_floor=sim,
                fused_z=z,
            )
            empty = sum(
                not ranking.matches(s, lexical_only=fts, profile=profile) for s in off
            ) / len(off)
            a = evaluate(lists, {}, to_file_id, fts, profile)
            b = evaluate(lists, flags, to_file_id, fts, profile)
            print(
                f"{rare:4.1f} {common:6.1f} {floor:5.2f} {carrier:7.2f} {origin:6.2f}"
                f" {weight:6.2f} {share:5.2f} {sim:4.2f} {z:4.2f} {low:4.2f} {bm:5.2f} |"
                f" {a['recall@10']:15.3f} {b['recall@10']:7.3f}"
                f" {b['recall@10'] - a['recall@10']:+6.3f}"
                f" | {a['mrr']:9.3f} {b['mrr']:7.3f} | {a['matched']:7.0f} | {empty:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
