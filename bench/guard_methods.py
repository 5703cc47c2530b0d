"""Injection-score methods for the Memory Guard, measured leave-one-source-out (none of them is shipped).

Why a second bench beside ``guard_loso.py``: that one measures the shipped method (33 structural signals, a
logistic weight each, threshold at the training benign maximum). The methods measured here have far more
parameters (a weight per word and word pair) or more views per text, and fit their own training benign texts
too closely for the training maximum to mean anything; so every fold's threshold is chosen from *out-of-fold*
benign scores: each training benign source is scored by a model fitted without it, and the threshold is the
lowest that keeps every one of them within ``--budget`` of false positives. Nothing the left-out source holds
is seen by its fold.

Methods (combinable):

* ``--terms``: word unigrams and bigrams of the normalised text beside the signals, kept when at least
  ``--min-df`` texts of at least two training sources hold them (``--min-attack-sources``: of that many attack
  sources);
* ``--views filler``: one more view of the text with filler removed (a token or short unit repeated back to
  back, lines of symbols only);
* ``--views sentences``: 300-character windows of whole sentences, half overlapping;
* ``--views lines``: every sentence or line of at least 25 characters on its own;
* ``--mil N``: fit on each attack's best-scoring view, re-chosen N times (multiple-instance);
* ``--embed wordllama|minilm``: each view's sentence embedding (the embedders gno ships, loaded offline from
  their packages) beside the signals, cached on disk under ``--cache`` by the view's hash;
  ``--contrast`` adds each view's embedding minus the mean of its text's other views, and their cosine;
* ``--benign-views``: every view of a benign text is a negative, not only the whole text (the score is a
  maximum over views, so every view has to stay low);
* ``--by-project``: a fold that leaves out one half of a project (AgentDojo's attacks or its tool outputs,
  BIPIA's attacks or its documents) leaves out the other half too.

A text's score is the highest over its views. ``--fast`` scores the training benign sources with models fitted
on every attack source (one fit per benign source, not one per fold and benign source): quicker, and it favours
the method, so use it to rule methods out, not to report them.

Usage: ``python bench/guard_methods.py --corpus bench/.guard_corpus [--terms] [--views filler,sentences,lines]
[--mil 2] [--embed wordllama] [--benign-views] [--by-project] [--contrast] [--budget 0.002] [--fast]
[--holdout]``. ``--holdout`` also scores ``holdout/`` (never trained on, texts never printed) with one fit on
every source, under the threshold its own out-of-fold benign scores set.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from gno.guard.poisoning import rule_finding  # noqa: E402
from gno.guard.signals import signals, views  # noqa: E402
from gno.guard.text_views import normalize  # noqa: E402

_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_REPEAT_TOKEN_RE = re.compile(r"(\S{1,12})(?:\s+\1){3,}")
_REPEAT_UNIT_RE = re.compile(r"(.{2,24}?)\1{3,}", re.S)
_SYMBOL_LINE_RE = re.compile(r"(?m)^[^\w\n]{3,}$")
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?\n]*")
_WINDOW = 300
_FIT_BENIGN_PER_SOURCE = 1500
# Attack and benign sources cut from one project: with ``--by-project`` a fold that leaves one out also
# leaves the other out, so the left-out project's own surroundings are never learned as benign (or attack).
PAIRED = {
    "agentdojo": "agentdojo-tool-outputs",
    "agentdojo-tool-outputs": "agentdojo",
    "bipia": "bipia-documents",
    "bipia-documents": "bipia",
}
EMBED_SCALE = 4.0  # unit vectors: scaled so one L2 penalty suits them and the signals alike


def without_filler(text: str) -> str:
    """The text with back-to-back repeats collapsed to one and symbol-only lines dropped."""
    text = _REPEAT_UNIT_RE.sub(r"\1", _REPEAT_TOKEN_RE.sub(r"\1", text))
    text = re.sub(r"\n{2,}", "\n", _SYMBOL_LINE_RE.sub("", text))
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def sentence_windows(text: str) -> list[str]:
    """Runs of whole sentences up to ``_WINDOW`` characters, each starting half-way through the previous one."""
    sentences = [m.group() for m in _SENTENCE_RE.finditer(text)]
    out: list[str] = []
    i = 0
    while len(sentences) > 1 and i < len(sentences):
        j, size = i, 0
        while j < len(sentences) and (size == 0 or size + len(sentences[j]) <= _WINDOW):
            size += len(sentences[j])
            j += 1
        out.append("".join(sentences[i:j]).strip())
        if j >= len(sentences):
            break
        i = max(i + 1, (i + j) // 2)
    return [w for w in out if w]


def text_views(normalised: str, kinds: set[str]) -> list[str]:
    found = list(views(normalised))
    base = normalised
    if "filler" in kinds and (stripped := without_filler(normalised)) and stripped != normalised:
        found.append(stripped)
        base = stripped
    if "sentences" in kinds:
        found.extend(sentence_windows(base))
    if "lines" in kinds:
        found.extend(single_sentences(base))
    return found


def single_sentences(text: str) -> list[str]:
    """Each sentence or line of at least 25 characters on its own (at most ``_WINDOW`` characters)."""
    out = [m.group().strip()[:_WINDOW] for m in _SENTENCE_RE.finditer(text)]
    return list(dict.fromkeys(s for s in out if len(s) >= 25))


def terms(view: str) -> set[str]:
    tokens = _TOKEN_RE.findall(view)
    return {f"w:{t}" for t in tokens} | {f"b:{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)}


@dataclass
class Text:
    rule: bool  # a precise rule already rejects it
    dense: np.ndarray  # views x signals
    sparse: list[np.ndarray]  # per view: global term ids


class EmbedCache:
    """Sentence embeddings of views, cached on disk by the view's hash (``--embed``: wordllama or minilm)."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name = name
        self.path = folder / f"embed-{name}.npz"
        self.table: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                self.table = dict(zip(data["keys"].tolist(), data["vecs"], strict=True))
        self.pending: list[str] = []
        self.embedder: object | None = None

    @staticmethod
    def key(text: str) -> str:
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

    def want(self, texts: list[str]) -> None:
        self.pending.extend(t for t in texts if self.key(t) not in self.table)

    def flush(self) -> None:
        todo = list(dict.fromkeys(self.pending))
        self.pending = []
        if not todo:
            return
        if self.embedder is None:
            if self.name == "wordllama":
                from gno.embed.static import WordLlamaEmbedder

                self.embedder = WordLlamaEmbedder()
            else:
                from gno.embed.minilm import MiniLMEmbedder

                self.embedder = MiniLMEmbedder(threads=1)
        for i in range(0, len(todo), 256):
            chunk = todo[i : i + 256]
            vecs = self.embedder.embed_documents(chunk)  # type: ignore[attr-defined]
            for t, v in zip(chunk, vecs, strict=True):
                self.table[self.key(t)] = np.asarray(v, dtype=np.float32)
        keys = list(self.table)
        np.savez(self.path, keys=np.array(keys), vecs=np.array([self.table[k] for k in keys]))

    def get(self, texts: list[str]) -> np.ndarray:
        return np.array([self.table[self.key(t)] for t in texts])


def load(
    corpus: Path,
    kind: str,
    kinds: set[str],
    with_terms: bool,
    vocab: dict[str, int],
    embed: EmbedCache | None = None,
    contrast: bool = False,
) -> dict[str, list[Text]]:
    out: dict[str, list[Text]] = {}
    for path in sorted((corpus / kind).glob("*.jsonl")):
        rows = []
        per_text: list[tuple[bool, np.ndarray, list[str], list[np.ndarray]]] = []
        for line in path.read_text().split("\n"):
            if not line:
                continue
            raw = json.loads(line)["text"]
            found = text_views(normalize(raw), kinds)
            ids = [
                np.array([vocab.setdefault(t, len(vocab)) for t in sorted(terms(v))] if with_terms else [], dtype=int)
                for v in found
            ]
            per_text.append((rule_finding(raw) is not None, np.array([signals(v).values for v in found]), found, ids))
            if embed is not None:
                embed.want(found)
        if embed is not None:
            embed.flush()
        for rule, dense, found, ids in per_text:
            if embed is not None:
                vecs = embed.get(found)
                dense = np.hstack([dense, vecs * EMBED_SCALE])
                if contrast:
                    # how far each view stands from the text around it: the view's vector minus the
                    # mean of the text's other views, and their cosine (an instruction among records)
                    rest = vecs[1:] if len(vecs) > 2 else vecs
                    total = rest.sum(axis=0)
                    n = len(rest)
                    others = np.array(
                        [
                            (total - v) / max(n - 1, 1) if len(vecs) > 2 and i > 0 else total / n
                            for i, v in enumerate(vecs)
                        ]
                    )
                    norms = np.linalg.norm(others, axis=1) * np.linalg.norm(vecs, axis=1) + 1e-9
                    cos = (others * vecs).sum(axis=1) / norms
                    dense = np.hstack([dense, (vecs - others) * EMBED_SCALE, cos[:, None]])
            rows.append(Text(rule, dense, ids))
        out[path.stem] = rows
    return out


def lbfgs(fg: Callable[[np.ndarray], tuple[float, np.ndarray]], x: np.ndarray, iters: int = 300) -> np.ndarray:
    """Limited-memory BFGS with a backtracking line search (no SciPy in the dev environment)."""
    f, g = fg(x)
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    for _ in range(iters):
        q = g.copy()
        alphas = []
        for s, y in reversed(pairs):
            a = (s @ q) / (y @ s)
            alphas.append(a)
            q -= a * y
        if pairs:
            s, y = pairs[-1]
            q *= (s @ y) / (y @ y)
        for (s, y), a in zip(pairs, reversed(alphas), strict=True):
            q += s * (a - (y @ q) / (y @ s))
        d = -q if g @ -q < 0 else -g
        t = 1.0
        while True:
            xn = x + t * d
            fn, gn = fg(xn)
            if fn <= f + 1e-4 * t * (g @ d) or t < 1e-10:
                break
            t *= 0.5
        s, y = xn - x, gn - g
        if s @ y > 1e-12:
            pairs = [*pairs[-9:], (s, y)]
        x, f, g = xn, fn, gn
        if np.abs(g).max() < 1e-6:
            break
    return x


@dataclass
class Model:
    terms: np.ndarray  # a weight per global term id (0 for terms not kept)
    signals: np.ndarray
    bias: float

    def view_scores(self, text: Text) -> np.ndarray:
        return text.dense @ self.signals + self.bias + np.array([self.terms[ids].sum() for ids in text.sparse])

    def score(self, text: Text) -> float:
        return float(self.view_scores(text).max())


class Fitter:
    def __init__(self, args: argparse.Namespace, n_terms: int) -> None:
        self.args = args
        self.n_terms = n_terms

    def fit(self, attacks: list[list[Text]], benign: list[list[Text]]) -> Model:
        benign = [rows[:_FIT_BENIGN_PER_SOURCE] for rows in benign]
        picks = [[0] * len(rows) for rows in attacks]
        model = None
        for _ in range(self.args.mil + 1):
            model = self._fit_once(attacks, benign, picks)
            picks = [[int(np.argmax(model.view_scores(t))) for t in rows] for rows in attacks]
        assert model is not None
        return model

    def _fit_once(self, attacks: list[list[Text]], benign: list[list[Text]], picks: list[list[int]]) -> Model:
        rows: list[tuple[np.ndarray, np.ndarray, float, float, int]] = []
        for si, (source, chosen) in enumerate(zip(attacks, picks, strict=True)):
            for text, view in zip(source, chosen, strict=True):
                rows.append((text.dense[view], text.sparse[view], 1.0, 0.5 / len(attacks) / len(source), si))
        for si, source in enumerate(benign, start=len(attacks)):
            for text in source:
                picked = range(len(text.sparse)) if self.args.benign_views else [0]
                for view in picked:
                    share = 0.5 / len(benign) / len(source) / len(picked)
                    rows.append((text.dense[view], text.sparse[view], 0.0, share, si))
        dense = np.array([r[0] for r in rows])
        y = np.array([r[2] for r in rows])
        weight = np.array([r[3] for r in rows])
        ids = np.concatenate([r[1] for r in rows]) if rows else np.zeros(0, int)
        owner = np.concatenate([np.full(len(r[1]), i) for i, r in enumerate(rows)])
        keep = self._kept_terms(ids, owner, np.array([r[4] for r in rows]), len(attacks))
        remap = np.full(self.n_terms, -1)
        remap[keep] = np.arange(int(keep.sum()))
        mask = remap[ids] >= 0 if len(ids) else np.zeros(0, bool)
        cols, owner = remap[ids[mask]], owner[mask]
        n, d, k, l2 = len(rows), int(keep.sum()), dense.shape[1], self.args.l2

        def fg(p: np.ndarray) -> tuple[float, np.ndarray]:
            w, wd, b = p[:d], p[d : d + k], p[-1]
            z = np.bincount(owner, weights=w[cols], minlength=n) + dense @ wd + b
            pz = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
            loss = -(weight * (y * np.log(pz + 1e-12) + (1 - y) * np.log(1 - pz + 1e-12))).sum()
            r = weight * (pz - y)
            grad_w = np.bincount(cols, weights=r[owner], minlength=d) + l2 * w
            return loss + 0.5 * l2 * (w @ w + wd @ wd), np.concatenate([grad_w, dense.T @ r + l2 * wd, [r.sum()]])

        p = lbfgs(fg, np.zeros(d + k + 1))
        full = np.zeros(self.n_terms)
        full[keep] = p[:d]
        return Model(full, p[d : d + k], float(p[-1]))

    def _kept_terms(self, ids: np.ndarray, owner: np.ndarray, source: np.ndarray, n_attack: int) -> np.ndarray:
        if not self.args.terms or not len(ids):
            return np.zeros(self.n_terms, bool)
        df = np.bincount(ids, minlength=self.n_terms)
        by_source = source[owner]
        sources = np.zeros(self.n_terms, int)
        attack_sources = np.zeros(self.n_terms, int)
        for si in np.unique(by_source):
            present = np.bincount(ids[by_source == si], minlength=self.n_terms) > 0
            sources += present
            attack_sources += present if si < n_attack else 0
        return (df >= self.args.min_df) & (sources >= 2) & (attack_sources >= self.args.min_attack_sources)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=REPO / "bench" / ".guard_corpus")
    parser.add_argument("--terms", action="store_true", help="word unigrams and bigrams beside the signals")
    parser.add_argument("--min-df", type=int, default=3)
    parser.add_argument("--min-attack-sources", type=int, default=0)
    parser.add_argument("--views", default="", help="comma-separated: filler, sentences")
    parser.add_argument("--mil", type=int, default=0, help="multiple-instance rounds")
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--embed", choices=["wordllama", "minilm"], help="sentence embeddings of every view")
    parser.add_argument(
        "--by-project", action="store_true", help="a fold leaves out the other half of its project too (PAIRED)"
    )
    parser.add_argument("--contrast", action="store_true", help="each view's embedding against its text's others")
    parser.add_argument("--benign-views", action="store_true", help="fit on every view of a benign text")
    parser.add_argument("--cache", type=Path, default=REPO / "bench" / ".guard_corpus", help="embedding cache folder")
    parser.add_argument("--budget", type=float, nargs="+", default=[0.001, 0.002, 0.005])
    parser.add_argument("--fast", action="store_true", help="shared out-of-fold benign scores (favours the method)")
    parser.add_argument(
        "--holdout", action="store_true", help="also score holdout/ with a fit on every source (never trained on)"
    )
    args = parser.parse_args(argv)
    started = time.process_time()
    kinds = {k for k in args.views.split(",") if k}
    vocab: dict[str, int] = {}
    embed = None
    if args.embed:
        args.cache.mkdir(parents=True, exist_ok=True)
        embed = EmbedCache(args.embed, args.cache)
    attacks = load(args.corpus, "attacks", kinds, args.terms, vocab, embed, args.contrast)
    benign = load(args.corpus, "benign", kinds, args.terms, vocab, embed, args.contrast)
    print(f"loaded in {time.process_time() - started:.0f} s CPU", flush=True)
    fitter = Fitter(args, len(vocab))

    def oof(att: list[str], ben: list[str]) -> dict[str, np.ndarray]:
        """Each benign source's scores from a model fitted without it (rule-rejected texts aside)."""
        return {
            b: np.array(
                [
                    m.score(t)
                    for m in [fitter.fit([attacks[a] for a in att], [benign[o] for o in ben if o != b])]
                    for t in benign[b]
                    if not t.rule
                ]
            )
            for b in ben
        }

    shared = oof(list(attacks), list(benign)) if args.fast or args.holdout else {}
    held_out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if args.holdout:
        # a hold-out source is never in any fit: the fit on every source scores it, under the threshold
        # the out-of-fold benign scores of that same fit set
        everything = fitter.fit(list(attacks.values()), list(benign.values()))
        for name, rows in load(args.corpus, "holdout", kinds, args.terms, vocab, embed, args.contrast).items():
            held_out[name] = (np.array([everything.score(t) for t in rows]), np.array([t.rule for t in rows]))
    results: dict[str, tuple[str, np.ndarray, np.ndarray, dict[str, np.ndarray]]] = {}
    for held in attacks:
        att = [a for a in attacks if a != held]
        ben_fold = [b for b in benign if not (args.by_project and PAIRED.get(held) == b)]
        model = fitter.fit([attacks[a] for a in att], [benign[b] for b in ben_fold])
        inner = {b: shared[b] for b in ben_fold} if args.fast else oof(att, ben_fold)
        scores = np.array([model.score(t) for t in attacks[held]])
        results[held] = ("attack", scores, np.array([t.rule for t in attacks[held]]), inner)
    for held in benign:
        ben = [b for b in benign if b != held]
        if args.fast:
            scores, inner = shared[held], {b: shared[b] for b in ben}
            rules = np.zeros(len(scores), bool)
        else:
            att = [a for a in attacks if not (args.by_project and PAIRED.get(a) == held)]
            model = fitter.fit([attacks[a] for a in att], [benign[b] for b in ben])
            scores = np.array([model.score(t) for t in benign[held]])
            rules, inner = np.array([t.rule for t in benign[held]]), oof(att, ben)
        results[held] = ("benign", scores, rules, inner)
    flags = f"terms={args.terms} views={sorted(kinds)} mil={args.mil} fast={args.fast} embed={args.embed}"
    flags += f" benign_views={args.benign_views} l2={args.l2} by_project={args.by_project} contrast={args.contrast}"
    print(f"Memory Guard methods, leave-one-source-out ({flags}; corpus {args.corpus.name})")
    for budget in args.budget:
        rows = []
        for name, (kind, scores, rules, inner) in results.items():
            threshold = max(float(np.quantile(v, 1 - budget)) for v in inner.values() if len(v)) + 1e-6
            rows.append((kind, name, float((rules | (scores >= threshold)).mean())))
        worst_attack = min((r for r in rows if r[0] == "attack"), key=lambda r: r[2])
        worst_benign = max((r for r in rows if r[0] == "benign"), key=lambda r: r[2])
        print(f"budget {budget:.3%}: worst attack {worst_attack[1]} {worst_attack[2]:.1%}, ", end="")
        print(f"worst benign {worst_benign[1]} {worst_benign[2]:.2%}")
        for kind, name, share in rows:
            print(f"  {kind:<6} {name:<30} {share:7.2%}")
        if held_out:
            threshold = max(float(np.quantile(v, 1 - budget)) for v in shared.values() if len(v)) + 1e-6
            for name, (scores, rules) in held_out.items():
                share = float((rules | (scores >= threshold)).mean())
                print(f"  {'hold':<6} {name:<30} {share:7.2%} (rules alone {float(rules.mean()):.2%})")
    print(f"bench CPU {time.process_time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
