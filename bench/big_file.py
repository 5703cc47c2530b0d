"""Big files: what one 20 MB markdown note costs `gno search`, against the same vault without it.

Three gno homes over one copy of dwarves-brain (885 notes), built in one run:

* ``plain``: the vault;
* ``big``: the vault plus a second collection holding one ~20 MB note (an "export": the vault's own
  notes concatenated, so it matches nearly every query), its cap raised (``maxFileBytes: 64 MB``)
  so the note is indexed;
* ``capped``: the same two collections under the default cap: the note is skipped and `gno status`
  must name it (``FILE_TOO_LARGE``).

Then, interleaved plain/big for each of the judged queries of ``bench/queries/dwarves_brain.jsonl``:
``gno search --json Q`` as a whole process (what an agent pays), and ``Engine.search_page`` in
this process (thread CPU: what the search itself costs, apart from the machine's load). Printed:
medians and p95 of each, the ratio big/plain, how often the note was among the hits, and the index
size and sync time of each home. Target: whole-process median ratio <= 1.5.

The deep match: the note ends with a line holding a word no other note has (``DEEP_WORD``), ~20 MB
past the note's start. ``gno search --json DEEP_WORD`` in the ``big`` home, run `--queries` times
(interleaved with the rest), must show that line as the snippet at its own line number every time
(the snippet is read from the segment of the note that matches, never the whole note); its median
is printed against the plain home's median (ratio).

Usage::

    nice -n 10 python bench/big_file.py [--mb 20] [--queries 40] [--datasets ../shared/datasets] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))
from memory_recall import pct  # noqa: E402  (nearest-rank percentile)

DEFAULT_DATASETS = next(
    (p / "shared" / "datasets" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared" / "datasets").is_dir()),
    ROOT.parent / "shared" / "datasets",
)


#: the console script beside this interpreter (its cold start is what `gno search` costs an agent)
GNO = str(Path(sys.executable).with_name("gno"))


#: a word in the export's last line only
DEEP_WORD = "quixotrellis"
DEEP_LINE = f"Deep marker: the {DEEP_WORD} appears only here, at the very end of the export."


def make_export(vault: Path, out: Path, mb: int) -> int:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(vault.rglob("*.md"))]
    parts, size, i = ["# Vault export\n"], 0, 0
    while size < mb * 1024 * 1024:
        t = texts[i % len(texts)]
        parts.append(t)
        size += len(t.encode())
        i += 1
    parts.append(DEEP_LINE + "\n")
    out.write_text("\n\n".join(parts), encoding="utf-8")
    return out.stat().st_size


def home_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"), GNO_CACHE_DIR=str(home / "cache"))
    env.update(NO_COLOR="1", GNO_NO_DAEMON="1")
    return env


def build(home: Path, colls: list[tuple[str, Path, int | None]]) -> tuple[Any, float]:
    """An engine over `colls` (name, folder, maxFileBytes), synced once (its duration returned)."""
    from gno.config import build_settings
    from gno.engine import Engine

    (home / "config").mkdir(parents=True)
    lines = ['version: "1.0"', "collections:"]
    for name, path, cap in colls:
        lines += [f"  - name: {name}", f"    path: {json.dumps(str(path))}"]
        if cap is not None:
            lines.append(f"    maxFileBytes: {cap}")
    (home / "config" / "index.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    engine = Engine(build_settings(env=home_env(home)))
    t0 = time.perf_counter()
    engine.update()
    return engine, time.perf_counter() - t0


def cli_search(env: dict[str, str], q: str) -> tuple[float, list[dict[str, Any]]]:
    t0 = time.perf_counter()
    out = subprocess.run([GNO, "search", "--json", q], env=env, capture_output=True, check=True)
    secs = time.perf_counter() - t0
    hits: list[dict[str, Any]] = json.loads(out.stdout)["results"]
    return secs, hits


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--mb", type=int, default=20)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    src = args.datasets / "dwarves-brain"
    if not src.is_dir():
        ap.error(f"{src} is missing")
    queries = [json.loads(line)["query"] for line in (ROOT / "bench/queries/dwarves_brain.jsonl").open()]
    queries = queries[: args.queries]
    tmp = Path(tempfile.mkdtemp(prefix="gno-bench-bigfile-"))
    try:
        vault = tmp / "vault"
        shutil.copytree(src, vault, ignore=shutil.ignore_patterns(".*"))
        exports = tmp / "exports"
        exports.mkdir()
        size = make_export(vault, exports / "export.md", args.mb)
        plain, plain_s = build(tmp / "plain", [("vault", vault, None)])
        big, big_s = build(tmp / "big", [("vault", vault, None), ("exports", exports, 64 << 20)])
        capped, _ = build(tmp / "capped", [("vault", vault, None), ("exports", exports, None)])
        named = [(e.rel_path, e.code) for e in capped.status().ingest_errors]
        capped.close()
        indexed = [c.active for c in big.status().collections]

        cli: dict[str, list[float]] = {"plain": [], "big": []}
        cpu: dict[str, list[float]] = {"plain": [], "big": []}
        deep: list[float] = []
        deep_line = (exports / "export.md").read_text(encoding="utf-8").split("\n").index(DEEP_LINE) + 1
        deep_shown = 0
        in_hits = 0
        envs = {"plain": home_env(tmp / "plain"), "big": home_env(tmp / "big")}
        engines = {"plain": plain, "big": big}
        for name in engines:  # warm the page cache and the snapshot of each home
            cli_search(envs[name], "warm up")
        for i, q in enumerate(queries):
            order = ("plain", "big") if i % 2 == 0 else ("big", "plain")
            for name in order:
                secs, hits = cli_search(envs[name], q)
                cli[name].append(secs * 1000)
                if name == "big":
                    in_hits += any(h["uri"].endswith("/export.md") for h in hits)
                t0 = time.thread_time()
                engines[name].search_page(q)
                cpu[name].append((time.thread_time() - t0) * 1000)
            secs, hits = cli_search(envs["big"], DEEP_WORD)
            deep.append(secs * 1000)
            deep_shown += bool(hits) and DEEP_WORD in hits[0]["snippet"] and hits[0]["line"] == deep_line
        sizes = {n: e.store.size_bytes() for n, e in engines.items()}
        for e in engines.values():
            e.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def stats(d: dict[str, list[float]]) -> dict[str, float]:
        p50 = {n: statistics.median(v) for n, v in d.items()}
        return {
            "plain_p50_ms": round(p50["plain"], 2),
            "big_p50_ms": round(p50["big"], 2),
            "plain_p95_ms": round(pct(d["plain"], 95), 2),
            "big_p95_ms": round(pct(d["big"], 95), 2),
            "ratio_p50": round(p50["big"] / p50["plain"], 2),
        }

    res = {
        "note_bytes": size,
        "queries": len(queries),
        "export_in_hits": in_hits,
        "indexed_per_collection": indexed,
        "capped_status": named,
        "cli": stats(cli),
        "deep_match": {
            "line": deep_line,
            "shown": deep_shown,
            "p50_ms": round(statistics.median(deep), 2),
            "ratio_p50": round(statistics.median(deep) / statistics.median(cli["plain"]), 2),
        },
        "search_cpu": stats(cpu),
        "index_bytes": sizes,
        "sync_s": {"plain": round(plain_s, 1), "big": round(big_s, 1)},
    }
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(
        f"one {size / 1e6:.1f} MB note beside {indexed[0]} notes; {len(queries)} queries, "
        f"the note among the hits of {in_hits}"
    )
    print(f"default cap: gno status names {named}")
    for label, key in (("gno search --json (whole process)", "cli"), ("search_page (thread CPU)", "search_cpu")):
        s = res[key]
        assert isinstance(s, dict)
        print(
            f"{label}: plain p50 {s['plain_p50_ms']} / p95 {s['plain_p95_ms']} ms, with the note p50 {s['big_p50_ms']}"
            f" / p95 {s['big_p95_ms']} ms: {s['ratio_p50']}x"
        )
    d = res["deep_match"]
    assert isinstance(d, dict)
    print(
        f"deep match ({DEEP_WORD!r} on line {d['line']:,} only): snippet at that line in {d['shown']} of "
        f"{len(deep)} runs; gno search p50 {d['p50_ms']} ms: {d['ratio_p50']}x the plain vault's p50"
    )
    print(f"index bytes {sizes['plain']:,} -> {sizes['big']:,}; sync {plain_s:.1f} s -> {big_s:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
