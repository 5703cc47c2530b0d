"""The service's HTTP face: `POST /v1/memory/<operation>` JSON routes and MCP at `/mcp`, one app.

Every request to `/v1/…` or `/mcp` must carry `Authorization: Bearer <access key>`; an ASGI
middleware checks it before anything else (401 otherwise) and hands the `Principal` to the route or
tool through the request state. The routes are the service's table (`gno.service.operations`): a
route body is the operation's request model, which is also its MCP tool's arguments, and the
response is its result model. Errors are gno's one envelope, `{"error": {"code", "message",
"details"}}`, whose message is the service's documented text, with the status from gno's one table
(`errors.py`: 400 validation, 401 key, 403 workspace of another project / quota / suspended, 404,
409 idempotency, 410 deleted workspace, 422 guard, 423 read-only account, 429 rate limits).
`X-Idempotency-Key` is honoured by `remember`.

The transport checks are gno serve's (`gno.serving`), rendered in this body: a Host outside the
allowed names is 421 HOST_NOT_ALLOWED (DNS rebinding; loopback names, the bind address and
`--allowed-host`), a state-changing request from a foreign `Origin` 403 CSRF_VIOLATION, a
`/v1/` body not sent as JSON 415 CONTENT_TYPE_REQUIRED. `/docs` is the offline reference page.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from gno import __version__
from gno.errors import ErrorCode, GnoError, invalid_request, make_error
from gno.service.api import MemoryService
from gno.service.mcp_tools import bearer, build_service_mcp
from gno.service.operations import OPERATIONS, Operation
from gno.service.tenancy import Principal
from gno.serving.api_docs import register_docs
from gno.serving.content_type import JsonBodyRequired
from gno.serving.host_origin import HostGuard, HostRule, OriginGuard
from gno.serving.http_errors import http_exception_error

log = logging.getLogger("gno.service.http")
PROTECTED = ("/v1/", "/mcp")


def error_body(err: GnoError) -> JSONResponse:
    body = err.to_body()
    headers = {"WWW-Authenticate": "Bearer"} if err.http_status == 401 else None
    return JSONResponse(body, status_code=err.http_status, headers=headers)


class BearerAuth:
    """Pure ASGI middleware (no response buffering, so MCP's event streams pass untouched)."""

    def __init__(self, app: ASGIApp, service: MemoryService) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(PROTECTED):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        try:
            principal = await anyio.to_thread.run_sync(self.service.authenticate, bearer(headers))
        except GnoError as err:
            await error_body(err)(scope, receive, send)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)


def create_service_app(
    service: MemoryService,
    *,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    mcp: bool = True,
    on_shutdown: Callable[[], None] | None = None,
) -> FastAPI:
    """The app; `on_shutdown` runs at the end of the lifespan (uvicorn re-raises SIGTERM after it,
    so a composition root's `finally` would never run: close resources here)."""
    mcp_srv = build_service_mcp(service) if mcp else None
    mcp_app = None
    if mcp_srv is not None:
        from mcp.server.transport_security import TransportSecuritySettings

        # the Host check is HostGuard's, for every route at once (one rule, one --allowed-host list)
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        mcp_app = mcp_srv.streamable_http_app(streamable_http_path="/mcp", host=host, transport_security=security)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        service.start()
        try:
            if mcp_srv is not None:
                async with mcp_srv.session_manager.run():
                    yield
            else:
                yield
        finally:
            service.close()
            if on_shutdown is not None:
                on_shutdown()

    app = FastAPI(
        title="gno team memory",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,  # the stock pages load from a CDN; serving.api_docs serves /docs offline
        redoc_url=None,
        description="Multi-tenant team memory. Errors: {error: {code, message, details}} with the status from "
        "gno's error table.",
    )

    @app.exception_handler(GnoError)
    async def _gno_error(_: Request, err: GnoError) -> JSONResponse:
        return error_body(err)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, err: RequestValidationError) -> JSONResponse:
        return error_body(invalid_request(err, ErrorCode.INVALID_ARGUMENT))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        err = http_exception_error(exc.status_code, exc.detail, exc.headers, ErrorCode.INVALID_ARGUMENT)
        return JSONResponse(err.to_body(), status_code=err.http_status, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error_body(make_error(ErrorCode.RUNTIME, f"internal error: {type(exc).__name__}"))

    @app.get("/v1/health", include_in_schema=False)
    def health() -> JSONResponse:  # behind the key: proves the key works
        return JSONResponse({"ok": True, "version": __version__})

    for op in OPERATIONS:
        app.post(f"/v1/memory/{op.name}", tags=["memory"])(_route(op, service))

    register_docs(app)
    if mcp_app is not None:
        app.router.routes.extend(mcp_app.routes)
    # outermost last: Host, then the key, then Origin, then the body's Content-Type (as on gno serve)
    app.add_middleware(JsonBodyRequired, prefix="/v1/", render=error_body)
    app.add_middleware(OriginGuard, allowed_origins=list(allowed_origins), render=error_body)
    app.add_middleware(BearerAuth, service=service)
    app.add_middleware(HostGuard, rule=HostRule.build(host, allowed_hosts), render=error_body)
    return app


def _route(op: Operation, service: MemoryService) -> Callable[..., JSONResponse]:
    """`POST /v1/memory/<op>`: the body is the request model (FastAPI validates it; a bad one is
    INVALID_ARGUMENT), the caller the key's `Principal`, the response the result model's dump."""

    def endpoint(body: Any, request: Request) -> JSONResponse:
        principal: Principal = request.state.principal
        key = request.headers.get("x-idempotency-key") if op.idempotency_key else None
        return JSONResponse(op.call(service, principal, body, channel="http", idempotency_key=key).dump())

    params = [
        inspect.Parameter("body", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=op.params),
        inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request),
    ]
    endpoint.__signature__ = inspect.Signature(params, return_annotation=JSONResponse)  # type: ignore[attr-defined]
    endpoint.__name__ = endpoint.__qualname__ = op.name
    return endpoint
