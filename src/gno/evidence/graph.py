"""A picture of the vault: documents as nodes, the links and typed relations the index already
holds as edges, optionally edges between documents whose vectors are close.

Edges are the ones `links` and `backlinks` report (wiki and markdown links resolved through the
index, front-matter relations by URI), aggregated per (source, target, type) with the number of
written links as the weight. The picture is bounded: at most `limit` nodes, the most linked
first (distinct neighbours, ties in path order), and at most `edge_limit` edges, only between
returned nodes; `meta` says what was left out. Documents without any edge are left out unless
`include_isolated` (a vault's unlinked notes would otherwise crowd out its structure).

`include_similar` adds `similar` edges from the stored vectors (`gno.retrieve.neighbours`); an
index without vectors (or without an embedder) still answers, with `similarAvailable: false` and
the reason in `warnings`: the links are the picture, the vectors a layer on top of it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from gno.errors import GnoError, ValidationError
from gno.evidence.graph_models import GraphResult
from gno.store import documents as docs
from gno.store import graph as gstore

if TYPE_CHECKING:
    from gno.index import IndexReader
    from gno.retrieve.semantic import Semantic

#: documents compared by their vectors at most (the most linked first): ~1 s of numpy on 2 cores
SIMILAR_BUDGET = 5000

Key = tuple[int, int, str]


def build_graph(
    index: IndexReader,
    semantic: Semantic | None,
    *,
    collection: str | None = None,
    limit: int = 2000,
    edge_limit: int = 10000,
    include_isolated: bool = False,
    include_similar: bool = False,
    threshold: float = 0.7,
    similar_top_k: int = 5,
) -> GraphResult:
    if not 1 <= limit <= 10000 or not 1 <= edge_limit <= 100000 or not 1 <= similar_top_k <= 50:
        raise ValidationError("bounds: `limit` 1..10000, `edgeLimit` 1..100000, `similarTopK` 1..50")
    if not 0.0 <= threshold <= 1.0:
        raise ValidationError(f"`threshold` must be between 0 and 1, got {threshold}")
    store = index.store
    coll = index.config.require(collection).name if collection else None
    weights: defaultdict[Key, float] = defaultdict(float)  # links written per edge; a cosine for `similar`
    for e in gstore.all_edges(store, coll):
        weights[(e.source, e.target, e.edge_type)] += 1
    everyone = gstore.active_ids(store, coll)
    order = {d: i for i, d in enumerate(everyone)}
    warnings: list[str] = []
    available, cut_by_budget = False, False
    if include_similar:
        linked = _neighbours(weights)
        ranked = sorted(everyone, key=lambda d: (-len(linked.get(d, ())), order[d]))
        cut_by_budget = len(ranked) > SIMILAR_BUDGET
        found = _similar(semantic, ranked[:SIMILAR_BUDGET], threshold, similar_top_k, warnings)
        if found is not None:
            available = True
            for a, b, score in found:
                weights[(a, b, "similar")] = round(score, 4)
        if cut_by_budget:
            warnings.append(f"only the {SIMILAR_BUDGET} most linked documents were compared by their vectors")
    near = _neighbours(weights)
    candidates = everyone if include_isolated else [d for d in everyone if near.get(d)]
    picked = sorted(candidates, key=lambda d: (-len(near.get(d, ())), order[d]))[:limit]
    kept = set(picked)
    between = [(k, w) for k, w in weights.items() if k[0] in kept and k[1] in kept]
    total_edges = len(weights)  # every edge joins two candidates (an edge makes both ends linked)
    # links and relations before vector neighbours, then the heaviest; stable in path order
    between.sort(key=lambda kw: (kw[0][2] == "similar", -kw[1], order[kw[0][0]], order[kw[0][1]], kw[0][2]))
    between = between[:edge_limit]
    rows = docs.docs_by_ids(store, picked)
    tags = docs.tags_of(store, picked)
    uri = {d: r.uri for d, r in rows.items()}
    nodes = [
        {
            "uri": r.uri,
            "docid": r.docid,
            "title": r.title,
            "collection": r.collection,
            "rel_path": r.rel_path,
            "tags": tags.get(d, []),
            "degree": len(near.get(d, ())),
        }
        for d in picked
        if (r := rows[d])
    ]
    edges = [{"source": uri[a], "target": uri[b], "type": t, "weight": w} for (a, b, t), w in between]
    meta = {
        "collection": coll,
        "node_limit": limit,
        "edge_limit": edge_limit,
        "total_nodes": len(candidates),
        "total_edges": total_edges,
        "returned_nodes": len(nodes),
        "returned_edges": len(edges),
        "truncated": len(nodes) < len(candidates) or len(edges) < total_edges,
        "linked_only": not include_isolated,
        "included_similar": include_similar,
        "similar_available": available,
        "similar_top_k": similar_top_k,
        "similar_threshold": threshold,
        "similar_truncated_by_compute_budget": cut_by_budget,
        "edge_types": dict(sorted(Counter(t for (_, _, t), _ in between).items())),
        "warnings": warnings,
    }
    # one validation of the whole result (one per node and edge was most of the time at 10k edges)
    return GraphResult.model_validate({"nodes": nodes, "edges": edges, "meta": meta})


def _neighbours(weights: Mapping[Key, float]) -> dict[int, set[int]]:
    out: defaultdict[int, set[int]] = defaultdict(set)
    for a, b, _ in weights:
        out[a].add(b)
        out[b].add(a)
    return out


def _similar(
    semantic: Semantic | None, ids: list[int], threshold: float, top_k: int, warnings: list[str]
) -> list[tuple[int, int, float]] | None:
    """Vector neighbours among `ids`, or None with the reason in `warnings`."""
    reason = "no embedder in this process" if semantic is None else semantic.unavailable_reason()
    if semantic is None or reason is not None:
        warnings.append(f"similar edges left out: {reason}")
        return None
    try:
        vindex = semantic.index()
    except GnoError as err:  # stale or missing vectors: the links still answer
        warnings.append(f"similar edges left out: {err.message}")
        return None
    from gno.retrieve.neighbours import centroids, neighbour_pairs
    from gno.store import vectors as vstore

    mirrors = dict(vstore.filtered_docs(semantic.host.store, "", ()))
    doc_ids, matrix = centroids(vindex, [(d, mirrors[d]) for d in ids if d in mirrors])
    return neighbour_pairs(doc_ids, matrix, threshold=threshold, top_k=top_k)
