"""Whether a note holds every word of a query in one of its sections, not scattered over the note.

`gno search` lists first the notes that contain every content word of the query. A long page
(a changelog, a settings reference, a bundled library) contains nearly every word of a question
typed in plain words somewhere, each in a different section, and so came first for questions it
does not answer, above the short note that does. A note with headings therefore counts as holding
every word only when one of its sections does: the text from a heading to the next, read after
the text its enclosing sections open with (a `## Rollback` under `# Deploy process` still belongs
to the deploy page's opening; the text before the first heading encloses every section), and with
the note's path and its title column (title, aliases, summary: they name every section), the way
the full-text index reads the note.

The check runs the query's own FTS5 expression over the sections of the candidate notes, in a small
in-memory FTS5 table with the index's tokenizer (one per thread, emptied before each use), so a
section matches exactly when the note would if it held only that section. Notes without headings
are one section and are not read. A note longer than `MAX_SECTIONED_BYTES` is taken as a whole,
as before, so that a search never reads a huge export.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from gno.store.db import Store

#: a note longer than this (its file, in bytes) is judged as a whole: reading it would cost more
#: than the search
MAX_SECTIONED_BYTES = 2 * 1024 * 1024
# heading lines as the index keeps them (`headings_json`); read with a pattern, not `json`, which a
# cold `gno search` does not import
_HEADING_RE = re.compile(r'"level":\s*(\d+),\s*"text":\s*"(?:[^"\\]|\\.)*",\s*"line":\s*(\d+)')
_PART = 500  # host parameters per IN list


_TOKENIZE_RE = re.compile(r"\btokenize\s*=\s*'([^']*)'")


def _scratch(store: Store) -> sqlite3.Connection:
    """This thread's in-memory FTS5 table of sections (`sec`), created on first use with the tokenizer
    the index's own `documents_fts` declares (read from its schema, so the two never drift apart)."""
    conn: sqlite3.Connection | None = store.scratch.get("sections_fts")
    if conn is None:
        row = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'documents_fts'").fetchone()
        declared = _TOKENIZE_RE.search(str(row[0])) if row else None
        tokenizer = declared.group(1) if declared else "unicode61"  # FTS5's own default
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.execute(f"CREATE VIRTUAL TABLE sec USING fts5(text, tokenize = '{tokenizer}')")
        store.scratch["sections_fts"] = conn
    return conn


def _sections(body: list[str], start: int, headings: list[tuple[int, int]]) -> list[str]:
    """Each section's text, read after the text its enclosing sections open with: a `## Rollback`
    under `# Deploy process` is read with what the page says before its first subsection (the text
    before the first heading encloses every section)."""
    out: list[str] = []
    lead = "\n".join(body[: headings[0][0] - start])
    stack: list[tuple[int, str]] = [(0, lead)]  # (level, the enclosing section's own text)
    out.append(lead)
    ends = [line for line, _ in headings[1:]] + [start + len(body)]
    for (line, level), end in zip(headings, ends, strict=True):
        own = "\n".join(body[line - start : end - start])
        while stack[-1][0] >= level:
            stack.pop()
        out.append("\n".join(t for _, t in stack) + "\n" + own)
        stack.append((level, own))
    return [t for t in out if t.strip()]


def focused(store: Store, doc_ids: Sequence[int], expr: str) -> set[int]:
    """The documents among `doc_ids` (each already matching `expr` as a whole) that match it within
    one section; a document without headings, or too long to read, counts as matching."""
    out: set[int] = set()
    sectioned: list[tuple[int, int, list[tuple[int, int]]]] = []  # (doc id, body start, [(line, level)])
    for i in range(0, len(doc_ids), _PART):
        part = list(doc_ids[i : i + _PART])
        rows = store.conn.execute(
            "SELECT id, body_start_line, headings_json, source_size FROM documents "
            f"WHERE id IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
        for doc_id, start, headings, size in rows:
            lines = sorted({(int(n), int(lv)) for lv, n in _HEADING_RE.findall(headings or "") if int(n) > int(start)})
            if not lines or int(size or 0) > MAX_SECTIONED_BYTES:
                out.add(int(doc_id))
            else:
                sectioned.append((int(doc_id), int(start), lines))
    if not sectioned:
        return out
    rows_in: list[tuple[int, str]] = []  # (owner, section text)
    for doc_id, start, lines in sectioned:
        row = store.conn.execute(
            "SELECT filepath, title, body FROM documents_fts WHERE rowid = ?", (doc_id,)
        ).fetchone()
        if row is None:
            continue
        head = f"{row[0]}\n{row[1]}\n"
        rows_in += [(doc_id, head + text) for text in _sections(str(row[2] or "").split("\n"), start, lines)]
    mem = _scratch(store)
    # one transaction: FTS5 would otherwise flush a segment per section
    mem.execute("BEGIN")
    try:
        mem.execute("DELETE FROM sec")
        mem.executemany("INSERT INTO sec(rowid, text) VALUES (?, ?)", [(i, t) for i, (_d, t) in enumerate(rows_in)])
        try:
            out.update(rows_in[int(r[0])][0] for r in mem.execute("SELECT rowid FROM sec WHERE sec MATCH ?", (expr,)))
        except sqlite3.DatabaseError:
            out.update(d for d, _s, _l in sectioned)  # an expression the section table cannot run: as before
    finally:
        mem.execute("ROLLBACK")  # nothing is kept between searches
    return out
