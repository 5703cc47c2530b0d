"""Reciprocal-rank fusion, the one formula every ranked surface uses.

Why one module: `gno query` (weighted legs, reference weights), `recall` (unweighted, its own k)
and the team service (weighted, with the reference's top-rank bonus) all fuse ranked lists the
same way and differ only in k, the weights, the bonus and how they break ties. Each caller passes
those; the formula lives here once.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

#: the reference's RRF constant
RRF_K = 60
#: the reference's top-rank bonus: +0.1 at rank 1, +0.04 at ranks 2-5
REFERENCE_BONUS = (0.1, 0.04)
NO_BONUS = (0.0, 0.0)


def rrf_scores(
    legs: Sequence[tuple[Sequence[K], float]], k: int = RRF_K, top_bonus: tuple[float, float] = NO_BONUS
) -> dict[K, float]:
    """Σ weight / (k + rank) over the legs (rank 1-based), plus the best top-rank bonus an item earned
    in any leg (``top_bonus[0]`` at rank 1, ``top_bonus[1]`` at ranks 2-5). Unsorted: callers order
    ties their own way."""
    scores: dict[K, float] = {}
    bonus: dict[K, float] = {}
    for ranked, weight in legs:
        for rank, item in enumerate(ranked, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            b = top_bonus[0] if rank == 1 else top_bonus[1] if rank <= 5 else 0.0
            bonus[item] = max(bonus.get(item, 0.0), b)
    return {item: s + bonus[item] for item, s in scores.items()}
