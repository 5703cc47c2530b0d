"""The first pass: how soon a new vault is semantic, and `query`'s quality at every moment after.

**Time** (``--time``, whole processes, one run): a copy of a vault (default silverbullet-docs) in
two gno homes, both with ``models.embed: minilm``:

* ``minilm``: ``models.firstPass: none`` (what ``gno index`` did before the first pass): ``gno
  index --json`` until MiniLM has a vector for every chunk;
* ``staged``: the default: ``gno index --quick --json`` until every chunk has a (static) vector,
  then ``gno embed --json`` until MiniLM covers them too (and the static vectors are dropped).

Each step is timed and its peak RSS read from the process itself (``os.wait4``). Target: staged
``index --quick`` <= 0.1 x minilm's ``index``; MiniLM's peak <= 500 MB.

**Quality** (``--quality``, in-process): each corpus of ``bench/retrieval_suite.py`` named in
``--corpora``, indexed fresh with ``models.embed: minilm``, scored at three moments with the
suite's own metrics (nDCG@10 per split) for ``query`` and its BM25 leg:

1. ``first-pass``: right after ``embed(first_pass_only=True)``: static vectors for every chunk,
   no MiniLM vector (query-time MiniLM re-scores the top candidates);
2. ``partial``: MiniLM vectors for about ``--partial`` of the chunks (one bounded round);
3. ``done``: MiniLM everywhere (the static vectors retired): today's MiniLM ``query``.

Rule: ``query`` >= its BM25 leg at every moment; ``done`` equals the suite's MiniLM ``query``.

Usage::

    nice -n 10 python bench/first_pass.py --time [--vault DIR]
    nice -n 10 python bench/first_pass.py --quality --corpora dwarves [--partial 0.5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import retrieval_suite as suite  # noqa: E402  (corpora, metrics, isolated homes)

GNO = str(Path(sys.executable).with_name("gno"))


def home_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"), GNO_CACHE_DIR=str(home / "cache"))
    env.update(NO_COLOR="1", GNO_NO_DAEMON="1")
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, int, dict[str, Any]]:
    """(seconds, peak RSS MB, parsed JSON stdout) of one whole process."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        secs = time.perf_counter() - t0
        out.seek(0)
        body = out.read().decode()
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {body[-500:]}")
    return secs, usage.ru_maxrss // 1024, json.loads(body)


def run_time(vault_src: Path) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="gno-bench-firstpass-"))
    try:
        vault = tmp / "vault"
        shutil.copytree(vault_src, vault, ignore=shutil.ignore_patterns(".*"))
        homes = {}
        for name, extra in (("staged", ""), ("minilm", "  firstPass: none\n")):
            home = tmp / name
            env = home_env(home)
            subprocess.run([GNO, "init", str(vault), "--name", "v"], env=env, check=True, capture_output=True)
            cfg = home / "config" / "index.yml"
            cfg.write_text(cfg.read_text(encoding="utf-8") + "models:\n  embed: minilm\n" + extra, encoding="utf-8")
            homes[name] = env
        s_quick, rss_quick, quick = timed([GNO, "index", "--quick", "--json"], homes["staged"])
        m_index, rss_m, full = timed([GNO, "index", "--json"], homes["minilm"])
        s_rest, rss_rest, rest = timed([GNO, "embed", "--json"], homes["staged"])
        _, _, status = timed([GNO, "status", "--json"], homes["staged"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    v = status["vectors"]
    return {
        "chunks": full["embed"]["totalChunks"],
        "staged_quick_s": round(s_quick, 1),
        "staged_first_pass_chunks": quick["embed"]["firstPassEmbedded"],
        "minilm_index_s": round(m_index, 1),
        "ratio": round(s_quick / m_index, 3),
        "staged_rest_s": round(s_rest, 1),
        "minilm_chunks_per_s": full["embed"]["chunksPerSecond"],
        "peak_mb": {"staged_quick": rss_quick, "minilm_index": rss_m, "staged_embed": rss_rest},
        "after": {"embedded": v["embeddedChunks"], "first_pass": v["firstPassChunks"], "ranked_by": v["rankedBy"]},
    }


def score(engine: Any, fts: Any, corpus: Any) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for split in ("tune", "report"):
        qs = [q for q in corpus.queries if q.split == split]
        for mode in ("bm25", "query"):
            r = suite.run_mode(engine, fts, corpus, mode, qs)
            out.setdefault(split, {})[mode] = r["ndcg"]
            out[split][f"{mode}_ms"] = r["ms_per_query"]
    return out


def run_quality(
    corpora: list[str], datasets: Path, work: Path, partial: float, tldr_queries: int, moments: list[str]
) -> dict[str, Any]:
    makers = {
        "dwarves": lambda w: suite.corpus_dwarves(datasets, w),
        "nfcorpus": lambda w: suite.corpus_nfcorpus(datasets, w),
        "locomo": lambda w: suite.corpus_locomo(datasets, w),
        "tldr": lambda w: suite.corpus_tldr(datasets, w, tldr_queries),
    }
    results: dict[str, Any] = {}
    for name in corpora:
        cwork = work / name
        cwork.mkdir(parents=True, exist_ok=True)
        corpus = makers[name](cwork)
        engine = suite.open_home(corpus, cwork / "home")
        suite.set_embedder(engine, "minilm")
        suite.memo_query_vectors()
        fts = suite.PlainFts(corpus)
        row: dict[str, Any] = results.setdefault(name, {})
        t0 = time.perf_counter()
        r = engine.embed(batch_size=16, first_pass_only=True)
        row["first_pass_s"] = round(time.perf_counter() - t0, 1)
        st = engine.semantic.status()
        suite.log(f"  {name}: first pass {r.first_pass_embedded} chunks in {row['first_pass_s']} s; {st.ranked_by}")
        if "first-pass" in moments:
            row["first-pass"] = score(engine, fts, corpus)
            suite.log(f"  {name} first-pass: {json.dumps(row['first-pass'])}")
        if "partial" in moments:
            engine.embed(batch_size=16, max_chunks=max(1, int(st.total_chunks * partial)))
            st = engine.semantic.status()
            row["partial_chunks"] = f"{st.embedded_chunks}/{st.total_chunks}"
            row["partial"] = score(engine, fts, corpus)
            suite.log(f"  {name} partial ({row['partial_chunks']} MiniLM): {json.dumps(row['partial'])}")
        if "done" in moments:
            t0 = time.perf_counter()
            engine.embed(batch_size=16)
            row["minilm_rest_s"] = round(time.perf_counter() - t0, 1)
            st = engine.semantic.status()
            row["done_state"] = {"embedded": st.embedded_chunks, "first_pass": st.first_pass_chunks, "by": st.ranked_by}
            row["done"] = score(engine, fts, corpus)
            suite.log(f"  {name} done: {json.dumps(row['done'])}")
        engine.close()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--quality", action="store_true")
    ap.add_argument("--vault", type=Path, default=suite.DEFAULT_DATASETS / "silverbullet-docs")
    ap.add_argument("--datasets", type=Path, default=suite.DEFAULT_DATASETS)
    ap.add_argument("--corpora", default="dwarves")
    ap.add_argument("--partial", type=float, default=0.5, help="share of the chunks MiniLM embeds for `partial`")
    ap.add_argument("--moments", default="first-pass,partial,done")
    ap.add_argument("--tldr-queries", type=int, default=400)
    ap.add_argument("--work", type=Path, default=None, help="where the quality homes go (default: a temp dir)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    out: dict[str, Any] = {}
    if args.time:
        out["time"] = run_time(args.vault)
        print(json.dumps(out["time"], indent=1))
    if args.quality:
        work = args.work or Path(tempfile.mkdtemp(prefix="gno-bench-firstpass-q-"))
        moments = args.moments.split(",")
        corpora = args.corpora.split(",")
        out["quality"] = run_quality(corpora, args.datasets, work, args.partial, args.tldr_queries, moments)
        print("| corpus | moment | split | bm25 leg | query | query >= bm25 |")
        print("| --- | --- | --- | ---: | ---: | --- |")
        for name, row in out["quality"].items():
            for moment in (m for m in ("first-pass", "partial", "done") if m in row):
                for split in ("tune", "report"):
                    f = row[moment][split]
                    ok = f["query"] >= f["bm25"]
                    print(f"| {name} | {moment} | {split} | {f['bm25']:.3f} | {f['query']:.3f} | {ok} |")
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
