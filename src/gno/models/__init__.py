"""Output models shared by every surface: CLI `--json`, REST bodies, MCP structured content.

One pydantic model per result, dumped the same way everywhere (`dump()`: camelCase keys,
`None` fields omitted). Python attributes are snake_case; the wire is camelCase. The results live
by area (`common`, `index_results`, `search_results`, `document_results`, `evidence_results`,
`memory_results`);
every name is importable from `gno.models` itself.
"""

from __future__ import annotations

from gno.models.common import (
    EgressLineage as EgressLineage,
)
from gno.models.common import (
    EgressSource as EgressSource,
)
from gno.models.common import (
    GnoModel as GnoModel,
)
from gno.models.common import (
    HealthResult as HealthResult,
)
from gno.models.common import (
    RequestInfo as RequestInfo,
)
from gno.models.document_results import (
    CaptureResult as CaptureResult,
)
from gno.models.document_results import (
    CaptureSource as CaptureSource,
)
from gno.models.document_results import (
    DocumentResult as DocumentResult,
)
from gno.models.document_results import (
    DocUpdateResult as DocUpdateResult,
)
from gno.models.document_results import (
    LsEntry as LsEntry,
)
from gno.models.document_results import (
    LsResult as LsResult,
)
from gno.models.document_results import (
    MultiGetResult as MultiGetResult,
)
from gno.models.document_results import (
    RefError as RefError,
)
from gno.models.document_results import (
    ReturnedLines as ReturnedLines,
)
from gno.models.evidence_results import (
    AskCitation as AskCitation,
)
from gno.models.evidence_results import (
    AskClaim as AskClaim,
)
from gno.models.evidence_results import (
    AskResult as AskResult,
)
from gno.models.evidence_results import (
    AskVerification as AskVerification,
)
from gno.models.evidence_results import (
    Capsule as Capsule,
)
from gno.models.evidence_results import (
    CapsuleEvidence as CapsuleEvidence,
)
from gno.models.evidence_results import (
    ChangeEvent as ChangeEvent,
)
from gno.models.evidence_results import (
    ChangePage as ChangePage,
)
from gno.models.evidence_results import (
    ChangesResult as ChangesResult,
)
from gno.models.evidence_results import (
    ContextHint as ContextHint,
)
from gno.models.evidence_results import (
    ContextVerifyResult as ContextVerifyResult,
)
from gno.models.evidence_results import (
    DiffResult as DiffResult,
)
from gno.models.evidence_results import (
    EvidenceCheck as EvidenceCheck,
)
from gno.models.evidence_results import (
    ImpactNode as ImpactNode,
)
from gno.models.evidence_results import (
    ImpactResult as ImpactResult,
)
from gno.models.evidence_results import (
    ImpactStep as ImpactStep,
)
from gno.models.evidence_results import (
    LinkItem as LinkItem,
)
from gno.models.evidence_results import (
    LinksResult as LinksResult,
)
from gno.models.index_results import (
    CollectionInfo as CollectionInfo,
)
from gno.models.index_results import (
    CollectionList as CollectionList,
)
from gno.models.index_results import (
    CollectionRemoved as CollectionRemoved,
)
from gno.models.index_results import (
    CollectionStatus as CollectionStatus,
)
from gno.models.index_results import (
    DemoResult as DemoResult,
)
from gno.models.index_results import (
    EmbedResult as EmbedResult,
)
from gno.models.index_results import (
    IndexResult as IndexResult,
)
from gno.models.index_results import (
    IngestErrorInfo as IngestErrorInfo,
)
from gno.models.index_results import (
    InitResult as InitResult,
)
from gno.models.index_results import (
    MemoryDiagnostic as MemoryDiagnostic,
)
from gno.models.index_results import (
    MemoryStatus as MemoryStatus,
)
from gno.models.index_results import (
    StatusResult as StatusResult,
)
from gno.models.index_results import (
    SyncCollectionResult as SyncCollectionResult,
)
from gno.models.index_results import (
    SyncResult as SyncResult,
)
from gno.models.index_results import (
    VectorStatus as VectorStatus,
)
from gno.models.memory_results import (
    AuditFinding as AuditFinding,
)
from gno.models.memory_results import (
    AuditResult as AuditResult,
)
from gno.models.memory_results import (
    Candidate as Candidate,
)
from gno.models.memory_results import (
    HistoryEntry as HistoryEntry,
)
from gno.models.memory_results import (
    Matching as Matching,
)
from gno.models.memory_results import (
    MemoryFact as MemoryFact,
)
from gno.models.memory_results import (
    MemoryHistoryResult as MemoryHistoryResult,
)
from gno.models.memory_results import (
    MemoryRecord as MemoryRecord,
)
from gno.models.memory_results import (
    RecallBudget as RecallBudget,
)
from gno.models.memory_results import (
    RecallResult as RecallResult,
)
from gno.models.memory_results import (
    Receipt as Receipt,
)
from gno.models.memory_results import (
    RememberResult as RememberResult,
)
from gno.models.memory_results import (
    RetrievalInfo as RetrievalInfo,
)
from gno.models.memory_results import (
    SyncStatus as SyncStatus,
)
from gno.models.search_results import (
    BenchMode as BenchMode,
)
from gno.models.search_results import (
    BenchResult as BenchResult,
)
from gno.models.search_results import (
    DiagnoseChunk as DiagnoseChunk,
)
from gno.models.search_results import (
    DiagnoseMeta as DiagnoseMeta,
)
from gno.models.search_results import (
    DiagnoseResult as DiagnoseResult,
)
from gno.models.search_results import (
    DiagnoseStage as DiagnoseStage,
)
from gno.models.search_results import (
    DiagnoseTarget as DiagnoseTarget,
)
from gno.models.search_results import (
    ExplainHit as ExplainHit,
)
from gno.models.search_results import (
    ExplainStage as ExplainStage,
)
from gno.models.search_results import (
    LineRange as LineRange,
)
from gno.models.search_results import (
    QueryExplain as QueryExplain,
)
from gno.models.search_results import (
    SearchHit as SearchHit,
)
from gno.models.search_results import (
    SearchMeta as SearchMeta,
)
from gno.models.search_results import (
    SearchResult as SearchResult,
)
