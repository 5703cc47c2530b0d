"""REST routes of the evidence rungs: context, context verify, changes, diff, impact, links, ask."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response

from gno.engine import Engine
from gno.evidence.canonical import canonical_json
from gno.evidence.capsule import CapsuleRequest
from gno.http.requests import AskBody, ContextBody, ContextVerifyBody


def register_evidence_routes(app: FastAPI, engine: Engine, run: Callable[..., JSONResponse]) -> None:
    @app.post("/api/context", tags=["evidence"])
    def context(body: ContextBody) -> Response:
        req = CapsuleRequest(
            goal=body.goal,
            budget_tokens=body.budget,
            budget_bytes=body.budget_bytes,
            query=body.query,
            collections=(body.collection,) if body.collection else (),
            uri_prefix=body.uri_prefix,
            tags_any=tuple(body.tags_any),
            tags_all=tuple(body.tags_all),
            depth="fast" if body.fast else "thorough" if body.thorough else "balanced",
            graph=body.graph,
        )
        with engine.lock:
            cap = engine.context_build(req)
        # the canonical bytes are the budgeted artifact: send exactly those
        return Response(canonical_json(cap.dump()), media_type="application/json")

    @app.post("/api/context/verify", tags=["evidence"])
    def context_verify(body: ContextVerifyBody) -> JSONResponse:
        return run(lambda: engine.context_verify(body.capsule))

    @app.get("/api/changes", tags=["evidence"])
    def changes(since: str | None = None, collection: str | None = None, limit: int = 100) -> JSONResponse:
        return run(lambda: engine.changes(since=since, collection=collection, limit=limit))

    @app.get("/api/diff", tags=["evidence"])
    def diff(ref: str, change: str | None = None) -> JSONResponse:
        return run(lambda: engine.diff(ref, change))

    @app.get("/api/impact", tags=["evidence"])
    def impact(ref: str, maxDepth: int = 3, maxNodes: int = 100, maxEdges: int = 250) -> JSONResponse:  # noqa: N803
        return run(lambda: engine.impact(ref, max_depth=maxDepth, max_nodes=maxNodes, max_edges=maxEdges))

    @app.get("/api/links", tags=["evidence"])
    def links(ref: str) -> JSONResponse:
        return run(lambda: engine.links(ref))

    @app.get("/api/backlinks", tags=["evidence"])
    def backlinks(ref: str) -> JSONResponse:
        return run(lambda: engine.backlinks(ref))

    @app.post("/api/ask", tags=["evidence"])
    def ask(body: AskBody) -> JSONResponse:
        return run(
            lambda: engine.ask(body.question, verify=body.verify, budget_tokens=body.budget, collection=body.collection)
        )
