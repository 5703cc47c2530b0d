"""Output models of the memory contract (remember / recall / audit), shared by every surface."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gno import memory_records as records
from gno.models.common import EgressLineage, GnoModel, RequestInfo


class MemoryRecord(GnoModel, records.Fact):
    supersedes: list[str] = Field(default_factory=list)


class MemoryFact(MemoryRecord, records.RecalledFact):
    egress_lineage: EgressLineage


class Receipt(GnoModel, records.Issued):
    pass


class RecallBudget(GnoModel, records.Budget):
    pass


class RetrievalInfo(GnoModel, records.Retrieval):
    pass


class RecallResult(GnoModel, records.Recalled):
    facts: list[MemoryFact]
    receipt: Receipt
    budget: RecallBudget
    retrieval: RetrievalInfo
    egress_lineage: EgressLineage | None = None


class Candidate(GnoModel, records.Similar):
    record: MemoryRecord


class Matching(GnoModel, records.Matching):
    pass


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
