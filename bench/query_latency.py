"""`gno query` latency at 38k tldr pages, embedding throughput and resident memory (issue 5).

Unpacks ``<datasets>/tldr-pages/tldr-pages-all.tar.gz`` (38,404 pages, all languages; see that
folder's README.txt) into a temp folder (never into the repo), indexes it in-process with
``gno.engine.Engine`` in an isolated gno home (GNO_CONFIG_DIR / GNO_DATA_DIR / GNO_CACHE_DIR in
the temp folder), embeds every chunk with ``--embedder`` (default wordllama: MiniLM would take
~25 minutes here) and measures:

* embedding throughput (chunks/s): the configured embedder on every chunk (``Engine.embed``),
  and MiniLM on a ``--minilm-sample`` (500) chunk sample spread over the index (the texts
  ``gno embed`` would embed, batches of 32), unless the configured embedder is MiniLM already;
* in-process query latency p50/p95 over ``--queries`` (>= 200) queries, model warm (a few warm-up
  queries first), for ``--fast`` (BM25 + vectors → RRF) and the default depth (+ graph +
  re-scoring), at the default ``-n 10``; plus the bm25-only and vsearch legs alone, and the
  median stage timings of ``--explain`` for each depth (where the time goes);
* resident memory: VmRSS / VmHWM of this process (from /proc/self/status) once it holds the
  index's vector matrix and the configured model after the queries, before the MiniLM sample is
  loaded; then again after it.

Queries are derived deterministically (``--seed``) from the pages: a third page titles
(command names), a third whole English example descriptions ("Extract an archive to a specific
directory"), a third 1-3 word phrases of them.

Targets: ``--fast`` p95 <= 60 ms with the model warm; RSS <= 600 MB.

Usage::

    python bench/query_latency.py [--datasets DIR] [--embedder wordllama] [--queries 300]
                                  [--minilm-sample 500] [--seed 7] [--profile N] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
TARBALL = Path("tldr-pages") / "tldr-pages-all.tar.gz"
TARGETS = {"fast_p95_ms": 60.0, "rss_mb": 600.0}

_TITLE_RE = re.compile(r"^#\s+(.+?)\s*$", re.M)
_EXAMPLE_RE = re.compile(r"^-\s+(.+?):?\s*$", re.M)
_WORD_RE = re.compile(r"[^\W\d_][\w'-]*", re.U)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)] if s else float("nan")


def proc_status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return round(int(line.split()[1]) / 1024, 1)  # kB
    return float("nan")


def isolate(home: Path) -> None:
    os.environ["GNO_CONFIG_DIR"] = str(home / "config")
    os.environ["GNO_DATA_DIR"] = str(home / "data")
    os.environ["GNO_CACHE_DIR"] = str(home / "cache")
    for key in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
        os.environ.pop(key, None)


def unpack(datasets: Path, dest: Path) -> tuple[Path, int]:
    tarball = datasets / TARBALL
    if not tarball.is_file():
        raise SystemExit(f"dataset not found: {tarball} (pass --datasets)")
    corpus = dest / "tldr"
    corpus.mkdir(parents=True)
    with tarfile.open(tarball, "r:gz") as tf:
        tf.extractall(corpus, filter="data")
    return corpus, sum(1 for p in corpus.rglob("*.md") if p.is_file())


def derive_queries(corpus: Path, n: int, seed: int) -> list[str]:
    from gno.retrieve.grammar import parse_query

    rng = random.Random(seed)
    english = sorted((corpus / "pages").rglob("*.md"))
    titles: list[str] = []
    whole: list[str] = []
    phrases: list[str] = []
    for p in rng.sample(english, min(len(english), 3 * n)):
        text = p.read_text(encoding="utf-8", errors="replace")
        m = _TITLE_RE.search(text)
        if m:
            titles.append(m.group(1))
        examples = _EXAMPLE_RE.findall(text)
        if examples:
            ex = rng.choice(examples)
            whole.append(ex.strip().rstrip(":"))
            words = [w for w in _WORD_RE.findall(rng.choice(examples)) if len(w) > 2]
            if words:
                k = rng.randint(1, min(3, len(words)))
                i = rng.randrange(0, len(words) - k + 1)
                phrases.append(" ".join(words[i : i + k]))
    third = n // 3
    pool = titles[:third] + whole[:third] + phrases[: n - 2 * third]
    pool = [q for q in pool if parse_query(q).positives]
    rng.shuffle(pool)
    return pool


def set_embedder(engine: Any, spec: str) -> None:
    from gno.config import load_config, save_config

    cfg = load_config(engine.settings)
    cfg.models.embed = spec
    save_config(engine.settings, cfg)
    engine._config = None


def time_calls(fn: Any, queries: list[str]) -> dict[str, float]:
    lat = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        lat.append((time.perf_counter() - t) * 1000)
    return {
        "p50_ms": round(percentile(lat, 50), 2),
        "p95_ms": round(percentile(lat, 95), 2),
        "mean_ms": round(statistics.mean(lat), 2),
        "max_ms": round(max(lat), 2),
    }


def stage_medians(engine: Any, queries: list[str], **kw: Any) -> dict[str, float]:
    per: dict[str, list[float]] = {}
    for q in queries:
        x = engine.query(q, explain=True, **kw).explain
        for st in x.stages:
            per.setdefault(st.name, []).append(st.ms)
    return {k: round(statistics.median(v), 2) for k, v in per.items()}


def profile(engine: Any, queries: list[str]) -> None:
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for q in queries:
        engine.query(q, depth="fast")
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
    log(f"cProfile of {len(queries)} --fast queries (cumulative):\n{buf.getvalue()}")


def minilm_sample(engine: Any, n: int) -> dict[str, Any]:
    from gno.embed import load_embedder
    from gno.retrieve.semantic import document_text
    from gno.store.chunks import CHUNK_SOURCES, CHUNK_TEXT

    rows = engine.store.conn.execute(
        f"SELECT {CHUNK_TEXT}, (SELECT MIN(title) FROM documents d WHERE d.mirror_hash = c.mirror_hash "
        f"AND d.active = 1) FROM {CHUNK_SOURCES} ORDER BY c.mirror_hash, c.seq"
    ).fetchall()
    step = max(1, len(rows) // n)
    texts = [document_text(str(t or ""), str(x)) for x, t in rows[::step][:n]]
    emb = load_embedder("minilm", warm=True)
    emb.embed_documents(texts[:4])  # warm the session
    t0 = time.perf_counter()
    for i in range(0, len(texts), 32):
        emb.embed_documents(texts[i : i + 32])
    secs = time.perf_counter() - t0
    return {
        "model": emb.model_id,
        "chunks": len(texts),
        "mean_chars": round(statistics.mean(len(t) for t in texts), 1),
        "seconds": round(secs, 2),
        "chunks_per_s": round(len(texts) / secs, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--embedder", default="wordllama", help="models.embed for the index (default wordllama)")
    ap.add_argument("--queries", type=int, default=300, help="number of timed queries (>= 200)")
    ap.add_argument("--minilm-sample", type=int, default=500, help="chunks for the MiniLM throughput (0: skip)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--profile", type=int, default=0, help="cProfile N --fast queries; top functions on stderr")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args(argv)
    if args.queries < 200:
        ap.error("--queries must be at least 200")

    out: dict[str, Any] = {"embedder": args.embedder, "targets": TARGETS}
    with tempfile.TemporaryDirectory(prefix="gno-bench-latency-") as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        corpus, n_files = unpack(args.datasets, work)
        out["files"] = n_files
        log(f"unpacked {n_files} pages in {time.perf_counter() - t0:.1f}s")
        isolate(work / "home")
        from gno.config import build_settings
        from gno.engine import Engine

        engine = Engine(build_settings())
        engine.init()
        engine.collection_add(str(corpus), name="tldr")
        set_embedder(engine, args.embedder)
        t0 = time.perf_counter()
        engine.update()
        st = engine.status()
        out["index"] = {
            "seconds": round(time.perf_counter() - t0, 1),
            "documents": st.documents,
            "chunks": st.chunks,
        }
        log(f"indexed {st.documents} documents / {st.chunks} chunks in {out['index']['seconds']}s")

        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if now - last[0] >= 5 or done == total:
                last[0] = now
                log(f"  embed {args.embedder}: {done}/{total}")

        r = engine.embed(batch_size=args.batch_size, progress=progress)
        out["embed"] = {
            "model": r.model,
            "chunks": r.embedded,
            "seconds": round(r.duration_ms / 1000, 1),
            "chunks_per_s": r.chunks_per_second,
        }
        log(f"embedded {r.embedded} chunks with {r.model} at {r.chunks_per_second} chunks/s")

        queries = derive_queries(corpus, args.queries, args.seed)
        out["queries"] = len(queries)
        for q in queries[:5]:  # warm: model, vector matrix, SQLite pages
            engine.query(q)
            engine.query(q, depth="fast")
            engine.vsearch(q)
        lat = {
            "fast": time_calls(lambda q: engine.query(q, depth="fast"), queries),
            "default": time_calls(lambda q: engine.query(q), queries),
            "bm25_only": time_calls(lambda q: engine.query(q, depth="fast", lexical_only=True), queries),
            "vsearch": time_calls(lambda q: engine.vsearch(q), queries),
        }
        out["latency"] = lat
        out["stage_median_ms"] = {
            "fast": stage_medians(engine, queries, depth="fast"),
            "default": stage_medians(engine, queries),
        }
        out["memory"] = {"rss_mb": proc_status_mb("VmRSS"), "hwm_mb": proc_status_mb("VmHWM")}
        log(f"latency: {lat}")
        log(f"memory: {out['memory']}")
        if args.profile:
            profile(engine, queries[: args.profile])

        if args.minilm_sample and args.embedder.lower() not in ("minilm", "minilm-l6-v2-int8"):
            out["minilm_sample"] = minilm_sample(engine, args.minilm_sample)
            out["memory_with_minilm"] = {"rss_mb": proc_status_mb("VmRSS"), "hwm_mb": proc_status_mb("VmHWM")}
            log(f"minilm sample: {out['minilm_sample']}")
        engine.close()

    out["fast_p95_target_met"] = lat["fast"]["p95_ms"] <= TARGETS["fast_p95_ms"]
    out["rss_target_met"] = out["memory"]["rss_mb"] <= TARGETS["rss_mb"]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    ix, em = out["index"], out["embed"]
    print(
        f"tldr-pages: {out['files']} files → {ix['documents']} documents, {ix['chunks']} chunks "
        f"(sync {ix['seconds']}s); {out['queries']} queries, -n 10, model warm"
    )
    print(f"embed {em['model']}: {em['chunks']} chunks in {em['seconds']}s = {em['chunks_per_s']} chunks/s")
    if "minilm_sample" in out:
        m = out["minilm_sample"]
        print(
            f"embed {m['model']} (sample): {m['chunks']} chunks (mean {m['mean_chars']} chars) in "
            f"{m['seconds']}s = {m['chunks_per_s']} chunks/s"
        )
    print(f"{'mode':<10} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'max ms':>8}")
    for name, v in lat.items():
        print(f"{name:<10} {v['p50_ms']:>8.1f} {v['p95_ms']:>8.1f} {v['mean_ms']:>8.1f} {v['max_ms']:>8.1f}")
    for depth, stages in out["stage_median_ms"].items():
        print(f"stage medians ({depth}): " + ", ".join(f"{k} {v}" for k, v in stages.items()))
    mem = out["memory"]
    print(f"memory (index + {args.embedder}): VmRSS {mem['rss_mb']} MB, VmHWM {mem['hwm_mb']} MB")
    if "memory_with_minilm" in out:
        m2 = out["memory_with_minilm"]
        print(f"memory after also loading MiniLM: VmRSS {m2['rss_mb']} MB, VmHWM {m2['hwm_mb']} MB")
    print(
        f"targets: --fast p95 <= {TARGETS['fast_p95_ms']:.0f} ms: "
        f"{'MET' if out['fast_p95_target_met'] else 'MISSED'} ({lat['fast']['p95_ms']} ms); "
        f"RSS <= {TARGETS['rss_mb']:.0f} MB: {'MET' if out['rss_target_met'] else 'MISSED'} "
        f"({mem['rss_mb']} MB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
