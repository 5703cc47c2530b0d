"""Web UI routes over HTTP (starlette's TestClient on `create_app`): the shell, its static files,
and the read-only `/api/web/*` helpers the document view and the editor rely on."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gno.engine import Engine
from gno.http.app import create_app

PAGES = [
    "/",
    "/search?q=x",
    "/browse",
    "/doc?uri=gno://notes/deploy.md",
    "/edit?uri=x",
    "/capture",
    "/status",
    "/graph?uri=gno://notes/deploy.md",
]


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1:3000") as c:
        yield c


@pytest.mark.parametrize("path", PAGES)
def test_pages_serve_the_local_shell(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    html = r.text
    assert "<html" in html.lower() and 'id="q"' in html and "search" in html.lower()
    assert "http://" not in html and "https://" not in html
    for url in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert url.startswith("/") and not url.startswith("//"), url
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "connect-src 'self'" in csp and "default-src 'none'" in csp


@pytest.mark.parametrize(
    ("name", "ctype"),
    [
        ("app.js", "text/javascript"),
        ("graph.js", "text/javascript"),
        ("app.css", "text/css"),
        ("favicon.svg", "image/svg+xml"),
    ],
)
def test_static_assets(client: TestClient, name: str, ctype: str) -> None:
    r = client.get(f"/static/{name}")
    assert r.status_code == 200 and r.headers["content-type"].startswith(ctype)
    if name != "favicon.svg":  # the svg names its XML namespace, which is not a fetch
        assert "http://" not in r.text and "https://" not in r.text
    assert not re.search(r"//cdn|cdn\.|unpkg|jsdelivr|googleapis|@import", r.text, flags=re.I)


def test_the_vendored_graph_library_is_served_as_shipped(client: TestClient) -> None:
    """Cytoscape.js comes from the package, byte for byte the npm dist file its README names (no CDN)."""
    from importlib import resources

    vendor = resources.files("gno.web").joinpath("static", "vendor")
    readme = vendor.joinpath("README.md").read_text(encoding="utf-8")
    r = client.get("/static/vendor/cytoscape.min.js")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert f"`{hashlib.sha256(r.content).hexdigest()}`" in readme
    assert "Permission is hereby granted" in vendor.joinpath("cytoscape.LICENSE").read_text(encoding="utf-8")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    shell = client.get("/graph").text
    assert '<script src="/static/graph.js" defer></script>' in shell
    assert "/static/vendor/cytoscape.min.js" in client.get("/static/graph.js").text  # loaded from this origin


@pytest.mark.parametrize(
    "name", ["nope.js", "..%2Fstatic%2Fapp.js", "index.html", "markdown.js", "vendor/README.md", "vendor%2F..%2Fapp.js"]
)
def test_unknown_static_is_404(client: TestClient, name: str) -> None:
    assert client.get(f"/static/{name}").status_code == 404


def test_the_web_ui_reads_links_from_the_public_routes(client: TestClient) -> None:
    """The note view lists links and backlinks from `/api/links` and `/api/backlinks` (no private copy)."""
    app_js = client.get("/static/app.js").text
    assert "/api/links" in app_js and "/api/backlinks" in app_js and "/api/web/links" not in app_js
    assert client.get("/api/web/links", params={"uri": "gno://notes/deploy.md"}).status_code == 404
    body = client.get("/api/links", params={"ref": "gno://notes/deploy.md"}).json()
    out = {(x["uri"], x["edgeType"]) for x in body["links"]}
    assert ("gno://notes/rollback.md", "wiki") in out
    assert ("gno://notes/projects/runbook.md", "markdown") in out
    back = client.get("/api/backlinks", params={"ref": "gno://notes/deploy.md"}).json()
    assert "gno://notes/projects/runbook.md" in {x["uri"] for x in back["links"]}  # runbook links [[deploy#Rollback|…]]


def test_unknown_doc_is_the_api_error_envelope(client: TestClient) -> None:
    for path in ("/api/web/render", "/api/web/source"):
        r = client.get(path, params={"uri": "gno://notes/missing.md"})
        assert r.status_code == 404
        assert r.json()["error"]["code"] == "NOT_FOUND"


def test_source_is_the_file_on_disk_with_its_hash(client: TestClient, corpus: Path) -> None:
    r = client.get("/api/web/source", params={"uri": "gno://notes/deploy.md"})
    assert r.status_code == 200
    body = r.json()
    raw = (corpus / "deploy.md").read_bytes()
    assert body["sourceHash"] == hashlib.sha256(raw).hexdigest()
    assert body["content"] == raw.decode() and body["lineEnding"] == "\n" and body["editable"] is True
    doc = client.get("/api/doc", params={"uri": "gno://notes/deploy.md"}).json()
    assert doc["sourceHash"] == body["sourceHash"]


def test_editor_round_trip_keeps_crlf_and_refuses_stale_saves(client: TestClient, engine: Engine, corpus: Path) -> None:
    f = corpus / "rollback.md"
    f.write_bytes(b"# Rollback\r\n\r\nRun the revert job.\r\n")
    engine.update()
    src = client.get("/api/web/source", params={"uri": "gno://notes/rollback.md"}).json()
    assert src["lineEnding"] == "\r\n" and "\r" not in src["content"]
    edited = src["content"].replace("revert job", "revert job twice").replace("\n", src["lineEnding"])
    docid = src["docid"].lstrip("#")
    r = client.put(f"/api/docs/{docid}", json={"content": edited, "expectedSourceHash": src["sourceHash"]})
    assert r.status_code == 200, r.text
    assert f.read_bytes() == b"# Rollback\r\n\r\nRun the revert job twice.\r\n"
    new_docid = r.json()["docid"].lstrip("#")  # a docid follows the content
    r = client.put(f"/api/docs/{new_docid}", json={"content": "clobber", "expectedSourceHash": src["sourceHash"]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "CONFLICT"
    assert f.read_bytes() == b"# Rollback\r\n\r\nRun the revert job twice.\r\n"


def test_mixed_line_endings_are_read_only(client: TestClient, engine: Engine, corpus: Path) -> None:
    (corpus / "mixed.md").write_bytes(b"# Mixed\r\nline\nline\r\n")
    engine.update()
    body = client.get("/api/web/source", params={"uri": "gno://notes/mixed.md"}).json()
    assert body["editable"] is False and "CRLF" in body["reason"]


def test_foreign_origin_writes_are_refused(client: TestClient, corpus: Path) -> None:
    src = client.get("/api/web/source", params={"uri": "gno://notes/deploy.md"}).json()
    r = client.put(
        f"/api/docs/{src['docid'].lstrip('#')}",
        json={"content": "x", "expectedSourceHash": src["sourceHash"]},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "CSRF_VIOLATION"
    assert (corpus / "deploy.md").read_bytes().startswith(b"---\ntitle: Deploy process")
    r = client.post(
        "/api/capture",
        json={"content": "x", "collection": "notes", "title": "T"},
        headers={"Origin": "http://127.0.0.1:3000"},
    )
    assert r.status_code == 201


def test_static_files_revalidate_with_etag(client: TestClient) -> None:
    r = client.get("/static/app.js")
    etag = r.headers["etag"]
    again = client.get("/static/app.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/", headers={"If-None-Match": client.get("/").headers["etag"]}).status_code == 304


def test_the_note_view_is_rendered_on_the_server(client: TestClient) -> None:
    """markdown-it-py renders the note; raw HTML in it stays text; wiki links resolve like `gno links`."""
    r = client.get("/api/web/render", params={"uri": "gno://notes/deploy.md"})
    assert r.status_code == 200
    body = r.json()
    assert body["uri"] == "gno://notes/deploy.md" and body["headings"][0]["level"] == 1
    assert 'href="/doc?uri=gno%3A%2F%2Fnotes%2Frollback.md"' in body["html"]
    assert all(h["id"] for h in body["headings"])
    r = client.get("/api/web/render", params={"uri": "gno://notes/nope.md"})
    assert (r.status_code, r.json()["error"]["code"]) == (404, "NOT_FOUND")
