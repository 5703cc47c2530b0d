"""Rung 1 of the retrieval ladder: exact (BM25) search with cited spans.

Conjunctive first: documents that contain every content word of the query (`match: all`), in one
section when the note has headings (a long reference page holds most words of any question
somewhere, each in another section: `gno.store.sections`). A
question typed in words ("how do I embed a file") rarely has all its words in one note, so when
fewer than the limit match all of them, the rest is filled with documents matching any content word
(only function words dropped, `match: partial`), ranked after every full match. Quoted phrases, `-negations`
and hyphenated identifiers keep their exact meaning in both passes (a negation excludes in both).
Words are stemmed (porter) and prefix-matched, so "stores" also finds "stored".

Scores are normalised per query to 0..1 (best hit = 1.0) and are not comparable across
queries; partial matches score below the weakest full match. Hits carry docid, uri, title,
collection, the best-matching line and its span.

Results are plain records (`gno.hit_records`, whose fields `gno.models.SearchHit` and
`SearchMeta` derive), and `gno.models.SearchResult` is built from a page's wire form: a cold
`gno search` prints them without importing pydantic or dataclasses.
"""

from __future__ import annotations

import time

from gno.hit_records import Hit, LineSpan, PageMeta
from gno.retrieve.grammar import FUNCTION_WORDS, ParsedQuery, compile_fts, content_query, parse_query
from gno.retrieve.snippets import SNIPPET_WINDOW, Snippet, pick_snippet
from gno.store.db import Store
from gno.store.fts import REBUILD_HINT, BM25Hit, DocFilter, FtsQueryError, bm25_search, count_matches
from gno.store.hits import hit_docs
from gno.store.segments import match_expressions
from gno.tuples import NamedTuple
from gno.wire import wire

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from typing import Any, TypedDict, Unpack

    from gno.models import SearchHit

    class Assembly(TypedDict, total=False):
        """How `collect_hits` assembles hits, for a caller that passes them on (its parameters)."""

        full: bool
        sources: dict[int, list[str]] | None
        partial: set[int] | None
        lines: dict[int, int] | None
        snippets: bool


#: hits per page on every surface, at most (the request models declare it)
MAX_LIMIT = 100


# NamedTuples, not dataclasses: `gno search` imports this module, and `dataclasses` (through
# `inspect`) costs more at start-up than the search itself.
class SearchOptions(NamedTuple):
    limit: int = 10
    min_score: float = 0.0
    full: bool = False
    any_term: bool = False


#: every surface's defaults: the request models (`gno.contract.retrieve`) declare them, and a cold
#: `gno search` reads them here without importing pydantic
DEFAULTS = SearchOptions()


class SearchPage(NamedTuple):
    """A search result as plain data; `wire()` is exactly `SearchResult.dump()`."""

    query: str
    mode: str
    results: list[Hit]
    meta: PageMeta

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = wire(self)
        return out


def run_bm25(
    store: Store, pq: ParsedQuery, f: DocFilter, limit: int, *, any_term: bool = False, raw: str | None = None
) -> list[BM25Hit]:
    expr = compile_fts(pq, any_term=any_term, raw=raw)
    try:
        return bm25_search(store, expr, f, limit)
    except FtsQueryError as exc:  # compile_fts quotes everything: the index itself is damaged
        from gno.errors import ErrorCode, RuntimeFailure

        raise RuntimeFailure(f"full-text query failed: {exc}; {REBUILD_HINT}", code=ErrorCode.RUNTIME) from exc


def build_hits(
    store: Store, scored: list[tuple[int, float]], words: list[str], **assembly: Unpack[Assembly]
) -> list[SearchHit]:
    """`collect_hits` as the pydantic models the hybrid rungs assemble."""
    from gno.models import SearchHit

    return [SearchHit.model_validate(wire(h)) for h in collect_hits(store, scored, words, **assembly)]


def collect_hits(
    store: Store,
    scored: list[tuple[int, float]],
    words: list[str],
    *,
    full: bool = False,
    sources: dict[int, list[str]] | None = None,
    partial: set[int] | None = None,
    lines: dict[int, int] | None = None,
    snippets: bool = True,
) -> list[Hit]:
    """Materialise (doc_id, score) pairs into hits with snippets, in the given order.

    A long note's snippet comes from its window holding the doc's line in `lines` (a vector hit's
    best chunk), else from the first that holds all `words`, else any. Without `snippets` (a caller
    that reads the documents itself) a hit's snippet is empty and its lines are the body's first."""
    focus = () if full else match_expressions(words)
    rows = hit_docs(store, [i for i, _ in scored], None if full else SNIPPET_WINDOW, focus, lines)
    out: list[Hit] = []
    for doc_id, score in scored:
        row = rows.get(doc_id)
        if row is None:
            continue
        text = row.markdown
        if snippets:
            snip = pick_snippet(text, row.body_start_line, words, truncated=row.truncated, first_line=row.first_line)
        else:
            snip = Snippet("", row.body_start_line, row.body_start_line, row.body_start_line)
        body = None
        if full:
            body = "\n".join(text.split("\n")[row.body_start_line - 1 :])
        out.append(
            Hit(
                docid=row.docid,
                uri=row.uri,
                title=row.title,
                collection=row.collection,
                rel_path=row.rel_path,
                score=round(score, 6),
                line=snip.line,
                snippet=snip.text,
                snippet_range=LineSpan(start_line=snip.start_line, end_line=snip.end_line),
                tags=row.tags,
                body=body,
                body_start_line=row.body_start_line if full else None,
                sources=(sources or {}).get(doc_id),
                match=None if partial is None else ("partial" if doc_id in partial else "all"),
                superseded_by=row.superseded_by,
            )
        )
    return out


def check_query(query: str, limit: int, min_score: float) -> None:
    """VALIDATION (INVALID_QUERY for an empty query) before any rung touches the index."""
    if query and query.strip() and 1 <= limit <= MAX_LIMIT and 0.0 <= min_score <= 1.0:
        return
    from gno.errors import ErrorCode, ValidationError  # on failure only: a cold search skips it

    if not query or not query.strip():
        raise ValidationError("empty query: pass the words to search for", code=ErrorCode.INVALID_QUERY)
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"`limit` must be between 1 and {MAX_LIMIT}")
    raise ValidationError("`minScore` must be between 0 and 1")


#: partial matches score at most this share of the weakest full match
PARTIAL_CEILING = 0.9


#: pages of full-match candidates checked section by section at most; past them, the rest of the
#: page is filled by the partial pass (where notes not checked compete on their BM25 score)
FOCUS_PAGES = 5


def _focused_hits(store: Store, cq: ParsedQuery, f: DocFilter, limit: int, query: str) -> list[BM25Hit]:
    """The full matches of a query of several words: the notes that hold every word in one section
    (`gno.store.sections`), in BM25 order. The candidates are ranked once and checked a page at a
    time, so a question reads a page or two of notes, never every note that contains its words."""
    from gno.store.sections import focused  # only for a query of several words

    expr = compile_fts(cq, raw=query)
    hits = run_bm25(store, cq, f, limit * FOCUS_PAGES, raw=query)
    kept: list[BM25Hit] = []
    for at in range(0, len(hits), limit):
        page = hits[at : at + limit]
        ok = focused(store, [h.doc_id for h in page], expr)
        kept += [h for h in page if h.doc_id in ok]
        if len(kept) >= limit:
            break
    return kept[:limit]


def search_page(store: Store, query: str, f: DocFilter, opts: SearchOptions) -> SearchPage:
    t0 = time.perf_counter()
    pq = parse_query(query)
    cq = content_query(pq)
    # any-term matching drops function words only: the words a request is phrased with ("show",
    # "done") are content in some note, and BM25's IDF weighs them
    aq = content_query(pq, FUNCTION_WORDS)
    limit = max(opts.limit, 1)
    if opts.any_term or len(cq.positives) < 2:
        hits = run_bm25(store, aq if opts.any_term else cq, f, limit, any_term=opts.any_term, raw=query)
    else:
        hits = _focused_hits(store, cq, f, limit, query)
    top = hits[0].raw if hits and hits[0].raw > 0 else 1.0
    scored = [(h.doc_id, max(0.0, min(1.0, h.raw / top))) for h in hits]
    total = len(hits)
    if len(hits) >= limit:
        total = count_matches(store, compile_fts(aq if opts.any_term else cq, any_term=opts.any_term), f)
    partial: set[int] = set()
    if len(hits) < limit and not opts.any_term and len(cq.positives) > 1:
        # a note holding every word only across its sections comes back here, ranked with the partial matches
        seen = {h.doc_id for h in hits}
        more = [h for h in run_bm25(store, aq, f, limit + len(hits), any_term=True, raw=query) if h.doc_id not in seen]
        more = more[: limit - len(hits)]
        if more:
            ceiling = PARTIAL_CEILING * min((s for _, s in scored), default=1.0 / PARTIAL_CEILING)
            ptop = more[0].raw if more[0].raw > 0 else 1.0
            scored += [(h.doc_id, max(0.0, ceiling * min(1.0, h.raw / ptop))) for h in more]
            partial = {h.doc_id for h in more}
            total += len(more)
    scored = [(d, r) for d, r in ((d, round(s, 6)) for d, s in scored) if r >= opts.min_score]
    results = collect_hits(store, scored, cq.words(), full=opts.full, partial=partial)
    meta = PageMeta(
        total_results=max(total, len(results)),
        collection=f.collections[0] if len(f.collections) == 1 else None,
        elapsed_ms=round((time.perf_counter() - t0) * 1000, 3),
        partial_results=len([h for h in results if h.match == "partial"]),
    )
    return SearchPage(query=query, mode="bm25", results=results, meta=meta)
