"""`gno bench <fixture.json>`: P@k, R@k, MRR, nDCG@k and latency per mode on judged queries.

Spec: issue 5 "Deliver" 7; reference §8 (bench fixture: version 1, queries, expected docs/URIs,
optional collection and graded judgments). Exact values are hand-derived on the TECH corpus.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from gno.engine import Engine
from gno.errors import ErrorCode, GnoError

from .conftest import TECH, Build, Cli, expect_code

L3 = math.log2(3)

FIXTURE: dict[str, Any] = {
    "version": 1,
    "collection": "kb",
    "queries": [
        {"id": "control", "query": "grafana", "expected": ["kb/grafana.md"]},
        {"id": "fragment", "query": "kafkaesque", "expected": ["gno://kb/kafka.md"]},
        {"id": "two", "query": "postgresql", "expected": ["kb/postgres.md", "kb/misc.md"]},
    ],
}
#: bm25 top-3: grafana → [grafana]; kafkaesque → []; postgresql → [misc]
BM25 = {
    "precision": round((1 / 3 + 0 + 1 / 3) / 3, 4),
    "recall": round((1 + 0 + 0.5) / 3, 4),
    "mrr": round((1 + 0 + 1) / 3, 4),
    "ndcg": round((1 + 0 + 1 / (1 + 1 / L3)) / 3, 4),
}


@pytest.fixture
def tech(build: Build) -> Engine:
    return build({"kb": TECH})


def write(tmp_path: Path, data: Any, name: str = "fixture.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(p)


def metrics(got: list[str], expected: set[str], k: int) -> tuple[float, float, float, float]:
    """Binary P@k, R@k, RR and nDCG@k, computed independently of gno."""
    hits = [u in expected for u in got[:k]]
    p = sum(hits) / k
    r = sum(hits) / len(expected)
    rr = next((1 / i for i, h in enumerate(hits, 1) if h), 0.0)
    dcg = sum(1 / math.log2(i + 1) for i, h in enumerate(hits, 1) if h)
    idcg = sum(1 / math.log2(i + 1) for i in range(1, min(k, len(expected)) + 1))
    return p, r, rr, dcg / idcg


def test_cli_bench_bm25_and_hybrid_exact_values(tech: Engine, cli: Cli, tmp_path: Path) -> None:
    fx = write(tmp_path, FIXTURE)
    r = cli("bench", fx, "--mode", "bm25", "--mode", "hybrid", "--top-k", "3", "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    body = r.json
    assert (body["fixture"], body["topK"]) == (fx, 3)
    assert [m["mode"] for m in body["modes"]] == ["bm25", "hybrid"]
    for m in body["modes"]:
        assert m["queries"] == 3
        for key in ("precision", "recall", "mrr", "ndcg"):
            assert 0.0 <= m[key] <= 1.0, (m["mode"], key, m[key])
        assert 0.0 <= m["p50Ms"] <= m["p95Ms"]
    bm25 = body["modes"][0]
    assert {k: bm25[k] for k in BM25} == BM25

    # hybrid: recompute from `gno query` itself
    sums = [0.0, 0.0, 0.0, 0.0]
    for q in FIXTURE["queries"]:
        expected = {tech.resolve(x).uri if not x.startswith("gno://") else x for x in q["expected"]}
        got = [h.uri for h in tech.query(q["query"], collection="kb", limit=3).results]
        sums = [a + b for a, b in zip(sums, metrics(got, expected, 3), strict=True)]
    hybrid = body["modes"][1]
    assert [hybrid[k] for k in ("precision", "recall", "mrr", "ndcg")] == [round(s / 3, 4) for s in sums]
    assert hybrid["recall"] > bm25["recall"] and hybrid["mrr"] > bm25["mrr"]


def test_engine_bench_every_mode(tech: Engine, tmp_path: Path) -> None:
    fx = write(tmp_path, FIXTURE)
    res = tech.bench(fx, modes=("bm25", "vector", "hybrid", "fast"), top_k=3)
    assert [m.mode for m in res.modes] == ["bm25", "vector", "hybrid", "fast"]
    vec = res.modes[1]
    # vector top-3: grafana → [grafana, …]; kafkaesque → [kafka, …]; postgresql → [misc, terraform, postgres]
    assert (vec.precision, vec.recall, vec.mrr) == (round((1 / 3 + 1 / 3 + 2 / 3) / 3, 4), 1.0, 1.0)
    assert vec.ndcg == round((1 + 1 + (1 + 0.5) / (1 + 1 / L3)) / 3, 4)


def test_default_modes_are_bm25_and_hybrid_and_text_output(tech: Engine, cli: Cli, tmp_path: Path) -> None:
    fx = write(tmp_path, FIXTURE)
    r = cli("bench", fx, "--top-k", "3")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["mode", "P@k", "R@k", "MRR", "nDCG@k", "p50", "ms", "p95", "ms", "(k=3)"]
    assert [ln.split()[0] for ln in lines[1:]] == ["bm25", "hybrid"]
    assert lines[1].split()[1:5] == [f"{BM25[k]:.3f}" for k in ("precision", "recall", "mrr", "ndcg")]


def test_precision_uses_k_as_denominator(tech: Engine, tmp_path: Path) -> None:
    fx = write(tmp_path, {"version": 1, "queries": [{"query": "grafana", "expected": ["kb/grafana.md"]}]})
    m = tech.bench(fx, modes=("bm25",), top_k=10).modes[0]
    assert (m.precision, m.recall, m.mrr, m.ndcg, m.queries) == (0.1, 1.0, 1.0, 1.0, 1)


def test_graded_judgments_weight_ndcg(tech: Engine, tmp_path: Path) -> None:
    """bm25 top-2 for "kubernetes": [kubernetes.md, misc.md]; the better doc is judged 2."""
    fx = write(
        tmp_path,
        {
            "version": 1,
            "queries": [
                {
                    "query": "kubernetes",
                    "expected": ["kb/kubernetes.md", "kb/misc.md"],
                    "judgments": {"kb/kubernetes.md": 2, "kb/misc.md": 1},
                }
            ],
        },
    )
    m = tech.bench(fx, modes=("bm25",), top_k=2).modes[0]
    assert m.ndcg == 1.0
    fx = write(
        tmp_path,
        {
            "version": 1,
            "queries": [
                {
                    "query": "kubernetes",
                    "expected": ["kb/kubernetes.md", "kb/misc.md"],
                    "judgments": {"kb/kubernetes.md": 1, "gno://kb/misc.md": 2},
                }
            ],
        },
        "swapped.json",
    )
    m = tech.bench(fx, modes=("bm25",), top_k=2).modes[0]
    assert m.ndcg == round((1 + 2 / L3) / (2 + 1 / L3), 4)


def test_partially_graded_ndcg_counts_unjudged_expected_docs_in_the_ideal(tech: Engine, tmp_path: Path) -> None:
    fx = write(
        tmp_path,
        {
            "version": 1,
            "queries": [
                {
                    "query": "kubernetes",
                    "expected": ["kb/kubernetes.md", "kb/misc.md"],
                    "judgments": {"kb/misc.md": 2},
                }
            ],
        },
    )
    m = tech.bench(fx, modes=("bm25",), top_k=2).modes[0]
    assert m.ndcg <= 1.0
    assert m.ndcg == round((1 + 2 / L3) / (2 + 1 / L3), 4)


@pytest.mark.parametrize(
    "data",
    [
        "{not json",
        {"version": 1},
        {"version": 1, "queries": []},
        {"version": 1, "queries": [{"query": "x"}]},
        {"version": 1, "queries": [{"query": 3, "expected": []}]},
        [1, 2],
    ],
)
def test_invalid_fixtures_are_validation_errors(tech: Engine, cli: Cli, tmp_path: Path, data: Any) -> None:
    fx = write(tmp_path, data)
    with pytest.raises(GnoError) as ei:
        tech.bench(fx)
    expect_code(ei.value, ErrorCode.VALIDATION)
    cli("bench", fx, "--json").expect_error(ErrorCode.VALIDATION)


def test_missing_fixture_file_and_unknown_mode(tech: Engine, cli: Cli, tmp_path: Path) -> None:
    cli("bench", str(tmp_path / "absent.json"), "--json").expect_error(ErrorCode.VALIDATION)
    fx = write(tmp_path, FIXTURE)
    with pytest.raises(GnoError) as ei:
        tech.bench(fx, modes=("bm25", "semantic"))
    expect_code(ei.value, ErrorCode.VALIDATION)
    r = cli("bench", fx, "--mode", "semantic")
    assert r.exit_code == 2 and "semantic" in r.stderr


def test_vector_mode_without_vectors_reports_unavailable(build: Build, cli: Cli, tmp_path: Path) -> None:
    build({"kb": TECH}, embed=False)
    fx = write(tmp_path, FIXTURE)
    cli("bench", fx, "--mode", "vector", "--json").expect_error(ErrorCode.VECTORS_UNAVAILABLE)
    r = cli("bench", fx, "--mode", "bm25", "--mode", "hybrid", "--top-k", "3", "--json")
    assert r.exit_code == 0
    bm25, hybrid = r.json["modes"]
    assert {k: bm25[k] for k in BM25} == BM25
    assert {k: hybrid[k] for k in BM25} == BM25  # without vectors, hybrid is BM25 (+ graph: no links here)
