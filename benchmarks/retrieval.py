"""Retrieval quality benchmark for graphit search: recall@5, recall@10, hit@10, MRR, latency.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/retrieval.py \\
        --memories ../shared/data/locomo-dev/memories_observations.jsonl \\
        --queries ../shared/data/locomo-dev/queries.jsonl \\
        --gold gold_observation_ids [--mode fts --mode vector --mode hybrid | --mode all] \\
        [--top-k 10] [--flags] [--embedder onnx|sentence-transformers] [--json OUT]

Input: any pair of JSONL files in the format of the LoCoMo dev set's README (beside its files).
Memory records carry
`id`, `scope_id`, `title`, `body`, `type`, `tags`, `created_at`, `updated_at`, `important`,
`mandatory`; queries carry `qid`, `scope_id`, `question`, `category_name`, `adversarial` and the
gold field named by --gold (a list of memory record ids).

What it does, through graphit's own service and nothing else:

1. in a temporary GRAPHIT_HOME, one `context:<name>` scope per `scope_id` (the name is the
   scope id with characters outside `A-Z a-z 0-9 . _ @ + = -` replaced by `-`), loaded with
   `MemoryService.upsert_many` (fresh ULIDs; the file's ids are mapped to the returned ones);
2. `MemoryService.embed()` per scope, timed (embedding throughput in rows/s);
3. every non-adversarial query with a non-empty gold list is run as
   `MemoryService.search(question, top_k=K, mode=M)` in its scope. Latency is measured
   in-process around that call (the model is loaded once beforehand; the query embedding is
   inside the timing, as `search` computes it). One untimed warm-up query per scope and mode.

Metrics, per query then averaged (overall and per `category_name`):

- recall@5 / recall@10: fraction of the query's gold ids among the first 5 / 10 hits;
- hit@10: 1 if any gold id is among the first 10 hits;
- MRR: 1 / position of the first gold id among the hits (0 when none is shown).

The primary figures use the hits in the order `search` returns them: the canonical order
(mandatory, important, normal; newest first), which is what the user sees. The secondary
figures re-sort the same hits by `SearchHit.rank` (relevance before canonical ordering), so the
difference between the two lines is what canonical ordering costs. Note that "the first 5 of
the top-10 in canonical order" is not what a `--top-k 5` search shows (that selects the 5 most
relevant first): the relevance-order recall@5 is the closer figure for a top-5 search.

Input is taken as it comes, with three fixes counted in the report (`input fixes`): tags that
graphit refuses are dropped, an unknown type becomes `fact`, a title over 300 characters is cut.

graphit's code is measured as it is: the benchmark neither patches nor tunes it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import REPO, clear_graphit_env, git_state, loadavg, log, percentile, write_json

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

ALL_MODES = ("fts", "vector", "hybrid")
DEFAULT_MODES = ALL_MODES
CUTOFFS = (5, 10)
UPSERT_CHUNK = 1000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.@+=-]")


# --- input --------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise SystemExit(f"{path}:{number}: not JSON: {exc}") from None
            if not isinstance(row, dict):
                raise SystemExit(f"{path}:{number}: expected a JSON object")
            rows.append(row)
    return rows


def safe_scope_names(scope_ids: Iterable[str]) -> dict[str, str]:
    """A valid, distinct context name for every scope id (graphit's safe-id charset)."""
    from graphit_cli.access import scopes

    names: dict[str, str] = {}
    taken: set[str] = set()
    for scope_id in scope_ids:
        base = _UNSAFE.sub("-", scope_id)
        while ".." in base:
            base = base.replace("..", ".")
        base = base.lstrip("_.@+=-")[:120] or "scope"
        name, n = base, 1
        while name.lower() in taken:  # table directories may live on a case-blind filesystem
            n += 1
            name = f"{base}-{n}"
        taken.add(name.lower())
        names[scope_id] = scopes.validate_safe_id(name, "context name")
    return names


def parse_time(value: Any, what: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise SystemExit(f"{what}: not an ISO 8601 date: {value!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def to_draft(record: dict[str, Any], notes: dict[str, int]) -> Any:
    """A MemoryDraft for one record. Invalid tags are dropped and an unknown type becomes
    `fact` (both counted in `notes`); a record without a title or body is an error."""
    from graphit_cli.core import revisions
    from graphit_cli.core.models import DEFAULT_TYPE, MEMORY_TYPES, MemoryDraft
    from graphit_cli.errors import InvalidInput

    rid = record.get("id")
    title, body = record.get("title"), record.get("body")
    if not isinstance(title, str) or not title.strip():
        raise SystemExit(f"memory {rid!r}: no title")
    if not isinstance(body, str) or not body.strip():
        raise SystemExit(f"memory {rid!r}: no body")
    tags: list[str] = []
    for tag in record.get("tags") or []:
        try:
            tags.append(revisions.validate_tag(str(tag)))
        except InvalidInput:
            notes["dropped_tags"] += 1
    memory_type = str(record.get("type") or DEFAULT_TYPE).strip().lower()
    if memory_type not in MEMORY_TYPES:
        notes["unknown_types"] += 1
        memory_type = DEFAULT_TYPE
    title = " ".join(title.split())
    if len(title) > revisions.MAX_TITLE:
        notes["cut_titles"] += 1
        title = title[: revisions.MAX_TITLE]
    return MemoryDraft(
        id=None,  # graphit assigns a fresh ULID; the file's id is mapped to it
        title=title,
        body=body,
        type=memory_type,
        tags=tuple(tags),
        important=bool(record.get("important")),
        mandatory=bool(record.get("mandatory")),
        created_at=parse_time(record.get("created_at"), f"memory {rid!r} created_at"),
        updated_at=parse_time(record.get("updated_at"), f"memory {rid!r} updated_at"),
    )


def flagged_copy(
    memories: list[dict[str, Any]],
    *,
    seed: int = 7,
    important: float = 0.10,
    mandatory: float = 0.03,
) -> list[dict[str, Any]]:
    """The same memories with flags as real projects keep them: a seeded `important` share
    and an independent `mandatory` share (10 % and 3 % by default)."""
    import random

    rng = random.Random(seed)
    copy = []
    for record in memories:
        flagged = dict(record)
        flagged["important"] = rng.random() < important
        flagged["mandatory"] = rng.random() < mandatory
        copy.append(flagged)
    return copy


# --- loading ------------------------------------------------------------------------------


class CachedEmbedder:
    """The real embedder with a disk cache of its vectors (`--embed-cache DIR`): the model is
    deterministic, so a rerun on the same texts reuses the vectors instead of recomputing them
    (~100 s of embedding per run on this machine). Keyed by model id and the exact text."""

    def __init__(self, inner: Any, directory: Path) -> None:
        import hashlib
        import pickle

        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        tag = hashlib.sha1(inner.model_id.encode()).hexdigest()[:12]
        self.path = directory / f"vectors-{tag}.pickle"
        self._pickle = pickle
        self.vectors: dict[str, list[float]] = {}
        if self.path.exists():
            self.vectors = pickle.loads(self.path.read_bytes())
        self.fresh = 0

    def _many(self, texts: Sequence[str], query: bool) -> list[list[float]]:
        key = "q:" if query else "d:"
        missing = [t for t in dict.fromkeys(texts) if key + t not in self.vectors]
        if missing:
            found = (
                [self.inner.embed_query(t) for t in missing]
                if query
                else self.inner.embed_documents(missing)
            )
            for text, vector in zip(missing, found, strict=True):
                self.vectors[key + text] = [float(x) for x in vector]
            self.fresh += len(missing)
            self.save()
        return [self.vectors[key + t] for t in texts]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._many(texts, query=False)

    def embed_query(self, text: str) -> list[float]:
        return self._many([text], query=True)[0]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(".tmp")
        temp.write_bytes(self._pickle.dumps(self.vectors))
        temp.replace(self.path)


def load_scopes(
    memories: list[dict[str, Any]], embedder: Any | None
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """Open one service per scope, upsert its memories, embed them.

    Returns (services by scope_id, graphit id -> file id, a report).
    """
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import WriteAction
    from graphit_cli.opening import open_service

    by_scope: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen: set[str] = set()
    for record in memories:
        rid, scope_id = record.get("id"), record.get("scope_id")
        if not isinstance(rid, str) or not rid:
            raise SystemExit(f"a memory record has no id: {str(record)[:120]}")
        if not isinstance(scope_id, str) or not scope_id:
            raise SystemExit(f"memory {rid!r} has no scope_id")
        if rid in seen:
            raise SystemExit(f"memory id {rid!r} appears twice in the memories file")
        seen.add(rid)
        by_scope[scope_id].append(record)

    names = safe_scope_names(by_scope)
    for scope_id, name in names.items():
        if name != scope_id:
            log(f"scope {scope_id!r} -> context:{name}")
    notes: dict[str, int] = defaultdict(int)
    services: dict[str, Any] = {}
    to_file_id: dict[str, str] = {}
    ingest_s = embed_s = 0.0
    embedded = skipped = 0
    for scope_id, records in by_scope.items():
        drafts = [to_draft(r, notes) for r in records]
        service = open_service(Scope("context", names[scope_id]))
        t0 = time.perf_counter()
        for start in range(0, len(drafts), UPSERT_CHUNK):
            batch = service.upsert_many(drafts[start : start + UPSERT_CHUNK])
            chunk = records[start : start + UPSERT_CHUNK]
            for record, result in zip(chunk, batch.results, strict=True):
                if result.action is not WriteAction.CREATED:
                    raise SystemExit(f"memory {record['id']!r}: {result.action}, not created")
                to_file_id[result.memory.id] = record["id"]
        ingest_s += time.perf_counter() - t0
        services[scope_id] = service
        line = f"scope {scope_id}: {len(records)} memories upserted"
        if embedder is not None:
            report = service.embed(embedder)
            embed_s += report.seconds
            embedded += report.embedded
            skipped += report.skipped
            line += f", {report.embedded} embedded in {report.seconds:.1f} s"
        log(line)
    total = len(memories)
    report: dict[str, Any] = {
        "memories": total,
        "scopes": len(services),
        "scope_names": names,
        "notes": dict(notes),
        "upsert_s": round(ingest_s, 3),
        "upsert_rows_per_s": round(total / ingest_s, 1) if ingest_s else None,
    }
    if embedder is not None:
        report["embedding"] = {
            "model": embedder.model_id,
            "rows": embedded,
            "skipped": skipped,
            "seconds": round(embed_s, 3),
            "rows_per_s": round(embedded / embed_s, 1) if embed_s else None,
        }
    return services, to_file_id, report


# --- metrics ------------------------------------------------------------------------------


def query_metrics(ranked: Sequence[str], gold: set[str]) -> dict[str, float]:
    """Metrics of one ranked list of file ids against a set of gold ids."""
    metrics: dict[str, float] = {}
    for k in CUTOFFS:
        metrics[f"recall@{k}"] = len(gold.intersection(ranked[:k])) / len(gold)
    metrics["hit@10"] = 1.0 if gold.intersection(ranked[:10]) else 0.0
    first = next((i for i, rid in enumerate(ranked, start=1) if rid in gold), None)
    metrics["mrr"] = 1.0 / first if first else 0.0
    return metrics


METRIC_NAMES = (*(f"recall@{k}" for k in CUTOFFS), "hit@10", "mrr")


def aggregate(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """Mean of every metric over `rows` (each row holds `key` -> metrics), overall and by
    category."""
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for row in rows:
        groups["all"].append(row[key])
        groups[row["category"]].append(row[key])
    out: dict[str, Any] = {}
    for name in ["all", *sorted(g for g in groups if g != "all")]:
        items = groups[name]
        out[name] = {"n": len(items)} | {
            m: round(statistics.fmean(i[m] for i in items), 4) for m in METRIC_NAMES
        }
    return out


# --- the benchmark ------------------------------------------------------------------------


def select_queries(
    queries: list[dict[str, Any]], gold_field: str, scope_ids: set[Any], known: set[Any]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The queries to run and counts of what was left out (and why)."""
    chosen: list[dict[str, Any]] = []
    skipped: dict[str, int] = defaultdict(int)
    for q in queries:
        if gold_field not in q:
            skipped["no_gold_field"] += 1
            continue
        if q.get("adversarial") or q.get("category_name") == "adversarial":
            skipped["adversarial"] += 1
            continue
        gold = q.get(gold_field) or []
        if not gold:
            skipped["empty_gold"] += 1
            continue
        if not str(q.get("question") or "").strip():
            skipped["empty_question"] += 1
            continue
        if q.get("scope_id") not in scope_ids:
            skipped["scope_without_memories"] += 1
            continue
        missing = [g for g in gold if g not in known]
        if missing:
            # Kept: those gold ids simply cannot be found, which lowers recall as it should.
            skipped["gold_ids_not_in_memories (kept)"] += len(missing)
        chosen.append(q)
    return chosen, dict(skipped)


QUERY_CACHE: CachedEmbedder | None = None  # set by --embed-cache


def _vector(question: str, mode: str) -> list[float] | None:
    """The query vector from the cache (--embed-cache), or None: `search` embeds it itself."""
    return QUERY_CACHE.embed_query(question) if QUERY_CACHE and mode != "fts" else None


def run_mode(
    mode: str,
    queries: list[dict[str, Any]],
    services: dict[str, Any],
    to_file_id: dict[str, str],
    gold_field: str,
    top_k: int,
) -> dict[str, Any]:
    # One untimed warm-up per scope: opens index files and fills caches.
    for scope_id, service in services.items():
        question = next((q["question"] for q in queries if q["scope_id"] == scope_id), None)
        if question:
            service.search(question, top_k=top_k, mode=mode, query_vector=_vector(question, mode))
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    used_modes: dict[str, int] = defaultdict(int)
    for n, q in enumerate(queries, start=1):
        service = services[q["scope_id"]]
        t0 = time.perf_counter()
        vector = _vector(q["question"], mode)
        result = service.search(q["question"], top_k=top_k, mode=mode, query_vector=vector)
        latencies.append(time.perf_counter() - t0)
        used_modes[result.mode] += 1
        shown = [to_file_id.get(h.memory.id, h.memory.id) for h in result.hits]
        by_rank = sorted(result.hits, key=lambda h: h.rank)
        relevance = [to_file_id.get(h.memory.id, h.memory.id) for h in by_rank]
        gold = set(q[gold_field])
        rows.append(
            {
                "qid": q.get("qid"),
                "category": str(q.get("category_name") or "uncategorised"),
                "gold": sorted(gold),
                "shown": shown,
                "ranks": [h.rank for h in result.hits],
                "scores": [round(h.score, 6) for h in result.hits],
                "canonical": query_metrics(shown, gold),
                "relevance": query_metrics(relevance, gold),
            }
        )
        if n % 100 == 0:
            log(f"  {mode}: {n}/{len(queries)} queries")
    ms = [s * 1000 for s in latencies]
    return {
        "mode": mode,
        "modes_used": dict(used_modes),
        "canonical_order": aggregate(rows, "canonical"),
        "relevance_order": aggregate(rows, "relevance"),
        "latency_ms": {
            "n": len(ms),
            "p50": round(percentile(ms, 50), 2),
            "p95": round(percentile(ms, 95), 2),
            "mean": round(statistics.fmean(ms), 2),
            "max": round(max(ms), 2),
        },
        "queries": rows,
    }


# --- report -------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    import lancedb

    commit, dirty = git_state()
    info: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "lancedb": lancedb.__version__,
        "git_commit": commit + ("+dirty" if dirty else ""),
        "loadavg_before_queries": loadavg(),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["cuda"] = bool(torch.cuda.is_available())
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    return info


def print_report(results: dict[str, Any]) -> None:
    cfg = results["config"]
    load = results["load"]
    print(
        f"\nRetrieval benchmark: {cfg['memories']} ({load['memories']} memories, "
        f"{load['scopes']} scopes) | queries {cfg['queries']} | gold {cfg['gold']} | "
        f"top-k {cfg['top_k']}"
    )
    selection = dict(results["selection"])
    run = selection.pop("queries_run")
    print(f"{run} queries run; left out: {selection or 'none'}")
    if load["notes"]:
        print(f"input fixes (see the module docstring): {load['notes']}")
    emb = load.get("embedding")
    if emb:
        print(
            f"embedding: {emb['rows']} rows in {emb['seconds']:.1f} s = "
            f"{emb['rows_per_s']} rows/s ({emb['model']})"
        )
    print(f"upsert: {load['memories']} rows in {load['upsert_s']:.2f} s")
    header = (
        f"{'mode':<7} {'order':<10} {'category':<14} {'n':>4} "
        f"{'R@5':>6} {'R@10':>6} {'Hit@10':>7} {'MRR':>6}"
    )
    for mode, res in results["modes"].items():
        lat = res["latency_ms"]
        print(f"\n== {mode}: latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms")
        print(header)
        print("-" * len(header))
        canonical, relevance = res["canonical_order"], res["relevance_order"]
        for category in canonical:
            for label, table in (("canonical", canonical), ("relevance", relevance)):
                m = table[category]
                print(
                    f"{mode:<7} {label:<10} {category:<14} {m['n']:>4} "
                    f"{m['recall@5']:>6.3f} {m['recall@10']:>6.3f} "
                    f"{m['hit@10']:>7.3f} {m['mrr']:>6.3f}"
                )
    print("\nSummary (all categories; canonical order, relevance order in brackets)")
    print(f"{'mode':<7} {'R@5':>15} {'R@10':>15} {'Hit@10':>15} {'MRR':>15} {'p50/p95 ms':>14}")
    for mode, res in results["modes"].items():
        c, r = res["canonical_order"]["all"], res["relevance_order"]["all"]
        cells = " ".join(f"{c[m]:>6.3f} ({r[m]:.3f})" for m in METRIC_NAMES)
        lat = res["latency_ms"]
        print(f"{mode:<7} {cells} {lat['p50']:>6.1f}/{lat['p95']:<6.1f}")


# --- driver -------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--memories", type=Path, required=True, help="memories JSONL")
    parser.add_argument("--queries", type=Path, required=True, help="queries JSONL")
    parser.add_argument(
        "--gold", required=True, help="the queries' gold field, e.g. gold_observation_ids"
    )
    parser.add_argument(
        "--mode",
        action="append",
        choices=[*ALL_MODES, "all"],
        help="search mode; repeat for several, or `all` (default: fts, vector, hybrid)",
    )
    parser.add_argument("--top-k", type=int, default=10, help="hits per search (default 10)")
    parser.add_argument(
        "--flags",
        action="store_true",
        help="also run on a flagged copy (seeded: 10%% important, 3%% mandatory), "
        "reported as MODE+flags",
    )
    parser.add_argument("--json", type=Path, help="write every figure and per-query hits here")
    parser.add_argument(
        "--embedder",
        help="GRAPHIT_EMBEDDER for the run: onnx (the default backend), sentence-transformers",
    )
    parser.add_argument(
        "--embed-cache",
        type=Path,
        help="keep document and query vectors in this directory across runs (e.g. "
        "/tmp/graphit-embed-cache); query latency then excludes the query embedding",
    )
    parser.add_argument(
        "--keep-home", action="store_true", help="keep the temporary GRAPHIT_HOME (path on stderr)"
    )
    args = parser.parse_args(argv)
    if args.top_k < 1:
        parser.error("--top-k must be at least 1")
    modes = args.mode or list(DEFAULT_MODES)
    args.modes = list(ALL_MODES) if "all" in modes else list(dict.fromkeys(modes))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    memories = read_jsonl(args.memories)
    queries = read_jsonl(args.queries)
    known = {r.get("id") for r in memories}
    in_file = {r.get("scope_id") for r in memories}
    chosen, left_out = select_queries(queries, args.gold, in_file, known)
    if not chosen:
        raise SystemExit(f"no query to run (left out: {left_out})")
    if args.top_k < max(CUTOFFS):
        log(f"warning: --top-k {args.top_k} < {max(CUTOFFS)}: recall@10 counts only those hits")

    home = Path(tempfile.mkdtemp(prefix="graphit-retrieval-"))
    clear_graphit_env()  # graphit's defaults are what we measure
    if args.embedder:
        os.environ["GRAPHIT_EMBEDDER"] = args.embedder
    os.environ["GRAPHIT_HOME"] = str(home)
    os.environ["GRAPHIT_AUTHOR"] = "benchmark"

    try:
        embedder = None
        if any(m != "fts" for m in args.modes):
            from graphit_cli.embed import load_default

            t0 = time.perf_counter()
            embedder = load_default()
            if embedder is None:
                raise SystemExit(
                    "the embedding model is not installed (pip install graphit-cli); use --mode fts"
                )
            log(f"embedding model loaded in {time.perf_counter() - t0:.1f} s")
            if args.embed_cache:
                global QUERY_CACHE
                embedder = QUERY_CACHE = CachedEmbedder(embedder, args.embed_cache)
                log(f"vector cache {embedder.path}: {len(embedder.vectors)} vectors")
        log(f"loading {len(memories)} memories into {home}")
        services, to_file_id, load_report = load_scopes(memories, embedder)
        flagged: dict[str, Any] = {}
        if args.flags:
            copy = [dict(r, scope_id=f"{r['scope_id']}+flags") for r in flagged_copy(memories)]
            loaded, flagged_ids, _ = load_scopes(copy, embedder)
            flagged = {k.removesuffix("+flags"): v for k, v in loaded.items()}
            to_file_id.update(flagged_ids)
        log(f"{len(chosen)} queries to run (left out: {left_out})")

        results: dict[str, Any] = {
            "config": {
                "memories": str(args.memories),
                "queries": str(args.queries),
                "gold": args.gold,
                "modes": args.modes,
                "top_k": args.top_k,
                "flags": args.flags,
                "embedder": args.embedder or "default",
            },
            "machine": machine_info(),
            "load": load_report,
            "selection": {"queries_run": len(chosen), **left_out},
            "modes": {},
        }
        for mode in args.modes:
            log(f"mode {mode}: {len(chosen)} queries")
            results["modes"][mode] = run_mode(
                mode, chosen, services, to_file_id, args.gold, args.top_k
            )
            if flagged:
                log(f"mode {mode}, flagged copy: {len(chosen)} queries")
                results["modes"][f"{mode}+flags"] = run_mode(
                    mode, chosen, flagged, to_file_id, args.gold, args.top_k
                )
        # Latency and throughput depend on what else the machine runs: record the load.
        results["machine"]["loadavg_at_end"] = loadavg()
    finally:
        if args.keep_home:
            log(f"GRAPHIT_HOME kept at {home}")
        else:
            import shutil

            shutil.rmtree(home, ignore_errors=True)

    print_report(results)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
