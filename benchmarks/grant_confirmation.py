"""What confirming a Hub grant before every operation costs a long-lived process.

Run from the repository root (needs the dev extra: moto[server], boto3):

    .venv/bin/python benchmarks/grant_confirmation.py [--rows 200] [--ops 60] [--rounds 3]

A broker provider (the test broker of tests/s3_harness.py: it authenticates a login token and
issues STS credentials scoped to one root, on a moto server with IAM enforced, all on
127.0.0.1) holds one project table of --rows memories. One MemoryService is opened and kept,
as the daemon, the MCP server and the Explorer keep theirs; then --ops operations of each kind
(list, FTS search, source, upsert of a new memory) run with GRAPHIT_GRANT_CHECK_SECONDS=0 (the
default: the grant is confirmed before every operation) and with a 60 s window (confirmed at
most once a minute), interleaved round by round. Printed per operation kind: the median
latency in each mode, the difference (what the confirmation costs), and how many grants the
broker issued per operation (each confirmation is one broker request, which assumes the root's
role with STS once); then the median time of one confirmation alone. The test broker answers
from this process on the same cores: a real Hub adds its network round trip to each one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import REPO

sys.path.insert(0, str(REPO))

PROJECT = "01JD0000000000000000000000"
BUCKET = "graphit-grants-bench"
TOKEN = "tok-bench"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--ops", type=int, default=60, help="operations of each kind per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from tests.s3_harness import Broker, enforced_moto

    home = Path(tempfile.mkdtemp(prefix="graphit-grants-"))
    for name in list(os.environ):
        if name.startswith(("GRAPHIT_", "AWS_")):
            del os.environ[name]
    os.environ.update(
        GRAPHIT_HOME=str(home),
        GRAPHIT_PROJECT_ID=PROJECT,
        GRAPHIT_BROKER_TOKEN=TOKEN,
        AWS_SHARED_CREDENTIALS_FILE=str(home / "none"),
        AWS_CONFIG_FILE=str(home / "none"),
        AWS_EC2_METADATA_DISABLED="true",
    )
    moto, admin = enforced_moto(BUCKET)
    broker = Broker(moto, admin=admin, bucket=BUCKET, prefix="org", tokens={TOKEN: ("ann", ["*"])})
    try:
        from graphit_cli.access.providers import Provider, add_provider

        add_provider(Provider("hub", "broker", endpoint=broker.endpoint), activate=True)
        return _measure(broker, args.rows, args.ops, args.rounds)
    finally:
        broker.stop()
        moto.stop()


def _measure(broker: object, rows: int, ops: int, rounds: int) -> int:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    scope = Scope("project", PROJECT)
    seed = open_service(scope, embedder=lambda: None)
    drafts = [
        MemoryDraft(title=f"note {n}", body=f"retry policy {n} and cache keys") for n in range(rows)
    ]
    ids = [r.memory.id for r in seed.upsert_many(drafts).results]
    issued: list[object] = broker.issued  # type: ignore[attr-defined]

    kinds: dict[str, Callable[..., object]] = {
        "list": lambda svc, n: svc.catalogue(),
        "search (fts)": lambda svc, n: svc.search("retry policy", mode="fts"),
        "source": lambda svc, n: svc.source(ids[n % len(ids)]),
        "upsert": lambda svc, n: svc.upsert(MemoryDraft(title=f"new {n}", body="b")),
    }
    times: dict[tuple[str, str], list[float]] = {}
    grants: dict[tuple[str, str], list[int]] = {}
    for _ in range(rounds):
        for window in ("0", "60"):
            os.environ["GRAPHIT_GRANT_CHECK_SECONDS"] = window
            svc = open_service(scope, embedder=lambda: None)  # kept, as a daemon keeps it
            svc.catalogue()  # warm: the first operation after opening is not measured
            for kind, op in kinds.items():
                before = len(issued)
                for n in range(ops):
                    start = time.perf_counter()
                    op(svc, n)
                    times.setdefault((kind, window), []).append(time.perf_counter() - start)
                grants.setdefault((kind, window), []).append(len(issued) - before)

    # The confirmation alone: one broker request for the login current now (the broker
    # assumes the root's role with STS), as the store makes it before an operation.
    store = open_service(scope, embedder=lambda: None).store
    access = store.access  # type: ignore[attr-defined]
    confirmations = []
    for _ in range(ops * rounds):
        start = time.perf_counter()
        access.confirm()
        confirmations.append(time.perf_counter() - start)

    load = os.getloadavg()[0]
    print(f"grant confirmation, {rows} rows, {ops} ops x {rounds} rounds, load {load:.1f}")
    print(
        f"{'operation':<14} {'window 0 ms':>12} {'window 60 ms':>13} {'cost ms':>8} "
        f"{'grants/op (0)':>14} {'grants/op (60)':>15}"
    )
    for kind in kinds:
        zero = statistics.median(times[(kind, "0")]) * 1000
        sixty = statistics.median(times[(kind, "60")]) * 1000
        per_zero = sum(grants[(kind, "0")]) / (ops * rounds)
        per_sixty = sum(grants[(kind, "60")]) / (ops * rounds)
        print(
            f"{kind:<14} {zero:>12.1f} {sixty:>13.1f} {zero - sixty:>8.1f} "
            f"{per_zero:>14.2f} {per_sixty:>15.2f}"
        )
    confirm_ms = statistics.median(confirmations) * 1000
    print(f"one confirmation alone: median {confirm_ms:.1f} ms over {len(confirmations)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
