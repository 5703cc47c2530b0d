"""Rung 5: Knowledge Delta — what changed (changes), how one document changed (diff), what
depends on it (impact), and its links and backlinks.

Metadata-first: the change journal records snapshots and a bounded structural delta
(headings, links, typed edges, dates); bodies are never retained, so `diff` reports the
structure of a change, not a text diff. Cursors are opaque (`c<id>`); a cursor older than the
journal's retention (`gno.store.documents.JOURNAL_RETENTION` events) is reported as expired with
the earliest and latest cursors.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from gno.change_reads import decode_cursor, event
from gno.errors import ErrorCode, ValidationError, make_error
from gno.models import (
    ChangeEvent,
    ChangesResult,
    DiffResult,
    ImpactNode,
    ImpactResult,
    ImpactStep,
)
from gno.refs import resolve_ref
from gno.store import documents as docs
from gno.store import graph as gstore
from gno.wire import fields

if TYPE_CHECKING:
    from gno.index import IndexReader

def changes(
    index: IndexReader, *, since: str | None = None, collection: str | None = None, limit: int = 100
) -> ChangesResult:
    from gno.change_reads import read_changes

    page = read_changes(
        index.store, lambda c: index.config.require(c).name, since=since, collection=collection, limit=limit
    )
    return ChangesResult.model_validate(fields(page))


def diff(index: IndexReader, ref: str, change_id: str | None = None) -> DiffResult:
    row = resolve_ref(index.store, ref, allow_inactive=True)
    evs = [r for r in docs.changes(index.store, 0, 10**9) if int(r["doc_id"]) == row.id]
    if change_id:
        want = decode_cursor(change_id)
        evs = [r for r in evs if int(r["id"]) == want]
        if not evs:
            raise make_error(ErrorCode.NOT_FOUND, f"no change {change_id} for {row.uri}", {"uri": row.uri})
    doc = {
        "uri": row.uri,
        "docid": row.docid,
        "title": row.title,
        "collection": row.collection,
        "relPath": row.rel_path,
        "active": row.active,
    }
    if not evs:
        return DiffResult(
            status="unavailable",
            document=doc,
            change=None,
            content={"status": "unavailable", "reason": "no recorded change"},
        )
    ev = ChangeEvent.model_validate(fields(event(evs[-1])))
    return DiffResult(
        status="available",
        document=doc,
        change=ev,
        content={
            "status": "structural_only",
            "reason": "bodies are never retained in the journal; the structural delta lists "
            "headings, links, typed edges and dates added or removed",
        },
    )


def impact(
    index: IndexReader, ref: str, *, max_depth: int = 3, max_nodes: int = 100, max_edges: int = 250
) -> ImpactResult:
    """Inbound dependency walk: who links to (or declares a relation to) this document, transitively."""
    if not 1 <= max_depth <= 6 or not 1 <= max_nodes <= 1000 or not 1 <= max_edges <= 5000:
        raise ValidationError("bounds: `maxDepth` 1..6, `maxNodes` 1..1000, `maxEdges` 1..5000")
    store = index.store
    root = resolve_ref(store, ref)
    seen = {root.id: 0}
    paths: dict[int, list[tuple[int, int, str, str, int | None]]] = {root.id: []}
    queue: deque[int] = deque([root.id])
    edges_used, truncated = 0, False
    order: list[int] = []
    while queue:
        cur = queue.popleft()
        depth = seen[cur]
        if depth >= max_depth:
            continue
        for e in gstore.incoming(store, cur):
            if edges_used >= max_edges:
                truncated = True
                break
            edges_used += 1
            if e.source in seen:
                continue
            if len(order) >= max_nodes:
                truncated = True
                break
            seen[e.source] = depth + 1
            paths[e.source] = paths[cur] + [(e.source, cur, e.edge_type, e.confidence, e.line)]
            order.append(e.source)
            queue.append(e.source)
    rows = docs.docs_by_ids(store, order + [root.id])
    uri = {i: r.uri for i, r in rows.items()}
    nodes = []
    for d in order:
        # the path from the impacted document back to the root, one link per step
        steps = [
            ImpactStep(source=uri.get(a, ""), target=uri.get(b, ""), edge_type=t, confidence=c, line=ln)
            for a, b, t, c, ln in reversed(paths[d])
        ]
        nodes.append(
            ImpactNode(uri=rows[d].uri, docid=rows[d].docid, title=rows[d].title, depth=seen[d], evidence_path=steps)
        )
    return ImpactResult(
        root=root.uri,
        impacted=nodes,
        meta={
            "maxDepth": max_depth,
            "maxNodes": max_nodes,
            "maxEdges": max_edges,
            "returnedNodes": len(nodes),
            "returnedEdges": edges_used,
            "truncated": truncated,
        },
    )
