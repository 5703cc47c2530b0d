"""Batched writes of ingested documents: one `executemany` per table per batch.

A first index writes tens of thousands of documents; one statement per row and table is most of
its time. `DocBatch` buffers the rows of new documents (their ids are assigned here, inside the
caller's write transaction, so dependent rows need no round trip) and writes them table by table
on `flush()`. Replacing an existing document deletes its old rows at once and buffers the new
ones, so the order of operations per document is unchanged. The caller flushes before every
commit: a commit never leaves half a document behind.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from gno.store import segments
from gno.store.documents import snapshot, trim_journal
from gno.store.fts_title import title_field

_DOC_INSERT = (
    "INSERT INTO documents(id, collection, rel_path, source_hash, source_size, source_mtime_ns, docid, uri, "
    "title, mirror_hash, body_start_line, frontmatter_json, headings_json, dates_json, indexed_at, active) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,1)"
)
_DOC_UPDATE = (
    "UPDATE documents SET collection=?, rel_path=?, source_hash=?, source_size=?, source_mtime_ns=?, docid=?, "
    "uri=?, title=?, mirror_hash=?, body_start_line=?, frontmatter_json=?, headings_json=?, dates_json=?, "
    "indexed_at=?, active=1 WHERE id=?"
)
_FLUSH: tuple[tuple[str, str], ...] = (
    ("docs", _DOC_INSERT),
    ("content", "INSERT OR IGNORE INTO content(mirror_hash, markdown) VALUES (?,?)"),
    ("fts", "INSERT INTO documents_fts(rowid, filepath, title, body) VALUES (?,?,?,?)"),
    ("tags", "INSERT OR IGNORE INTO doc_tags(doc_id, tag, source) VALUES (?,?,?)"),
    (
        "links",
        "INSERT INTO doc_links(doc_id, link_type, target_ref, target_ref_norm, anchor, link_text, start_line) "
        "VALUES (?,?,?,?,?,?,?)",
    ),
    ("edges", "INSERT INTO doc_edges(doc_id, edge_type, target_uri) VALUES (?,?,?)"),
    ("keys", "INSERT OR IGNORE INTO doc_keys(doc_id, key) VALUES (?,?)"),
    (
        "changes",
        "INSERT INTO document_changes(kind, collection, doc_id, observed_at, previous_json, current_json, "
        "delta_json) VALUES (?,?,?,?,?,?,?)",
    ),
    ("touches", "UPDATE documents SET source_size=?, source_mtime_ns=? WHERE id=?"),
)
_REPLACED = ("doc_tags", "doc_links", "doc_edges", "doc_keys")


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
    indexed_at: str
    link_keys: list[str] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        return snapshot(self.rel_path, self.docid, self.uri, self.source_hash, self.mirror_hash, True)


# one encoder each: `json.dumps` with options builds a new encoder per call
_JSON = json.JSONEncoder().encode
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode
_JSON_FM = json.JSONEncoder(ensure_ascii=False, default=str).encode
# the string escapers those encoders use (C implementations)
_ASCII_STR = json.encoder.encode_basestring_ascii
_TEXT_STR = json.encoder.encode_basestring


def _json_list(items: list[Any]) -> str:
    return _JSON_TEXT(items) if items else "[]"


#: the keys of a journal snapshot and of a heading row, in the order `snapshot()` / ingest build them
_SNAPSHOT_KEYS = ("relPath", "docid", "uri", "sourceHash", "mirrorHash", "active")
_HEADING_KEYS = ("level", "text", "line")


def _snapshot_json(snap: dict[str, Any]) -> str:
    """`_JSON(snap)` byte for byte, written out for the one shape every document's journal event
    carries (the general encoder costs 4x that on a first index; `doc_id_by_past_docid` matches
    its exact spelling); any other shape goes to the encoder."""
    if tuple(snap) != _SNAPSHOT_KEYS or not isinstance(snap["active"], bool):
        return _JSON(snap)
    q = _ASCII_STR
    return (
        f'{{"relPath": {q(snap["relPath"])}, "docid": {q(snap["docid"])}, "uri": {q(snap["uri"])}, '
        f'"sourceHash": {q(snap["sourceHash"])}, "mirrorHash": {q(snap["mirrorHash"])}, '
        f'"active": {"true" if snap["active"] else "false"}}}'
    )


def _headings_json(headings: list[dict[str, Any]]) -> str:
    """`_json_list(headings)` byte for byte for ingest's heading rows (int, str, int), 3x faster."""
    if not all(tuple(h) == _HEADING_KEYS and type(h["level"]) is int and type(h["line"]) is int for h in headings):
        return _json_list(headings)
    q = _TEXT_STR
    rows = (f'{{"level": {h["level"]}, "text": {q(h["text"])}, "line": {h["line"]}}}' for h in headings)
    return "[" + ", ".join(rows) + "]"


class DocBatch:
    """Buffered rows of one write transaction (the caller holds the lease and the transaction)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.rows: dict[str, list[tuple[Any, ...]]] = {name: [] for name, _ in _FLUSH}
        self.pending = 0  # documents buffered since the last flush
        self._next_id: int | None = None

    def _new_id(self) -> int:
        if self._next_id is None:
            self._next_id = int(self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM documents").fetchone()[0])
        doc_id = self._next_id
        self._next_id += 1
        return doc_id

    def put(self, w: DocWrite, existing_id: int | None) -> int:
        """Insert a new document or replace one; returns its id."""
        fm_json = _JSON_FM(w.frontmatter) if w.frontmatter is not None else None
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
            _headings_json(w.headings),
            _json_list(w.dates),
            w.indexed_at,
        )
        rows = self.rows
        if existing_id is None:
            doc_id = self._new_id()
            rows["docs"].append((doc_id, *values))
        else:
            doc_id = existing_id
            self.conn.execute(_DOC_UPDATE, (*values, doc_id))
            self.conn.execute("DELETE FROM documents_fts WHERE rowid=?", (doc_id,))
            for table in _REPLACED:
                self.conn.execute(f"DELETE FROM {table} WHERE doc_id=?", (doc_id,))
        rows["content"].append((w.mirror_hash, w.canonical))
        rows["fts"].append((doc_id, w.rel_path.replace("/", " / "), title_field(w.title, w.frontmatter), w.body))
        rows["tags"].extend((doc_id, t, s) for t, s in w.tags)
        rows["links"].extend((doc_id, *link) for link in w.links)
        rows["edges"].extend((doc_id, e, t) for e, t in w.edges)
        rows["keys"].extend((doc_id, k) for k in w.link_keys if k)
        self.pending += 1
        return doc_id

    def change(
        self,
        kind: str,
        collection: str,
        doc_id: int,
        at: str,
        previous: dict[str, Any] | None,
        current: dict[str, Any] | None,
        delta: dict[str, Any] | None = None,
    ) -> None:
        """One journal event (metadata only, never bodies)."""
        self.rows["changes"].append(
            (
                kind,
                collection,
                doc_id,
                at,
                _snapshot_json(previous) if previous else None,
                _snapshot_json(current) if current else None,
                _JSON_TEXT(delta) if delta else None,
            )
        )

    def touch(self, doc_id: int, size: int, mtime_ns: int) -> None:
        """Same bytes, new stat: remember the stat so the next walk skips the file unread."""
        self.rows["touches"].append((size, mtime_ns, doc_id))

    def flush(self) -> None:
        journaled = bool(self.rows["changes"])
        segments.add(self.conn, self.rows["content"])  # before the rows are cleared; long notes only
        for name, sql in _FLUSH:
            batch = self.rows[name]
            if batch:
                self.conn.executemany(sql, batch)
                batch.clear()
        if journaled:
            trim_journal(self.conn)
        self.pending = 0
