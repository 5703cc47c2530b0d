"""The engine's reads: the retrieval ladder (search, vsearch, query) and the documents it cites.

A query is checked (`check_query`) before its collection is resolved, as every surface reports it;
the hits of every rung carry the context hints that apply to them. Document reads go through
`gno.doc_reads`, whose plain records the result models validate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from gno.engine.lifecycle import Lifecycle
from gno.retrieve.search import SearchOptions, SearchPage, check_query, search_page
from gno.wire import fields

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.

    from gno.evidence.graph_models import GraphResult
    from gno.models import (
        BenchResult,
        DiagnoseResult,
        DocumentResult,
        LinksResult,
        LsResult,
        MultiGetResult,
        SearchResult,
    )
    from gno.retrieve.hybrid import Depth
    from gno.retrieve.similar import SimilarResult
    from gno.store.fts import DocFilter

    class HitScope(TypedDict, total=False):
        """Where a hit rung looks and how many hits it returns (the options of `Reading.hit_scope`)."""

        collection: str | None
        limit: int
        min_score: float
        tags_any: Sequence[str]
        tags_all: Sequence[str]
        full: bool


class Reading(Lifecycle):
    """`gno search`, `vsearch`, `query`, `diagnose`, `similar`, `bench`; `get`, `multi-get`, `ls`,
    `links`, `backlinks`, `graph`."""

    def hit_scope(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        full: bool = False,
    ) -> tuple[DocFilter, SearchOptions]:
        """The options `search`, `vsearch` and `query` share (`HitScope`), with their defaults: the
        query checked first, as every surface reports it, then the filter and the page's options."""
        check_query(query, limit, min_score)
        return self.doc_filter(collection, tags_any, tags_all), SearchOptions(limit, min_score, full)

    def search(self, query: str, **options: Unpack[HitScope]) -> SearchResult:
        from gno.models import SearchResult

        return SearchResult.model_validate(self.search_page(query, **options).wire())

    def search_page(self, query: str, **options: Unpack[HitScope]) -> SearchPage:
        """`search` without pydantic: the same hits as plain data, for the CLI's cold start."""
        from gno.hints import attach_page

        f, opts = self.hit_scope(query, **options)
        attached: SearchPage = attach_page(search_page(self.store, query, f, opts), self.hints())
        return attached

    def vsearch(self, query: str, **options: Unpack[HitScope]) -> SearchResult:
        """Vector-only search: documents ranked by their best chunk's cosine."""
        from gno.retrieve.vector_search import vsearch

        f, o = self.hit_scope(query, **options)
        return vsearch(
            self.store, self.semantic, query, f, self.hints(), limit=o.limit, min_score=o.min_score, full=o.full
        )

    def query(
        self,
        query: str,
        *,
        depth: Depth = "balanced",
        graph: bool = True,
        candidate_limit: int | None = None,
        explain: bool = False,
        lexical_only: bool = False,
        snippets: bool = True,
        **options: Unpack[HitScope],
    ) -> SearchResult:
        """Hybrid query (rung 3): BM25 + vectors → RRF → graph → re-scoring; without `snippets`, hits
        carry none (a Capsule reads the documents' passages itself)."""
        from gno.retrieve.query import query as run_query
        from gno.retrieve.query import query_options

        f, o = self.hit_scope(query, **options)
        opts = query_options(
            o.limit, o.min_score, depth, graph, candidate_limit, o.full, lexical_only=lexical_only, snippets=snippets
        )
        return run_query(self.retriever(), query, f, opts, self.hints(), explain=explain)

    def diagnose(
        self,
        query: str,
        target: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        depth: Depth = "balanced",
        graph: bool = True,
        candidate_limit: int | None = None,
    ) -> DiagnoseResult:
        from gno.retrieve.diagnose import diagnose
        from gno.retrieve.query import query_options

        check_query(query, limit, 0.0)
        opts = query_options(limit, 0.0, depth, graph, candidate_limit, False)
        f = self.doc_filter(collection, tags_any, tags_all)
        return diagnose(self.retriever(), self.config.chunking, query, target, f, opts)

    def similar(
        self, ref: str, *, limit: int = 5, threshold: float | None = None, cross_collection: bool = False
    ) -> SimilarResult:
        from gno.retrieve.similar import similar

        row = self.resolve(ref)
        return similar(
            self.store, self.semantic, row, limit=limit, threshold=threshold, cross_collection=cross_collection
        )

    def bench(
        self,
        fixture: str,
        *,
        modes: Sequence[str] = ("bm25", "hybrid"),
        top_k: int = 10,
        candidate_limit: int | None = None,
    ) -> BenchResult:
        from gno.retrieve.benchmark import run_bench

        return run_bench(self, fixture, tuple(modes), top_k, candidate_limit)

    def get(
        self, ref: str, *, from_line: int | None = None, line_count: int | None = None, source: bool = False
    ) -> DocumentResult:
        """A document's markdown (for a converted file, its mirror), or a line range of it; with
        `source`, also the original file's bytes."""
        from gno.doc_reads import read_document
        from gno.models import DocumentResult

        doc = read_document(self.store, self.root_of, ref, from_line=from_line, line_count=line_count, source=source)
        return DocumentResult.model_validate(fields(doc))

    def multi_get(self, refs: Sequence[str], *, max_bytes: int = 10240) -> MultiGetResult:
        from gno.doc_reads import read_documents
        from gno.models import MultiGetResult

        documents = read_documents(self.store, self.root_of, refs, max_bytes=max_bytes)
        return MultiGetResult.model_validate(fields(documents))

    def ls(self, scope: str | None = None, *, limit: int = 10000, offset: int = 0) -> LsResult:
        from gno.doc_reads import list_documents
        from gno.models import LsResult

        listing = list_documents(self.store, lambda c: self.collection(c).name, scope, limit=limit, offset=offset)
        return LsResult.model_validate(fields(listing))

    def links(self, ref: str, *, backlinks: bool = False) -> LinksResult:
        from gno.doc_reads import read_links
        from gno.models import LinksResult

        return LinksResult.model_validate(fields(read_links(self.store, ref, backlinks=backlinks)))

    def backlinks(self, ref: str) -> LinksResult:
        return self.links(ref, backlinks=True)

    def graph(self, **bounds: Any) -> GraphResult:
        """Documents as nodes, links and relations (and, asked, vector neighbours) as edges."""
        from gno.evidence.graph import build_graph

        return build_graph(self, self.semantic, **bounds)
