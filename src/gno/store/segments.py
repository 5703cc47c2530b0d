"""Where in a long note a query matches: its text cut into windows, each in a small full-text index.

A hit shows a snippet picked from at most `SEGMENT_BYTES` of its note's text, so that a search
costs the same whatever one note's size. For a note no longer than that, the window is the whole
note. A longer one (an export, a log) is cut at index time into consecutive segments of at most
`SEGMENT_BYTES`, each ending at a line end, recorded in ``content_segments`` (byte offset, length
and first line in the stored content) and indexed in ``content_segments_fts`` under the same
tokenizer as the documents. A hit on such a note then asks that index for the first of the note's
segments holding every query word, else any of them (a rowid range: the segments of one content
have consecutive ids; in rowid order FTS5 stops at the first, so the cost is bounded by the
note's postings, not its text), and reads only that segment through blob I/O, so the snippet
shows the match however deep it lies.

Segments belong to content (by mirror hash), like chunks and vectors: identical notes share them
and `gno.store.documents.gc_content` drops them with their content. The full-text table stores
neither the text (``content=''``: it is the content's own bytes, which is why a segment is
deleted with the text it was indexed from, read back from the content before it goes) nor
positions (``detail=none``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

from gno.store.db import Store
from gno.tuples import NamedTuple

#: the most bytes of a note's text a snippet is picked from (32 KB is ~5,000 words of English:
#: longer than nearly every hand-written note, which is therefore never cut)
SEGMENT_BYTES = 32 * 1024
_PART = 500  # host parameters per IN list


class Segment(NamedTuple):
    byte_pos: int  # offset in the content's UTF-8 text
    start_line: int  # its first line's number in the content (1-based)


def cut(markdown: str, size: int = SEGMENT_BYTES) -> list[tuple[int, int, str]]:
    """(byte offset, first line, text) of each segment of `markdown`; [] when it fits in one.

    Segments end at a line end unless one line is longer than `size` (then at a character
    boundary inside it); together they cover the text exactly once."""
    data = markdown.encode("utf-8")
    if len(data) <= size:
        return []
    out: list[tuple[int, int, str]] = []
    pos, line = 0, 1
    while pos < len(data):
        end = min(pos + size, len(data))
        if end < len(data):
            nl = data.rfind(b"\n", pos, end)
            if nl >= pos:
                end = nl + 1
            else:  # one line longer than a segment: cut before a UTF-8 continuation byte never
                while end > pos + 1 and data[end] & 0xC0 == 0x80:
                    end -= 1
        piece = data[pos:end]
        out.append((pos, line, piece.decode("utf-8", "ignore")))
        line += piece.count(b"\n")
        pos = end
    return out


def add(conn: sqlite3.Connection, contents: Iterable[tuple[str, str]]) -> int:
    """Segment each (mirror_hash, markdown) longer than a segment that has no segments yet.

    Returns the number of contents segmented. The caller holds the write transaction."""
    done = 0
    for mirror_hash, markdown in contents:
        if len(markdown) <= SEGMENT_BYTES // 4:  # fits whatever its characters encode to
            continue
        parts = cut(markdown)
        if not parts:
            continue
        if conn.execute("SELECT 1 FROM content_segments WHERE mirror_hash=? LIMIT 1", (mirror_hash,)).fetchone():
            continue  # identical content indexed before: it shares those segments
        first = int(conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM content_segments").fetchone()[0])
        conn.executemany(
            "INSERT INTO content_segments(id, mirror_hash, byte_pos, byte_len, start_line) VALUES (?,?,?,?,?)",
            [(first + i, mirror_hash, pos, len(text.encode()), line) for i, (pos, line, text) in enumerate(parts)],
        )
        conn.executemany(
            "INSERT INTO content_segments_fts(rowid, body) VALUES (?,?)",
            [(first + i, text) for i, (_, _, text) in enumerate(parts)],
        )
        done += 1
    return done


def drop(conn: sqlite3.Connection, hashes: Sequence[str] | None = None) -> None:
    """Drop the segments of `hashes`, or (None) of every content no document refers to any more.

    Call it before the content rows go: a contentless full-text row is deleted with its text."""
    if hashes is None:
        hashes = [
            str(r[0])
            for r in conn.execute(
                "SELECT DISTINCT mirror_hash FROM content_segments "
                "WHERE mirror_hash NOT IN (SELECT mirror_hash FROM documents)"
            )
        ]
    for mirror_hash in hashes:
        rows = conn.execute(
            "SELECT id, byte_pos, byte_len FROM content_segments WHERE mirror_hash=? ORDER BY id", (mirror_hash,)
        ).fetchall()
        if not rows:
            continue
        text = conn.execute("SELECT markdown FROM content WHERE mirror_hash=?", (mirror_hash,)).fetchone()
        if text is not None:
            data = str(text[0]).encode("utf-8")
            conn.executemany(
                "INSERT INTO content_segments_fts(content_segments_fts, rowid, body) VALUES ('delete', ?, ?)",
                [(int(i), data[p : p + n].decode("utf-8", "ignore")) for i, p, n in rows],
            )
        conn.execute("DELETE FROM content_segments WHERE mirror_hash=?", (mirror_hash,))


def backfill(conn: sqlite3.Connection) -> int:
    """Segment the long content of an index made before segments existed (once, at its migration)."""
    rows = conn.execute("SELECT mirror_hash, markdown FROM content WHERE length(markdown) > ?", (SEGMENT_BYTES // 4,))
    return add(conn, ((str(h), str(m)) for h, m in rows))


_WORD = re.compile(r"\w+")


def match_expressions(words: Sequence[str]) -> tuple[str, ...]:
    """FTS5 expressions for `words`: every word (when more than one), then any; () without words.

    A word is its letters and digits (what the tokenizer keeps of it), each quoted: an operator
    or a hyphen in a query never reaches FTS5 as syntax."""
    terms = list(dict.fromkeys(t for w in words for t in _WORD.findall(w.lower())))
    if not terms:
        return ()
    quoted = [f'"{t}"' for t in terms]
    return (" AND ".join(quoted), " OR ".join(quoted)) if len(quoted) > 1 else (quoted[0],)


def best_segment(
    store: Store, mirror_hash: str, expressions: Sequence[str] = (), line: int | None = None
) -> Segment | None:
    """The segment of a long content to show: the one holding `line` when given, else the first
    that matches the first of `expressions` that any segment matches. None: not segmented, or no
    segment matches (the caller shows the start)."""
    conn = store.conn
    try:
        lo, hi = conn.execute(
            "SELECT MIN(id), MAX(id) FROM content_segments WHERE mirror_hash=?", (mirror_hash,)
        ).fetchone()
    except sqlite3.OperationalError:  # an index opened read-only before its migration to segments
        return None
    if lo is None:
        return None
    if line is not None:
        r = conn.execute(
            "SELECT byte_pos, start_line FROM content_segments WHERE mirror_hash=? AND start_line<=? "
            "ORDER BY id DESC LIMIT 1",
            (mirror_hash, line),
        ).fetchone()
        return None if r is None else Segment(int(r[0]), int(r[1]))
    for expression in expressions:
        hit = conn.execute(
            "SELECT rowid FROM content_segments_fts WHERE content_segments_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "LIMIT 1",
            (expression, int(lo), int(hi)),
        ).fetchone()
        if hit is not None:
            r = conn.execute("SELECT byte_pos, start_line FROM content_segments WHERE id=?", (int(hit[0]),)).fetchone()
            return Segment(int(r[0]), int(r[1]))
    return None
