"""Fusion never lets a BM25 hit that states little of the query outweigh a standout vector hit.

BM25 scaled to its best hit gives that hit full credit however little of the query it holds; the
leg gives up the share of its weight its best hit does not state (IDF-weighted), as far as the
vector leg's best hit stands out of its pool to take it.
"""

from __future__ import annotations

from gno.retrieve.grammar import parse_query
from gno.retrieve.hybrid import QueryOptions
from gno.store.fts import DocFilter

from .conftest import Build


def _vault() -> dict[str, str]:
    files = {f"n{i}.md": f"# Note {i}\n\nA page about gardening tools number {i}.\n" for i in range(20)}
    files["sync.md"] = "# Sync\n\nYour phone and laptop keep the same notes: changes travel both ways.\n"
    files["tree.md"] = "# Family tree\n\nThe oak page lists every cousin and their birthdays.\n"
    return files


def test_the_share_of_the_query_bm25s_best_hit_states(build: Build) -> None:
    e = build({"kb": _vault()})
    hr = e.retriever()
    sync = e.resolve("kb/sync.md").id
    tree = e.resolve("kb/tree.md").id
    # every content word of the query is in sync.md: full coverage
    assert hr._top_coverage(parse_query("phone laptop notes"), sync) == 1.0
    # tree.md holds only "page", a word most notes share: little of the query, by IDF
    part = hr._top_coverage(parse_query("page cousin birthdays bicycle"), tree)
    assert 0.0 < part < 1.0
    none = hr._top_coverage(parse_query("bicycle"), tree)
    assert none == 0.0


def test_fusion_reports_the_bm25_weight_it_used(build: Build) -> None:
    e = build({"kb": _vault()})
    run = e.retriever().run("phone laptop notes", DocFilter(), QueryOptions())
    fusion = next(s for s in run.stages if s.name == "fusion")
    assert fusion.reason is not None and "BM25 weight" in fusion.reason
