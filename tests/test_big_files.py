"""Big files: the `maxFileBytes` cap (named in `gno status` as FILE_TOO_LARGE) and the bounded window
a search reads of a document, whatever its size.

Real engine and SQLite files in tmp_path (the fixture corpus as collection `notes`); the CLI through
click's runner.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gno.cli.main import cli
from gno.config import DEFAULT_MAX_FILE_BYTES, GnoConfig, load_config, save_config
from gno.engine import Engine
from gno.errors import GnoError
from gno.retrieve.snippets import SNIPPET_WINDOW, pick_snippet
from gno.store.hits import hit_docs
from gno.store.segments import SEGMENT_BYTES, cut, match_expressions


def set_caps(e: Engine, top: int | None, coll: int | None) -> None:
    cfg = load_config(e.settings)
    if top is not None:
        cfg.max_file_bytes = top
    cfg.collections[0].max_file_bytes = coll
    save_config(e.settings, cfg)
    e._config = None


def problems(e: Engine) -> dict[str, tuple[str, str]]:
    return {x.rel_path: (x.code, x.message) for x in e.status().ingest_errors}


def test_the_default_cap_is_10_mb_and_a_config_without_it_writes_none() -> None:
    cfg = GnoConfig.model_validate({"collections": [{"name": "n", "path": "/x"}]})
    assert cfg.collections[0].file_cap == DEFAULT_MAX_FILE_BYTES == 10 * 1024 * 1024
    assert "maxFileBytes" not in cfg.to_yaml_dict()
    assert "maxFileBytes" not in cfg.to_yaml_dict()["collections"][0]


def test_top_level_cap_applies_to_collections_and_a_collection_cap_overrides_it() -> None:
    raw = {
        "maxFileBytes": 2048,
        "collections": [{"name": "a", "path": "/a"}, {"name": "b", "path": "/b", "maxFileBytes": 99}],
    }
    cfg = GnoConfig.model_validate(raw)
    assert [c.file_cap for c in cfg.collections] == [2048, 99]
    out = cfg.to_yaml_dict()
    assert out["maxFileBytes"] == 2048
    assert [c.get("maxFileBytes") for c in out["collections"]] == [None, 99]


def test_a_cap_below_one_byte_is_a_config_error(engine: Engine) -> None:
    engine.settings.config_path.write_text(
        engine.settings.config_path.read_text(encoding="utf-8") + "maxFileBytes: 0\n", encoding="utf-8"
    )
    engine._config = None
    with pytest.raises(GnoError) as err:
        load_config(engine.settings)
    assert str(err.value.code) == "CONFIG_INVALID" and "maxFileBytes" in err.value.message


def test_an_over_cap_file_is_skipped_and_named_in_status(engine: Engine, corpus: Path) -> None:
    (corpus / "export.md").write_text("# Export\n\n" + "zebra line\n" * 300, encoding="utf-8")
    set_caps(engine, top=1000, coll=None)
    r = engine.update().collections[0]
    assert (r.added, r.warnings) == (0, 1)
    assert problems(engine) == {
        "export.md": ("FILE_TOO_LARGE", "3.23 KB, over the 1000 bytes cap (maxFileBytes); skipped")
    }
    assert [h.uri for h in engine.search("zebra").results] == []
    out = CliRunner().invoke(cli, ["status"]).output
    assert "notes/export.md: warning [FILE_TOO_LARGE] 3.23 KB, over the" in out
    body = json.loads(CliRunner().invoke(cli, ["status", "--json"]).output)
    assert [(e["relPath"], e["code"]) for e in body["ingestErrors"]] == [("export.md", "FILE_TOO_LARGE")]

    set_caps(engine, top=1000, coll=8192)  # the collection's own cap wins: indexed, the warning clears
    r = engine.update().collections[0]
    assert (r.added, r.warnings, problems(engine)) == (1, 0, {})
    assert [h.uri for h in engine.search("zebra").results] == ["gno://notes/export.md"]


def test_a_file_growing_over_the_cap_leaves_the_index_and_says_why(engine: Engine, corpus: Path) -> None:
    (corpus / "a.md").write_text("# A\n\naardvark\n", encoding="utf-8")
    engine.update()
    assert [h.uri for h in engine.search("aardvark").results] == ["gno://notes/a.md"]
    set_caps(engine, top=None, coll=4096)
    (corpus / "a.md").write_text("# A\n\n" + "aardvark grows\n" * 400, encoding="utf-8")
    r = engine.update().collections[0]
    assert (r.inactivated, r.warnings) == (1, 1)
    assert problems(engine)["a.md"][0] == "FILE_TOO_LARGE"
    assert engine.search("aardvark").results == []


def big_note(words_before: int, tail: str) -> str:
    return "---\ntags: [log]\n---\n# Big\n\n" + "filler words here\n" * words_before + tail


def test_a_hit_reads_only_the_window_of_a_long_text(engine: Engine, corpus: Path) -> None:
    text = big_note(20_000, "platypus at the very end\n")  # ~360 KB, the match past the window
    (corpus / "big.md").write_text(text, encoding="utf-8")
    engine.update()
    hits = engine.search("platypus").results
    assert [h.uri for h in hits] == ["gno://notes/big.md"]  # BM25 ranks the whole text
    doc_id = next(iter(engine.store.execute("SELECT id FROM documents WHERE rel_path = 'big.md'")))[0]
    row = hit_docs(engine.store, [doc_id], SNIPPET_WINDOW)[doc_id]
    assert row.truncated and len(row.markdown.encode()) <= SNIPPET_WINDOW and "platypus" not in row.markdown
    # the window read is the start without a query; with one, the segment holding the match
    deep = hit_docs(engine.store, [doc_id], SNIPPET_WINDOW, match_expressions(["platypus"]))[doc_id]
    assert len(deep.markdown.encode()) <= SNIPPET_WINDOW and deep.markdown.endswith("platypus at the very end\n")
    assert not deep.truncated and deep.first_line > 1
    assert (hits[0].snippet, hits[0].line) == ("filler words here\nplatypus at the very end", 20_006)
    # a match inside the window is found there, at the note's own line number
    early = big_note(10, "quokka early\n") + "filler words here\n" * 20_000
    (corpus / "early.md").write_text(early, encoding="utf-8")
    engine.update()
    hit = engine.search("quokka").results[0]
    assert (hit.snippet, hit.line) == ("filler words here\nquokka early\nfiller words here", 16)
    full = engine.search("platypus", full=True).results[0]
    assert full.body is not None and full.body.endswith("platypus at the very end\n")  # --full reads it all
    short = hit_docs(engine.store, [doc_id], None)[doc_id]
    assert not short.truncated and short.markdown == text


def test_a_window_cut_inside_a_character_or_a_line_drops_the_pieces(engine: Engine, corpus: Path) -> None:
    # every line is 3-byte characters, so the window's edge falls inside one
    line = "€" * 99 + "\n"
    (corpus / "euro.md").write_text("# Euro\n\n" + line * 400 + "ibis\n", encoding="utf-8")
    engine.update()
    doc_id = next(iter(engine.store.execute("SELECT id FROM documents WHERE rel_path = 'euro.md'")))[0]
    row = hit_docs(engine.store, [doc_id], 1000)[doc_id]
    assert row.truncated and set(row.markdown) <= set("# Euro\n€")
    snip = pick_snippet(row.markdown, 3, ["ibis"], truncated=True)
    # lines 3-5 fit whole in the window, line 6 is cut: it is never shown
    assert snip.text == line.strip() + "\n" + line.strip() and (snip.line, snip.end_line) == (3, 4)
    assert len(row.markdown.split("\n")) == 6 and pick_snippet(row.markdown, 6, [], truncated=True).end_line <= 5
    lines = pick_snippet("a\nb\npartial", 1, ["partial"], truncated=True)
    assert "partial" not in lines.text


def test_segments_cover_the_text_once_at_line_ends_and_never_inside_a_character() -> None:
    text = "# T\n\n" + "".join(f"line {i} " + "é" * (i % 50) + "\n" for i in range(4000)) + "€" * 20_000
    parts = cut(text, 4096)
    data = text.encode()
    assert parts[0][:2] == (0, 1) and all(len(p[2].encode()) <= 4096 for p in parts)
    assert "".join(p[2] for p in parts) == text  # consecutive, complete, no character split
    for pos, line, piece in parts:
        assert data[pos : pos + len(piece.encode())] == piece.encode()
        assert line == text[: len(data[:pos].decode())].count("\n") + 1
        assert pos == 0 or data[pos - 1 : pos] == b"\n" or piece[0] == "€"  # a line end, or inside the long line
    assert cut("short\n", 4096) == [] and cut("x" * SEGMENT_BYTES) == []


def deep_note(mb: float, tail: str) -> str:
    filler = "".join(f"entry {i}: the nightly job copied files and wrote a report\n" for i in range(int(mb * 18_000)))
    return "# Export log\n\n" + filler + tail


def test_a_match_deep_in_a_megabyte_note_is_what_search_query_and_vsearch_show(
    engine: Engine, corpus: Path
) -> None:
    text = deep_note(1.1, "the axolotl escaped near the end\nclosing line\n")
    assert len(text.encode()) > 1024 * 1024
    (corpus / "export.md").write_text(text, encoding="utf-8")
    engine.update()
    line = text.split("\n").index("the axolotl escaped near the end") + 1
    hit = engine.search("axolotl").results[0]
    assert hit.uri == "gno://notes/export.md" and "axolotl escaped" in hit.snippet and hit.line == line
    out = json.loads(CliRunner().invoke(cli, ["search", "axolotl", "--json"]).output)["results"][0]
    assert "axolotl escaped" in out["snippet"] and out["line"] == line
    cfg = load_config(engine.settings)
    cfg.models.embed = "fake:64"  # the deterministic hashing embedder: vectors for every chunk
    save_config(engine.settings, cfg)
    engine._config = None
    engine.embed()
    q = next(h for h in engine.query("axolotl").results if h.uri == "gno://notes/export.md")
    assert "axolotl escaped" in q.snippet and q.line == line
    v = next(h for h in engine.vsearch("axolotl escaped", limit=20).results if h.uri == "gno://notes/export.md")
    assert v.line > 1 and v.snippet.strip()  # the window of its best chunk, never a line past the note
    assert v.line <= text.count("\n") + 1


def test_segments_follow_their_content_and_an_older_index_gets_them_when_migrated(
    engine: Engine, corpus: Path
) -> None:
    store = engine.store

    def count() -> tuple[int, int]:
        a = store.conn.execute("SELECT COUNT(*) FROM content_segments").fetchone()[0]
        b = store.conn.execute("SELECT COUNT(*) FROM content_segments_fts_docsize").fetchone()[0]
        return int(a), int(b)

    assert count() == (0, 0)  # short notes are never cut
    text = deep_note(0.2, "a quetzal at the end\n")
    (corpus / "long.md").write_text(text, encoding="utf-8")
    (corpus / "copy.md").write_text(text, encoding="utf-8")  # identical content shares its segments
    engine.update()
    n = len(cut(text))
    assert n > 4 and count() == (n, n)
    for name in ("long.md", "copy.md"):
        (corpus / name).write_text(text + "one more line\n", encoding="utf-8")
    engine.update()
    assert count() == (len(cut(text + "one more line\n")),) * 2  # the old content's segments are gone
    store.conn.execute("INSERT INTO content_segments_fts(content_segments_fts) VALUES ('integrity-check')")
    assert [h.snippet.split("\n")[1:] for h in engine.search("quetzal").results] == [
        ["a quetzal at the end", "one more line"]
    ] * 2
    # an index from before segments: the migration cuts the long notes it holds
    with store.write() as conn:
        conn.execute("DROP TABLE content_segments")
        conn.execute("DROP TABLE content_segments_fts")
        conn.execute("UPDATE schema_meta SET value = '4' WHERE key = 'schema_version'")
    engine.close()
    again = Engine(engine.settings)
    longer = len(cut(text + "one more line\n"))
    assert int(again.store.conn.execute("SELECT COUNT(*) FROM content_segments").fetchone()[0]) == longer
    assert "quetzal" in again.search("quetzal").results[0].snippet
    again.close()
