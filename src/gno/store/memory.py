"""Typed reads and writes of the memory projection: records, scopes, supersede edges."""

from __future__ import annotations

import json

TYPE_CHECKING = False  # not typing's: a cold recall reads fact records without typing
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence
    from typing import Any

    from gno.store.db import Store


def put_record(
    conn: sqlite3.Connection,
    doc_id: int,
    record_id: str | None,
    chash: str | None,
    valid: bool,
    diagnostics: list[str],
    meta: dict[str, Any],
    scopes: Sequence[str],
) -> None:
    conn.execute(
        "INSERT INTO memory_records(doc_id, record_id, content_hash, valid, diagnostics_json, meta_json) "
        "VALUES (?,?,?,?,?,?) ON CONFLICT(doc_id) DO UPDATE SET record_id=excluded.record_id, "
        "content_hash=excluded.content_hash, valid=excluded.valid, "
        "diagnostics_json=excluded.diagnostics_json, "
        "meta_json=excluded.meta_json",
        (
            doc_id,
            record_id,
            chash,
            1 if valid else 0,
            json.dumps(diagnostics),
            json.dumps(meta, ensure_ascii=False),
        ),
    )
    conn.execute("DELETE FROM doc_memory_scopes WHERE doc_id=?", (doc_id,))
    if valid:
        conn.executemany(
            "INSERT OR IGNORE INTO doc_memory_scopes(doc_id, scope) VALUES (?,?)",
            [(doc_id, s) for s in scopes],
        )


def drop_record(conn: sqlite3.Connection, doc_id: int) -> None:
    conn.execute("DELETE FROM memory_records WHERE doc_id=?", (doc_id,))
    conn.execute("DELETE FROM doc_memory_scopes WHERE doc_id=?", (doc_id,))


def records_for(store: Store, doc_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    if not doc_ids:
        return {}
    marks = ",".join("?" * len(doc_ids))
    rows = store.conn.execute(
        f"SELECT doc_id, record_id, content_hash, valid, diagnostics_json, meta_json FROM memory_records "
        f"WHERE doc_id IN ({marks})",
        tuple(doc_ids),
    )
    return {
        int(r[0]): {
            "recordId": r[1],
            "contentHash": r[2],
            "valid": bool(r[3]),
            "diagnostics": json.loads(r[4]),
            "meta": json.loads(r[5]),
        }
        for r in rows
    }


def successors_of(store: Store, uri: str) -> list[str]:
    """URIs of active, valid documents whose `relations.supersedes` names `uri`."""
    rows = store.conn.execute(
        "SELECT s.uri FROM doc_edges e JOIN documents s ON s.id = e.doc_id AND s.active = 1 "
        "JOIN memory_records r ON r.doc_id = s.id AND r.valid = 1 "
        "WHERE e.edge_type = 'supersedes' AND e.target_uri = ? ORDER BY s.uri",
        (uri,),
    )
    return [str(r[0]) for r in rows]


def memory_counts(store: Store, collections: Sequence[str]) -> dict[str, Any]:
    if not collections:
        return {"facts": 0, "current": 0, "superseded": 0, "invalid": 0, "diagnostics": []}
    marks = ",".join("?" * len(collections))
    rows = store.conn.execute(
        f"SELECT d.uri, r.valid, r.diagnostics_json, EXISTS (SELECT 1 FROM doc_edges e JOIN documents s "
        f"ON s.id = e.doc_id AND s.active = 1 JOIN memory_records sr ON sr.doc_id = s.id AND sr.valid = 1 "
        f"WHERE e.edge_type = 'supersedes' AND e.target_uri = d.uri) AS sup "
        f"FROM memory_records r JOIN documents d ON d.id = r.doc_id AND d.active = 1 "
        f"WHERE d.collection IN ({marks}) ORDER BY d.uri",
        tuple(collections),
    ).fetchall()
    facts = len(rows)
    invalid = [r for r in rows if not r[1]]
    superseded = sum(1 for r in rows if r[1] and r[3])
    return {
        "facts": facts,
        "current": facts - len(invalid) - superseded,
        "superseded": superseded,
        "invalid": len(invalid),
        "diagnostics": [{"uri": r[0], "codes": json.loads(r[2])} for r in invalid],
    }


def current_by_hash(store: Store, collection: str, scopes: Sequence[str], chash: str) -> int | None:
    """Doc id of a current (valid, not superseded) fact with this content hash in any of the scopes."""
    if not scopes:
        return None
    marks = ",".join("?" * len(scopes))
    row = store.conn.execute(
        "SELECT d.id FROM memory_records r JOIN documents d ON d.id = r.doc_id AND d.active = 1 "
        f"WHERE r.valid = 1 AND r.content_hash = ? AND d.collection = ? AND d.id IN (SELECT doc_id FROM "
        f"doc_memory_scopes WHERE scope IN ({marks})) AND NOT EXISTS (SELECT 1 FROM doc_edges e JOIN documents s "
        "ON s.id = e.doc_id AND s.active = 1 JOIN memory_records sr ON sr.doc_id = s.id AND sr.valid = 1 "
        "WHERE e.edge_type = 'supersedes' AND e.target_uri = d.uri) ORDER BY d.rel_path LIMIT 1",
        (chash, collection, *scopes),
    ).fetchone()
    return None if row is None else int(row[0])
