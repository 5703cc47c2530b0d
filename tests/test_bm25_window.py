"""A BM25 top-k ranked on the full-text index alone equals the join's answer.

Without a filter, or with only a collection filter, `bm25_search` ranks a window of the full-text
index by score and looks up only that window; the join (which a document-id filter forces) is the
reference. Notes with identical text tie exactly, so the window can end inside a tie; inactive rows
left in the index and other collections take places in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gno.config import Settings
from gno.engine import Engine
from gno.store.fts import DocFilter, bm25_search

TIED = "The original command is documented elsewhere.\n"


@pytest.fixture
def engine(settings: Settings, tmp_path: Path) -> Engine:
    root = tmp_path / "vault"
    (root / "tied").mkdir(parents=True)
    for i in range(40):  # 40 notes that differ in length, so they score apart
        extra = " filler" * i
        (root / f"page-{i:02d}.md").write_text(f"# Page {i}\n\nThe original command{extra}.\n", encoding="utf-8")
    # 60 notes with the same text tie on one score and are ordered by path; the later half of the
    # paths is indexed first, so the index's own order among them is not the path order
    side = tmp_path / "side"  # a small second collection with the same words
    side.mkdir()
    for i in range(6):
        (side / f"s-{i}.md").write_text(f"The original command, side {i}{' filler' * i}.\n", encoding="utf-8")
    e = Engine(settings)
    e.init(str(root), name="notes")
    e.collection_add(str(side), name="side")
    for batch in (range(30, 60), range(30)):
        for i in batch:
            (root / "tied" / f"alias-{i:02d}.md").write_text(TIED, encoding="utf-8")
        e.update()
    return e


def joined(e: Engine, expr: str, limit: int, collections: tuple[str, ...] = ()) -> list[tuple[int, float]]:
    """The reference: the join, which a document-id filter (here: every document) forces."""
    ids = [int(r[0]) for r in e.store.conn.execute("SELECT id FROM documents")]
    f = DocFilter(collections=collections, doc_ids=ids)
    return [(h.doc_id, h.raw) for h in bm25_search(e.store, expr, f, limit)]


def windowed(e: Engine, expr: str, limit: int, collections: tuple[str, ...] = ()) -> list[tuple[int, float]]:
    return [(h.doc_id, h.raw) for h in bm25_search(e.store, expr, DocFilter(collections=collections), limit)]


EXPRS = ['"original"*', '"command"* AND "original"*', '"filler"*', '"documented"*', '"absent"']


@pytest.mark.parametrize("collections", [(), ("notes",), ("side",), ("notes", "side")])
@pytest.mark.parametrize("expr", EXPRS)
@pytest.mark.parametrize("limit", [1, 3, 10, 25, 200])
def test_the_window_gives_the_joins_top_k(engine: Engine, expr: str, limit: int, collections: tuple[str, ...]) -> None:
    assert windowed(engine, expr, limit, collections) == joined(engine, expr, limit, collections)


def test_a_small_collection_takes_the_join_until_the_index_changes(engine: Engine) -> None:
    misses = engine.store.scratch.setdefault("bm25_window_misses", {})
    assert windowed(engine, '"original"*', 3, ("side",)) == joined(engine, '"original"*', 3, ("side",))
    assert ("side",) in misses  # 6 of 106 matches: the window of 20 holds too few of them
    assert windowed(engine, '"original"*', 3, ("side",)) == joined(engine, '"original"*', 3, ("side",))
    engine.store.conn.execute("UPDATE documents SET source_size = source_size WHERE id = 1")  # any write
    stamp = misses[("side",)]
    assert windowed(engine, '"original"*', 3, ("side",)) == joined(engine, '"original"*', 3, ("side",))
    assert misses[("side",)] != stamp  # tried again after the write, and recorded again


def test_a_window_ending_inside_a_tie_is_ordered_by_path(engine: Engine) -> None:
    top = windowed(engine, '"documented"*', 10)
    assert len(top) == 10 and len({raw for _, raw in top}) == 1
    conn = engine.store.conn
    paths = [conn.execute("SELECT rel_path FROM documents WHERE id=?", (i,)).fetchone()[0] for i, _ in top]
    assert paths == [f"tied/alias-{i:02d}.md" for i in range(10)]


def test_inactive_rows_left_in_the_index_never_surface(engine: Engine) -> None:
    conn = engine.store.conn
    best = windowed(engine, '"filler"*', 40)
    gone = [doc_id for doc_id, _ in best[:30]]  # inactive, but still in the full-text index
    conn.executemany("UPDATE documents SET active = 0 WHERE id = ?", [(i,) for i in gone])
    for limit in (1, 5, 10):
        for collections in ((), ("notes",)):
            top = windowed(engine, '"filler"*', limit, collections)
            assert top == joined(engine, '"filler"*', limit, collections)
            assert not {i for i, _ in top} & set(gone)
