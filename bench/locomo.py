"""LoCoMo retrieval benchmark for the memory contract (`remember` / `recall`), no LLM.

Reads ``<datasets>/locomo/locomo10.json`` (10 conversations, 5,882 dialog turns, 1,986 QA;
see that folder's README). Every dialog turn becomes one fact, ``"<speaker>: <text>"``, in the
scope ``conv:<sample_id>`` of its conversation; fact files are written straight to disk with
the record helpers (the same bytes ``gno remember --add`` writes) and indexed by one
``update``, keeping a map dia_id → fact URI. Then each question of categories 1–4
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop; category 5 is adversarial and skipped)
is recalled in its conversation's scope with ``maxFacts`` 10 and ``maxTokens`` 2048 (room for
10 turns), and scored against its evidence dia_ids:

* dialog-level Recall@5 / Recall@10: fraction of the evidence dia_ids in the top k;
* MRR: 1 / rank of the first evidence turn in the top 10 (0 when none);
* session-level R@5: fraction of the evidence sessions (``D<s>``) covered by the top 5;
* empty: share of questions for which recall returned no fact at all.

Evidence ids are normalised (``"D8:6; D9:17"`` → two ids, ``"D:11:26"`` → ``D11:26``,
``"D30:05"`` → ``D30:5``); ids that still name no turn are dropped and counted, and questions
left without evidence are skipped.

Two query forms are reported, because lexical recall is conjunctive (every query term must
occur in the fact, with prefix matching):

* ``question``: the question exactly as asked (the faithful default);
* ``content``: content words only (question words, stopwords and possessive ``'s`` dropped).

``--mode lexical`` (default) runs BM25 only. ``--mode hybrid`` embeds the facts (``Engine.embed``
with the configured local model; nothing is downloaded) and reports whatever ``retrieval.mode``
recall actually ran; when recall has no semantic leg it says so and reports lexical figures.

Usage::

    python bench/locomo.py [--datasets DIR] [--mode lexical|hybrid] [--embedder mpnet] [--limit-convs N] [--json]
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from gno.config import build_settings  # noqa: E402
from gno.engine import Engine  # noqa: E402
from gno.memory.recall import RecallRequest  # noqa: E402
from gno.memory.records import (  # noqa: E402
    MEMORY_MAX_FACT_BYTES,
    content_hash,
    fact_rel_path,
    record_id_for,
    serialize_fact,
)

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MAX_FACTS = 10
MAX_TOKENS = 2048
QUERY_FORMS = ("question", "content")

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me might more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when
    where which while who whom whose why will with would you your yours yourself yourselves
    kind sort type likely also ever much many
    """.split()
)  # question words and function words; names, nouns, verbs and dates stay

_EVIDENCE_RE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SESSION_RE = re.compile(r"^session_(\d+)$")
_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)


def normalise_evidence(raw: list[str]) -> list[str]:
    out: list[str] = []
    for item in raw:
        for s, t in _EVIDENCE_RE.findall(str(item)):
            dia = f"D{int(s)}:{int(t)}"
            if dia not in out:
                out.append(dia)
    return out


def content_query(question: str) -> str:
    words = []
    for w in _WORD_RE.findall(question.replace("\u2019", "'")):
        w = re.sub(r"'s$", "", w, flags=re.I)
        if w.lower() in STOPWORDS or len(w) < 2 and not w.isdigit():
            continue
        words.append(w)
    return " ".join(dict.fromkeys(words)) or question


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)] if s else float("nan")


def load_locomo(datasets: Path) -> list[dict[str, Any]]:
    path = datasets / "locomo" / "locomo10.json"
    if not path.exists():
        raise SystemExit(f"LoCoMo not found at {path} (see --datasets)")
    return list(json.loads(path.read_text(encoding="utf-8")))


def turns_of(conv: dict[str, Any]) -> list[dict[str, Any]]:
    c = conv["conversation"]
    sessions = sorted((int(m.group(1)), k) for k in c if (m := _SESSION_RE.match(k)))
    return [t for _, k in sessions for t in c[k]]


def write_turns(
    root: Path, convs: list[dict[str, Any]], captions: bool
) -> tuple[dict[str, dict[str, str]], dict[str, str], int]:
    """Fact files for every turn; returns (scope → dia_id → uri, uri → dia_id, skipped)."""
    base = datetime(2023, 1, 1, tzinfo=UTC)
    by_conv: dict[str, dict[str, str]] = {}
    uri_to_dia: dict[str, str] = {}
    skipped = 0
    i = 0
    for conv in convs:
        scope = f"conv:{conv['sample_id']}"
        dia_map: dict[str, str] = {}
        for turn in turns_of(conv):
            text = f"{turn['speaker']}: {turn.get('text', '').strip()}"
            if captions and turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            if len(text.encode("utf-8")) > MEMORY_MAX_FACT_BYTES or not turn.get("text", "").strip():
                skipped += 1
                continue
            created = (base + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            i += 1
            h = content_hash(text)
            rid = record_id_for(h, created, "locomo", scope)
            rel = fact_rel_path(rid, created)
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                serialize_fact(
                    text=text,
                    record_id=rid,
                    scopes=[scope],
                    caller="locomo",
                    session=scope,
                    created_at=created,
                    chash=h,
                ),
                encoding="utf-8",
            )
            uri = f"gno://memory/{rel}"
            dia_map[turn["dia_id"]] = uri
            uri_to_dia[uri] = turn["dia_id"]
        by_conv[scope] = dia_map
    return by_conv, uri_to_dia, skipped


def session_of(dia: str) -> str:
    return dia.split(":", 1)[0]


def recall_kwargs(mode: str) -> dict[str, Any]:
    params = inspect.signature(Engine.recall).parameters
    if "semantic" in params:
        return {"semantic": mode == "hybrid"}
    return {}


def score(ranked: list[str], gold: list[str]) -> dict[str, float]:
    g = set(gold)
    top5, top10 = ranked[:5], ranked[:10]
    rr = next((1.0 / (i + 1) for i, d in enumerate(top10) if d in g), 0.0)
    gs = {session_of(d) for d in g}
    return {
        "r5": len(g & set(top5)) / len(g),
        "r10": len(g & set(top10)) / len(g),
        "mrr": rr,
        "sess_r5": len(gs & {session_of(d) for d in top5}) / len(gs),
        "empty": 1.0 if not ranked else 0.0,
    }


def aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {"n": 0}
    return {"n": len(rows), **{k: round(statistics.mean(r[k] for r in rows), 4) for k in rows[0]}}


def remember_probe(
    engine: Any, convs: list[dict[str, Any]], by_conv: dict[str, dict[str, str]], n: int
) -> dict[str, Any]:
    """`remember` proposals (no decision: nothing is written), timed, on both sides of the "likely" threshold.

    * restated: a stored turn's words without its ``"<speaker>: "`` prefix (the same statement, not the
      same bytes): the source turn should be the #1 candidate and flagged ``likely``;
    * questions: a LoCoMo question of the same conversation, a duplicate of no turn: any ``likely``
      candidate is a false alarm.
    No judged duplicate pairs exist for LoCoMo; this probes the ranking and the threshold, not recall."""
    from gno.memory.remember import RememberRequest

    def propose(text: str, scope: str) -> tuple[Any, float]:
        t = time.perf_counter()
        r = engine.remember(RememberRequest(text=text, scopes=[scope], caller="locomo", session="bench"))
        return r, (time.perf_counter() - t) * 1000

    lat: list[float] = []
    top1 = likely = false_likely = asked = 0
    modes: dict[str, int] = defaultdict(int)
    conv = convs[0]
    scope = f"conv:{conv['sample_id']}"
    turns = [t for t in turns_of(conv) if t.get("dia_id") in by_conv[scope] and len(t.get("text", "")) > 40]
    for turn in turns[:: max(1, len(turns) // n)][:n]:
        r, ms = propose(turn["text"].strip(), scope)
        lat.append(ms)
        modes[r.matching.mode] += 1
        uri = by_conv[scope][turn["dia_id"]]
        if r.candidates and r.candidates[0].record.uri == uri:
            top1 += 1
            likely += r.candidates[0].match == "likely"
    for qa in [q for q in conv["qa"] if q.get("category") in CATEGORIES][:n]:
        r, ms = propose(qa["question"], scope)
        lat.append(ms)
        asked += 1
        false_likely += any(c.match == "likely" for c in r.candidates)
    restated = min(n, len(turns))
    return {
        "restated": restated,
        "sourceTop1": round(top1 / restated, 3) if restated else None,
        "sourceTop1Likely": round(likely / restated, 3) if restated else None,
        "questions": asked,
        "questionsFalseLikely": round(false_likely / asked, 3) if asked else None,
        "matchingModes": dict(modes),
        "latencyMs": {"p50": round(pct(lat, 50), 1), "p95": round(pct(lat, 95), 1)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--mode", choices=("lexical", "hybrid"), default="lexical")
    ap.add_argument("--limit-convs", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--embedder", default=None, help="models.embed of the bench home, e.g. mpnet")
    ap.add_argument("--remember", type=int, default=0, help="also time N remember proposals (see remember_probe)")
    ap.add_argument("--captions", action="store_true", help="append image captions to turns that share one")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    convs = load_locomo(args.datasets)[: args.limit_convs]
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gno-bench-locomo-") as tmp:
        home = Path(tmp)
        env = {
            **os.environ,
            "GNO_CONFIG_DIR": str(home / "config"),
            "GNO_DATA_DIR": str(home / "data"),
            "GNO_CACHE_DIR": os.environ.get("GNO_CACHE_DIR", str(home / "cache")),
        }
        for k in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
            env.pop(k, None)
        mem_root = home / "memory"
        mem_root.mkdir()
        (home / "config").mkdir()
        (home / "config" / "index.yml").write_text(
            'version: "1.0"\ncollections:\n'
            f"  - name: memory\n    path: {json.dumps(str(mem_root))}\n"
            '    pattern: "**/*.md"\n    memoryManaged: true\n'
            + (f"models:\n  embed: {json.dumps(args.embedder)}\n" if args.embedder else ""),
            encoding="utf-8",
        )
        t0 = time.perf_counter()
        by_conv, uri_to_dia, skipped = write_turns(mem_root, convs, args.captions)
        engine = Engine(build_settings(env=env))
        engine.update()
        ingest_s = time.perf_counter() - t0
        n_facts = sum(len(m) for m in by_conv.values())
        st = engine.status().memory
        assert st is not None and st.current == n_facts, st

        embed_s = 0.0
        if args.mode == "hybrid":
            if not hasattr(engine, "embed"):
                notes.append("hybrid unavailable: Engine has no embed(); reporting lexical only")
            else:
                t0 = time.perf_counter()
                try:
                    engine.embed(["memory"])
                except Exception as exc:  # noqa: BLE001 - report and fall back to lexical
                    notes.append(f"embedding failed ({exc}); reporting lexical only")
                embed_s = time.perf_counter() - t0
        kwargs = recall_kwargs(args.mode)
        if not kwargs:
            notes.append("Engine.recall has no semantic switch; whatever it runs by default is reported")

        per_form: dict[str, dict[str, Any]] = {}
        modes_seen: dict[str, int] = defaultdict(int)
        reasons: dict[str, int] = defaultdict(int)
        dropped_ids = 0
        skipped_qs = 0
        for form in QUERY_FORMS:
            rows: dict[int, list[dict[str, float]]] = defaultdict(list)
            lat: list[float] = []
            for conv in convs:
                scope = f"conv:{conv['sample_id']}"
                dia_map = by_conv[scope]
                for qa in conv["qa"]:
                    cat = qa.get("category")
                    if cat not in CATEGORIES:
                        continue
                    ev = normalise_evidence(qa.get("evidence") or [])
                    gold = [d for d in ev if d in dia_map]
                    if form == QUERY_FORMS[0]:
                        dropped_ids += len(ev) - len(gold)
                        skipped_qs += 0 if gold else 1
                    if not gold:
                        continue
                    q = qa["question"] if form == "question" else content_query(qa["question"])
                    t = time.perf_counter()
                    r = engine.recall(
                        RecallRequest(
                            query=q,
                            scopes=[scope],
                            caller="locomo",
                            session="bench",
                            max_facts=MAX_FACTS,
                            max_tokens=MAX_TOKENS,
                        ),
                        **kwargs,
                    )
                    lat.append((time.perf_counter() - t) * 1000)
                    modes_seen[r.retrieval.mode] += 1
                    if r.retrieval.semantic_unavailable:
                        reasons[r.retrieval.semantic_unavailable] += 1
                    ranked = [uri_to_dia[f.uri] for f in r.facts]
                    rows[cat].append(score(ranked, gold))
            per_form[form] = {
                "categories": {str(c): aggregate(rows[c]) for c in CATEGORIES},
                "overall": aggregate([x for c in CATEGORIES for x in rows[c]]),
                "latencyMs": {"p50": round(pct(lat, 50), 2), "p95": round(pct(lat, 95), 2)},
            }
        probe = remember_probe(engine, convs, by_conv, args.remember) if args.remember else None
        engine.close()

    ran = "hybrid" if modes_seen.get("hybrid") else "lexical"
    if args.mode == "hybrid" and ran != "hybrid":
        why = ", ".join(sorted(reasons)) or "unknown"
        notes.append(f"hybrid requested but recall ran lexical only ({why}); figures are lexical")
    res = {
        "dataset": "locomo10",
        "conversations": len(convs),
        "facts": n_facts,
        "turnsSkipped": skipped,
        "evidenceIdsDropped": dropped_ids,
        "questionsWithoutEvidence": skipped_qs,
        "requestedMode": args.mode,
        "embedder": args.embedder or "default",
        "retrievalModes": dict(modes_seen),
        "budget": {"maxFacts": MAX_FACTS, "maxTokens": MAX_TOKENS},
        "ingestSeconds": round(ingest_s, 1),
        "embedSeconds": round(embed_s, 1),
        "forms": per_form,
        **({"remember": probe} if probe else {}),
        "notes": notes,
    }
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(
        f"LoCoMo retrieval: {len(convs)} conversations, {n_facts} turn facts ({skipped} skipped), "
        f"categories 1-4, maxFacts {MAX_FACTS} / maxTokens {MAX_TOKENS}, "
        f"requested {args.mode}, ran {dict(modes_seen)}"
    )
    print(
        f"evidence ids dropped (unresolvable): {dropped_ids}; questions without evidence: {skipped_qs}; "
        f"ingest {ingest_s:.1f}s" + (f", embed {embed_s:.1f}s" if args.mode == "hybrid" else "")
    )
    for form in QUERY_FORMS:
        pf = per_form[form]
        print()
        print(f"query form: {form}  (recall p50 {pf['latencyMs']['p50']} ms, p95 {pf['latencyMs']['p95']} ms)")
        print(f"{'category':<16} {'n':>5} {'R@5':>7} {'R@10':>7} {'MRR':>7} {'SessR@5':>8} {'empty':>7}")
        for key, label in [*((str(c), f"{c} {n}") for c, n in CATEGORIES.items()), ("overall", "overall")]:
            a = pf["overall"] if key == "overall" else pf["categories"][key]
            if not a.get("n"):
                print(f"{label:<16} {0:>5}")
                continue
            print(
                f"{label:<16} {a['n']:>5} {a['r5']:>7.3f} {a['r10']:>7.3f} {a['mrr']:>7.3f} "
                f"{a['sess_r5']:>8.3f} {a['empty']:>7.3f}"
            )
    if probe:
        print(f"\nremember proposals: {probe}")
    for n in notes:
        print(f"note: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
