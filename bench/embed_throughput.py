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

Usage::

    python bench/embed_throughput.py [--embedders minilm,wordllama,fake] [--threads 2] [--quality]
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
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
    args = parser.parse_args(argv)

    folder = args.datasets / "dwarves-brain"
    if not folder.is_dir():
        print(f"dataset folder not found: {folder}", file=sys.stderr)
        return 2
    long_texts, short_texts, queries, halves_src = build_corpus(folder, args.long, args.short, args.queries)
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
