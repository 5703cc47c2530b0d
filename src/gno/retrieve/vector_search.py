"""Rung 2 of the retrieval ladder (`gno vsearch`): documents ranked by their best chunk's cosine.

A long note is cited at its best chunk's lines, so the snippet shows the passage that matched,
not the note's first lines; scores below zero count as zero (a negative cosine is no evidence).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno.hints import HintConfig
    from gno.models import SearchResult
    from gno.retrieve.semantic import Semantic
    from gno.store.db import Store
    from gno.store.fts import DocFilter


def vsearch(
    store: Store,
    semantic: Semantic,
    query: str,
    f: DocFilter,
    hints: Sequence[HintConfig],
    *,
    limit: int,
    min_score: float,
    full: bool,
) -> SearchResult:
    import time

    from gno.hints import attach
    from gno.models import SearchMeta, SearchResult
    from gno.retrieve.grammar import parse_query
    from gno.retrieve.search import build_hits
    from gno.store.chunks import chunk_lines

    t0 = time.perf_counter()
    found = semantic.search_docs(query, f, limit)
    scored = [(d, max(0.0, s)) for d, s, _ in found if s >= min_score]
    starts = chunk_lines(store, [key for _, _, key in found])
    hits = build_hits(
        store,
        scored,
        parse_query(query).words(),
        full=full,
        sources={d: ["vector"] for d, _ in scored},
        lines={d: starts[key] for d, _, key in found if key in starts},  # a long note: its best chunk's window
    )
    meta = SearchMeta(total_results=len(hits), mode="vector", elapsed_ms=round((time.perf_counter() - t0) * 1000, 3))
    return attach(SearchResult(query=query, mode="vector", results=hits, meta=meta), hints)
