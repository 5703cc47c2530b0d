"""The REST surface (`gno serve`): `/api/*` JSON over the engine, MCP at `/mcp`, OpenAPI.

Routes are generated from the capability table (`gno.http.routes`). Errors leave through one
handler as `{"error": {code, message, details}}` with the status from the error table.
Security (`gno.serving`, shared with the team service): every request must name an allowed Host
(DNS rebinding), carry the bearer token when one is configured (required off loopback), and a
state-changing request from a foreign `Origin` is refused.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint

from gno import __version__
from gno.engine import Engine
from gno.errors import AuthError, GnoError, from_exception, invalid_request
from gno.http.routes import error_responses, register_capabilities
from gno.models import HealthResult
from gno.serving.api_docs import DOCS_PATH, register_docs
from gno.serving.content_type import JsonBodyRequired
from gno.serving.host_origin import HostGuard, HostRule, OriginGuard
from gno.serving.http_errors import http_exception_error

#: behind the token even for GET (everything else a GET reaches is the Web UI's static shell)
PROTECTED_PREFIXES = ("/api/", "/mcp", "/openapi.json", DOCS_PATH)


def error_response(err: GnoError) -> JSONResponse:
    return JSONResponse(err.to_body(), status_code=err.http_status)


class TokenMiddleware(BaseHTTPMiddleware):
    """The bearer token (when configured) on everything but the Web UI's static shell and health."""

    def __init__(self, app: Any, token: str | None) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        path = request.url.path
        public = path == "/api/health" or (
            request.method in ("GET", "HEAD") and not path.startswith(PROTECTED_PREFIXES)
        )
        if self.token and not public and request.headers.get("authorization", "") != f"Bearer {self.token}":
            return error_response(
                AuthError("missing or wrong bearer token (Authorization: Bearer …)")
            )
        return await call_next(request)


def create_app(
    engine: Engine,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
    allowed_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = (),
    enable_write: bool = False,
    tool_profile: str = "full",
    mcp: bool = True,
    web: bool = True,
) -> FastAPI:
    mcp_srv = None
    if mcp:
        from mcp.server.transport_security import TransportSecuritySettings

        from gno.mcp.server import build_mcp

        mcp_srv = build_mcp(
            engine, enable_write=enable_write, instance_id=f"http:{uuid.uuid4().hex[:12]}", tool_profile=tool_profile
        )
        # the Host check is HostGuard's, for every route at once (one rule, one --allowed-host list)
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
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
        docs_url=None,  # the stock pages load from a CDN; api_docs serves /docs offline
        redoc_url=None,
        description="Local-first knowledge engine and agent memory. Errors: {error: {code, message, "
        "details}} with the status from gno's error table.",
    )
    app.state.engine = engine
    # outermost last: Host, then the token, then Origin, then the body's Content-Type
    app.add_middleware(JsonBodyRequired)
    app.add_middleware(OriginGuard, allowed_origins=list(allowed_origins))
    app.add_middleware(TokenMiddleware, token=token)
    app.add_middleware(HostGuard, rule=HostRule.build(host, allowed_hosts))

    @app.exception_handler(GnoError)
    async def _gno_error(_: Request, err: GnoError) -> JSONResponse:
        return error_response(err)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, err: RequestValidationError) -> JSONResponse:
        return error_response(invalid_request(err))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        err = http_exception_error(exc.status_code, exc.detail, exc.headers)
        return JSONResponse(err.to_body(), status_code=err.http_status, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        return error_response(from_exception(exc))

    @app.get("/api/health", tags=["read"], response_model=HealthResult, responses=error_responses())
    def health() -> JSONResponse:
        return JSONResponse(HealthResult(ok=True, version=__version__).dump())

    register_capabilities(app, engine)
    register_docs(app)
    if mcp_srv is not None:
        for route in mcp_app.routes:
            app.router.routes.append(route)
    if web:
        from gno.web.pages import register_web

        register_web(app)
    return app
