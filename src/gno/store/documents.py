"""Typed reads and writes of documents, content, chunks, tags, links, edges and the journal.

Ingestion and the engine call these functions; none of them imports sqlite3. Writes expect to
run inside `Store.write()` (one transaction) while the caller holds the write lease.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gno.store.db import Store

DOC_COLUMNS = (
    "id, collection, rel_path, source_hash, source_size, source_mtime_ns, docid, uri, title, "
    "mirror_hash, body_start_line, active, headings_json, dates_json, frontmatter_json, indexed_at"
)


@dataclass(frozen=True)
class DocRow:
    id: int
    collection: str
    rel_path: str
    source_hash: str
    source_size: int
    source_mtime_ns: int
    docid: str
    uri: str
    title: str
    mirror_hash: str
    body_start_line: int
    active: bool
    headings_json: str
    dates_json: str
    frontmatter_json: str | None
    indexed_at: str

    @classmethod
    def from_row(cls, r: sqlite3.Row) -> DocRow:
        return cls(
            int(r["id"]),
            r["collection"],
            r["rel_path"],
            r["source_hash"],
            int(r["source_size"]),
            int(r["source_mtime_ns"]),
            r["docid"],
            r["uri"],
            r["title"],
            r["mirror_hash"],
            int(r["body_start_line"]),
            bool(r["active"]),
            r["headings_json"],
            r["dates_json"],
            r["frontmatter_json"],
            r["indexed_at"],
        )

    def snapshot(self) -> dict[str, Any]:
        return {
            "relPath": self.rel_path,
            "docid": self.docid,
            "uri": self.uri,
            "sourceHash": self.source_hash,
            "mirrorHash": self.mirror_hash,
            "active": self.active,
        }


@dataclass
class DocWrite:
    """Everything ingestion writes for one document."""

    collection: str
    rel_path: str
    source_hash: str
    source_size: int
    source_mtime_ns: int
    docid: str
    uri: str
    title: str
    mirror_hash: str
    canonical: str
    body: str
    body_start_line: int
    frontmatter: dict[str, Any] | None
    headings: list[dict[str, Any]]
    dates: list[tuple[str, str]]
    tags: list[tuple[str, str]]
    links: list[tuple[str, str, str, str | None, str | None, int]]
    edges: list[tuple[str, str]]
    chunks: list[tuple[int, int, str, int, int, int]]  # seq, pos, text, start, end, tokens
    indexed_at: str
    link_keys: list[str] = field(default_factory=list)


# -- reads ---------------------------------------------------------------------------------
def collection_docs(store: Store, collection: str) -> dict[str, DocRow]:
    rows = store.conn.execute(f"SELECT {DOC_COLUMNS} FROM documents WHERE collection=?", (collection,)).fetchall()
    return {r["rel_path"]: DocRow.from_row(r) for r in rows}


def doc_by_id(store: Store, doc_id: int) -> DocRow | None:
    r = store.conn.execute(f"SELECT {DOC_COLUMNS} FROM documents WHERE id=?", (doc_id,)).fetchone()
    return DocRow.from_row(r) if r else None


def docs_by_ids(store: Store, ids: Sequence[int]) -> dict[int, DocRow]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = store.conn.execute(f"SELECT {DOC_COLUMNS} FROM documents WHERE id IN ({marks})", tuple(ids))
    return {int(r["id"]): DocRow.from_row(r) for r in rows}


def doc_by_path(store: Store, collection: str, rel_path: str) -> DocRow | None:
    r = store.conn.execute(
        f"SELECT {DOC_COLUMNS} FROM documents WHERE collection=? AND rel_path=?", (collection, rel_path)
    ).fetchone()
    return DocRow.from_row(r) if r else None


def docs_by_docid(store: Store, docid: str) -> list[DocRow]:
    rows = store.conn.execute(
        f"SELECT {DOC_COLUMNS} FROM documents WHERE docid LIKE ? ORDER BY active DESC, collection, rel_path",
        (docid[:9] + "%",),
    ).fetchall()
    return [DocRow.from_row(r) for r in rows if r["source_hash"].startswith(docid[1:])]


def list_docs(store: Store, collection: str | None, prefix: str = "", limit: int = 10000) -> list[DocRow]:
    sql = f"SELECT {DOC_COLUMNS} FROM documents WHERE active=1"
    params: list[Any] = []
    if collection:
        sql += " AND collection=?"
        params.append(collection)
    if prefix:
        sql += " AND substr(rel_path, 1, ?) = ?"
        params += [len(prefix), prefix]
    sql += " ORDER BY collection, rel_path LIMIT ?"
    params.append(limit)
    return [DocRow.from_row(r) for r in store.conn.execute(sql, params)]


def content_of(store: Store, mirror_hash: str) -> str | None:
    r = store.conn.execute("SELECT markdown FROM content WHERE mirror_hash=?", (mirror_hash,)).fetchone()
    return None if r is None else str(r[0])


def contents_of(store: Store, hashes: Iterable[str]) -> dict[str, str]:
    hs = sorted(set(hashes))
    if not hs:
        return {}
    marks = ",".join("?" * len(hs))
    rows = store.conn.execute(f"SELECT mirror_hash, markdown FROM content WHERE mirror_hash IN ({marks})", hs)
    return {r[0]: r[1] for r in rows}


def tags_of(store: Store, doc_ids: Sequence[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {i: [] for i in doc_ids}
    if not doc_ids:
        return out
    marks = ",".join("?" * len(doc_ids))
    for r in store.conn.execute(
        f"SELECT doc_id, tag FROM doc_tags WHERE doc_id IN ({marks}) ORDER BY tag", tuple(doc_ids)
    ):
        out[int(r[0])].append(str(r[1]))
    return out


def links_of(store: Store, doc_id: int) -> list[dict[str, Any]]:
    rows = store.conn.execute(
        "SELECT link_type, target_ref, target_ref_norm, anchor, link_text, start_line FROM doc_links "
        "WHERE doc_id=? ORDER BY start_line",
        (doc_id,),
    )
    return [dict(r) for r in rows]


def edges_of(store: Store, doc_id: int) -> list[tuple[str, str]]:
    rows = store.conn.execute("SELECT edge_type, target_uri FROM doc_edges WHERE doc_id=?", (doc_id,))
    return [(str(r[0]), str(r[1])) for r in rows]


def ingest_errors(store: Store, collection: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT collection, rel_path, code, message, occurred_at FROM ingest_errors"
    params: tuple[Any, ...] = ()
    if collection:
        sql += " WHERE collection=?"
        params = (collection,)
    return [dict(r) for r in store.conn.execute(sql + " ORDER BY collection, rel_path", params)]


def collection_counts(store: Store) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in store.conn.execute(
        "SELECT collection, SUM(active) AS a, SUM(1-active) AS i, COUNT(DISTINCT CASE WHEN active=1 "
        "THEN mirror_hash END) AS m FROM documents GROUP BY collection"
    ):
        out[r[0]] = {"active": int(r[1] or 0), "inactive": int(r[2] or 0), "mirrors": int(r[3] or 0)}
    for r in store.conn.execute(
        "SELECT d.collection, COUNT(*) FROM content_chunks c JOIN (SELECT DISTINCT collection, "
        "mirror_hash FROM documents WHERE active=1) d ON d.mirror_hash=c.mirror_hash GROUP BY d.collection"
    ):
        out.setdefault(r[0], {"active": 0, "inactive": 0, "mirrors": 0})["chunks"] = int(r[1])
    return out


# -- writes --------------------------------------------------------------------------------
def write_document(conn: sqlite3.Connection, w: DocWrite, existing_id: int | None) -> int:
    """Insert or replace one active document with its content, chunks, FTS row and metadata."""
    fm_json = json.dumps(w.frontmatter, default=str, ensure_ascii=False) if w.frontmatter is not None else None
    values = (
        w.collection,
        w.rel_path,
        w.source_hash,
        w.source_size,
        w.source_mtime_ns,
        w.docid,
        w.uri,
        w.title,
        w.mirror_hash,
        w.body_start_line,
        fm_json,
        json.dumps(w.headings, ensure_ascii=False),
        json.dumps(w.dates),
        w.indexed_at,
    )
    if existing_id is None:
        cur = conn.execute(
            "INSERT INTO documents(collection, rel_path, source_hash, source_size, source_mtime_ns, docid, "
            "uri, title, mirror_hash, body_start_line, frontmatter_json, headings_json, dates_json, "
            "indexed_at, active) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)",
            values,
        )
        doc_id = int(cur.lastrowid or 0)
    else:
        doc_id = existing_id
        conn.execute(
            "UPDATE documents SET collection=?, rel_path=?, source_hash=?, source_size=?, source_mtime_ns=?, "
            "docid=?, uri=?, title=?, mirror_hash=?, body_start_line=?, frontmatter_json=?, headings_json=?, "
            "dates_json=?, indexed_at=?, active=1 WHERE id=?",
            (*values, doc_id),
        )
        conn.execute("DELETE FROM documents_fts WHERE rowid=?", (doc_id,))
        conn.execute("DELETE FROM doc_tags WHERE doc_id=?", (doc_id,))
        conn.execute("DELETE FROM doc_links WHERE doc_id=?", (doc_id,))
        conn.execute("DELETE FROM doc_edges WHERE doc_id=?", (doc_id,))
    cur = conn.execute(
        "INSERT OR IGNORE INTO content(mirror_hash, markdown) VALUES (?, ?)", (w.mirror_hash, w.canonical)
    )
    if cur.rowcount:
        conn.execute("DELETE FROM content_chunks WHERE mirror_hash=?", (w.mirror_hash,))
        conn.executemany(
            "INSERT INTO content_chunks(mirror_hash, seq, pos, text, start_line, end_line, token_count) "
            "VALUES (?,?,?,?,?,?,?)",
            [(w.mirror_hash, *c) for c in w.chunks],
        )
    conn.execute(
        "INSERT INTO documents_fts(rowid, filepath, title, body) VALUES (?,?,?,?)",
        (doc_id, w.rel_path.replace("/", " / "), w.title, w.body),
    )
    if w.tags:
        conn.executemany(
            "INSERT OR IGNORE INTO doc_tags(doc_id, tag, source) VALUES (?,?,?)",
            [(doc_id, t, s) for t, s in w.tags],
        )
    if w.links:
        conn.executemany(
            "INSERT INTO doc_links(doc_id, link_type, target_ref, target_ref_norm, anchor, link_text, "
            "start_line) VALUES (?,?,?,?,?,?,?)",
            [(doc_id, *link) for link in w.links],
        )
    if w.edges:
        conn.executemany(
            "INSERT INTO doc_edges(doc_id, edge_type, target_uri) VALUES (?,?,?)",
            [(doc_id, e, t) for e, t in w.edges],
        )
    set_link_keys(conn, doc_id, w.link_keys)
    return doc_id


def set_link_keys(conn: sqlite3.Connection, doc_id: int, keys: Iterable[str]) -> None:
    conn.execute("DELETE FROM doc_keys WHERE doc_id=?", (doc_id,))
    conn.executemany("INSERT OR IGNORE INTO doc_keys(doc_id, key) VALUES (?,?)", [(doc_id, k) for k in keys if k])


def touch_document(conn: sqlite3.Connection, doc_id: int, size: int, mtime_ns: int) -> None:
    conn.execute("UPDATE documents SET source_size=?, source_mtime_ns=? WHERE id=?", (size, mtime_ns, doc_id))


def deactivate(conn: sqlite3.Connection, doc_id: int) -> None:
    conn.execute("UPDATE documents SET active=0 WHERE id=?", (doc_id,))
    conn.execute("DELETE FROM documents_fts WHERE rowid=?", (doc_id,))


def rename_document(
    conn: sqlite3.Connection,
    doc_id: int,
    rel_path: str,
    uri: str,
    title_fts: str,
    link_keys: Iterable[str] = (),
) -> None:
    conn.execute("UPDATE documents SET rel_path=?, uri=? WHERE id=?", (rel_path, uri, doc_id))
    if link_keys:
        set_link_keys(conn, doc_id, link_keys)
    row = conn.execute("SELECT title, body FROM documents_fts WHERE rowid=?", (doc_id,)).fetchone()
    if row is not None:
        conn.execute("DELETE FROM documents_fts WHERE rowid=?", (doc_id,))
        conn.execute(
            "INSERT INTO documents_fts(rowid, filepath, title, body) VALUES (?,?,?,?)",
            (doc_id, title_fts, row[0], row[1]),
        )


def delete_document_rows(conn: sqlite3.Connection, doc_id: int) -> None:
    for table in ("doc_tags", "doc_links", "doc_edges", "memory_records", "doc_memory_scopes", "doc_keys"):
        conn.execute(f"DELETE FROM {table} WHERE doc_id=?", (doc_id,))
    conn.execute("DELETE FROM documents_fts WHERE rowid=?", (doc_id,))
    conn.execute("DELETE FROM documents WHERE id=?", (doc_id,))


def delete_collection(conn: sqlite3.Connection, collection: str) -> int:
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM documents WHERE collection=?", (collection,))]
    for i in ids:
        delete_document_rows(conn, i)
    conn.execute("DELETE FROM ingest_errors WHERE collection=?", (collection,))
    return len(ids)


def gc_content(conn: sqlite3.Connection) -> None:
    """Drop content no document refers to any more (inactive documents keep theirs)."""
    conn.execute("DELETE FROM content WHERE mirror_hash NOT IN (SELECT mirror_hash FROM documents)")
    conn.execute("DELETE FROM content_chunks WHERE mirror_hash NOT IN (SELECT mirror_hash FROM content)")
    conn.execute("DELETE FROM content_vectors WHERE mirror_hash NOT IN (SELECT mirror_hash FROM content)")


def record_change(
    conn: sqlite3.Connection,
    kind: str,
    collection: str,
    doc_id: int,
    observed_at: str,
    previous: dict[str, Any] | None,
    current: dict[str, Any] | None,
    delta: dict[str, Any] | None = None,
) -> None:
    conn.execute(
        "INSERT INTO document_changes(kind, collection, doc_id, observed_at, previous_json, current_json, "
        "delta_json) VALUES (?,?,?,?,?,?,?)",
        (
            kind,
            collection,
            doc_id,
            observed_at,
            json.dumps(previous) if previous else None,
            json.dumps(current) if current else None,
            json.dumps(delta, ensure_ascii=False) if delta else None,
        ),
    )


def set_ingest_error(
    conn: sqlite3.Connection, collection: str, rel_path: str, code: str, message: str, at: str
) -> None:
    conn.execute(
        "INSERT INTO ingest_errors(collection, rel_path, code, message, occurred_at) VALUES (?,?,?,?,?) "
        "ON CONFLICT(collection, rel_path) DO UPDATE SET code=excluded.code, message=excluded.message, "
        "occurred_at=excluded.occurred_at",
        (collection, rel_path, code, message[:1000], at),
    )


def clear_ingest_error(conn: sqlite3.Connection, collection: str, rel_path: str) -> None:
    conn.execute("DELETE FROM ingest_errors WHERE collection=? AND rel_path=?", (collection, rel_path))


def prune_ingest_errors(conn: sqlite3.Connection, collection: str, keep: set[str]) -> None:
    rows = conn.execute("SELECT rel_path FROM ingest_errors WHERE collection=?", (collection,)).fetchall()
    for r in rows:
        if r[0] not in keep:
            clear_ingest_error(conn, collection, r[0])


def change_count(store: Store) -> int:
    return int(store.conn.execute("SELECT COUNT(*) FROM document_changes").fetchone()[0])


def changes(store: Store, after_id: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
    rows = store.conn.execute(
        "SELECT id, kind, collection, doc_id, observed_at, previous_json, current_json, delta_json "
        "FROM document_changes WHERE id > ? ORDER BY id LIMIT ?",
        (after_id, limit),
    )
    return [dict(r) for r in rows]


def count_active(store: Store) -> int:
    return int(store.conn.execute("SELECT COUNT(*) FROM documents WHERE active = 1").fetchone()[0])


def chunk_count(store: Store, mirror_hash: str) -> int:
    return int(store.conn.execute("SELECT COUNT(*) FROM content_chunks WHERE mirror_hash = ?",
                                  (mirror_hash,)).fetchone()[0])


def latest_change_id(store: Store) -> int:
    return int(store.conn.execute("SELECT COALESCE(MAX(id), 0) FROM document_changes").fetchone()[0])


def change_bounds(store: Store) -> tuple[int, int]:
    r = store.conn.execute("SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM document_changes").fetchone()
    return int(r[0]), int(r[1])


def doc_id_by_past_docid(store: Store, docid: str) -> int | None:
    """The document that carried `docid` in a journaled snapshot (latest first)."""
    row = store.conn.execute(
        "SELECT doc_id FROM document_changes WHERE previous_json LIKE ? OR current_json LIKE ? "
        "ORDER BY id DESC LIMIT 1",
        (f'%"docid": "{docid}%', f'%"docid": "{docid}%'),
    ).fetchone()
    return None if row is None else int(row[0])
