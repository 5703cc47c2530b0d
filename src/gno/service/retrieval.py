"""Hybrid retrieval for the service: lexical (FTS5 / tsvector) + vectors, fused with RRF.

Built from gno's pieces: the query grammar of `gno.retrieve.grammar` (safe FTS expressions), gno's
embedders (`gno.embed`), and the reciprocal-rank fusion of `gno.retrieve.hybrid` (k = 60, a small
bonus for a list's top ranks; restated here rather than imported, because that module pulls in the
whole document index for one private function — a shared `gno.retrieve.fusion` would serve both).
Vector-only candidates below a cosine floor are dropped so an unrelated query does not return
arbitrary records. Without an embedder (model missing) the mode is `lexical`, ranked lexically.

Grouping by fact: a fact (`fact_key`) appears once, at the rank of its best-matching version, and
shows its newest version first with the older ones linked (`versions`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gno.retrieve.fusion import REFERENCE_BONUS, RRF_K, rrf_scores
from gno.service.backend import Filter, Tx

if TYPE_CHECKING:
    from gno.embed import Embedder
    from gno.service.backend import Vector

log = logging.getLogger("gno.service.retrieval")
CANDIDATES = 100
W_LEXICAL, W_VECTOR = 1.0, 1.0


@dataclass(frozen=True)
class Ranked:
    seqs: list[tuple[int, float]]  # (seq, fused score), best first
    mode: Literal["hybrid", "lexical"]


def embed_query(embedder: Embedder | None, query: str) -> Vector | None:
    """The query vector, or None (no embedder, or it failed: degrade to lexical, never fail)."""
    if embedder is None:
        return None
    try:
        return embedder.embed_query(query)
    except Exception:  # noqa: BLE001 - a broken model must not break search
        log.exception("query embedding failed; searching lexically")
        return None


def rrf(lists: list[tuple[list[int], float]]) -> list[tuple[int, float]]:
    """Weighted RRF (k = 60) with the reference's top-rank bonus; ties newest first (higher seq)."""
    return sorted(rrf_scores(lists, RRF_K, REFERENCE_BONUS).items(), key=lambda x: (-x[1], -x[0]))


def hybrid(tx: Tx, query: str, qvec: Vector | None, filt: Filter, fingerprint: str | None, *, floor: float) -> Ranked:
    lexical = tx.lexical(query, filt, CANDIDATES)
    if qvec is None or fingerprint is None:
        return Ranked([(s, round(score, 6)) for s, score in lexical], "lexical")
    lexical_seqs = {s for s, _ in lexical}
    vector = [(s, c) for s, c in tx.nearest(qvec, filt, CANDIDATES, fingerprint) if c >= floor or s in lexical_seqs]
    fused = rrf([([s for s, _ in lexical], W_LEXICAL), ([s for s, _ in vector], W_VECTOR)])
    return Ranked([(s, round(score, 6)) for s, score in fused], "hybrid")
