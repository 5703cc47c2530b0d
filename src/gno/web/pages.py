"""Web UI routes: the single-page app's shell, its static files, and two read-only helpers.

The Web UI is one more thin surface over the same engine: the browser calls the public REST
API (`/api/search`, `/api/query`, `/api/doc`, `/api/ls`, `/api/links`, `/api/backlinks`,
`PUT /api/docs/{id}`, `/api/capture`, `/api/sync`, `/api/status`) exactly as any client would, so
it passes through the same security middleware (bearer token, foreign-Origin refusal) and gets the
same errors. Two things only a browser needs live here under `/api/web/…`, read-only:

- `render`: the note as HTML, rendered on the server by `gno.web.render` (markdown-it-py with
  the vault dialect: callouts, embeds, block refs, highlights, footnotes, tables, task lists),
  its wiki links resolved through the same link graph;
- `source`: the file's bytes as they are on disk now, with their SHA-256, for the editor. The
  index mirror is normalised (LF, NFC, no final newline), so editing it would rewrite lines the
  user never touched; the editor edits the real file and presents this hash as
  `expectedSourceHash`, so a concurrent change is a 409 conflict, never a silent overwrite.

Everything is served from the package (no CDN, no build step, no network) under a strict
Content-Security-Policy: scripts, styles and fetches from this origin only. The graph view
(`/graph`, `static/graph.js`) draws `GET /api/graph` with Cytoscape.js, vendored as its npm
dist file under `static/vendor/` and loaded from this origin when the view first opens.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from gno.errors import NotFoundError, RuntimeFailure, ValidationError
from gno.models import GnoModel
from gno.writes.edit import refuse_converted

if TYPE_CHECKING:
    from gno.engine import Engine

#: pages the app renders client-side; each serves the same shell
PAGES = ("/", "/search", "/browse", "/doc", "/edit", "/capture", "/status", "/graph")
STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "graph.js": "text/javascript; charset=utf-8",
    # the graph view's drawing library, vendored from npm (version, source and licence: vendor/README.md)
    "vendor/cytoscape.min.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


class HeadingItem(GnoModel):
    level: int
    text: str
    id: str


class DocView(GnoModel):
    uri: str
    html: str  # built by markdown-it-py from the note, raw HTML escaped
    headings: list[HeadingItem]


class DocSource(GnoModel):
    uri: str
    docid: str
    title: str
    source_hash: str
    content: str  # LF line endings; the browser's textarea works in LF
    line_ending: str  # "\n" or "\r\n": what the editor converts back to before saving
    editable: bool
    reason: str | None = None


def doc_view(engine: Engine, uri: str) -> DocView:
    """The note rendered for reading, wiki links resolved by the index's link graph."""
    from gno.store import documents as docs
    from gno.store import graph
    from gno.web.render import render_note

    row = engine.resolve(uri)
    engine.confined_path(row, action="read")
    out = graph.outgoing(engine.store, row.id)
    rows = docs.docs_by_ids(engine.store, sorted({e.target for e in out}))
    targets = {}
    for e in out:
        if e.edge_type == "wiki" and (d := rows.get(e.target)) is not None:
            targets[e.target_ref.split("|")[0].split("#")[0].strip()] = d.uri
    text = docs.content_of(engine.store, row.mirror_hash) or ""
    view = render_note(text, collection=row.collection, rel_path=row.rel_path, targets=targets)
    headings = [HeadingItem(level=h.level, text=h.text, id=h.id) for h in view.headings]
    return DocView(uri=row.uri, html=view.html, headings=headings)


def doc_source(engine: Engine, uri: str) -> DocSource:
    """The file as it is on disk now, for the editor (see the module docstring for why)."""
    row = engine.resolve(uri)
    path = engine.confined_path(row, action="read")
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise NotFoundError(
            f"{row.uri} is indexed but {path} is gone; run `gno update`", details={"uri": row.uri}
        ) from exc
    except OSError as exc:
        raise RuntimeFailure(f"cannot read {path}: {exc}", details={"uri": row.uri}) from exc
    digest = hashlib.sha256(data).hexdigest()
    crlf = b"\r\n" in data
    try:
        text, editable, reason = data.decode("utf-8"), True, None
    except UnicodeDecodeError:
        text, editable, reason = data.decode("utf-8", errors="replace"), False, "the file is not valid UTF-8"
    if crlf and b"\n" in data.replace(b"\r\n", b""):
        editable, reason = False, "the file mixes CRLF and LF line endings; edit it in a text editor"
    try:
        refuse_converted(row.uri, row.rel_path)
    except ValidationError as exc:
        text, editable, reason = "", False, exc.message
    return DocSource(
        uri=row.uri,
        docid=row.docid,
        title=row.title,
        source_hash=digest,
        content=text.replace("\r\n", "\n"),
        line_ending="\r\n" if crlf else "\n",
        editable=editable,
        reason=reason,
    )


def _asset(name: str) -> bytes:
    return resources.files("gno.web").joinpath("static", name).read_bytes()


def register_web(app: FastAPI) -> None:
    """Mount the Web UI on `app` (the engine comes from `app.state.engine`).

    The files are read once here, per app: every page load then costs no disk read, and
    each file carries an ETag so a browser revalidates with a 304 instead of a download.
    """
    files = {name: _asset(name) for name in ("index.html", *STATIC)}
    etags = {name: '"' + hashlib.sha256(data).hexdigest()[:16] + '"' for name, data in files.items()}

    def send(request: Request, name: str, media_type: str) -> Response:
        headers = {**SECURITY_HEADERS, "Cache-Control": "no-cache", "ETag": etags[name]}
        if request.headers.get("if-none-match") == etags[name]:
            return Response(status_code=304, headers=headers)
        return Response(files[name], media_type=media_type, headers=headers)

    def shell(request: Request) -> Response:
        return send(request, "index.html", "text/html; charset=utf-8")

    for path in PAGES:
        app.add_api_route(path, shell, methods=["GET"], include_in_schema=False, response_class=HTMLResponse)

    @app.get("/static/{name:path}", include_in_schema=False)
    def static(request: Request, name: str) -> Response:
        if name not in STATIC:
            return JSONResponse(NotFoundError(f"no static file {name!r}").to_body(), status_code=404)
        return send(request, name, STATIC[name])

    from gno.errors import ErrorCode
    from gno.http.routes import error_responses

    errors = error_responses(ErrorCode.NOT_FOUND, ErrorCode.INVALID_REF)

    @app.get("/api/web/render", tags=["web"], response_model=DocView, responses=errors)
    def render(request: Request, uri: str) -> JSONResponse:
        engine: Engine = request.app.state.engine
        return JSONResponse(doc_view(engine, uri).dump())

    @app.get("/api/web/source", tags=["web"], response_model=DocSource, responses=errors)
    def source(request: Request, uri: str) -> JSONResponse:
        engine: Engine = request.app.state.engine
        return JSONResponse(doc_source(engine, uri).dump())
