"""What the full-text index's title column holds: the title, the note's other names, its summary.

The title column weighs 4x the body (`gno.store.fts.BM25_WEIGHTS`) because a title names what a
note is about. A note's front matter often says so too, in the words a reader would use: its other
names (`aliases:`, as Obsidian keeps them) and the author's one-line summary (`description:` or
`summary:`, as static-site generators and many vaults keep them: "The searchable popup for running
commands." on a page titled "Command Palette"). The index's body leaves front matter out, so
without this a question in plain words could reach such a note only through its body. They are
indexed with the title, at its weight; the stored title (what a hit shows) stays the title alone.

`backfill` brings an index built before this rule up to it (migration 6): only the title column
of documents whose front matter holds such a field changes.
"""

from __future__ import annotations

import json
import sqlite3

TYPE_CHECKING = False  # not typing's: a cold `gno search` on an older index imports this module to migrate it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

#: front-matter fields holding a note's other names
ALIAS_KEYS = ("aliases", "alias")
#: front-matter fields holding the author's summary of a note
SUMMARY_KEYS = ("description", "summary")
#: a summary longer than this is an abstract, not a one-line summary: it reads like body text and,
#: at the title's weight, lifts a long article over the note about each concept it mentions (chosen
#: on the retrieval suite's tune questions: 12, 20, 30 and no limit measured)
SUMMARY_MAX_WORDS = 20


def _strings(value: object) -> list[str]:
    """A field's text: a string, or the strings and numbers of a list (`aliases: [a, b]`)."""
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            continue  # null, a mapping, a date: not words a reader types
        text = " ".join(str(item).split())
        if text:
            out.append(text)
    return out


def title_field(title: str, frontmatter: Mapping[str, Any] | None) -> str:
    """The title column of one document: its title, then its aliases and its summary, if any."""
    if not frontmatter:
        return title
    parts = [title]
    for key in (*ALIAS_KEYS, *SUMMARY_KEYS):
        for text in _strings(frontmatter.get(key)):
            if key in SUMMARY_KEYS and len(text.split()) > SUMMARY_MAX_WORDS:
                continue
            if text not in parts:
                parts.append(text)
    return "\n".join(p for p in parts if p)


def backfill(conn: sqlite3.Connection) -> int:
    """Rewrite the title column of every indexed document whose front matter names or summarises
    it; returns how many changed. Runs inside the caller's transaction."""
    keys = (*ALIAS_KEYS, *SUMMARY_KEYS)
    rows = conn.execute(
        "SELECT d.id, d.title, d.frontmatter_json FROM documents d JOIN documents_fts f ON f.rowid = d.id "
        f"WHERE d.frontmatter_json IS NOT NULL AND ({' OR '.join('instr(d.frontmatter_json, ?) > 0' for _ in keys)})",
        [f'"{k}"' for k in keys],
    ).fetchall()
    changed = 0
    for doc_id, title, fm_json in rows:
        try:
            fm = json.loads(fm_json)
        except ValueError:
            continue
        field = title_field(str(title or ""), fm if isinstance(fm, dict) else None)
        if field != (title or ""):
            conn.execute("UPDATE documents_fts SET title = ? WHERE rowid = ?", (field, doc_id))
            changed += 1
    return changed
