"""REST routes of the later rungs (query, vsearch, diagnose, …), beside the core API."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from gno.engine import Engine
from gno.http.requests import DiagnoseBody, QueryBody, SearchBody, split_tags


def register_extra_routes(app: FastAPI, engine: Engine, run: Callable[..., JSONResponse]) -> None:
    @app.post("/api/query", tags=["read"])
    def query(body: QueryBody) -> JSONResponse:
        return run(
            lambda: engine.query(
                body.query,
                collection=body.collection,
                limit=body.limit,
                min_score=body.min_score,
                tags_all=split_tags(body.tags_all),
                tags_any=split_tags(body.tags_any),
                fast=body.fast,
                thorough=body.thorough,
                graph=body.graph,
                candidate_limit=body.candidate_limit,
                full=body.full,
                explain=body.explain,
            )
        )

    @app.post("/api/vsearch", tags=["read"])
    def vsearch(body: SearchBody) -> JSONResponse:
        return run(
            lambda: engine.vsearch(
                body.query,
                collection=body.collection,
                limit=body.limit,
                min_score=body.min_score,
                tags_all=split_tags(body.tags_all),
                tags_any=split_tags(body.tags_any),
                full=body.full,
            )
        )

    @app.post("/api/query/diagnose", tags=["read"])
    def diagnose(body: DiagnoseBody) -> JSONResponse:
        return run(
            lambda: engine.diagnose(
                body.query,
                body.target,
                collection=body.collection,
                limit=body.limit,
                fast=body.fast,
                thorough=body.thorough,
                graph=body.graph,
                candidate_limit=body.candidate_limit,
            )
        )

    from gno.http.evidence_routes import register_evidence_routes

    register_evidence_routes(app, engine, run)
