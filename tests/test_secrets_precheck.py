"""The detector's pre-check (`secrets.worth_checking`) skips only texts no rule finds anything
in: held to every case of gitleaks' rules (true and false), graphit's own corpora and the
held-out file. A prompt of plain prose is answered without loading gitleaks' rules, in a
fresh process (the cold prompt hook's case)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphit_cli.core import secret_gate, secrets

ROOT = Path(__file__).resolve().parent.parent
GHP = "Zq8Lm2Xv4Rt6Yp1Nw3Ks5Hd7Fg9Jc0Bv2Mx4"  # 36 characters, as a GitHub token has
CASES = json.loads((ROOT / "tests" / "fixtures" / "gitleaks_cases.json").read_text())["rules"]


def _corpora() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from secrets_corpus import corpus
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    held = (ROOT / "benchmarks" / "data" / "secrets_heldout.jsonl").read_text().splitlines()
    texts = {
        "gitleaks true": [t for c in CASES.values() for t in c["tps"]],
        "gitleaks false": [t for c in CASES.values() for t in c["fps"]],
        "held-out file": [json.loads(line)["text"] for line in held],
    }
    for which in ("main", "heldout", "unseen"):
        texts[which] = [text for _, _, text in corpus(which)]
    return texts


def _unchecked(monkeypatch: pytest.MonkeyPatch, text: str) -> list[secrets.Finding]:
    """What the whole detector finds in `text` without the pre-check."""
    with monkeypatch.context() as patched:
        patched.setattr(secrets, "worth_checking", lambda _text: True)
        return secrets.find(text)


# The default tier takes every fourth case of each rule (each rule's first among them), the
# slow tier every case.
EVERY = pytest.mark.parametrize(
    "every", [4, pytest.param(1, marks=pytest.mark.slow)], ids=["a-quarter", "all"]
)


@EVERY
def test_every_rule_true_case_passes_the_precheck(
    monkeypatch: pytest.MonkeyPatch, every: int
) -> None:
    """Each of gitleaks' true cases, rule by rule, passes the pre-check and is redacted exactly
    as the whole detector without it redacts it (a few are look-alikes graphit leaves alone on
    purpose, `QQQQ...` placeholders: left alone either way)."""
    missed = []
    for rule_id, cases in CASES.items():
        for text in cases["tps"][::every]:
            with monkeypatch.context() as patched:
                patched.setattr(secrets, "worth_checking", lambda _text: True)
                unchecked = secrets.redact(text)
            if not secrets.worth_checking(text) or secrets.redact(text) != unchecked:
                missed.append((rule_id, text[:60]))
    found = sum(len(c["tps"][::every]) for c in CASES.values())
    assert found > 5000 // every and missed == [], missed[:10]


def test_the_precheck_skips_only_texts_without_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """On every corpus, a text the pre-check skips is one the whole detector finds nothing
    in; and it skips a real share of the look-alikes (it is not a pass-through)."""
    skipped = 0
    for name, texts in _corpora().items():
        for text in texts:
            if secrets.worth_checking(text):
                continue
            skipped += 1
            assert _unchecked(monkeypatch, text) == [], (name, text[:80])
    assert skipped > 0


def test_the_first_texts_find_the_literals_the_trie_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process's first texts are scanned literal by literal, later ones by the trie: both
    find the same literals at the same places."""
    texts = [t for group in _corpora().values() for t in group if len(t) <= 2000]
    monkeypatch.setattr(secret_gate, "_FIND_FIRST", len(texts) + 1)
    monkeypatch.setattr(secret_gate, "_scanning", None)
    monkeypatch.setattr(secret_gate, "_found_by_find", 0)
    by_find = [secret_gate.literals_in(t.lower()) for t in texts]
    assert secret_gate._scanning is None
    secret_gate._scanner()
    assert [secret_gate.literals_in(t.lower()) for t in texts] == by_find
    assert sum(bool(gate) for gate in by_find) > len(texts) // 2


@pytest.mark.parametrize(
    ("text", "worth"),
    [
        ("how do we deploy the app to production?", False),
        ("Thanks! The migration ran fine on staging, so let's ship it tomorrow.", False),
        ("the key is AKIAERUWYPB5TD57UJZT", True),
        ("password = 'correcthorse'", True),
        ("postgres://app:Xk9mQ2vLp7rT@db.internal/app", True),
        (f"ghp_\u200b{GHP}", True),  # a zero-width space hides a token
        ("*".join(f"ghp_{GHP}"), True),  # emphasis between the characters of one
        ("mysql -u root -pS3cr3t!", True),
        ('**password**: "correcthorse"', True),  # emphasis around a credential's name
    ],
)
def test_what_the_precheck_looks_at(
    text: str, worth: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert secrets.worth_checking(text) is worth
    if worth:  # each of these holds a secret the whole detector finds
        assert _unchecked(monkeypatch, text), text


def _printed_by(code: str) -> list[str]:
    """The lines `code` prints in a fresh interpreter (a process's first texts, cold)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.splitlines()


def test_a_plain_prompt_never_loads_the_rules_in_a_fresh_process() -> None:
    """The cold hook's case: redacting plain prose loads no rule and builds no scan, while
    a prompt with a key in it is redacted as before."""
    code = (
        "from graphit_cli.core import secret_gate, secret_rules, secrets\n"
        "assert secrets.redact('how do we deploy the app to production?') == "
        "'how do we deploy the app to production?'\n"
        "assert secret_rules._loaded is None and secret_gate._scanning is None\n"
        "print(secrets.redact('deploy with key AKIAERUWYPB5TD57UJZT'))\n"
    )
    assert _printed_by(code) == ["deploy with key [REDACTED:aws-access-key]"]


def test_the_prompt_hooks_excerpt_of_prose_imports_no_detector() -> None:
    """The prompt hook logs an excerpt of every prompt, redacted: for prose, the pre-check
    alone decides (with the words it wakes on), and neither the detector nor its rules are
    imported (~30 ms a prompt)."""
    code = (
        "import sys\n"
        "from graphit_cli.recall.prompt import excerpt\n"
        "assert excerpt('how do we deploy the app to production?') == "
        "'how do we deploy the app to production?'\n"
        "print(sorted(m for m in sys.modules if m.startswith('graphit_cli.core.secret')"
        " or m in ('graphit_cli.core.secrets', 'dataclasses')))\n"
        "print(excerpt('deploy with key AKIAERUWYPB5TD57UJZT'))\n"
    )
    loaded, redacted = _printed_by(code)
    assert loaded == "['graphit_cli.core.secret_gate', 'graphit_cli.core.secret_words']", loaded
    assert redacted == "deploy with key [REDACTED:aws-access-key]"


def _hidden_variants(text: str) -> list[str]:
    """`text` with its longest token hidden the ways core/hiding.py undoes: a zero-width
    space, emphasis, a line break, percent-encoding inside it; and the whole text base64."""
    import base64
    import re

    token = max(re.findall(r"[A-Za-z0-9_+/=.-]+", text), key=len, default="")
    if len(token) < 8:
        return []
    half = len(token) // 2
    cut = [
        token[:half] + "\u200b" + token[half:],
        token[:half] + "**" + token[half:],
        token[:half] + "\n" + token[half:],
        token[:half] + f"%{ord(token[half]):02X}" + token[half + 1 :],
        "`".join(token),
    ]
    encoded = base64.b64encode(text.encode()).decode()
    return [text.replace(token, hidden, 1) for hidden in cut] + [f"note: {encoded}"]


@EVERY
def test_a_hidden_secret_passes_the_precheck(monkeypatch: pytest.MonkeyPatch, every: int) -> None:
    """Every secret of graphit's corpora and a sample of gitleaks' true cases (of them every
    `every`th), hidden each way the detector unhides: whatever the whole detector finds, the
    pre-check lets through."""
    texts = _corpora()
    sample = texts["main"] + texts["heldout"] + texts["unseen"] + texts["gitleaks true"][::25]
    found = 0
    for text in sample[::every]:
        for variant in _hidden_variants(text):
            if _unchecked(monkeypatch, variant):
                found += 1
                assert secrets.worth_checking(variant), variant[:80]
    assert found > 500 // every
