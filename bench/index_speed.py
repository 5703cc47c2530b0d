"""Index speed on tldr-pages (all 38,404 markdown files), against the issue's targets.

Unpacks ``<datasets>/tldr-pages/tldr-pages-all.tar.gz`` into a temp folder (never into the repo),
creates an isolated gno home (GNO_CONFIG_DIR / GNO_DATA_DIR / GNO_CACHE_DIR in the temp folder)
and measures, in-process through ``gno.engine.Engine`` unless noted:

* full sync: files/s and index size (the sync runs in a child process, so its peak RSS can be
  read from ``getrusage(RUSAGE_CHILDREN).ru_maxrss``);
* re-sync with nothing changed (seconds);
* re-sync after touching 100 files: ``os.utime`` only (same bytes), and rewriting 100 files
  with changed content;
* search latency p50/p95 over >= 200 queries derived from the corpus (page titles and 1-3 word
  phrases from the example descriptions; deterministic with ``--seed``), then the same queries
  with a collection filter (``-c tldr``) and with a tag filter, as a ratio to the unfiltered p95;
* cold ``gno search`` process time: the real ``gno`` executable spawned ``--cold-runs`` times.

Targets: >= 600 files/s full sync, unchanged re-sync <= 3 s, in-process search p95 <= 10 ms,
cold CLI search <= 0.25 s, peak RSS of the sync <= 400 MB, filtered search p95 <= 1.5 x unfiltered.

Usage::

    python bench/index_speed.py [--datasets PATH] [--queries 300] [--seed 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
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
COLLECTION = "tldr"

TARGETS = {
    "full_sync_files_per_s": (">=", 600.0),
    "unchanged_resync_s": ("<=", 3.0),
    "search_p95_ms": ("<=", 10.0),
    "cold_cli_search_median_s": ("<=", 0.25),
    "peak_rss_mb": ("<=", 400.0),
    "search_collection_filter_p95_ratio": ("<=", 1.5),
    "search_tag_filter_p95_ratio": ("<=", 1.5),
}

_TITLE_RE = re.compile(r"^#\s+(.+?)\s*$", re.M)
_EXAMPLE_RE = re.compile(r"^-\s+(.+?):?\s*$", re.M)
_WORD_RE = re.compile(r"[^\W\d_][\w'-]*", re.U)


def gno_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "GNO_CONFIG_DIR": str(home / "config"),
        "GNO_DATA_DIR": str(home / "data"),
        "GNO_CACHE_DIR": str(home / "cache"),
        "NO_COLOR": "1",
    })
    for key in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
        env.pop(key, None)
    return env


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


# -- child process: the full sync (so its peak RSS is measurable) -----------------------------
def child_sync(home: Path, corpus: Path) -> None:
    os.environ.update(gno_env(home))
    from gno.config import build_settings
    from gno.engine import Engine

    e = Engine(build_settings())
    e.init()
    e.collection_add(str(corpus), name=COLLECTION)
    t0 = time.perf_counter()
    res = e.update()
    secs = time.perf_counter() - t0
    c = res.collections[0]
    e.close()
    print(json.dumps({"seconds": secs, "scanned": c.scanned, "added": c.added, "errors": c.errors,
                      "error_paths": c.error_paths[:20]}))


# -- corpus --------------------------------------------------------------------------------------
def unpack(datasets: Path, dest: Path) -> tuple[Path, int, int]:
    tarball = datasets / TARBALL
    if not tarball.is_file():
        raise SystemExit(f"dataset not found: {tarball} (pass --datasets)")
    corpus = dest / "tldr"
    corpus.mkdir(parents=True)
    with tarfile.open(tarball, "r:gz") as tf:
        tf.extractall(corpus, filter="data")
    files = [p for p in corpus.rglob("*.md") if p.is_file()]
    return corpus, len(files), sum(p.stat().st_size for p in files)


def derive_queries(corpus: Path, n: int, seed: int) -> list[str]:
    """Titles and 1-3 word phrases from example descriptions, deterministic for a seed."""
    from gno.retrieve.grammar import parse_query

    rng = random.Random(seed)
    files = sorted(corpus.rglob("*.md"))
    titles: list[str] = []
    phrases: list[str] = []
    for p in rng.sample(files, min(len(files), 4 * n)):
        text = p.read_text(encoding="utf-8", errors="replace")
        m = _TITLE_RE.search(text)
        if m:
            titles.append(m.group(1))
        examples = _EXAMPLE_RE.findall(text)
        if examples:
            words = _WORD_RE.findall(rng.choice(examples))
            words = [w for w in words if len(w) > 2]
            if words:
                k = rng.randint(1, min(3, len(words)))
                i = rng.randrange(0, len(words) - k + 1)
                phrases.append(" ".join(words[i : i + k]))
    pool = [q for q in titles[: n // 2] + phrases[: n - n // 2] if parse_query(q).positives]
    rng.shuffle(pool)
    return pool


# -- the benchmark --------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="gno-bench-"))
    out: dict[str, Any] = {"workdir": str(work)}
    try:
        t0 = time.perf_counter()
        corpus, n_files, n_bytes = unpack(args.datasets, work)
        out.update(files=n_files, corpus_bytes=n_bytes, unpack_s=round(time.perf_counter() - t0, 2))
        home = work / "home"
        env = gno_env(home)

        # 1. full sync in a child process (peak RSS from RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child-sync", str(home), str(corpus)],
            capture_output=True, text=True, env=env, check=False,
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"full sync failed:\n{proc.stderr}")
        child = json.loads(proc.stdout.strip().splitlines()[-1])
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
        n_indexed = int(child["scanned"])  # dotfiles (e.g. the `..md` pages) are always skipped
        out.update(
            full_sync_s=round(child["seconds"], 2),
            full_sync_wall_s=round(wall, 2),
            full_sync_files=child["scanned"],
            full_sync_added=child["added"],
            full_sync_errors=child["errors"],
            full_sync_files_per_s=round(child["scanned"] / child["seconds"], 1),
            peak_rss_mb=round(peak_kb / 1024, 1),
        )

        os.environ.update(env)
        from gno.config import build_settings
        from gno.engine import Engine
        from gno.errors import GnoError

        settings = build_settings()
        db = settings.db_path
        out["index_bytes"] = sum(
            p.stat().st_size for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()
        )
        engine = Engine(settings)

        # 2. re-sync with nothing changed
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            r = engine.update().collections[0]
            times.append(time.perf_counter() - t0)
            assert r.unchanged == r.scanned == n_indexed, r
        out["unchanged_resync_s"] = round(times[0], 3)
        out["unchanged_resync_median_s"] = round(statistics.median(times), 3)

        # 3. touch 100 files: mtime only, then changed content
        rng = random.Random(args.seed)
        pool = sorted(p for p in corpus.rglob("*.md") if not p.name.startswith("."))
        picked = rng.sample(pool, args.touch)
        later = time.time() + 10
        for p in picked:
            os.utime(p, (later, later))
        t0 = time.perf_counter()
        r = engine.update().collections[0]
        out["touch_mtime_resync_s"] = round(time.perf_counter() - t0, 3)
        assert (r.unchanged, r.updated) == (n_indexed, 0), r
        for i, p in enumerate(picked):
            with p.open("a", encoding="utf-8") as fh:
                fh.write(f"\n- Benchmark edit {i}:\n\n`bench-edit-{i}`\n")
        t0 = time.perf_counter()
        r = engine.update().collections[0]
        out["touch_content_resync_s"] = round(time.perf_counter() - t0, 3)
        assert r.updated == args.touch, r

        # 4. in-process search latency
        queries = derive_queries(corpus, args.queries, args.seed)
        for q in queries[:20]:  # warm-up
            try:
                engine.search(q, limit=10)
            except GnoError:
                pass
        lat: list[float] = []
        hits = 0
        invalid = 0
        for q in queries:
            t0 = time.perf_counter()
            try:
                res = engine.search(q, limit=10)
                hits += bool(res.results)
            except GnoError:
                invalid += 1
            lat.append((time.perf_counter() - t0) * 1000)
        out.update(
            search_queries=len(queries),
            search_with_hits=hits,
            search_invalid=invalid,
            search_p50_ms=round(percentile(lat, 50), 3),
            search_p95_ms=round(percentile(lat, 95), 3),
            search_max_ms=round(max(lat), 3),
        )
        # 4b. the same queries with a collection filter and with a tag filter: filters must cost
        # nothing (the planner once probed the FTS index per document: 3-83 s for common words)
        for name, kw in (("collection", {"collection": COLLECTION}), ("tag", {"tags_any": ["linux"]})):
            flat: list[float] = []
            for q in queries:
                t0 = time.perf_counter()
                try:
                    engine.search(q, limit=10, **kw)  # type: ignore[arg-type]
                except GnoError:
                    pass
                flat.append((time.perf_counter() - t0) * 1000)
            out[f"search_{name}_filter_p50_ms"] = round(percentile(flat, 50), 3)
            out[f"search_{name}_filter_p95_ms"] = round(percentile(flat, 95), 3)
            out[f"search_{name}_filter_p95_ratio"] = round(percentile(flat, 95) / max(1e-9, out["search_p95_ms"]), 2)
        engine.close()

        # 5. cold CLI search: the real executable, one process per query
        exe = Path(sys.executable).parent / "gno"
        cold: list[float] = []
        for q in queries[: args.cold_runs]:
            t0 = time.perf_counter()
            p = subprocess.run(
                [str(exe), "search", q, "-n", "5"], capture_output=True, text=True, env=env, check=False
            )
            cold.append(time.perf_counter() - t0)
            if p.returncode not in (0, 1):
                raise SystemExit(f"gno search {q!r} failed ({p.returncode}):\n{p.stderr}")
        out.update(
            cold_cli_runs=len(cold),
            cold_cli_search_median_s=round(statistics.median(cold), 3),
            cold_cli_search_p95_s=round(percentile(cold, 95), 3),
        )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return out


def verdicts(r: dict[str, Any]) -> dict[str, bool]:
    out = {}
    for key, (op, target) in TARGETS.items():
        v = float(r[key])
        out[key] = v >= target if op == ">=" else v <= target
    return out


def print_table(r: dict[str, Any]) -> None:
    ok = verdicts(r)

    def mark(key: str) -> str:
        op, target = TARGETS[key]
        return f"{op} {target:g}   {'PASS' if ok[key] else 'FAIL'}"

    rows = [
        ("corpus", f"{r['files']} .md files, {r['corpus_bytes'] / 1e6:.1f} MB; {r['full_sync_files']} indexed "
                   "(dotfiles skipped)", ""),
        ("full sync", f"{r['full_sync_files_per_s']:.0f} files/s ({r['full_sync_s']:.1f} s, "
                      f"{r['full_sync_errors']} errors)", mark("full_sync_files_per_s")),
        ("index size", f"{r['index_bytes'] / 1e6:.1f} MB", ""),
        ("peak RSS of full sync (MB)", f"{r['peak_rss_mb']:.0f}", mark("peak_rss_mb")),
        ("unchanged re-sync (s)", f"{r['unchanged_resync_s']:.3f} (median of 3: "
                                  f"{r['unchanged_resync_median_s']:.3f})", mark("unchanged_resync_s")),
        ("re-sync, 100 files touched (mtime) (s)", f"{r['touch_mtime_resync_s']:.3f}", ""),
        ("re-sync, 100 files rewritten (s)", f"{r['touch_content_resync_s']:.3f}", ""),
        (f"search p50 (ms, {r['search_queries']} queries)", f"{r['search_p50_ms']:.2f}", ""),
        ("search p95 (ms)", f"{r['search_p95_ms']:.2f} (max {r['search_max_ms']:.1f})", mark("search_p95_ms")),
        ("search -c tldr p95 / unfiltered p95", f"{r['search_collection_filter_p95_ms']:.2f} ms = "
         f"{r['search_collection_filter_p95_ratio']:.2f} x", mark("search_collection_filter_p95_ratio")),
        ("search --tag p95 / unfiltered p95", f"{r['search_tag_filter_p95_ms']:.2f} ms = "
         f"{r['search_tag_filter_p95_ratio']:.2f} x", mark("search_tag_filter_p95_ratio")),
        (f"cold `gno search` median (s, {r['cold_cli_runs']} runs)", f"{r['cold_cli_search_median_s']:.3f}",
         mark("cold_cli_search_median_s")),
        ("cold `gno search` p95 (s)", f"{r['cold_cli_search_p95_s']:.3f}", ""),
    ]
    w0 = max(len(a) for a, _, _ in rows)
    w1 = max(len(b) for _, b, _ in rows)
    print(f"{'metric':<{w0}}  {'value':<{w1}}  target")
    print(f"{'-' * w0}  {'-' * w1}  {'-' * 14}")
    for a, b, c in rows:
        print(f"{a:<{w0}}  {b:<{w1}}  {c}")
    print(f"\nqueries with hits: {r['search_with_hits']}/{r['search_queries']} "
          f"(invalid: {r['search_invalid']}); unpack {r['unpack_s']} s; full sync wall incl. process start "
          f"{r['full_sync_wall_s']} s")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child-sync"]:
        child_sync(Path(argv[1]), Path(argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS, help="folder holding tldr-pages/")
    ap.add_argument("--queries", type=int, default=300, help="in-process search queries (>= 200)")
    ap.add_argument("--touch", type=int, default=100, help="files touched / rewritten for the re-sync runs")
    ap.add_argument("--cold-runs", type=int, default=10, help="`gno search` processes to spawn")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (corpus and index)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.queries < 200:
        ap.error("--queries must be at least 200")
    result = run(args)
    result["targets"] = {k: f"{op} {t:g}" for k, (op, t) in TARGETS.items()}
    result["pass"] = verdicts(result)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
