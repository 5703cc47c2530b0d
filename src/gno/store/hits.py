"""What a page of search hits shows about its documents, read in one query.

Every rung that returns hits (BM25, vectors, hybrid) turns ranked document ids into hits with a
title, a snippet and tags. This reads exactly that for the whole page at once: identity, title,
the canonical text the snippet is picked from, and the tags (a second query rather than a JSON
aggregate: a cold text search imports no `json`). The text is read through SQLite's incremental
blob I/O, at most `window` bytes of it, so a hit on a 20 MB note costs what a hit on a short one
does (`substr()` would still load the whole value). In a note longer than the window, the window
read is the segment that matches the query (`gno.store.segments`), not the note's start.
It is kept apart from `gno.store.documents`, whose records are dataclasses, so that `gno search`
imports neither `dataclasses` nor `inspect` at start-up.
"""

from __future__ import annotations

from collections.abc import Sequence

from gno.store.db import Store
from gno.store.segments import best_segment
from gno.tuples import NamedTuple

#: SQLite's NOCASE order (the `doc_tags.tag` collation): ASCII letters folded, nothing else
_NOCASE = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class HitDoc(NamedTuple):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str
    body_start_line: int
    markdown: str  # "" when the content row is missing; at most `window` bytes of it when one was given
    truncated: bool  # the text was cut at the window (its last line may be partial)
    first_line: int  # the line number of `markdown`'s first line in the note (1 unless a window deep in it)
    tags: list[str]  # in the index's tag order
    superseded_by: str | None  # a memory fact replaced by a newer one: the (first) successor's uri


def hit_docs(
    store: Store,
    ids: Sequence[int],
    window: int | None = None,
    focus: Sequence[str] = (),
    lines: dict[int, int] | None = None,
) -> dict[int, HitDoc]:
    """doc id → its hit fields, for the ids that exist; with `window`, at most that many bytes of
    each text (cut at a character boundary): of a longer text, the segment holding the doc's line
    in `lines` (a vector hit's chunk), else the first matching the first FTS5 expression of `focus`
    that one matches, else its start."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    conn = store.conn
    rows = conn.execute(
        "SELECT d.id, d.docid, d.uri, d.title, d.collection, d.rel_path, d.body_start_line, c.rowid, d.mirror_hash, "
        "(SELECT MIN(s.uri) FROM doc_edges e JOIN documents s ON s.id = e.doc_id AND s.active = 1 "
        "JOIN memory_records r ON r.doc_id = s.id AND r.valid = 1 "
        "WHERE e.edge_type = 'supersedes' AND e.target_uri = d.uri) "
        f"FROM documents d LEFT JOIN content c ON c.mirror_hash = d.mirror_hash WHERE d.id IN ({marks})",
        tuple(ids),
    ).fetchall()
    tags: dict[int, list[str]] = {}
    for doc_id, tag in conn.execute(f"SELECT doc_id, tag FROM doc_tags WHERE doc_id IN ({marks})", tuple(ids)):
        tags.setdefault(int(doc_id), []).append(tag)
    out: dict[int, HitDoc] = {}
    for r in rows:
        doc_tags = sorted(tags.get(int(r[0]), ()), key=lambda t: t.translate(_NOCASE))
        doc_id = int(r[0])
        text, cut, first = ("", False, 1)
        if r[7] is not None:
            line = (lines or {}).get(doc_id)
            text, cut, first = _read_text(store, int(r[7]), window, str(r[8]), focus, line)
        out[doc_id] = HitDoc(r[1], r[2], r[3], r[4], r[5], int(r[6]), text, cut, first, doc_tags, r[9])
    return out


def _read_text(
    store: Store, rowid: int, window: int | None, mirror_hash: str, focus: Sequence[str], line: int | None
) -> tuple[str, bool, int]:
    """The content row's text, or `window` bytes of it: (text, whether it was cut, its first line)."""
    with store.conn.blobopen("content", "markdown", rowid, readonly=True) as blob:
        size = len(blob)
        if window is None or size <= window:
            return blob.read().decode("utf-8"), False, 1
        seg = best_segment(store, mirror_hash, focus, line) if focus or line is not None else None
        start, first = (0, 1) if seg is None else seg
        blob.seek(start)
        # segments start at a line; a character cut at the window's end is dropped, never replaced
        return blob.read(window).decode("utf-8", "ignore"), start + window < size, first
