"""Tag counts over the active documents (front matter `tags:` and inline `#tags`, as indexed)."""

from __future__ import annotations

from gno.store.db import Store


def tag_counts(store: Store, collection: str | None = None) -> list[tuple[str, int, int, int]]:
    """(tag, documents, of them tagged in front matter, of them tagged inline), most used first."""
    where, params = ("AND d.collection = ?", (collection,)) if collection else ("", ())
    rows = store.conn.execute(
        "SELECT t.tag, COUNT(*), SUM(t.source = 'frontmatter'), SUM(t.source = 'inline') FROM doc_tags t "
        f"JOIN documents d ON d.id = t.doc_id AND d.active = 1 {where} GROUP BY t.tag ORDER BY COUNT(*) DESC, t.tag",
        params,
    )
    return [(str(r[0]), int(r[1]), int(r[2] or 0), int(r[3] or 0)) for r in rows]
