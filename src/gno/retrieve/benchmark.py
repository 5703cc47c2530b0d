"""`gno bench <fixture.json>`: retrieval quality and latency on your own judged queries.

Fixture (version 1): `{"version": 1, "collection": "notes"?, "queries": [{"id"?, "query",
"expected": [refs or gno:// URIs], "judgments"?: {uri: grade}}]}`. For each mode (`bm25`,
`vector`, `hybrid`, `fast`) it reports P@k, R@k, MRR, nDCG@k (graded when judgments are given)
and latency p50/p95.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gno.errors import GnoError, ValidationError
from gno.models import BenchMode, BenchResult
from gno.refs import resolve_ref

if TYPE_CHECKING:
    from gno.models import SearchResult
    from gno.retrieve.hybrid import HybridQuery
    from gno.store.db import Store

MODES = ("bm25", "vector", "hybrid", "fast")


class Searcher(Protocol):
    """The index the fixture's refs name, and the two searches a run times (as `gno query` and
    `gno vsearch` run them)."""

    @property
    def store(self) -> Store: ...

    @property
    def query(self) -> HybridQuery: ...

    def vsearch(self, query: str, *, collection: str | None = ..., limit: int = ...) -> SearchResult: ...


def load_fixture(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValidationError(f"cannot read bench fixture {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("queries"), list) or not data["queries"]:
        raise ValidationError(f'{path}: a fixture is {{"version": 1, "queries": [{{"query", "expected"}}]}}')
    for i, q in enumerate(data["queries"]):
        if not isinstance(q, dict) or not isinstance(q.get("query"), str) or not isinstance(q.get("expected"), list):
            raise ValidationError(f"{path}: queries[{i}] needs a string `query` and a list `expected`")
    return data


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(p * len(s)) - 1))]


def _uris(store: Store, refs: list[str]) -> set[str]:
    out: set[str] = set()
    for r in refs:
        try:
            out.add(resolve_ref(store, r).uri)
        except GnoError:
            out.add(r)
    return out


def run_bench(
    search: Searcher,
    path: str,
    modes: tuple[str, ...] = ("bm25", "hybrid"),
    top_k: int = 10,
    candidate_limit: int | None = None,
) -> BenchResult:
    data = load_fixture(path)
    coll = data.get("collection")
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise ValidationError(f"unknown mode {bad[0]!r}: use {', '.join(MODES)}")
    out: list[BenchMode] = []
    for mode in modes:
        p_at, r_at, rr, nd, lat = [], [], [], [], []
        for q in data["queries"]:
            expected = _uris(search.store, [str(x) for x in q["expected"]])
            grades = {
                resolve_ref(search.store, k).uri if not k.startswith("gno://") else k: float(v)
                for k, v in (q.get("judgments") or {}).items()
            }
            t = time.perf_counter()
            if mode == "bm25":
                res = search.query(q["query"], collection=coll, limit=top_k, depth="fast", lexical_only=True)
            elif mode == "vector":
                res = search.vsearch(q["query"], collection=coll, limit=top_k)
            else:
                res = search.query(
                    q["query"],
                    collection=coll,
                    limit=top_k,
                    depth="fast" if mode == "fast" else "balanced",
                    candidate_limit=candidate_limit,
                )
            lat.append((time.perf_counter() - t) * 1000)
            got = [h.uri for h in res.results[:top_k]]
            hits = [u in expected for u in got]
            p_at.append(sum(hits) / top_k)
            r_at.append(sum(hits) / len(expected) if expected else 0.0)
            rr.append(next((1.0 / i for i, h in enumerate(hits, 1) if h), 0.0))
            gain = [grades.get(u, 1.0 if u in expected else 0.0) for u in got]
            ideal_gain = dict.fromkeys(expected, 1.0) | grades  # expected without a grade count as 1
            ideal = sorted(ideal_gain.values(), reverse=True)[:top_k]
            dcg = sum(g / math.log2(i + 1) for i, g in enumerate(gain, 1))
            idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, 1))
            nd.append(dcg / idcg if idcg else 0.0)
        n = len(data["queries"])
        out.append(
            BenchMode(
                mode=mode,
                queries=n,
                precision=round(sum(p_at) / n, 4),
                recall=round(sum(r_at) / n, 4),
                mrr=round(sum(rr) / n, 4),
                ndcg=round(sum(nd) / n, 4),
                p50_ms=round(_pct(lat, 0.5), 2),
                p95_ms=round(_pct(lat, 0.95), 2),
            )
        )
    return BenchResult(fixture=path, top_k=top_k, modes=out)
