"""Index speed on tldr-pages (all 38,404 markdown files): fresh index, re-index, resumability.

Unpacks ``<datasets>/tldr-pages/tldr-pages-all.tar.gz`` into a temp folder (or ``--corpus-dir``,
reused across runs; never the repo) and gives gno isolated homes (GNO_CONFIG_DIR / GNO_DATA_DIR /
GNO_CACHE_DIR). Figures, each with wall and CPU seconds (CPU is what a loaded shared machine
distorts least; the load average at the start is printed):

* fresh index: files/s of ``Engine.update()`` in a child process (peak RSS from
  ``RUSAGE_CHILDREN``) and the index size, by table (``dbstat``), after a WAL checkpoint;
* no-change re-index, one interleaved run of ``--rounds`` rounds, each round: a plain Python
  walk + stat of the tree (a process, and in-process), ``gno update`` (a process, and
  ``Engine.update()`` in-process) and, with ``--qmd``, ``qmd update`` on the same tree (its own
  home; built once, or reused with ``--qmd-home``). Ratios are of medians;
* ``kill -9`` at 60 %: a first ``gno update`` process is killed with SIGKILL once the index
  (watched from a read-only connection, as any reader) holds 60 % of the files; the figure is
  the share of documents kept, then the next ``update`` must end with the same documents (ids,
  docids) and the same search results as the uninterrupted index;
* re-index after touching 100 files (mtime only) and after rewriting 100 files;
* search latency p50/p95 in-process, the same queries with a collection filter (``-c tldr``) and
  with a tag filter as a ratio to the unfiltered p95, and cold ``gno search`` processes.

Targets: fresh >= 5,000 files/s (idle machine), no-change re-index <= 4 x the Python walk+stat and
<= 0.5 x qmd (whole processes), kill -9 at 60 % keeps >= 50 % and resumes to identical results,
in-process search p95 <= 10 ms, filtered search p95 <= 1.5 x unfiltered.

Usage::

    python bench/index_speed.py [--datasets PATH] [--corpus-dir DIR] [--rounds 5]
        [--qmd "bun /path/to/qmd.js"] [--qmd-home DIR] [--src PATH] [--json]

``--src`` runs the same measurements against another checkout's ``src`` (e.g. main before a
change) for before/after figures. ``--fresh-against OTHER/src --rounds 5`` measures only the fresh
index, this checkout and the other interleaved round by round, and prints the ratio of medians.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASETS = ROOT.parent / "shared" / "datasets"
TARBALL = Path("tldr-pages") / "tldr-pages-all.tar.gz"
COLLECTION = "tldr"

TARGETS = {
    "fresh_files_per_s": (">=", 5000.0),
    "reindex_vs_walk_ratio": ("<=", 4.0),
    "reindex_vs_qmd_ratio": ("<=", 0.5),
    "kill9_kept_percent": (">=", 50.0),
    "search_p95_ms": ("<=", 10.0),
    "search_collection_filter_p95_ratio": ("<=", 1.5),
    "search_tag_filter_p95_ratio": ("<=", 1.5),
}

_TITLE_RE = re.compile(r"^#\s+(.+?)\s*$", re.M)
_EXAMPLE_RE = re.compile(r"^-\s+(.+?):?\s*$", re.M)
_WORD_RE = re.compile(r"[^\W\d_][\w'-]*", re.U)
WALK_STAT = (
    "import os, sys\nn = 0\nfor d, _, fs in os.walk(sys.argv[1]):\n"
    "    for f in fs:\n        os.stat(os.path.join(d, f)); n += 1\nprint(n)\n"
)


def gno_env(home: Path, src: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "GNO_CONFIG_DIR": str(home / "config"),
        "GNO_DATA_DIR": str(home / "data"),
        "GNO_CACHE_DIR": str(home / "cache"),
        "NO_COLOR": "1",
        "PYTHONPATH": str(src),
    })
    for key in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
        env.pop(key, None)
    return env


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed_process(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one child process run to completion."""
    c0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if p.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return wall, cpu, p.stdout


def timed_call(fn: Callable[[], Any]) -> tuple[float, float]:
    c0, t0 = self_cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, self_cpu() - c0


# -- child process: the fresh index (so its peak RSS and CPU are its own) ------------------------
def child_sync(home: Path, corpus: Path) -> None:
    from gno.config import build_settings
    from gno.engine import Engine

    e = Engine(build_settings())
    e.init()
    e.collection_add(str(corpus), name=COLLECTION)
    t0, c0 = time.perf_counter(), self_cpu()
    res = e.update()
    secs, cpu = time.perf_counter() - t0, self_cpu() - c0
    c = res.collections[0]
    e.close()
    print(json.dumps({"seconds": secs, "cpu": cpu, "scanned": c.scanned, "added": c.added, "errors": c.errors}))


# -- corpus --------------------------------------------------------------------------------------
def unpack(datasets: Path, dest: Path) -> Path:
    tarball = datasets / TARBALL
    if not tarball.is_file():
        raise SystemExit(f"dataset not found: {tarball} (pass --datasets)")
    corpus = dest / "tldr"
    if not corpus.is_dir():
        tmp = dest / "tldr.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        with tarfile.open(tarball, "r:gz") as tf:
            tf.extractall(tmp, filter="data")
        tmp.rename(corpus)
    return corpus


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
            words = [w for w in _WORD_RE.findall(rng.choice(examples)) if len(w) > 2]
            if words:
                k = rng.randint(1, min(3, len(words)))
                i = rng.randrange(0, len(words) - k + 1)
                phrases.append(" ".join(words[i : i + k]))
    pool = [q for q in titles[: n // 2] + phrases[: n - n // 2] if parse_query(q).positives]
    rng.shuffle(pool)
    return pool


def index_size(db: Path) -> dict[str, Any]:
    """Bytes of the index after a checkpoint, and the largest tables/indexes (dbstat)."""
    conn = sqlite3.connect(str(db))
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables: dict[str, float] = {}
        try:
            for name, size in conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
                tables[str(name)] = round(int(size) / 1e6, 1)
        except sqlite3.OperationalError:  # SQLite built without dbstat
            pass
    finally:
        conn.close()
    total = sum(p.stat().st_size for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists())
    return {"bytes": total, "top_tables_mb": dict(list(tables.items())[:8])}


# -- kill -9 at 60 % -----------------------------------------------------------------------------
def active_docs(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    except sqlite3.OperationalError:
        return 0
    try:
        return int(conn.execute("SELECT COUNT(*) FROM documents WHERE active = 1").fetchone()[0])
    except sqlite3.OperationalError:  # schema not created yet
        return 0
    finally:
        conn.close()


def observable(settings: Any, queries: list[str]) -> dict[str, Any]:
    from gno.engine import Engine
    from gno.errors import GnoError

    e = Engine(settings)
    try:
        rows = sorted(tuple(r) for r in e.store.execute("SELECT id, rel_path, docid FROM documents WHERE active = 1"))
        hits: dict[str, Any] = {}
        for q in queries:
            try:
                hits[q] = [(h.uri, h.score) for h in e.search(q, limit=10).results]
            except GnoError as exc:
                hits[q] = str(exc.code)
        return {"rows": rows, "hits": hits}
    finally:
        e.close()


def kill9(
    work: Path, corpus: Path, src: Path, total: int, reference: dict[str, Any], queries: list[str]
) -> dict[str, Any]:
    from gno.config import build_settings

    home = work / "home-kill9"
    env = gno_env(home, src)
    timed_process([sys.executable, "-m", "gno", "init", str(corpus), "--name", COLLECTION], env)
    settings = build_settings(env=env)
    db = settings.db_path
    proc = subprocess.Popen([sys.executable, "-m", "gno", "update"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    killed_at = 0
    while proc.poll() is None:
        n = active_docs(db)
        if n >= 0.6 * total:
            proc.send_signal(signal.SIGKILL)
            killed_at = n
            break
        time.sleep(0.01)
    rc = proc.wait()
    kept = active_docs(db)
    wall, cpu, out = timed_process([sys.executable, "-m", "gno", "update", "--json"], env)
    resumed = json.loads(out)["collections"][0]
    after = observable(settings, queries)
    return {
        "killed": rc == -signal.SIGKILL,
        "observed_at_kill": killed_at,
        "kept": kept,
        "kept_percent": round(100 * kept / total, 1),
        "resume_s": round(wall, 2),
        "resume_added": resumed["added"],
        "resume_unchanged": resumed["unchanged"],
        "same_documents": after["rows"] == reference["rows"],
        "same_search_results": after["hits"] == reference["hits"],
    }


# -- the benchmark --------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    src = (args.src or ROOT / "src").resolve()
    sys.path.insert(0, str(src))
    from cold_start import ensure_compiled  # processes start as from a pip install: bytecode current

    work = Path(tempfile.mkdtemp(prefix="gno-bench-"))
    out: dict[str, Any] = {"src": str(src), "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}
    out["bytecode"] = ensure_compiled(src / "gno")
    try:
        corpus = unpack(args.datasets, args.corpus_dir or work)
        files = [p for p in corpus.rglob("*.md") if p.is_file()]
        out.update(files=len(files), corpus_bytes=sum(p.stat().st_size for p in files))
        home = work / "home"
        env = gno_env(home, src)
        os.environ.update(env)

        # 1. fresh index in a child process
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child-sync", str(home), str(corpus)],
            capture_output=True, text=True, env=env, check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"fresh index failed:\n{proc.stderr}")
        child = json.loads(proc.stdout.strip().splitlines()[-1])
        n_indexed = int(child["scanned"])  # dotfiles (e.g. the `..md` pages) are always skipped
        out.update(
            indexed_files=n_indexed,
            fresh_s=round(child["seconds"], 2),
            fresh_cpu_s=round(child["cpu"], 2),
            fresh_errors=child["errors"],
            fresh_files_per_s=round(n_indexed / child["seconds"], 1),
            fresh_files_per_cpu_s=round(n_indexed / child["cpu"], 1),
            peak_rss_mb=round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        )

        from gno.config import build_settings
        from gno.engine import Engine
        from gno.errors import GnoError

        settings = build_settings()
        size = index_size(settings.db_path)
        out.update(index_bytes=size["bytes"], index_tables_mb=size["top_tables_mb"])
        queries = derive_queries(corpus, args.queries, args.seed)
        reference = observable(settings, queries[:40])

        # 2. no-change re-index, interleaved: python walk+stat, gno, qmd (processes) and in-process
        qmd = shlex.split(args.qmd) if args.qmd else None
        qmd_env = None
        if qmd:
            qhome = (args.qmd_home or work / "qmd-home").resolve()
            qmd_env = dict(os.environ, HOME=str(qhome), XDG_CACHE_HOME=str(qhome / ".cache"),
                           XDG_CONFIG_HOME=str(qhome / ".config"))
            qhome.mkdir(parents=True, exist_ok=True)
            listed = subprocess.run([*qmd, "collection", "list"], env=qmd_env, capture_output=True, text=True)
            # qmd 2.x lists a collection by name (`tldr (qmd://tldr/)`), older ones by folder
            known = re.search(rf"^{COLLECTION} \(qmd://", listed.stdout, re.M) or str(corpus) in listed.stdout
            if not known:
                wall, cpu, _ = timed_process([*qmd, "collection", "add", str(corpus), "--name", COLLECTION], qmd_env)
                out.update(qmd_fresh_s=round(wall, 1), qmd_fresh_cpu_s=round(cpu, 1))
        engine = Engine(settings)
        gno_cmd = [sys.executable, "-m", "gno", "update"]
        walk_cmd = [sys.executable, "-c", WALK_STAT, str(corpus)]

        def walk_in_process() -> None:
            for d, _, fs in os.walk(corpus):
                for f in fs:
                    os.stat(os.path.join(d, f))

        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in ("walk", "gno", "qmd", "walk_in", "gno_in")}
        for _ in range(args.rounds):
            samples["walk"].append(timed_process(walk_cmd, env)[:2])
            samples["gno"].append(timed_process(gno_cmd, env)[:2])
            if qmd and qmd_env:
                samples["qmd"].append(timed_process([*qmd, "update"], qmd_env)[:2])
            samples["walk_in"].append(timed_call(walk_in_process))
            r = engine.update().collections[0]
            assert r.unchanged == r.scanned == n_indexed, r
            samples["gno_in"].append(timed_call(lambda: engine.update()))
        med = {
            k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items() if v
        }
        for k, (w, c) in med.items():
            out[f"reindex_{k}_s"] = round(w, 3)
            out[f"reindex_{k}_cpu_s"] = round(c, 3)
        out["reindex_vs_walk_ratio"] = round(med["gno"][0] / med["walk"][0], 2)
        out["reindex_vs_walk_cpu_ratio"] = round(med["gno"][1] / med["walk"][1], 2)
        out["reindex_in_process_vs_walk_ratio"] = round(med["gno_in"][0] / med["walk_in"][0], 2)
        if "qmd" in med:
            out["reindex_vs_qmd_ratio"] = round(med["gno"][0] / med["qmd"][0], 2)
            out["reindex_vs_qmd_cpu_ratio"] = round(med["gno"][1] / med["qmd"][1], 2)

        # 3. kill -9 at 60 % of a first index, then resume
        out["kill9"] = kill9(work, corpus, src, n_indexed, reference, queries[:40])
        out["kill9_kept_percent"] = out["kill9"]["kept_percent"]

        # 4. in-process search latency
        for q in queries[:20]:  # warm-up
            try:
                engine.search(q, limit=10)
            except GnoError:
                pass
        lat: list[float] = []
        for q in queries:
            t0 = time.perf_counter()
            try:
                engine.search(q, limit=10)
            except GnoError:
                pass
            lat.append((time.perf_counter() - t0) * 1000)
        out.update(search_queries=len(queries), search_p50_ms=round(percentile(lat, 50), 3),
                   search_p95_ms=round(percentile(lat, 95), 3))
        # the same queries with a collection filter and with a tag filter: filters must cost
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
        cold = [timed_process([sys.executable, "-m", "gno", "search", q, "-n", "5"], env)[0]
                for q in queries[: args.cold_runs]]
        out["cold_cli_search_median_s"] = round(statistics.median(cold), 3)

        # 5. touch 100 files (mtime only), then rewrite 100 (restored afterwards: --corpus-dir is reused)
        rng = random.Random(args.seed)
        picked = rng.sample(sorted(p for p in files if not p.name.startswith(".")), args.touch)
        saved = [(p, p.read_bytes(), p.stat()) for p in picked]
        try:
            later = time.time() + 10
            for p in picked:
                os.utime(p, (later, later))
            holder: dict[str, Any] = {}
            w, c = timed_call(lambda: holder.update(r=engine.update().collections[0]))
            assert (holder["r"].unchanged, holder["r"].updated) == (n_indexed, 0), holder["r"]
            out.update(touch_mtime_s=round(w, 3), touch_mtime_cpu_s=round(c, 3))
            for i, p in enumerate(picked):
                with p.open("a", encoding="utf-8") as fh:
                    fh.write(f"\n- Benchmark edit {i}:\n\n`bench-edit-{i}`\n")
            w, c = timed_call(lambda: holder.update(r=engine.update().collections[0]))
            assert holder["r"].updated == args.touch, holder["r"]
            out.update(touch_content_s=round(w, 3), touch_content_cpu_s=round(c, 3))
        finally:
            for p, data, st in saved:
                p.write_bytes(data)
                os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
        engine.close()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return out


def verdicts(r: dict[str, Any]) -> dict[str, bool]:
    out = {}
    for key, (op, target) in TARGETS.items():
        if key in r:
            v = float(r[key])
            out[key] = v >= target if op == ">=" else v <= target
    k = r.get("kill9", {})
    out["kill9_resumes_identically"] = bool(
        k.get("killed") and k.get("same_documents") and k.get("same_search_results")
    )
    return out


def print_table(r: dict[str, Any]) -> None:
    ok = verdicts(r)

    def mark(key: str) -> str:
        if key not in ok:
            return ""
        op, target = TARGETS.get(key, ("", 0.0))
        return (f"{op} {target:g}   " if op else "") + ("PASS" if ok[key] else "FAIL")

    k = r["kill9"]
    rows = [
        ("load average at start", " ".join(str(x) for x in r["load_average_at_start"]), ""),
        ("gno sources", f"{r['src']} ({r['bytecode']})", ""),
        ("corpus", f"{r['files']} .md files, {r['corpus_bytes'] / 1e6:.1f} MB; {r['indexed_files']} indexed", ""),
        ("fresh index", f"{r['fresh_files_per_s']:.0f} files/s ({r['fresh_s']:.1f} s wall; "
                        f"{r['fresh_files_per_cpu_s']:.0f} files/CPU-s)", mark("fresh_files_per_s")),
        ("index size", f"{r['index_bytes'] / 1e6:.1f} MB", ""),
        ("  largest parts (MB)", ", ".join(f"{n} {s}" for n, s in r["index_tables_mb"].items()), ""),
        ("peak RSS of the fresh index (MB)", f"{r['peak_rss_mb']:.0f}", ""),
        ("no-change re-index: python walk+stat",
         f"{r['reindex_walk_s']:.3f} s ({r['reindex_walk_cpu_s']:.3f} CPU)", ""),
        ("no-change re-index: gno update", f"{r['reindex_gno_s']:.3f} s ({r['reindex_gno_cpu_s']:.3f} CPU)", ""),
    ]
    if "reindex_qmd_s" in r:
        rows.append(("no-change re-index: qmd update",
                     f"{r['reindex_qmd_s']:.3f} s ({r['reindex_qmd_cpu_s']:.3f} CPU)", ""))
    rows += [
        ("  gno / walk (processes)", f"{r['reindex_vs_walk_ratio']:.2f} x (CPU {r['reindex_vs_walk_cpu_ratio']:.2f} x)",
         mark("reindex_vs_walk_ratio")),
        ("  gno / walk (in-process)", f"{r['reindex_in_process_vs_walk_ratio']:.2f} x "
                                      f"({r['reindex_gno_in_s']:.3f} s vs {r['reindex_walk_in_s']:.3f} s)", ""),
    ]
    if "reindex_vs_qmd_ratio" in r:
        rows.append(("  gno / qmd (processes)",
                     f"{r['reindex_vs_qmd_ratio']:.2f} x (CPU {r['reindex_vs_qmd_cpu_ratio']:.2f} x)",
                     mark("reindex_vs_qmd_ratio")))
    rows += [
        ("kill -9 at 60 %: documents kept", f"{k['kept']} of {r['indexed_files']} = {k['kept_percent']} %",
         mark("kill9_kept_percent")),
        ("  next update", f"{k['resume_added']} added, {k['resume_unchanged']} unchanged in {k['resume_s']} s; "
                          f"same documents {k['same_documents']}, same search results {k['same_search_results']}",
         mark("kill9_resumes_identically")),
        ("re-index, 100 files touched (mtime)", f"{r['touch_mtime_s']:.3f} s ({r['touch_mtime_cpu_s']:.3f} CPU)", ""),
        ("re-index, 100 files rewritten", f"{r['touch_content_s']:.3f} s ({r['touch_content_cpu_s']:.3f} CPU)", ""),
        (f"search p50 / p95 (ms, {r['search_queries']} queries)",
         f"{r['search_p50_ms']:.2f} / {r['search_p95_ms']:.2f}", mark("search_p95_ms")),
        ("search -c tldr p95 / unfiltered p95", f"{r['search_collection_filter_p95_ms']:.2f} ms = "
         f"{r['search_collection_filter_p95_ratio']:.2f} x", mark("search_collection_filter_p95_ratio")),
        ("search --tag p95 / unfiltered p95", f"{r['search_tag_filter_p95_ms']:.2f} ms = "
         f"{r['search_tag_filter_p95_ratio']:.2f} x", mark("search_tag_filter_p95_ratio")),
        ("cold `gno search` median (s)", f"{r['cold_cli_search_median_s']:.3f}", ""),
    ]
    w0 = max(len(a) for a, _, _ in rows)
    w1 = max(len(b) for _, b, _ in rows)
    print(f"{'metric':<{w0}}  {'value':<{w1}}  target")
    print(f"{'-' * w0}  {'-' * w1}  {'-' * 14}")
    for a, b, c in rows:
        print(f"{a:<{w0}}  {b:<{w1}}  {c}")


def fresh_against(args: argparse.Namespace) -> dict[str, Any]:
    """Fresh index of this checkout and of `--fresh-against`'s sources, interleaved round by round
    (the order alternates, each run a new home and a child process): medians and their ratio."""
    from cold_start import ensure_compiled

    srcs = {"this": (args.src or ROOT / "src").resolve(), "other": args.fresh_against.resolve()}
    work = Path(tempfile.mkdtemp(prefix="gno-bench-"))
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in srcs}
    try:
        for src in srcs.values():
            ensure_compiled(src / "gno")
        corpus = unpack(args.datasets, args.corpus_dir or work)
        for r in range(args.rounds):
            for name in list(srcs) if r % 2 == 0 else list(srcs)[::-1]:
                home = work / f"home-{name}-{r}"
                proc = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--child-sync", str(home), str(corpus)],
                    capture_output=True, text=True, env=gno_env(home, srcs[name]), check=False,
                )
                if proc.returncode != 0:
                    raise SystemExit(f"fresh index failed ({name}):\n{proc.stderr}")
                child = json.loads(proc.stdout.strip().splitlines()[-1])
                runs[name].append((child["seconds"], child["cpu"]))
                shutil.rmtree(home, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    return {
        "sources": {k: str(v) for k, v in srcs.items()},
        "rounds": args.rounds,
        "runs": runs,
        "median_wall_s": {k: round(v[0], 2) for k, v in med.items()},
        "median_cpu_s": {k: round(v[1], 2) for k, v in med.items()},
        "ratio_wall": round(med["this"][0] / med["other"][0], 3),
        "ratio_cpu": round(med["this"][1] / med["other"][1], 3),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child-sync"]:
        child_sync(Path(argv[1]), Path(argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS, help="folder holding tldr-pages/")
    ap.add_argument("--corpus-dir", type=Path, default=None, help="unpack the corpus here once and reuse it")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the no-change re-index")
    ap.add_argument("--qmd", default=None, help='command that runs qmd, e.g. "bun /x/@tobilu/qmd/dist/cli/qmd.js"')
    ap.add_argument("--qmd-home", type=Path, default=None, help="HOME for qmd (reuses its index between runs)")
    ap.add_argument("--src", type=Path, default=None, help="the gno sources to measure (default: this checkout)")
    ap.add_argument("--queries", type=int, default=300, help="in-process search queries")
    ap.add_argument("--touch", type=int, default=100, help="files touched / rewritten for the re-index runs")
    ap.add_argument("--cold-runs", type=int, default=10, help="`gno search` processes to spawn")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (indexes)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument(
        "--fresh-against", type=Path, default=None, metavar="SRC",
        help="only the fresh index, interleaved with another checkout's src for --rounds rounds (ratio of medians)",
    )
    args = ap.parse_args(argv)
    if args.fresh_against is not None:
        print(json.dumps(fresh_against(args), indent=2))
        return 0
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
