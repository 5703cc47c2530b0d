"""Context Capsule build benchmark (issue 6, rung 4) on the dwarves-brain vault.

Indexes ``<datasets>/dwarves-brain`` (885 real Obsidian notes, see its README.txt) in place into a
temporary gno home (GNO_CONFIG_DIR / GNO_DATA_DIR / GNO_CACHE_DIR in a temp folder; the vault is
only read), lexically by default or with ``--embed wordllama`` (any embedder spec works; the
vectors are computed once before timing). Goals are derived deterministically from the notes:
every note title with at least two content words, de-duplicated, sorted, then ``--goals`` of them
taken at an even stride (titles are the kind of "evidence for one goal" a user asks for).

For every budget of ``--budgets`` (default 2000 and 12000 tokens) each goal is compiled once with
``engine.context_build(CapsuleRequest(goal, budget))`` after one untimed warm-up build, and the
benchmark reports:

* build time p50 / p95 / max (ms, in-process, wall clock of the call);
* evidence items per Capsule (mean, min, max), Capsules that found no evidence (NOT_FOUND);
* used tokens and used bytes vs the budget (mean and max of usedTokens/requestedTokens and
  usedBytes/requestedBytes), measured independently on ``canonical_json(cap.dump())``;
* integrity counters that must stay 0: Capsules whose canonical bytes or tokens exceed the
  request (``over``), and whose usedBytes/usedTokens differ from the measured values (``used!=``).

Usage::

    python bench/capsule.py [--datasets DIR] [--embed wordllama] [--goals 40]
                            [--budgets 2000,12000] [--json]
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
STOP = frozenset(
    "a an and are as at be by for from how in is it of on or the to what with vs your our we you i".split()
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)] if s else float("nan")


def derive_goals(titles: list[str], n: int) -> list[str]:
    """Titles with ≥ 2 content words, de-duplicated (case-insensitive), sorted, n at an even stride."""
    seen: dict[str, str] = {}
    for t in titles:
        t = re.sub(r"\s+", " ", t).strip()
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9+#.-]*", t) if w.lower() not in STOP]
        if len(words) < 2 or t.startswith(("_", "§", "{{")):
            continue
        seen.setdefault(t.lower(), t)
    pool = [seen[k] for k in sorted(seen)]
    if len(pool) <= n:
        return pool
    stride = len(pool) / n
    return [pool[int(i * stride)] for i in range(n)]


def setup(vault: Path, home: Path, embed: str | None) -> Any:
    os.environ["GNO_CONFIG_DIR"] = str(home / "config")
    os.environ["GNO_DATA_DIR"] = str(home / "data")
    os.environ["GNO_CACHE_DIR"] = str(home / "cache")
    from gno.config import build_settings, load_config, save_config
    from gno.engine import Engine

    engine = Engine(build_settings())
    engine.init()
    engine.collection_add(str(vault), name="brain")
    if embed:
        cfg = load_config(engine.settings)
        cfg.models.embed = embed
        save_config(engine.settings, cfg)
        engine._config = None
    t0 = time.perf_counter()
    res = engine.update()
    log(f"indexed {sum(c.added for c in res.collections)} notes in {time.perf_counter() - t0:.1f}s")
    if embed:
        t0 = time.perf_counter()
        engine.embed()
        log(f"embedded with {embed} in {time.perf_counter() - t0:.1f}s")
    return engine


def run_budget(engine: Any, goals: list[str], budget: int) -> dict[str, Any]:
    from gno.errors import GnoError
    from gno.evidence.canonical import ByteCounter, canonical_json, token_counter
    from gno.evidence.capsule import CapsuleRequest

    times: list[float] = []
    evidence: list[int] = []
    tok_ratio: list[float] = []
    byte_ratio: list[float] = []
    used_tokens: list[int] = []
    used_bytes: list[int] = []
    not_found, errors, over, mismatch, gaps, truncated = 0, 0, 0, 0, 0, 0
    over_examples: list[dict[str, Any]] = []
    for i, goal in enumerate(goals, 1):
        t0 = time.perf_counter()
        try:
            cap = engine.context_build(CapsuleRequest(goal=goal, budget_tokens=budget))
        except GnoError as err:
            times.append((time.perf_counter() - t0) * 1000)
            if str(err.code) == "NOT_FOUND":
                not_found += 1
            else:
                errors += 1
            continue
        times.append((time.perf_counter() - t0) * 1000)
        dump = cap.dump()
        text = canonical_json(dump)
        counter = token_counter() if dump["budget"]["estimator"] == "active_tokenizer" else ByteCounter()
        nbytes, ntokens = len(text.encode("utf-8")), counter.count(text)
        b = dump["budget"]
        if nbytes > b["requestedBytes"] or ntokens > b["requestedTokens"]:
            over += 1
            over_examples.append({"goal": goal, "tokens": ntokens, "bytes": nbytes})
        if (b["usedBytes"], b["usedTokens"]) != (nbytes, ntokens):
            mismatch += 1
        evidence.append(len(cap.evidence))
        used_tokens.append(ntokens)
        used_bytes.append(nbytes)
        tok_ratio.append(ntokens / b["requestedTokens"])
        byte_ratio.append(nbytes / b["requestedBytes"])
        gaps += bool(cap.coverage["gaps"])
        truncated += bool(cap.truncated)
        if i % 10 == 0:
            log(f"  budget {budget}: {i}/{len(goals)}")
    return {
        "budgetTokens": budget,
        "budgetBytes": budget * 4,
        "goals": len(goals),
        "built": len(evidence),
        "notFound": not_found,
        "errors": errors,
        "p50Ms": round(percentile(times, 50), 1),
        "p95Ms": round(percentile(times, 95), 1),
        "maxMs": round(max(times), 1) if times else None,
        "evidenceMean": round(statistics.mean(evidence), 2) if evidence else 0,
        "evidenceMin": min(evidence, default=0),
        "evidenceMax": max(evidence, default=0),
        "usedTokensMean": round(statistics.mean(used_tokens)) if used_tokens else 0,
        "usedTokensMax": max(used_tokens, default=0),
        "usedBytesMean": round(statistics.mean(used_bytes)) if used_bytes else 0,
        "usedBytesMax": max(used_bytes, default=0),
        "tokenFillMean": round(statistics.mean(tok_ratio), 3) if tok_ratio else 0,
        "tokenFillMax": round(max(tok_ratio), 4) if tok_ratio else 0,
        "byteFillMean": round(statistics.mean(byte_ratio), 3) if byte_ratio else 0,
        "byteFillMax": round(max(byte_ratio), 4) if byte_ratio else 0,
        "withGaps": gaps,
        "truncated": truncated,
        "overBudget": over,
        "overBudgetExamples": over_examples[:5],
        "usedMismatch": mismatch,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--embed", default=None, help="embedder spec (e.g. wordllama); default lexical only")
    ap.add_argument("--goals", type=int, default=40, help="number of goals (>= 30 recommended)")
    ap.add_argument("--budgets", default="2000,12000", help="comma-separated token budgets")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args()
    vault = args.datasets / "dwarves-brain"
    if not vault.is_dir():
        print(f"dataset not found: {vault}", file=sys.stderr)
        return 2
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    with tempfile.TemporaryDirectory(prefix="gno-bench-capsule-") as tmp:
        engine = setup(vault, Path(tmp), args.embed)
        try:
            titles = [e.title for e in engine.ls().entries]
            goals = derive_goals(titles, args.goals)
            log(f"{len(goals)} goals, e.g. {goals[:3]}")
            from gno.evidence.canonical import token_counter
            from gno.evidence.capsule import CapsuleRequest

            try:  # warm-up: tokenizer, SQLite caches, embedder
                engine.context_build(CapsuleRequest(goal=goals[0], budget_tokens=budgets[0]))
            except Exception:  # noqa: BLE001 - the warm-up result does not matter
                pass
            rows = [run_budget(engine, goals, b) for b in budgets]
            mode = "hybrid" if args.embed else "lexical"
            result = {
                "dataset": "dwarves-brain",
                "documents": len(titles),
                "mode": mode,
                "embed": args.embed,
                "estimator": token_counter().estimator,
                "goals": goals,
                "budgets": rows,
            }
        finally:
            engine.close()
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(
        f"Context Capsule build on dwarves-brain ({result['documents']} notes, {mode}"
        f"{' ' + args.embed if args.embed else ''}, estimator {result['estimator']}), {len(goals)} goals"
    )
    head = (
        f"{'budget':>14} {'built':>6} {'none':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'evid':>5}"
        f" {'min-max':>7} {'tokens used (mean/max)':>24} {'bytes used (mean/max)':>24}"
        f" {'fill t':>6} {'fill b':>6} {'over':>4} {'used!=':>6}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['budgetTokens']:>6} tok/{r['budgetBytes'] // 1000:>3}kB {r['built']:>6} {r['notFound']:>5}"
            f" {r['p50Ms']:>8.1f} {r['p95Ms']:>8.1f} {r['maxMs']:>8.1f} {r['evidenceMean']:>5.1f}"
            f" {str(r['evidenceMin']) + '-' + str(r['evidenceMax']):>7}"
            f" {str(r['usedTokensMean']) + ' / ' + str(r['usedTokensMax']) + ' of ' + str(r['budgetTokens']):>24}"
            f" {str(r['usedBytesMean']) + ' / ' + str(r['usedBytesMax']) + ' of ' + str(r['budgetBytes']):>24}"
            f" {r['tokenFillMean']:>6.3f} {r['byteFillMean']:>6.3f} {r['overBudget']:>4} {r['usedMismatch']:>6}"
        )
    for r in rows:
        for ex in r["overBudgetExamples"]:
            print(f"  over budget {r['budgetTokens']}: {ex}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
