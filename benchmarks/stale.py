"""Stale memories after a refactor: flagged on every surface, no false flag, renames
named, and what the check costs a per-prompt hook.

Run from the repository root (see benchmarks/README.md, "stale.py"):

    .venv/bin/python benchmarks/stale.py [--per-kind 10] [--runs 7] [--json OUT]

1. Scenarios. A real git repository is made in a temporary folder: modules with a class and a
   function each, job files, a Makefile with targets. Memories are written through the service
   with their anchors found as `graphit memory upsert` finds them (graphit_cli.anchors), --per-kind
   of each kind: a path renamed, a file deleted, a class moved to another file, a function
   renamed, a make target renamed (all broken by the refactor), and two kinds that must not be
   flagged: memories whose anchors hold, and memories naming no code (prose with "make sure",
   "run the tests"). Then one refactor commit. Each surface is read as a user would: the CLI
   (`graphit memory list -f json`, a subprocess), the MCP tools (`graphit_memory_list`'s
   structured result), the prompt hook's text (`graphit agent hook prompt`, one prompt per
   broken kind), and `anchors.check` itself with and without `detail`. Reported: broken
   memories flagged, false flags, renames whose new path is named.
2. Cost. With `graphit memory daemon` running, whole `graphit agent hook prompt` processes
   (medians over --runs, interleaved with a bare Typer app's command, the baseline) against
   what the check adds to one: a fresh interpreter importing graphit_cli.anchors and checking
   the hook's hits without detail, as the hook does. Target: <= 10 % of the warm hook. Also the
   warm (cached, in one process) check of the same hits, and whether `graphit --help` imports
   graphit_cli.anchors (it must not).
3. Languages (`--languages`, instead of 1 and 2; benchmarks/stale_languages.py): on the
   held-out refactor corpus of tests/fixtures/anchor_refactors, broken memories flagged
   (recall) and flags that are right (precision) per language, by the full check and the
   hook's; and what anchor extraction costs a write, as ratios to a baseline of the same run.
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

from _common import TYPER_APP, graphit_command, log, reset_env, start_daemon

PROJECT_ID = "01JD0000000000000000000000"
BROKEN = ("renamed", "deleted", "moved", "symbol_renamed", "target_renamed")
KINDS = (*BROKEN, "holds", "prose")


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, encoding="utf-8")


def module(i: int, head: str, handler: str) -> str:
    """A module of area i: `head`, a function, and the lines a rename keeps (git detects a
    rename when at least half the file stays the same)."""
    body = "".join(f"SETTING_{k} = {k}  # area {i}\n" for k in range(12))
    return f"{head}def {handler}_{i}():\n    pass\n\n\n{body}"


def build_repo(root: Path, n: int) -> None:
    git(root, "init", "-q", "-b", "main")
    targets = []
    for i in range(n):
        write(
            root, f"src/app/mod_{i}.py", module(i, f"class Service{i}:\n    pass\n\n\n", "handler")
        )
        write(root, f"src/app/keep_{i}.py", f"class Keeper{i}:\n    pass\n")
        write(root, f"deploy/job_{i}.yaml", "kind: CronJob\n")
        targets += [f"build-{i}:\n\techo build\n", f"check-{i}:\n\techo check\n"]
    write(root, "Makefile", "\n".join(targets))
    write(root, "graphit.lock.json", json.dumps({"project": {"id": PROJECT_ID}}))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the project")


def refactor(root: Path, n: int) -> None:
    targets = []
    for i in range(n):
        # renamed: mod_i.py -> service_i.py, with handler_i renamed to handle_i and Service{i}
        # moved out to its own file.
        git(root, "mv", f"src/app/mod_{i}.py", f"src/app/service_{i}.py")
        write(root, f"src/app/service_{i}.py", module(i, "", "handle"))
        write(root, f"src/app/models_{i}.py", f"class Service{i}:\n    pass\n")
        git(root, "rm", "-q", f"deploy/job_{i}.yaml")
        targets += [f"compile-{i}:\n\techo build\n", f"check-{i}:\n\techo check\n"]
    write(root, "Makefile", "\n".join(targets))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "refactor")


def memory_text(kind: str, i: int) -> tuple[str, str]:
    return {
        "renamed": (f"Module {i} layout", f"The wiring for area {i} lives in src/app/mod_{i}.py."),
        "deleted": (f"Job {i} schedule", f"Area {i}'s nightly job is deploy/job_{i}.yaml."),
        "moved": (f"Service {i} model", f"`Service{i}` is the entry point of area {i}."),
        "symbol_renamed": (f"Handler {i}", f"Requests for area {i} go through `handler_{i}`."),
        "target_renamed": (f"Build {i}", f"Build area {i} with `make build-{i}`."),
        "holds": (
            f"Keeper {i}",
            f"`Keeper{i}` in src/app/keep_{i}.py; test it with `make check-{i}`.",
        ),
        "prose": (f"Habit {i}", f"Make sure to run the tests for area {i} before a release."),
    }[kind]


def write_memories(root: Path, n: int) -> dict[str, list[str]]:
    from graphit_cli import anchors
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    ids: dict[str, list[str]] = {k: [] for k in KINDS}
    for kind in KINDS:
        for i in range(n):
            title, body = memory_text(kind, i)
            draft = anchors.with_anchors(MemoryDraft(title=title, body=body), root)
            ids[kind].append(service.upsert(draft).memory.id)
    return ids


def score(flagged: set[str], ids: dict[str, list[str]]) -> dict[str, Any]:
    broken = {i for k in BROKEN for i in ids[k]}
    fine = {i for k in ("holds", "prose") for i in ids[k]}
    return {
        "broken_flagged": f"{len(flagged & broken)}/{len(broken)}",
        "false_flags": len(flagged & fine),
        "by_kind": {k: sum(i in flagged for i in ids[k]) for k in KINDS},
    }


def surfaces(root: Path, ids: dict[str, list[str]], env: dict[str, str]) -> dict[str, Any]:
    from graphit_cli import anchors
    from graphit_cli.access.scopes import Scope
    from graphit_cli.mcp.arguments import respond
    from graphit_cli.mcp.tools import MemoryTools
    from graphit_cli.opening import open_service

    live = open_service(Scope("project", PROJECT_ID), embedder=lambda: None).catalogue()
    found: dict[str, Any] = {}
    full = anchors.check(live, root)
    found["anchors.check"] = score(set(full), ids)
    found["anchors.check (no detail)"] = score(set(anchors.check(live, root, detail=False)), ids)
    renamed = sum(
        any(s.renamed_to == f"src/app/service_{i}.py" for s in full.get(memory_id, []))
        for i, memory_id in enumerate(ids["renamed"])
    )
    moved = sum(
        any(s.renamed_to == f"src/app/models_{i}.py" for s in full.get(memory_id, []))
        for i, memory_id in enumerate(ids["moved"])
    )
    found["renames named"] = (
        f"{renamed}/{len(ids['renamed'])} paths, {moved}/{len(ids['moved'])} moved classes"
    )
    listed = subprocess.run(
        [*graphit_command(), "memory", "list", "-f", "json"],
        cwd=root, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    found["CLI list -f json"] = score(
        {m["id"] for m in json.loads(listed.stdout) if m["stale"]}, ids
    )
    tools = MemoryTools(opener=lambda scope: open_service(scope, embedder=lambda: None))
    tools.root = root
    result = respond(tools, "json", lambda: tools.catalogue(scope="project", limit=0))
    data = result.structured_content or {}
    found["MCP graphit_memory_list"] = score({m["id"] for m in data["memories"] if m["stale"]}, ids)
    hooked: set[str] = set()
    titles = {memory_text(k, i)[0]: ids[k][i] for k in KINDS for i in range(len(ids[k]))}
    for kind in KINDS:
        for i in range(len(ids[kind])):
            prompt = memory_text(kind, i)[0]
            out = hook(root, env, prompt)
            for line in out.splitlines():
                if "may be stale" in line:
                    title = line.split("**")[1]
                    hooked.add(titles[title])
    found["prompt hook"] = score(hooked, ids)
    return found


def hook(root: Path, env: dict[str, str], prompt: str) -> str:
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
    done = subprocess.run(
        [*graphit_command(), "agent", "hook", "prompt"],
        cwd=root, env=env, input=event, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=True)
    return time.perf_counter() - start


PROMPTS = (
    "Module 0 layout and the job 1 schedule and handler 2",
    "where does the wiring for area 0 live, and area 1's nightly job?",
    "Module 0 layout",
    "Job 1 schedule",
)


# What the hook process has imported before it checks (the CLI, the hook module, the wire and
# the rendering), then the timer: the import of graphit_cli.anchors and the check are its cost.
CHECK = """
import json, sys, time
import graphit_cli.cli.app, graphit_cli.cli.hooks
import graphit_cli.warm.wire, graphit_cli.formats.render
start = time.perf_counter()
from graphit_cli import anchors
class M:
    def __init__(self, i, a): self.id, self.anchors = i, tuple(a)
memories = [M(str(n), a) for n, a in enumerate(json.loads(sys.argv[2]))]
found = anchors.check(memories, sys.argv[1], detail=False)
print(time.perf_counter() - start, len(found))
"""


def cost(root: Path, env: dict[str, str], runs: int) -> dict[str, Any]:
    from graphit_cli import anchors
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    # The first prompt whose hits include stale memories (the hook then renders the note).
    for prompt in PROMPTS:
        out = hook(root, env, prompt)
        titles = [line.split("**")[1] for line in out.splitlines() if line.startswith("- **")]
        if sum("may be stale" in line for line in out.splitlines()) >= 2:
            break
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
    live = open_service(Scope("project", PROJECT_ID), embedder=lambda: None).catalogue()
    hits = [m for m in live if m.title in titles]
    typer_app = Path(tempfile.mkdtemp()) / "typer_app.py"
    typer_app.write_text(TYPER_APP)
    hooks, bare, checks = [], [], []
    given = json.dumps([list(m.anchors) for m in hits])
    for _ in range(runs):
        bare.append(timed([sys.executable, str(typer_app), "first"], root, env))
        hooks.append(timed([*graphit_command(), "agent", "hook", "prompt"], root, env, event))
        done = subprocess.run(
            [sys.executable, "-c", CHECK, str(root), given],
            cwd=root, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        checks.append(float(done.stdout.split()[0]))
    anchors.check(hits, root, detail=False)
    start = time.perf_counter()
    for _ in range(100):
        anchors.check(hits, root, detail=False)
    warm = (time.perf_counter() - start) / 100
    help_probe = (
        "import runpy, sys\nsys.argv = ['graphit', '--help']\ntry:\n"
        "    runpy.run_module('graphit_cli', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print('graphit_cli.anchors' in sys.modules, file=sys.stderr)\n"
    )
    probe = subprocess.run(
        [sys.executable, "-c", help_probe], cwd=root, env=env, capture_output=True, text=True
    )
    hook_s, check_s = statistics.median(hooks), statistics.median(checks)
    return {
        "prompt": prompt,
        "hits": len(hits),
        "stale hits": sum(1 for m in hits if anchors.check([m], root)),
        "bare Typer command ms": round(1000 * statistics.median(bare), 1),
        "warm hook (daemon) ms": round(1000 * hook_s, 1),
        "hook / bare Typer": round(hook_s / statistics.median(bare), 2),
        "check in a fresh process (import + check, no detail) ms": round(1000 * check_s, 2),
        "check share of the warm hook": f"{100 * check_s / hook_s:.1f} %",
        "check, warm and cached (daemon) ms": round(1000 * warm, 3),
        "graphit --help imports graphit_cli.anchors": probe.stderr.strip().splitlines()[-1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--languages", action="store_true", help="the refactor corpus instead")
    args = parser.parse_args()
    if args.languages:
        from stale_languages import measure

        languages = measure(max(args.runs, 50))
        print(json.dumps(languages, indent=2))
        if args.json:
            args.json.write_text(json.dumps(languages, indent=2), encoding="utf-8")
        return 0
    reset_env()
    with tempfile.TemporaryDirectory() as tmp:
        home, root = Path(tmp) / "home", Path(tmp) / "project"
        root.mkdir()
        os.environ["GRAPHIT_HOME"] = str(home)
        os.environ["GRAPHIT_EMBEDDER"] = "tests.embedders:HashingEmbedder"
        os.environ["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
        env = dict(os.environ)
        os.chdir(root)
        build_repo(root, args.per_kind)
        ids = write_memories(root, args.per_kind)
        before = surfaces(root, ids, {**env, "GRAPHIT_NO_DAEMON": "1"})
        log(f"before the refactor: {before['anchors.check']}")
        refactor(root, args.per_kind)
        results: dict[str, Any] = {"before the refactor": before["anchors.check"]}
        results["after the refactor"] = surfaces(root, ids, {**env, "GRAPHIT_NO_DAEMON": "1"})
        daemon = start_daemon(root, env)
        try:
            results["cost"] = cost(root, env, args.runs)
        finally:
            daemon.terminate()
            daemon.wait(timeout=120)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
