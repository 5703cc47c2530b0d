"""The resident runtime keeps the index current: a real watcher (watchfiles) on a real folder.

Each change kind is made the way editors and shells make it, then the index is read back from a
second engine (another SQLite connection, as another process would) until it shows the change.
The wait is a liveness bound, not a speed check (speed is measured by bench/watcher.py).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gno.config import Settings
from gno.daemon import ResidentRuntime, RuntimeOptions
from gno.daemon.routing import ChangeRouter
from gno.engine import Engine

LIVENESS_S = 20.0


def wait_for(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + LIVENESS_S
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"the index never showed: {what}")
        time.sleep(0.05)


def found(engine: Engine, word: str) -> set[str]:
    return {h.uri for h in engine.search(word, limit=50).results}


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    d = tmp_path / "notes"
    d.mkdir()
    (d / "seed.md").write_text("# Seed\n\nThe aardvark note.\n")
    return d


@pytest.fixture
def reader(settings: Settings, notes: Path) -> Iterator[Engine]:
    e = Engine(settings)
    e.init(str(notes), name="notes")
    e.update()
    yield e
    e.close()


@pytest.fixture
def runtime(settings: Settings, reader: Engine) -> Iterator[ResidentRuntime]:
    rt = ResidentRuntime(settings, RuntimeOptions(reconcile_interval=3600, embed=False))
    rt.start()
    time.sleep(0.5)  # let inotify install its watches before the first change
    yield rt
    rt.stop()
    rt.join(10)


def test_every_change_kind_reaches_the_index(runtime: ResidentRuntime, reader: Engine, notes: Path) -> None:
    (notes / "created.md").write_text("# Created\n\nA bonobo appears.\n")
    wait_for(lambda: found(reader, "bonobo") == {"gno://notes/created.md"}, "a created file")

    tmp = notes / ".created.md.swp"
    tmp.write_text("# Created\n\nA capybara replaced the bonobo.\n")
    os.replace(tmp, notes / "created.md")  # an editor's atomic save
    wait_for(lambda: found(reader, "capybara") == {"gno://notes/created.md"}, "an atomic save")

    with (notes / "seed.md").open("a") as fh:
        fh.write("\nAn edited dingo line.\n")
    wait_for(lambda: found(reader, "dingo") == {"gno://notes/seed.md"}, "an in-place edit")

    os.rename(notes / "created.md", notes / "moved.md")
    wait_for(lambda: found(reader, "capybara") == {"gno://notes/moved.md"}, "a rename")

    (notes / "moved.md").unlink()
    wait_for(lambda: not found(reader, "capybara"), "a delete")

    deep = notes / "projects" / "alpha" / "deep"
    deep.mkdir(parents=True)
    (deep / "one.md").write_text("# One\n\nThe echidna plan.\n")
    (notes / "projects" / "two.md").write_text("# Two\n\nThe echidna budget.\n")
    wait_for(lambda: len(found(reader, "echidna")) == 2, "files in a new folder tree")

    shutil.rmtree(notes / "projects")
    wait_for(lambda: not found(reader, "echidna"), "a recursive folder delete")
    assert found(reader, "aardvark") == {"gno://notes/seed.md"}


def test_folder_moved_in_and_out(runtime: ResidentRuntime, reader: Engine, notes: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "f.md").write_text("# F\n\nThe flamingo file.\n")
    os.rename(outside, notes / "incoming")
    wait_for(lambda: found(reader, "flamingo") == {"gno://notes/incoming/sub/f.md"}, "a folder moved in")
    os.rename(notes / "incoming", tmp_path / "gone")
    wait_for(lambda: not found(reader, "flamingo"), "a folder moved out")


def test_reconciliation_catches_changes_made_while_stopped(settings: Settings, reader: Engine, notes: Path) -> None:
    (notes / "offline.md").write_text("# Offline\n\nWritten while no gecko watched.\n")
    (notes / "seed.md").unlink()
    rt = ResidentRuntime(settings, RuntimeOptions(reconcile_interval=3600, embed=False))
    rt.start()
    try:
        wait_for(lambda: found(reader, "gecko") == {"gno://notes/offline.md"}, "a file created while stopped")
        wait_for(lambda: not found(reader, "aardvark"), "a file deleted while stopped")
    finally:
        rt.stop()
        rt.join(10)


def test_ignored_files_stay_out(runtime: ResidentRuntime, reader: Engine, notes: Path) -> None:
    (notes / ".hidden.md").write_text("hidden heron\n")
    (notes / "image.png").write_bytes(b"heron")
    (notes / "visible.md").write_text("visible heron\n")
    wait_for(lambda: found(reader, "heron") == {"gno://notes/visible.md"}, "only the matching file")


def test_router_expands_folder_events(settings: Settings, reader: Engine, notes: Path) -> None:
    (notes / "a" / "b").mkdir(parents=True)
    (notes / "a" / "b" / "x.md").write_text("x\n")
    (notes / "a" / "skip.txt.bak").write_text("no\n")
    (notes / "a" / ".git").mkdir()
    (notes / "a" / ".git" / "y.md").write_text("y\n")
    router = ChangeRouter(reader.config.collections)
    routed = router.route([str(notes / "a"), str(notes / "elsewhere.md"), "/not/a/collection.md"], reader.store)
    assert routed.paths == {"notes": {"a/b/x.md", "elsewhere.md"}}
    assert routed.folders == {"notes"}
    routed = router.route([str(notes)], reader.store)
    assert routed.whole == {"notes"}


def test_path_scoped_sync_retires_and_renames(reader: Engine, notes: Path) -> None:
    coll = reader.collection("notes")
    (notes / "seed.md").rename(notes / "renamed.md")
    with reader.lease():
        r = reader.sync_paths(coll, {"seed.md", "renamed.md"})
    assert (r.renamed, r.added, r.inactivated) == (1, 0, 0)
    (notes / "renamed.md").unlink()
    with reader.lease():
        r = reader.sync_paths(coll, {"renamed.md"})
    assert r.inactivated == 1
    assert not found(reader, "aardvark")


def all_embedded(reader: Engine) -> bool:
    """Every document chunked and every chunk embedded (`gno update` cuts no chunks)."""
    st = reader.semantic.status()
    return st.pending_documents == 0 and st.embedded_chunks == st.total_chunks


def test_new_chunks_are_embedded_in_the_background(settings: Settings, reader: Engine, notes: Path) -> None:
    from gno.config import load_config, save_config

    cfg = load_config(settings)
    cfg.models.embed = "fake"
    save_config(settings, cfg)
    rt = ResidentRuntime(settings, RuntimeOptions(reconcile_interval=3600, embed=True))
    rt.start()
    try:
        wait_for(lambda: all_embedded(reader) and reader.semantic.status().embedded_chunks > 0,
                 "the existing chunks embedded")
        (notes / "new.md").write_text("# New\n\nA quokka arrives with vectors.\n")
        wait_for(lambda: found(reader, "quokka") == {"gno://notes/new.md"}, "the new file")
        wait_for(lambda: all_embedded(reader), "the new chunks embedded")
        assert [h.uri for h in reader.vsearch("quokka arrives with vectors", limit=1).results] == ["gno://notes/new.md"]
    finally:
        rt.stop()
        rt.join(10)
