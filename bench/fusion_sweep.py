"""Tuning aid for `gno query`'s fusion: score fusion variants over the legs' cached candidate lists.

Runs on the **tune** part of each corpus of `bench/retrieval_suite.py` only (same homes, same
cache; the corpora must have been indexed and embedded by the suite first). Per query it collects
the BM25 leg (raw scores) and the vector leg (cosines) exactly as `gno query` draws them (pools of
40), then ranks the top 10 with

* ``rrf k=60 w 2/2``: the former default (weighted reciprocal-rank fusion);
* ``cal w=W floor=F``: the former calibration, every leg scaled to its best hit
  (`gno.retrieve.fusion.calibrated_scores`) with vector weight W and an absolute cosine floor F;
* ``margin w=W spread=Z``: what `gno query` runs: BM25 scaled to its best hit, each vector hit
  credited by its margin over its query's pool median in units of Z pool deviations
  (`gno.retrieve.fusion.margin_scaled`, cosines at or below `DEFAULT_TRUST.floor` dropped),
  vector weight W (`DEFAULT_TRUST` is the default),

and prints nDCG@10 per corpus and embedder beside the BM25 leg alone, so a default is picked where
no corpus loses. Usage::

    nice python bench/fusion_sweep.py --cache /work/cache/retrieval [--corpora ...] [--embedders ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval_suite as suite  # noqa: E402

WEIGHTS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
FLOORS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
SPREADS = (3.0, 4.0, 5.0, 6.0, 8.0)
POOL = 40

Leg = list[tuple[str, float]]


def collect(engine: Any, corpus: suite.Corpus, queries: list[suite.Query]) -> dict[str, tuple[Leg, Leg]]:
    from gno.retrieve.grammar import parse_query
    from gno.store.fts import DocFilter

    names = {
        int(r[0]): corpus.key_of(str(r[1]), str(r[2]))
        for r in engine.store.conn.execute("SELECT id, collection, rel_path FROM documents WHERE active = 1")
    }
    hr = engine.retriever()
    out: dict[str, tuple[Leg, Leg]] = {}
    for q in queries:
        f = DocFilter(collections=[q.collection] if q.collection else [])
        _, hits = hr._bm25(parse_query(q.text), f, POOL)
        vec = hr._vector(q.text, f, POOL, {})
        out[q.qid] = (
            [(names[h.doc_id], h.raw) for h in hits if h.doc_id in names],
            [(names[d], vec.scores[d]) for d in vec.ranked if d in names],
        )
    return out


def use_embedder(engine: Any, spec: str) -> None:
    """Point this engine at `spec` in memory only: the suite may be using the same home's index.yml."""
    from gno import config_snapshot
    from gno.config import load_config

    cfg = load_config(engine.settings)
    cfg.models.embed = spec
    # the engine reloads its config when this differs from the file's identity (mtime in ns)
    identity = config_snapshot.identity(engine.settings.config_location)
    engine._config, engine._config_mtime = cfg, identity[3] if identity else None
    engine._semantic = None
    if engine.semantic.embedder().model_id.split("-")[0] not in spec:
        raise SystemExit(f"the engine did not switch to {spec}")


def variants() -> list[tuple[str, Any]]:
    from gno.retrieve.fusion import calibrated_scores, margin_scaled, rrf_scores, scaled_to_best, weighted_sum
    from gno.retrieve.hybrid import DEFAULT_TRUST

    def order(scores: dict[str, float]) -> list[str]:
        return [d for d, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]

    out: list[tuple[str, Any]] = [
        ("bm25 alone", lambda b, v: [d for d, _ in b]),
        ("vector alone", lambda b, v: [d for d, _ in v]),
        ("rrf k=60 w 2/2", lambda b, v: order(rrf_scores([([d for d, _ in b], 2.0), ([d for d, _ in v], 2.0)]))),
    ]
    for w in WEIGHTS:
        for fl in FLOORS:

            def cal(b: Leg, v: Leg, w: float = w, fl: float = fl) -> list[str]:
                return order(calibrated_scores([(b, 1 - w, 0.0), (v, w, fl)]))

            out.append((f"cal w={w} floor={fl}", cal))
        for z in SPREADS:

            def margin(b: Leg, v: Leg, w: float = w, z: float = z) -> list[str]:
                return order(weighted_sum([(scaled_to_best(b), 1 - w), (margin_scaled(v, z, DEFAULT_TRUST.floor), w)]))

            out.append((f"margin w={w} spread={z:g}", margin))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=suite.DEFAULT_DATASETS)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--corpora", default=",".join(suite.CORPORA))
    ap.add_argument("--embedders", default="minilm,wordllama")
    ap.add_argument("--split", default="tune", choices=("tune", "report"))
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    key = suite.index_key()
    table: dict[str, dict[str, float]] = {}
    for cname in [c for c in args.corpora.split(",") if c]:
        work = args.cache / f"{cname}-data"
        if cname == "tldr":
            corpus = suite.corpus_tldr(args.datasets, work, 400)
        else:
            corpus = {
                "dwarves": suite.corpus_dwarves,
                "nfcorpus": suite.corpus_nfcorpus,
                "locomo": suite.corpus_locomo,
            }[cname](args.datasets, work)
        if cname == "locomo":
            corpus.queries = corpus.queries[::2]
        qs = [q for q in corpus.queries if q.split == args.split]
        home = args.cache / f"{cname}-home-{key}"
        if not (home / ".indexed").exists():
            suite.log(f"{cname}: not indexed yet (run the suite first); skipped")
            continue
        engine = suite.open_home(corpus, home)
        for spec in [e for e in args.embedders.split(",") if e]:
            use_embedder(engine, spec)
            if engine.semantic.unavailable_reason():
                suite.log(f"{cname}/{spec}: no vectors yet; skipped")
                continue
            legs = collect(engine, corpus, qs)
            col = f"{cname}/{spec}"
            for name, fn in variants():
                nd = [suite.ndcg(fn(*legs[q.qid])[: suite.K], q.grades) for q in qs]
                table.setdefault(name, {})[col] = round(statistics.mean(nd), 4)
            suite.log(f"  {col}: {len(qs)} {args.split} queries")
        engine.close()
    cols = sorted({c for row in table.values() for c in row})
    base = table.get("bm25 alone", {})
    print(f"nDCG@10 on the {args.split} part; `min gain` = worst corpus/embedder gain over the BM25 leg")
    print("| variant | " + " | ".join(cols) + " | min gain |")
    print("| --- |" + " ---: |" * (len(cols) + 1))
    rows = sorted(table.items(), key=lambda kv: -min(kv[1].get(c, 0) - base.get(c, 0) for c in cols))
    for name, row in rows[: args.top] + [r for r in rows[args.top :] if "alone" in r[0] or "rrf" in r[0]]:
        gain = min(row.get(c, 0) - base.get(c, 0) for c in cols)
        print(f"| {name} | " + " | ".join(f"{row.get(c, 0):.4f}" for c in cols) + f" | {gain:+.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
