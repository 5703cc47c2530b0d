"""Tools of the later rungs (query, vsearch, diagnose, …), beside the core set in `server.py`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mcp_types import CallToolResult, ToolAnnotations

from gno.engine import Engine

if TYPE_CHECKING:
    from gno.mcp.server import GnoMCPServer
from gno.models import GnoModel

CallFn = Callable[[Callable[[], GnoModel]], Awaitable[CallToolResult]]
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def register_extra_tools(srv: GnoMCPServer, engine: Engine, call: CallFn) -> None:
    @srv.tool(annotations=READ, description="Hybrid query (BM25 + vectors → RRF → graph → re-scoring). Rung 3.")
    async def gno_query(
        query: str,
        collection: str | None = None,
        limit: int = 5,
        minScore: float = 0.0,
        tagsAll: list[str] | None = None,
        tagsAny: list[str] | None = None,
        fast: bool = False,
        thorough: bool = False,
        graph: bool = True,
        candidateLimit: int | None = None,
        explain: bool = False,
    ) -> CallToolResult:
        def run() -> GnoModel:
            return engine.query(
                query,
                collection=collection,
                limit=limit,
                min_score=minScore,
                tags_all=tagsAll or [],
                tags_any=tagsAny or [],
                fast=fast,
                thorough=thorough,
                graph=graph,
                candidate_limit=candidateLimit,
                explain=explain,
            )

        return await call(run)

    @srv.tool(annotations=READ, description="Vector-only search over embedded chunks.")
    async def gno_vsearch(
        query: str,
        collection: str | None = None,
        limit: int = 5,
        minScore: float = 0.0,
        tagsAll: list[str] | None = None,
        tagsAny: list[str] | None = None,
    ) -> CallToolResult:
        return await call(
            lambda: engine.vsearch(
                query,
                collection=collection,
                limit=limit,
                min_score=minScore,
                tags_all=tagsAll or [],
                tags_any=tagsAny or [],
            )
        )

    @srv.tool(annotations=READ, description="Where did an expected document drop out of the results? Rung 7.")
    async def gno_query_diagnose(
        query: str,
        target: str,
        collection: str | None = None,
        limit: int = 10,
        fast: bool = False,
        thorough: bool = False,
        graph: bool = True,
        candidateLimit: int | None = None,
    ) -> CallToolResult:
        return await call(
            lambda: engine.diagnose(
                query,
                target,
                collection=collection,
                limit=limit,
                fast=fast,
                thorough=thorough,
                graph=graph,
                candidate_limit=candidateLimit,
            )
        )

    from gno.mcp.evidence_tools import register_evidence_tools

    register_evidence_tools(srv, engine, call)
