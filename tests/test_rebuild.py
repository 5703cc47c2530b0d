"""The index is disposable: deleting it and running `update` answers identically."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from gno.cli.main import cli
from gno.config import Settings
from gno.engine import Engine
from gno.store import documents as docs
from gno.store.db import MIGRATIONS, SCHEMA_VERSION, Store, schema_dump

QUERIES = [
    "deploy",
    "rollback",
    "gpt-4",
    "DEC-0054",
    "cafe",
    '"release pipeline"',
    "deploy -legacy",
    "the",
    "projects",
    "o",
    'C++ "unbalanced',
    "staging production",
]


def delete_index(settings: Settings) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(settings.db_path) + suffix).unlink(missing_ok=True)
    assert not settings.db_path.exists()


def answers(e: Engine) -> dict[str, Any]:
    """Everything a reader can observe, minus timings and sizes."""
    out: dict[str, Any] = {}
    for q in QUERIES:
        for kw in ({}, {"limit": 2}, {"full": True}, {"tags_any": ["ops"]}):
            r = e.search(q, **kw).dump()  # type: ignore[arg-type]
            r["meta"].pop("elapsedMs")
            out[f"search {q} {sorted(kw)}"] = r
    ls = e.ls().dump()
    out["ls"] = ls
    for entry in ls["entries"]:
        d = e.get(entry["uri"]).dump()
        out[f"get {entry['uri']}"] = d
        row = docs.doc_by_path(e.store, entry["collection"], entry["relPath"])
        assert row is not None
        out[f"links {entry['uri']}"] = docs.links_of(e.store, row.id)
        out[f"headings {entry['uri']}"] = json.loads(row.headings_json)
        out[f"fm {entry['uri']}"] = row.frontmatter_json
    st = e.status().dump()
    out["status"] = {
        "documents": st["documents"],
        "chunks": st["chunks"],
        "active": [c["active"] for c in st["collections"]],
        "errors": [(x["relPath"], x["code"], x["message"]) for x in st["ingestErrors"]],
    }
    out["chunks"] = [
        tuple(r)
        for r in e.store.execute(
            "SELECT c.mirror_hash, seq, pos, length, start_line, end_line, token_count FROM content_chunks c "
            "WHERE c.mirror_hash IN (SELECT mirror_hash FROM documents WHERE active=1) ORDER BY 1, 2"
        )
    ]
    return out


def rebuild(settings: Settings, e: Engine) -> Engine:
    e.close()
    delete_index(settings)
    fresh = Engine(settings)
    fresh.update()
    return fresh


def test_rebuilt_index_answers_identically(engine: Engine, settings: Settings) -> None:
    before = answers(engine)
    assert len(before["ls"]["entries"]) == 5
    assert before["search deploy []"]["results"][0]["uri"] == "gno://notes/deploy.md"
    fresh = rebuild(settings, engine)
    try:
        after = answers(fresh)
    finally:
        fresh.close()
    assert after == before


def test_rebuild_through_the_cli(corpus: Path, settings: Settings) -> None:
    runner = CliRunner()

    def j(*args: str) -> Any:
        res = runner.invoke(cli, [*args, "--json"])
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    j("init", str(corpus), "--name", "notes")
    j("update")
    before = []
    for q in QUERIES:
        r = j("search", q)
        r["meta"].pop("elapsedMs")
        before.append(r)
    delete_index(settings)
    sync = j("update")
    assert sync["collections"][0]["added"] == 5
    after = []
    for q in QUERIES:
        r = j("search", q)
        r["meta"].pop("elapsedMs")
        after.append(r)
    assert after == before


def test_rebuild_after_a_history_of_changes(engine: Engine, settings: Settings, corpus: Path) -> None:
    # edits, a deletion, a restore, a rename (of an H1-titled note) and a new file
    (corpus / "archive" / "old.md").write_text(
        "# Old notes\n\nThe legacy deploy used a flamingo.\n", encoding="utf-8"
    )
    engine.update()
    raw = (corpus / "rollback.md").read_bytes()
    (corpus / "rollback.md").unlink()
    engine.update()
    (corpus / "rollback.md").write_bytes(raw)
    (corpus / "projects" / "languages.md").rename(corpus / "langs.md")
    (corpus / "zz-new.md").write_text(
        "---\ntags: [ops]\n---\n# New\n\nA new deploy note [[deploy]].\n", encoding="utf-8"
    )
    (corpus / "deploy.md").unlink()
    engine.update()
    before = answers(engine)
    assert [e["relPath"] for e in before["ls"]["entries"]] == [
        "archive/old.md",
        "langs.md",
        "projects/runbook.md",
        "rollback.md",
        "zz-new.md",
    ]
    fresh = rebuild(settings, engine)
    try:
        after = answers(fresh)
    finally:
        fresh.close()
    assert after == before


def test_rebuild_keeps_the_order_of_equal_scores(settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ties"
    root.mkdir()
    (root / "b.md").write_text("otters b\n", encoding="utf-8")
    e = Engine(settings)
    e.init()
    e.collection_add(str(root), name="t")
    e.update()
    (root / "a.md").write_text("otters a\n", encoding="utf-8")  # added later: larger row id
    e.update()
    before = [(h.uri, h.score) for h in e.search("otters").results]
    assert sorted(s for _, s in before) == [1.0, 1.0]
    fresh = rebuild(settings, e)
    try:
        after = [(h.uri, h.score) for h in fresh.search("otters").results]
    finally:
        fresh.close()
    assert after == before


def test_rebuild_after_renaming_an_untitled_note(settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "ren"
    root.mkdir()
    (root / "foo.md").write_text("plain text about otters\n", encoding="utf-8")
    e = Engine(settings)
    e.init()
    e.collection_add(str(root), name="r")
    e.update()
    os.rename(root / "foo.md", root / "bar.md")
    e.update()
    before = [h.dump() for h in e.search("otters").results]
    fresh = rebuild(settings, e)
    try:
        after = [h.dump() for h in fresh.search("otters").results]
    finally:
        fresh.close()
    assert after == before


def test_rebuild_from_a_copied_folder_gives_same_docids(
    engine: Engine, settings: Settings, corpus: Path, tmp_path: Path
) -> None:
    """Identity comes from the bytes: a copy of the folder indexed elsewhere has the same docids."""
    before = {e.rel_path: e.docid for e in engine.ls().entries}
    engine.close()
    copy = tmp_path / "copy"
    shutil.copytree(corpus, copy)
    delete_index(settings)
    settings.config_path.unlink()
    e = Engine(settings)
    e.init(str(copy), name="notes")
    e.update()
    try:
        assert {x.rel_path: x.docid for x in e.ls().entries} == before
    finally:
        e.close()


# -- schema ----------------------------------------------------------------------------------


def test_schema_is_stable_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    s1 = Store(path)
    fresh = schema_dump(s1)
    assert s1.get_meta("schema_version") == str(SCHEMA_VERSION + len(MIGRATIONS))
    s1.close()
    s2 = Store(path)
    try:
        assert schema_dump(s2) == fresh
        assert s2.get_meta("schema_version") == str(SCHEMA_VERSION + len(MIGRATIONS))
    finally:
        s2.close()
    names = {n for n, _ in fresh}
    for table in (
        "documents",
        "content",
        "content_chunks",
        "documents_fts",
        "doc_tags",
        "doc_links",
        "doc_edges",
        "ingest_errors",
        "document_changes",
        "schema_meta",
    ):
        assert table in names


def test_schema_of_a_rebuilt_index_equals_a_fresh_one(
    engine: Engine, settings: Settings, tmp_path: Path
) -> None:
    used = schema_dump(engine.store)
    blank = Store(tmp_path / "blank.sqlite")
    try:
        assert schema_dump(blank) == used
    finally:
        blank.close()
    fresh = rebuild(settings, engine)
    try:
        assert schema_dump(fresh.store) == used
    finally:
        fresh.close()


def test_migrations_are_numbered_after_the_schema() -> None:
    versions = [v for v, _ in MIGRATIONS]
    assert versions == sorted(set(versions))
    assert all(v > SCHEMA_VERSION for v in versions)
