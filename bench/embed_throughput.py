"""Embedding throughput (and optionally quality) for each available embedder.

Reads markdown notes from ``<datasets>/dwarves-brain`` (never copied into the repo), builds

* ``--long`` chunks (default 512): paragraphs packed greedily per note up to 3,200 characters
  (~800 tokens; MiniLM truncates at 256 tokens), picked evenly over all chunks;
* ``--short`` paragraphs (default 256) of 300-700 characters (~500);
* ``--queries`` short queries (default 50) taken from note headings;

then prints passages/s for both sets and single-query latency p50/p95 for each embedder.

``--quality`` adds an in-domain retrieval check ("halves"): ``--quality-n`` paragraphs of at least
300 characters are split in the middle (at a word boundary); each first half must find its own
second half among all second halves.  Prints MRR and top-1, with a pure-Python BM25 baseline.

``--sweep`` measures what the defaults of ``gno embed`` are chosen on: each embedder × threads ×
batch size runs in a fresh child process (so its peak resident memory is its own) that embeds
``--sweep-chunks`` long chunks the way ``gno embed`` does, once with no load of ours ("idle") and
once while a busy-loop process holds a core ("loaded"; ``--sweep-conditions`` picks them); it prints
chunks/s and peak RSS (MB). ``--rounds`` repeats the grid, configurations interleaved within a
round, and reports the median.

``--gno-embed`` runs the real ``gno embed`` over the whole dwarves-brain vault in an isolated home
(index cached under ``--cache``) and reports its chunks/s and the peak RSS of that process.

Usage::

    python bench/embed_throughput.py [--embedders minilm,wordllama,fake] [--threads 2] [--quality]
    python bench/embed_throughput.py --sweep [--sweep-threads 1,2] [--sweep-batches 4,8,16,32]
        [--sweep-conditions idle] [--rounds 3]
    python bench/embed_throughput.py --gno-embed [--cache /work/cache/<you>/embed]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from gno.embed import Embedder, EmbedderUnavailable, load_embedder  # noqa: E402

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
LONG_MAX_CHARS = 3200
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_HEADING = re.compile(r"^#{1,4}\s+(.+?)\s*$", re.M)


def iter_notes(folder: Path) -> Iterator[tuple[Path, str]]:
    for path in sorted(folder.rglob("*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        yield path, _FRONT_MATTER.sub("", text, count=1)


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def pack_chunks(paras: Sequence[str], limit: int = LONG_MAX_CHARS) -> list[str]:
    chunks: list[str] = []
    current = ""
    for para in paras:
        while len(para) > limit:  # hard-split an oversized paragraph at a space
            cut = para.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            if current:
                chunks.append(current)
                current = ""
            chunks.append(para[:cut].strip())
            para = para[cut:].strip()
        if current and len(current) + 2 + len(para) > limit:
            chunks.append(current)
            current = ""
        current = f"{current}\n\n{para}" if current else para
    if current:
        chunks.append(current)
    return chunks


def evenly(items: Sequence[str], n: int) -> list[str]:
    if len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def build_corpus(folder: Path, n_long: int, n_short: int, n_queries: int) -> tuple[list[str], ...]:
    long_all: list[str] = []
    short_all: list[str] = []
    headings: list[str] = []
    halves_src: list[str] = []
    for _path, text in iter_notes(folder):
        paras = paragraphs(text)
        long_all.extend(c for c in pack_chunks(paras) if len(c) >= 200)
        short_all.extend(p for p in paras if 300 <= len(p) <= 700 and not p.startswith(("|", "```")))
        halves_src.extend(p for p in paras if len(p) >= 300 and not p.startswith(("|", "```")))
        headings.extend(h for h in _HEADING.findall(text) if 12 <= len(h) <= 80)
    queries = evenly(sorted(set(headings)), n_queries)
    return evenly(long_all, n_long), evenly(short_all, n_short), queries, halves_src


def split_half(text: str) -> tuple[str, str]:
    mid = len(text) // 2
    cut = text.rfind(" ", 0, mid)
    cut = cut if cut > 0 else mid
    return text[:cut].strip(), text[cut:].strip()


_TOKEN = re.compile(r"\w+")


def bm25_mrr(
    queries: Sequence[str], docs: Sequence[str], k1: float = 1.2, b: float = 0.75
) -> tuple[float, float]:
    doc_tokens = [Counter(_TOKEN.findall(d.lower())) for d in docs]
    lengths = [sum(c.values()) for c in doc_tokens]
    avg = sum(lengths) / len(lengths)
    df: Counter[str] = Counter()
    for counts in doc_tokens:
        df.update(counts.keys())
    n = len(docs)
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
    rr: list[float] = []
    for qi, query in enumerate(queries):
        terms = set(_TOKEN.findall(query.lower()))
        scores = np.zeros(n)
        for di, counts in enumerate(doc_tokens):
            s = 0.0
            for t in terms:
                tf = counts.get(t, 0)
                if tf:
                    s += idf[t] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[di] / avg))
            scores[di] = s
        rank = 1 + int((scores > scores[qi]).sum())
        rr.append(1.0 / rank)
    return float(np.mean(rr)), float(np.mean([r == 1.0 for r in rr]))


def dense_mrr(embedder: Embedder, queries: Sequence[str], docs: Sequence[str]) -> tuple[float, float]:
    q = np.stack([embedder.embed_query(t) for t in queries])
    d = embedder.embed_documents(docs)
    sims = q @ d.T
    correct = sims[np.arange(len(queries)), np.arange(len(queries))]
    ranks = 1 + (sims > correct[:, None]).sum(axis=1)
    return float(np.mean(1.0 / ranks)), float(np.mean(ranks == 1))


def measure(embedder: Embedder, texts: Sequence[str]) -> float:
    started = time.perf_counter()
    vectors = embedder.embed_documents(texts)
    elapsed = time.perf_counter() - started
    assert vectors.shape == (len(texts), embedder.dim)
    return len(texts) / elapsed


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _worker(spec: str, threads: int, batch: int, texts: Sequence[str]) -> dict[str, float]:
    """One configuration in this (fresh) process: chunks/s over `texts` and this process's peak RSS."""
    import resource

    embedder = load_embedder(spec, threads=threads, batch_size=batch, warm=True)
    embedder.embed_documents(list(texts[:batch]))  # warm-up
    started = time.perf_counter()
    for i in range(0, len(texts), batch):  # as `gno embed` feeds the model: one batch per call
        embedder.embed_documents(list(texts[i : i + batch]))
    elapsed = time.perf_counter() - started
    return {"chunksPerS": len(texts) / elapsed, "peakRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _busy() -> subprocess.Popen[bytes]:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.2)
    return busy


def _run_worker(
    args: argparse.Namespace, spec: str, threads: int, batch: int, n: int, cond: str
) -> dict[str, float] | str:
    """One configuration in a fresh child process (its peak RSS is its own); the error line if it failed."""
    busy = _busy() if cond == "loaded" else None
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--datasets", str(args.datasets), "--worker", f"{spec}:{threads}:{batch}:{n}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    if proc.returncode != 0:
        return str(proc.stderr.strip().splitlines()[-1:])
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def sweep(args: argparse.Namespace, long_texts: Sequence[str]) -> int:
    """Every configuration once per round, rounds outermost (interleaved), so a change in the machine's
    load during the run hits every embedder alike; chunks/s is the median over the rounds."""
    texts = evenly(long_texts, args.sweep_chunks)
    conds = [c for c in args.sweep_conditions.split(",") if c]
    configs = [
        (spec, int(t), int(b))
        for spec in [x.strip() for x in args.embedders.split(",") if x.strip()]
        for t in args.sweep_threads.split(",")
        for b in args.sweep_batches.split(",")
    ]
    print(f"sweep: {len(texts)} long chunks per run, one child process per configuration, "
          f"{args.rounds} interleaved round(s), conditions {', '.join(conds)}")  # fmt: skip
    got: dict[tuple[str, int, int, str], list[dict[str, float]]] = {}
    failed: dict[str, str] = {}
    for _ in range(args.rounds):
        for spec, threads, batch in configs:
            for cond in conds:
                if spec in failed:
                    continue
                r = _run_worker(args, spec, threads, batch, len(texts), cond)
                if isinstance(r, str):
                    failed[spec] = r
                else:
                    got.setdefault((spec, threads, batch, cond), []).append(r)
    print(f"{'embedder':<12}{'threads':>8}{'batch':>6}" + "".join(f"{c + ' c/s':>11}" for c in conds)
          + f"{'peak RSS MB':>12}")  # fmt: skip
    for spec, threads, batch in configs:
        if spec in failed:
            print(f"{spec:<12} unavailable: {failed[spec]}")
            continue
        runs = [got[(spec, threads, batch, c)] for c in conds]
        rates = "".join(f"{statistics.median(x['chunksPerS'] for x in rs):>11.1f}" for rs in runs)
        rss = max(x["peakRssMb"] for rs in runs for x in rs)
        print(f"{spec:<12}{threads:>8}{batch:>6}{rates}{rss:>12.0f}", flush=True)
    print(f"machine load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


def gno_embed(args: argparse.Namespace) -> int:
    """The real `gno embed` over dwarves-brain: chunks/s and the process's peak RSS."""
    import resource
    import shutil

    home = args.cache / f"home-{args.notes or 'all'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"), GNO_CACHE_DIR=str(home / "cache"))
    gno = str(Path(sys.executable).with_name("gno"))
    if not (home / "config" / "index.yml").exists():
        shutil.rmtree(home, ignore_errors=True)
        vault = args.datasets / "dwarves-brain"
        if not vault.is_dir():
            print(f"no dataset at {vault}: pass --datasets (the folder holding dwarves-brain)", file=sys.stderr)
            return 2
        if args.notes:  # the first N notes, copied next to the cached index (never into the repo)
            sub = home / "vault"
            for path in sorted(vault.rglob("*.md"))[: args.notes]:
                (sub / path.relative_to(vault)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, sub / path.relative_to(vault))
            vault = sub
        for cmd in (["init", str(vault), "--name", "dwarves"], ["update"]):
            subprocess.run([gno, *cmd], env=env, check=True, capture_output=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([gno, "embed", "--force", "--json"], env=env, capture_output=True, text=True, check=False)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return 2
    body = json.loads(proc.stdout)
    print(
        f"gno embed --force over dwarves-brain ({args.notes or 'all'} notes): "
        f"{body['embedded']} chunks with {body['model']}, "
        f"{body['chunksPerSecond']:.1f} chunks/s, peak RSS {peak / 1024:.0f} MB"
        + ("" if peak > before else " (an earlier child was larger: RSS figure is an upper bound)")
    )
    print(f"machine load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--embedders", default="minilm,wordllama,fake")
    parser.add_argument("--long", type=int, default=512)
    parser.add_argument("--short", type=int, default=256)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--threads", type=int, default=None, help="MiniLM intra-op threads")
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--quality", action="store_true", help="also run the 'halves' retrieval check")
    parser.add_argument("--quality-n", type=int, default=300)
    parser.add_argument("--sweep", action="store_true", help="threads x batch grid, idle and loaded")
    parser.add_argument("--sweep-threads", default="1,2")
    parser.add_argument("--sweep-batches", default="4,8,16,32")
    parser.add_argument("--sweep-chunks", type=int, default=96)
    parser.add_argument(
        "--sweep-conditions",
        default="idle,loaded",
        help="idle (no load of ours) and/or loaded (a busy loop holds a core)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="--sweep: interleaved rounds (median reported)")
    parser.add_argument("--gno-embed", action="store_true", help="peak RSS of the real `gno embed`")
    parser.add_argument("--notes", type=int, default=0, help="--gno-embed over the first N notes only")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "gno-bench-embed")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.gno_embed:
        return gno_embed(args)

    folder = args.datasets / "dwarves-brain"
    if not folder.is_dir():
        print(f"dataset folder not found: {folder}", file=sys.stderr)
        return 2
    long_texts, short_texts, queries, halves_src = build_corpus(folder, args.long, args.short, args.queries)
    if args.worker:
        spec, threads, batch, n = args.worker.rsplit(":", 3)
        print(json.dumps(_worker(spec, int(threads), int(batch), evenly(long_texts, int(n)))))
        return 0
    if args.sweep:
        return sweep(args, long_texts)
    print(
        f"corpus: {len(long_texts)} long chunks (mean {statistics.mean(map(len, long_texts)):.0f} chars, "
        f"max {max(map(len, long_texts))}), {len(short_texts)} paragraphs "
        f"(mean {statistics.mean(map(len, short_texts)):.0f} chars), {len(queries)} queries "
        f"(mean {statistics.mean(map(len, queries)):.0f} chars)"
    )
    halves: tuple[list[str], list[str]] | None = None
    if args.quality:
        pairs = [split_half(p) for p in evenly(halves_src, args.quality_n)]
        halves = ([a for a, _ in pairs], [b for _, b in pairs])
        mrr, top1 = bm25_mrr(*halves)
        print(f"quality baseline bm25 (python): halves n={len(pairs)} MRR {mrr:.3f} top-1 {top1:.3f}")

    header = (
        f"{'embedder':<22}{'dim':>5}{'load s':>8}{'long p/s':>10}{'short p/s':>11}"
        f"{'q p50 ms':>10}{'q p95 ms':>10}"
    )
    if halves:
        header += f"{'MRR':>7}{'top-1':>7}"
    rows = [header]
    for spec in [s.strip() for s in args.embedders.split(",") if s.strip()]:
        try:
            started = time.perf_counter()
            embedder = load_embedder(spec, threads=args.threads, batch_size=args.batch_size, warm=True)
            embedder.embed_documents(short_texts[:8])  # warm-up
            load_s = time.perf_counter() - started
        except EmbedderUnavailable as exc:
            rows.append(f"{spec:<22} unavailable: {exc.reason}")
            continue
        long_ps = measure(embedder, long_texts)
        short_ps = measure(embedder, short_texts)
        latencies = []
        for query in queries:
            t0 = time.perf_counter()
            embedder.embed_query(query)
            latencies.append((time.perf_counter() - t0) * 1000)
        row = (
            f"{embedder.model_id:<22}{embedder.dim:>5}{load_s:>8.2f}{long_ps:>10.1f}{short_ps:>11.1f}"
            f"{pct(latencies, 0.5):>10.2f}{pct(latencies, 0.95):>10.2f}"
        )
        if halves:
            mrr, top1 = dense_mrr(embedder, *halves)
            row += f"{mrr:>7.3f}{top1:>7.3f}"
        rows.append(row)
        print(rows[-1], flush=True)
    print()
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
