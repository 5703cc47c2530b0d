"""The default backend: one embedded SQLite file (`<data_dir>/service/service.sqlite`), FTS5 for text.

Why it is enough for a team on one machine: WAL mode lets searches run while a write commits;
writes are serialised by `BEGIN IMMEDIATE` (so check-then-insert sequences such as idempotency,
limits and fact-key conflicts are race-free without extra locks); a busy writer waits up to 30 s.
Each thread gets its own connection.

Vectors are float32 BLOBs in `memories.embedding`. Nearest neighbours are exact: the workspace's
vectors are loaded into a numpy matrix, which measured faster than
sqlite-vec up to 100k rows; a per-workspace cache keyed by (max seq, forgotten count) avoids
re-reading unchanged workspaces.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gno.errors import ValidationError
from gno.retrieve.grammar import compile_fts
from gno.service.backend import MIGRATIONS_TABLE, Filter, Row, migration_files, placeholders, utcnow
from gno.store.db import ThreadConnections

if TYPE_CHECKING:
    from gno.service.backend import Vector

BUSY_TIMEOUT_S = 30.0


class SqliteTx:
    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, cache: _VectorCache) -> None:
        self.conn = conn
        self._cache = cache

    def execute(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return self.conn.execute(sql, tuple(params)).fetchall()

    def lock(self, name: str) -> None:
        """Writers already hold SQLite's single write lock (`BEGIN IMMEDIATE`)."""

    def index_text(self, seq: int, text: str) -> None:
        self.conn.execute("INSERT INTO memories_fts (rowid, body) VALUES (?, ?)", (seq, text))

    def unindex(self, seqs: Sequence[int]) -> None:
        if seqs:
            self.conn.execute(f"DELETE FROM memories_fts WHERE rowid IN ({placeholders(len(seqs))})", tuple(seqs))

    def lexical(self, query: str, filt: Filter, k: int) -> list[tuple[int, float]]:
        try:
            expr = compile_fts(query, any_term=True)
        except ValidationError:
            return []  # nothing searchable (only punctuation): vectors may still answer
        active, params = filt.active("m")
        sql = (
            "SELECT m.seq, bm25(memories_fts) AS r FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid "
            f"WHERE memories_fts MATCH ?{active} ORDER BY r LIMIT ?"
        )
        return [(int(seq), -float(r)) for seq, r in self.conn.execute(sql, [expr, *params, k])]

    def encode_vector(self, vec: Vector) -> object:
        return np.ascontiguousarray(vec, dtype="<f4").tobytes()

    def decode_vector(self, raw: object) -> Vector | None:
        if not isinstance(raw, bytes | memoryview) or not raw:
            return None
        return np.frombuffer(bytes(raw), dtype="<f4").astype(np.float32)

    def nearest(self, vec: Vector, filt: Filter, k: int, fingerprint: str) -> list[tuple[int, float]]:
        m = self._cache.matrix(self, filt.workspace_id, fingerprint)
        seqs = m.seqs
        if not len(seqs) or k <= 0 or m.vectors.shape[1] != vec.shape[0]:
            return []
        scores = m.vectors @ vec.astype(np.float32)
        if filt.scope is not None:
            scores = np.where(m.scopes == filt.scope, scores, -np.inf)
        k = min(k, len(seqs))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(seqs[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


@dataclass(frozen=True)
class _Matrix:
    seqs: np.ndarray[tuple[int], np.dtype[np.int64]]
    scopes: np.ndarray[tuple[int], np.dtype[np.object_]]
    vectors: np.ndarray[tuple[int, int], np.dtype[np.float32]]


class _VectorCache:
    """Per-workspace matrices: appended to when records were added, rebuilt when one was forgotten.

    Writers are serial and `seq` grows with every insert, so (max seq, forgotten count) identifies
    a workspace's state; a newer max seq with the same forgotten count means "only appends".
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], tuple[tuple[int, int], _Matrix]] = {}

    @staticmethod
    def _load(tx: SqliteTx, workspace_id: str, fp: str, after: int) -> _Matrix:
        rows = tx.execute(
            "SELECT seq, scope, embedding FROM memories WHERE workspace_id = ? AND forgotten_at IS NULL "
            "AND embed_fp = ? AND embedding IS NOT NULL AND seq > ? ORDER BY seq",
            (workspace_id, fp, after),
        )
        return _Matrix(
            np.array([r[0] for r in rows], dtype=np.int64),
            np.array([r[1] for r in rows], dtype=object),
            np.frombuffer(b"".join(bytes(r[2]) for r in rows), dtype="<f4").reshape(len(rows), -1).astype(np.float32)
            if rows
            else np.zeros((0, 0), np.float32),
        )

    def matrix(self, tx: SqliteTx, workspace_id: str, fp: str) -> _Matrix:
        stamp_row = tx.execute(
            "SELECT COALESCE(MAX(seq), 0), SUM(forgotten_at IS NOT NULL) FROM memories WHERE workspace_id = ?",
            (workspace_id,),
        )[0]
        stamp = (int(stamp_row[0]), int(stamp_row[1] or 0))
        with self._lock:
            hit = self._entries.get((workspace_id, fp))
        if hit is not None and hit[0] == stamp:
            return hit[1]
        if hit is not None and hit[0][1] == stamp[1] and hit[0][0] < stamp[0]:
            old, new = hit[1], self._load(tx, workspace_id, fp, hit[0][0])
            value = (
                new if not len(old.seqs) else old if not len(new.seqs) else _Matrix(
                    np.concatenate([old.seqs, new.seqs]),
                    np.concatenate([old.scopes, new.scopes]),
                    np.concatenate([old.vectors, new.vectors]),
                )
            )  # fmt: skip
        else:
            value = self._load(tx, workspace_id, fp, 0)
        with self._lock:
            if len(self._entries) > 256:
                self._entries.clear()
            self._entries[(workspace_id, fp)] = (stamp, value)
        return value


class SqliteBackend:
    """SQLite file backend; see the module docstring for its concurrency model."""

    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.display_url = f"sqlite:///{path}"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conns = ThreadConnections(self._connect)
        self._cache = _VectorCache()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _conn(self) -> sqlite3.Connection:
        return self._conns.get()

    @contextmanager
    def _tx(self, begin: str) -> Iterator[SqliteTx]:
        conn = self._conn()
        conn.execute(begin)
        try:
            yield SqliteTx(conn, self._cache)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def read(self) -> AbstractContextManager[SqliteTx]:
        return self._tx("BEGIN")

    def write(self) -> AbstractContextManager[SqliteTx]:
        return self._tx("BEGIN IMMEDIATE")

    def applied_migrations(self) -> list[str]:
        conn = self._conn()
        conn.execute(MIGRATIONS_TABLE)
        return [f"{v:03d}_{n}" for v, n in conn.execute("SELECT version, name FROM migrations ORDER BY version")]

    def migrate(self) -> list[str]:
        applied: list[str] = []
        conn = self._conn()
        conn.execute(MIGRATIONS_TABLE)
        for mig in migration_files(self.dialect):
            conn.execute("BEGIN IMMEDIATE")
            try:
                if conn.execute("SELECT 1 FROM migrations WHERE version = ?", (mig.version,)).fetchone():
                    conn.execute("ROLLBACK")
                    continue
                for statement in _statements(mig.sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (mig.version, mig.name, utcnow()),
                )
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            applied.append(mig.label)
        return applied

    def close(self) -> None:
        self._conns.close()


def _statements(script: str) -> list[str]:
    """Split a migration into statements (so they run inside one explicit transaction)."""
    out: list[str] = []
    buf: list[str] = []
    for line in script.splitlines():
        if not buf and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buf.append(line)
        text = "\n".join(buf)
        if sqlite3.complete_statement(text):
            out.append(text)
            buf = []
    if buf and "\n".join(buf).strip():
        out.append("\n".join(buf))
    return out
