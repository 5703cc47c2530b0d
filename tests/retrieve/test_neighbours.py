"""Vector neighbours of documents (`gno.retrieve.neighbours`), checked against a brute force over
every pair, across block boundaries of the blocked comparison."""

from __future__ import annotations

import numpy as np
import pytest

from gno.retrieve import neighbours


def brute(ids: list[int], m: np.ndarray, threshold: float, k: int) -> dict[tuple[int, int], float]:
    sims = m @ m.T
    out: dict[tuple[int, int], float] = {}
    for i in range(len(ids)):
        order = sorted((j for j in range(len(ids)) if j != i), key=lambda j: -sims[i, j])[:k]
        for j in order:
            if sims[i, j] >= threshold:
                out[(min(ids[i], ids[j]), max(ids[i], ids[j]))] = float(sims[i, j])
    return out


@pytest.mark.parametrize(("n", "k", "threshold", "block"), [(2, 1, 0.0, 256), (11, 3, 0.1, 4), (20, 5, 0.3, 7)])
def test_pairs_match_a_brute_force(
    n: int, k: int, threshold: float, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(neighbours, "BLOCK", block)
    rng = np.random.default_rng(n)
    m = rng.normal(size=(n, 8)).astype(np.float32) + 0.5  # a shared offset: plenty of positive cosines
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    ids = [100 + 3 * i for i in range(n)]
    got = neighbours.neighbour_pairs(ids, m, threshold=threshold, top_k=k)
    want = brute(ids, m, threshold, k)
    assert {(a, b) for a, b, _ in got} == set(want)
    assert all(abs(s - want[(a, b)]) < 1e-5 for a, b, s in got)
    assert [s for _, _, s in got] == sorted((s for _, _, s in got), reverse=True)


def test_fewer_than_two_documents_have_no_pairs() -> None:
    one = np.ones((1, 4), np.float32) / 2
    assert neighbours.neighbour_pairs([1], one, threshold=0.0, top_k=5) == []
