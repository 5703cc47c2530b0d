"""Link graph queries: outgoing links, backlinks and typed edges between active documents.

Wiki and markdown links are stored as written and resolved at query time through `doc_keys`
(normalised title and file stem), preferring a target in the same collection. Typed edges come
from front-matter `relations:` and name their target by `gno://` URI.
"""

from __future__ import annotations

from gno.records import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold `gno links` imports neither typing nor dataclasses
if TYPE_CHECKING:
    from gno.store.db import Store


class Edge(NamedTuple):
    source: int
    target: int
    edge_type: str  # wiki | markdown | <relation type>
    confidence: str  # parsed | explicit
    line: int | None
    target_ref: str


def outgoing(store: Store, doc_id: int) -> list[Edge]:
    rows = store.conn.execute(
        "SELECT l.link_type, l.target_ref, l.start_line, k.doc_id, (d.collection = s.collection) AS same "
        "FROM doc_links l JOIN documents s ON s.id = l.doc_id JOIN doc_keys k ON k.key = l.target_ref_norm "
        "JOIN documents d ON d.id = k.doc_id AND d.active = 1 WHERE l.doc_id = ? AND k.doc_id != l.doc_id "
        "ORDER BY l.start_line, same DESC, d.rel_path",
        (doc_id,),
    ).fetchall()
    out: list[Edge] = []
    seen: set[tuple[str, int]] = set()
    best: dict[tuple[str, int], int] = {}
    for r in rows:
        key = (str(r[1]), int(r[2]))
        if key in best:
            continue  # first (same-collection) resolution wins
        best[key] = int(r[3])
        if (str(r[0]) + str(r[3]), int(r[2])) in seen:
            continue
        seen.add((str(r[0]) + str(r[3]), int(r[2])))
        out.append(Edge(doc_id, int(r[3]), str(r[0]), "parsed", int(r[2]), str(r[1])))
    for r in store.conn.execute(
        "SELECT e.edge_type, e.target_uri, d.id FROM doc_edges e JOIN documents d ON d.uri = e.target_uri "
        "AND d.active = 1 WHERE e.doc_id = ? ORDER BY e.edge_type, e.target_uri",
        (doc_id,),
    ):
        out.append(Edge(doc_id, int(r[2]), str(r[0]), "explicit", None, str(r[1])))
    return out


def incoming(store: Store, doc_id: int) -> list[Edge]:
    rows = store.conn.execute(
        "SELECT DISTINCT l.doc_id, l.link_type, l.start_line, l.target_ref FROM doc_keys k "
        "JOIN doc_links l ON l.target_ref_norm = k.key JOIN documents s ON s.id = l.doc_id AND s.active = 1 "
        "WHERE k.doc_id = ? AND l.doc_id != ? ORDER BY l.doc_id, l.start_line",
        (doc_id, doc_id),
    ).fetchall()
    out = [Edge(int(r[0]), doc_id, str(r[1]), "parsed", int(r[2]), str(r[3])) for r in rows]
    for r in store.conn.execute(
        "SELECT e.doc_id, e.edge_type, e.target_uri FROM doc_edges e JOIN documents t ON t.uri = e.target_uri "
        "AND t.id = ? JOIN documents s ON s.id = e.doc_id AND s.active = 1 ORDER BY e.doc_id",
        (doc_id,),
    ):
        out.append(Edge(int(r[0]), doc_id, str(r[1]), "explicit", None, str(r[2])))
    return out
