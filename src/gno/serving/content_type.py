"""REST request bodies must say they are JSON.

A body sent without `Content-Type: application/json` (curl's `-d` sends form encoding; a bare
`fetch` sends text/plain) is refused with 415 `CONTENT_TYPE_REQUIRED` and a message naming the
header, instead of a validation error about "a valid dictionary". Parsing such bodies as JSON
anyway would let any web page post "simple" cross-origin requests that no browser preflights;
Docker's Engine API, Elasticsearch and FastAPI's own strict default refuse them for that reason,
and so does gno. Only the server's JSON routes are checked (`prefix`: `/api/` on `gno serve`,
`/v1/` on the team service): `/mcp` follows the MCP transport's own rules.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from gno.errors import ErrorCode, make_error
from gno.serving.host_origin import Render, envelope

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def is_json_media_type(value: str) -> bool:
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class JsonBodyRequired:
    """ASGI middleware: a request under `prefix` with a body and a non-JSON Content-Type gets a 415."""

    def __init__(self, app: ASGIApp, prefix: str = "/api/", render: Render = envelope) -> None:
        self.app = app
        self.prefix = prefix
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for k, v in scope.get("headers", ()):
            headers[k.decode("latin-1").lower()] = v.decode("latin-1")
        has_body = headers.get("content-length", "0").strip() not in ("", "0") or "transfer-encoding" in headers
        ctype = headers.get("content-type", "")
        if not has_body or is_json_media_type(ctype):
            await self.app(scope, receive, send)
            return
        got = f"got {ctype!r}" if ctype else "got no Content-Type"
        err = make_error(
            ErrorCode.CONTENT_TYPE_REQUIRED,
            f"send the request body as JSON with the header `Content-Type: application/json` ({got})",
            {"contentType": ctype or None},
        )
        await self.render(err)(scope, receive, send)
