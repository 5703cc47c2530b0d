"""Results of administering the index: collections, init, sync, embedding, status."""

from __future__ import annotations

from pydantic import Field

from gno import status_reads
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


class IngestErrorInfo(GnoModel, status_reads.IngestErrorInfo):
    pass


class CollectionStatus(GnoModel, status_reads.CollectionStatus):
    pass


class MemoryDiagnostic(GnoModel, status_reads.MemoryDiagnostic):
    pass


class MemoryStatus(GnoModel, status_reads.MemoryStatus):
    diagnostics: list[MemoryDiagnostic] = Field(default_factory=list)


class VectorStatus(GnoModel, status_reads.VectorStatus):
    pass


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


class StatusResult(GnoModel, status_reads.StatusResult):
    collections: list[CollectionStatus]
    ingest_errors: list[IngestErrorInfo]
    memory: MemoryStatus | None = None
    vectors: VectorStatus | None = None
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
