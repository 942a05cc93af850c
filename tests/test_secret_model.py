"""The secret detector's second opinion (core/secret_model.py): what it adds to the rules, what
it never adds, and that the weights it ships were trained on the corpora that exist."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from graphit_cli.core import secret_model, secrets

# Pure computation on data: CI's busy tier skips it (load cannot change its verdict).
pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parent.parent
BLIND = ROOT / "benchmarks" / "data" / "blind_secrets"
MODEL = ROOT / "graphit_cli" / "core" / "data" / "secret_model.json"


def rules_alone(monkeypatch: pytest.MonkeyPatch, text: str) -> bool:
    with monkeypatch.context() as patched:
        patched.setattr(secret_model, "reviewed", lambda _text, spans, free=True: spans)
        return bool(secrets.find(text))


def test_the_shipped_weights_were_trained_on_every_blind_corpus_as_it_is() -> None:
    """A corpus added or edited means training again (scripts/train_secret_model.py)."""
    model = json.loads(MODEL.read_text())
    names = sorted(p.stem for p in BLIND.glob("blind_secrets*.py"))
    assert model["trained_on"] == names
    digest = hashlib.sha256()
    for name in names:
        digest.update((BLIND / f"{name}.py").read_bytes())
    assert model["corpora_sha256"] == digest.hexdigest()
    assert 0.5 < model["threshold"] < 1 and 0 <= model["veto"] < 0.5


@pytest.mark.parametrize(
    "text",
    [
        "the mail relay breaks when the refresh token rotates. current one: "
        "1//0kq8ZmT2xV4rR6tY1pN3wK5sH7dF9gJ0cB2vM4xL6zQ8wE",
        "Hinweis: der Job liest STRIPE_KEY, derzeit `rk_prod.Zq8Lm2Xv4Rt6Yp1Nw3Ks5Hd7Fg9Jc0Bv2`.",
        "gcloud auth print-access-token on the bastion gave\n"
        "ya29.c.Zq8Lm2Xv4Rt6Yp1Nw3Ks5Hd7Fg9Jc0Bv2Mx4Lz6Qw8Er0Ty2Ui4Op6As8Df0Gh1Jk3",
    ],
)
def test_it_takes_a_secret_no_rule_takes(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    assert not rules_alone(monkeypatch, text)
    found = secrets.find(text)
    assert found and found[-1].kind == "credential"
    assert "[REDACTED:credential]" in secrets.redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "the refresh token is stored in Vault under kv/relay (ask ops for it)",
        "postgres://USER:PASSWORD@HOST:5432/DB",
        "token allowance for router on 0x088112b4bd92b331801c560265588ceab968d266 set to max",
        "lockfile: sha512-MmKOKqdvtYx6m+DBhbk5q/me2e8C0p0AJRmy9XBcM9IvNv/N20zkKAXxnsl2FCLH==",
        "serviceAccountToken:\n  fn::secret: ops_eyJzaWduSW5B..[Redacted]",
        'telegram_api_token = "3800:A5y5fk96yfr3m5cnxncf9ypl28rccej347l"',
    ],
)
def test_it_never_adds_what_the_rules_judge_a_look_alike(text: str) -> None:
    assert not secrets.find(text), text


def test_a_model_trained_on_two_corpora_ranks_a_third_ones_secrets_first() -> None:
    """The trainer itself: a model fitted on two corpora scores the secret rows of a corpus it
    never saw above its look-alikes (area under the curve over 0.8)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import train_secret_model as train

    data = {name: train.labelled(name) for name in ("blind_secrets_2", "blind_secrets_3")}
    bias, weights = train.fit([e for rows in data.values() for _, ex in rows for e in ex])
    scores = {"secret": [], "benign": []}
    for row, examples in train.labelled("blind_secrets_9"):
        best = max(
            (secret_model.probability(weights, bias, found) for found, _ in examples), default=0
        )
        scores[row["label"]].append(best)
    pairs = [(s, b) for s in scores["secret"] for b in scores["benign"]]
    auc = sum(1.0 if s > b else 0.5 if s == b else 0.0 for s, b in pairs) / len(pairs)
    assert auc > 0.8, auc
