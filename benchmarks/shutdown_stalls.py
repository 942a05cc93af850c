"""Reliability of the daemon's shutdown and of the CLI beside a stopped daemon.

    python benchmarks/shutdown_stalls.py --rounds 20          # SIGTERM soak, then the stalls
    python benchmarks/shutdown_stalls.py --rounds 20 --after 1.5   # any tree (main's too)

SIGTERM soak: each round starts a daemon on a fresh GRAPHIT_HOME, forwards a 600-row `upsert`
to it and sends the daemon SIGTERM while it carries the write out (once it took the write's
claim; with `--after S`, S seconds after the CLI started, for a tree without claims). A round
is clean when the daemon exits 0, the CLI exits 0 (or 7 only for a write no daemon answered)
and the table holds each row once. Stalls: a daemon stopped with SIGSTOP, then `list` and a
one-row `upsert`: their exit codes and seconds (the answer deadline is the default, 10 s), and
whether the row is there once after SIGCONT. The embedder is the packaged model unless
`--embedder` names another (`tests.embedders:HashingEmbedder`). Prints one line per round and
the figures; the machine's load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PROJECT_ID = "01JD0000000000000000000000"


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def setup(root: Path, embedder: str | None) -> tuple[dict[str, str], Path]:
    project = root / "project"
    project.mkdir()
    (project / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    env |= {"GRAPHIT_HOME": str(root / "home"), "PYTHONPATH": str(REPO)}
    if embedder:
        env["GRAPHIT_EMBEDDER"] = embedder
    return env, project


def start_daemon(env: dict[str, str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    sock = Path(env["GRAPHIT_HOME"]) / "run" / "daemon.sock"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project"],
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=out,
        )
    deadline = time.monotonic() + 300
    while not ping(sock, env):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the daemon did not answer: {log.read_text()}")
        time.sleep(0.2)
    return proc


def ping(sock: Path, env: dict[str, str]) -> bool:
    import socket

    if not sock.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2.0)
            s.connect(str(sock))
            s.sendall(b'{"op": "ping"}\n')
            return b'"ok": true' in s.recv(1 << 16)
    except OSError:
        return False


def cli(env: dict[str, str], cwd: Path, *args: str, **extra: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **extra,
    )


def rows(env: dict[str, str], cwd: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "memory", "list", "-f", "json"],
        env={**env, "GRAPHIT_NO_DAEMON": "1"},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return [m["title"] for m in json.loads(done.stdout or "[]")]


def taken(env: dict[str, str]) -> bool:
    found = Path(env["GRAPHIT_HOME"]) / "run" / "requests"
    return found.is_dir() and any(p.suffix == ".taken" for p in found.iterdir())


def sigterm_round(n: int, embedder: str | None, after: float | None, size: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="graphit-soak-") as tmp:
        env, project = setup(Path(tmp), embedder)
        log = Path(tmp) / "daemon.log"
        daemon = start_daemon(env, project, log)
        batch = "".join(
            json.dumps({"title": f"row {i}", "body": f"round {n} row {i} body"}) + "\n"
            for i in range(size)
        )
        writer = cli(env, project, "memory", "upsert", stdin=subprocess.PIPE)
        assert writer.stdin is not None
        writer.stdin.write(batch)
        writer.stdin.close()
        writer.stdin = None
        started = time.monotonic()
        while True:  # SIGTERM while the daemon carries the write out
            if after is not None and time.monotonic() - started >= after:
                break
            if after is None and taken(env):
                break
            if writer.poll() is not None or time.monotonic() - started > 600:
                break
            time.sleep(0.01)
        in_flight = writer.poll() is None
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon_code = daemon.wait(timeout=300)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon_code = daemon.wait()
        _, err = writer.communicate(timeout=600)
        titles = rows(env, project)
        text = log.read_text()
        result = {
            "round": n,
            "in_flight": in_flight,
            "daemon_exit": daemon_code,
            "cli_exit": writer.returncode,
            "may_have_been_written": "may have been written" in err,
            "rows": len(titles),
            "distinct": len(set(titles)),
            "aborted": "terminate called" in text,
        }
        result["clean"] = (
            daemon_code == 0 and writer.returncode == 0 and len(titles) == len(set(titles)) == size
        )
        return result


def stall(embedder: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="graphit-stall-") as tmp:
        env, project = setup(Path(tmp), embedder)
        daemon = start_daemon(env, project, Path(tmp) / "daemon.log")
        found: dict[str, Any] = {}
        t0 = time.perf_counter()  # the same `list` without a daemon, for scale
        subprocess.run(
            [sys.executable, "-m", "graphit_cli", "memory", "list"],
            env={**env, "GRAPHIT_NO_DAEMON": "1"},
            cwd=project,
            capture_output=True,
            timeout=600,
        )
        found["list_without_daemon_seconds"] = round(time.perf_counter() - t0, 2)
        os.kill(daemon.pid, signal.SIGSTOP)
        try:
            for name, args in (
                ("list", ("memory", "list")),
                ("upsert", ("memory", "upsert", "--title", "Once", "--body", "stalled")),
            ):
                t0 = time.perf_counter()
                proc = cli(env, project, *args, stdin=subprocess.DEVNULL)
                try:
                    proc.communicate(timeout=900)
                    code: int | str = proc.returncode
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.communicate()
                    code = "killed after 900 s"
                found[name] = {"exit": code, "seconds": round(time.perf_counter() - t0, 2)}
        finally:
            os.kill(daemon.pid, signal.SIGCONT)
        time.sleep(3.0)  # the daemon reads the queued write now: it must decline it
        found["upsert"]["copies_after_sigcont"] = rows(env, project).count("Once")
        daemon.send_signal(signal.SIGTERM)
        found["daemon_exit"] = daemon.wait(timeout=300)
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--size", type=int, default=600)
    parser.add_argument("--after", type=float, default=None)
    parser.add_argument("--embedder", default=None)
    parser.add_argument("--no-stalls", action="store_true")
    args = parser.parse_args()
    print(f"load before: {load()}", flush=True)
    results = []
    for n in range(1, args.rounds + 1):
        result = sigterm_round(n, args.embedder, args.after, args.size)
        results.append(result)
        print(json.dumps(result), flush=True)
    clean = sum(r["clean"] for r in results)
    in_flight = sum(r["in_flight"] for r in results)
    print(
        f"SIGTERM during a forwarded {args.size}-row upsert: {clean} of {len(results)} clean "
        f"({in_flight} with the write in flight at SIGTERM; daemon exits "
        f"{sorted({r['daemon_exit'] for r in results})}, CLI exits "
        f"{sorted({r['cli_exit'] for r in results})}, "
        f"{sum(r['may_have_been_written'] for r in results)} 'may have been written', "
        f"{sum(r['rows'] != r['distinct'] or r['rows'] > args.size for r in results)} "
        f"with duplicates)"
    )
    if not args.no_stalls:
        print(f"stalls (daemon stopped with SIGSTOP): {json.dumps(stall(args.embedder))}")
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
