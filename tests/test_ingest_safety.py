"""The index is never lost to a config slip, and ingestion takes in only what it should.

Real engine, real SQLite files, real folders in tmp_path; the CLI through click's runner. Root
cannot be denied a folder by chmod, so an unreadable folder is simulated at `os.scandir`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gno.cli.main import cli
from gno.config import Settings, load_config, save_config
from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.ingest import walker
from gno.store import documents as docs


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\naardvark notes\n", encoding="utf-8")
    (root / "sub").mkdir()
    (root / "sub" / "b.md").write_text("# B\n\nbadger notes\n", encoding="utf-8")
    return root


@pytest.fixture
def engine(settings: Settings, notes: Path) -> Iterator[Engine]:
    e = Engine(settings)
    e.init()
    e.collection_add(str(notes), name="n")
    e.update()
    yield e
    e.close()


def write(root: Path, rel: str, content: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return p


def uris(e: Engine, q: str) -> list[str]:
    return [h.uri for h in e.search(q).results]


def problems(e: Engine) -> dict[str, tuple[str, str]]:
    return {x.rel_path: (x.code, x.severity) for x in e.status().ingest_errors}


def embed_fake(e: Engine) -> int:
    cfg = load_config(e.settings)
    cfg.models.embed = "fake:32"
    save_config(e.settings, cfg)
    e._config = None
    e.embed()
    return vectors(e)


def vectors(e: Engine) -> int:
    return int(e.store.execute("SELECT COUNT(*) FROM content_vectors")[0][0])


def fts_ok(e: Engine) -> None:
    e.store.execute("INSERT INTO documents_fts(documents_fts, rank) VALUES('integrity-check', 1)")


# -- a config with no collections never wipes the index ---------------------------------------


@pytest.mark.parametrize("text", ["", "collections: []\n", "version: '1.0'\ncollections: []\n"])
def test_empty_config_refuses_to_empty_the_index(engine: Engine, text: str) -> None:
    n_vec = embed_fake(engine)
    assert n_vec > 0
    engine.settings.config_path.write_text(text, encoding="utf-8")
    engine._config = None
    with pytest.raises(GnoError) as err:
        engine.update()
    assert err.value.code == ErrorCode.PRUNE_REQUIRED
    assert "--prune" in err.value.message and "gno collection add" in err.value.message
    assert err.value.details["documents"] == 2
    assert docs.count_docs(engine.store, None) == 2
    assert vectors(engine) == n_vec
    assert uris(engine, "aardvark") == ["gno://n/a.md"]
    # --prune is the explicit wish: everything goes, vectors included
    r = engine.update(prune=True)
    assert r.pruned and r.collections == []
    assert docs.count_docs(engine.store, None) == 0
    assert vectors(engine) == 0
    assert engine.store.execute("SELECT COUNT(*) FROM documents")[0][0] == 0


def test_empty_config_through_the_cli(engine: Engine) -> None:
    engine.settings.config_path.write_text("", encoding="utf-8")
    res = CliRunner().invoke(cli, ["update"])
    assert res.exit_code == 1
    assert "PRUNE_REQUIRED" in res.output and "--prune" in res.output
    assert "Traceback" not in res.output
    body = json.loads(CliRunner().invoke(cli, ["update", "--json"]).stdout)
    assert body["error"]["code"] == "PRUNE_REQUIRED"
    pruned = CliRunner().invoke(cli, ["update", "--prune"])
    assert pruned.exit_code == 0, pruned.output
    assert "(pruned)" in pruned.output


def test_removed_collection_keeps_its_vectors_until_prune(engine: Engine, notes: Path) -> None:
    n_vec = embed_fake(engine)
    removed = engine.collection_remove("n")
    assert removed.removed_documents == 2
    assert uris(engine, "aardvark") == []
    assert engine.ls().entries == []
    assert vectors(engine) == n_vec  # kept: putting the folder back needs no re-embedding
    fts_ok(engine)
    engine.collection_add(str(notes), name="n")
    r = engine.update().collections[0]
    assert (r.reactivated, r.added) == (2, 0)
    assert uris(engine, "aardvark") == ["gno://n/a.md"]
    st = engine.status().vectors
    assert st is not None and st.embedded_chunks == st.total_chunks == 2
    assert engine.embed().embedded == 0
    # removed again, then pruned: rows and vectors are gone
    engine.collection_remove("n")
    engine.update(prune=True)
    assert vectors(engine) == 0
    assert engine.store.execute("SELECT COUNT(*) FROM documents")[0][0] == 0
    fts_ok(engine)


def test_collection_dropped_from_the_yaml_leaves_search_but_keeps_rows(
    engine: Engine, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    write(other, "o.md", "# O\n\nocelot\n")
    engine.collection_add(str(other), name="o")
    engine.update()
    n_vec = embed_fake(engine)
    cfg = load_config(engine.settings)
    cfg.collections = [c for c in cfg.collections if c.name != "n"]
    save_config(engine.settings, cfg)
    engine._config = None
    r = engine.update()
    assert r.detached_collections == ["n"]
    assert uris(engine, "aardvark") == [] and uris(engine, "ocelot") == ["gno://o/o.md"]
    assert vectors(engine) == n_vec
    assert engine.update().detached_collections == []  # reported once
    assert [c["kind"] for c in docs.changes(engine.store)][-2:] == ["inactivate", "inactivate"]


# -- tags: links, colours and code are not tags -----------------------------------------------


def test_heading_and_block_links_colours_and_code_are_not_tags(settings: Settings, tmp_path: Path) -> None:
    root = tmp_path / "t"
    write(
        root,
        "t.md",
        "# Title\n"
        "\n"
        "See [[#Some heading]], [[Note#Heading]], [[Note#^block-1]] and [[Other #part|alias]].\n"
        "Colours: #ff0000, #fff, #FFF, #aabbcc, #ff000080 and color: #00ff00;\n"
        "Real tags: #cafe #bad #project/alpha and #x.\n"
        "Code: ``a `#inner` b`` and `#span`.\n"
        "\n"
        "    #include <stdio.h>\n"
        "    #define X 1\n"
        "\n"
        "- list item\n"
        "\n"
        "    continued #listtag\n"
        "\n"
        "````\n"
        "```\n"
        "#stillcode\n"
        "````\n"
        "after #end\n",
    )
    e = Engine(settings)
    e.init()
    e.collection_add(str(root), name="t")
    e.update()
    try:
        row = docs.doc_by_path(e.store, "t", "t.md")
        assert row is not None
        assert docs.tags_of(e.store, [row.id])[row.id] == ["bad", "cafe", "end", "listtag", "project/alpha", "x"]
        links = [(x["target_ref"], x["anchor"], x["link_text"]) for x in docs.links_of(e.store, row.id)]
        assert links == [
            ("Note", "Heading", None),
            ("Note", "^block-1", None),
            ("Other", "part", "alias"),
        ]
        assert e.search("stdio").results  # code is still searchable text
    finally:
        e.close()


# -- binary files, unreadable folders, odd entries ---------------------------------------------


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01" + bytes(range(256)) * 4


def test_binary_files_are_skipped_with_a_warning(engine: Engine, notes: Path) -> None:
    write(notes, "image.md", PNG)
    write(notes, "noise.md", bytes((i * 37 + 11) % 256 for i in range(4000)).replace(b"\x00", b"\x01"))
    write(notes, "legacy.md", "# Caf\xe9\n\nna\xefve ocelot\n".encode("cp1252"))
    write(notes, "wide.md", "\ufeff# Wide\n\nutf sixteen quokka\n".encode("utf-16-le"))
    r = engine.update().collections[0]
    assert (r.added, r.errors, r.warnings) == (2, 0, 3)
    got = problems(engine)
    assert got["image.md"] == ("NOT_TEXT", "warning")
    assert got["noise.md"] == ("NOT_TEXT", "warning")
    assert got["legacy.md"] == ("ENCODING_FALLBACK", "warning")
    messages = {x.rel_path: x.message for x in engine.status().ingest_errors}
    assert "NUL bytes" in messages["image.md"] and "control bytes" in messages["noise.md"]
    assert uris(engine, "ocelot") == ["gno://n/legacy.md"]
    assert uris(engine, "quokka") == ["gno://n/wide.md"]
    assert "gno://n/image.md" not in [x.uri for x in engine.ls().entries]
    # an indexed note overwritten by binary bytes leaves search
    write(notes, "a.md", PNG)
    r = engine.update().collections[0]
    assert r.inactivated == 1
    assert uris(engine, "aardvark") == []
    fts_ok(engine)


def test_unreadable_folder_is_reported_and_keeps_its_documents(
    engine: Engine, notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.scandir
    blocked = str(notes / "sub")

    def scandir(path: Any = ".") -> Any:
        if os.fspath(path) == blocked:
            raise PermissionError(13, "Permission denied", blocked)
        return real(path)

    with monkeypatch.context() as mp:
        mp.setattr(walker.os, "scandir", scandir)
        r = engine.update().collections[0]
    assert (r.inactivated, r.errors, r.warnings, r.error_paths) == (0, 0, 1, ["sub/"])
    assert problems(engine) == {"sub/": ("FOLDER_UNREADABLE", "warning")}
    st = engine.status().collections[0]
    assert (st.errors, st.warnings, st.active) == (0, 1, 2)
    assert uris(engine, "badger") == ["gno://n/sub/b.md"]  # not known to be gone: kept
    out = CliRunner().invoke(cli, ["status"]).output
    assert "n/sub/: warning [FOLDER_UNREADABLE] cannot list folder: Permission denied" in out
    r = engine.update().collections[0]  # readable again: the warning clears
    assert (r.warnings, problems(engine)) == (0, {})


def test_fifo_and_oversized_files_are_reported(engine: Engine, notes: Path) -> None:
    os.mkfifo(notes / "pipe.md")
    write(notes, "big.md", "x" * 200)
    cfg = load_config(engine.settings)
    cfg.collections[0].max_file_bytes = 100
    save_config(engine.settings, cfg)
    engine._config = None
    r = engine.update().collections[0]
    assert r.warnings == 2
    assert problems(engine) == {"pipe.md": ("NOT_A_FILE", "warning"), "big.md": ("FILE_TOO_LARGE", "warning")}


# -- overlapping collections -------------------------------------------------------------------


def test_a_folder_inside_or_around_a_collection_is_refused(engine: Engine, notes: Path, tmp_path: Path) -> None:
    for path, how in ((notes, "is the folder"), (notes / "sub", "is inside"), (tmp_path, "contains")):
        with pytest.raises(GnoError) as err:
            engine.collection_add(str(path), name="x")
        assert err.value.code == ErrorCode.COLLECTION_OVERLAP
        assert how in err.value.message and "'n'" in err.value.message
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    assert engine.collection_add(str(sibling), name="s").name == "s"
    link = tmp_path / "alias"
    link.symlink_to(notes)
    with pytest.raises(GnoError) as err:
        engine.collection_add(str(link), name="y")
    assert err.value.code == ErrorCode.COLLECTION_OVERLAP


# -- ls pages ----------------------------------------------------------------------------------


def test_ls_pages_and_says_n_of_m(engine: Engine, notes: Path) -> None:
    for i in range(5):
        write(notes, f"p{i}.md", f"page {i}\n")
    engine.update()
    page = engine.ls(limit=3, offset=2)
    assert (page.total, page.offset, page.limit) == (7, 2, 3)
    assert [x.rel_path for x in page.entries] == ["p1.md", "p2.md", "p3.md"]
    res = CliRunner().invoke(cli, ["ls", "--limit", "3"])
    assert res.exit_code == 0
    assert "3 of 7 documents shown (1-3); next page: --offset 3" in res.output
    body: dict[str, Any] = json.loads(CliRunner().invoke(cli, ["ls", "n", "--offset", "6", "--json"]).stdout)
    assert (body["total"], len(body["entries"])) == (7, 1)
    bad = CliRunner().invoke(cli, ["ls", "--limit", "0", "--json"])
    assert bad.exit_code == 1 and json.loads(bad.stdout)["error"]["code"] == "VALIDATION"
