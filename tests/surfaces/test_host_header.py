"""DNS rebinding: `gno serve` (a real process) answers only to allowed Host names, on every route.

A page on `evil.example` that rebinds its name to 127.0.0.1 reaches the server with
`Host: evil.example:<port>`; every route — REST reads and writes, the Web UI, `/mcp`, the
OpenAPI document and `/docs` — must answer 421 with the error envelope and write nothing.
Loopback names pass; `--allowed-host` adds names. `/docs` is served without any CDN and sits
behind the token; the stock `/redoc` page is off. Off loopback, both servers warn about plain HTTP.
"""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from gno.errors import ERROR_TABLE, ErrorCode
from gno.serving.host_origin import HostRule, split_host

from .conftest import SurfaceEnv, gno_serve

EVIL_HOST = "evil.example"
MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _requests(port: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, httpx kwargs) covering each kind of route the server has."""
    capture = {"content": "Rebinding capture", "collection": "notes", "title": "Rebound"}
    return [
        ("GET", "/api/status", {}),
        ("GET", "/api/doc?uri=notes/deploy.md", {}),
        ("POST", "/api/search", {"json": {"query": "tuesdays"}}),
        ("POST", "/api/capture", {"json": capture, "headers": {"Origin": f"http://{EVIL_HOST}:{port}"}}),
        ("POST", "/api/capture", {"json": capture}),
        ("GET", "/", {}),
        ("GET", "/static/app.js", {}),
        ("GET", "/openapi.json", {}),
        ("GET", "/docs", {}),
        ("POST", "/mcp", {"json": MCP_INIT, "headers": MCP_HEADERS}),
        ("GET", "/api/health", {}),
    ]


def _send(http: httpx.Client, method: str, path: str, host: str, kw: dict[str, Any]) -> httpx.Response:
    headers = {**kw.get("headers", {}), "Host": host}
    return http.request(method, path, json=kw.get("json"), headers=headers)


def test_rebinding_host_is_refused_on_every_route(env: SurfaceEnv) -> None:
    with gno_serve(env.tmp, "--enable-write") as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        misdirected = ERROR_TABLE[ErrorCode.HOST_NOT_ALLOWED].http_status
        assert misdirected == 421
        for method, path, kw in _requests(srv.port):
            for host in (f"{EVIL_HOST}:{srv.port}", EVIL_HOST, f"127.0.0.1.{EVIL_HOST}:{srv.port}", ""):
                r = _send(http, method, path, host, kw)
                assert r.status_code == 421, (method, path, host, r.status_code, r.text)
                err = r.json()["error"]
                assert err["code"] == "HOST_NOT_ALLOWED", err
                assert "--allowed-host" in err["message"] and set(err) == {"code", "message", "details"}
        assert list(env.notes.rglob("rebound*.md")) == []

        # loopback names are the default allowlist, on every route
        for method, path, kw in _requests(srv.port):
            if path == "/api/capture":
                continue
            for host in (f"127.0.0.1:{srv.port}", f"localhost:{srv.port}", f"[::1]:{srv.port}", "LOCALHOST"):
                r = _send(http, method, path, host, kw)
                assert r.status_code in (200, 201), (method, path, host, r.status_code, r.text)
        local = {"json": {"content": "ok", "collection": "notes", "title": "Local"}}
        r = _send(http, "POST", "/api/capture", f"localhost:{srv.port}", local)
        assert r.status_code == 201, r.text


def test_allowed_host_adds_names_to_the_one_rule(env: SurfaceEnv) -> None:
    args = ("--allowed-host", "notes.lan", "--allowed-host", ".corp.example")
    with gno_serve(env.tmp, *args) as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        for method, path, kw in _requests(srv.port):
            if path == "/api/capture":
                continue
            for host in (f"notes.lan:{srv.port}", "gno.corp.example", "corp.example"):
                r = _send(http, method, path, host, kw)
                assert r.status_code == 200, (method, path, host, r.text)
            r = _send(http, method, path, f"{EVIL_HOST}:{srv.port}", kw)
            assert r.status_code == 421 and r.json()["error"]["code"] == "HOST_NOT_ALLOWED", (path, r.text)
            r = _send(http, method, path, "notcorp.example", kw)
            assert r.status_code == 421, (path, r.text)


def test_docs_are_offline_and_behind_the_token(env: SurfaceEnv) -> None:
    secret = "tok-" + hashlib.sha256(str(env.tmp).encode()).hexdigest()[:20]
    token_file = env.tmp / "token"
    token_file.write_text(secret, encoding="utf-8")
    with gno_serve(env.tmp, "--token-file", str(token_file)) as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        r = http.get("/docs")
        assert r.status_code == 401 and r.json()["error"]["code"] == "UNAUTHORIZED"
        r = http.get("/docs", headers={"Authorization": f"Bearer {secret}"})
        assert r.status_code == 200, r.text
        page = r.text
        assert "/api/status" in page and "/api/search" in page and "<code>tagsAny</code>" in page  # body fields listed
        assert "<script" not in page.lower() and "cdn" not in page.lower()
        assert "https://" not in page and "http://" not in page
        assert "default-src 'none'" in r.headers["content-security-policy"]
        assert http.get("/redoc", headers={"Authorization": f"Bearer {secret}"}).status_code == 404
        # the Web UI shell stays public (its API calls carry the token), docs do not
        assert http.get("/").status_code == 200


@pytest.mark.parametrize(
    ("header", "allowed"),
    [
        ("127.0.0.1:3000", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("app.localhost:3000", True),
        ("localhost.:3000", True),
        ("[::1]:3000", True),
        ("evil.example:3000", False),
        ("localhost.evil.example", False),
        ("127.0.0.1.nip.io", False),
        ("[::ffff:8.8.8.8]:3000", False),
        ("10.0.0.5:3000", False),
        ("", False),
        (None, False),
    ],
)
def test_default_rule(header: str | None, allowed: bool) -> None:
    assert HostRule.build("127.0.0.1").allows(header) is allowed


def test_rule_extras_and_bind_address() -> None:
    rule = HostRule.build("10.0.0.5", ["notes.lan", "box:8443", ".corp.example"])
    assert rule.allows("10.0.0.5:3000") and rule.allows("notes.lan:1") and rule.allows("NOTES.LAN")
    assert rule.allows("box:8443") and not rule.allows("box:3000")
    assert rule.allows("a.b.corp.example") and not rule.allows("evilcorp.example")
    assert not HostRule.build("0.0.0.0").allows("0.0.0.0:3000")
    assert HostRule.build("127.0.0.1", ["*"]).allows("anything.example")
    assert split_host("[::1]:80") == ("::1", 80) and split_host("Example.COM.:8080") == ("example.com", 8080)


def test_off_loopback_servers_warn_about_plain_http(env: SurfaceEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    from gno.cli.main import cli

    token_file = env.tmp / "tok"
    token_file.write_text("t0k3n-value", encoding="utf-8")
    with gno_serve(env.tmp, "--host", "0.0.0.0", "--token-file", str(token_file)) as srv:
        pass
    out = srv.output()
    assert "plain HTTP" in out and "--allowed-host" in out

    calls: list[tuple[str, tuple[str, ...]]] = []
    monkeypatch.setattr(
        "gno.service.compose.serve", lambda settings, *, host, allowed_hosts, **_: calls.append((host, allowed_hosts))
    )
    res = CliRunner().invoke(cli, ["service", "serve", "--host", "0.0.0.0", "--port", "1"])
    assert res.exit_code == 0, res.output
    assert calls == [("0.0.0.0", ())] and "plain HTTP" in res.output and "--allowed-host" in res.output
    res = CliRunner().invoke(cli, ["service", "serve", "--port", "1"])
    assert "plain HTTP" not in res.output
