"""BM25 over the document-level FTS5 table, with every filter applied inside the query.

Filters (collection, tags, memory scopes, "current facts only") are SQL conditions evaluated
together with MATCH, never a post-filter that could come up short: a rare scope behind a busy one
still gets its full top-k. Column weights filepath/title/body = 1.5/4.0/1.0.

A query the join must answer (tags, scopes, facts, document ids) joins ``documents_fts CROSS JOIN
documents``: SQLite never reorders a CROSS JOIN, so the full-text index always drives and each
match costs one primary-key lookup. Left to itself the planner sometimes starts from
``documents`` (a collection or tag condition looks selective) and probes the FTS index once per
document: measured 3-83 s instead of 0.1 ms for a common word on a 38k-document index. A query
with no filter or only collections first ranks a window of the full-text index and looks up only
that window (`_window_top`); when the window cannot prove its answer, the join runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from gno.store.db import Store
from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from typing import Any

BM25_WEIGHTS = (1.5, 4.0, 1.0)


# Plain records are NamedTuples: `gno search` imports this module, and `dataclasses` (through
# `inspect`) would cost more at start-up than the search itself.
class DocFilter(NamedTuple):
    collections: Sequence[str] = ()
    tags_any: Sequence[str] = ()
    tags_all: Sequence[str] = ()
    memory_scopes: Sequence[str] = ()  # any-intersection; empty = no scope filter
    current_facts_only: bool = False  # valid memory records with no active successor
    doc_ids: Sequence[int] | None = None
    as_of: str | None = None  # valid memory records current at this UTC instant (see gno.memory.timeline)


class BM25Hit(NamedTuple):
    doc_id: int
    raw: float  # positive: larger is better


def filter_sql(f: DocFilter, alias: str = "d") -> tuple[str, list[Any]]:
    """SQL condition (starting with ' AND') and params for a document filter."""
    sql: list[str] = []
    params: list[Any] = []
    if f.collections:
        sql.append(f"{alias}.collection IN ({','.join('?' * len(f.collections))})")
        params += list(f.collections)
    if f.tags_any:
        sql.append(f"{alias}.id IN (SELECT doc_id FROM doc_tags WHERE tag IN ({','.join('?' * len(f.tags_any))}))")
        params += [t.lower() for t in f.tags_any]
    if f.tags_all:
        tags = sorted({t.lower() for t in f.tags_all})
        sql.append(
            f"{alias}.id IN (SELECT doc_id FROM doc_tags WHERE tag IN ({','.join('?' * len(tags))}) "
            "GROUP BY doc_id HAVING COUNT(DISTINCT lower(tag)) = ?)"
        )
        params += [*tags, len(tags)]
    if f.memory_scopes:
        sql.append(
            f"{alias}.id IN (SELECT doc_id FROM doc_memory_scopes WHERE scope IN "
            f"({','.join('?' * len(f.memory_scopes))}))"
        )
        params += list(f.memory_scopes)
    if f.current_facts_only:
        # a primary-key probe per candidate, not `id IN (SELECT … WHERE valid=1)`, which scans every
        # memory record on every query (40 ms at 10k facts under load, against 0.2 ms)
        sql.append(f"EXISTS (SELECT 1 FROM memory_records mr WHERE mr.doc_id = {alias}.id AND mr.valid = 1)")
        sql.append(
            "NOT EXISTS (SELECT 1 FROM doc_edges e JOIN documents s ON s.id = e.doc_id AND s.active = 1 "
            f"JOIN memory_records sr ON sr.doc_id = s.id AND sr.valid = 1 "
            f"WHERE e.edge_type = 'supersedes' AND e.target_uri = {alias}.uri)"
        )
    if f.as_of is not None:
        start = "COALESCE(json_extract({0}.meta_json, '$.startAt'), json_extract({0}.meta_json, '$.createdAt'))"
        sql.append(
            f"EXISTS (SELECT 1 FROM memory_records mr WHERE mr.doc_id = {alias}.id AND mr.valid = 1 "
            f"AND {start.format('mr')} <= ?)"
        )
        sql.append(
            "NOT EXISTS (SELECT 1 FROM doc_edges e JOIN documents s ON s.id = e.doc_id AND s.active = 1 "
            f"JOIN memory_records sr ON sr.doc_id = s.id AND sr.valid = 1 "
            f"WHERE e.edge_type = 'supersedes' AND e.target_uri = {alias}.uri AND {start.format('sr')} <= ?)"
        )
        params += [f.as_of, f.as_of]
    if f.doc_ids is not None:
        ids = list(f.doc_ids) or [-1]
        sql.append(f"{alias}.id IN ({','.join('?' * len(ids))})")
        params += ids
    return ("".join(" AND " + s for s in sql), params)


def bm25_search(store: Store, expr: str, f: DocFilter, limit: int) -> list[BM25Hit]:
    """Top `limit` active documents for an FTS5 expression (already validated/quoted)."""
    where, params = filter_sql(f)
    if limit > 0 and _window_may_answer(f):
        top = _window_top(store, expr, limit, tuple(f.collections), where, params)
        if top is not None:
            return top
    sql = (
        "SELECT d.id, -bm25(documents_fts, ?, ?, ?) AS raw FROM documents_fts "
        "CROSS JOIN documents d ON d.id = documents_fts.rowid "
        f"WHERE documents_fts MATCH ? AND d.active = 1{where} ORDER BY raw DESC, d.collection, d.rel_path LIMIT ?"
    )
    rows = _rows(store, sql, (*BM25_WEIGHTS, expr, *params, limit))
    return [BM25Hit(int(r[0]), float(r[1])) for r in rows]


def _window_may_answer(f: DocFilter) -> bool:
    """No filter, or only collections: the conditions a window's rows can be tested against."""
    return not (f.tags_any or f.tags_all or f.memory_scopes or f.current_facts_only or f.doc_ids is not None or f.as_of)


def _window_sql(where: str, *, bounded: bool) -> str:
    """Rows of the full-text index by score alone, each with whether the filter `where` keeps its document.

    `bounded`: every row scoring at least a bound (tested before the document is looked up);
    otherwise the top rows up to a limit. The filter's parameters come first, then the weights,
    the expression and the limit or bound.
    """
    rank = "" if bounded else " ORDER BY raw DESC LIMIT ?"
    return (
        f"SELECT t.raw, d.active = 1{where} AS kept, t.id FROM (SELECT rowid AS id, -bm25(documents_fts, ?, ?, ?) "
        f"AS raw FROM documents_fts WHERE documents_fts MATCH ?{rank}) t LEFT JOIN documents d ON d.id = t.id"
        f"{' WHERE t.raw >= ?' if bounded else ''} ORDER BY t.raw DESC, d.collection, d.rel_path"
    )


def _window_top(
    store: Store, expr: str, limit: int, collections: tuple[str, ...], where: str, params: list[Any]
) -> list[BM25Hit] | None:
    """The join's top `limit`, ranked on the full-text index alone; None when only the join can tell.

    A common word matches most of the index, and the join's primary-key lookup per match costs about
    half as much again as the ranking (a 38k-page index: 21 ms against 15 ms for "https"). When the
    join only drops inactive rows or other collections and breaks ties by collection and path, rank
    a window by score, then look up just that window, testing each row with the join's own
    condition (`where`, `params`: `filter_sql` of the collections). It is the answer when it holds
    every match or when its `limit`-th kept hit scores above its last row (nothing outside can tie
    or beat it). When the window ends inside a tie (many pages with the same text), every row
    scoring at least the `limit`-th hit is fetched: that pass costs no more than the join, so a tie
    pays for the window once more (1 ms on 167 identical pages). A collection holding too few of
    the matches leaves the window short: the join runs, and this thread skips the window for that
    collection until the index changes.
    """
    misses: dict[tuple[str, ...], tuple[int, int]] | None = None
    stamp = (0, 0)
    if collections:
        conn = store.conn
        misses = store.scratch.setdefault("bm25_window_misses", {})
        stamp = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        if misses.get(collections) == stamp:
            return None
    window = (4 if collections else 2) * limit + 8
    rows = _rows(store, _window_sql(where, bounded=False), (*params, *BM25_WEIGHTS, expr, window))
    hits = [BM25Hit(int(r[2]), float(r[0])) for r in rows if r[1] == 1]
    if len(rows) < window or (len(hits) >= limit and hits[limit - 1].raw > float(rows[-1][0])):
        return hits[:limit]
    if len(hits) < limit:  # inactive rows or other collections fill the window
        if misses is not None:
            misses[collections] = stamp
        return None
    bound = hits[limit - 1].raw
    tied = _rows(store, _window_sql(where, bounded=True), (*params, *BM25_WEIGHTS, expr, bound))
    return [BM25Hit(int(r[2]), float(r[0])) for r in tied if r[1] == 1][:limit]


def _rows(store: Store, sql: str, params: tuple[Any, ...]) -> list[Any]:
    """Every row of a full-text query; FTS5's own errors become `FtsQueryError`."""
    try:
        return store.conn.execute(sql, params).fetchall()
    except sqlite3.DatabaseError as exc:  # a bad expression, or a damaged full-text index
        raise FtsQueryError(str(exc)) from exc


def count_matches(store: Store, expr: str, f: DocFilter, cap: int = 1000) -> int:
    """Number of matching documents, counted up to `cap` (a cheap bound for "N of M" displays)."""
    where, params = filter_sql(f)
    sql = (
        "SELECT COUNT(*) FROM (SELECT 1 FROM documents_fts CROSS JOIN documents d ON d.id = documents_fts.rowid "
        f"WHERE documents_fts MATCH ? AND d.active = 1{where} LIMIT ?)"
    )
    return int(_rows(store, sql, (expr, *params, cap))[0][0])


def term_documents(store: Store, expr: str, cap: int) -> int:
    """Rows of the full-text index matching `expr`, counted up to `cap`: a word's document frequency as
    BM25's own IDF sees it (no filter, no join)."""
    sql = "SELECT COUNT(*) FROM (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT ?)"
    return int(_rows(store, sql, (expr, cap))[0][0])


def holds(store: Store, expr: str, doc_id: int) -> bool:
    """Whether document `doc_id` matches `expr` (FTS5 seeks the row: no cost for a common word)."""
    sql = "SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?"
    return bool(_rows(store, sql, (expr, doc_id)))


#: the fix for a damaged index: it is derived from the files, so it can always be rebuilt
REBUILD_HINT = "the index is derived from your files: delete it (`gno status` names it) and run `gno update`"


class FtsQueryError(Exception):
    """FTS5 rejected an expression (not for compiled queries), or the full-text index is damaged."""
