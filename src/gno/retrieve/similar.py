"""`similar`: the documents nearest to one document, by the chunk vectors already stored.

How one document scores another (`method: "best-match"`): each chunk of the document finds its
most similar chunk in the other document, and the cosines are averaged over the document's chunks,
i.e. how much of this document the other one covers. Chosen over the cosine of the two chunk
centroids and over the single best chunk pair on `bench/similar_links.py` (a note's top 5 against
the notes it links to or is linked from): on the tune half it found a linked note in the top 5
for more notes than the centroid on both vaults with both models (hit@5 silverbullet MiniLM 0.917
vs 0.872, wordllama 0.844 vs 0.761; dwarves MiniLM 0.623 vs 0.590, wordllama 0.425 vs 0.415), with
an MRR as good or better (0.743 vs 0.728, 0.682 vs 0.632, 0.491 vs 0.491, 0.354 vs 0.341). A
centroid blurs a note that covers several topics into none of them, and the best pair lets one
shared paragraph decide alone. Cost: one product of the document's chunks with every stored chunk
(in blocks of `_BLOCK` chunks), then a maximum per content (`np.maximum.reduceat` over the
contents' runs of rows).

Nothing is embedded at call time: the document must already have vectors (else
VECTORS_UNAVAILABLE naming `gno embed`), and the stored vectors must be the configured model's
(else VECTORS_STALE, from the vector index). Identical files share one content, so a duplicate
of the document is a neighbour at 1.0; the document itself is never listed. By default
neighbours come from the document's own collection (`cross_collection` widens that to every
collection).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from gno.errors import ErrorCode, make_error
from gno.models import GnoModel
from gno.store import documents as docs
from gno.store import vectors as vstore

if TYPE_CHECKING:
    from gno.retrieve.semantic import Semantic
    from gno.store.db import Store

#: candidates looked up per round while filling `limit` neighbours (a collection filter or
#: duplicates of the document itself may drop some)
_ROUND = 256
#: chunks of the document multiplied with the stored matrix at once (bounds memory: rows x 64 floats)
_BLOCK = 64


class SimilarHit(GnoModel):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str
    score: float = Field(
        description="Mean over the document's chunks of each one's best cosine in this document (1.0: identical)."
    )


class SimilarResult(GnoModel):
    uri: str
    docid: str
    collection: str
    cross_collection: bool
    threshold: float | None = None
    model: str = Field(description="Fingerprint of the model whose vectors were compared.")
    method: str = Field("best-match", description="How two documents' chunk vectors make one score.")
    results: list[SimilarHit]


def similar(
    store: Store,
    semantic: Semantic,
    row: docs.DocRow,
    *,
    limit: int = 5,
    threshold: float | None = None,
    cross_collection: bool = False,
) -> SimilarResult:
    """The `limit` documents that cover `row`'s chunks best (scoring >= `threshold`, if given)."""
    import numpy as np

    idx = semantic.index()  # VECTORS_UNAVAILABLE / VECTORS_STALE when there is nothing to compare
    pos = idx.mirror_position(row.mirror_hash)
    if pos is None:
        raise make_error(
            ErrorCode.VECTORS_UNAVAILABLE,
            f"{row.uri} has no vectors yet (it changed or was added since the last embedding); "
            "run `gno embed` (or `gno index`)",
            {"uri": row.uri, "model": idx.fingerprint},
        )
    start, end = idx.rows_of(pos)
    runs = idx.content_runs()
    total = np.zeros(len(runs), dtype=np.float64)
    for b in range(start, end, _BLOCK):
        sims = idx.matrix @ idx.matrix[b : min(b + _BLOCK, end)].T  # every stored chunk x these chunks
        total += np.maximum.reduceat(sims, runs, axis=0).sum(axis=1)  # each one's best match per content
    scores = total / (end - start)
    order = np.argsort(-scores, kind="stable")
    allowed: set[int] | None = None
    if not cross_collection:
        allowed = {d for d, _ in vstore.filtered_docs(store, " AND d.collection = ?", (row.collection,))}
    picked: list[tuple[int, float]] = []
    for first in range(0, len(order), _ROUND):
        window = [int(i) for i in order[first : first + _ROUND]]
        by_mirror = vstore.docs_for_mirrors(store, [idx.mirrors[i] for i in window])
        for i in window:
            score = float(scores[i])
            if threshold is not None and score < threshold:
                break
            for doc_id in by_mirror.get(idx.mirrors[i], []):
                if doc_id != row.id and (allowed is None or doc_id in allowed):
                    picked.append((doc_id, score))
        else:
            if len(picked) < limit:
                continue
        break
    picked = picked[:limit]
    rows = docs.docs_by_ids(store, [d for d, _ in picked])
    hits = [
        SimilarHit(
            docid=rows[d].docid,
            uri=rows[d].uri,
            title=rows[d].title,
            collection=rows[d].collection,
            rel_path=rows[d].rel_path,
            score=round(min(1.0, max(-1.0, s)), 6),
        )
        for d, s in picked
        if d in rows
    ]
    return SimilarResult(
        uri=row.uri,
        docid=row.docid,
        collection=row.collection,
        cross_collection=cross_collection,
        threshold=threshold,
        model=idx.fingerprint,
        method="best-match",
        results=hits,
    )
