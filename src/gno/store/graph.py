"""Link graph queries: outgoing links, backlinks and typed edges between active documents.

Wiki and markdown links are stored as written and resolved at query time through `doc_keys`
(normalised title and file stem), preferring a target in the same collection. Typed edges come
from front-matter `relations:` and name their target by `gno://` URI.
"""

from __future__ import annotations

from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold `gno links` imports neither typing nor dataclasses
if TYPE_CHECKING:
    from typing import Any

    from gno.store.db import Store


class Edge(NamedTuple):
    source: int
    target: int
    edge_type: str  # wiki | markdown | <relation type>
    confidence: str  # parsed | explicit
    line: int | None
    target_ref: str


_LINKS = (
    "SELECT l.doc_id, l.link_type, l.target_ref, l.start_line, k.doc_id, (d.collection = s.collection) AS same "
    "FROM doc_links l JOIN documents s ON s.id = l.doc_id JOIN doc_keys k ON k.key = l.target_ref_norm "
    "JOIN documents d ON d.id = k.doc_id AND d.active = 1 WHERE k.doc_id != l.doc_id"
)
_LINK_ORDER = " ORDER BY l.doc_id, l.start_line, same DESC, d.rel_path"
_TYPED = (
    "SELECT e.doc_id, e.edge_type, e.target_uri, d.id FROM doc_edges e JOIN documents s ON s.id = e.doc_id "
    "JOIN documents d ON d.uri = e.target_uri AND d.active = 1"
)


def _link_edges(rows: list[Any]) -> list[Edge]:
    """Resolved links, each written link once: its first (same-collection) resolution wins.

    `rows` come ordered by source and line, the preferred resolution first (the columns are the
    schema's INTEGER and TEXT, so no conversion is needed)."""
    out: list[Edge] = []
    best: set[tuple[int, str, int]] = set()
    seen: set[tuple[int, str, int, int]] = set()
    for src, kind, ref, line, target, _ in rows:
        key = (src, ref, line)
        if key in best:
            continue
        best.add(key)
        same = (src, kind, target, line)
        if same in seen:
            continue
        seen.add(same)
        out.append(Edge(src, target, kind, "parsed", line, ref))
    return out


def outgoing(store: Store, doc_id: int) -> list[Edge]:
    rows = store.conn.execute(_LINKS + " AND l.doc_id = ?" + _LINK_ORDER, (doc_id,)).fetchall()
    out = _link_edges(rows)
    for r in store.conn.execute(_TYPED + " WHERE e.doc_id = ? ORDER BY e.edge_type, e.target_uri", (doc_id,)):
        out.append(Edge(doc_id, int(r[3]), str(r[1]), "explicit", None, str(r[2])))
    return out


def all_edges(store: Store, collection: str | None = None) -> list[Edge]:
    """Every resolved link and typed relation between active documents (both ends in `collection`
    when one is given), resolved as `outgoing` resolves them one document at a time."""
    where, params = " AND s.active = 1", []
    if collection is not None:
        where += " AND s.collection = ? AND d.collection = ?"
        params = [collection, collection]
    rows = store.conn.execute(_LINKS + where + _LINK_ORDER, params).fetchall()
    out = _link_edges(rows)
    typed = _TYPED + " WHERE" + where.removeprefix(" AND") + " ORDER BY e.doc_id, e.edge_type, e.target_uri"
    for r in store.conn.execute(typed, params):
        out.append(Edge(int(r[0]), int(r[3]), str(r[1]), "explicit", None, str(r[2])))
    return out


def active_ids(store: Store, collection: str | None = None) -> list[int]:
    """Ids of the active documents (of one collection), in path order."""
    sql, params = "SELECT id FROM documents WHERE active = 1", []
    if collection is not None:
        sql, params = sql + " AND collection = ?", [collection]
    return [int(r[0]) for r in store.conn.execute(sql + " ORDER BY collection, rel_path", params)]


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
