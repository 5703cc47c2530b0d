"""Typed reads and writes of chunk rows: spans of the stored content, made for the embedder.

A chunk row is (content, seq, pos, length, lines, tokens); its text is the content's body at
``pos`` for ``length`` characters (the body starts at ``content_chunking.body_pos``), so chunks
cost no second copy of the notes. ``content_chunking`` also records the chunk key the content
was cut with: content without a row for the current key is what the next `gno embed` chunks.
Chunks carried over from an index that stored their text keep it in ``text`` until re-chunked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from gno.store.db import Store
from gno.tuples import NamedTuple

#: the text of chunk ``c`` (joined with content ``t`` and its chunking ``m``)
CHUNK_TEXT = "COALESCE(c.text, substr(t.markdown, m.body_pos + c.pos + 1, c.length))"
CHUNK_SOURCES = (
    "content_chunks c JOIN content t ON t.mirror_hash = c.mirror_hash "
    "LEFT JOIN content_chunking m ON m.mirror_hash = c.mirror_hash"
)
_PART = 500  # host parameters per IN list


class ChunkRow(NamedTuple):
    seq: int
    pos: int  # character offset in the body
    length: int
    start_line: int
    end_line: int
    tokens: int


class ChunkedContent(NamedTuple):
    """New chunks of one content and the seqs whose vectors no longer match them."""

    mirror_hash: str
    body_pos: int
    chunks: list[ChunkRow]
    changed: list[int]


def _active_filter(collections: Sequence[str]) -> tuple[str, list[object]]:
    if not collections:
        return "", []
    return f" AND d.collection IN ({','.join('?' * len(collections))})", list(collections)


def unchunked(store: Store, key: str, collections: Sequence[str] = ()) -> list[str]:
    """Content of active documents (in `collections`) not chunked with `key`, in hash order."""
    where, params = _active_filter(collections)
    rows = store.conn.execute(
        "SELECT DISTINCT d.mirror_hash FROM documents d LEFT JOIN content_chunking m ON m.mirror_hash = d.mirror_hash "
        f"WHERE d.active = 1 AND m.chunk_key IS NOT ?{where} ORDER BY 1",
        (key, *params),
    )
    return [str(r[0]) for r in rows]


def count_unchunked_documents(store: Store, key: str) -> int:
    """Active documents whose content has no chunks for `key` yet (`gno embed` makes them)."""
    return int(
        store.conn.execute(
            "SELECT COUNT(*) FROM documents d LEFT JOIN content_chunking m ON m.mirror_hash = d.mirror_hash "
            "WHERE d.active = 1 AND m.chunk_key IS NOT ?",
            (key,),
        ).fetchone()[0]
    )


def is_chunked(store: Store, mirror_hash: str, key: str | None = None) -> bool:
    """True when the content has chunks (for `key`, or for any key when None)."""
    r = store.conn.execute("SELECT chunk_key FROM content_chunking WHERE mirror_hash = ?", (mirror_hash,)).fetchone()
    return r is not None and (key is None or r[0] == key)


def sources(store: Store, hashes: Sequence[str]) -> list[tuple[str, str, int]]:
    """(mirror_hash, canonical markdown, body start line) of content, for cutting its chunks."""
    out: list[tuple[str, str, int]] = []
    for i in range(0, len(hashes), _PART):
        part = hashes[i : i + _PART]
        out += [
            (str(r[0]), str(r[1]), int(r[2]))
            for r in store.conn.execute(
                "SELECT t.mirror_hash, t.markdown, (SELECT MIN(d.body_start_line) FROM documents d "
                "WHERE d.mirror_hash = t.mirror_hash) FROM content t "
                f"WHERE t.mirror_hash IN ({','.join('?' * len(part))}) ORDER BY 1",
                part,
            )
        ]
    return out


def spans(store: Store, hashes: Sequence[str]) -> dict[str, dict[int, tuple[int, int]]]:
    """mirror_hash → seq → (pos, length) of the chunks the content has now (any key)."""
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for i in range(0, len(hashes), _PART):
        part = hashes[i : i + _PART]
        marks = ",".join("?" * len(part))
        for r in store.conn.execute(
            f"SELECT mirror_hash, seq, pos, length FROM content_chunks WHERE mirror_hash IN ({marks})", part
        ):
            out.setdefault(str(r[0]), {})[int(r[1])] = (int(r[2]), int(r[3]))
    return out


def replace(conn: sqlite3.Connection, key: str, items: Sequence[ChunkedContent]) -> None:
    """Store new chunks of some content; vectors of the chunks that changed are dropped."""
    hashes = [(it.mirror_hash,) for it in items]
    conn.executemany("DELETE FROM content_chunks WHERE mirror_hash = ?", hashes)
    conn.executemany(
        "INSERT INTO content_chunks(mirror_hash, seq, pos, length, start_line, end_line, token_count) "
        "VALUES (?,?,?,?,?,?,?)",
        [
            (it.mirror_hash, c.seq, c.pos, c.length, c.start_line, c.end_line, c.tokens)
            for it in items
            for c in it.chunks
        ],
    )
    stale = [(it.mirror_hash, s) for it in items for s in it.changed]
    if stale:
        conn.executemany("DELETE FROM content_vectors WHERE mirror_hash = ? AND seq = ?", stale)
    conn.executemany(
        "INSERT INTO content_chunking(mirror_hash, chunk_key, body_pos) VALUES (?,?,?) "
        "ON CONFLICT(mirror_hash) DO UPDATE SET chunk_key = excluded.chunk_key, body_pos = excluded.body_pos",
        [(it.mirror_hash, key, it.body_pos) for it in items],
    )


def chunk_count(store: Store, mirror_hash: str) -> int:
    return int(
        store.conn.execute("SELECT COUNT(*) FROM content_chunks WHERE mirror_hash = ?", (mirror_hash,)).fetchone()[0]
    )


def chunk_rows(store: Store, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], tuple[str, int, int]]:
    """(text, start_line, end_line) for chunk keys."""
    out: dict[tuple[str, int], tuple[str, int, int]] = {}
    for m, s in dict.fromkeys(keys):
        r = store.conn.execute(
            f"SELECT {CHUNK_TEXT}, c.start_line, c.end_line FROM {CHUNK_SOURCES} WHERE c.mirror_hash = ? AND c.seq = ?",
            (m, s),
        ).fetchone()
        if r is not None and r[0] is not None:
            out[(m, s)] = (str(r[0]), int(r[1]), int(r[2]))
    return out


def chunk_lines(store: Store, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """The first line of each chunk key (its text is not read: the content may be megabytes)."""
    out: dict[tuple[str, int], int] = {}
    for m, s in dict.fromkeys(keys):
        r = store.conn.execute(
            "SELECT start_line FROM content_chunks WHERE mirror_hash = ? AND seq = ?", (m, s)
        ).fetchone()
        if r is not None:
            out[(m, s)] = int(r[0])
    return out
