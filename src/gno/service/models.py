"""Parameters and results of the four service operations: one pydantic model per shape.

HTTP bodies, MCP tool arguments and results, and the CLI's `--json` are these models dumped the
same way (`model_dump(mode="json")`). Parameter models are strict (no `"0.5"` → 0.5, no `true` →
1.0) and forbid unknown fields; they check *types* only. Every value rule (lengths, ranges, the
seed's error texts and their order) lives in `validation.py`, because pydantic cannot produce the
seed's exact texts in the seed's order.

`RememberResult` has exactly the seed's response fields, in the seed's order.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict

API_VERSION = "1.0"
Status = Literal["unverified", "stale", "conflict"]


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def dump(self) -> dict[str, object]:
        return self.model_dump(mode="json")

    @classmethod
    def take(cls, source: object, **given: Any) -> Self:
        """This result with each field read from `source`'s attribute of the same name (a stored row, a
        new record), but for those `given`; a field `source` lacks keeps its default."""
        taken = {n: getattr(source, n) for n in cls.model_fields if n not in given and hasattr(source, n)}
        return cls(**taken, **given)


# -- remember ------------------------------------------------------------------------------------


class RememberParams(_Params):
    content: str
    workspace: str = "default"
    scope: str = "shared"
    source: str = "owner"
    source_id: str | None = None
    source_hash: str | None = None
    source_revision: str | None = None
    fact_key: str | None = None
    confidence: float = 0.5
    derived_from: list[str] | None = None


class RememberResult(_Out):
    id: str
    api_version: str = API_VERSION
    workspace: str
    tenant_id: str
    project_id: str
    scope: str
    status: Status = "unverified"
    source_id: str | None
    source_hash: str | None
    derived_from: list[str]
    created_at: str


# -- search --------------------------------------------------------------------------------------


class SearchParams(_Params):
    query: str
    workspace: str = "default"
    scope: str | None = None
    limit: int = 10


class VersionRef(_Out):
    """An older version of the same fact (same `fact_key`), linked from the newest one."""

    id: str
    version: int
    status: Status
    content: str
    source_id: str | None
    source_hash: str | None
    created_at: str


class GraphRelation(_Out):
    """An edge found by the archivist, seen from the hit: `same_fact`, `derived_from`,
    `summarized_by` (the other record is derived from this one) or `similar` (cosine ≥ 0.85)."""

    id: str
    relation: Literal["same_fact", "derived_from", "summarized_by", "similar"]
    score: float


class SearchHit(_Out):
    id: str
    content: str
    workspace: str
    scope: str
    fact_key: str | None
    version: int
    status: Status
    source: str
    source_id: str | None
    source_hash: str | None
    source_revision: str | None
    confidence: float
    derived_from: list[str]
    created_at: str
    score: float
    versions: list[VersionRef]
    graph_relations: list[GraphRelation]


class SearchResult(_Out):
    api_version: str = API_VERSION
    workspace: str
    query: str
    mode: Literal["hybrid", "lexical"]
    count: int
    hits: list[SearchHit]


# -- forget --------------------------------------------------------------------------------------


class ForgetParams(_Params):
    memory_id: str | None = None
    source_id: str | None = None
    workspace: str | None = None  # None: every workspace of the key's project


class ForgetResult(_Out):
    api_version: str = API_VERSION
    forgotten: list[str]
    count: int
    forgotten_at: str


# -- validate_memory -----------------------------------------------------------------------------


class ValidateParams(_Params):
    source_id: str
    current_source_hash: str
    workspace: str | None = None  # None: every workspace of the key's project


class RecordRef(_Out):
    id: str
    workspace: str
    status: Status
    fact_key: str | None
    source_hash: str | None
    created_at: str


class ValidateResult(_Out):
    api_version: str = API_VERSION
    source_id: str
    current_source_hash: str
    checked: int
    fresh: int
    stale: list[RecordRef]
    conflicts: list[RecordRef]


# -- administration (CLI) ------------------------------------------------------------------------


class KeyInfo(_Out):
    key_id: str
    prefix: str
    tenant: str
    tenant_id: str
    project: str
    project_id: str
    created_at: str
    revoked_at: str | None = None


class NewKey(KeyInfo):
    """`gno service key create`: the only time the secret `key` is ever shown."""

    key: str


class KeyList(_Out):
    keys: list[KeyInfo]


class TenantInfo(_Out):
    tenant: str
    tenant_id: str
    state: Literal["active", "read_only", "suspended"]


class WorkspaceInfo(_Out):
    workspace: str
    workspace_id: str
    project: str
    project_id: str
    deleted_at: str | None
    forgotten: int
