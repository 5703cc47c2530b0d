"""Reciprocal-rank fusion, the one formula every ranked surface uses.

Why one module: `recall` (unweighted, its own k) and the team service (weighted, with a top-rank
bonus) fuse ranked lists by reciprocal rank and differ only in k, the weights, the bonus and how
they break ties; `gno query` fuses calibrated scores instead (`scaled_to_best` for BM25,
`margin_scaled` for vectors, `weighted_sum`), because rank fusion puts any document found by both
legs above the best document found by one.
"""

from __future__ import annotations

from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold recall fuses its one leg without typing, dataclasses or statistics
if TYPE_CHECKING:
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


class LegTrust(NamedTuple):
    """How far `gno query` trusts the vector leg of one embedder, against BM25.

    ``weight`` is the vector leg's share of the fused score (BM25 has the rest). A vector hit earns
    credit by its *margin* over the query's own pool (`margin_scaled`): full credit at ``spread``
    pool standard deviations above the pool's median, none at or below the median. ``floor`` is the
    cosine at or below which a hit is no evidence at all, whatever the pool (a query about nothing
    in the index has a best hit too). Chosen on the retrieval suite's tune queries.
    """

    weight: float
    spread: float
    floor: float


#: below this many hits a pool has no meaningful median or spread: hits are scaled to the best one
MIN_POOL = 3
#: what a hit at or below its pool's median still gets, times its cosine over the best: it stays a
#: candidate (a small collection still lists what it has) but ranks after every hit with evidence
TAIL_CREDIT = 1e-3


def scaled_to_best(ranked: Sequence[tuple[K, float]], floor: float = 0.0) -> dict[K, float]:
    """``(s - floor) / (best - floor)`` within one query; scores at or below the floor are dropped."""
    if not ranked:
        return {}
    best = max(s for _, s in ranked)
    if best <= floor:
        return {}
    return {item: (s - floor) / (best - floor) for item, s in ranked if s > floor}


def margin_scaled(ranked: Sequence[tuple[K, float]], spread: float, floor: float) -> dict[K, float]:
    """A leg's scores as 0..1 evidence from their margin over the query's own pool of hits.

    ``min(1, (s - median) / (spread × stdev))`` over the pool: scaling to the best hit would give
    every query's best vector hit full credit, however little it stands out. On short chat turns
    MiniLM's cosines are uniformly high (0.45 median, 0.60 best), and a hit there must stand out of
    its pool to count; on notes with a distinctive answer the best hit sits about 4 deviations up.
    Hits at or below the median keep only `TAIL_CREDIT`; cosines at or below ``floor`` are dropped.
    """
    pool = [(item, s) for item, s in ranked if s > floor]
    if len(pool) < MIN_POOL:
        return scaled_to_best(pool, floor)
    xs = [s for _, s in pool]
    import statistics

    med, dev = statistics.median(xs), statistics.pstdev(xs)
    best = max(xs)
    if dev <= 0.0:
        return scaled_to_best(pool, floor)
    return {item: max(min(1.0, (s - med) / (spread * dev)), 0.0) + TAIL_CREDIT * s / best for item, s in pool}


def weighted_sum(parts: Sequence[tuple[dict[K, float], float]]) -> dict[K, float]:
    """Σ weight × calibrated score over the legs (each leg already 0..1). Unsorted."""
    out: dict[K, float] = {}
    for scores, weight in parts:
        if weight <= 0:
            continue
        for item, s in scores.items():
            out[item] = out.get(item, 0.0) + weight * s
    return out


def calibrated_scores(
    legs: Sequence[tuple[Sequence[tuple[K, float]], float, float]],
) -> dict[K, float]:
    """Σ weight × calibrated score over the legs, each leg given as ((item, raw score), weight, floor).

    A leg's raw scores are mapped to 0..1 by ``(s - floor) / (best - floor)`` within the query
    (scores at or below the floor are dropped), so a document found by one leg only keeps what that leg
    says about it: a strong vector-only hit can beat notes that merely share generic words, and a
    near-zero cosine adds nothing to the only exact match of a rare word. Unsorted.
    """
    return weighted_sum([(scaled_to_best(ranked, floor), weight) for ranked, weight, floor in legs])
