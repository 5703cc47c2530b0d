"""The request ledger's SQLite file: one row per request ID of a retry-safe write.

The ledger lives in its own file beside the index (`index-<name>.requests.sqlite`), not in the
index: the index is disposable and rebuilt from the files, but what a request ID already did
cannot be re-derived from them, so deleting the index must not forget it. Rows are written only
under the index's write lease (one writer); reads never wait. `synchronous=FULL`: a row the
writer committed is on disk before the write it guards touches a file.

A row is `pending` (the write's plan is recorded, its outcome is not), `committed` (the result
is kept for replay) or `expired` (a tombstone: the ID and its intent, no result).
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any, NamedTuple

from gno.errors import ErrorCode, RuntimeFailure

SCHEMA = """
CREATE TABLE IF NOT EXISTS requests (
  request_id   TEXT PRIMARY KEY,
  operation    TEXT NOT NULL,
  intent       TEXT NOT NULL,
  status       TEXT NOT NULL,          -- pending | committed | expired
  plan_json    TEXT,
  result_json  TEXT,
  pointer_json TEXT,
  created_at   TEXT NOT NULL,
  committed_at TEXT
);
CREATE INDEX IF NOT EXISTS idx_requests_committed ON requests (status, committed_at);
CREATE TABLE IF NOT EXISTS renames (     -- collection renames, so a retry's intent is still recognised
  old_name   TEXT NOT NULL,
  new_name   TEXT NOT NULL,
  renamed_at TEXT NOT NULL
);
"""


class LedgerRow(NamedTuple):
    request_id: str
    operation: str
    intent: str
    status: str
    plan: dict[str, Any] | None
    result: dict[str, Any] | None
    pointer: dict[str, Any] | None
    created_at: str
    committed_at: str | None


def _unavailable(path: str, exc: Exception) -> RuntimeFailure:
    return RuntimeFailure(
        f"the request ledger {path} cannot be used ({exc}); move it aside to start a new one (request IDs "
        "already used are then forgotten), or retry without --request-id",
        code=ErrorCode.REQUEST_LEDGER_UNAVAILABLE,
        details={"path": path},
    )


def _loads(raw: Any) -> dict[str, Any] | None:
    return None if raw is None else dict(json.loads(raw))


class LedgerDb:
    """The ledger file; opened per call (writes are rare, and a fork must never share a connection)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)

    def _connect(self) -> sqlite3.Connection:
        try:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise _unavailable(self.path, exc) from exc
        return conn

    def _run(self, fn: Any) -> Any:
        conn = self._connect()
        try:
            return fn(conn)
        except sqlite3.Error as exc:
            raise _unavailable(self.path, exc) from exc
        finally:
            conn.close()

    def get(self, request_id: str) -> LedgerRow | None:
        def q(conn: sqlite3.Connection) -> LedgerRow | None:
            r = conn.execute(
                "SELECT request_id, operation, intent, status, plan_json, result_json, pointer_json, created_at, "
                "committed_at FROM requests WHERE request_id = ?",
                (request_id,),
            ).fetchone()
            if r is None:
                return None
            return LedgerRow(r[0], r[1], r[2], r[3], _loads(r[4]), _loads(r[5]), _loads(r[6]), r[7], r[8])

        row: LedgerRow | None = self._run(q)
        return row

    def count(self) -> int:
        return int(self._run(lambda c: c.execute("SELECT count(*) FROM requests").fetchone()[0]))

    def _changed(self, sql: str, params: tuple[Any, ...]) -> int:
        """Run one writing statement; the number of rows it changed."""
        return int(self._run(lambda c: c.execute(sql, params).rowcount))

    def expire_before(self, cutoff: str) -> int:
        """Committed outcomes older than `cutoff` become tombstones (ID and intent kept, result dropped)."""
        return self._changed(
            "UPDATE requests SET status = 'expired', result_json = NULL, plan_json = NULL "
            "WHERE status = 'committed' AND committed_at < ?",
            (cutoff,),
        )

    def evict_tombstones(self, n: int) -> int:
        """Drop the `n` oldest tombstones (to stay under the row cap)."""
        return self._changed(
            "DELETE FROM requests WHERE request_id IN (SELECT request_id FROM requests "
            "WHERE status = 'expired' ORDER BY committed_at, request_id LIMIT ?)",
            (n,),
        )

    def put_pending(self, request_id: str, operation: str, intent: str, plan: dict[str, Any] | None, at: str) -> None:
        self._changed(
            "INSERT INTO requests (request_id, operation, intent, status, plan_json, created_at) "
            "VALUES (?, ?, ?, 'pending', ?, ?) ON CONFLICT(request_id) DO UPDATE SET "
            "plan_json = excluded.plan_json WHERE status = 'pending'",
            (request_id, operation, intent, None if plan is None else json.dumps(plan), at),
        )

    def commit(self, request_id: str, result: dict[str, Any], pointer: dict[str, Any], at: str) -> None:
        self._changed(
            "UPDATE requests SET status = 'committed', result_json = ?, pointer_json = ?, committed_at = ? "
            "WHERE request_id = ?",
            (json.dumps(result), json.dumps(pointer), at, request_id),
        )

    def former_names(self, name: str) -> list[str]:
        """The names collection `name` had before (newest first), from the renames recorded here."""
        if not os.path.exists(self.path):
            return []
        pairs: list[tuple[str, str]] = self._run(
            lambda c: c.execute(
                "SELECT old_name, new_name FROM renames ORDER BY renamed_at DESC, rowid DESC"
            ).fetchall()
        )
        out: list[str] = []
        current = name
        for old, new in pairs:
            if new == current and old != name and old not in out:
                out.append(old)
                current = old
        return out

    def rename_collection(self, old: str, new: str, at: str) -> int:
        """Kept outcomes that name collection `old` (its `gno://old/…` URIs, its `collection` field)
        name `new` instead, so a replay after `collection rename` points at documents that exist, and
        the rename is recorded so a retry whose intent named `old` is still recognised (the digests
        are not recomputed). How many outcomes moved."""
        if not os.path.exists(self.path):
            return 0  # no request ID was ever used: nothing to follow, and no ledger file to create
        prefix = f"gno://{old}/"

        def move(value: Any, key: str | None = None) -> Any:
            if isinstance(value, dict):
                return {k: move(v, k) for k, v in value.items()}
            if isinstance(value, list):
                return [move(v) for v in value]
            if isinstance(value, str):
                if value.startswith(prefix):
                    return f"gno://{new}/" + value[len(prefix) :]
                if key == "collection" and value == old:
                    return new
            return value

        def q(conn: sqlite3.Connection) -> int:
            moved = 0
            conn.execute("BEGIN IMMEDIATE")
            rows = conn.execute(
                "SELECT request_id, result_json, pointer_json FROM requests WHERE status = 'committed' "
                "AND (instr(result_json, ?) > 0 OR instr(pointer_json, ?) > 0)",
                (json.dumps(old)[1:-1], json.dumps(old)[1:-1]),
            ).fetchall()
            for rid, raw_result, raw_pointer in rows:
                result, pointer = _loads(raw_result), _loads(raw_pointer)
                new_result, new_pointer = move(result), move(pointer)
                if new_result != result or new_pointer != pointer:
                    conn.execute(
                        "UPDATE requests SET result_json = ?, pointer_json = ? WHERE request_id = ?",
                        (json.dumps(new_result), None if new_pointer is None else json.dumps(new_pointer), rid),
                    )
                    moved += 1
            conn.execute("INSERT INTO renames (old_name, new_name, renamed_at) VALUES (?, ?, ?)", (old, new, at))
            conn.execute("COMMIT")
            return moved

        return int(self._run(q))

    def delete(self, request_id: str) -> None:
        self._run(lambda c: c.execute("DELETE FROM requests WHERE request_id = ?", (request_id,)))
