"""The REST surface (`gno serve`): `/api/*` JSON over the engine, MCP at `/mcp`, OpenAPI.

Routes are thin: parse the strict body, make one engine call under the engine lock, return the
shared pydantic model. Errors leave through one handler as `{"error": {code, message,
details}}` with the status from the error table. Security: a bearer token when configured
(required off loopback), and state-changing requests from a foreign `Origin` are refused.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint

from gno import __version__
from gno.engine import Engine
from gno.errors import ErrorCode, GnoError, ValidationError, from_exception
from gno.http.content_type import JsonBodyRequired
from gno.http.requests import (
    CaptureBody,
    DocUpdateBody,
    MultiGetBody,
    RecallBody,
    RememberBody,
    SearchBody,
    SyncBody,
    split_tags,
)
from gno.memory.recall import RecallRequest
from gno.memory.remember import RememberRequest
from gno.models import CaptureSource, GnoModel, HealthResult
from gno.writes.capture import CaptureRequest

T = TypeVar("T", bound=GnoModel)
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def error_response(err: GnoError) -> JSONResponse:
    return JSONResponse(err.to_body(), status_code=err.http_status)


class SecurityMiddleware(BaseHTTPMiddleware):
    """Bearer token (when configured) and same-origin checks for state-changing requests."""

    def __init__(self, app: Any, token: str | None, allowed_origins: Sequence[str]) -> None:
        super().__init__(app)
        self.token = token
        self.allowed_origins = {o.rstrip("/") for o in allowed_origins}

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        path = request.url.path
        public = path == "/api/health" or (
            request.method in ("GET", "HEAD") and not path.startswith(("/api/", "/mcp", "/openapi.json"))
        )
        if self.token and not public:
            auth = request.headers.get("authorization", "")
            if auth != f"Bearer {self.token}":
                return error_response(
                    ValidationError(
                        "missing or wrong bearer token (Authorization: Bearer …)", code=ErrorCode.UNAUTHORIZED
                    )
                )
        origin = request.headers.get("origin")
        if request.method in UNSAFE_METHODS and origin and origin.rstrip("/") not in self.allowed_origins:
            host = request.headers.get("host", "")
            if urlsplit(origin).netloc != host:
                return error_response(
                    ValidationError(
                        f"request from foreign origin {origin} refused",
                        code=ErrorCode.CSRF_VIOLATION,
                        details={"origin": origin},
                    )
                )
        return await call_next(request)


def create_app(
    engine: Engine,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
    allowed_origins: Sequence[str] = (),
    enable_write: bool = False,
    mcp: bool = True,
    web: bool = True,
) -> FastAPI:
    mcp_srv = None
    if mcp:
        from mcp.server.transport_security import TransportSecuritySettings

        from gno.mcp.server import build_mcp

        mcp_srv = build_mcp(engine, enable_write=enable_write, instance_id=f"http:{uuid.uuid4().hex[:12]}")
        loopback = host in ("127.0.0.1", "localhost", "::1")
        security = None if loopback else TransportSecuritySettings(enable_dns_rebinding_protection=False)
        # json_response: one JSON body per call instead of an SSE stream (no server-initiated messages here)
        mcp_app = mcp_srv.streamable_http_app(
            streamable_http_path="/mcp", host=host, transport_security=security, json_response=True
        )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if mcp_srv is not None:
            async with mcp_srv.session_manager.run():
                yield
        else:
            yield

    app = FastAPI(
        title="gno",
        version=__version__,
        lifespan=lifespan,
        description="Local-first knowledge engine and agent memory. Errors: {error: {code, message, "
        "details}} with the status from gno's error table.",
    )
    app.state.engine = engine
    app.add_middleware(JsonBodyRequired)  # inside the security checks: a foreign origin is refused first
    app.add_middleware(SecurityMiddleware, token=token, allowed_origins=list(allowed_origins))

    @app.exception_handler(GnoError)
    async def _gno_error(_: Request, err: GnoError) -> JSONResponse:
        return error_response(err)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, err: RequestValidationError) -> JSONResponse:
        errors = [{"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", ""))} for e in err.errors()]
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        return error_response(
            ValidationError(
                f"invalid request: {'.'.join(first['loc'])}: {first['msg']}", details={"errors": errors[:20]}
            )
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = ErrorCode.NOT_FOUND if exc.status_code == 404 else ErrorCode.VALIDATION
        err = ValidationError(str(exc.detail), code=code)
        return JSONResponse(err.to_body(), status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        return error_response(from_exception(exc))

    def run(fn: Callable[[], T], status: int = 200) -> JSONResponse:
        with engine.lock:
            result = fn()
        return JSONResponse(result.dump(), status_code=status)

    @app.get("/api/health", tags=["read"])
    def health() -> JSONResponse:
        return JSONResponse(HealthResult(ok=True, version=__version__).dump())

    @app.get("/api/status", tags=["read"])
    def status() -> JSONResponse:
        return run(engine.status)

    @app.get("/api/collections", tags=["read"])
    def collections() -> JSONResponse:
        return run(engine.collection_list)

    @app.get("/api/doc", tags=["read"])
    def doc(uri: str, fromLine: int | None = None, lineCount: int | None = None) -> JSONResponse:  # noqa: N803
        return run(lambda: engine.get(uri, from_line=fromLine, line_count=lineCount))

    @app.get("/api/ls", tags=["read"])
    def ls(scope: str | None = None) -> JSONResponse:
        return run(lambda: engine.ls(scope))

    @app.post("/api/multi-get", tags=["read"])
    def multi_get(body: MultiGetBody) -> JSONResponse:
        return run(lambda: engine.multi_get(body.refs, max_bytes=body.max_bytes))

    @app.post("/api/search", tags=["read"])
    def search(body: SearchBody) -> JSONResponse:
        return run(
            lambda: engine.search(
                body.query,
                collection=body.collection,
                limit=body.limit,
                min_score=body.min_score,
                tags_all=split_tags(body.tags_all),
                tags_any=split_tags(body.tags_any),
                full=body.full,
            )
        )

    @app.post("/api/memory/recall", tags=["memory"])
    def recall(body: RecallBody) -> JSONResponse:
        return run(
            lambda: engine.recall(
                RecallRequest(
                    query=body.query,
                    scopes=body.scopes,
                    caller=body.caller,
                    session=body.session,
                    collection=body.collection,
                    max_facts=body.max_facts,
                    max_tokens=body.max_tokens,
                )
            )
        )

    @app.post("/api/memory/remember", tags=["memory"])
    def remember(body: RememberBody) -> JSONResponse:
        req = RememberRequest(
            text=body.text,
            scopes=body.scopes,
            caller=body.caller,
            session=body.session,
            collection=body.collection,
            decision=body.decision,
            predecessor_uri=body.predecessor_uri,
            predecessor_hash=body.predecessor_hash,
            receipt=body.receipt,
            derived_from=body.derived_from,
            source=body.source,
        )
        with engine.lock:
            result = engine.remember(req)
        return JSONResponse(result.dump(), status_code=201 if result.outcome in ("added", "superseded") else 200)

    @app.post("/api/capture", tags=["write"])
    def capture(body: CaptureBody) -> JSONResponse:
        src = CaptureSource.model_validate(body.source.model_dump()) if body.source else None
        req = CaptureRequest(
            content=body.content,
            collection=body.collection,
            title=body.title,
            path=body.path,
            folder=body.folder_path,
            tags=body.tags,
            source=src,
            collision_policy=body.collision_policy,
            caller=body.caller,
        )
        with engine.lock:
            result = engine.capture(req)
        return JSONResponse(result.dump(), status_code=201 if result.outcome == "created" else 200)

    @app.put("/api/docs/{doc_id:path}", tags=["write"])
    def update_doc(doc_id: str, body: DocUpdateBody) -> JSONResponse:
        ref = doc_id if doc_id.startswith(("#", "gno://")) or "/" in doc_id else "#" + doc_id
        return run(lambda: engine.update_doc(ref, body.content, body.expected_source_hash))

    @app.post("/api/sync", tags=["write"])
    def sync(body: SyncBody) -> JSONResponse:
        return run(lambda: engine.update([body.collection] if body.collection else []))

    from gno.http.extra_routes import register_extra_routes

    register_extra_routes(app, engine, run)
    if mcp_srv is not None:
        for route in mcp_app.routes:
            app.router.routes.append(route)
    if web:
        from gno.web.routes import register_web

        register_web(app)
    return app
