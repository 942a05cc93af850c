"""Train the secret detector's second opinion (core/secret_model.py) on the blind corpora, and
say how it does on corpora it was not trained on.

    python scripts/train_secret_model.py            # train on every corpus, write the model
    python scripts/train_secret_model.py --held-out # each corpus scored by a model trained on
                                                    # the others (nothing written)
    python scripts/train_secret_model.py --corpora blind_secrets blind_secrets_2  # these only

The corpora (benchmarks/data/blind_secrets/) label rows, not values. A row's values are told
apart by generating the corpus twice with two seeds: a value that changes is one the corpus
generated (a secret in a secret row), one that stays is the template's text (a host, a
command, a word). So a secret row's generated values are the positive examples; every other
value of every row is a negative one. A model is logistic regression over core/secret_model's
features (kept when seen in two or more values), L2-regularised, fitted by full-batch gradient
descent with numpy; the weights are written rounded, with the threshold, the corpora and a
digest of them (data/secret_model.json).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
from pathlib import Path

import numpy as np  # noqa: TID253 (a script: numpy is what it is for)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from graphit_cli.core import secret_model  # noqa: E402

BLIND = ROOT / "benchmarks" / "data" / "blind_secrets"
OUT = ROOT / "graphit_cli" / "core" / "data" / "secret_model.json"
C = 1.0  # inverse regularisation strength, per value (as scikit-learn's C)
THRESHOLD = 0.9  # chosen on the held-out report: recall added against look-alikes refused
VETO = 0.03  # a context rule's find whose values all score under this is dropped
MIN_COUNT = 2
STEPS = 600

Example = tuple[list[str], int]


def corpora() -> list[str]:
    return sorted(path.stem for path in BLIND.glob("blind_secrets*.py"))


def labelled(name: str) -> list[tuple[dict[str, str], list[Example]]]:
    """Each row of a corpus with its values' features and labels (1: a generated value of a
    secret row)."""
    sys.path.insert(0, str(BLIND))
    module = importlib.import_module(name)
    rows = module.corpus()
    seed = module.SEED
    module.SEED = seed + 7919
    try:
        other = module.corpus()
    finally:
        module.SEED = seed
    if len(rows) != len(other):
        raise SystemExit(f"{name}: a second seed gives another number of rows")
    out = []
    for row, twin in zip(rows, other, strict=True):
        text = row["text"]
        examples = [
            (
                secret_model.features(text, start, end, value_name),
                int(row["label"] == "secret" and text[start:end] not in twin["text"]),
            )
            for start, end, value_name in secret_model.candidates(text)
        ]
        out.append((row, examples))
    return out


def fit(examples: list[Example]) -> tuple[float, dict[str, float]]:
    """Logistic regression: bias and weights of the features seen MIN_COUNT times or more."""
    counts: dict[str, int] = {}
    for found, _ in examples:
        for feature in set(found):
            counts[feature] = counts.get(feature, 0) + 1
    index = {f: i for i, f in enumerate(sorted(f for f, n in counts.items() if n >= MIN_COUNT))}
    rows, cols = [], []
    for i, (found, _) in enumerate(examples):
        for feature in set(found):
            if feature in index:
                rows.append(i)
                cols.append(index[feature])
    r, c = np.array(rows), np.array(cols)
    y = np.array([label for _, label in examples], dtype=float)
    n, d = len(examples), len(index)
    w, b = np.zeros(d), 0.0
    m, v, mb, vb = np.zeros(d), np.zeros(d), 0.0, 0.0
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, STEPS + 1):
        z = np.bincount(r, weights=w[c], minlength=n) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        error = p - y
        grad = np.bincount(c, weights=error[r], minlength=d) + w / C
        grad_b = float(error.sum())
        grad, grad_b = grad / n, grad_b / n
        m, mb = beta1 * m + (1 - beta1) * grad, beta1 * mb + (1 - beta1) * grad_b
        v, vb = beta2 * v + (1 - beta2) * grad**2, beta2 * vb + (1 - beta2) * grad_b**2
        correction = np.sqrt(1 - beta2**step) / (1 - beta1**step)
        w -= rate * correction * m / (np.sqrt(v) + 1e-8)
        b -= rate * correction * mb / (np.sqrt(vb) + 1e-8)
    weights = {f: round(float(w[i]), 3) for f, i in index.items() if abs(w[i]) >= 0.0005}
    return round(b, 3), weights


def held_out(data: dict[str, list[tuple[dict[str, str], list[Example]]]]) -> None:
    """Each corpus's rows scored by a model trained on the other corpora: the share of secret
    rows with a value over the threshold, and of look-alike rows."""
    print("corpus                 secrets taken   look-alikes taken   (model alone, held out)")
    total = [0, 0, 0, 0]
    for name in data:
        rest = [e for other in data if other != name for _, ex in data[other] for e in ex]
        bias, weights = fit(rest)
        counts = [0, 0, 0, 0]
        for row, examples in data[name]:
            taken = any(
                secret_model.probability(weights, bias, found) > THRESHOLD for found, _ in examples
            )
            at = 0 if row["label"] == "secret" else 2
            counts[at] += 1
            counts[at + 1] += taken
        total = [a + b for a, b in zip(total, counts, strict=True)]
        print(
            f"{name:22} {counts[1]:4}/{counts[0]:<4} {counts[1] / counts[0]:6.3f}"
            f"   {counts[3]:4}/{counts[2]:<4} {counts[3] / counts[2]:6.3f}"
        )
    print(
        f"{'all':22} {total[1]:4}/{total[0]:<4} {total[1] / total[0]:6.3f}"
        f"   {total[3]:4}/{total[2]:<4} {total[3] / total[2]:6.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true", help="report, write nothing")
    parser.add_argument(
        "--corpora", nargs="+", metavar="NAME", help="train on these corpora only (default: all)"
    )
    args = parser.parse_args()
    names = sorted(args.corpora) if args.corpora else corpora()
    data = {name: labelled(name) for name in names}
    if args.held_out:
        held_out(data)
        return
    bias, weights = fit([e for name in names for _, ex in data[name] for e in ex])
    digest = hashlib.sha256()
    for name in names:
        digest.update((BLIND / f"{name}.py").read_bytes())
    model = {
        "about": "core/secret_model.py's weights; scripts/train_secret_model.py writes them",
        "trained_on": names,
        "corpora_sha256": digest.hexdigest(),
        "threshold": THRESHOLD,
        "veto": VETO,
        "bias": bias,
        "weights": dict(sorted(weights.items())),
    }
    OUT.write_text(json.dumps(model, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(weights)} weights, trained on {len(names)} corpora")


if __name__ == "__main__":
    main()
