"""Chunks are cut when embedding, not when indexing: `gno update` stores content only; `gno embed`
cuts the content that has no chunks for the current chunk key, exactly as indexing used to, and
re-cuts (keeping the vectors of unchanged chunks) when the key changes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gno.config import load_config, save_config
from gno.embed.fake import FakeEmbedder
from gno.engine import Engine
from gno.ingest import chunking
from gno.ingest.chunker import chunk_text
from gno.ingest.markdown import parse_markdown
from gno.retrieve.semantic import document_text
from gno.store import vectors as vstore
from gno.store.chunks import chunk_rows

from .conftest import Build

LONG = "---\ntitle: Field guide\ntags: [nature]\n---\n\n" + "\n\n".join(
    f"Paragraph {i}: the heron waits by the river stone while the cloud drifts north over café lights."
    for i in range(60)
)
FILES = {
    "long.md": LONG,
    "crlf.md": "# Windows\r\n\r\nLines end with CR LF here.\r\nSecond line.\r\n",
    "nfd.md": "# Cafe\u0301\n\nUnicode that NFC folds: cafe\u0301 and re\u0301sume\u0301.\n",
    "front-only.md": "---\ntitle: Only front matter\n---\n",
    "short.md": "# Short\n\nA short note about herons.\n",
    "twin-a.md": "# Twin\n\nThe same words twice.\n",
    "twin-b.md": "# Twin\n\nThe same words twice.\n",
}


def stored(e: Engine) -> dict[str, list[tuple[int, int, str, int, int, int]]]:
    """rel_path → (seq, pos, text, start, end, tokens) of its stored chunks."""
    rows = e.store.execute(
        "SELECT d.rel_path, c.mirror_hash, c.seq, c.pos, c.start_line, c.end_line, c.token_count "
        "FROM content_chunks c JOIN documents d ON d.mirror_hash = c.mirror_hash AND d.active = 1 "
        "ORDER BY d.rel_path, c.seq"
    )
    texts = chunk_rows(e.store, [(r[1], r[2]) for r in rows])
    out: dict[str, list[tuple[int, int, str, int, int, int]]] = {}
    for r in rows:
        out.setdefault(r[0], []).append((r[2], r[3], texts[(r[1], r[2])][0], r[4], r[5], r[6]))
    return out


def cut_at_ingest(root: Path, rel: str, max_tokens: int = 240, overlap: float = 0.15) -> list[tuple[int, ...]]:
    """The chunks indexing used to store for a file: its parsed body through the chunker."""
    from gno.ingest.markdown import decode_source

    parsed = parse_markdown(decode_source((root / rel).read_bytes())[0], fallback_title=Path(rel).stem)
    return [
        (c.seq, c.pos, c.text, c.start_line, c.end_line, c.token_count)  # type: ignore[misc]
        for c in chunk_text(
            parsed.body, line_offset=parsed.body_start_line - 1, max_tokens=max_tokens, overlap_percent=overlap
        )
    ]


def root_of(e: Engine, name: str = "kb") -> Path:
    coll = e.config.collection(name)
    assert coll is not None
    return Path(coll.path)


def set_chunking(e: Engine, max_tokens: int) -> None:
    cfg = load_config(e.settings)
    cfg.chunking.max_tokens = max_tokens
    save_config(e.settings, cfg)
    e._config = None


def test_update_cuts_nothing_and_embed_cuts_what_indexing_used_to(build: Build) -> None:
    e = build({"kb": FILES}, embed=False)
    assert e.store.execute("SELECT COUNT(*) FROM content_chunks")[0][0] == 0
    st = e.status()
    assert st.chunks == 0 and st.vectors is not None and st.vectors.pending_documents == len(FILES)
    e.embed()
    root = root_of(e)
    want = {rel: cut_at_ingest(root, rel) for rel in FILES}
    assert len(want["long.md"]) > 3  # several overlapping windows, after front matter
    assert stored(e) == {rel: rows for rel, rows in want.items() if rows}
    st = e.status()
    assert st.chunks == sum(len(v) for rel, v in want.items() if rel != "twin-b.md")  # twins: one content
    assert st.vectors is not None and st.vectors.pending_documents == 0


def test_vector_search_equals_embedding_the_ingest_chunks_directly(build: Build) -> None:
    e = build({"kb": FILES})
    root = root_of(e)
    emb = FakeEmbedder(64)
    keys: list[str] = []  # rel_path of every chunk
    vecs = []
    for rel in FILES:
        title = parse_markdown((root / rel).read_text(encoding="utf-8"), fallback_title=Path(rel).stem).title
        for c in cut_at_ingest(root, rel):
            vecs.append(emb.embed_documents([document_text(title, str(c[2]))])[0])
            keys.append(rel)
    matrix = np.array(vecs)
    for query in ("heron river", "windows lines", "unicode resume", "same words"):
        scores = matrix @ emb.embed_query(query)
        best: dict[str, float] = {}
        for rel, s in zip(keys, scores, strict=True):
            best[rel] = max(best.get(rel, -1.0), float(s))
        hits = e.vsearch(query, limit=10).results
        want = {rel: s for rel, s in best.items() if s >= 0}  # vsearch keeps cosines >= min_score 0
        assert {h.rel_path for h in hits} == set(want)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        for h in hits:
            assert h.score == pytest.approx(want[h.rel_path], abs=1e-5)


def test_new_chunk_settings_recut_at_embed_and_keep_the_vectors_of_unchanged_chunks(build: Build) -> None:
    e = build({"kb": FILES})
    before = stored(e)
    set_chunking(e, 60)
    st = e.status().vectors
    assert st is not None and st.pending_documents == len(FILES)  # a new key: every content is cut again
    dry = e.embed(dry_run=True)
    r = e.embed()
    after = stored(e)
    root = root_of(e)
    assert after == {rel: rows for rel in FILES if (rows := cut_at_ingest(root, rel, max_tokens=60))}
    changed = {(rel, row[0]) for rel, rows in after.items() for row in rows if row not in before.get(rel, [])}
    assert after["short.md"] == before["short.md"]  # short notes keep their one chunk and its vector
    assert r.embedded == dry.pending == len({k for k in changed if k[0] != "twin-b.md"}) > 0  # twins: one content
    assert e.embed().embedded == 0
    assert sum(vstore.fingerprints(e.store).values()) == r.total_chunks  # no vector of a chunk that is gone


def test_the_chunk_key_names_the_chunker_its_settings_and_the_tokenizer(
    build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    e = build({"kb": {"short.md": FILES["short.md"]}})
    key = chunking.chunk_key(e.config.chunking)
    assert key.startswith("v1/") and key.endswith("/240/0.15")
    assert chunking.tokenizer_id() in key
    chunking.tokenizer_id.cache_clear()
    monkeypatch.setattr("gno.embed.base.module_available", lambda name: False)
    try:
        assert chunking.chunk_key(e.config.chunking) == "v1/chars/240/0.15"
        st = e.status().vectors
        assert st is not None and st.pending_documents == 1  # another tokenizer: cut again
    finally:
        chunking.tokenizer_id.cache_clear()


def _as_older_index(db: Path) -> None:
    """Rewrite an index into the shape before chunks were derived: chunk text stored, no chunk key."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT c.mirror_hash, c.seq, c.pos, substr(t.markdown, m.body_pos + c.pos + 1, c.length), c.start_line, "
        "c.end_line, c.token_count FROM content_chunks c JOIN content t USING (mirror_hash) "
        "JOIN content_chunking m USING (mirror_hash)"
    ).fetchall()
    conn.executescript(
        "DROP TABLE content_chunks; DROP TABLE content_chunking; CREATE TABLE content_chunks (mirror_hash TEXT NOT "
        "NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL, text TEXT NOT NULL, start_line INTEGER NOT NULL, "
        "end_line INTEGER NOT NULL, token_count INTEGER NOT NULL, PRIMARY KEY (mirror_hash, seq));"
        "UPDATE schema_meta SET value = '3' WHERE key = 'schema_version';"
    )
    conn.executemany("INSERT INTO content_chunks VALUES (?,?,?,?,?,?,?)", rows)
    conn.commit()
    conn.close()


def test_chunks_of_an_older_index_are_read_until_recut_and_keep_their_vectors(build: Build) -> None:
    e = build({"kb": FILES})
    before = stored(e)
    hits = [(h.rel_path, h.score) for h in e.vsearch("heron river", limit=5).results]
    e.close()
    _as_older_index(e.settings.db_path)
    old = Engine(e.settings)
    try:
        assert stored(old) == before  # migrated: the carried text is read as is
        assert [(h.rel_path, h.score) for h in old.vsearch("heron river", limit=5).results] == hits
        st = old.status().vectors
        assert st is not None and st.pending_documents == len(FILES)  # no chunk key yet
        r = old.embed()
        assert r.embedded == 0  # re-cut to the same spans: every vector stays
        assert stored(old) == before
        assert old.store.execute("SELECT COUNT(*) FROM content_chunks WHERE text IS NOT NULL")[0][0] == 0
        st = old.status().vectors
        assert st is not None and st.pending_documents == 0
    finally:
        old.close()


def test_every_vector_write_moves_the_generation(build: Build) -> None:
    e = build({"kb": {"short.md": FILES["short.md"]}})
    gen = vstore.generation(e.store)
    e.embed(force=True)  # same vectors, same count
    assert vstore.generation(e.store) != gen


def test_diagnose_counts_chunks_of_content_not_cut_yet(build: Build) -> None:
    e = build({"kb": FILES}, embed=False)
    d = e.diagnose("heron", "kb/long.md")
    assert (d.target.status, d.target.embedded) == ("diagnosed", False)
    assert d.target.chunk_count == len(cut_at_ingest(root_of(e), "long.md"))
    assert e.store.execute("SELECT COUNT(*) FROM content_chunks")[0][0] == 0  # diagnose writes nothing
    e.embed()
    d = e.diagnose("heron", "kb/long.md")
    assert (d.target.chunk_count, d.target.embedded) == (len(cut_at_ingest(root_of(e), "long.md")), True)


def test_a_bounded_round_cuts_only_what_it_embeds_and_counts_the_rest(build: Build) -> None:
    e = build({"kb": {f"n{i}.md": f"# Note {i}\n\nShort note number {i}.\n" for i in range(7)}}, embed=False)
    r = e.embed(max_chunks=3)
    assert (r.embedded, r.pending) == (3, 4)  # 4 notes not cut yet, one chunk each
    assert e.store.execute("SELECT COUNT(*) FROM content_chunks")[0][0] == 3
    rounds = 1
    while r.pending:
        r = e.embed(max_chunks=3)
        rounds += 1
    assert rounds == 3 and vstore.fingerprints(e.store) and e.embed().embedded == 0
    st = e.status().vectors
    assert st is not None and (st.embedded_chunks, st.pending_documents) == (7, 0)
