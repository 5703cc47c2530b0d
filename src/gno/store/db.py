"""The SQLite connection of one index: schema, migrations, transactions.

`gno.store` is the only package that imports sqlite3. The database is derived and
disposable: deleting it and running `gno update` rebuilds the same answers from the files.
Each thread gets its own connection (`Store.conn`), so the readers of a threaded server run in
parallel on WAL snapshots, and a slow query holds only its own connection; writers still
serialise on the cross-process write lease (and SQLite's own write lock).
"""

from __future__ import annotations

import _thread
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1

# Numbered migrations: (version, sql). Version 1 is the schema itself. A test proves that a
# database migrated step by step equals a fresh one.
MIGRATIONS: list[tuple[int, str]] = [
    (
        2,
        """
        -- chunk vectors, keyed by content hash, chunk and model fingerprint (identical content is
        -- embedded once); float32 little-endian BLOBs are the source of truth for every vector index
        CREATE TABLE IF NOT EXISTS content_vectors (
          mirror_hash TEXT NOT NULL,
          seq         INTEGER NOT NULL,
          fingerprint TEXT NOT NULL,
          dim         INTEGER NOT NULL,
          embedding   BLOB NOT NULL,
          PRIMARY KEY (fingerprint, mirror_hash, seq)
        );
        CREATE INDEX IF NOT EXISTS idx_content_vectors_mirror ON content_vectors (mirror_hash);
        -- term statistics of the full-text index (pseudo-relevance feedback)
        CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts_vocab USING fts5vocab(documents_fts, 'row');
        -- link-resolution keys of a document (normalised title and file stem)
        CREATE TABLE IF NOT EXISTS doc_keys (
          doc_id INTEGER NOT NULL,
          key    TEXT NOT NULL,
          PRIMARY KEY (key, doc_id)
        );
        CREATE INDEX IF NOT EXISTS idx_doc_keys_doc ON doc_keys (doc_id);
        """,
    ),
    (
        3,
        """
        -- what a re-index compares with the walk, readable from the index alone (covering)
        CREATE INDEX IF NOT EXISTS idx_documents_stat
          ON documents (collection, rel_path, source_size, source_mtime_ns, active);
        """,
    ),
    (
        4,
        """
        -- chunks are made when embedding, not when indexing, and keep no copy of their text: it is
        -- the stored content at (content_chunking.body_pos + pos, length). `text` holds only the
        -- chunks carried over from an index that stored it; re-chunking replaces them.
        BEGIN;
        CREATE TABLE content_chunks_v4 (
          mirror_hash TEXT NOT NULL,
          seq         INTEGER NOT NULL,
          pos         INTEGER NOT NULL,
          length      INTEGER NOT NULL,
          start_line  INTEGER NOT NULL,
          end_line    INTEGER NOT NULL,
          token_count INTEGER NOT NULL,
          text        TEXT,
          PRIMARY KEY (mirror_hash, seq)
        ) WITHOUT ROWID;
        INSERT INTO content_chunks_v4
          SELECT mirror_hash, seq, pos, length(text), start_line, end_line, token_count, text FROM content_chunks;
        DROP TABLE content_chunks;
        ALTER TABLE content_chunks_v4 RENAME TO content_chunks;
        -- content chunked for the embedder: with which chunker settings and tokenizer (chunk_key),
        -- and where its body (after front matter) starts in content.markdown, in characters
        CREATE TABLE content_chunking (
          mirror_hash TEXT PRIMARY KEY,
          chunk_key   TEXT NOT NULL,
          body_pos    INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO schema_meta(key, value) VALUES ('schema_version', '4')
          ON CONFLICT(key) DO UPDATE SET value = excluded.value;
        COMMIT;
        """,
    ),
    (
        5,
        """
        -- a note longer than a snippet window is cut into segments (gno.store.segments), each in a
        -- full-text index of its own (contentless: the text is the content's bytes at byte_pos), so a
        -- hit deep in it shows the match; ids of one content are consecutive. The Python step after
        -- this script segments the long content already stored.
        BEGIN;
        CREATE TABLE IF NOT EXISTS content_segments (
          id          INTEGER PRIMARY KEY,
          mirror_hash TEXT NOT NULL,
          byte_pos    INTEGER NOT NULL,
          byte_len    INTEGER NOT NULL,
          start_line  INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS idx_content_segments_mirror ON content_segments (mirror_hash, id);
        CREATE VIRTUAL TABLE IF NOT EXISTS content_segments_fts USING fts5 (
          body,
          tokenize = 'porter unicode61 remove_diacritics 2',
          content = '',
          detail = none
        );
        INSERT INTO schema_meta(key, value) VALUES ('schema_version', '5')
          ON CONFLICT(key) DO UPDATE SET value = excluded.value;
        COMMIT;
        """,
    ),
    (
        6,
        """
        -- the full-text title column also holds a note's front-matter aliases and summary
        -- (gno.store.fts_title); the Python step after this script rewrites it for the documents
        -- an older index already holds. No table changes.
        SELECT 1;
        """,
    ),
]


def _schema_sql() -> str:
    from importlib import resources  # only when creating an index: it costs more than a search

    return resources.files("gno.store").joinpath("schema.sql").read_text(encoding="utf-8")


class ThreadConnections:
    """One SQLite connection per thread, opened by `connect` on the thread's first use (a connection
    is never shared between threads), and `close`, which closes every one (used again, it opens new)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        #: this thread's connection (`conn`), and what a thread keeps beside it
        self.local = _thread._local()
        self._opened: list[sqlite3.Connection] = []
        self._guard = _thread.allocate_lock()

    def get(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = self._connect()
            with self._guard:
                self._opened.append(conn)
        return conn

    def close(self) -> None:
        with self._guard:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()
        self.local = _thread._local()


class Store:
    """One index database: one SQLite connection per thread that uses it, opened on first use."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        """Open the index at `path`, creating it when missing: the index is derived, never required."""
        self.path = os.fspath(path)  # a string: pathlib costs more at start-up than a search
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        self._conns = ThreadConnections(lambda: self._guarded(self._connect))
        conn = self.conn  # the first connection creates (or migrates) the schema
        if not readonly:
            self._guarded(self._ensure_schema, conn)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (WAL: readers on other threads are never blocked by it)."""
        return self._conns.get()

    @property
    def scratch(self) -> dict[str, Any]:
        """This thread's memo of derived query state, beside its connection (gone with `close`)."""
        memo: dict[str, Any] | None = getattr(self._conns.local, "scratch", None)
        if memo is None:
            memo = self._conns.local.scratch = {}
        return memo

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=60000")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-32000")
        return conn

    def _guarded(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except sqlite3.DatabaseError as exc:
            from gno.errors import RuntimeFailure

            raise RuntimeFailure(
                f"cannot open index {self.path}: {exc}. The index is disposable: delete it and run "
                "`gno update` to rebuild it from your files",
                details={"path": self.path},
            ) from exc

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        row = conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='schema_meta'").fetchone()
        if row is None:
            # executescript commits on its own; the script is idempotent (IF NOT EXISTS)
            conn.executescript(_schema_sql())
            self.set_meta("schema_version", str(SCHEMA_VERSION))
        current = int(self.get_meta("schema_version") or "1")
        for version, sql in MIGRATIONS:
            if version > current:
                conn.executescript(sql)
                self.set_meta("schema_version", str(version))
                if version in (5, 6):
                    self._data_step(conn, version)

    def _data_step(self, conn: sqlite3.Connection, version: int) -> None:
        """A migration's Python step over what an older index already holds, in one transaction:
        5 segments its long notes, 6 writes front-matter aliases and summaries into the title column."""
        # these import this module: only when migrating
        from gno.store import fts_title, segments

        step = segments.backfill if version == 5 else fts_title.backfill
        conn.execute("BEGIN IMMEDIATE")
        try:
            step(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- transactions -------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE); rolls back on any error."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for multi-statement reads."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            self.conn.execute("COMMIT")

    def close(self) -> None:
        """Close every thread's connection (a closed Store opens new ones if used again)."""
        self._conns.close()

    # -- meta ---------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM schema_meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO schema_meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def execute(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        return list(self.conn.execute(sql, params).fetchall())

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                total += os.stat(self.path + suffix).st_size
            except FileNotFoundError:
                continue
        return total


def schema_dump(store: Store) -> list[tuple[str, str]]:
    """(name, sql) of every schema object, for the migrated-equals-fresh test."""
    rows = store.conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name"
    ).fetchall()
    return [(str(r[0]), " ".join(str(r[1]).split())) for r in rows]
