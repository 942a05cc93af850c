"""Concurrent first writes: many processes writing the first memories of a new scope at once.

Run from the repository root (the S3 backend needs the dev extra: moto[server], boto3):

    .venv/bin/python benchmarks/first_writes.py [--trials 50] [--writers 8] [--writes 1]
                                                [--backends local,s3] [--json OUT]

Each trial is a scope with no table yet (a fresh GRAPHIT_HOME and project; on S3 a fresh
prefix on moto's server on 127.0.0.1, tests/s3_harness.py). `--writers` OS processes load
graphit, wait at a file barrier, and are released together; each then runs `graphit memory
upsert` `--writes` times in its own process (the CLI's own entry point, no daemon: each one
creates the table or finds it created). Every write has its own title. Afterwards the scope's
live memories are listed, and each write is counted as:

- acknowledged: exit 0 (the CLI printed what it wrote);
- lost: acknowledged, but no live memory has its title;
- refused in words: a documented exit code other than 1 (e.g. 7, storage unavailable);
- exit 1: an internal error (a bug: never acceptable).

It prints one line per backend with the counts, and the distinct error lines seen. The goal:
0 lost and 0 exit 1. There is no timing here to compare, so no baseline ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BUCKET = "graphit-first-writes"

# One writer: graphit loaded before the barrier, the CLI run in-process after it.
WORKER = r"""
import io, json, os, sys, time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import lance, lancedb, pyarrow  # what the first write would load: paid before the barrier
from graphit_cli.cli import main

Path(os.environ["FW_READY"]).touch()
go = Path(os.environ["FW_GO"])
deadline = time.monotonic() + 300
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("no start signal")
    time.sleep(0.001)
report = []
for title in os.environ["FW_TITLES"].split("|"):
    sys.argv = ["graphit", "memory", "upsert", "--title", title,
                "--body", "first write " + title, "-f", "json"]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException as exc:  # what the CLI let escape: an internal error
            code = 1
            err.write(f"{type(exc).__name__}: {exc}")
    report.append({"title": title, "code": code, "stderr": err.getvalue().strip()[-400:]})
print(json.dumps(report))
"""


def _environment(home: Path, project: str, s3: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHIT_", "AWS_"))}
    env.update(
        GRAPHIT_HOME=str(home),
        GRAPHIT_PROJECT_ID=project,
        GRAPHIT_NO_DAEMON="1",
        GRAPHIT_EMBEDDER="tests.embedders:HashingEmbedder",
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
        LANCEDB_LOG="error",
    )
    if s3 is not None:
        env.update(s3)
    return env


def trial(
    workdir: Path, writers: int, writes: int, s3_base: dict[str, str] | None, n: int
) -> list[dict[str, Any]]:
    """One trial: returns one record per write (title, code, stderr, present)."""
    from ulid import ULID

    home = workdir / f"home-{n}"
    project = str(ULID())
    s3 = None
    if s3_base is not None:
        s3 = {**s3_base, "GRAPHIT_S3_PREFIX": f"trial-{n}-{project.lower()}"}
    env = _environment(home, project, s3)
    go = workdir / f"go-{n}"
    procs = []
    for w in range(writers):
        titles = "|".join(f"trial {n} writer {w} write {i}" for i in range(writes))
        worker_env = {
            **env,
            "GRAPHIT_AUTHOR": f"writer-{w}",
            "FW_READY": str(workdir / f"ready-{n}-{w}"),
            "FW_GO": str(go),
            "FW_TITLES": titles,
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER],
                cwd=workdir,
                env=worker_env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    deadline = time.monotonic() + 300
    while not all((workdir / f"ready-{n}-{w}").exists() for w in range(writers)):
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            break
        time.sleep(0.01)
    go.touch()
    records: list[dict[str, Any]] = []
    for w, proc in enumerate(procs):
        out, err = proc.communicate(timeout=600)
        try:
            records += json.loads(out.strip().splitlines()[-1])
        except (IndexError, ValueError):
            # The worker itself died: every one of its writes counts as an internal error.
            for i in range(writes):
                title = f"trial {n} writer {w} write {i}"
                records.append({"title": title, "code": 1, "stderr": err.strip()[-400:]})
    listed = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "memory", "list", "-f", "json", "--limit", "10000"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if listed.returncode != 0:
        raise SystemExit(f"listing trial {n} failed: {listed.stderr.strip()}")
    titles = Counter(m["title"] for m in json.loads(listed.stdout))
    for record in records:
        record["present"] = titles[record["title"]]
    shutil.rmtree(home, ignore_errors=True)
    return records


def summarise(backend: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    acknowledged = [r for r in records if r["code"] == 0]
    lost = [r for r in acknowledged if r["present"] == 0]
    doubled = [r for r in records if r["present"] > 1]
    codes = Counter(r["code"] for r in records)
    errors = Counter(
        r["stderr"].splitlines()[-1] for r in records if r["code"] != 0 and r["stderr"]
    )
    return {
        "backend": backend,
        "writes": len(records),
        "acknowledged": len(acknowledged),
        "lost": len(lost),
        "doubled": len(doubled),
        "exit_1": codes.get(1, 0),
        "exit_codes": dict(sorted(codes.items())),
        "errors": dict(errors.most_common(8)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--writes", type=int, default=1, help="writes per writer")
    parser.add_argument("--backends", default="local,s3")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args()
    summaries = []
    workdir = Path(tempfile.mkdtemp(prefix="graphit-first-writes-"))
    moto = None
    try:
        for backend in args.backends.split(","):
            s3_base = None
            if backend == "s3":
                from tests.s3_harness import REGION, TEST_KEY, MotoServer

                moto = MotoServer()
                moto.client("s3").create_bucket(Bucket=BUCKET)
                s3_base = {
                    "GRAPHIT_PROVIDER": "s3",
                    "GRAPHIT_S3_BUCKET": BUCKET,
                    "GRAPHIT_S3_ENDPOINT": moto.endpoint,
                    "AWS_ACCESS_KEY_ID": TEST_KEY,
                    "AWS_SECRET_ACCESS_KEY": TEST_KEY,
                    "AWS_REGION": REGION,
                    "AWS_SHARED_CREDENTIALS_FILE": str(workdir / "no-aws-credentials"),
                    "AWS_CONFIG_FILE": str(workdir / "no-aws-config"),
                    "AWS_EC2_METADATA_DISABLED": "true",
                }
            elif backend != "local":
                parser.error(f"unknown backend {backend!r}")
            records: list[dict[str, Any]] = []
            started = time.monotonic()
            for n in range(args.trials):
                records += trial(workdir, args.writers, args.writes, s3_base, n)
                running = summarise(backend, records)
                print(
                    f"  {backend} trial {n + 1}/{args.trials}: {running['lost']} lost,"
                    f" {running['exit_1']} exit 1 so far",
                    file=sys.stderr,
                    flush=True,
                )
            summary = summarise(backend, records)
            summary["trials"] = args.trials
            summary["seconds"] = round(time.monotonic() - started, 1)
            summaries.append(summary)
            print(
                f"{backend}: {args.trials} trials x {args.writers} writers x {args.writes}"
                f" writes: {summary['writes']} writes, {summary['acknowledged']} acknowledged,"
                f" {summary['lost']} lost, {summary['doubled']} doubled,"
                f" {summary['exit_1']} exit 1; exit codes {summary['exit_codes']}"
                f" ({summary['seconds']} s)",
                flush=True,
            )
            for line, count in summary["errors"].items():
                print(f"  {count} x {line}", flush=True)
            if moto is not None:
                moto.stop()
                moto = None
    finally:
        if moto is not None:
            moto.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=2) + "\n")
    failed = any(s["lost"] or s["exit_1"] or s["doubled"] for s in summaries)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
