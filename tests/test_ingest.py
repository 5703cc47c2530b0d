"""Ingestion edge cases, through the real engine and real SQLite files.

Special-case files are created inside tmp_path by each test; the shared fixture corpus is only
read (through the `engine` fixture's writable copy).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.config import Settings
from gno.embed.tokens import token_spans
from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.ingest import sync as sync_mod
from gno.ingest.chunker import CHARS_PER_TOKEN, chunk_text
from gno.ingest.chunking import ensure_chunks
from gno.ingest.markdown import parse_markdown
from gno.store import documents as docs
from gno.store.chunks import chunk_rows

# -- helpers --------------------------------------------------------------------------------


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes-src"
    root.mkdir()
    return root


@pytest.fixture
def make_engine(settings: Settings) -> Iterator[Callable[..., Engine]]:
    """Build an initialised engine with one collection `c` over a folder (not yet synced)."""
    made: list[Engine] = []

    def _make(root: Path, **kw: object) -> Engine:
        e = Engine(settings)
        e.init()
        e.collection_add(str(root), name="c", **kw)  # type: ignore[arg-type]
        made.append(e)
        return e

    yield _make
    for e in made:
        e.close()


def write(root: Path, rel: str, content: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_bytes(content.encode("utf-8"))
    return p


def only(e: Engine) -> dict[str, object]:
    """The single collection's sync counters of a fresh `update()`."""
    res = e.update()
    assert len(res.collections) == 1
    return res.collections[0].model_dump()


def uris(e: Engine, q: str, **kw: object) -> list[str]:
    return [h.uri for h in e.search(q, **kw).results]  # type: ignore[arg-type]


def errors_by_path(e: Engine) -> dict[str, tuple[str, str]]:
    return {x.rel_path: (x.code, x.message) for x in e.status().ingest_errors}


def row(e: Engine, rel: str, coll: str = "c") -> docs.DocRow:
    r = docs.doc_by_path(e.store, coll, rel)
    assert r is not None, rel
    return r


def tags(e: Engine, rel: str) -> list[str]:
    r = row(e, rel)
    return docs.tags_of(e.store, [r.id])[r.id]


def kinds(e: Engine) -> list[tuple[str, int]]:
    return [(c["kind"], c["doc_id"]) for c in docs.changes(e.store)]


# -- front matter ---------------------------------------------------------------------------


def test_invalid_yaml_front_matter_is_indexed_and_reported(notes: Path, make_engine) -> None:
    write(notes, "bad.md", "---\ntitle: [unclosed\n---\n# Heading here\n\nzebra body words\n")
    write(notes, "good.md", "# Good\n\nfine text\n")
    e = make_engine(notes)
    r = only(e)
    assert (r["added"], r["errors"], r["error_paths"]) == (2, 0, ["bad.md"])
    # indexed: searchable, title from the H1 (the broken front matter gives no title)
    res = e.search("zebra")
    assert [h.uri for h in res.results] == ["gno://c/bad.md"]
    assert res.results[0].title == "Heading here"
    assert res.results[0].line == 6
    bad = row(e, "bad.md")
    assert bad.frontmatter_json is None
    assert bad.body_start_line == 4
    errs = errors_by_path(e)
    assert list(errs) == ["bad.md"]
    code, message = errs["bad.md"]
    assert code == "FRONTMATTER_INVALID"
    assert message.startswith("invalid YAML front matter")
    st_ = e.status()
    # a warning, counted the same way by `update` and `status`
    assert (st_.collections[0].errors, st_.collections[0].warnings) == (0, 1)
    assert (r["errors"], r["warnings"]) == (0, 1)
    assert st_.collections[0].active == 2


def test_front_matter_that_is_not_a_mapping(notes: Path, make_engine) -> None:
    write(notes, "list.md", "---\n- a\n- b\n---\n# Listy\n\nyak text\n")
    write(notes, "scalar.md", "---\njust a string\n---\nemu text\n")
    e = make_engine(notes)
    only(e)
    errs = errors_by_path(e)
    assert errs == {
        "list.md": ("FRONTMATTER_INVALID", "front matter is not a mapping"),
        "scalar.md": ("FRONTMATTER_INVALID", "front matter is not a mapping"),
    }
    assert row(e, "list.md").title == "Listy"
    assert row(e, "scalar.md").title == "scalar"
    assert uris(e, "yak") == ["gno://c/list.md"]
    assert uris(e, "emu") == ["gno://c/scalar.md"]
    # the snippet never shows the (broken) front matter block
    hit = e.search("emu").results[0]
    assert (hit.line, hit.snippet) == (4, "emu text")


def test_front_matter_error_clears_when_fixed(notes: Path, make_engine) -> None:
    p = write(notes, "bad.md", "---\ntitle: [x\n---\nbody\n")
    e = make_engine(notes)
    only(e)
    assert errors_by_path(e)["bad.md"][0] == "FRONTMATTER_INVALID"
    p.write_text("---\ntitle: Fixed title\n---\nbody words\n", encoding="utf-8")
    r = only(e)
    assert (r["updated"], r["error_paths"]) == (1, [])
    assert errors_by_path(e) == {}
    assert row(e, "bad.md").title == "Fixed title"
    assert json.loads(row(e, "bad.md").frontmatter_json or "null") == {"title": "Fixed title"}


def test_unclosed_front_matter_is_body_text(notes: Path, make_engine) -> None:
    write(notes, "open.md", "---\ntitle: Never closed\n\n# Real title\n\nheron\n")
    e = make_engine(notes)
    only(e)
    r = row(e, "open.md")
    assert (r.title, r.body_start_line, r.frontmatter_json) == ("Real title", 1, None)
    assert errors_by_path(e) == {}


def test_bom_before_front_matter(notes: Path, make_engine) -> None:
    write(notes, "bom.md", b"\xef\xbb\xbf---\ntitle: With BOM\n---\nibis text\n")
    e = make_engine(notes)
    only(e)
    assert row(e, "bom.md").title == "With BOM"
    assert errors_by_path(e) == {}
    hit = e.search("ibis").results[0]
    assert (hit.line, hit.snippet) == (4, "ibis text")


# -- line endings and encodings ---------------------------------------------------------------


def test_crlf_line_numbers_match_the_file(notes: Path, make_engine) -> None:
    raw = (b"---\r\ntitle: CRLF doc\r\n---\r\n# Heading\r\n\r\n"
           b"first line\r\nsecond walrus line\r\n\r\nthird\r\n")
    write(notes, "crlf.md", raw)
    e = make_engine(notes)
    only(e)
    file_lines = raw.decode().split("\r\n")
    hit = e.search("walrus").results[0]
    assert hit.line == 7
    assert file_lines[hit.line - 1] == "second walrus line"
    assert (hit.snippet_range.start_line, hit.snippet_range.end_line) == (6, 7)
    assert hit.snippet == "first line\nsecond walrus line"
    d = e.get("c/crlf.md:7", line_count=1)
    assert d.content == "second walrus line"
    assert d.total_lines == 9
    d = e.get("c/crlf.md", from_line=4, line_count=3)
    assert d.content.split("\n") == file_lines[3:6]
    assert "\r" not in e.get("c/crlf.md").content
    # the source hash is over the raw bytes, so the docid identifies the exact file
    import hashlib

    assert d.docid == "#" + hashlib.sha256(raw).hexdigest()[:8]


def test_lone_cr_line_endings(notes: Path, make_engine) -> None:
    write(notes, "mac.md", b"# Old mac\r\rline two\rcapybara three\r")
    e = make_engine(notes)
    only(e)
    hit = e.search("capybara").results[0]
    assert hit.line == 4
    assert e.get("c/mac.md:4", line_count=1).content == "capybara three"


def test_non_utf8_falls_back_to_cp1252(notes: Path, make_engine) -> None:
    raw = b"# Caf\xe9 notes\n\nna\xefve r\xe9sum\xe9 \x93quoted\x94 ocelot\n"  # cp1252 bytes
    write(notes, "cp.md", raw)
    write(notes, "ok.md", "# Ok\n\nutf8 text\n")
    e = make_engine(notes)
    r = only(e)
    assert (r["added"], r["errors"], r["error_paths"]) == (2, 0, ["cp.md"])
    assert errors_by_path(e) == {"cp.md": ("ENCODING_FALLBACK", "not valid UTF-8; decoded as cp1252")}
    assert row(e, "cp.md").title == "Café notes"
    assert e.get("c/cp.md:3", line_count=1).content == "naïve résumé \u201cquoted\u201d ocelot"
    assert uris(e, "ocelot") == ["gno://c/cp.md"]
    assert uris(e, "café") == ["gno://c/cp.md"]
    assert uris(e, "resume") == ["gno://c/cp.md"]


def test_encoding_error_clears_after_rewrite_as_utf8(notes: Path, make_engine) -> None:
    p = write(notes, "cp.md", "caf\xe9\n".encode("cp1252"))
    e = make_engine(notes)
    only(e)
    assert errors_by_path(e)["cp.md"][0] == "ENCODING_FALLBACK"
    p.write_text("café and more\n", encoding="utf-8")
    r = only(e)
    assert r["updated"] == 1
    assert errors_by_path(e) == {}


def test_empty_and_blank_files(notes: Path, make_engine) -> None:
    write(notes, "empty.md", b"")
    write(notes, "blank.md", "   \n\n\t\n")
    write(notes, "fm-only.md", "---\ntitle: Only front matter\n---\n")
    e = make_engine(notes)
    r = only(e)
    assert (r["scanned"], r["added"], r["errors"], r["error_paths"]) == (3, 3, 0, [])
    d = e.get("c/empty.md")
    assert (d.title, d.content, d.total_lines) == ("empty", "", 0)
    assert d.docid == "#e3b0c442"  # sha256 of b""
    assert row(e, "fm-only.md").title == "Only front matter"
    assert e.status().collections[0].chunks == 0
    assert [x.rel_path for x in e.ls("c").entries] == ["blank.md", "empty.md", "fm-only.md"]
    assert uris(e, "front") == ["gno://c/fm-only.md"]  # the title is indexed


# -- unreadable / unparsable files -------------------------------------------------------------


def _fail_reads_of(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make reading one file name fail (chmod does not block root)."""
    orig = sync_mod.read_file

    def read_file(path: str) -> bytes:
        if Path(path).name == name:
            raise PermissionError(13, "Permission denied", path)
        return orig(path)

    monkeypatch.setattr(sync_mod, "read_file", read_file)


def test_unreadable_file_is_an_ingest_error_and_sync_continues(
    notes: Path, make_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(notes, "a.md", "# A\n\naardvark\n")
    write(notes, "m.md", "# M\n\nmongoose\n")  # unreadable, sorted between two readable files
    write(notes, "z.md", "# Z\n\nzebu\n")
    e = make_engine(notes)
    with monkeypatch.context() as mp:
        _fail_reads_of(mp, "m.md")
        r = only(e)
    assert (r["scanned"], r["added"], r["errors"], r["error_paths"]) == (3, 2, 1, ["m.md"])
    assert uris(e, "aardvark") == ["gno://c/a.md"]
    assert uris(e, "zebu") == ["gno://c/z.md"]
    assert uris(e, "mongoose") == []
    code, message = errors_by_path(e)["m.md"]
    assert code == "READ_FAILED"
    assert "Permission denied" in message
    assert e.status().collections[0].errors == 1
    # readable again: indexed, error gone
    r = only(e)
    assert (r["added"], r["errors"]) == (1, 0)
    assert uris(e, "mongoose") == ["gno://c/m.md"]
    assert errors_by_path(e) == {}


def test_unreadable_existing_file_keeps_its_last_good_version(
    notes: Path, make_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = write(notes, "m.md", "# M\n\nmongoose\n")
    e = make_engine(notes)
    only(e)
    p.write_text("# M\n\nmeerkat now\n", encoding="utf-8")
    with monkeypatch.context() as mp:
        _fail_reads_of(mp, "m.md")
        r = only(e)
    assert (r["errors"], r["inactivated"], r["updated"]) == (1, 0, 0)
    assert uris(e, "mongoose") == ["gno://c/m.md"]
    assert errors_by_path(e)["m.md"][0] == "READ_FAILED"


def test_unreadable_file_error_is_pruned_when_file_is_deleted(
    notes: Path, make_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = write(notes, "m.md", "mongoose\n")
    e = make_engine(notes)
    with monkeypatch.context() as mp:
        _fail_reads_of(mp, "m.md")
        only(e)
    assert list(errors_by_path(e)) == ["m.md"]
    p.unlink()
    only(e)
    assert errors_by_path(e) == {}


def test_dangling_symlink_is_a_read_error(notes: Path, make_engine, tmp_path: Path) -> None:
    write(notes, "a.md", "aardvark\n")
    e = make_engine(notes)
    only(e)
    (notes / "a.md").unlink()
    os.symlink(notes / "nowhere.md", notes / "a.md")
    r = only(e)
    assert (r["errors"], r["inactivated"]) == (1, 0)
    assert errors_by_path(e)["a.md"][0] == "READ_FAILED"


def test_symlink_out_of_the_folder_is_skipped_with_a_warning(notes: Path, make_engine, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.md", "platypus secret\n")
    write(notes, "a.md", "aardvark\n")
    os.symlink(outside / "secret.md", notes / "link.md")
    os.symlink(outside, notes / "linked-dir")
    os.symlink(tmp_path / "nowhere.md", notes / "dangling.md")
    e = make_engine(notes)
    r = only(e)
    assert (r["added"], r["errors"], r["warnings"]) == (1, 0, 3)
    assert uris(e, "platypus") == []
    got = {k: v[0] for k, v in errors_by_path(e).items()}
    assert got == dict.fromkeys(("link.md", "linked-dir", "dangling.md"), "PATH_OUTSIDE_COLLECTION")
    assert str(outside / "secret.md") in errors_by_path(e)["link.md"][1]


def test_parse_failure_is_an_ingest_error_and_sync_continues(
    notes: Path, make_engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(notes, "a.md", "aardvark\n")
    write(notes, "boom.md", "boom\n")
    write(notes, "z.md", "zebu\n")
    real = sync_mod.parse_markdown

    def parse(text: str, *, fallback_title: str):  # type: ignore[no-untyped-def]
        if fallback_title == "boom":
            raise ValueError("parser exploded")
        return real(text, fallback_title=fallback_title)

    monkeypatch.setattr(sync_mod, "parse_markdown", parse)
    e = make_engine(notes)
    r = only(e)
    assert (r["added"], r["errors"], r["error_paths"]) == (2, 1, ["boom.md"])
    assert errors_by_path(e) == {"boom.md": ("PARSE_FAILED", "parser exploded")}
    assert uris(e, "zebu") == ["gno://c/z.md"]


def test_missing_collection_folder_is_reported(notes: Path, make_engine) -> None:
    write(notes, "a.md", "aardvark\n")
    e = make_engine(notes)
    only(e)
    notes.rename(notes.parent / "moved-away")
    r = only(e)
    assert (r["errors"], r["error_paths"], r["inactivated"]) == (1, [""], 0)
    st_ = e.status()
    assert st_.healthy is False
    assert st_.collections[0].path_exists is False
    assert [(x.rel_path, x.code) for x in st_.ingest_errors] == [("", "COLLECTION_PATH_MISSING")]
    # the documents are not dropped because the folder is temporarily gone
    assert uris(e, "aardvark") == ["gno://c/a.md"]


# -- unchanged, rename, delete, restore ------------------------------------------------------


def test_unchanged_resync_reports_all_unchanged(engine: Engine, corpus: Path) -> None:
    n_changes = docs.change_count(engine.store)
    assert n_changes == 5
    r = engine.update().collections[0]
    counts = (r.scanned, r.unchanged, r.added, r.updated, r.renamed, r.inactivated, r.reactivated, r.errors)
    assert counts == (5, 5, 0, 0, 0, 0, 0, 0)
    # touching every file (new mtime, same bytes) is still unchanged and journals nothing
    for p in corpus.rglob("*.md"):
        st_ = p.stat()
        os.utime(p, ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    r = engine.update().collections[0]
    assert (r.unchanged, r.updated) == (5, 0)
    assert docs.change_count(engine.store) == n_changes


def test_force_resync_reparses_everything(engine: Engine) -> None:
    r = engine.update(force=True).collections[0]
    assert (r.scanned, r.updated, r.unchanged, r.added) == (5, 5, 0, 0)
    assert engine.status().documents == 5


def test_edit_is_an_update_with_new_docid(engine: Engine, corpus: Path) -> None:
    old = engine.get("notes/archive/old.md")
    (corpus / "archive" / "old.md").write_text("# Old notes\n\nThe legacy deploy used a flamingo.\n",
                                               encoding="utf-8")
    r = engine.update().collections[0]
    assert (r.updated, r.unchanged) == (1, 4)
    new = engine.get("notes/archive/old.md")
    assert new.docid != old.docid
    assert uris(engine, "flamingo") == ["gno://notes/archive/old.md"]
    assert uris(engine, "cron") == []
    last = docs.changes(engine.store)[-1]
    assert last["kind"] == "update"
    assert json.loads(last["previous_json"])["docid"] == old.docid
    assert json.loads(last["current_json"])["docid"] == new.docid


def test_rename_keeps_docid(engine: Engine, corpus: Path) -> None:
    before = engine.get("notes/archive/old.md")
    n = docs.change_count(engine.store)
    (corpus / "moved").mkdir()
    os.rename(corpus / "archive" / "old.md", corpus / "moved" / "renamed.md")
    r = engine.update().collections[0]
    assert (r.renamed, r.added, r.inactivated, r.unchanged) == (1, 0, 0, 4)
    new = engine.get("notes/moved/renamed.md")
    assert new.docid == before.docid
    assert new.uri == "gno://notes/moved/renamed.md"
    with pytest.raises(GnoError) as ei:
        engine.get("notes/archive/old.md")
    assert ei.value.code == ErrorCode.NOT_FOUND
    new_changes = docs.changes(engine.store, after_id=n)
    assert [c["kind"] for c in new_changes] == ["rename"]
    assert json.loads(new_changes[0]["previous_json"])["relPath"] == "archive/old.md"
    assert json.loads(new_changes[0]["current_json"])["relPath"] == "moved/renamed.md"
    hits = engine.search("legacy").results
    assert [(h.uri, h.docid) for h in hits] == [("gno://notes/moved/renamed.md", before.docid)]
    assert uris(engine, "renamed") == ["gno://notes/moved/renamed.md"]  # the filepath column moved too
    assert [e.rel_path for e in engine.ls("gno://notes/archive/").entries] == []
    assert engine.status().collections[0].inactive == 0
    # by docid, the document now resolves to the new path
    assert engine.get(before.docid).uri == "gno://notes/moved/renamed.md"


def test_rename_of_untitled_note_updates_the_stem_title(notes: Path, make_engine) -> None:
    write(notes, "foo.md", "plain text about otters\n")
    e = make_engine(notes)
    only(e)
    assert row(e, "foo.md").title == "foo"
    os.rename(notes / "foo.md", notes / "bar.md")
    r = only(e)
    assert r["renamed"] == 1
    # a fresh index would title it "bar" (title precedence: ... → file name)
    assert row(e, "bar.md").title == "bar"


def test_deletion_inactivates_and_restoration_reactivates(engine: Engine, corpus: Path) -> None:
    p = corpus / "rollback.md"
    raw = p.read_bytes()
    d = engine.get("notes/rollback.md")
    n0 = docs.change_count(engine.store)
    p.unlink()
    r = engine.update().collections[0]
    assert (r.inactivated, r.scanned, r.unchanged) == (1, 4, 4)
    assert "gno://notes/rollback.md" not in uris(engine, "rollback")
    assert uris(engine, "DEC-0054") == []
    for ref in ("notes/rollback.md", d.docid, d.uri):
        with pytest.raises(GnoError) as ei:
            engine.get(ref)
        assert ei.value.code == ErrorCode.NOT_FOUND
    st_ = engine.status().collections[0]
    assert (st_.active, st_.inactive) == (4, 1)
    assert "rollback.md" not in [x.rel_path for x in engine.ls().entries]
    assert [c["kind"] for c in docs.changes(engine.store, after_id=n0)] == ["inactivate"]
    # restore identical bytes → active again, one reactivate event, same docid
    p.write_bytes(raw)
    r = engine.update().collections[0]
    assert (r.reactivated, r.added, r.renamed, r.unchanged) == (1, 0, 0, 4)
    ev = docs.changes(engine.store, after_id=n0)
    assert [c["kind"] for c in ev] == ["inactivate", "reactivate"]
    assert ev[0]["doc_id"] == ev[1]["doc_id"]
    assert engine.get("notes/rollback.md").docid == d.docid
    assert uris(engine, "DEC-0054") == ["gno://notes/rollback.md"]
    st_ = engine.status().collections[0]
    assert (st_.active, st_.inactive) == (5, 0)
    # a repeat sync with nothing changed adds no events
    n1 = docs.change_count(engine.store)
    r = engine.update().collections[0]
    assert (r.unchanged, r.reactivated) == (5, 0)
    assert docs.change_count(engine.store) == n1


def test_restoration_with_new_content_reactivates_with_new_docid(notes: Path, make_engine) -> None:
    p = write(notes, "a.md", "version one pelican\n")
    e = make_engine(notes)
    only(e)
    p.unlink()
    only(e)
    p.write_text("version two puffin\n", encoding="utf-8")
    r = only(e)
    assert (r["reactivated"], r["added"]) == (1, 0)
    assert [k for k, _ in kinds(e)] == ["create", "inactivate", "reactivate"]
    assert uris(e, "puffin") == ["gno://c/a.md"]
    assert uris(e, "pelican") == []


def test_copy_is_a_create_with_same_docid(notes: Path, make_engine) -> None:
    write(notes, "a.md", "same bytes gecko\n")
    e = make_engine(notes)
    only(e)
    write(notes, "b.md", "same bytes gecko\n")
    r = only(e)
    assert (r["added"], r["renamed"]) == (1, 0)
    assert row(e, "a.md").docid == row(e, "b.md").docid
    assert sorted(uris(e, "gecko")) == ["gno://c/a.md", "gno://c/b.md"]


# -- titles, tags, links ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("---\ntitle: From FM\n---\n# From H1\n", "From FM"),
        ("---\ntitle: 2024\n---\n# From H1\n", "2024"),
        ("---\ntitle: '  '\n---\n# From H1\n", "From H1"),
        ("---\nother: x\n---\n## Second level\n# From H1\n# Later H1\n", "From H1"),
        ("## Only H2\n\ntext\n", "stem-name"),
        ("```\n# not a heading\n```\n\ntext\n", "stem-name"),
        ("#NoSpace is not a heading\n", "stem-name"),
        ("   # Indented H1 #\n", "Indented H1"),
        ("plain\n", "stem-name"),
    ],
)
def test_title_precedence(notes: Path, make_engine, content: str, title: str) -> None:
    write(notes, "stem-name.md", content)
    e = make_engine(notes)
    only(e)
    assert row(e, "stem-name.md").title == title


def test_setext_h1_is_a_title(notes: Path, make_engine) -> None:
    write(notes, "s.md", "Setext Title\n============\n\ntext\n")
    e = make_engine(notes)
    only(e)
    assert row(e, "s.md").title == "Setext Title"


def test_tags_front_matter_list_and_string(notes: Path, make_engine) -> None:
    write(notes, "list.md", "---\ntags: [Ops, release, ops, '#Hash', 'two words']\n---\nx\n")
    write(notes, "str.md", "---\ntags: alpha, Beta gamma\n---\nx\n")
    write(notes, "single.md", "---\ntag: solo\n---\nx\n")
    e = make_engine(notes)
    only(e)
    assert tags(e, "list.md") == ["hash", "ops", "release"]
    assert tags(e, "str.md") == ["alpha", "beta", "gamma"]
    assert tags(e, "single.md") == ["solo"]
    sources = {
        r[0]: r[1] for r in e.store.execute(
            "SELECT tag, source FROM doc_tags WHERE doc_id=?", (row(e, "list.md").id,)
        )
    }
    assert sources == {"hash": "frontmatter", "ops": "frontmatter", "release": "frontmatter"}


def test_inline_tags_and_what_is_not_a_tag(notes: Path, make_engine) -> None:
    write(
        notes, "t.md",
        "# Heading #notatag\n"
        "\n"
        "Body with #inline-tag and #Project/Sub and #x.\n"
        "Issue #123 and see http://example.com/page#fragment and [l](other.md#anchor).\n"
        "Inline `#code` and a#b and &#39; entity and C#.\n"
        "```\n"
        "#fenced\n"
        "```\n"
        "~~~python\n"
        "#tilde\n"
        "~~~\n"
        "end #last\n",
    )
    e = make_engine(notes)
    only(e)
    assert tags(e, "t.md") == ["inline-tag", "last", "project/sub", "x"]
    srcs = {r[0] for r in e.store.execute("SELECT source FROM doc_tags")}
    assert srcs == {"inline"}


def test_heading_links_and_css_colours_are_not_tags(notes: Path, make_engine) -> None:
    """Tags come from front matter and `#tag` words of the prose: a link to a heading names a place,
    a colour in an HTML attribute or a style block is CSS."""
    write(
        notes, "c.md",
        "---\ntags: [ops]\n---\n"
        "See [[#Setup steps]] and [[#Accounts|the accounts]] and ![[Note#^b15695]].\n"
        '<span style="color: #abc">warm</span> <div style="background:#fee; border: 1px solid #bad">x</div>\n'
        "<style>\n.callout { color: #cab; border-color: #dead; }\n</style>\n"
        "Status #draft, and #cafe is still a tag in prose.\n",
    )  # fmt: skip
    e = make_engine(notes)
    only(e)
    assert tags(e, "c.md") == ["cafe", "draft", "ops"]


def test_front_matter_and_inline_tags_merge(notes: Path, make_engine) -> None:
    write(notes, "m.md", "---\ntags: [ops]\n---\nSee #ops and #incident\n")
    e = make_engine(notes)
    only(e)
    assert tags(e, "m.md") == ["incident", "ops"]
    got = sorted((r[0], r[1]) for r in e.store.execute("SELECT tag, source FROM doc_tags"))
    assert got == [("incident", "inline"), ("ops", "frontmatter")]


def test_fixture_tags(engine: Engine) -> None:
    assert engine.get("notes/deploy.md").tags == ["ops", "release"]
    assert engine.get("notes/rollback.md").tags == ["incident", "ops"]
    assert engine.get("notes/projects/runbook.md").tags == ["ops"]
    assert engine.get("notes/projects/languages.md").tags == []


def test_wiki_and_markdown_links(notes: Path, make_engine) -> None:
    write(
        notes, "links.md",
        "# Links\n"
        "See [[Target]] first.\n"
        "Aliased [[Other Note|shown text]] here.\n"
        "Heading [[Deep#Section Two]] link.\n"
        "Both [[Deep Dive#Part|alias]] and ![[embedded.png]].\n"
        "Markdown [the guide](guide.md) and [sub](sub/page.md#steps) and [sp](my%20note.md).\n"
        "External [site](https://example.com/x.md) and [local](#top) and ![img](pic.png).\n"
        "`[[in code]]` and `[c](code.md)`\n"
        "```\n"
        "[[fenced]] [f](fenced.md)\n"
        "```\n",
    )
    e = make_engine(notes)
    only(e)
    links = docs.links_of(e.store, row(e, "links.md").id)
    keys = ("link_type", "target_ref", "target_ref_norm", "anchor", "link_text", "start_line")
    got = [tuple(x[k] for k in keys) for x in links]
    assert got == [
        ("wiki", "Target", "target", None, None, 2),
        ("wiki", "Other Note", "other note", None, "shown text", 3),
        ("wiki", "Deep", "deep", "Section Two", None, 4),
        ("wiki", "Deep Dive", "deep dive", "Part", "alias", 5),
        ("wiki", "embedded.png", "embedded.png", None, None, 5),
        ("markdown", "guide.md", "guide", None, "the guide", 6),
        ("markdown", "sub/page.md", "page", "steps", "sub", 6),
        ("markdown", "my note.md", "my note", None, "sp", 6),
    ]


def test_fixture_links(engine: Engine) -> None:
    deploy = docs.doc_by_path(engine.store, "notes", "deploy.md")
    runbook = docs.doc_by_path(engine.store, "notes", "projects/runbook.md")
    assert deploy is not None and runbook is not None
    assert docs.links_of(engine.store, deploy.id) == [
        {"link_type": "wiki", "target_ref": "rollback", "target_ref_norm": "rollback", "anchor": None,
         "link_text": None, "start_line": 15},
        {"link_type": "markdown", "target_ref": "projects/runbook.md", "target_ref_norm": "runbook",
         "anchor": "steps", "link_text": "runbook", "start_line": 15},
    ]
    assert docs.links_of(engine.store, runbook.id) == [
        {"link_type": "wiki", "target_ref": "deploy", "target_ref_norm": "deploy", "anchor": "Rollback",
         "link_text": "the rollback section", "start_line": 12},
    ]


def test_links_are_replaced_on_update(notes: Path, make_engine) -> None:
    p = write(notes, "l.md", "[[One]]\n")
    e = make_engine(notes)
    only(e)
    p.write_text("[[Two]]\n[[Three]]\n", encoding="utf-8")
    only(e)
    assert [x["target_ref"] for x in docs.links_of(e.store, row(e, "l.md").id)] == ["Two", "Three"]


def test_headings_are_recorded_with_lines(notes: Path, make_engine) -> None:
    write(notes, "h.md", "---\nx: 1\n---\n# Top\n\n## Mid ##\n```\n# no\n```\n### Low\n")
    e = make_engine(notes)
    only(e)
    assert json.loads(row(e, "h.md").headings_json) == [
        {"level": 1, "text": "Top", "line": 4},
        {"level": 2, "text": "Mid", "line": 6},
        {"level": 3, "text": "Low", "line": 10},
    ]


# -- pattern / include / exclude --------------------------------------------------------------


def _tree(root: Path) -> None:
    for rel in (
        "top.md",
        "notes.txt",
        "projects/p1.md",
        "projects/deep/p2.md",
        "projects/readme.markdown",
        "archive/a.md",
        "node_modules/pkg/readme.md",
        ".git/info.md",
        ".hidden.md",
        ".dotdir/x.md",
        "build/out.md",
        "image.png",
    ):
        write(root, rel, f"word{len(rel)} {rel}\n")


def _ls(e: Engine) -> list[str]:
    return [x.rel_path for x in e.ls("c").entries]


def test_default_pattern_and_excludes(notes: Path, make_engine) -> None:
    _tree(notes)
    e = make_engine(notes)
    only(e)
    assert _ls(e) == ["archive/a.md", "projects/deep/p2.md", "projects/p1.md", "top.md"]


def test_pattern_glob_limits_to_a_folder(notes: Path, make_engine) -> None:
    _tree(notes)
    e = make_engine(notes, pattern="projects/**")
    only(e)
    assert _ls(e) == ["projects/deep/p2.md", "projects/p1.md", "projects/readme.markdown"]


def test_pattern_single_level(notes: Path, make_engine) -> None:
    _tree(notes)
    e = make_engine(notes, pattern="projects/*.md")
    only(e)
    assert _ls(e) == ["projects/p1.md"]


def test_include_extension_allowlist(notes: Path, make_engine) -> None:
    _tree(notes)
    e = make_engine(notes, pattern="**/*", include=["txt"])
    only(e)
    assert _ls(e) == ["notes.txt"]


def test_custom_exclude_replaces_defaults(notes: Path, make_engine) -> None:
    _tree(notes)
    e = make_engine(notes, exclude=["archive", "projects/deep/*"])
    only(e)
    # `node_modules` and `build` are no longer excluded; dot paths always are
    assert _ls(e) == ["build/out.md", "node_modules/pkg/readme.md", "projects/p1.md", "top.md"]


def test_files_added_under_an_excluded_folder_are_ignored(notes: Path, make_engine) -> None:
    _tree(notes)
    e = make_engine(notes)
    only(e)
    write(notes, "node_modules/late.md", "late\n")
    r = only(e)
    assert (r["added"], r["scanned"]) == (0, 4)


# -- chunking ----------------------------------------------------------------------------------


def _paragraph(i: int, n_words: int = 30) -> str:
    return " ".join(f"p{i}w{j}" for j in range(n_words))


def test_chunk_text_small_text_is_one_chunk() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n\t") == []
    (c,) = chunk_text("\n\nhello world\nsecond line\n\n")
    assert (c.seq, c.pos, c.text, c.start_line, c.end_line) == (0, 2, "hello world\nsecond line", 3, 4)
    assert c.token_count == 4  # word pieces: hello, world, second, line
    (c,) = chunk_text("\n\nhello world\nsecond line\n\n", counting="chars")
    assert c.token_count == 6  # the estimate without the tokenizer: ceil(23 / 4)


def test_chunk_text_breaks_at_paragraphs_with_overlap() -> None:
    # paragraphs (~100 chars) shorter than the break window (10% of 1600 chars): every window
    # holds a paragraph break, so every chunk must end at one
    paras = [_paragraph(i, 14) for i in range(80)]
    text = "\n\n".join(paras) + "\n"
    max_tokens = 400
    chunks = chunk_text(text, max_tokens=max_tokens, overlap_percent=0.15, counting="chars")
    assert len(chunks) >= 5
    lines = text.split("\n")
    for c in chunks:
        assert text[c.pos : c.pos + len(c.text)] == c.text
        assert len(c.text) <= max_tokens * CHARS_PER_TOKEN
        assert c.start_line == text.count("\n", 0, c.pos) + 1
        assert c.end_line == text.count("\n", 0, c.pos + len(c.text) - 1) + 1
        assert c.text.split("\n")[-1] == lines[c.end_line - 1]
    for a, b in zip(chunks, chunks[1:], strict=False):
        # every non-final chunk ends exactly at a paragraph end
        assert text[a.pos + len(a.text) : a.pos + len(a.text) + 2] == "\n\n"
        # overlap: the next chunk starts inside the previous one
        assert a.pos < b.pos < a.pos + len(a.text)
        assert b.start_line <= a.end_line
    assert chunks[-1].text.endswith(paras[-1])
    assert [c.seq for c in chunks] == list(range(len(chunks)))


def test_chunk_text_falls_back_to_sentences_then_words() -> None:
    # no paragraph or line breaks; sentences (~42 chars) shorter than the 80-char break window
    sentences = " ".join(f"Sentence number {i} has some words in it." for i in range(100))
    chunks = chunk_text(sentences, max_tokens=200, counting="chars")
    assert len(chunks) > 3
    for c in chunks[:-1]:
        assert c.text.endswith(".")
    words = " ".join(f"word{i}" for i in range(400))
    chunks = chunk_text(words, max_tokens=50, counting="chars")
    vocab = set(words.split())
    for c in chunks:
        assert set(c.text.split()) <= vocab  # never cut inside a word
        assert (c.start_line, c.end_line) == (1, 1)


def test_chunk_text_line_offset() -> None:
    lines = [f"line {i} " + "x" * 10 for i in range(1, 81)]  # ~18 chars < the 40-char window
    text = "\n".join(lines)
    chunks = chunk_text(text, line_offset=10, max_tokens=100, counting="chars")
    assert len(chunks) >= 3
    assert chunks[0].start_line == 11
    assert chunks[-1].end_line == 90
    for c in chunks:
        joined = "\n".join(lines[c.start_line - 11 : c.end_line - 10])
        assert joined.endswith(c.text)  # ends at a line end, starts on the start line
        assert c.text.split("\n")[-1] == lines[c.end_line - 11]


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(alphabet=st.sampled_from(list("ab .\n\tXY!é")), max_size=800),
    max_tokens=st.integers(10, 60),
    overlap=st.floats(0, 0.5),
)
def test_chunk_text_covers_every_character(text: str, max_tokens: int, overlap: float) -> None:
    chunks = chunk_text(text, max_tokens=max_tokens, overlap_percent=overlap, counting="chars")
    covered = [False] * len(text)
    for c in chunks:
        assert text[c.pos : c.pos + len(c.text)] == c.text
        assert len(c.text) <= max_tokens * CHARS_PER_TOKEN
        assert c.start_line == text.count("\n", 0, c.pos) + 1
        assert c.end_line == text.count("\n", 0, c.pos + len(c.text) - 1) + 1
        for i in range(c.pos, c.pos + len(c.text)):
            covered[i] = True
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())
    assert all(a.pos < b.pos for a, b in zip(chunks, chunks[1:], strict=False))


def test_chunks_fit_the_embedder_window_and_cover_the_text() -> None:
    words = " ".join(f"supercalifragilistic{i} tokenisation" for i in range(400))  # many pieces per word
    chunks = chunk_text(words)
    assert len(chunks) > 3
    for c in chunks:
        assert c.token_count == len(token_spans(c.text) or []) <= 240
    covered = set()
    for c in chunks:
        covered.update(range(c.pos, c.pos + len(c.text)))
    assert all(i in covered for i, ch in enumerate(words) if not ch.isspace())
    assert all(a.pos < b.pos < a.pos + len(a.text) for a, b in zip(chunks, chunks[1:], strict=False))


def _db_chunks(e: Engine) -> list[tuple[int, str, int, int]]:
    keys = [(str(r[0]), int(r[1])) for r in e.store.execute("SELECT mirror_hash, seq FROM content_chunks ORDER BY seq")]
    rows = chunk_rows(e.store, keys)
    return [(k[1], *rows[k]) for k in keys]


def test_long_document_chunks_in_the_index(notes: Path, make_engine) -> None:
    front = "---\ntitle: Long\n---\n"
    # paragraphs of 15 one-piece words, shorter than the break window (the last 10% of 240 pieces)
    vocab = "river stone cloud field light north green table horse water paper glass sound music bread".split()
    paras = [f"p{i} " + " ".join(vocab[(i + j) % len(vocab)] for j in range(14)) for i in range(200)]
    content = front + "\n\n".join(paras) + "\n"
    write(notes, "long.md", content)
    e = make_engine(notes)
    only(e)
    assert _db_chunks(e) == []  # `gno update` cuts no chunks; the embed pipeline does, first thing
    ensure_chunks(e.store, e.config.chunking)
    chunks = _db_chunks(e)
    assert len(chunks) >= 6
    assert e.status().chunks == len(chunks)
    file_lines = content.split("\n")
    body_text_lines = {i + 1 for i, ln in enumerate(file_lines) if ln.strip() and i >= 3}
    covered: set[int] = set()
    for _seq, text, start, end in chunks:
        assert start >= 4  # never inside the front matter
        joined = "\n".join(file_lines[start - 1 : end])
        assert joined.endswith(text)  # start/end are the file's lines; ends at a paragraph end
        assert file_lines[end] == ""
        assert len(token_spans(text) or []) <= 240  # the embedder's word pieces, within its window
        covered.update(range(start, end + 1))
    assert body_text_lines <= covered
    for (_, a_text, _, a_end), (_, b_text, b_start, _) in zip(chunks, chunks[1:], strict=False):
        assert b_start <= a_end  # overlapping spans
        assert b_text.split(" ")[0] in a_text  # the overlap repeats text of the previous chunk


def test_parse_markdown_line_numbers_survive_crlf() -> None:
    doc = parse_markdown("---\r\ntitle: x\r\n---\r\n# H\r\n[[Link]] #tag\r\n", fallback_title="f")
    assert doc.body_start_line == 4
    assert [(h.text, h.line) for h in doc.headings] == [("H", 4)]
    assert [(lk.target, lk.line) for lk in doc.links] == [("Link", 5)]
    assert doc.tags == [("tag", "inline")]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("- item\n    see [[Target]] #topic\n", True),  # a list item's continuation is text
        ("*\n    see [[Target]] #topic\n", True),  # a bare bullet opens a list too
        ("1. item\n    see [[Target]] #topic\n", True),
        ("-item\n\n    see [[Target]] #topic\n", False),  # `-item` is no list item: the block is code
        ("para\n\n    see [[Target]] #topic\n", False),
    ],
)
def test_indented_lines_under_a_list_item_are_text_not_code(text: str, found: bool) -> None:
    from gno.ingest.markdown import parse_markdown

    doc = parse_markdown(text, fallback_title="t")
    assert bool(doc.links) is found and bool(doc.tags) is found
