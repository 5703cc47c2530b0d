"""Reciprocal-rank fusion, the one formula every ranked surface uses.

Why one module: `recall` (unweighted, its own k) and the team service (weighted, with a top-rank
bonus) fuse ranked lists by reciprocal rank and differ only in k, the weights, the bonus and how
they break ties; `gno query` fuses calibrated scores instead (`calibrated_scores`), because rank
fusion puts any document found by both legs above the best document found by one.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class LegTrust:
    """How far `gno query` trusts the vector leg of one embedder, against BM25.

    ``weight`` is the vector leg's share of the fused score (BM25 has the rest); ``floor`` is the
    cosine at or below which a vector hit carries no evidence at all (unrelated texts of a static
    model still score 0.2-0.3; MiniLM's sit near 0.1). Both are chosen per embedder on the
    retrieval suite's tune queries.
    """

    weight: float
    floor: float


def calibrated_scores(
    legs: Sequence[tuple[Sequence[tuple[K, float]], float, float]],
) -> dict[K, float]:
    """Σ weight × calibrated score over the legs, each leg given as ((item, raw score), weight, floor).

    A leg's raw scores are mapped to 0..1 by ``(s - floor) / (best - floor)`` within the query
    (scores at or below the floor are dropped), so a document found by one leg only keeps what that leg
    says about it: a strong vector-only hit can beat notes that merely share generic words, and a
    near-zero cosine adds nothing to the only exact match of a rare word. Unsorted.
    """
    out: dict[K, float] = {}
    for ranked, weight, floor in legs:
        if not ranked or weight <= 0:
            continue
        best = max(s for _, s in ranked)
        if best <= floor:
            continue
        for item, s in ranked:
            if s > floor:  # at or below the floor a hit is no evidence: it is not a candidate
                out[item] = out.get(item, 0.0) + weight * (s - floor) / (best - floor)
    return out
