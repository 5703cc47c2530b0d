"""Integrity checks of one index database, for `gno doctor`: SQLite's own and the full-text index's.

`quick_check` is SQLite's `PRAGMA quick_check` (page and record structure, without the index
cross-check of `integrity_check`, which reads every index in full). The FTS5 check is the table's
`integrity-check` command: the inverted index against the rows it was built from. It is issued as
an INSERT (FTS5's command syntax) inside a transaction that is always rolled back, so it changes
nothing; `fts_drift` compares the full-text rows with the active documents (the full-text index
holds exactly those).
"""

from __future__ import annotations

import sqlite3

from gno.store.db import Store


def quick_check(store: Store) -> list[str]:
    """Problems SQLite reports (empty: the database is sound)."""
    try:
        rows = [str(r[0]) for r in store.conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    return [] if rows == ["ok"] else rows


def fts_check(store: Store) -> str | None:
    """None when the full-text index matches its rows, else SQLite's complaint."""
    conn = store.conn
    try:
        conn.execute("BEGIN")
        try:
            conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')")
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None


def fts_drift(store: Store) -> tuple[int, int]:
    """(full-text rows, active documents): equal in a healthy index."""
    fts = int(store.conn.execute("SELECT COUNT(*) FROM documents_fts").fetchone()[0])
    active = int(store.conn.execute("SELECT COUNT(*) FROM documents WHERE active = 1").fetchone()[0])
    return fts, active
