"""A sync that reads and parses in worker processes writes exactly what an in-process sync writes.

Large syncs hand reading and parsing to forked worker processes when the process has no other
thread; both ways run here against the same folder, over real SQLite files, and every row the
index keeps is compared.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.config import CollectionConfig, build_settings
from gno.engine import Engine
from gno.errors import RuntimeFailure, ValidationError
from gno.ingest import prepare
from gno.ingest.sync import Syncer
from gno.ingest.walker import walk_collection

TABLES = {
    "documents": "SELECT id, collection, rel_path, source_hash, source_size, source_mtime_ns, docid, uri, title, "
    "mirror_hash, body_start_line, frontmatter_json, headings_json, dates_json, active FROM documents ORDER BY id",
    "fts": "SELECT rowid, filepath, title, body FROM documents_fts ORDER BY rowid",
    "content": "SELECT mirror_hash, markdown FROM content ORDER BY mirror_hash",
    "tags": "SELECT doc_id, tag, source FROM doc_tags ORDER BY 1, 2",
    "links": "SELECT doc_id, link_type, target_ref, target_ref_norm, anchor, link_text, start_line FROM doc_links "
    "ORDER BY 1, 7, 3",
    "edges": "SELECT doc_id, edge_type, target_uri FROM doc_edges ORDER BY 1, 2, 3",
    "keys": "SELECT doc_id, key FROM doc_keys ORDER BY 1, 2",
    "changes": "SELECT kind, doc_id, current_json FROM document_changes ORDER BY id",
    "problems": "SELECT rel_path, code, message FROM ingest_errors ORDER BY rel_path",
}


def make_folder(root: Path) -> None:
    for i in range(300):
        (root / f"d{i % 7}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 7}" / f"n{i:03d}.md").write_text(
            f"---\ntitle: Note {i}\ntags: [t{i % 5}]\ndate: 2026-01-{i % 28 + 1:02d}\n"
            f"relations:\n  cites: gno://c/d0/n{(i + 1) % 300:03d}.md\n---\n"
            f"# Heading {i}\n\nBody about #topic{i % 3} with [[n{(i + 2) % 300:03d}]] and [a](../d1/x.md#part).\n",
            encoding="utf-8",
        )
    (root / "empty.md").write_bytes(b"")
    (root / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (root / "latin.md").write_bytes("caf\xe9 au lait\n".encode("cp1252"))
    (root / "badyaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")


def rows(db: str) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(db)
    try:
        return {name: [tuple(r) for r in conn.execute(sql)] for name, sql in TABLES.items()}
    finally:
        conn.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    make_folder(root)
    return root


def indexed(
    home: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> dict[str, list[tuple[object, ...]]]:
    for var, sub in (("GNO_CONFIG_DIR", "config"), ("GNO_DATA_DIR", "data"), ("GNO_CACHE_DIR", "cache")):
        monkeypatch.setenv(var, str(home / sub))
    e = Engine(build_settings())
    try:
        e.init()
        e.collection_add(str(folder), name="c")
        res = Syncer(e.store, e.projectors(), parallel_files=1, workers=workers).sync_collection(e.collection("c"))
        assert (res.added, res.errors, res.warnings) == (303, 0, 3)  # binary.md skipped; badyaml.md, latin.md warn
        return rows(e.store.path)
    finally:
        e.close()


@pytest.fixture(autouse=True)
def forkable(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker tests fork even when an earlier test in this process left an idle thread behind."""
    if "second_thread" not in request.fixturenames:
        monkeypatch.setattr(prepare, "may_fork", lambda: True)


@pytest.fixture
def second_thread() -> Iterator[None]:
    """Another live thread (as in a server)."""
    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=True)
    t.start()
    yield
    stop.set()
    t.join()


def test_forked_workers_write_what_an_in_process_sync_writes(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prepare, "CHUNK_FILES", 16)  # many tasks in flight, results taken in order
    serial = indexed(tmp_path / "serial", folder, monkeypatch, workers=0)
    parallel = indexed(tmp_path / "forked", folder, monkeypatch, workers=2)
    assert parallel == serial
    assert len(serial["documents"]) == 303 and len(serial["links"]) > 300


def test_a_process_with_other_threads_reads_in_process(folder: Path, second_thread: None) -> None:
    files = sorted(walk_collection(CollectionConfig(name="c", path=str(folder))).files, key=lambda f: f.rel_path)
    assert not prepare.may_fork()
    loads = prepare.load_all("c", files, "2026-01-01T00:00:00.000Z", workers=2)
    first = next(loads)
    assert multiprocessing.active_children() == []  # no fork beside a live thread
    assert first.text is not None and first.write is None  # parsed on demand, as any in-process load
    assert prepare.parsed_by(first, "c", files[0], "2026-01-01T00:00:00.000Z").write is not None
    loads.close()


def test_closing_the_loader_early_stops_its_workers(folder: Path) -> None:
    files = sorted(walk_collection(CollectionConfig(name="c", path=str(folder))).files, key=lambda f: f.rel_path)
    loads = prepare.load_all("c", files, "2026-01-01T00:00:00.000Z", workers=1)
    first = next(loads)
    assert first.source_hash and first.write is not None and first.write.rel_path == files[0].rel_path
    assert len(multiprocessing.active_children()) == 1
    loads.close()
    assert multiprocessing.active_children() == []


def test_index_workers_come_from_the_environment_or_the_idle_cores(tmp_path: Path, folder: Path) -> None:
    assert prepare.index_workers({"GNO_INDEX_WORKERS": "0"}) == 0
    assert prepare.index_workers({"GNO_INDEX_WORKERS": " 2 "}) == 2
    assert 0 <= prepare.index_workers({}) <= 3
    env = {"GNO_CONFIG_DIR": str(tmp_path / "c"), "GNO_DATA_DIR": str(tmp_path / "d"), "GNO_INDEX_WORKERS": "two"}
    e = Engine(build_settings(env=env))
    try:
        e.init()
        e.collection_add(str(folder), name="c")
        with pytest.raises(ValidationError, match="GNO_INDEX_WORKERS='two': use a whole number"):
            e.update()
        assert e.status().collections[0].active == 0  # nothing written
    finally:
        e.close()


def _die(*_: object) -> list[prepare.Loaded]:
    os._exit(3)  # as an out-of-memory kill would end a worker


def test_a_worker_that_dies_ends_the_sync_with_a_clear_error(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare, "_load_many", _die)  # forked workers inherit the patch
    files = sorted(walk_collection(CollectionConfig(name="c", path=str(folder))).files, key=lambda f: f.rel_path)
    with pytest.raises(RuntimeFailure, match="worker process reading the files died") as err:
        list(prepare.load_all("c", files, "2026-01-01T00:00:00.000Z", workers=1))
    assert "GNO_INDEX_WORKERS=0" in str(err.value)
    assert multiprocessing.active_children() == []
