"""`gno similar`: which document vector finds a note's linked notes, the chunk centroid or the best chunk pair?

No judged "similar note" pairs exist for these vaults, so the authors' own links stand in for them:
for every note with at least one resolved wiki link or backlink in its collection, the top-5
neighbours of the note (same collection, itself excluded) are compared with its linked notes.
Reported per corpus and embedder, for each way of making a document score:

* ``centroid``: cosine of the normalised mean of each document's chunk vectors (one matrix-vector
  product per call);
* ``best-pair``: the highest cosine between any chunk of the note and any chunk of the other
  document (max-sim; a chunks x chunks product per call);
* ``best-match``: for each chunk of the note its best cosine in the other document, averaged over
  the note's chunks (what `gno similar` ships).

Metrics: ``hit@5`` (share of notes with a linked note among the top 5), ``P@5`` (linked share of
the top 5) and ``MRR`` (reciprocal rank of the first linked note in the top 20). Notes are split by
their sorted position: odd ones tune (the choice is made there), even ones report.

Usage::

    nice python bench/similar_links.py --cache /tmp/similar-bench [--corpora dwarves,silverbullet]
        [--embedders wordllama,minilm]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
CORPORA = {"dwarves": DATASETS / "dwarves-brain", "silverbullet": DATASETS / "silverbullet-docs"}
K = 5


def engine_for(cache: Path, corpus: str, embedder: str) -> object:
    """An engine over the corpus in its own gno home under `cache`, synced and embedded."""
    from gno.config import build_settings, load_config, save_config
    from gno.engine import Engine

    home = cache / corpus
    env = {
        **os.environ,
        "GNO_CONFIG_DIR": str(home / "config"),
        "GNO_DATA_DIR": str(home / "data"),
        "GNO_CACHE_DIR": str(home / "cache"),
    }
    e = Engine(build_settings(env=env))
    if not e.settings.config_path.exists():
        e.init(str(CORPORA[corpus]), name=corpus)
    cfg = load_config(e.settings)
    cfg.models.embed = embedder
    cfg.models.first_pass = "none"
    save_config(e.settings, cfg)
    e._config = None
    e.update()
    e.embed()
    return e


def linked(e: object) -> dict[int, set[int]]:
    """doc id → ids of the active documents it links to or that link to it."""
    from gno.store import graph

    store = e.store  # type: ignore[attr-defined]
    ids = [int(r[0]) for r in store.conn.execute("SELECT id FROM documents WHERE active = 1 ORDER BY rel_path")]
    out: dict[int, set[int]] = {}
    for d in ids:
        nb = {x.target for x in graph.outgoing(store, d)} | {x.source for x in graph.incoming(store, d)}
        nb.discard(d)
        if nb:
            out[d] = nb
    return out


def scorers(e: object) -> tuple[list[int], dict[str, Callable[[int], list[int]]]]:
    """Doc ids in rel_path order, and per method a ranking function (doc id → ranked other doc ids)."""
    from gno.retrieve.neighbours import centroids

    idx = e.semantic.index()  # type: ignore[attr-defined]
    store = e.store  # type: ignore[attr-defined]
    rows = store.conn.execute("SELECT id, mirror_hash FROM documents WHERE active = 1 ORDER BY rel_path").fetchall()
    docs = [(int(r[0]), str(r[1])) for r in rows if idx.mirror_position(str(r[1])) is not None]
    pos = {m: idx.mirror_position(m) for _, m in docs}
    ids, unit = centroids(idx, docs)
    assert ids == [d for d, _ in docs]
    chunk_rows = {m: idx.rows_of(p) for m, p in pos.items()}
    order = [d for d, _ in docs]
    mirror_of = dict(docs)
    row_of = {d: i for i, d in enumerate(ids)}

    def centroid(d: int) -> list[int]:
        s = unit @ unit[row_of[d]]
        return [order[i] for i in np.argsort(-s, kind="stable") if order[i] != d]

    def pairwise(d: int, reduce: str) -> list[int]:
        a, b = chunk_rows[mirror_of[d]]
        sims = idx.matrix @ idx.matrix[a:b].T  # every chunk x the note's chunks
        per_doc = []
        for _, m in docs:
            lo, hi = chunk_rows[m]
            block = sims[lo:hi]
            per_doc.append(float(block.max()) if reduce == "max" else float(block.max(axis=0).mean()))
        s = np.array(per_doc)
        return [order[i] for i in np.argsort(-s, kind="stable") if order[i] != d]

    return order, {
        "centroid": centroid,
        "best-pair": lambda d: pairwise(d, "max"),
        "best-match": lambda d: pairwise(d, "mean"),
    }


def score(ranked: list[int], truth: set[int]) -> tuple[float, float, float]:
    top = ranked[:K]
    hit = float(any(x in truth for x in top))
    prec = sum(x in truth for x in top) / K
    rr = next((1.0 / (i + 1) for i, x in enumerate(ranked[:20]) if x in truth), 0.0)
    return hit, prec, rr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--corpora", default="dwarves,silverbullet")
    ap.add_argument("--embedders", default="wordllama,minilm")
    args = ap.parse_args()
    print(f"{'corpus':<13}{'embedder':<11}{'split':<8}{'method':<11}{'notes':>6}{'hit@5':>8}{'P@5':>8}{'MRR':>8}")
    for corpus in args.corpora.split(","):
        for embedder in args.embedders.split(","):
            t0 = time.time()
            e = engine_for(args.cache, corpus, embedder)
            truth = linked(e)
            order, methods = scorers(e)
            notes = [d for d in order if d in truth]
            for split, part in (("tune", notes[0::2]), ("report", notes[1::2])):
                for name, rank in methods.items():
                    rows = [score(rank(d), truth[d]) for d in part]
                    hit, prec, mrr = (statistics.fmean(col) for col in zip(*rows, strict=True))
                    print(
                        f"{corpus:<13}{embedder:<11}{split:<8}{name:<11}{len(part):>6}{hit:>8.3f}{prec:>8.3f}{mrr:>8.3f}"
                    )
            print(f"  ({corpus}/{embedder}: {time.time() - t0:.0f} s with indexing and embedding)")
            e.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
