"""What idle scopes cost a running daemon ("an idle scope costs nothing").

Run from the repository root:

    .venv/bin/python benchmarks/daemon_scopes.py [--scopes 40] [--active 4] [--json OUT]

In a temporary GRAPHIT_HOME it creates --scopes context tables of one memory each, marks all
but --active of them last used 60 days ago in the scope-reference lock, starts
`python -m graphit_cli memory daemon` (fast hashing embedder, so no model load), waits until
every loop has run once (polling the daemon's ping over its socket), and reports the loops it
started, the time to that first full round, and the daemon's threads and resident memory
then. Run it with PYTHONPATH pointing at another checkout to compare versions.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO, clean_env, finish, log, machine_info, reset_env, table


def ping(path: Path) -> dict[str, Any] | None:
    """The daemon's ping answer over its socket (any protocol version), or None."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(str(path))
            sock.sendall(b'{"op": "ping", "protocol": 2}\n')
            reply: dict[str, Any] = json.loads(sock.makefile().readline())
            return reply
    except (OSError, ValueError):
        return None


def proc_status(pid: int) -> dict[str, int]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("Threads", "VmRSS"):
            found[key] = int(value.split()[0])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scopes", type=int, default=40)
    parser.add_argument("--active", type=int, default=4)
    parser.add_argument("--json")
    args = parser.parse_args()
    started = time.perf_counter()
    reset_env()
    home = Path(tempfile.mkdtemp(prefix="graphit-bench-scopes-"))
    os.environ["GRAPHIT_HOME"] = str(home)
    os.environ["GRAPHIT_EMBEDDER"] = "tests.embedders:HashingEmbedder"
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    log(f"creating {args.scopes} context tables")
    for n in range(args.scopes):
        open_service(Scope("context", f"c{n:03d}")).upsert(
            MemoryDraft(title=f"note {n}", body=f"body {n}")
        )
    lock = home / "memory" / "scopes.lock"
    data = json.loads(lock.read_text())
    idle = (datetime.now(UTC) - timedelta(days=60)).isoformat(timespec="seconds")
    for ref in sorted(data["scopes"])[args.active :]:
        data["scopes"][ref]["last_used"] = idle
    lock.write_text(json.dumps(data))

    env = {
        **clean_env(),
        "GRAPHIT_HOME": str(home),
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO)),
    }
    sock = home / "run" / "daemon.sock"
    log("starting the daemon")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon"],
        cwd=home,  # not the repository: `-m` puts the working directory first on sys.path
        env=env,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            answer = ping(sock)
            loops = (answer or {}).get("loops") or []
            if loops and all(loop["runs"] >= 1 or loop["failures"] for loop in loops):
                break
            if proc.poll() is not None or time.perf_counter() - t0 > 600:
                raise SystemExit("the daemon did not finish its first round")
            time.sleep(0.2)
        first_round = time.perf_counter() - t0
        status = proc_status(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    results: dict[str, Any] = {
        "machine": machine_info(),
        "scopes": args.scopes,
        "active": args.active,
        "loops": len(loops),
        "first_round_s": round(first_round, 2),
        "threads": status.get("Threads"),
        "rss_mb": round(status.get("VmRSS", 0) / 1024, 1),
        "code": os.environ.get("PYTHONPATH", str(REPO)),
    }

    def render(r: dict[str, Any]) -> str:
        rows = [
            [
                f"{r['scopes']} ({r['active']} active)",
                str(r["loops"]),
                f"{r['first_round_s']} s",
                str(r["threads"]),
                f"{r['rss_mb']} MB",
            ]
        ]
        return table(["scopes recorded", "loops", "first round", "threads", "daemon RSS"], rows)

    finish(results, started, render, args.json)


if __name__ == "__main__":
    main()
