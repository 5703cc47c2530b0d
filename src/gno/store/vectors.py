"""Typed reads and writes of chunk vectors (float32 BLOBs keyed by content, chunk and model).

The BLOB table is the source of truth; in-memory matrices (and any ANN index) are rebuilt from it.
Vectors belong to content, not to documents, so identical documents share them and a restored
document keeps its vectors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from gno.store.chunks import CHUNK_SOURCES, CHUNK_TEXT
from gno.store.chunks import chunk_lines as chunk_lines
from gno.store.chunks import chunk_rows as chunk_rows
from gno.store.db import Store
from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold recall checks for vectors without typing or dataclasses
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


WRITES_META = "vector_writes"
#: why a lexical-only answer has no vector leg when nothing at all is embedded
NO_VECTORS = "no vectors yet; run `gno embed`"


class PendingChunk(NamedTuple):
    mirror_hash: str
    seq: int
    text: str
    title: str


_ACTIVE_TITLES = (
    "(SELECT mirror_hash, MIN(title) AS title FROM documents WHERE active = 1 GROUP BY mirror_hash) d "
    "ON d.mirror_hash = c.mirror_hash"
)
_ACTIVE_CHUNKS = f"FROM content_chunks c JOIN {_ACTIVE_TITLES}"


def count_chunks(store: Store) -> int:
    return int(store.conn.execute(f"SELECT COUNT(*) {_ACTIVE_CHUNKS}").fetchone()[0])


def count_embedded(store: Store, fingerprint: str) -> int:
    return int(
        store.conn.execute(
            f"SELECT COUNT(*) {_ACTIVE_CHUNKS} JOIN content_vectors v ON v.mirror_hash = c.mirror_hash "
            "AND v.seq = c.seq AND v.fingerprint = ?",
            (fingerprint,),
        ).fetchone()[0]
    )


def unembedded(collection: str) -> str:
    return f"memory collection {collection!r} has no vectors yet; run `gno embed`"


def no_vectors_reason(store: Store, collection: str) -> str:
    """Why a collection without vectors is searched lexically: nothing is embedded, or not it yet."""
    if store.conn.execute("SELECT 1 FROM content_vectors LIMIT 1").fetchone() is None:
        return NO_VECTORS
    return unembedded(collection)


def fingerprints(store: Store) -> dict[str, int]:
    rows = store.conn.execute("SELECT fingerprint, COUNT(*) FROM content_vectors GROUP BY fingerprint")
    return {str(r[0]): int(r[1]) for r in rows}


def _collections_sql(collections: Sequence[str]) -> tuple[str, list[object]]:
    if not collections:
        return "", []
    return (
        " AND c.mirror_hash IN (SELECT mirror_hash FROM documents WHERE active = 1 AND collection IN "
        f"({','.join('?' * len(collections))}))",
        list(collections),
    )


_NO_VECTOR = (
    "NOT EXISTS (SELECT 1 FROM content_vectors v WHERE v.fingerprint = ? AND v.mirror_hash = c.mirror_hash "
    "AND v.seq = c.seq)"
)


def pending_chunks(store: Store, fingerprint: str, limit: int, collections: Sequence[str] = ()) -> list[PendingChunk]:
    """Chunks of active documents that have no vector for `fingerprint` (shortest work first)."""
    coll_sql, params = _collections_sql(collections)
    rows = store.conn.execute(
        f"SELECT c.mirror_hash, c.seq, {CHUNK_TEXT}, d.title FROM {CHUNK_SOURCES} JOIN {_ACTIVE_TITLES} "
        f"WHERE {_NO_VECTOR}{coll_sql} ORDER BY c.mirror_hash, c.seq LIMIT ?",
        (fingerprint, *params, limit),
    ).fetchall()
    return [PendingChunk(str(r[0]), int(r[1]), str(r[2]), str(r[3] or "")) for r in rows]


def pending_per_content(store: Store, fingerprint: str, collections: Sequence[str] = ()) -> dict[str, int]:
    """content → number of its chunks (of active documents) with no vector for `fingerprint`."""
    coll_sql, params = _collections_sql(collections)
    rows = store.conn.execute(
        f"SELECT c.mirror_hash, COUNT(*) {_ACTIVE_CHUNKS} WHERE {_NO_VECTOR}{coll_sql} GROUP BY c.mirror_hash",
        (fingerprint, *params),
    )
    return {str(r[0]): int(r[1]) for r in rows}


def with_vectors(store: Store, fingerprint: str, keys: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
    """The chunk keys that have a vector for `fingerprint`."""
    out: set[tuple[str, int]] = set()
    for m, s in keys:
        if store.conn.execute(
            "SELECT 1 FROM content_vectors WHERE fingerprint = ? AND mirror_hash = ? AND seq = ?", (fingerprint, m, s)
        ).fetchone():
            out.add((m, s))
    return out


def count_pending_documents(store: Store, fingerprint: str, chunk_key: str) -> int:
    """Active documents `gno embed` still has work for: content not chunked with `chunk_key`, or a
    chunk without a vector for `fingerprint`."""
    return int(
        store.conn.execute(
            "SELECT COUNT(*) FROM documents d LEFT JOIN content_chunking m ON m.mirror_hash = d.mirror_hash "
            "WHERE d.active = 1 AND (m.chunk_key IS NOT ? OR EXISTS (SELECT 1 FROM content_chunks c "
            "WHERE c.mirror_hash = d.mirror_hash AND NOT EXISTS (SELECT 1 FROM content_vectors v "
            "WHERE v.fingerprint = ? AND v.mirror_hash = c.mirror_hash AND v.seq = c.seq)))",
            (chunk_key, fingerprint),
        ).fetchone()[0]
    )


def put_vectors(
    conn: sqlite3.Connection, fingerprint: str, rows: Sequence[tuple[str, int, NDArray[np.float32]]]
) -> None:
    count_write(conn)
    conn.executemany(
        "INSERT OR REPLACE INTO content_vectors(mirror_hash, seq, fingerprint, dim, embedding) VALUES (?,?,?,?,?)",
        [(m, s, fingerprint, int(v.shape[0]), v.astype("<f4").tobytes()) for m, s, v in rows],
    )


def delete_vectors(conn: sqlite3.Connection, fingerprint: str | None = None) -> int:
    count_write(conn)
    if fingerprint is None:
        return int(conn.execute("DELETE FROM content_vectors").rowcount)
    return int(conn.execute("DELETE FROM content_vectors WHERE fingerprint = ?", (fingerprint,)).rowcount)


def load_vectors(store: Store, fingerprint: str) -> tuple[list[tuple[str, int]], bytes, int]:
    """(keys, concatenated float32 bytes, dim) of every vector of active content for a model."""
    rows = store.conn.execute(
        "SELECT v.mirror_hash, v.seq, v.dim, v.embedding FROM content_vectors v WHERE v.fingerprint = ? AND "
        "v.mirror_hash IN (SELECT mirror_hash FROM documents WHERE active = 1) ORDER BY v.mirror_hash, v.seq",
        (fingerprint,),
    ).fetchall()
    dim = int(rows[0][2]) if rows else 0
    keys = [(str(r[0]), int(r[1])) for r in rows]
    return keys, b"".join(bytes(r[3]) for r in rows), dim


def generation(store: Store) -> tuple[int, int, int]:
    """Changes whenever documents or vectors change (cache key for in-memory matrices and ANN files).

    A re-embed can leave the number of vectors as it was, so every vector write also counts itself.
    """
    a = store.conn.execute("SELECT COALESCE(MAX(id), 0) FROM document_changes").fetchone()[0]
    b = store.conn.execute("SELECT COUNT(*) FROM content_vectors").fetchone()[0]
    return int(a), int(b), int(store.get_meta(WRITES_META) or 0)


def count_write(conn: sqlite3.Connection) -> None:
    """Record that vectors changed (inside the writer's transaction)."""
    conn.execute(
        "INSERT INTO schema_meta(key, value) VALUES (?, '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        (WRITES_META,),
    )


def docs_for_mirrors(store: Store, hashes: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    hs = list(dict.fromkeys(hashes))
    for i in range(0, len(hs), 500):
        part = hs[i : i + 500]
        for r in store.conn.execute(
            f"SELECT mirror_hash, id FROM documents WHERE active = 1 AND mirror_hash IN ({','.join('?' * len(part))}) "
            "ORDER BY id",
            part,
        ):
            out.setdefault(str(r[0]), []).append(int(r[1]))
    return out


def collection_has_vectors(store: Store, collection: str, fingerprint: str | None) -> bool:
    """Any vector (of `fingerprint`, or of any model when None) for an active document of a collection."""
    if store.conn.execute("SELECT 1 FROM content_vectors LIMIT 1").fetchone() is None:
        return False  # nothing embedded at all: no need to probe every document of the collection
    sql = (
        "SELECT 1 FROM content_vectors v JOIN documents d ON d.mirror_hash = v.mirror_hash AND d.active = 1 "
        "WHERE d.collection = ?"
    )
    params: list[object] = [collection]
    if fingerprint:
        sql += " AND v.fingerprint = ?"
        params.append(fingerprint)
    return store.conn.execute(sql + " LIMIT 1", params).fetchone() is not None


def filtered_docs(store: Store, where: str, params: Sequence[object]) -> list[tuple[int, str]]:
    """(doc id, mirror hash) of active documents inside a filter."""
    rows = store.conn.execute(f"SELECT d.id, d.mirror_hash FROM documents d WHERE d.active = 1{where}", tuple(params))
    return [(int(r[0]), str(r[1])) for r in rows]


def stored_vectors(store: Store, fingerprint: str, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
    """The stored float32 vectors of some chunks for one model (those that have one)."""
    out: dict[tuple[str, int], bytes] = {}
    for m, s in keys:
        row = store.conn.execute(
            "SELECT embedding FROM content_vectors WHERE fingerprint = ? AND mirror_hash = ? AND seq = ?",
            (fingerprint, m, s),
        ).fetchone()
        if row is not None:
            out[(m, s)] = bytes(row[0])
    return out
