"""Verified ask benchmark (issue 6, rung 6) on LoCoMo: released answers must hold the gold answer.

Reads ``<datasets>/locomo/locomo10.json`` (10 long two-person conversations, 1,986 QA; see that
folder's README.txt). Each conversation becomes one collection ``conv-<n>`` with one markdown note
per session, ``sessions/session-NN.md``::

    # Session 3 — 7:55 pm on 9 June, 2023

    Caroline: I went to a LGBTQ support group yesterday and it was so powerful.

    Melanie: That's great! ... [photo: a photo of ...]

one paragraph per dialog turn (``Speaker: text``, the shared photo's caption appended), so every
turn is its own evidence passage and the extractive answerer works sentence by sentence; the
session date stays in the heading. The notes are written to a temp folder and indexed lexically
by ``gno.engine.Engine`` in an isolated gno home (GNO_* dirs in the temp folder).

Every question of categories 1 (multi-hop) and 4 (single-hop) — ``--categories`` — is asked with
``engine.ask(question, verify=True, collection=<its conversation>)`` (default 12,000-token
Capsule), and scored:

* verified rate: answers released as ``verified`` / questions;
* abstention rate: ``abstained`` / questions (with the abstention reasons);
* precision of released answers: released answers whose text (citation markers removed) contains
  the normalised gold answer (NFKC, case-folded, punctuation and articles dropped, whole words);
  the target is >= 90%: abstain rather than guess;
* diagnostics: token-recall precision (>= half of the gold's content words appear in the
  answer), and how often a released answer cites a span covering one of the question's gold
  evidence turns.

``--limit-questions N`` takes N questions at an even stride over the selected conversations (a
deterministic sample that keeps the category mix); ``--conversations N`` uses the first N.
With ``--examples K`` (default 10) K released-but-wrong answers, taken at an even stride, are
printed (question, gold, answer) for tuning the answerer/verifier.

Usage::

    python bench/ask.py [--datasets DIR] [--conversations N] [--limit-questions N]
                        [--categories 1,4] [--budget 12000] [--examples 10] [--json]
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
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TARGET_PRECISION = 0.90
CITE_RE = re.compile(r"\s*\[evidence:[^\]]*\]")
STOP = frozenset(
    "a an and are as at be by for from has have her his i in is it its of on or she he that the their "
    "they this to was were with".split()
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)] if s else float("nan")


def norm(text: Any) -> str:
    """SQuAD-style normalisation: NFKC, case-folded, punctuation → space, articles dropped."""
    s = unicodedata.normalize("NFKC", str(text)).casefold().replace("’", "'")
    s = re.sub(r"[^\w\s]", " ", s)
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def contains_gold(answer: str, gold: Any) -> bool:
    g = norm(gold)
    return bool(g) and f" {g} " in f" {norm(answer)} "


def token_recall(answer: str, gold: Any) -> float:
    want = [w for w in norm(gold).split() if w not in STOP]
    if not want:
        return 0.0
    have = set(norm(answer).split())
    return sum(1 for w in want if w in have) / len(want)


def evidence_ids(raw: list[str]) -> list[str]:
    """'D8:6; D9:17' → two ids; 'D:11:26' → 'D11:26'; 'D30:05' → 'D30:5'."""
    out = []
    for item in raw:
        for part in re.split(r"[;,\s]+", item):
            m = re.match(r"^D:?(\d+):(\d+)$", part.strip())
            if m:
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


@dataclass
class Turn:
    rel: str
    line: int


def write_conversation(conv: dict[str, Any], folder: Path) -> dict[str, Turn]:
    """One note per session, one paragraph per turn; returns dia_id → (note, line)."""
    turns: dict[str, Turn] = {}
    n = 1
    while f"session_{n}" in conv:
        rel = f"sessions/session-{n:02d}.md"
        date = conv.get(f"session_{n}_date_time", "")
        lines = [f"# Session {n}" + (f" — {date}" if date else ""), ""]
        for t in conv[f"session_{n}"]:
            text = " ".join(str(t.get("text", "")).split())
            if t.get("blip_caption"):
                text += f" [photo: {' '.join(str(t['blip_caption']).split())}]"
            turns[str(t["dia_id"])] = Turn(rel, len(lines) + 1)
            lines += [f"{t['speaker']}: {text}", ""]
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
        n += 1
    return turns


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--conversations", type=int, default=None, help="use the first N conversations")
    ap.add_argument("--limit-questions", type=int, default=None, help="N questions at an even stride")
    ap.add_argument("--categories", default="1,4")
    ap.add_argument("--budget", type=int, default=12000, help="Capsule budget (tokens)")
    ap.add_argument("--examples", type=int, default=10, help="released-but-wrong examples to print")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    src = args.datasets / "locomo" / "locomo10.json"
    if not src.exists():
        print(f"dataset not found: {src}", file=sys.stderr)
        return 2
    data = json.loads(src.read_text(encoding="utf-8"))[: args.conversations]
    cats = {int(c) for c in args.categories.split(",") if c.strip()}

    with tempfile.TemporaryDirectory(prefix="gno-bench-ask-") as tmp:
        home = Path(tmp)
        os.environ["GNO_CONFIG_DIR"] = str(home / "config")
        os.environ["GNO_DATA_DIR"] = str(home / "data")
        os.environ["GNO_CACHE_DIR"] = str(home / "cache")
        from gno.config import build_settings
        from gno.engine import Engine

        engine = Engine(build_settings())
        engine.init()
        turn_maps: dict[str, dict[str, Turn]] = {}
        questions: list[tuple[str, dict[str, Any]]] = []
        for conv in data:
            name = "conv-" + str(conv["sample_id"]).split("-")[-1]
            folder = home / "notes" / name
            turn_maps[name] = write_conversation(conv["conversation"], folder)
            engine.collection_add(str(folder), name=name)
            questions += [(name, q) for q in conv["qa"] if q.get("category") in cats and "answer" in q]
        t0 = time.perf_counter()
        engine.update()
        log(
            f"indexed {len(data)} conversations ({sum(len(m) for m in turn_maps.values())} turns) "
            f"in {time.perf_counter() - t0:.1f}s; {len(questions)} questions in categories {sorted(cats)}"
        )
        if args.limit_questions and args.limit_questions < len(questions):
            stride = len(questions) / args.limit_questions
            questions = [questions[int(i * stride)] for i in range(args.limit_questions)]
        try:
            rows = run(engine, questions, turn_maps, args.budget)
        finally:
            engine.close()
    result = summarise(rows, len(data), sorted(cats), args.budget)
    wrong = [r for r in rows if r["status"] == "verified" and not r["containsGold"]]
    if args.examples and len(wrong) > args.examples:  # an even stride: every conversation and category
        wrong = [wrong[int(i * len(wrong) / args.examples)] for i in range(args.examples)]
    result["releasedButWrong"] = wrong[: args.examples]
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print_report(result)
    return 0


def run(
    engine: Any, questions: list[tuple[str, dict[str, Any]]], turn_maps: dict[str, dict[str, Turn]], budget: int
) -> list[dict[str, Any]]:
    from gno.errors import GnoError

    rows = []
    for i, (coll, q) in enumerate(questions, 1):
        t0 = time.perf_counter()
        try:
            r = engine.ask(q["question"], verify=True, collection=coll, budget_tokens=budget)
            status, reason, answer = r.answer_status, r.abstention_reason, r.answer or ""
            citations = [(c.uri, c.start_line, c.end_line) for c in r.citations]
        except GnoError as err:
            status, reason, answer, citations = "error", str(err.code), "", []
        ms = (time.perf_counter() - t0) * 1000
        text = CITE_RE.sub("", answer).strip()
        gold_turns = [turn_maps[coll][d] for d in evidence_ids(q.get("evidence", [])) if d in turn_maps[coll]]
        cites_gold = any(uri.endswith("/" + t.rel) and s <= t.line <= e for uri, s, e in citations for t in gold_turns)
        rows.append(
            {
                "conversation": coll,
                "category": q["category"],
                "question": q["question"],
                "gold": str(q["answer"]),
                "status": status,
                "reason": reason,
                "answer": text,
                "containsGold": bool(text) and contains_gold(text, q["answer"]),
                "tokenRecall": round(token_recall(text, q["answer"]), 3) if text else 0.0,
                "citesGoldTurn": cites_gold,
                "ms": round(ms, 1),
            }
        )
        if i % 25 == 0:
            done = [r for r in rows if r["status"] == "verified"]
            ok = sum(r["containsGold"] for r in done)
            log(f"  {i}/{len(questions)}: verified {len(done)}, containing gold {ok}")
    return rows


def _block(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    released = [r for r in rows if r["status"] == "verified"]
    abstained = [r for r in rows if r["status"] == "abstained"]
    hit = sum(r["containsGold"] for r in released)
    soft = sum(r["tokenRecall"] >= 0.5 for r in released)
    return {
        "questions": n,
        "verified": len(released),
        "abstained": len(abstained),
        "errors": sum(r["status"] == "error" for r in rows),
        "verifiedRate": round(len(released) / n, 4) if n else 0.0,
        "abstentionRate": round(len(abstained) / n, 4) if n else 0.0,
        "releasedContainingGold": hit,
        "precision": round(hit / len(released), 4) if released else None,
        "softPrecision": round(soft / len(released), 4) if released else None,
        "citesGoldTurn": round(sum(r["citesGoldTurn"] for r in released) / len(released), 4) if released else None,
        "goldAnsweredRate": round(hit / n, 4) if n else 0.0,
        "abstentionReasons": dict(Counter(r["reason"] for r in abstained).most_common()),
    }


def summarise(rows: list[dict[str, Any]], conversations: int, cats: list[int], budget: int) -> dict[str, Any]:
    times = [r["ms"] for r in rows]
    return {
        "dataset": "locomo10",
        "conversations": conversations,
        "categories": cats,
        "budgetTokens": budget,
        "overall": _block(rows),
        "perCategory": {CATEGORIES.get(c, str(c)): _block([r for r in rows if r["category"] == c]) for c in cats},
        "latencyMs": {
            "p50": round(percentile(times, 50), 1),
            "p95": round(percentile(times, 95), 1),
            "mean": round(statistics.mean(times), 1) if times else None,
        },
        "targetPrecision": TARGET_PRECISION,
    }


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def print_report(res: dict[str, Any]) -> None:
    print(
        f"gno ask --verify on LoCoMo ({res['conversations']} conversations, categories {res['categories']}, "
        f"Capsule {res['budgetTokens']} tokens, extractive answerer, lexical)"
    )
    head = (
        f"{'slice':<12} {'questions':>9} {'verified':>9} {'abstained':>9} {'precision':>9} {'soft prec':>9}"
        f" {'cites gold':>10} {'gold answered':>13}"
    )
    print(head)
    print("-" * len(head))
    blocks = [("overall", res["overall"]), *res["perCategory"].items()]
    for name, b in blocks:
        print(
            f"{name:<12} {b['questions']:>9} {_pct(b['verifiedRate']):>9} {_pct(b['abstentionRate']):>9}"
            f" {_pct(b['precision']):>9} {_pct(b['softPrecision']):>9} {_pct(b['citesGoldTurn']):>10}"
            f" {_pct(b['goldAnsweredRate']):>13}"
        )
    o = res["overall"]
    print(
        f"released answers containing the gold answer: {o['releasedContainingGold']}/{o['verified']} "
        f"= {_pct(o['precision'])} (target >= {_pct(res['targetPrecision'])}) -> "
        + ("MET" if (o["precision"] or 0) >= res["targetPrecision"] else "NOT MET")
    )
    print(f"abstention reasons: {o['abstentionReasons']}; errors: {o['errors']}")
    lat = res["latencyMs"]
    print(f"latency per ask: p50 {lat['p50']} ms, p95 {lat['p95']} ms")
    wrong = res.get("releasedButWrong") or []
    if wrong:
        print(f"\n{len(wrong)} released-but-wrong answers (question | gold | answer):")
        for r in wrong:
            where = f"[{r['conversation']} cat {r['category']}]"
            print(f"- {where} {r['question']} | gold: {r['gold']} | answer: {r['answer']}")


if __name__ == "__main__":
    sys.exit(main())
