"""An unfiltered BM25 top-k ranked on the full-text index alone equals the join's answer.

Without a filter `bm25_search` ranks a window of the full-text index by score and looks up only
that window; the join (which any filter takes) is the reference. Notes with identical text tie
exactly, so the window can end inside a tie, and inactive rows left in the index take places in it.
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
    e = Engine(settings)
    e.init(str(root), name="notes")
    for batch in (range(30, 60), range(30)):
        for i in batch:
            (root / "tied" / f"alias-{i:02d}.md").write_text(TIED, encoding="utf-8")
        e.update()
    return e


def joined(e: Engine, expr: str, limit: int) -> list[tuple[int, float]]:
    """The reference: the join, which a filter that keeps every document forces."""
    return [tuple(h) for h in bm25_search(e.store, expr, DocFilter(collections=["notes"]), limit)]  # type: ignore[misc]


def windowed(e: Engine, expr: str, limit: int) -> list[tuple[int, float]]:
    return [tuple(h) for h in bm25_search(e.store, expr, DocFilter(), limit)]  # type: ignore[misc]


EXPRS = ['"original"*', '"command"* AND "original"*', '"filler"*', '"documented"*', '"absent"']


@pytest.mark.parametrize("expr", EXPRS)
@pytest.mark.parametrize("limit", [1, 3, 10, 25, 200])
def test_the_window_gives_the_joins_top_k(engine: Engine, expr: str, limit: int) -> None:
    assert windowed(engine, expr, limit) == joined(engine, expr, limit)


def test_a_window_ending_inside_a_tie_is_ordered_by_path(engine: Engine) -> None:
    top = windowed(engine, '"documented"*', 10)
    assert len(top) == 10 and len({raw for _, raw in top}) == 1
    paths = [engine.store.conn.execute("SELECT rel_path FROM documents WHERE id=?", (i,)).fetchone()[0] for i, _ in top]
    assert paths == [f"tied/alias-{i:02d}.md" for i in range(10)]


def test_inactive_rows_left_in_the_index_never_surface(engine: Engine) -> None:
    conn = engine.store.conn
    best = windowed(engine, '"filler"*', 40)
    gone = [doc_id for doc_id, _ in best[:30]]  # inactive, but still in the full-text index
    conn.executemany("UPDATE documents SET active = 0 WHERE id = ?", [(i,) for i in gone])
    for limit in (1, 5, 10):
        top = windowed(engine, '"filler"*', limit)
        assert top == joined(engine, '"filler"*', limit)
        assert not {i for i, _ in top} & set(gone)
