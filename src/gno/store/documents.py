"""Typed reads of documents, content, chunks, tags, links, edges and the journal, and the
small writes that retire documents (deactivate, delete, collect content, ingest problems).

Ingestion and the engine call these functions; none of them imports sqlite3. Writes expect to
run inside a write transaction while the caller holds the write lease. Writing ingested
documents is `gno.store.doc_batch`.
"""

from __future__ import annotations

from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold read (`gno get`, `gno ls`) imports neither typing nor dataclasses
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence
    from typing import Any

    from gno.store.db import Store

#: what belongs to content (by mirror hash) rather than to a document
CONTENT_TABLES = ("content", "content_chunks", "content_chunking", "content_vectors")


class DocRow(NamedTuple):
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
        """A row of `SELECT {DOC_COLUMNS}`: each field from its column (`active` is stored as 0/1)."""
        return cls._make([bool(r[name]) if name == "active" else r[name] for name in cls._fields])

    def snapshot(self) -> dict[str, Any]:
        return snapshot(self.rel_path, self.docid, self.uri, self.source_hash, self.mirror_hash, self.active)


#: the documents table's columns, in DocRow's order
DOC_COLUMNS = ", ".join(DocRow._fields)


def snapshot(
    rel_path: str, docid: str, uri: str, source_hash: str, mirror_hash: str, active: bool
) -> dict[str, Any]:
    """A document's identity as the change journal records it (metadata only, never the body)."""
    return {
        "relPath": rel_path,
        "docid": docid,
        "uri": uri,
        "sourceHash": source_hash,
        "mirrorHash": mirror_hash,
        "active": active,
    }


class StatRow(NamedTuple):
    """What a re-index compares a walked file with, and nothing more."""

    id: int
    size: int
    mtime_ns: int
    active: bool


def stat_rows(store: Store, collection: str, rel_paths: Sequence[str] | None = None) -> dict[str, StatRow]:
    """rel_path → (id, size, mtime, active) of a collection's documents (or of some of its paths).

    Read from the covering index `idx_documents_stat` alone: a no-change re-index of a large
    collection touches no table page.
    """
    cur = store.conn.cursor()
    cur.row_factory = None
    sql = (
        "SELECT rel_path, id, source_size, source_mtime_ns, active FROM documents INDEXED BY idx_documents_stat "
        "WHERE collection=?"
    )
    if rel_paths is None:
        rows = cur.execute(sql, (collection,)).fetchall()
    else:
        rows = []
        paths = list(rel_paths)
        for i in range(0, len(paths), 500):
            part = paths[i : i + 500]
            rows += cur.execute(sql + f" AND rel_path IN ({','.join('?' * len(part))})", (collection, *part))
    return {r[0]: StatRow(r[1], r[2], r[3], r[4] == 1) for r in rows}


def source_hashes(store: Store, ids: Sequence[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        rows = store.conn.execute(
            f"SELECT id, source_hash FROM documents WHERE id IN ({','.join('?' * len(part))})", tuple(part)
        )
        out.update((int(r[0]), str(r[1])) for r in rows)
    return out


def indexed_collections(store: Store) -> list[str]:
    return [str(r[0]) for r in store.conn.execute("SELECT DISTINCT collection FROM documents ORDER BY 1")]


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


def _list_where(collection: str | None, prefix: str) -> tuple[str, list[Any]]:
    sql = " WHERE active=1"
    params: list[Any] = []
    if collection:
        sql += " AND collection=?"
        params.append(collection)
    if prefix:
        sql += " AND substr(rel_path, 1, ?) = ?"
        params += [len(prefix), prefix]
    return sql, params


def list_docs(
    store: Store, collection: str | None, prefix: str = "", limit: int = 10000, offset: int = 0
) -> list[DocRow]:
    where, params = _list_where(collection, prefix)
    sql = f"SELECT {DOC_COLUMNS} FROM documents{where} ORDER BY collection, rel_path LIMIT ? OFFSET ?"
    return [DocRow.from_row(r) for r in store.conn.execute(sql, [*params, limit, offset])]


def count_docs(store: Store, collection: str | None, prefix: str = "") -> int:
    where, params = _list_where(collection, prefix)
    return int(store.conn.execute(f"SELECT COUNT(*) FROM documents{where}", params).fetchone()[0])


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


def ingest_problems(store: Store, collection: str) -> dict[str, tuple[str, str]]:
    """rel_path → (code, message) of a collection's standing ingest problems."""
    rows = store.conn.execute("SELECT rel_path, code, message FROM ingest_errors WHERE collection=?", (collection,))
    return {str(r[0]): (str(r[1]), str(r[2])) for r in rows}


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
def deactivate(conn: sqlite3.Connection, doc_id: int) -> None:
    conn.execute("UPDATE documents SET active=0 WHERE id=?", (doc_id,))
    conn.execute("DELETE FROM documents_fts WHERE rowid=?", (doc_id,))


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


#: change-journal events kept: older ones are dropped as new ones arrive, so the journal (and a
#: filtered `changes` read, which scans it) stays bounded; a cursor before them is CURSOR_EXPIRED
JOURNAL_RETENTION = 100_000


def trim_journal(conn: sqlite3.Connection, keep: int | None = None) -> None:
    """Keep the newest `keep` (default JOURNAL_RETENTION) journal events; ids are never reused."""
    conn.execute(
        "DELETE FROM document_changes WHERE id <= (SELECT MAX(id) FROM document_changes) - ?",
        (JOURNAL_RETENTION if keep is None else keep,),
    )


def deactivate_collection(conn: sqlite3.Connection, collection: str, observed_at: str) -> int:
    """Take a collection's documents out of search, journaled; rows, content and vectors stay."""
    from json import dumps

    rows = [
        DocRow.from_row(r)
        for r in conn.execute(f"SELECT {DOC_COLUMNS} FROM documents WHERE collection=? AND active=1", (collection,))
    ]
    for table in ("memory_records", "doc_memory_scopes"):
        conn.execute(
            f"DELETE FROM {table} WHERE doc_id IN (SELECT id FROM documents WHERE collection=?)", (collection,)
        )
    conn.executemany("DELETE FROM documents_fts WHERE rowid=?", [(r.id,) for r in rows])
    conn.execute("UPDATE documents SET active=0 WHERE collection=?", (collection,))
    conn.executemany(
        "INSERT INTO document_changes(kind, collection, doc_id, observed_at, previous_json, current_json) "
        "VALUES ('inactivate',?,?,?,?,?)",
        [
            (collection, r.id, observed_at, dumps(r.snapshot()), dumps({**r.snapshot(), "active": False}))
            for r in rows
        ],
    )
    conn.execute("DELETE FROM ingest_errors WHERE collection=?", (collection,))
    trim_journal(conn)
    return len(rows)


def gc_content(conn: sqlite3.Connection, hashes: Sequence[str] | None = None) -> None:
    """Drop content no document refers to any more (inactive documents keep theirs).

    With `hashes`, only those candidates are checked (what a sync replaced); without, everything.
    """
    from gno.store import segments  # only when content may go: not on a cold read's path

    if hashes is None:
        segments.drop(conn)
        conn.execute("DELETE FROM content WHERE mirror_hash NOT IN (SELECT mirror_hash FROM documents)")
        for table in CONTENT_TABLES[1:]:
            conn.execute(f"DELETE FROM {table} WHERE mirror_hash NOT IN (SELECT mirror_hash FROM content)")
        return
    unused = [
        (h,) for h in hashes
        if conn.execute("SELECT 1 FROM documents WHERE mirror_hash=? LIMIT 1", (h,)).fetchone() is None
    ]
    segments.drop(conn, [h for (h,) in unused])
    for table in CONTENT_TABLES:
        conn.executemany(f"DELETE FROM {table} WHERE mirror_hash=?", unused)


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
