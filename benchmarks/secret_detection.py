"""The secret detector, measured: refused secrets and look-alikes per kind on two corpora
(benchmarks/secrets_corpus.py: "main", the one the rules were written against, and "heldout",
other templates, phrasings and seed), for graphit's rules and, when given, detect-secrets and
bc-detect-secrets; then what the check costs a 10k batch write, and `graphit --help`.

The two detectors install the same `detect_secrets` package, so each is run from its own
directory (`pip install --target DIR detect-secrets`), in a subprocess:

    python benchmarks/secret_detection.py [--detect-secrets DIR] [--bc-detect-secrets DIR]
        [--records N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from secrets_corpus import corpus

# Runs in a subprocess with one detect-secrets on the path: one JSON line per text (whether
# it found anything), then the import time and the scan time.
_DETECT_SECRETS = """
import json, sys, time
t0 = time.perf_counter()
from detect_secrets.core.scan import scan_line
from detect_secrets.settings import default_settings
t1 = time.perf_counter()
texts = json.load(sys.stdin)
out = []
with default_settings():
    t2 = time.perf_counter()
    for text in texts:
        out.append(any(True for line in text.splitlines() for _ in scan_line(line)))
    t3 = time.perf_counter()
print(json.dumps({"hits": out, "import_s": t1 - t0, "scan_s": t3 - t2}))
"""


# The same through its file scan (each text as a Markdown file), which applies its filters.
_DETECT_SECRETS_FILES = """
import json, os, sys, tempfile, time
t0 = time.perf_counter()
from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings
t1 = time.perf_counter()
texts = json.load(sys.stdin)
out = []
folder = tempfile.mkdtemp()
with default_settings():
    t2 = time.perf_counter()
    for i, text in enumerate(texts):
        path = os.path.join(folder, f"memory{i}.md")
        with open(path, "w") as handle:
            handle.write(text)
        found = SecretsCollection()
        found.scan_file(path)
        out.append(bool(list(found)))
    t3 = time.perf_counter()
print(json.dumps({"hits": out, "import_s": t1 - t0, "scan_s": t3 - t2}))
"""


def graphit_rules(texts: list[str]) -> tuple[list[bool], float, float]:
    t0 = time.perf_counter()
    from graphit_cli.core import secrets

    t1 = time.perf_counter()
    hits = [bool(secrets.find(t)) for t in texts]
    return hits, t1 - t0, time.perf_counter() - t1


def detect_secrets(
    directory: str, texts: list[str], files: bool = False
) -> tuple[list[bool], float, float]:
    env = {**os.environ, "PYTHONPATH": directory}
    proc = subprocess.run(
        [sys.executable, "-c", _DETECT_SECRETS_FILES if files else _DETECT_SECRETS],
        input=json.dumps(texts),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(proc.stdout)
    return data["hits"], data["import_s"], data["scan_s"]


def report(name: str, which: str, records: list[tuple[str, str, str]], hits: list[bool]) -> None:
    per: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for (label, kind, _), hit in zip(records, hits, strict=True):
        per[(label, kind)][0] += hit
        per[(label, kind)][1] += 1
    secret = [v for (label, _), v in per.items() if label == "secret"]
    benign = [v for (label, _), v in per.items() if label == "benign"]
    recall = sum(a for a, _ in secret) / sum(b for _, b in secret)
    false = sum(a for a, _ in benign) / sum(b for _, b in benign)
    print(f"{name:22} {which:8} secrets refused {recall:6.1%}  look-alikes refused {false:6.1%}")
    for (label, kind), (a, b) in sorted(per.items()):
        if (label == "secret" and a < b) or (label == "benign" and a):
            print(f"{'':32}{label:7} {kind:22} {a}/{b}")


def untuned() -> None:
    """The corpora the rules were not tuned on: gitleaks' own true and false positives
    (tests/fixtures/gitleaks_cases.json), each rule alone and the whole detector, and
    benchmarks/data/secrets_heldout.jsonl (written before any tuning), and the corpora written
    by someone who had not read the detector (data/blind_secrets/)."""
    from graphit_cli.core import secret_rules, secrets

    root = Path(__file__).resolve().parent.parent
    cases = json.loads((root / "tests/fixtures/gitleaks_cases.json").read_text())["rules"]
    the_set = secret_rules.rules()
    tps = [(r, t) for r, c in cases.items() for t in c["tps"]]
    fps = [(r, t) for r, c in cases.items() for t in c["fps"]]

    def alone(rule_id: str, text: str) -> bool:
        single = secret_rules.RuleSet(
            {"rules": [the_set._raw[rule_id]], "allow": the_set._global_raw}
        )
        return bool(single.find(text, text.lower()))

    t0 = time.perf_counter()
    whole_tp = sum(bool(secrets.find(t)) for _, t in tps)
    whole_fp = sum(bool(secrets.find(t)) for _, t in fps)
    elapsed = time.perf_counter() - t0
    alone_tp = sum(alone(r, t) for r, t in tps)
    alone_fp = sum(alone(r, t) for r, t in fps)
    print(
        f"\ngitleaks' cases ({len(the_set.ids)} rules): each rule alone {alone_tp}/{len(tps)} "
        f"true positives found, {alone_fp}/{len(fps)} false positives; the whole detector "
        f"{whole_tp / len(tps):.4f} refused, {whole_fp / len(fps):.4f} of false positives "
        f"({elapsed / (len(tps) + len(fps)) * 1e6:.0f} us a case)"
    )
    # A rule's false cases are texts that rule must not match, often another rule's secret:
    # some are another rule's true cases verbatim, more are found by gitleaks' rules as a whole
    # (gitleaks itself reports them). What no gitleaks rule takes is a false case of the whole
    # set: the rate a whole detector is held to.
    true_texts = {t for _, t in tps}
    verbatim = [t for _, t in fps if t in true_texts]
    by_gitleaks = [t for _, t in fps if t not in true_texts and the_set.find(t, t.lower())]
    whole_false = [t for _, t in fps if t not in true_texts and t not in by_gitleaks]
    refused = [t for t in whole_false if secrets.find(t)]
    print(
        f"  of gitleaks' {len(fps)} false cases, {len(verbatim)} are another rule's true case "
        f"verbatim and {len(by_gitleaks)} are found by its rule set as a whole; of the "
        f"{len(whole_false)} no gitleaks rule takes, the whole detector refuses "
        f"{len(refused)} ({len(refused) / len(whole_false):.4f}): "
        + "; ".join(repr(t[:60]) for t in refused)
    )
    # A key cut short (a paste that lost its end) is still one: each rule's true cases with
    # the secret two characters shorter, where the rule alone no longer takes it.
    cut = []
    for rule_id, case in cases.items():
        if rule_id.startswith("generic"):
            continue
        single = secret_rules.RuleSet(
            {"rules": [the_set._raw[rule_id]], "allow": the_set._global_raw}
        )
        for text in case["tps"]:
            found = single.find(text, text.lower())
            if found and len(found[0][3]) >= 20:
                shorter = text[: found[0][1] - 2] + text[found[0][1] :]
                if not single.find(shorter, shorter.lower()):
                    cut.append(shorter)
    print(
        f"  the true cases cut two characters short: {len(cut)}, the whole detector refuses "
        f"{sum(bool(secrets.find(t)) for t in cut)}"
    )
    held = [json.loads(line) for line in (root / "benchmarks/data/secrets_heldout.jsonl").open()]
    labelled("held-out file", held)
    blind = root / "benchmarks" / "data" / "blind_secrets"
    sys.path.insert(0, str(blind))
    corpora = [__import__(path.stem).corpus() for path in sorted(blind.glob("*.py"))]
    for path, rows in zip(sorted(blind.glob("*.py")), corpora, strict=True):
        labelled(f"{path.stem} (written blind)", rows)
    every = [row for rows in corpora for row in rows]
    print(f"all {len(corpora)} blind corpora, the whole detector: {refusals(every)}")
    from graphit_cli.core import secret_model

    reviewed = secret_model.reviewed
    secret_model.reviewed = lambda _text, spans, free=True: spans
    try:
        print(f"  the rules alone, without the model's second opinion: {refusals(every)}")
    finally:
        secret_model.reviewed = reviewed


def refusals(rows: list[dict[str, str]]) -> str:
    """Secrets and look-alikes refused over labelled rows, as shares and counts."""
    from graphit_cli.core import secrets

    found = [bool(secrets.find(r["text"])) for r in rows]
    secret = [hit for hit, r in zip(found, rows, strict=True) if r["label"] == "secret"]
    benign = [hit for hit, r in zip(found, rows, strict=True) if r["label"] != "secret"]
    return (
        f"secrets refused {sum(secret) / len(secret):.3f} ({sum(secret)}/{len(secret)}), "
        f"look-alikes refused {sum(benign) / len(benign):.3f} ({sum(benign)}/{len(benign)})"
    )


def labelled(name: str, rows: list[dict[str, str]]) -> None:
    """A labelled corpus's line: secrets refused, look-alikes refused, the kinds of each miss."""
    from graphit_cli.core import secrets

    missed = [r["kind"] for r in rows if r["label"] == "secret" and not secrets.find(r["text"])]
    refused = [r["kind"] for r in rows if r["label"] == "benign" and secrets.find(r["text"])]
    total = sum(r["label"] == "secret" for r in rows)
    benign = len(rows) - total
    print(
        f"{name}: secrets refused {1 - len(missed) / total:.3f} ({total - len(missed)}/{total}; "
        f"missed {missed}), look-alikes refused {len(refused) / benign:.3f} "
        f"({len(refused)}/{benign}: {refused})"
    )


def real_memories(paths: list[str]) -> None:
    """Memories people and agents wrote (JSONL with title and body): how many are refused.
    They hold no real secret that we know of; each refusal is listed by kind to be judged."""
    from graphit_cli.core import secrets

    for path in paths:
        if not Path(path).exists():
            print(f"{path}: not found, skipped")
            continue
        total, refused = 0, []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            total += 1
            found = secrets.in_draft(record.get("title") or "", record.get("body") or "")
            if found:
                refused.append(",".join(sorted({f.kind for _, f in found})))
        share = len(refused) / max(total, 1)
        print(f"{path}: {len(refused)} of {total} refused ({share:.2%}): {sorted(refused)}")


def write_cost(records: int) -> None:
    """A `records`-draft batch upsert in-process without vectors, with the check ("refuse")
    and without it ("allow"), each on a fresh table; and the check alone."""
    from graphit_cli.core import secrets
    from graphit_cli.core.models import MemoryDraft

    drafts = [
        MemoryDraft(
            title=f"Convention {i}: the build uses uv and make",
            body=(
                f"We install with uv (lock file uv.lock, commit {i:040x}). Tests run with "
                "`make test`; the CI image is python@sha256:" + f"{i:064x}" + ". Ask #ops "
                "for the staging password; it lives in 1Password, vault Ops.\n" * 3
            ),
        )
        for i in range(records)
    ]
    t0 = time.perf_counter()
    for draft in drafts:
        secrets.in_draft(draft.title, draft.body)
    alone = time.perf_counter() - t0
    timings = {}
    for policy in ("allow", "refuse", "allow", "refuse"):
        timings.setdefault(policy, []).append(_batch(drafts, policy))
    allow, refuse = min(timings["allow"]), min(timings["refuse"])
    print(
        f"\n{records} records: batch upsert {allow:.2f} s unchecked, {refuse:.2f} s checked "
        f"(ratio {refuse / allow:.3f}); the check alone {alone * 1000:.0f} ms "
        f"({alone / records * 1e6:.0f} us a record)"
    )


def _batch(drafts: list, policy: str) -> float:  # type: ignore[type-arg]
    from graphit_cli.access.scopes import Scope
    from graphit_cli.service.memory import MemoryService
    from graphit_cli.store.lance import MemoryStore

    with tempfile.TemporaryDirectory() as root:
        store = MemoryStore.open(str(Path(root) / "table"))
        service = MemoryService(
            store, Scope("project", "01JD0000000000000000000000"), author="bench", secrets=policy
        )
        t0 = time.perf_counter()
        service.upsert_many(drafts)
        return time.perf_counter() - t0


def cli_cost(records: int, runs: int) -> None:
    """`graphit memory upsert -` of a `records`-line NDJSON batch, in-process (no daemon), as a
    user runs it: a fresh home and project each run, the rows embedded as the CLI does (its
    first rows by the default model, the rest left to the pass); `--allow-secrets` (no check)
    against the default (checked), alternated."""
    lines = "".join(
        json.dumps(
            {
                "title": f"Convention {i}: the build uses uv and make",
                "body": f"We install with uv (commit {i:040x}). Ask #ops for the staging "
                "password; it lives in 1Password, vault Ops.",
            }
        )
        + "\n"
        for i in range(records)
    )
    times: dict[str, list[float]] = {"unchecked": [], "checked": []}
    for _ in range(runs):
        for name, extra in (("unchecked", ["--allow-secrets"]), ("checked", [])):
            with tempfile.TemporaryDirectory() as root:
                project = Path(root) / "p"
                project.mkdir()
                (project / "graphit.lock.json").write_text(
                    json.dumps({"project": {"id": "01JD0000000000000000000000"}})
                )
                env = {
                    **os.environ,
                    "GRAPHIT_HOME": str(Path(root) / "home"),
                    "GRAPHIT_NO_DAEMON": "1",
                    "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
                }
                t0 = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "graphit_cli", "memory", "upsert", "-", *extra],
                    input=lines,
                    env=env,
                    cwd=project,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                times[name].append(time.perf_counter() - t0)
    unchecked, checked = min(times["unchecked"]), min(times["checked"])
    print(
        f"`graphit memory upsert -` of {records} records (best of {runs}): {unchecked:.2f} s "
        f"with --allow-secrets, {checked:.2f} s checked (ratio {checked / unchecked:.3f})"
    )


# What a cold prompt hook redacts (core/secrets.py through recall/prompt.py and recall/log.py):
# the prompt's excerpt, then the log record's strings. Timed in a fresh process each run, as
# the detector does it, and as it did before its pre-check and its literal-by-literal first
# scans ("off": every text through the rule set, the literals' trie built at first use).
_COLD = """
import json, sys, time
from graphit_cli.core import secret_gate, secrets
if sys.argv[1] == "off":
    secrets.worth_checking = lambda text: True
    secret_gate._FIND_FIRST = 0
prompt = json.loads(sys.argv[2])
t0 = time.perf_counter()
excerpt = secrets.redact(prompt)
secrets.redacted_value({"prompt": excerpt, "outcome": "shown", "calls": [{"title": "Deploy"}]})
print(time.perf_counter() - t0)
"""
COLD_PROMPTS = {
    "a question": "how do we deploy the app to production?",
    "a thank-you": "thanks!",
    "a path and a name": "why does graphit_cli/service/writes.py raise SecretRefused here?",
    "a key pasted": "deploy with AKIAERUWYPB5TD57UJZT, the staging key",
}


def cold_redaction(runs: int) -> None:
    """A cold prompt hook's redaction, in a fresh process per run: the median as the detector
    does it, as a ratio to the same process doing it as before ("off")."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    print(f"\ncold prompt redaction (fresh process, median of {runs}, interleaved):")
    for label, prompt in COLD_PROMPTS.items():
        times: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(runs):
            for mode in ("off", "on"):
                out = subprocess.run(
                    [sys.executable, "-c", _COLD, mode, json.dumps(prompt)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                times[mode].append(float(out))
        on, off = (sorted(times[m])[runs // 2] for m in ("on", "off"))
        print(
            f"  {label:20} now {on * 1000:7.2f} ms, as before {off * 1000:7.2f} ms "
            f"(ratio {on / off:.3f})"
        )


def help_imports() -> None:
    code = (
        "import sys\nfrom graphit_cli.cli.app import app\n"
        "print('graphit_cli.core.secrets' in sys.modules, 'detect_secrets' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    print(f"`graphit --help` imports the detector: {out[0]}, detect-secrets: {out[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detect-secrets", metavar="DIR")
    parser.add_argument("--bc-detect-secrets", metavar="DIR")
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--cli-runs", type=int, default=3, help="0: skip the CLI batch")
    parser.add_argument(
        "--memories",
        nargs="*",
        default=[
            "../shared/data/cursorrules/memories.jsonl",
            "../shared/data/locomo-dev/memories_observations.jsonl",
            "../shared/data/locomo-dev/memories_sessions.jsonl",
        ],
        help="JSONL memories written by people and agents (no known secret in them)",
    )
    parser.add_argument(
        "--only",
        choices=("cold", "untuned"),
        help="one section: the cold prompt's redaction, or the corpora not tuned on",
    )
    parser.add_argument("--cold-runs", type=int, default=15)
    args = parser.parse_args()
    if args.only == "cold":
        cold_redaction(args.cold_runs)
        return
    if args.only == "untuned":
        untuned()
        real_memories(args.memories)
        return
    for which in ("main", "heldout", "unseen"):
        records = corpus(which)
        texts = [t for _, _, t in records]
        runs = [("graphit rules", lambda t: graphit_rules(t))]
        for name, directory in (
            ("detect-secrets", args.detect_secrets),
            ("bc-detect-secrets", args.bc_detect_secrets),
        ):
            if directory:
                runs.append((f"{name} line", lambda t, d=directory: detect_secrets(d, t)))
                runs.append((f"{name} file", lambda t, d=directory: detect_secrets(d, t, True)))
        for name, run in runs:
            hits, imported, scanned = run(texts)
            report(name, which, records, hits)
            print(
                f"{'':32}import {imported * 1000:.0f} ms, "
                f"{scanned / len(texts) * 1e6:.0f} us a record ({len(texts)} records)"
            )
    untuned()
    real_memories(args.memories)
    cold_redaction(args.cold_runs)
    write_cost(args.records)
    if args.cli_runs:
        cli_cost(args.records, args.cli_runs)
    help_imports()


if __name__ == "__main__":
    main()
