"""The index rows of a collection rename: documents, their URIs, ingest problems and the journal.

Nothing here reads a file: a document's row keeps its content, chunks, vectors, tags, links and
docid (docids follow the bytes, not the name); only `collection` and the `gno://<name>/` prefix of
`uri` change. The journal's past events are rewritten to the new name and URIs (a cursor keeps
its meaning: ids never change), and one `rename` event per active document records the move, so
a reader following `changes` learns each document's new URI.
"""

from __future__ import annotations

import json
import sqlite3

from gno.store.db import Store
from gno.store.documents import DOC_COLUMNS, DocRow, trim_journal


def leftover_rows(store: Store, name: str) -> int:
    """Rows the index still holds for `name` (a removed collection not yet pruned)."""
    return int(store.conn.execute("SELECT COUNT(*) FROM documents WHERE collection = ?", (name,)).fetchone()[0])


def rename_rows(conn: sqlite3.Connection, old: str, new: str, observed_at: str) -> tuple[int, int]:
    """Move every row of `old` to `new` (inside the caller's write transaction, under the lease);
    (documents moved, journal events rewritten)."""
    before, after = f"gno://{old}/", f"gno://{new}/"
    n = len(before) + 1
    active = [
        DocRow.from_row(r)
        for r in conn.execute(f"SELECT {DOC_COLUMNS} FROM documents WHERE collection = ? AND active = 1", (old,))
    ]
    moved = conn.execute(
        "UPDATE documents SET collection = ?, uri = CASE WHEN substr(uri, 1, ?) = ? THEN ? || substr(uri, ?) "
        "ELSE uri END WHERE collection = ?",
        (new, len(before), before, after, n, old),
    ).rowcount
    conn.execute("UPDATE ingest_errors SET collection = ? WHERE collection = ?", (new, old))
    rewritten = 0
    for col in ("previous_json", "current_json"):
        rewritten += conn.execute(
            f"UPDATE document_changes SET {col} = json_set({col}, '$.uri', "
            f"? || substr(json_extract({col}, '$.uri'), ?)) WHERE collection = ? AND json_valid({col}) "
            f"AND substr(json_extract({col}, '$.uri'), 1, ?) = ?",
            (after, n, old, len(before), before),
        ).rowcount
    conn.execute("UPDATE document_changes SET collection = ? WHERE collection = ?", (new, old))
    events = []
    for r in active:
        prev = r.snapshot()
        cur = {**prev, "uri": after + r.uri[len(before) :]}
        events.append((new, r.id, observed_at, json.dumps(prev), json.dumps(cur)))
    conn.executemany(
        "INSERT INTO document_changes(kind, collection, doc_id, observed_at, previous_json, current_json) "
        "VALUES ('rename',?,?,?,?,?)",
        events,
    )
    trim_journal(conn)
    return int(moved), rewritten


def referencing(store: Store, old: str) -> list[DocRow]:
    """Active documents whose front matter `relations:` name a `gno://<old>/…` URI."""
    prefix = f"gno://{old}/"
    rows = store.conn.execute(
        f"SELECT {DOC_COLUMNS} FROM documents WHERE active = 1 AND id IN "
        "(SELECT doc_id FROM doc_edges WHERE substr(target_uri, 1, ?) = ?) ORDER BY collection, rel_path",
        (len(prefix), prefix),
    )
    return [DocRow.from_row(r) for r in rows]
