"""REST request bodies: strict pydantic models (no lax coercion: `false` is not an int).

Constraints that belong to the contract (scopes required, budget positive, text size) are left
to the engine so every surface reports the same error code; these models only fix the shapes.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Body(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", alias_generator=to_camel, populate_by_name=True)


class Identity(Body):
    caller: str | None = None
    session: str | None = None


class SearchBody(Body):
    query: str
    limit: int = Field(default=10, ge=1, le=50)
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)
    collection: str | None = None
    tags_all: list[str] | str | None = None
    tags_any: list[str] | str | None = None
    full: bool = False


class MultiGetBody(Body):
    refs: list[str]
    max_bytes: int = Field(default=10240, ge=1)


class RecallBody(Identity):
    query: str
    scopes: list[str] = Field(default_factory=list)
    collection: str | None = None
    max_facts: int = 8
    max_tokens: int = 512


class RememberBody(Identity):
    text: str
    scopes: list[str] = Field(default_factory=list)
    collection: str | None = None
    decision: str | None = None  # validated by the engine: MEMORY_DECISION_INVALID on every surface
    predecessor_uri: str | None = None
    predecessor_hash: str | None = None
    receipt: dict[str, Any] | None = None
    derived_from: list[str] = Field(default_factory=list)
    source: str | None = None


class CaptureSourceBody(Body):
    kind: Literal["direct", "web", "email", "meeting", "chat", "file", "api", "unknown"] = "direct"
    url: str | None = None
    title: str | None = None
    author: str | None = None
    date: str | None = None


class CaptureBody(Body):
    content: str
    collection: str | None = None
    title: str | None = None
    path: str | None = None
    folder_path: str | None = None
    tags: list[str] = Field(default_factory=list)
    source: CaptureSourceBody | None = None
    collision_policy: Literal["error", "open_existing", "create_with_suffix"] = "error"
    caller: str | None = None


class DocUpdateBody(Body):
    content: str
    expected_source_hash: str


class SyncBody(Body):
    collection: str | None = None


def split_tags(v: list[str] | str | None) -> list[str]:
    if v is None:
        return []
    items = v.split(",") if isinstance(v, str) else v
    return [t.strip() for t in items if t.strip()]


class QueryBody(SearchBody):
    fast: bool = False
    thorough: bool = False
    graph: bool = True
    candidate_limit: int | None = Field(default=None, ge=1, le=200)
    explain: bool = False


class DiagnoseBody(Body):
    query: str
    target: str
    collection: str | None = None
    limit: int = Field(default=10, ge=1, le=50)
    fast: bool = False
    thorough: bool = False
    graph: bool = True
    candidate_limit: int | None = Field(default=None, ge=1, le=200)


class ContextBody(Body):
    goal: str
    budget: int = Field(default=12000, ge=64, le=1_000_000)
    budget_bytes: int | None = Field(default=None, ge=256)
    query: str | None = None
    collection: str | None = None
    uri_prefix: str | None = None
    tags_any: list[str] = Field(default_factory=list)
    tags_all: list[str] = Field(default_factory=list)
    fast: bool = False
    thorough: bool = False
    graph: bool = True


class ContextVerifyBody(Body):
    capsule: dict[str, Any]


class AskBody(Body):
    question: str
    verify: bool = True
    budget: int = Field(default=12000, ge=64, le=1_000_000)
    collection: str | None = None
