"""Output models shared by every surface: CLI `--json`, REST bodies, MCP structured content.

One pydantic model per result, dumped the same way everywhere (`dump()`: camelCase keys,
`None` fields omitted). Python attributes are snake_case; the wire is camelCase.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class GnoModel(BaseModel):
    # defer_build: validators are built on first use, so a CLI call pays only for the models it touches
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class EgressSource(GnoModel):
    collection: str
    policy: str
    source: str


class EgressLineage(GnoModel):
    """Where derived output may travel: the strictest policy of its source collections."""

    effective_policy: str
    digest: str
    sources: list[EgressSource]


# -- collections, init, sync, status -------------------------------------------------------
class CollectionInfo(GnoModel):
    name: str
    path: str
    pattern: str
    include: list[str]
    exclude: list[str]
    memory_managed: bool
    egress_policy: str
    documents: int | None = None


class CollectionList(GnoModel):
    collections: list[CollectionInfo]


class InitResult(GnoModel):
    config_path: str
    db_path: str
    created: bool
    collection: CollectionInfo | None = None


class CollectionRemoved(GnoModel):
    name: str
    removed_documents: int


class SyncCollectionResult(GnoModel):
    name: str
    scanned: int
    added: int
    updated: int
    unchanged: int
    renamed: int
    inactivated: int
    reactivated: int
    errors: int
    warnings: int = 0
    error_paths: list[str] = Field(default_factory=list)


class SyncResult(GnoModel):
    collections: list[SyncCollectionResult]
    duration_ms: float
    status: str = "completed"
    #: collections no longer in the config whose documents left search in this run (their rows
    #: and vectors stay until `update --prune`)
    detached_collections: list[str] = Field(default_factory=list)
    pruned: bool = False


class IngestErrorInfo(GnoModel):
    collection: str
    rel_path: str
    code: str
    message: str
    occurred_at: str
    severity: str = "error"  # error | warning


class CollectionStatus(GnoModel):
    name: str
    path: str
    path_exists: bool
    memory_managed: bool
    active: int
    inactive: int
    chunks: int
    errors: int
    warnings: int = 0


class MemoryDiagnostic(GnoModel):
    uri: str
    codes: list[str]


class MemoryStatus(GnoModel):
    collections: list[str]
    facts: int
    current: int
    superseded: int
    invalid: int
    diagnostics: list[MemoryDiagnostic] = Field(default_factory=list)


class VectorStatus(GnoModel):
    model: str | None = None
    embedded_chunks: int = 0
    total_chunks: int = 0
    stale_chunks: int = 0
    pending_documents: int = 0  # active documents not yet chunked and embedded (`gno embed` does it)
    available: bool = False
    reason: str | None = None
    #: the static first pass of a transformer model (`models.firstPass`) and its chunks with vectors
    first_pass_model: str | None = None
    first_pass_chunks: int = 0
    #: whose vectors rank `query` now: `model`, or `first_pass_model` while it covers more chunks
    ranked_by: str | None = None


class EmbedResult(GnoModel):
    model: str
    fingerprint: str
    embedded: int
    pending: int
    total_chunks: int
    duration_ms: float
    chunks_per_second: float
    dry_run: bool
    #: the static first pass this run gave vectors to (`models.firstPass`), and how many
    first_pass_model: str | None = None
    first_pass_embedded: int = 0


class StatusResult(GnoModel):
    index_name: str
    config_path: str
    db_path: str
    db_exists: bool
    size_bytes: int
    collections: list[CollectionStatus]
    documents: int
    chunks: int
    ingest_errors: list[IngestErrorInfo]
    #: true when `next_steps` is empty: every folder present, every chunk embedded for the model
    healthy: bool
    memory: MemoryStatus | None = None
    vectors: VectorStatus | None = None
    #: what to run or fix, one line each (e.g. "8 of 328 chunks unembedded — run `gno embed`")
    next_steps: list[str] = Field(default_factory=list)


# -- search, get, ls -----------------------------------------------------------------------
class LineRange(GnoModel):
    start_line: int
    end_line: int


class SearchHit(GnoModel):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str
    score: float
    line: int
    snippet: str
    snippet_range: LineRange
    tags: list[str] = Field(default_factory=list)
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


class SearchMeta(GnoModel):
    total_results: int
    mode: str = "bm25"
    collection: str | None = None
    elapsed_ms: float | None = None
    notes: list[str] | None = None
    #: `search` only: how many of the results match some but not all of the query's words
    partial_results: int | None = None


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


class ReturnedLines(GnoModel):
    start: int
    end: int


class DocumentResult(GnoModel):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str
    abs_path: str
    source_hash: str
    active: bool
    tags: list[str]
    total_lines: int
    returned_lines: ReturnedLines
    content: str
    #: the original file, base64 (only when asked with `source`): the PDF behind a converted mirror
    source_base64: str | None = None
    #: set when the content is a markdown mirror converted from another format (`id@version+libraries`)
    converter: str | None = None

    def source_bytes(self) -> bytes:
        """The original file's bytes (a `get` with `source=True`)."""
        import base64

        return base64.b64decode(self.source_base64 or "")


class RefError(GnoModel):
    ref: str
    code: str
    message: str


class MultiGetResult(GnoModel):
    documents: list[DocumentResult]
    errors: list[RefError]
    truncated: bool = False


class LsEntry(GnoModel):
    docid: str
    uri: str
    title: str
    collection: str
    rel_path: str


class LsResult(GnoModel):
    scope: str | None
    entries: list[LsEntry]
    total: int  # documents in scope; `entries` is the page [offset, offset + limit)
    offset: int = 0
    limit: int | None = None


# -- writes: capture and edit --------------------------------------------------------------
class CaptureSource(GnoModel):
    kind: str = "direct"
    url: str | None = None
    title: str | None = None
    author: str | None = None
    date: str | None = None


class RequestInfo(GnoModel):
    """The request ID a write ran under: `replayed` when an earlier attempt had already written."""

    request_id: str
    status: str  # committed
    replayed: bool
    committed_at: str


class CaptureResult(GnoModel):
    outcome: str  # created | opened_existing
    uri: str
    docid: str
    collection: str
    rel_path: str
    abs_path: str
    title: str
    source_hash: str
    sync: dict[str, str]
    request: RequestInfo | None = None


class DocUpdateResult(GnoModel):
    uri: str
    docid: str
    source_hash: str
    previous_source_hash: str
    title: str
    sync: dict[str, str]
    request: RequestInfo | None = None


class HealthResult(GnoModel):
    ok: bool
    version: str


# -- bench ----------------------------------------------------------------------------------
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


class IndexResult(GnoModel):
    sync: SyncResult
    embed: EmbedResult | None = None
    embed_skipped: str | None = None


# -- evidence: capsules, verification -------------------------------------------------------
class CapsuleEvidence(GnoModel):
    evidence_id: str
    uri: str
    docid: str
    collection: str
    title: str
    heading: str | None = None
    start_line: int
    end_line: int
    text: str
    source_hash: str
    mirror_hash: str
    passage_hash: str
    modified_at: str
    observed_at: str
    retrieval_rank: int
    selection_rank: int
    retrieval_sources: list[str]
    facets: list[str]
    trust: str
    egress: str
    context_ids: list[str] | None = None  # the `guidance.configuredContexts` that apply


class Capsule(GnoModel):
    """A Context Capsule (`context-capsule-v1`); its canonical JSON is the budgeted artifact."""

    schema_version: str
    coordinate_space: str
    capsule_id: str
    egress_lineage: EgressLineage
    goal: str
    query: str
    scope: dict[str, Any]
    budget: dict[str, Any]
    retrieval: dict[str, Any]
    fingerprints: dict[str, str]
    capabilities: dict[str, bool]
    fallbacks: list[dict[str, str]]
    guidance: dict[str, Any]
    evidence: list[CapsuleEvidence]
    coverage: dict[str, Any]
    omissions: dict[str, Any]
    truncated: bool
    warnings: list[dict[str, str]]


class EvidenceCheck(GnoModel):
    evidence_id: str
    uri: str
    start_line: int
    end_line: int
    status: str  # unchanged | stale | missing
    reason: str | None = None


class ContextVerifyResult(GnoModel):
    capsule_id: str
    status: str  # unchanged | stale | missing
    integrity: str  # intact | modified
    counts: dict[str, int]
    items: list[EvidenceCheck]


# -- knowledge delta ------------------------------------------------------------------------
class ChangeEvent(GnoModel):
    id: str
    kind: str  # create | update | rename | inactivate | reactivate
    collection: str
    observed_at: str
    previous: dict[str, Any] | None = None
    current: dict[str, Any] | None = None
    structure_delta: dict[str, Any] | None = None


class ChangePage(GnoModel):
    next_cursor: str | None = None
    earliest_cursor: str | None = None
    latest_cursor: str | None = None
    cursor_expired: bool = False
    truncated: bool = False


class ChangesResult(GnoModel):
    schema_version: str = "1.0"
    changes: list[ChangeEvent]
    page: ChangePage


class DiffResult(GnoModel):
    schema_version: str = "1.0"
    status: str  # available | unavailable
    document: dict[str, Any]
    change: ChangeEvent | None = None
    content: dict[str, str]


class LinkItem(GnoModel):
    uri: str
    docid: str
    title: str
    edge_type: str
    confidence: str
    line: int | None = None
    target_ref: str


class LinksResult(GnoModel):
    uri: str
    direction: str  # out | in
    links: list[LinkItem]


class ImpactStep(GnoModel):
    source: str
    target: str
    edge_type: str
    confidence: str
    line: int | None = None


class ImpactNode(GnoModel):
    uri: str
    docid: str
    title: str
    depth: int
    evidence_path: list[ImpactStep]


class ImpactResult(GnoModel):
    schema_version: str = "1.0"
    root: str
    impacted: list[ImpactNode]
    meta: dict[str, Any]


# -- ask ------------------------------------------------------------------------------------
class ContextHint(GnoModel):
    """A configured context hint (`gno context add`): trusted configuration, never evidence."""

    context_id: str
    scope_type: str  # global | collection | prefix
    scope_key: str  # "/" | "name:" | "gno://name/path"
    text: str


class AskCitation(GnoModel):
    evidence_id: str
    docid: str
    uri: str
    start_line: int
    end_line: int


class AskClaim(GnoModel):
    claim_id: str
    text: str
    start: int
    end: int
    citations: list[str]
    status: str  # supported | contradicted | insufficient | uncertain
    rationale_code: str
    rejected_citations: list[str] = Field(default_factory=list)


class AskVerification(GnoModel):
    mode: str
    capsule_id: str
    coverage_threshold: float
    claims: list[AskClaim]
    coverage: dict[str, Any]
    question_coverage: dict[str, Any]


class AskResult(GnoModel):
    question: str
    answer: str | None
    answer_status: str  # verified | abstained | unverified
    abstention_reason: str | None = None
    message: str | None = None
    citations: list[AskCitation]
    answerer: str
    capsule_id: str | None
    verification: AskVerification | None = None
    #: the configured context hints of the evidence: trusted configuration, never a citation
    context: list[ContextHint] | None = None
