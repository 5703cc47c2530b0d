"""The result of `graph`: documents as nodes, links and typed relations (and optionally vector
neighbours) as edges, and what the bounds left out.

Kept apart from the graph builder so that a remote SDK client, which only parses the result,
imports no index code.
"""

from __future__ import annotations

from pydantic import Field

from gno.models import GnoModel


class GraphNode(GnoModel):
    uri: str = Field(
        description="The document's URI: what edges name as source and target (unique; docids are "
        "not: identical files share one)."
    )
    docid: str
    title: str
    collection: str
    rel_path: str
    tags: list[str]
    degree: int = Field(description="Distinct neighbours (in and out, every edge type) before the bounds.")


class GraphEdge(GnoModel):
    source: str = Field(description="The linking document's URI.")
    target: str = Field(description="The linked document's URI.")
    type: str = Field(description="wiki | markdown | a typed relation from front matter (supersedes, …) | similar.")
    weight: float = Field(description="Links written from source to target of this type; for `similar`, the cosine.")


class GraphMeta(GnoModel):
    collection: str | None = None
    node_limit: int
    edge_limit: int
    total_nodes: int = Field(description="Nodes before the node limit (linked documents, or all with isolated ones).")
    total_edges: int = Field(description="Edges between those nodes before the limits.")
    returned_nodes: int
    returned_edges: int
    truncated: bool
    linked_only: bool = Field(description="Documents without any edge are left out (`includeIsolated` false).")
    included_similar: bool
    similar_available: bool = Field(description="Vector neighbours were computed (false: see `warnings`).")
    similar_top_k: int
    similar_threshold: float
    similar_truncated_by_compute_budget: bool = Field(
        description="Only the most linked documents were compared by their vectors."
    )
    edge_types: dict[str, int] = Field(description="Returned edges per type.")
    warnings: list[str]


class GraphResult(GnoModel):
    nodes: list[GraphNode] = Field(description="Most linked first.")
    edges: list[GraphEdge] = Field(description="Only between returned nodes.")
    meta: GraphMeta
