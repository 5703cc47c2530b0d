"""NFCorpus retrieval quality of `gno query` per stage and per embedder (issue 5 benchmark).

Reads ``<datasets>/nfcorpus`` (see its README.txt): the test split, 3,162 medical abstracts
(``test.docs``, ``ID \\t TEXT``; the text is the paper's pre-processed version: lowercased,
stop-words and numbers removed), the short user-like ``test.titles.queries`` (BEIR-style; 323 of
the 325 have judgments) and the graded qrels ``test.2-1-0.qrel`` (2 = direct, 1 = indirect
relevance; the paper's official qrels).

Each document becomes one markdown file ``<ID>.md`` in a temp folder: the title as H1 (the text
before the first `` abstract `` / `` summary `` marker, which 3,142 of the 3,162 texts have; else
the first 12 words) and the rest as the body. The folder is indexed in-process by
``gno.engine.Engine`` in an isolated gno home (GNO_CONFIG_DIR / GNO_DATA_DIR / GNO_CACHE_DIR in
the temp folder), then embedded with each embedder of ``--embedders`` (progress on stderr).

Modes, every one at ``limit=100``:

* ``bm25``: ``engine.query(q, lexical_only=True, depth="fast")`` (BM25 alone, any-term);
* ``vector``: ``engine.vsearch(q)`` (the embedder alone, documents by best chunk);
* ``fast``: ``engine.query(q, depth="fast")`` (RRF of BM25 and vectors only: no graph, no re-scoring);
* ``hybrid``: ``engine.query(q)`` (the default: RRF → graph → re-scoring of the top 20);
* ``thorough``: ``engine.query(q, depth="thorough")`` (adds pseudo-relevance feedback, 40 candidates).

``--sweep`` (diagnostic for tuning) also collects, per query, the BM25 and vector candidate lists
``gno query --fast -n 100`` fuses (200 each) and scores fusion variants over them offline: RRF with
other k / weights / without the top-rank bonus, convex combinations of min-max normalised scores,
and a three-way RRF of BM25 and both embedders. ``nDCG@10 at -n 10`` is the same mode run at the
user-facing default ``-n 10`` (smaller candidate pools).

Metrics: nDCG@10 with graded gains (linear gain = qrel grade, ideal from every judged document of
the query, as trec_eval / BEIR compute it), Recall@100 (judged-relevant documents found in the top
100), MRR@10, and query latency p50/p95 (ms, in-process, model warm, at limit=100 — assembling 100
hits with snippets costs more than the default ``-n 10``). BM25 does not depend on the embedder
and runs once. Target (issue 5): hybrid nDCG@10 >= 1.10 x BM25 nDCG@10.

Usage::

    python bench/nfcorpus.py [--datasets DIR] [--embedders minilm,wordllama]
                             [--modes bm25,vector,fast,hybrid,thorough] [--queries titles]
                             [--limit-queries N] [--sweep] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
ALL_MODES = ("bm25", "vector", "fast", "hybrid", "thorough")
N10_MODES = ("fast", "hybrid", "thorough")
LIMIT = 100
TARGET_RATIO = 1.10
_MARKER = re.compile(r"\s(?:abstract|summary)\s")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)] if s else float("nan")


# -- data -------------------------------------------------------------------------------------


def read_tsv(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            key, _, text = line.partition("\t")
            out.append((key.strip(), text.strip()))
    return out


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 4 and int(parts[3]) > 0:
            qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return qrels


def split_title(text: str) -> tuple[str, str]:
    m = _MARKER.search(text)
    if m and m.start() > 0:
        return text[: m.start()].strip(), text[m.end() :].strip()
    words = text.split()
    return " ".join(words[:12]), " ".join(words[12:])


def write_docs(docs: list[tuple[str, str]], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, text in docs:
        title, body = split_title(text)
        (folder / f"{doc_id}.md").write_text(f"# {title}\n\n{body}\n", encoding="utf-8")


# -- metrics ----------------------------------------------------------------------------------


def ndcg_at(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    dcg = sum(grades.get(d, 0) / math.log2(i + 1) for i, d in enumerate(ranked[:k], 1))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, 1))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], grades: dict[str, int], k: int = 100) -> float:
    return len(set(ranked[:k]) & set(grades)) / len(grades) if grades else 0.0


def mrr_at(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    return next((1.0 / i for i, d in enumerate(ranked[:k], 1) if d in grades), 0.0)


# -- runs -------------------------------------------------------------------------------------


def run_mode(
    engine: Any, mode: str, queries: list[tuple[str, str]], qrels: dict[str, dict[str, int]]
) -> dict[str, Any]:
    from gno.errors import GnoError

    calls: dict[str, Callable[[str], Any]] = {
        "bm25": lambda q: engine.query(q, lexical_only=True, depth="fast", limit=LIMIT),
        "vector": lambda q: engine.vsearch(q, limit=LIMIT),
        "fast": lambda q: engine.query(q, depth="fast", limit=LIMIT),
        "hybrid": lambda q: engine.query(q, limit=LIMIT),
        "thorough": lambda q: engine.query(q, depth="thorough", limit=LIMIT),
    }
    fn = calls[mode]
    fn(queries[0][1])  # warm: model session, vector matrix, SQLite pages
    nd, rc, rr, lat = [], [], [], []
    errors = 0
    empty = 0
    for qid, text in queries:
        t = time.perf_counter()
        try:
            res = fn(text)
            ranked = [Path(h.rel_path).stem for h in res.results]
        except GnoError:
            errors += 1
            ranked = []
        lat.append((time.perf_counter() - t) * 1000)
        empty += 0 if ranked else 1
        g = qrels[qid]
        nd.append(ndcg_at(ranked, g))
        rc.append(recall_at(ranked, g))
        rr.append(mrr_at(ranked, g))
    out = {
        "mode": mode,
        "queries": len(queries),
        "ndcg@10": round(statistics.mean(nd), 4),
        "recall@100": round(statistics.mean(rc), 4),
        "mrr@10": round(statistics.mean(rr), 4),
        "p50_ms": round(percentile(lat, 50), 2),
        "p95_ms": round(percentile(lat, 95), 2),
        "empty": empty,
        "errors": errors,
    }
    if mode in N10_MODES:
        # the user-facing default `-n 10` draws smaller candidate pools (2 x 20 instead of 2 x 100)
        kw = {"fast": {"fast": True}, "hybrid": {}, "thorough": {"thorough": True}}[mode]
        nd10 = []
        for qid, text in queries:
            try:
                ranked = [Path(h.rel_path).stem for h in engine.query(text, limit=10, **kw).results]
            except GnoError:
                ranked = []
            nd10.append(ndcg_at(ranked, qrels[qid]))
        out["ndcg@10_n10"] = round(statistics.mean(nd10), 4)
    return out


# -- fusion sweep (diagnostic) ----------------------------------------------------------------

Ranked = list[tuple[str, float]]


def collect_legs(engine: Any, queries: list[tuple[str, str]]) -> dict[str, dict[str, Ranked]]:
    """Per query, the bm25 and vector candidate lists of `gno query --fast -n 100` (200 each)."""
    from gno.retrieve.hybrid import QueryOptions
    from gno.store.fts import DocFilter

    names = {
        int(r[0]): Path(str(r[1])).stem
        for r in engine.store.conn.execute("SELECT id, rel_path FROM documents WHERE active = 1")
    }
    out: dict[str, dict[str, Ranked]] = {}
    for qid, text in queries:
        run = engine.retriever().run(text, DocFilter(), QueryOptions(limit=LIMIT, depth="fast"))
        by = {st.name: st for st in run.stages}
        out[qid] = {
            leg: [(names[d], float(by[leg].scores.get(d, 0.0))) for d in by[leg].ranked if d in names]
            for leg in ("bm25", "vector")
            if leg in by and by[leg].status == "active"
        }
    return out


def rrf(lists: list[tuple[Ranked, float]], k: int, bonus: bool) -> list[str]:
    scores: dict[str, float] = {}
    extra: dict[str, float] = {}
    for ranked, w in lists:
        for rank, (d, _) in enumerate(ranked, 1):
            scores[d] = scores.get(d, 0.0) + w / (k + rank)
            if bonus:
                extra[d] = max(extra.get(d, 0.0), 0.1 if rank == 1 else 0.04 if rank <= 5 else 0.0)
    return [d for d, _ in sorted(scores.items(), key=lambda x: (-(x[1] + extra.get(x[0], 0.0)), x[0]))]


def convex(lists: list[tuple[Ranked, float]]) -> list[str]:
    """Weighted sum of per-query min-max normalised scores (absent from a list: 0)."""
    total: dict[str, float] = {}
    for ranked, w in lists:
        if not ranked:
            continue
        vals = [s for _, s in ranked]
        lo, hi = min(vals), max(vals)
        for d, s in ranked:
            total[d] = total.get(d, 0.0) + w * ((s - lo) / (hi - lo) if hi > lo else 1.0)
    return [d for d, _ in sorted(total.items(), key=lambda x: (-x[1], x[0]))]


def sweep(
    legs: dict[str, dict[str, Ranked]], qrels: dict[str, dict[str, int]], vec_names: list[str]
) -> list[dict[str, Any]]:
    """nDCG@10 / R@100 of fusion variants over the same candidate lists (top 100 kept)."""

    def score(fn: Callable[[dict[str, Ranked]], list[str]]) -> tuple[float, float]:
        nd, rc = [], []
        for qid, lg in legs.items():
            ranked = fn(lg)[:LIMIT]
            nd.append(ndcg_at(ranked, qrels[qid]))
            rc.append(recall_at(ranked, qrels[qid]))
        return round(statistics.mean(nd), 4), round(statistics.mean(rc), 4)

    rows: list[dict[str, Any]] = []

    def add(name: str, fn: Callable[[dict[str, Ranked]], list[str]]) -> None:
        nd, rc = score(fn)
        rows.append({"variant": name, "ndcg@10": nd, "recall@100": rc})

    add("bm25 alone", lambda lg: [d for d, _ in lg.get("bm25", [])])
    for v in vec_names:
        add(f"{v} alone", lambda lg, v=v: [d for d, _ in lg.get(v, [])])
    weight_sets = [(2.0, 2.0), (2.0, 1.0), (2.0, 1.5), (1.5, 2.0), (1.0, 2.0), (3.0, 2.0)]
    for v in vec_names:
        for k in (10, 30, 60, 100):
            for wb, wv in weight_sets:
                for bonus in (True, False):
                    tag = f"rrf k={k} bm25 {wb} / {v} {wv}{' +bonus' if bonus else ''}"
                    add(
                        tag,
                        lambda lg, k=k, wb=wb, wv=wv, b=bonus, v=v: rrf(
                            [(lg.get("bm25", []), wb), (lg.get(v, []), wv)], k, b
                        ),
                    )
        for a in (0.3, 0.4, 0.5, 0.6, 0.7):
            add(
                f"convex bm25 {a} / {v} {round(1 - a, 1)}",
                lambda lg, a=a, v=v: convex([(lg.get("bm25", []), a), (lg.get(v, []), 1 - a)]),
            )
    if len(vec_names) >= 2:
        a, b = vec_names[0], vec_names[1]
        for k in (30, 60):
            for w in ((2.0, 2.0, 1.0), (2.0, 2.0, 2.0), (2.0, 1.5, 0.5), (1.5, 2.0, 1.0)):
                for bonus in (True, False):
                    tag = f"rrf k={k} bm25 {w[0]} / {a} {w[1]} / {b} {w[2]}{' +bonus' if bonus else ''}"
                    add(
                        tag,
                        lambda lg, k=k, w=w, bo=bonus: rrf(
                            [(lg.get("bm25", []), w[0]), (lg.get(a, []), w[1]), (lg.get(b, []), w[2])], k, bo
                        ),
                    )
    return rows


def isolate(home: Path) -> None:
    os.environ["GNO_CONFIG_DIR"] = str(home / "config")
    os.environ["GNO_DATA_DIR"] = str(home / "data")
    os.environ["GNO_CACHE_DIR"] = str(home / "cache")
    for key in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
        os.environ.pop(key, None)


def set_embedder(engine: Any, spec: str) -> None:
    from gno.config import load_config, save_config

    cfg = load_config(engine.settings)
    cfg.models.embed = spec
    save_config(engine.settings, cfg)
    engine._config = None


def embed_with_progress(engine: Any, spec: str, batch_size: int) -> dict[str, Any]:
    started = time.perf_counter()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= 5 or done == total:
            last[0] = now
            secs = now - started
            rate = done / secs if secs else 0.0
            eta = (total - done) / rate if rate else float("nan")
            log(f"  embed {spec}: {done}/{total} chunks, {rate:.1f} chunks/s, ETA {eta:.0f}s")

    r = engine.embed(batch_size=batch_size, progress=progress)
    return {
        "model": r.model,
        "fingerprint": r.fingerprint,
        "chunks": r.embedded,
        "total_chunks": r.total_chunks,
        "seconds": round(r.duration_ms / 1000, 1),
        "chunks_per_s": r.chunks_per_second,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--embedders", default="minilm,wordllama", help="comma-separated embedder specs")
    ap.add_argument("--modes", default=",".join(ALL_MODES), help=f"comma-separated, of {', '.join(ALL_MODES)}")
    ap.add_argument(
        "--queries",
        default="titles",
        choices=("titles", "all", "nontopic-titles", "vid-titles", "vid-desc"),
        help="which test.<x>.queries file (default: titles, BEIR-style)",
    )
    ap.add_argument("--limit-queries", type=int, default=None, help="only the first N judged queries")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument(
        "--sweep", action="store_true", help="also score RRF/convex fusion variants over the same candidate lists"
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args(argv)

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in ALL_MODES]
    if bad:
        ap.error(f"unknown mode(s) {bad}; use {', '.join(ALL_MODES)}")
    embedders = [e.strip() for e in args.embedders.split(",") if e.strip()]
    data = args.datasets / "nfcorpus"
    if not (data / "test.docs").exists():
        raise SystemExit(f"NFCorpus not found at {data} (see --datasets)")

    docs = read_tsv(data / "test.docs")
    qrels = read_qrels(data / "test.2-1-0.qrel")
    queries = [(qid, text) for qid, text in read_tsv(data / f"test.{args.queries}.queries") if qid in qrels]
    if args.limit_queries:
        queries = queries[: args.limit_queries]
    log(f"nfcorpus test: {len(docs)} docs, {len(queries)} judged {args.queries} queries")

    result: dict[str, Any] = {
        "dataset": "nfcorpus/test",
        "docs": len(docs),
        "queryFile": f"test.{args.queries}.queries",
        "queries": len(queries),
        "qrels": "test.2-1-0.qrel (graded 2/1)",
        "limit": LIMIT,
        "target": f"hybrid nDCG@10 >= {TARGET_RATIO} x bm25 nDCG@10",
        "embedders": {},
    }
    with tempfile.TemporaryDirectory(prefix="gno-bench-nfcorpus-") as tmp:
        home = Path(tmp)
        isolate(home)
        from gno.config import build_settings
        from gno.engine import Engine

        t0 = time.perf_counter()
        write_docs(docs, home / "docs")
        engine = Engine(build_settings())
        engine.init()
        engine.collection_add(str(home / "docs"), name="nfcorpus")
        set_embedder(engine, "fake:8")  # no model is needed for the sync and the BM25 run
        sync = engine.update()
        st = engine.status()
        result["index"] = {
            "seconds": round(time.perf_counter() - t0, 1),
            "documents": st.documents,
            "chunks": st.chunks,
            "added": sum(c.added for c in sync.collections),
        }
        log(f"indexed {st.documents} documents, {st.chunks} chunks in {result['index']['seconds']}s")

        if "bm25" in modes:
            result["bm25"] = run_mode(engine, "bm25", queries, qrels)
            log(f"bm25: {result['bm25']}")
        legs: dict[str, dict[str, Ranked]] = {}
        for spec in embedders:
            set_embedder(engine, spec)
            log(f"embedding with {spec} ...")
            entry: dict[str, Any] = {"embed": embed_with_progress(engine, spec, args.batch_size), "modes": {}}
            for mode in modes:
                if mode == "bm25":
                    continue
                log(f"  {spec} / {mode} ...")
                entry["modes"][mode] = run_mode(engine, mode, queries, qrels)
                log(f"  {spec} / {mode}: {entry['modes'][mode]}")
            if args.sweep:
                log(f"  {spec} / collecting candidate lists for the sweep ...")
                for qid, lg in collect_legs(engine, queries).items():
                    legs.setdefault(qid, {}).setdefault("bm25", lg.get("bm25", []))
                    legs[qid][spec] = lg.get("vector", [])
            if "bm25" in result and "hybrid" in entry["modes"]:
                base = result["bm25"]["ndcg@10"]
                ratio = entry["modes"]["hybrid"]["ndcg@10"] / base if base else float("nan")
                entry["hybrid_over_bm25"] = round(ratio, 3)
                entry["target_met"] = ratio >= TARGET_RATIO
            result["embedders"][spec] = entry
        engine.close()
    if args.sweep:
        rows = sweep(legs, qrels, embedders)
        result["sweep"] = rows
        base = result.get("bm25", {}).get("ndcg@10")
        if base:
            result["sweep_target_ndcg@10"] = round(TARGET_RATIO * base, 4)

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"NFCorpus test, {result['docs']} docs, {result['queries']} judged queries ({result['queryFile']}), "
        f"graded qrels; all modes at limit {LIMIT}; index {result['index']['seconds']}s "
        f"({result['index']['chunks']} chunks)"
    )
    print(
        f"{'embedder':<10} {'mode':<9} {'nDCG@10':>8} {'R@100':>7} {'MRR@10':>7} {'p50 ms':>8} {'p95 ms':>8}"
        f" {'empty':>6} {'nDCG@10 at -n 10':>17}"
    )

    def row(name: str, m: dict[str, Any]) -> None:
        print(
            f"{name:<10} {m['mode']:<9} {m['ndcg@10']:>8.4f} {m['recall@100']:>7.4f} {m['mrr@10']:>7.4f} "
            f"{m['p50_ms']:>8.1f} {m['p95_ms']:>8.1f} {m['empty']:>6}"
            + (f" {m['ndcg@10_n10']:>17.4f}" if "ndcg@10_n10" in m else "")
        )

    if "bm25" in result:
        row("-", result["bm25"])
    for spec, entry in result["embedders"].items():
        for m in entry["modes"].values():
            row(spec, m)
    for spec, entry in result["embedders"].items():
        e = entry["embed"]
        line = f"{spec}: embedded {e['chunks']} chunks in {e['seconds']}s ({e['chunks_per_s']} chunks/s)"
        if "hybrid_over_bm25" in entry:
            verdict = "MET" if entry["target_met"] else "MISSED"
            line += f"; hybrid/bm25 nDCG@10 = {entry['hybrid_over_bm25']} (target >= {TARGET_RATIO}: {verdict})"
        print(line)
    if "sweep" in result:
        rows = sorted(result["sweep"], key=lambda r: -r["ndcg@10"])
        target = result.get("sweep_target_ndcg@10")
        print()
        print(
            f"fusion sweep over the same candidate lists (top 200 per leg, -n 100); target nDCG@10 {target}; "
            "'rrf k=60 bm25 2.0 / <emb> 2.0 +bonus' is what --fast does"
        )
        shown = rows[:15] + [
            r for r in rows[15:] if "alone" in r["variant"] or r["variant"].startswith("rrf k=60 bm25 2.0 /")
        ]
        for r in shown:
            mark = " *" if target and r["ndcg@10"] >= target else ""
            print(f"  {r['ndcg@10']:.4f}  {r['recall@100']:.4f}  {r['variant']}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
