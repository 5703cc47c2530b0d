"""Output models of the memory contract (remember / recall / audit), shared by every surface."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gno.models.common import EgressLineage, GnoModel, RequestInfo


class MemoryRecord(GnoModel):
    uri: str
    docid: str
    record_id: str
    text: str
    scopes: list[str]
    caller: str
    session: str
    created_at: str
    content_hash: str
    supersedes: list[str] = Field(default_factory=list)
    source: str | None = None
    valid_from: str | None = None  # the event time, when the caller gave one (`--valid-from`)


class MemoryFact(MemoryRecord):
    span_hash: str
    score: float
    egress_lineage: EgressLineage


class Receipt(GnoModel):
    caller: str
    session: str
    issued_at: str
    memory_ids: list[str]
    span_hashes: list[str]
    digest: str


class RecallBudget(GnoModel):
    max_facts: int
    max_tokens: int
    used_tokens: int
    omitted: int


class RetrievalInfo(GnoModel):
    mode: Literal["lexical", "hybrid"]
    semantic_unavailable: str | None = None


class RecallResult(GnoModel):
    facts: list[MemoryFact]
    receipt: Receipt
    budget: RecallBudget
    retrieval: RetrievalInfo
    egress_lineage: EgressLineage | None = None
    hint: str | None = None


class Candidate(GnoModel):
    record: MemoryRecord
    similarity: float
    match: Literal["exact", "likely", "weak"]


class Matching(GnoModel):
    mode: Literal["semantic", "lexical"]
    threshold: float
    pool_size: int
    semantic_unavailable: str | None = None


class SyncStatus(GnoModel):
    status: Literal["completed"]


class RememberResult(GnoModel):
    outcome: Literal["existing", "candidates", "added", "superseded"]
    record: MemoryRecord | None = None
    candidates: list[Candidate] | None = None
    matching: Matching
    abs_path: str | None = None
    sync: SyncStatus | None = None
    request: RequestInfo | None = None


class HistoryEntry(GnoModel):
    record: MemoryRecord
    current_from: str  # validFrom, else createdAt
    superseded_by: str | None = None
    superseded_at: str | None = None  # when the successor became current


class MemoryHistoryResult(GnoModel):
    uri: str  # the fact asked about
    current: str  # the last fact of its chain (the current one, unless the chain ends superseded)
    chain: list[HistoryEntry]  # oldest first


class AuditFinding(GnoModel):
    id: str
    rule: str
    uri: str
    codes: list[str]
    message: str


class AuditResult(GnoModel):
    status: Literal["clean", "findings"]
    findings: list[AuditFinding]
    checked: int
