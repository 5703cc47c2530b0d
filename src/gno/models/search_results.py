"""Results of the retrieval ladder: hits of search, vsearch and query, explain, diagnose, bench."""

from __future__ import annotations

from typing import Literal  # noqa: F401 - pydantic resolves `hit_records.Hit.match` here

from pydantic import Field

from gno import hit_records
from gno.models.common import GnoModel


class LineRange(GnoModel, hit_records.LineSpan):
    pass


class SearchHit(GnoModel, hit_records.Hit):
    snippet_range: LineRange
    tags: list[str] = Field(default_factory=list)


class SearchMeta(GnoModel, hit_records.PageMeta):
    pass


class ExplainHit(GnoModel):
    docid: str
    uri: str
    rank: int
    score: float


class ExplainStage(GnoModel):
    name: str
    status: str
    ms: float
    count: int
    reason: str | None = None
    top: list[ExplainHit] = Field(default_factory=list)


class QueryExplain(GnoModel):
    depth: str
    candidate_limit: int
    stages: list[ExplainStage]
    #: the model whose vectors ranked the vector leg, and whether it was the static first pass
    vectors: str | None = None
    first_pass: bool = False


class SearchResult(GnoModel):
    query: str
    mode: str = "bm25"
    results: list[SearchHit]
    meta: SearchMeta
    explain: QueryExplain | None = None


class DiagnoseTarget(GnoModel):
    status: str  # not_found | inactive | no_indexed_content | filtered_out | diagnosed
    ref: str
    docid: str | None = None
    uri: str | None = None
    title: str | None = None
    mirror_hash: str | None = None
    chunk_count: int | None = None
    embedded: bool | None = None  # vectors for the configured model (None: no embedder can load)
    filter_reasons: list[str] = Field(default_factory=list)


class DiagnoseStage(GnoModel):
    name: str
    status: str  # active | skipped
    source_count: int
    present: bool
    rank: int | None = None
    score: float | None = None
    survived: bool
    drop_reason: str | None = None  # not_in_candidate_set | below_cutoff | skipped | None
    reason: str | None = None


class DiagnoseChunk(GnoModel):
    seq: int
    start_line: int
    end_line: int


class DiagnoseMeta(GnoModel):
    mode: str  # bm25_only | hybrid
    vectors_used: bool
    reranked: bool
    total_results: int
    limit: int
    candidate_limit: int


class DiagnoseResult(GnoModel):
    schema_version: str = "1.0"
    query: str
    target: DiagnoseTarget
    stages: list[DiagnoseStage]
    chunk: DiagnoseChunk | None = None
    meta: DiagnoseMeta
    verdict: str


class BenchMode(GnoModel):
    mode: str
    queries: int
    precision: float
    recall: float
    mrr: float
    ndcg: float
    p50_ms: float
    p95_ms: float


class BenchResult(GnoModel):
    fixture: str
    top_k: int
    modes: list[BenchMode]
