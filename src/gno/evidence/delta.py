"""Rung 5: Knowledge Delta — what changed (changes), how one document changed (diff), what
depends on it (impact), and its links and backlinks.

Metadata-first: the change journal records snapshots and a bounded structural delta
(headings, links, typed edges, dates); bodies are never retained, so `diff` reports the
structure of a change, not a text diff. Cursors are opaque (`c<id>`); a cursor older than the
journal's retention (`gno.store.documents.JOURNAL_RETENTION` events) is reported as expired with
the earliest and latest cursors.
"""

from __future__ import annotations

import json
from collections import deque
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gno.errors import ErrorCode, ValidationError, make_error
from gno.models import (
    ChangeEvent,
    ChangePage,
    ChangesResult,
    DiffResult,
    ImpactNode,
    ImpactResult,
    ImpactStep,
)
from gno.refs import resolve_ref
from gno.store import documents as docs
from gno.store import graph as gstore

if TYPE_CHECKING:
    from gno.index import IndexReader

def encode_cursor(change_id: int) -> str:
    return f"c{change_id}"


def decode_cursor(cursor: str) -> int:
    if not cursor.startswith("c") or not cursor[1:].isdigit():
        raise ValidationError(f"invalid cursor {cursor!r}: cursors look like c123 (from a previous page)")
    return int(cursor[1:])


def _event(row: dict[str, Any]) -> ChangeEvent:
    return ChangeEvent(
        id=encode_cursor(int(row["id"])),
        kind=row["kind"],
        collection=row["collection"],
        observed_at=row["observed_at"],
        previous=json.loads(row["previous_json"]) if row["previous_json"] else None,
        current=json.loads(row["current_json"]) if row["current_json"] else None,
        structure_delta=json.loads(row["delta_json"]) if row["delta_json"] else None,
    )


def changes(
    index: IndexReader, *, since: str | None = None, collection: str | None = None, limit: int = 100
) -> ChangesResult:
    if not 1 <= limit <= 1000:
        raise ValidationError("`limit` must be between 1 and 1000")
    earliest, latest = docs.change_bounds(index.store)
    after = 0
    since_iso: str | None = None
    if since:
        if since.startswith("c") and since[1:].isdigit():
            after = decode_cursor(since)
            if earliest and after < earliest - 1:
                raise make_error(
                    ErrorCode.CURSOR_EXPIRED,
                    "cursor expired: the journal no longer holds it",
                    {
                        "error": "cursor_expired",
                        "earliestCursor": encode_cursor(earliest),
                        "latestCursor": encode_cursor(latest),
                    },
                )
        else:
            try:
                datetime.fromisoformat(since.replace("Z", "+00:00"))
            except ValueError:
                raise ValidationError(
                    f"invalid `since` {since!r}: an ISO date/time (2026-11-30, 2026-11-30T09:00:00Z) or a cursor (c123)"
                ) from None
            since_iso = since
    coll = index.config.require(collection).name if collection else None
    rows = [
        r
        for r in docs.changes(index.store, after, 10**9 if (coll or since_iso) else limit + 1)
        if (coll is None or r["collection"] == coll) and (since_iso is None or r["observed_at"] >= since_iso)
    ]
    page = rows[:limit]
    events = [_event(r) for r in page]
    nxt = encode_cursor(int(page[-1]["id"])) if page else (encode_cursor(after) if after else None)
    return ChangesResult(
        schema_version="1.0",
        changes=events,
        page=ChangePage(
            next_cursor=nxt,
            earliest_cursor=encode_cursor(earliest) if earliest else None,
            latest_cursor=encode_cursor(latest) if latest else None,
            cursor_expired=False,
            truncated=len(rows) > limit,
        ),
    )


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
    ev = _event(evs[-1])
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
