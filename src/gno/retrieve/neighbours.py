"""Documents whose vectors are close: a document's vector is the normalised mean of its chunk
vectors (its centroid), and two documents are neighbours when their centroids' cosine reaches a
threshold and one is among the other's `top_k` nearest.

Why the centroid for a whole-vault picture: it compares documents at the cost of documents squared;
a per-chunk measure (each chunk's best match in the other document, as one document's neighbours
can afford) is chunks squared over every pair, ~25x more for notes of five chunks. Exact and
bounded: the comparison runs in blocks of rows over the candidate documents only (the caller
bounds how many), so memory stays at block x candidates, never candidates squared.
Identical content (one mirror shared by two documents) is compared once per document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from gno.retrieve.vectors import VectorIndex

BLOCK = 256


def centroids(index: VectorIndex, docs: Sequence[tuple[int, str]]) -> tuple[list[int], NDArray[np.float32]]:
    """(doc ids that have vectors, their unit centroid rows) for (doc id, mirror hash) pairs."""
    if not len(index) or not docs:
        return [], np.zeros((0, 0), np.float32)
    ids = index.mirror_ids
    starts = index.content_runs()  # a mirror's chunks are contiguous rows
    sums = np.add.reduceat(index.matrix, starts, axis=0)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    unit = (sums / np.where(norms == 0, 1, norms)).astype(np.float32)
    row_of = {index.mirrors[int(ids[s])]: i for i, s in enumerate(starts)}
    kept = [(d, row_of[m]) for d, m in docs if m in row_of]
    return [d for d, _ in kept], unit[[r for _, r in kept]] if kept else np.zeros((0, index.dim), np.float32)


def neighbour_pairs(
    doc_ids: Sequence[int], matrix: NDArray[np.float32], *, threshold: float, top_k: int
) -> list[tuple[int, int, float]]:
    """(a, b, cosine) with a < b, for documents that are among each other's `top_k` nearest (either
    way round) at `threshold` or above; strongest first."""
    n = len(doc_ids)
    if n < 2 or top_k < 1:
        return []
    k = min(top_k, n - 1)
    best: dict[tuple[int, int], float] = {}
    for lo in range(0, n, BLOCK):
        sims = matrix[lo : lo + BLOCK] @ matrix.T
        for i in range(sims.shape[0]):
            sims[i, lo + i] = -np.inf  # not its own neighbour
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        for i, row in enumerate(top):
            a = doc_ids[lo + i]
            for j in row:
                score = float(sims[i, j])
                if score >= threshold:
                    b = doc_ids[int(j)]
                    key = (a, b) if a < b else (b, a)
                    best[key] = max(score, best.get(key, -1.0))
    return sorted(((a, b, s) for (a, b), s in best.items()), key=lambda t: (-t[2], t[0], t[1]))
