"""How `gno query` turns each leg's raw scores into evidence before fusing them.

BM25 is scaled to its best hit; a vector hit is credited by its margin over its own query's pool
(median and spread), so a pool of uniformly high cosines carries little and a hit that stands out
carries much. Crafted legs, no index, except for the last test (the BM25 leg's words, on a real one).
"""

from __future__ import annotations

import pytest

from gno.retrieve.fusion import TAIL_CREDIT, margin_scaled, scaled_to_best, weighted_sum
from gno.retrieve.hybrid import DEFAULT_TRUST

from .conftest import Build

W = DEFAULT_TRUST.weight


def _order(scores: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(scores.items(), key=lambda x: (-x[1], x[0]))]


def _fuse(bm25: list[tuple[str, float]], vec: list[tuple[str, float]]) -> list[str]:
    return _order(
        weighted_sum(
            [(scaled_to_best(bm25), 1 - W), (margin_scaled(vec, DEFAULT_TRUST.spread, DEFAULT_TRUST.floor), W)]
        )
    )


def _pool(best: list[tuple[str, float]], rest: float, n: int = 30, step: float = 0.002) -> list[tuple[str, float]]:
    """A pool headed by `best`, the other hits just below `rest`, slowly falling."""
    return best + [(f"other{i}", rest - step * i) for i in range(n)]


def test_a_hit_that_barely_stands_out_of_a_uniformly_high_pool_earns_little() -> None:
    # short chat turns: every cosine is high, the best one only a little above the others
    flat = margin_scaled(_pool([("turn", 0.62)], 0.58), DEFAULT_TRUST.spread, DEFAULT_TRUST.floor)
    # notes with a distinctive answer: the best hit far above a low pool
    sharp = margin_scaled(_pool([("note", 0.62)], 0.30), DEFAULT_TRUST.spread, DEFAULT_TRUST.floor)
    assert sharp["note"] == pytest.approx(1.0, abs=2 * TAIL_CREDIT)  # several deviations up: full credit
    assert flat["turn"] < 0.7 * sharp["note"]  # same cosine, much less evidence


def test_bm25s_best_beats_a_vector_best_that_does_not_stand_out() -> None:
    bm25 = [("answer", 9.0), ("chatty", 5.0)]
    flat = _pool([("chatty", 0.61)], 0.60)
    assert _fuse(bm25, flat)[0] == "answer"
    # the scale-to-best rule it replaces gave the vector's best full credit whatever its pool
    old = weighted_sum([(scaled_to_best(bm25), 0.6), (scaled_to_best(flat, 0.2), 0.4)])
    assert _order(old)[0] == "chatty"


def test_a_standout_vector_only_hit_beats_notes_that_share_generic_words() -> None:
    bm25 = [("exact", 10.0), ("generic-a", 2.0), ("generic-b", 1.9)]
    vec = _pool([("semantic", 0.70), ("generic-a", 0.32)], 0.30)
    fused = _fuse(bm25, vec)
    assert fused.index("semantic") < fused.index("generic-a")
    assert fused[0] == "exact"  # BM25's best keeps the top


def test_hits_at_or_below_the_median_stay_candidates_ordered_after_every_hit_with_evidence() -> None:
    vec = [("a", 0.9), ("b", 0.5), ("c", 0.45), ("d", 0.4), ("e", 0.35)]
    s = margin_scaled(vec, 5.0, 0.1)
    assert set(s) == {"a", "b", "c", "d", "e"}
    assert s["c"] < TAIL_CREDIT and s["d"] < s["c"] and s["e"] < s["d"]  # median and below: tail credit
    assert s["a"] > s["b"] > TAIL_CREDIT  # above the median: margin credit
    fused = _fuse([("lexical", 1.0)], vec)
    assert fused.index("lexical") < fused.index("c")  # any BM25 hit outranks a below-median vector hit


def test_cosines_at_or_below_the_floor_are_no_evidence() -> None:
    assert margin_scaled([("x", 0.05), ("y", 0.04), ("z", 0.03)], 5.0, 0.1) == {}
    s = margin_scaled([("x", 0.5), ("y", 0.4), ("z", 0.3), ("w", 0.05)], 5.0, 0.1)
    assert "w" not in s and set(s) == {"x", "y", "z"}


def test_a_pool_too_small_or_flat_for_a_spread_is_scaled_to_its_best_hit() -> None:
    assert margin_scaled([("x", 0.6), ("y", 0.3)], 5.0, 0.1) == scaled_to_best([("x", 0.6), ("y", 0.3)], 0.1)
    flat = [("x", 0.5), ("y", 0.5), ("z", 0.5)]
    assert margin_scaled(flat, 5.0, 0.1) == {"x": 1.0, "y": 1.0, "z": 1.0}


def test_weighted_sum_skips_unweighted_legs_and_adds_the_rest() -> None:
    s = weighted_sum([({"a": 1.0, "b": 0.5}, 0.6), ({"b": 1.0}, 0.4), ({"c": 1.0}, 0.0)])
    assert s == pytest.approx({"a": 0.6, "b": 0.7})


def test_the_bm25_leg_keeps_the_words_a_question_is_phrased_with(build: Build) -> None:
    """'show' and 'tell' phrase many requests, but a note can be about them: the any-term leg keeps them."""
    files = {f"w{i}.md": f"# Drafting {i}\n\nEvery writer revises, rather slowly, draft {i}.\n" for i in range(12)}
    files["show.md"] = "# Show, don't tell\n\nLet readers see the scene; show it instead of telling it.\n"
    e = build({"kb": files})
    hits = [h.rel_path for h in e.query("why should a writer show rather than tell", lexical_only=True).results]
    assert hits[0] == "show.md", hits
