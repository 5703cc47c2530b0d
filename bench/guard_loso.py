"""Leave-one-source-out figures for the Memory Guard (injections, benign text, secrets).

Why: a guard tuned and measured on the same collection says little about the next one. Here every figure is
for a source the fitted part never saw: the injection score's weights and threshold are fitted on all sources
but one and the guard is measured on the one left out, in rotation; the table's headline is the *worst*
left-out source, not the average. Benign sources are left out the same way (false positives), and each secret
source is scored with the rule project it comes from switched off.

An earlier extraction of a source (``attacks-legacy/NAME.jsonl``) is scored with the fold fitted without ``NAME``
and never trained on, so figures from before a corrected extraction stay comparable. A hold-out source
(``holdout/NAME.jsonl``) is never trained on by any fold nor by the shipped fit: it is scored once, with the shipped
rules and weights, and its misses are never printed (its texts are not read while rules are written).

Reads only the folder ``bench/guard_corpus.py`` assembled (``--corpus``); downloads nothing. ``--write-weights``
fits on every source and writes the weights the package ships (``src/gno/guard/data/injection_weights.json``).

Usage: ``python bench/guard_loso.py --corpus bench/.guard_corpus [--write-weights] [--show-misses N]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from gno.guard.poisoning import detect_poisoning, rule_finding  # noqa: E402
from gno.guard.secrets import redact_secrets  # noqa: E402
from gno.guard.signals import FEATURES, WEIGHTS_FILE, Model, signals, views  # noqa: E402
from gno.guard.text_views import normalize  # noqa: E402

WEIGHTS_PATH = REPO / "src" / "gno" / "guard" / "data" / WEIGHTS_FILE
# The threshold keeps at most this share of the *training* benign texts above it (per fold): none. Budgets of
# 0.1% and 0.03% were tried first and left 1.1-2.2% false positives on a left-out benign source.
TRAIN_FP_BUDGET = 0.0
MIN_THRESHOLD = 0.5
_FIT_BENIGN_PER_SOURCE = 1500


@dataclass
class Source:
    name: str
    texts: list[str]
    x: np.ndarray  # features of the whole text
    rules: np.ndarray  # bool: a precise rule already rejects the text
    windows: list[np.ndarray]  # per text: features of every view (whole text and, when long, its windows)


def load(corpus: Path, kind: str) -> list[Source]:
    sources: list[Source] = []
    for path in sorted((corpus / kind).glob("*.jsonl")):
        texts = [json.loads(line)["text"] for line in path.read_text().split("\n") if line]
        if not texts:
            continue
        per_text = [np.array([signals(v).values for v in views(normalize(t))], dtype=float) for t in texts]
        feats = np.array([w[0] for w in per_text])
        rules = np.array([rule_finding(t) is not None for t in texts])
        sources.append(Source(path.stem, texts, feats, rules, per_text))
    return sources


def fit(pos: np.ndarray, neg: np.ndarray, l2: float = 1.0, steps: int = 60) -> tuple[np.ndarray, float]:
    """Class-balanced L2 logistic regression by Newton's method (a few dozen features: exact and fast)."""
    x = np.vstack([pos, neg])
    x1 = np.hstack([x, np.ones((len(x), 1))])
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    sample_w = np.where(y == 1, 0.5 / len(pos), 0.5 / len(neg))
    w = np.zeros(x1.shape[1])
    reg = np.full(x1.shape[1], l2 / len(x))
    reg[-1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(x1 @ w, -50, 50)))
        grad = x1.T @ (sample_w * (p - y)) + reg * w
        hess = (x1.T * (sample_w * p * (1 - p))) @ x1 + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def _scores(model: Model, source: Source, mask: np.ndarray | None = None) -> np.ndarray:
    """Each text's score: the highest over its views, as the guard computes it."""
    weights = np.array([model.weights.get(name, 0.0) for name in FEATURES])
    z = np.array([float((w @ weights).max()) for w in source.windows]) + model.bias
    scores = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
    return scores if mask is None else scores[mask]


def train(attacks: list[Source], benign: list[Source]) -> Model:
    pos = np.vstack([s.x for s in attacks])
    neg = np.vstack([s.x[:_FIT_BENIGN_PER_SOURCE] for s in benign])
    w, b = fit(pos, neg)
    model = Model({name: round(float(v), 4) for name, v in zip(FEATURES, w, strict=True)}, round(b, 4), 0.5)
    # Threshold: the lowest that keeps training benign texts (which the rules pass) within the budget.
    scores = np.concatenate([_scores(model, s, ~s.rules) for s in benign])
    threshold = max(MIN_THRESHOLD, float(np.quantile(scores, 1 - TRAIN_FP_BUDGET)) + 1e-6)
    return Model(model.weights, model.bias, round(min(threshold, 0.9999), 4))


def flagged(model: Model | None, source: Source) -> np.ndarray:
    if model is None:
        return source.rules
    return source.rules | (_scores(model, source) >= model.threshold)


@dataclass
class Row:
    source: str
    n: int
    rules_only: float
    left_out: float
    in_sample: float


def _row(held: Source, model: Model, shipped: Model) -> Row:
    return Row(
        held.name, len(held.texts), held.rules.mean(), flagged(model, held).mean(), flagged(shipped, held).mean()
    )


def injection_table(
    attacks: list[Source], benign: list[Source], shipped: Model, legacy: Sequence[Source] = ()
) -> tuple[list[Row], list[Row]]:
    """One row per left-out source: attack sources first, then benign sources. A legacy extraction of a
    source (``attacks-legacy/NAME``) is scored with the model fitted without ``NAME``, never trained on."""
    attack_rows: list[Row] = []
    for held in attacks:
        model = train([s for s in attacks if s is not held], benign)
        attack_rows.append(_row(held, model, shipped))
        for old in legacy:
            if old.name == held.name:
                attack_rows.append(_row(Source(f"{old.name} (first extraction)", *_fields(old)), model, shipped))
    benign_rows = [_row(held, train(attacks, [s for s in benign if s is not held]), shipped) for held in benign]
    return attack_rows, benign_rows


def _fields(source: Source) -> tuple[list[str], np.ndarray, np.ndarray, list[np.ndarray]]:
    return source.texts, source.x, source.rules, source.windows


# --------------------------------------------------------------------------------------------------
# Secrets
# --------------------------------------------------------------------------------------------------


# The rule projects each secret collection comes from: Kingfisher's rules began as a fork of Nosey Parker's, so
# either collection is scored with both rule files switched off (a rule and its descendant share examples).
_OWN_RULES = {
    "noseyparker": frozenset({"noseyparker", "kingfisher"}),
    "kingfisher": frozenset({"noseyparker", "kingfisher"}),
    "gitleaks-testdata": frozenset({"gitleaks"}),
    "detect-secrets-testdata": frozenset({"detect-secrets"}),
}


def secret_rows(corpus: Path) -> list[tuple[str, int, float, float]]:
    """(source, secrets, share removed with every rule source, share removed without the source's own)."""
    rows = []
    for path in sorted((corpus / "secrets").glob("*.jsonl")):
        items = [json.loads(line) for line in path.read_text().split("\n") if line]
        own = _OWN_RULES.get(path.stem, frozenset())
        full = sum(_removed(item, frozenset()) for item in items)
        left = sum(_removed(item, own) for item in items)
        total = sum(len(item["secrets"]) for item in items)
        rows.append((path.stem, total, full / max(total, 1), left / max(total, 1)))
    return rows


def _removed(item: dict[str, object], skip: frozenset[str]) -> int:
    text = str(item["text"])
    redacted = redact_secrets(text, skip_sources=skip).text
    secrets = item["secrets"]
    assert isinstance(secrets, list)
    return sum(1 for s in secrets if str(s) not in redacted)


def _pct(v: float) -> str:
    return f"{100 * v:6.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=REPO / "bench" / ".guard_corpus")
    parser.add_argument(
        "--write-weights", action="store_true", help="fit on every source and write the shipped weights"
    )
    parser.add_argument("--show-misses", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.process_time()
    attacks, benign = load(args.corpus, "attacks"), load(args.corpus, "benign")
    legacy = load(args.corpus, "attacks-legacy")
    if args.write_weights:
        shipped = train(attacks, benign)
        WEIGHTS_PATH.write_text(json.dumps(shipped.to_json(), indent=1) + "\n")
    from gno.guard.signals import shipped_model

    shipped_model.cache_clear()
    shipped = shipped_model()
    attack_rows, benign_rows = injection_table(attacks, benign, shipped, legacy)
    print(f"Memory Guard, leave-one-source-out (corpus {args.corpus.name}; {len(FEATURES)} signals)")
    print("Injections rejected; 'left out' = weights and threshold fitted without that source")
    print(f"  {'source':<40} {'n':>5} {'rules only':>11} {'left out':>9} {'shipped':>9}")
    for r in attack_rows:
        print(f"  {r.source:<40} {r.n:>5} {_pct(r.rules_only):>11} {_pct(r.left_out):>9} {_pct(r.in_sample):>9}")
    worst = min((r for r in attack_rows if "(first extraction)" not in r.source), key=lambda r: r.left_out)
    print(f"  WORST left-out injection source: {worst.source} {_pct(worst.left_out)}   (target >= 85%)")
    print("Benign texts rejected (false positives); 'left out' = fitted without that source")
    for r in benign_rows:
        print(f"  {r.source:<40} {r.n:>5} {_pct(r.rules_only):>11} {_pct(r.left_out):>9} {_pct(r.in_sample):>9}")
    for source in benign:
        changed = sum(1 for t in source.texts if redact_secrets(t).changed)
        print(f"  {source.name:<30} any redaction (shipped rules): {changed}/{len(source.texts)}")
    worst_fp = max(benign_rows, key=lambda r: r.left_out)
    print(f"  WORST left-out benign source: {worst_fp.source} {_pct(worst_fp.left_out)}   (target <= 0.5%)")
    print("Secret values removed ('left out' = the source's own rule project switched off)")
    for name, total, full, left in secret_rows(args.corpus):
        print(f"  {name:<30} {total:>5} {'':>11} {_pct(left):>9} {_pct(full):>9}")
    print(f"  shipped threshold {shipped.threshold}; bench CPU {time.process_time() - started:.0f} s")
    for held in load(args.corpus, "holdout"):
        hit = flagged(shipped, held)
        print(f"HOLD-OUT (never trained on, nor read while the rules were written): {held.name} n={len(held.texts)}")
        print(f"  rules only {_pct(held.rules.mean())}   rules + shipped score {_pct(hit.mean())}")
    if args.show_misses:
        for source in attacks:
            misses = [t for t, hit in zip(source.texts, flagged(shipped, source), strict=True) if not hit]
            for text in misses[: args.show_misses]:
                print(f"  MISS {source.name}: {text[:160]!r}")
        for source in benign:
            hits = [t for t, hit in zip(source.texts, flagged(shipped, source), strict=True) if hit]
            for text in hits[: args.show_misses]:
                print(f"  FP {source.name}: {text[:160]!r} -> {detect_poisoning(text)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
