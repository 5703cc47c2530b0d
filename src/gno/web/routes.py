"""Web UI routes (a placeholder page until the Web UI lands)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>gno</title></head>
<body><h1>gno</h1><p>The API is at <a href="/docs">/docs</a> (OpenAPI at /openapi.json); MCP at /mcp.</p>
</body></html>"""


def register_web(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse(PAGE)
