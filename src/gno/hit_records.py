"""A page of hits as plain records: each hit, its line span and the page's meta.

`gno.retrieve.search` builds them, a cold `gno search` prints them without importing typing or
pydantic, and the result models of `gno.models.search_results` derive from them, so each field
is declared once. They live here, beside `gno.doc_reads`, because every layer imports the models
and the layers below retrieval may not import `gno.retrieve`.
"""

from __future__ import annotations

from gno.tuples import Record

TYPE_CHECKING = False  # not typing's: a cold `gno search` does not import typing
if TYPE_CHECKING:
    from typing import Literal


class LineSpan(Record):
    start_line: int
    end_line: int


class Hit(Record):
    """One hit (the fields of `gno.models.SearchHit`, which derives from it)."""

    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str
    score: float
    line: int
    snippet: str
    snippet_range: LineSpan
    tags: list[str]
    body: str | None = None
    body_start_line: int | None = None
    sources: list[str] | None = None
    #: `search` only: "all" when the document contains every content word, "partial" when it
    #: filled the list matching some of them
    match: Literal["all", "partial"] | None = None
    #: a memory fact that a newer fact replaced (`remember --supersede`): the successor's uri. Such
    #: facts stay searchable (they are files like any other) but are marked on every surface;
    #: `recall` never returns them
    superseded_by: str | None = None
    #: the context hints that apply to the document (global, collection, prefixes broad to specific)
    context: list[str] | None = None


class PageMeta(Record):
    total_results: int
    mode: str = "bm25"
    collection: str | None = None
    elapsed_ms: float | None = None
    notes: list[str] | None = None
    #: `search` only: how many of the results match some but not all of the query's words
    partial_results: int | None = None
