"""Helpers shared by the benchmark scripts in this folder (not a benchmark itself).

The scripts run as `python benchmarks/<name>.py` from the repository root and import this module as
`_common` (their own folder is on sys.path). Nothing here changes graphit's behaviour: it reads
the source records, computes statistics, describes the machine and formats the results.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The shared material: `../shared` from the project's root, wherever the checkout is.
SHARED_DATA = REPO.parent / "shared" / "data"
DEFAULT_DATA = SHARED_DATA / "cursorrules" / "memories.jsonl"
DATA_ENV = "GRAPHIT_BENCH_DATA"


# --- data ---------------------------------------------------------------------------------


def data_path(value: str | None) -> Path:
    """The source-memories file: --data, else $GRAPHIT_BENCH_DATA, else the default."""
    return Path(value or os.environ.get(DATA_ENV) or DEFAULT_DATA)


def require_data(path: Path) -> bool:
    """True when `path` is a file; otherwise say so on stderr (the caller exits with 2)."""
    if path.is_file():
        return True
    print(f"error: no data file {path} (pass --data or set {DATA_ENV})", file=sys.stderr)
    return False


def load_records(path: Path) -> list[dict[str, Any]]:
    """The source memories (title, body, tags, type). Invalid tags are dropped, not fixed."""
    from graphit_cli.core import revisions
    from graphit_cli.errors import InvalidInput

    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            tags: list[str] = []
            for tag in raw.get("tags") or []:
                try:
                    tags.append(revisions.validate_tag(str(tag)))
                except InvalidInput:
                    pass
            records.append(
                {
                    "title": str(raw["title"]),
                    "body": str(raw["body"]),
                    "type": str(raw.get("type") or "fact"),
                    "tags": tuple(tags[:16]),
                }
            )
    if not records:
        raise SystemExit(f"no records in {path}")
    return records


class Corpus:
    """Deterministic drafts: record i is source record i mod N with a varied title and body."""

    WORDS = (
        *("cache", "latency", "retry", "schema", "index", "fold", "merge", "chain"),
        *("revision", "scope", "token", "parser", "migration", "rollback", "fixture"),
        *("deploy", "build", "review", "lint", "format", "budget", "queue", "worker"),
    )

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = records

    def draft(self, i: int, *, memory_id: str | None = None) -> Any:
        from graphit_cli.core.models import MemoryDraft

        rec = self.records[i % len(self.records)]
        cycle = i // len(self.records)
        rng = random.Random(i)
        extra = " ".join(rng.choice(self.WORDS) for _ in range(6))
        suffix = f" [{cycle}.{i}]"
        title = rec["title"][: 300 - len(suffix)] + suffix
        body = f"{rec['body']}\n\nVariant {cycle}, record {i}: {extra}."
        return MemoryDraft(
            id=memory_id,
            title=title,
            body=body,
            type=rec["type"],
            tags=rec["tags"],
            # A few flagged memories so the canonical order has all three categories.
            important=(i % 20 == 0) or None,
            mandatory=(i % 100 == 0) or None,
        )

    def drafts(self, start: int, count: int) -> list[Any]:
        return [self.draft(i) for i in range(start, start + count)]


# --- statistics ---------------------------------------------------------------------------


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (p50 of 50 samples is the 25th smallest)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(pct / 100 * len(ordered) + 0.4999)))
    return ordered[rank - 1]


def summary_ms(samples_s: Sequence[float]) -> dict[str, float]:
    """n, p50, p95, max, min and mean in milliseconds of samples in seconds ({"n": 0} if none)."""
    ms = [s * 1000 for s in samples_s]
    if not ms:
        return {"n": 0}
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "max_ms": round(max(ms), 2),
        "min_ms": round(min(ms), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


# --- environment and processes ------------------------------------------------------------


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def clear_graphit_env() -> None:
    """Drop every GRAPHIT_* setting from this process: graphit's defaults are what we measure."""
    for name in [k for k in os.environ if k.startswith("GRAPHIT_")]:
        del os.environ[name]


def reset_env() -> None:
    """No GRAPHIT_* setting from the caller; writes by `benchmark`; LanceDB logs errors only;
    bytecode kept (`bytecode`)."""
    clear_graphit_env()
    os.environ["GRAPHIT_AUTHOR"] = "benchmark"
    os.environ.setdefault("LANCEDB_LOG", "error")
    bytecode()


def bytecode() -> None:
    """graphit's modules run from bytecode, as an installed package's do (pip compiles a
    wheel's modules; `make install` compiles the checkout's) and as the baseline's Typer does:
    where the environment turns bytecode writing off (PYTHONDONTWRITEBYTECODE, as on this
    project's machines), a checkout's changed modules would otherwise be compiled again by
    every process a benchmark times (a hook: ~8 ms of its ~65)."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(REPO / "graphit_cli", quiet=1)


def clean_env() -> dict[str, str]:
    """The process environment without any GRAPHIT_* setting (for a child process)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}


def graphit_command() -> list[str]:
    """The `graphit` entry point of this interpreter's environment."""
    script = Path(sys.executable).parent / "graphit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "graphit_cli"]


def run_cli(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str, str]:
    """Run `cmd` to the end: (wall seconds, stdout, stderr); a failure ends the benchmark."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed, proc.stdout, proc.stderr


# --- machine ------------------------------------------------------------------------------


def loadavg() -> list[float]:
    """The 1/5/15-minute load averages, rounded."""
    return [round(x, 2) for x in os.getloadavg()]


def git_state() -> tuple[str, bool]:
    """(short HEAD commit, whether graphit_cli/ has uncommitted changes); ("", False) if no git."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "graphit_cli"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return "", False
    return commit, bool(dirty)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def source_digest() -> str:
    """A short sha256 of graphit_cli/*.py (paths and contents): which code was measured."""
    digest = hashlib.sha256()
    for path in sorted((REPO / "graphit_cli").rglob("*.py")):
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def machine_info(*, detailed: bool = False) -> dict[str, Any]:
    """Date, machine, versions, commit and load at the start; `detailed` adds the CPU model and
    a digest of graphit_cli/."""
    import lancedb
    import pyarrow

    commit, dirty = git_state()
    if dirty:
        commit += " + uncommitted changes in graphit_cli/"
    info: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
    }
    if detailed:
        info["graphit_cli_sha256"] = source_digest()
        info["cpu_model"] = cpu_model()
    info.update(
        platform=platform.platform(),
        python=platform.python_version(),
        lancedb=lancedb.__version__,
        pyarrow=pyarrow.__version__,
        git_commit=commit,
        loadavg_start=loadavg(),
    )
    return info


# --- output -------------------------------------------------------------------------------


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain text table: left-aligned columns two spaces apart, a dashed rule under the head."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
    return "\n".join(lines)


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def verdict(value: float, target: float) -> str:
    return "ok" if value < target else "MISS"


def write_json(path: str | Path, results: dict[str, Any]) -> None:
    """The results as indented JSON at `path`, and a log line saying so."""
    Path(path).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {path}")


def finish(
    results: dict[str, Any],
    started: float,
    render: Callable[[dict[str, Any]], str],
    json_out: str | Path | None,
) -> None:
    """Record the wall time and the load at the end, print the report, write the JSON."""
    results["wall_s"] = round(time.perf_counter() - started, 1)
    results["machine"]["loadavg_end"] = loadavg()
    print(render(results))
    if json_out:
        write_json(json_out, results)


def start_daemon(cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`graphit memory daemon --scope project` in `cwd` (with `env`, else this process's),
    once it answers a ping on GRAPHIT_HOME's socket (up to 300 s)."""
    from graphit_cli.access import runstate
    from graphit_cli.warm import wire

    proc = subprocess.Popen(
        [*graphit_command(), "memory", "daemon", "--scope", "project"],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the daemon did not answer")
        time.sleep(0.2)
    return proc


# The baseline every timing is a ratio to: a bare two-command Typer app's command, run as a
# script in a fresh process (the issues' targets are "x a bare Typer command").
TYPER_APP = """
import typer

app = typer.Typer()

@app.command()
def first(name: str = "x") -> None:
    typer.echo(name)

@app.command()
def second() -> None:
    typer.echo("second")

app()
"""
