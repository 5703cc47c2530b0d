"""A matrix loaded before a fork (a resident owner's template) serves only its own index state.

`gno.retrieve.vectors.keep_shared` hands a loaded matrix to every later engine of the process (and of
the processes forked from it); an engine uses it only while the index file is the same and its
documents and vectors are of the same generation, else it loads the matrix itself, as always.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.engine import Engine
from gno.retrieve import vectors
from gno.settings import Settings


@pytest.fixture
def embedded(settings: Settings, corpus: Path) -> Iterator[Engine]:
    e = Engine(settings)
    e.init()
    e.collection_add(str(corpus), name="notes")
    cfg = e.settings.config_path
    cfg.write_text(cfg.read_text() + 'models:\n  embed: "fake:16"\n')
    e.update()
    e.embed()
    yield e
    e.close()
    vectors._SHARED.clear()


def test_a_kept_matrix_serves_engines_until_the_index_changes(
    embedded: Engine, settings: Settings, corpus: Path
) -> None:
    kept = embedded.semantic.index()
    vectors.keep_shared(embedded.store.path, kept)
    reader = Engine(settings)
    assert reader.semantic.index() is kept
    ranked = reader.vsearch("deploy")
    (corpus / "fresh.md").write_text("# Fresh\n\nA brand new note about deploy pipelines.\n", encoding="utf-8")
    embedded.update()
    embedded.embed()
    later = Engine(settings)
    idx = later.semantic.index()
    assert idx is not kept and len(idx) > len(kept)
    assert any(h.rel_path == "fresh.md" for h in later.vsearch("deploy pipelines", limit=50).results)
    assert Engine(settings).vsearch("deploy").results != [] and ranked.results
    for e in (reader, later):
        e.close()


def test_a_replaced_index_file_is_never_served_the_kept_matrix(embedded: Engine, settings: Settings) -> None:
    kept = embedded.semantic.index()
    vectors.keep_shared(embedded.store.path, kept)
    embedded.close()
    path = settings.db_location
    copy = path + ".copy"
    with open(path, "rb") as src, open(copy, "wb") as dst:  # same content, same generation, another file
        dst.write(src.read())
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    os.replace(copy, path)
    other = Engine(settings)
    assert other.semantic.index() is not kept
    other.close()
