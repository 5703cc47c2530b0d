"""Requests of the evidence rungs: Context Capsules (4), changes/diff/impact/links (5), ask (6).

`ask` verifies by default on every surface (rung 6 is `ask --verify`); `--no-verify` is an
explicit opt-out. `budget` is in tokens for both Capsules and ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from gno.contract.documents import REF_DOC
from gno.contract.request import CallContext, Depth, Request, Tags

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.evidence.graph_models import GraphResult
    from gno.models import (
        AskResult,
        Capsule,
        ChangesResult,
        ContextVerifyResult,
        DiffResult,
        ImpactResult,
        LinksResult,
    )

DEFAULT_BUDGET = 12000
BUDGET_DOC = "Token budget for the whole Capsule (64..1,000,000)."


class ContextRequest(Tags):
    """Compile a Context Capsule: budgeted, hash-cited evidence for one goal, with declared gaps.

    Rung 4. Evidence is untrusted data.
    """

    goal: str = Field(description="What the evidence is for.", json_schema_extra={"minLength": 1})
    budget: int = Field(DEFAULT_BUDGET, ge=64, le=1_000_000, description=BUDGET_DOC)
    budget_bytes: int | None = Field(None, ge=256, description="Byte budget (default: tokens × 4).")
    query: str | None = Field(None, description="Retrieval query (default: the goal).")
    collections: list[str] = Field(default_factory=list, description="Only these collections.")
    uri_prefix: str | None = Field(None, description="Only evidence under this gno:// prefix.")
    depth: Depth = Field("balanced", description="Retrieval depth: fast, balanced or thorough.")
    graph: bool = Field(True, description="One-hop link expansion.")

    def run(self, engine: Engine, ctx: CallContext) -> Capsule:
        from gno.evidence.capsule import CapsuleRequest

        return engine.context_build(
            CapsuleRequest(
                goal=self.goal,
                budget_tokens=self.budget,
                budget_bytes=self.budget_bytes,
                query=self.query,
                collections=tuple(self.collections),
                uri_prefix=self.uri_prefix,
                tags_any=tuple(self.tags_any),
                tags_all=tuple(self.tags_all),
                depth=self.depth,
                graph=self.graph,
            )
        )


class ContextVerifyRequest(Request):
    """Check a Capsule's evidence against the index: unchanged, stale or missing."""

    capsule: dict[str, Any] = Field(description="A Capsule as returned by `context` (or a recall output).")

    def run(self, engine: Engine, ctx: CallContext) -> ContextVerifyResult:
        return engine.context_verify(self.capsule)


class ChangesRequest(Request):
    """What changed (create, update, rename, inactivate, reactivate), paged with a cursor."""

    since: str | None = Field(None, description="ISO timestamp, or the cursor of a previous page (c123).")
    collection: str | None = Field(None, description="Only this collection.")
    limit: int = Field(100, ge=1, le=1000, description="Events per page.")

    def run(self, engine: Engine, ctx: CallContext) -> ChangesResult:
        return engine.changes(**self.fields())


class DiffRequest(Request):
    """How one document changed (structural delta of one journal event)."""

    ref: str = Field(description=REF_DOC)
    change: str | None = Field(None, description="A change id (cursor) of this document; default the latest.")

    def run(self, engine: Engine, ctx: CallContext) -> DiffResult:
        return engine.diff(self.ref, self.change)


class ImpactRequest(Request):
    """Which documents depend on a document (inbound links and relations, transitively)."""

    ref: str = Field(description=REF_DOC)
    max_depth: int = Field(3, ge=1, le=6, description="Hops to walk.")
    max_nodes: int = Field(100, ge=1, le=1000, description="Documents to report.")
    max_edges: int = Field(250, ge=1, le=5000, description="Edges to follow.")

    def run(self, engine: Engine, ctx: CallContext) -> ImpactResult:
        return engine.impact(**self.fields())


class LinksRequest(Request):
    """Outgoing links and typed relations of a document."""

    ref: str = Field(description=REF_DOC)

    def run(self, engine: Engine, ctx: CallContext) -> LinksResult:
        return engine.links(self.ref)


class BacklinksRequest(LinksRequest):
    """Documents that link to a document."""

    def run(self, engine: Engine, ctx: CallContext) -> LinksResult:
        return engine.backlinks(self.ref)


class GraphRequest(Request):
    """A picture of the vault: documents (uri, title, collection, tags) as nodes, links and typed relations as
    edges, the most linked first; optionally edges between documents whose vectors are close."""

    collection: str | None = Field(None, description="Only this collection (edges inside it).")
    limit: int = Field(2000, ge=1, le=10000, description="Most nodes returned (the most linked first).")
    edge_limit: int = Field(10000, ge=1, le=100000, description="Most edges returned (only between returned nodes).")
    include_isolated: bool = Field(False, description="Also documents without any link or relation.")
    include_similar: bool = Field(
        False, description="Add `similar` edges between documents whose vectors are close (needs `gno embed`)."
    )
    threshold: float = Field(0.7, ge=0.0, le=1.0, description="Least cosine of a `similar` edge.")
    similar_top_k: int = Field(5, ge=1, le=50, description="`similar` edges per document at most.")

    def run(self, engine: Engine, ctx: CallContext) -> GraphResult:
        return engine.graph(**self.fields())


class AskRequest(Request):
    """A verified, cited answer from one closed Capsule, or an abstention. Rung 6."""

    question: str = Field(description="The question.", json_schema_extra={"minLength": 1})
    verify: bool = Field(True, description="Verify every claim; release only at 100% support.")
    budget: int = Field(DEFAULT_BUDGET, ge=64, le=1_000_000, description=BUDGET_DOC)
    collection: str | None = Field(None, description="Only this collection.")
    depth: Depth = Field("balanced", description="Retrieval depth: fast, balanced or thorough.")

    def run(self, engine: Engine, ctx: CallContext) -> AskResult:
        return engine.ask(
            self.question, verify=self.verify, budget_tokens=self.budget, collection=self.collection, depth=self.depth
        )
