"""`/docs`: the REST reference rendered on the server from the app's own OpenAPI document.

FastAPI's stock `/docs` and `/redoc` pages load Swagger UI and ReDoc from a public CDN, so they
break offline and hand every visit to a third party; gno's servers turn both off and serves this page
instead: plain HTML, no script, no external resource, under the same strict Content-Security-
Policy as the Web UI. Both servers serve it (on `gno serve` behind the bearer token when one is
set, like `/openapi.json`).
"""

from __future__ import annotations

import html
import json
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

DOCS_PATH = "/docs"
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
    "code,pre{font:13px ui-monospace,monospace}pre{background:#f4f4f4;padding:.6rem;overflow:auto}"
    "h2{margin-top:2rem;border-top:1px solid #ddd;padding-top:1rem}.m{font-weight:700;text-transform:uppercase}"
)


def _schema_name(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    return str(schema.get("type", "object"))


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    parts = [f"<h3><span class=m>{html.escape(method)}</span> <code>{html.escape(path)}</code></h3>"]
    if op.get("summary"):
        parts.append(f"<p>{html.escape(str(op['summary']))}</p>")
    params = op.get("parameters") or []
    if params:
        items = "".join(
            f"<li><code>{html.escape(str(p.get('name')))}</code> ({html.escape(str(p.get('in')))}"
            f"{', required' if p.get('required') else ''})</li>"
            for p in params
        )
        parts.append(f"<p>Parameters:</p><ul>{items}</ul>")
    body = (op.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema")
    if isinstance(body, dict) and "$ref" in body:
        name = html.escape(_schema_name(body))
        parts.append(f"<p>JSON body: <a href='#{name}'>{name}</a></p>")
    elif isinstance(body, dict):  # an inline request model: its fields, as the CLI's --help lists options
        required = set(body.get("required") or [])
        fields = (body.get("properties") or {}).items()
        items = "".join(
            f"<li><code>{html.escape(str(name))}</code>{' (required)' if name in required else ''}"
            + (f": {html.escape(str(f['description']))}" if isinstance(f, dict) and f.get("description") else "")
            + "</li>"
            for name, f in fields
        )
        parts.append(f"<p>JSON body:</p><ul>{items}</ul>")
    return "".join(parts)


def render_docs(spec: dict[str, Any]) -> str:
    info = spec.get("info", {})
    title = html.escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    out = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title} API</title>",
        f"<style>{STYLE}</style></head><body><h1>{title} API</h1>",
        f"<p>{html.escape(str(info.get('description', '')))}</p>",
        "<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>.</p>",
    ]
    by_tag: dict[str, list[str]] = {}
    for path, ops in sorted(spec.get("paths", {}).items()):
        for method, op in ops.items():
            tag = (op.get("tags") or ["other"])[0]
            by_tag.setdefault(str(tag), []).append(_operation(method, path, op))
    for tag, ops in by_tag.items():
        out.append(f"<h2>{html.escape(tag)}</h2>{''.join(ops)}")
    schemas = spec.get("components", {}).get("schemas", {})
    if schemas:
        out.append("<h2>Schemas</h2>")
        for name, schema in sorted(schemas.items()):
            text = html.escape(json.dumps(schema, indent=2, ensure_ascii=False))
            out.append(f"<h3 id='{html.escape(name)}'>{html.escape(name)}</h3><pre>{text}</pre>")
    out.append("</body></html>")
    return "".join(out)


def register_docs(app: FastAPI) -> None:
    """Serve `/docs` (the stock CDN pages must be off: `FastAPI(docs_url=None, redoc_url=None)`)."""
    cache: dict[str, str] = {}

    @app.get(DOCS_PATH, include_in_schema=False)
    def docs() -> HTMLResponse:
        if "page" not in cache:
            cache["page"] = render_docs(app.openapi())
        return HTMLResponse(cache["page"], headers=HEADERS)
