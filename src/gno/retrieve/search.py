"""Rung 1 of the retrieval ladder: exact (BM25) search with cited spans.

Scores are normalised per query to 0..1 (best hit = 1.0) and are not comparable across
queries. Hits carry docid, uri, title, collection, the best-matching line and its span.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gno.errors import ErrorCode, RuntimeFailure
from gno.models import LineRange, SearchHit, SearchMeta, SearchResult
from gno.retrieve.grammar import ParsedQuery, compile_fts, parse_query
from gno.retrieve.snippets import pick_snippet
from gno.store import documents as docs
from gno.store.db import Store
from gno.store.fts import BM25Hit, DocFilter, FtsQueryError, bm25_search, count_matches


@dataclass(frozen=True)
class SearchOptions:
    limit: int = 10
    min_score: float = 0.0
    full: bool = False
    any_term: bool = False


def run_bm25(
    store: Store, pq: ParsedQuery, f: DocFilter, limit: int, *, any_term: bool = False, raw: str | None = None
) -> list[BM25Hit]:
    expr = compile_fts(pq, any_term=any_term, raw=raw)
    try:
        return bm25_search(store, expr, f, limit)
    except FtsQueryError as exc:  # pragma: no cover - compile_fts quotes everything
        raise RuntimeFailure(f"full-text query failed: {exc}", code=ErrorCode.RUNTIME) from exc


def build_hits(
    store: Store,
    scored: list[tuple[int, float]],
    words: list[str],
    *,
    full: bool = False,
    sources: dict[int, list[str]] | None = None,
) -> list[SearchHit]:
    """Materialise (doc_id, score) pairs into hits with snippets, in the given order."""
    ids = [i for i, _ in scored]
    rows = docs.docs_by_ids(store, ids)
    contents = docs.contents_of(store, (r.mirror_hash for r in rows.values()))
    tags = docs.tags_of(store, ids)
    out: list[SearchHit] = []
    for doc_id, score in scored:
        row = rows.get(doc_id)
        if row is None:
            continue
        text = contents.get(row.mirror_hash, "")
        snip = pick_snippet(text, row.body_start_line, words)
        body = None
        if full:
            body = "\n".join(text.split("\n")[row.body_start_line - 1 :])
        out.append(
            SearchHit(
                docid=row.docid,
                uri=row.uri,
                title=row.title,
                collection=row.collection,
                rel_path=row.rel_path,
                score=round(score, 6),
                line=snip.line,
                snippet=snip.text,
                snippet_range=LineRange(start_line=snip.start_line, end_line=snip.end_line),
                tags=tags.get(doc_id, []),
                body=body,
                body_start_line=row.body_start_line if full else None,
                sources=(sources or {}).get(doc_id),
            )
        )
    return out


def search(store: Store, query: str, f: DocFilter, opts: SearchOptions) -> SearchResult:
    t0 = time.perf_counter()
    pq = parse_query(query)
    hits = run_bm25(store, pq, f, max(opts.limit, 1), any_term=opts.any_term, raw=query)
    top = hits[0].raw if hits and hits[0].raw > 0 else 1.0
    scored = [(h.doc_id, round(max(0.0, min(1.0, h.raw / top)), 6)) for h in hits]
    scored = [s for s in scored if s[1] >= opts.min_score]
    results = build_hits(store, scored, pq.words(), full=opts.full)
    total = len(results)
    if len(hits) >= opts.limit:
        total = count_matches(store, compile_fts(pq, any_term=opts.any_term), f)
    meta = SearchMeta(
        total_results=total,
        collection=f.collections[0] if len(f.collections) == 1 else None,
        elapsed_ms=round((time.perf_counter() - t0) * 1000, 3),
    )
    return SearchResult(query=query, results=results, meta=meta)
