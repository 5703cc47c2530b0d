"""mpnet's encoder three ways, on real chunks: numpy fp32 (the reference), onnxruntime fp32, onnxruntime int8.

What the choice of ``gno.embed.mpnet``'s graph rests on. Chunks are read from the suite's cached
indexes (``bench/retrieval_suite.py`` homes under ``--cache``), ``--per-corpus`` evenly spaced
chunks from each of ``--corpora``, exactly as the indexer cut them. Each variant x thread count
runs in its own child process (so its peak resident memory is its own), configurations
interleaved within each of ``--rounds`` rounds, and reports:

* CPU seconds per 1,000 word pieces (``time.process_time`` of the child: all its threads, and not
  inflated when the job is paused or shares the CPU), and wall seconds per 1,000 pieces;
* peak RSS (MB) of the child;
* agreement with numpy fp32 at one thread: mean and minimum cosine of each chunk's vector.

The numpy encoder is ``tests/mpnet_reference.py`` (the arithmetic the graph is tested against).

Usage::

    nice python bench/mpnet_variants.py --cache /work/cache/<you> [--per-corpus 150] [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

VARIANTS = ("numpy", "fp32", "int8")


def read_chunks(index: Path, n: int) -> list[str]:
    """`n` evenly spaced chunk texts of one gno index (either chunk-storage layout)."""
    db = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "content_chunking" in tables:
        from gno.store.chunks import CHUNK_SOURCES, CHUNK_TEXT

        sql = f"SELECT {CHUNK_TEXT} FROM {CHUNK_SOURCES} ORDER BY c.mirror_hash, c.seq"
    else:
        sql = "SELECT text FROM content_chunks ORDER BY mirror_hash, seq"
    texts = [r[0] for r in db.execute(sql) if r[0] and r[0].strip()]
    db.close()
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def _numpy_embedder(model_dir: Path) -> Any:
    from safetensors.numpy import load_file

    from gno.embed.mpnet import HEADS, MpnetEmbedder
    from mpnet_reference import reference_forward

    class NumpyMpnet(MpnetEmbedder):
        """The embedder's tokenizing and batching around the numpy reference forward."""

        def _ensure_loaded(self) -> None:
            from tokenizers import Tokenizer

            if self._session is None:
                self._w = load_file(str(model_dir / "model.safetensors"))
                self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
                self._tok.no_padding()
                self._tok.enable_truncation(max_length=384)
                self._session = "numpy"

        def _forward(self, ids: Any, mask: Any) -> Any:
            assert self._w is not None
            return reference_forward(self._w, ids, mask, HEADS)

    return NumpyMpnet(model_dir=model_dir)


def worker(variant: str, threads: int, model_dir: Path, chunks_file: Path, out: Path) -> dict[str, float]:
    from gno.embed.mpnet import MpnetEmbedder

    texts = json.loads(chunks_file.read_text(encoding="utf-8"))
    if variant == "numpy":
        emb = _numpy_embedder(model_dir)
    else:
        emb = MpnetEmbedder(model_dir=model_dir, threads=threads, variant=variant)
    emb.load()
    emb.embed_documents(texts[:2])  # warm-up (and the graph built, if it was not cached)
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = np.concatenate([emb.embed_documents(texts[i : i + 16]) for i in range(0, len(texts), 16)])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    np.save(out, vectors)
    pieces = sum(len(e.ids) for e in emb._tok.encode_batch(texts))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu": cpu, "wall": wall, "pieces": pieces, "rssMb": rss}


def run_child(args: argparse.Namespace, variant: str, threads: int, chunks: Path, out: Path) -> dict[str, float]:
    env = dict(os.environ)
    for key in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[key] = str(threads)  # numpy's BLAS; onnxruntime takes `threads` itself
    cmd = [sys.executable, __file__, "--worker", f"{variant}:{threads}", "--model-dir", str(args.model_dir),
           "--chunks-file", str(chunks), "--out", str(out)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{variant}:{threads} failed: {proc.stderr.strip().splitlines()[-1:]}")
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, help="the suite's cache (homes <corpus>-home-*)")
    ap.add_argument("--corpora", default="dwarves,nfcorpus")
    ap.add_argument("--per-corpus", type=int, default=150)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--model-dir", type=Path, default=None, help="extracted model (default: gno's cache)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--chunks-file", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.model_dir is None:
        from gno.embed.mpnet import default_dir, extract_model

        args.model_dir = extract_model(default_dir())
    if args.worker:
        variant, threads = args.worker.split(":")
        print(json.dumps(worker(variant, int(threads), args.model_dir, args.chunks_file, args.out)))
        return 0
    if args.cache is None:
        ap.error("--cache is required")
    texts: list[str] = []
    for cname in args.corpora.split(","):
        index = next(iter(sorted(args.cache.glob(f"{cname}-home-*/data/index-default.sqlite"))), None)
        if index is None:
            ap.error(f"no cached {cname} index under {args.cache}")
        texts += read_chunks(index, args.per_corpus)
    threads = [int(t) for t in args.threads.split(",")]
    from gno.embed.mpnet import MpnetEmbedder

    for v in args.variants.split(","):  # graphs built before any timed child: first use is not measured
        if v != "numpy":
            MpnetEmbedder(model_dir=args.model_dir, variant=v).load()
    configs = [(v, t) for v in args.variants.split(",") for t in threads]
    results: dict[str, list[dict[str, float]]] = {f"{v}:{t}": [] for v, t in configs}
    with tempfile.TemporaryDirectory(prefix="mpnet-variants-") as work:
        chunks = Path(work) / "chunks.json"
        chunks.write_text(json.dumps(texts), encoding="utf-8")
        for r in range(args.rounds):
            for v, t in configs:
                res = run_child(args, v, t, chunks, Path(work) / f"{v}-{t}.npy")
                results[f"{v}:{t}"].append(res)
                print(f"round {r + 1}: {v} x{t}: {res['cpu'] / res['pieces'] * 1000:.2f} CPU s / 1k pieces",
                      file=sys.stderr, flush=True)  # fmt: skip
        ref_key = f"numpy:{threads[0]}" if f"numpy:{threads[0]}" in results else f"{configs[0][0]}:{configs[0][1]}"
        ref = np.load(Path(work) / f"{ref_key.replace(':', '-')}.npy")
        rows = []
        for key, runs in results.items():
            vec = np.load(Path(work) / f"{key.replace(':', '-')}.npy")
            cos = (vec * ref).sum(1)
            pieces = runs[0]["pieces"]
            rows.append({
                "variant": key.split(":")[0], "threads": int(key.split(":")[1]),
                "cpuSPer1k": statistics.median(x["cpu"] for x in runs) / pieces * 1000,
                "wallSPer1k": statistics.median(x["wall"] for x in runs) / pieces * 1000,
                "peakRssMb": max(x["rssMb"] for x in runs),
                "cosMean": float(cos.mean()), "cosMin": float(cos.min()),
            })  # fmt: skip
    pieces = results[next(iter(results))][0]["pieces"]
    print(f"{len(texts)} chunks ({args.corpora}), {pieces} word pieces; {args.rounds} interleaved round(s); "
          f"agreement against {ref_key}")  # fmt: skip
    head = ("variant", "threads", "CPU s/1k", "wall s/1k", "peak MB", "cos mean", "cos min")
    print("{:8} {:>7} {:>9} {:>9} {:>8} {:>9} {:>8}".format(*head))
    for row in rows:
        print(f"{row['variant']:8} {row['threads']:>7} {row['cpuSPer1k']:>9.2f} {row['wallSPer1k']:>9.2f} "
              f"{row['peakRssMb']:>8.0f} {row['cosMean']:>9.5f} {row['cosMin']:>8.5f}")  # fmt: skip
    print(f"machine load average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    if args.json:
        args.json.write_text(json.dumps({"chunks": len(texts), "pieces": pieces, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
