"""Results of administering the index: collections, init, sync, embedding, status."""

from __future__ import annotations

from pydantic import Field

from gno.models.common import GnoModel
from gno.models.memory_results import RecallResult, RememberResult
from gno.models.search_results import SearchResult


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


class IndexResult(GnoModel):
    sync: SyncResult
    embed: EmbedResult | None = None
    embed_skipped: str | None = None


class DemoResult(GnoModel):
    """`gno demo`: the scratch home, its sync, one search, one fact remembered and recalled."""

    home: str = Field(description="The demo's gno home: its config, index and memory folder.")
    home_kept: bool = Field(description="False: a scratch folder, removed once the demo answered.")
    sync: SyncResult
    search: SearchResult
    remember: RememberResult
    recall: RecallResult
