"""Results of the evidence capabilities: Context Capsules and their verification, the Knowledge
Delta (changes, diff, links, impact) and verified `ask`."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from gno import change_reads, doc_reads
from gno.models.common import EgressLineage, GnoModel


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


class ChangeEvent(GnoModel, change_reads.ChangeEvent):
    pass


class ChangePage(GnoModel, change_reads.ChangePage):
    pass


class ChangesResult(GnoModel, change_reads.Changes):
    schema_version: str = "1.0"
    changes: list[ChangeEvent]
    page: ChangePage


class DiffResult(GnoModel):
    schema_version: str = "1.0"
    status: str  # available | unavailable
    document: dict[str, Any]
    change: ChangeEvent | None = None
    content: dict[str, str]


class LinkItem(GnoModel, doc_reads.LinkItem):
    pass


class LinksResult(GnoModel, doc_reads.Links):
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
