"""Real processes (issue 4): `gno mcp` over stdio, `gno serve` over HTTP, MCP Streamable HTTP.

(1) `gno mcp` driven by the official MCP SDK's stdio client: initialize, the read set, recall,
    WRITE_DISABLED without the write set, and with it (`--enable-write` or
    `GNO_MCP_ENABLE_WRITE=1`) a fact whose front matter carries the initialize client name and a
    `stdio:` session.
(2) `gno serve` on a free loopback port driven over real HTTP (httpx), including an MCP
    Streamable HTTP session at `/mcp`.
(3) Two MCP Streamable HTTP sessions get different `session` identities.
(4) Off loopback a token is required; without `Authorization: Bearer` → 401 UNAUTHORIZED.

Every server is stopped in `finally` (see `gno_serve`). Traffic only ever goes to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
from typing import Any

import httpx
import pytest

import gno
from gno.errors import ERROR_TABLE, ErrorCode

from .conftest import SCOPE, SurfaceEnv, gno_command, gno_serve, read_front_matter

READ_SET = {"gno_search", "gno_get", "gno_multi_get", "gno_ls", "gno_status", "gno_recall"}
WRITE_SET = {"gno_remember", "gno_capture", "gno_update"}
STDIO_CLIENT = "stdio-probe-client"
EVIL = "http://evil.example"


def _structured(res: Any) -> dict[str, Any]:
    sc = res.structured_content
    assert isinstance(sc, dict), res
    return sc


def _error_code(res: Any) -> str:
    assert res.is_error is True, res
    return str(_structured(res)["error"]["code"])


def _fact_front_matter(env: SurfaceEnv, record: dict[str, Any]) -> dict[str, Any]:
    uri = record["uri"]
    assert uri.startswith("gno://memory/"), uri
    path = env.memory / uri.removeprefix("gno://memory/")
    assert path.is_file(), path
    return read_front_matter(path)


# -- (1) gno mcp over stdio -----------------------------------------------------------------------


async def _stdio_session(env: SurfaceEnv, extra_args: list[str], extra_env: dict[str, str]) -> dict[str, Any]:
    """Start `gno mcp`, run the scripted exchange, return what each step answered."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp_types import Implementation

    # stdio clients start servers with a stripped environment: pass this test's gno home explicitly
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gno", "mcp", *extra_args],
        env={**env.gno_env(), **extra_env},
    )
    out: dict[str, Any] = {}
    with (env.tmp / "mcp-stdio.log").open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (r, w),
            ClientSession(r, w, client_info=Implementation(name=STDIO_CLIENT, version="1.0")) as sess,
        ):
            init = await sess.initialize()
            out["server_name"] = init.server_info.name
            out["tools"] = sorted(t.name for t in (await sess.list_tools()).tools)
            out["recall"] = await sess.call_tool("gno_recall", {"query": "staging deploys", "scopes": [SCOPE]})
            out["remember"] = await sess.call_tool(
                "gno_remember", {"text": "The stdio server remembers this", "scopes": [SCOPE], "decision": "add"}
            )
            out["search"] = await sess.call_tool("gno_search", {"query": "tuesdays"})
    return out


def test_gno_mcp_stdio_read_set_and_write_disabled(env: SurfaceEnv) -> None:
    fact = env.add_fact("Staging deploys happen on Mondays")
    before = env.fact_files()
    out = asyncio.run(_stdio_session(env, [], {}))

    assert out["server_name"] == "gno"
    tools = set(out["tools"])
    assert READ_SET <= tools, tools
    assert not tools & WRITE_SET, tools
    assert all(t.startswith("gno_") for t in tools)

    recall = out["recall"]
    assert recall.is_error is False, recall
    body = _structured(recall)
    assert [f["uri"] for f in body["facts"]] == [fact.uri]
    assert body["facts"][0]["contentHash"] == fact.content_hash
    assert body["retrieval"]["mode"] == "lexical"
    assert body["receipt"]["caller"] == STDIO_CLIENT
    assert body["receipt"]["session"].startswith("stdio:")

    assert _error_code(out["remember"]) == "WRITE_DISABLED"
    assert env.fact_files() == before

    search = out["search"]
    assert search.is_error is False
    assert "gno://notes/deploy.md" in [h["uri"] for h in _structured(search)["results"]]


@pytest.mark.parametrize(
    ("extra_args", "extra_env"),
    [(["--enable-write"], {}), ([], {"GNO_MCP_ENABLE_WRITE": "1"})],
    ids=["flag", "env"],
)
def test_gno_mcp_stdio_with_the_write_set(env: SurfaceEnv, extra_args: list[str], extra_env: dict[str, str]) -> None:
    env.add_fact("Staging deploys happen on Mondays")
    out = asyncio.run(_stdio_session(env, extra_args, extra_env))

    assert READ_SET | WRITE_SET <= set(out["tools"])
    res = out["remember"]
    assert res.is_error is False, res
    body = _structured(res)
    assert body["outcome"] == "added"
    rec = body["record"]
    assert rec["caller"] == STDIO_CLIENT
    assert rec["session"].startswith("stdio:")
    # the identity is the one the same server used for recall (one id per server instance)
    assert rec["session"] == _structured(out["recall"])["receipt"]["session"]

    fm = _fact_front_matter(env, rec)
    assert fm["memory"]["caller"] == STDIO_CLIENT
    assert fm["memory"]["session"].startswith("stdio:")
    assert fm["memory"]["session"] == rec["session"]
    assert fm["memory"]["contentHash"] == rec["contentHash"]
    # the index saw it: recall in-process finds the new fact
    assert rec["uri"] in [f.uri for f in env.recall("stdio server remembers").facts]


# -- (2) gno serve over real HTTP -----------------------------------------------------------------


async def _mcp_http(url: str, client_name: str, text: str, query: str, mode: str = "auto") -> dict[str, Any]:
    from mcp import Client
    from mcp_types import Implementation

    async with Client(url, mode=mode, client_info=Implementation(name=client_name, version="1.0")) as c:
        tools = sorted(t.name for t in (await c.list_tools()).tools)
        rem = await c.call_tool("gno_remember", {"text": text, "scopes": [SCOPE], "decision": "add"})
        rec = await c.call_tool("gno_recall", {"query": query, "scopes": [SCOPE]})
    return {"tools": tools, "remember": rem, "recall": rec}


def test_gno_serve_over_real_http(env: SurfaceEnv) -> None:
    with gno_serve(env.tmp, "--enable-write") as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        # health and OpenAPI
        r = http.get("/api/health")
        assert r.status_code == 200
        assert r.json() == {"ok": True, "version": gno.__version__}
        r = http.get("/openapi.json")
        assert r.status_code == 200
        paths = r.json()["paths"]
        for p in (
            "/api/health",
            "/api/status",
            "/api/collections",
            "/api/doc",
            "/api/search",
            "/api/memory/remember",
            "/api/memory/recall",
            "/api/capture",
        ):
            assert p in paths, p
        assert "put" in paths["/api/docs/{ref}"]

        # search
        r = http.post("/api/search", json={"query": "tuesdays"})
        assert r.status_code == 200, r.text
        assert [h["uri"] for h in r.json()["results"]] == ["gno://notes/deploy.md"]

        # remember: 201 written, 200 existing, 200 candidates
        fact = {"text": "Prod deploys run from main only", "scopes": [SCOPE], "caller": "http-agent", "session": "s1"}
        r = http.post("/api/memory/remember", json={**fact, "decision": "add"})
        assert r.status_code == 201, r.text
        added = r.json()
        assert added["outcome"] == "added"
        assert added["record"]["caller"] == "http-agent" and added["record"]["session"] == "s1"
        fm = _fact_front_matter(env, added["record"])
        assert (fm["memory"]["caller"], fm["memory"]["session"]) == ("http-agent", "s1")
        r = http.post("/api/memory/remember", json={**fact, "decision": "add"})
        assert r.status_code == 200 and r.json()["outcome"] == "existing", r.text
        r = http.post("/api/memory/remember", json={**fact, "text": "Prod deploys run from release tags"})
        assert r.status_code == 200 and r.json()["outcome"] == "candidates", r.text

        # recall
        r = http.post(
            "/api/memory/recall", json={"query": "prod deploys", "scopes": [SCOPE], "caller": "c", "session": "s"}
        )
        assert r.status_code == 200, r.text
        assert [(f["uri"], f["contentHash"]) for f in r.json()["facts"]] == [
            (added["record"]["uri"], added["record"]["contentHash"])
        ]

        # capture: 201 created, then readable at once; open_existing answers 200
        cap = {"content": "Captured over HTTP", "collection": "notes", "title": "HTTP capture"}
        r = http.post("/api/capture", json=cap)
        assert r.status_code == 201, r.text
        captured = r.json()
        assert captured["outcome"] == "created"
        assert captured["uri"] == "gno://notes/inbox/" + captured["relPath"].removeprefix("inbox/")
        r = http.get("/api/doc", params={"uri": captured["uri"]})
        assert r.status_code == 200 and "Captured over HTTP" in r.json()["content"]
        r = http.post("/api/capture", json={**cap, "collisionPolicy": "open_existing"})
        assert r.status_code == 200 and r.json()["outcome"] == "opened_existing", r.text
        r = http.post("/api/capture", json=cap)
        assert r.status_code == 409 and r.json()["error"]["code"] == "DUPLICATE", r.text

        # edit: PUT /api/docs/{docid without #}: right hash 200, stale hash 409 CONFLICT
        doc = http.get("/api/doc", params={"uri": "notes/deploy.md"}).json()
        path = env.notes / "deploy.md"
        old_hash = hashlib.sha256(path.read_bytes()).hexdigest()
        assert doc["sourceHash"] == old_hash
        new_text = "# Deploys\n\nWe deploy on Thursdays now.\n"
        r = http.put(
            f"/api/docs/{doc['docid'].removeprefix('#')}",
            json={"content": new_text, "expectedSourceHash": old_hash},
        )
        assert r.status_code == 200, r.text
        upd = r.json()
        assert path.read_text(encoding="utf-8") == new_text
        new_hash = hashlib.sha256(new_text.encode()).hexdigest()
        assert (upd["previousSourceHash"], upd["sourceHash"]) == (old_hash, new_hash)
        r = http.post("/api/search", json={"query": "thursdays"})  # re-indexed before the response
        assert [h["uri"] for h in r.json()["results"]] == ["gno://notes/deploy.md"]
        # the docid follows the content (`#` + 8 hex of sourceHash): address the note as it is now
        assert upd["docid"] == "#" + new_hash[:8]
        for doc_id in (upd["docid"].removeprefix("#"), "notes/deploy.md"):
            r = http.put(
                f"/api/docs/{doc_id}",
                json={"content": "# Deploys\n\nLost update.\n", "expectedSourceHash": old_hash},
            )
            assert r.status_code == ERROR_TABLE[ErrorCode.CONFLICT].http_status == 409, r.text
            assert r.json()["error"]["code"] == "CONFLICT"
            assert r.json()["error"]["details"]["currentSourceHash"] == new_hash
        assert path.read_text(encoding="utf-8") == new_text

        # CSRF: a state-changing request from a foreign Origin is refused and writes nothing
        n_facts = len(env.fact_files())
        r = http.post(
            "/api/memory/remember",
            json={**fact, "text": "Forged fact", "decision": "add"},
            headers={"Origin": EVIL},
        )
        assert r.status_code == 403, r.text
        assert r.json()["error"]["code"] == "CSRF_VIOLATION"
        r = http.post("/api/capture", json={**cap, "title": "Forged"}, headers={"Origin": EVIL})
        assert r.status_code == 403 and r.json()["error"]["code"] == "CSRF_VIOLATION"
        r = http.post("/mcp", json={}, headers={"Origin": EVIL})
        assert r.status_code == 403 and r.json()["error"]["code"] == "CSRF_VIOLATION"
        assert len(env.fact_files()) == n_facts
        assert list(env.notes.rglob("forged*.md")) == []
        # a same-origin write is fine
        r = http.post(
            "/api/memory/remember",
            json={**fact, "text": "Same-origin fact", "decision": "add"},
            headers={"Origin": srv.url},
        )
        assert r.status_code == 201, r.text

        # MCP Streamable HTTP inside the same server
        out = asyncio.run(_mcp_http(f"{srv.url}/mcp", "http-mcp-client", "Streamable HTTP fact about queues", "queues"))
        assert READ_SET | WRITE_SET <= set(out["tools"])
        rem = out["remember"]
        assert rem.is_error is False, rem
        rec = _structured(rem)["record"]
        assert rec["caller"] == "http-mcp-client"
        assert rec["session"]
        fm = _fact_front_matter(env, rec)
        assert fm["memory"]["caller"] == "http-mcp-client"
        assert fm["memory"]["session"] == rec["session"]
        recall = _structured(out["recall"])
        assert [f["uri"] for f in recall["facts"]] == [rec["uri"]]
        assert srv.proc.poll() is None


def test_gno_serve_without_enable_write_refuses_mcp_writes(env: SurfaceEnv) -> None:
    with gno_serve(env.tmp) as srv:
        out = asyncio.run(_mcp_http(f"{srv.url}/mcp", "ro-client", "Not stored", "stored"))
    assert not set(out["tools"]) & WRITE_SET
    assert _error_code(out["remember"]) == "WRITE_DISABLED"
    assert env.fact_files() == []


# -- (3) two MCP sessions, two identities ---------------------------------------------------------


@pytest.mark.parametrize(
    "mode",
    [
        "legacy",
        "auto",
    ],
)
def test_two_mcp_http_sessions_get_different_session_identities(env: SurfaceEnv, mode: str) -> None:
    with gno_serve(env.tmp, "--enable-write") as srv:
        a = asyncio.run(_mcp_http(f"{srv.url}/mcp", "agent-a", "Agent A fact about kettles", "kettles", mode))
        b = asyncio.run(_mcp_http(f"{srv.url}/mcp", "agent-b", "Agent B fact about teapots", "teapots", mode))
    ra, rb = _structured(a["remember"])["record"], _structured(b["remember"])["record"]
    fa, fb = _fact_front_matter(env, ra)["memory"], _fact_front_matter(env, rb)["memory"]
    assert (fa["caller"], fb["caller"]) == ("agent-a", "agent-b")
    assert fa["session"] and fb["session"]
    assert fa["session"] != fb["session"]
    # within one session, recall's receipt carries the same session as the fact it wrote
    assert _structured(a["recall"])["receipt"]["session"] == fa["session"]
    assert _structured(b["recall"])["receipt"]["session"] == fb["session"]


# -- (4) off loopback: a token is required ------------------------------------------------------


def test_gno_serve_off_loopback_without_token_file_exits_1(env: SurfaceEnv) -> None:
    r = subprocess.run(
        gno_command("serve", "--host", "0.0.0.0", "--port", "0"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "--token-file" in r.stderr
    assert "0.0.0.0" in r.stderr
    assert "Traceback" not in r.stderr


def test_gno_serve_with_an_empty_token_file_exits_1(env: SurfaceEnv) -> None:
    token = env.tmp / "token"
    token.write_text("\n", encoding="utf-8")
    r = subprocess.run(
        gno_command("serve", "--host", "0.0.0.0", "--port", "0", "--token-file", str(token)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "empty" in r.stderr


def test_gno_serve_off_loopback_requires_the_bearer_token(env: SurfaceEnv) -> None:
    secret = "s3cret-" + hashlib.sha256(str(env.tmp).encode()).hexdigest()[:16]
    token_file = env.tmp / "token"
    token_file.write_text(secret + "\n", encoding="utf-8")
    with (
        gno_serve(env.tmp, "--host", "0.0.0.0", "--token-file", str(token_file)) as srv,
        httpx.Client(base_url=srv.url, timeout=30) as http,
    ):
        assert http.get("/api/health").status_code == 200  # liveness stays open
        unauthorized = ERROR_TABLE[ErrorCode.UNAUTHORIZED].http_status
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": secret}):
            r = http.get("/api/status", headers=headers)
            assert r.status_code == unauthorized == 401, (headers, r.text)
            assert r.json()["error"]["code"] == "UNAUTHORIZED"
        r = http.post("/api/memory/remember", json={"text": "x", "scopes": [SCOPE], "decision": "add"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "UNAUTHORIZED"
        r = http.post("/mcp", json={})
        assert r.status_code == 401 and r.json()["error"]["code"] == "UNAUTHORIZED"
        assert env.fact_files() == []

        auth = {"Authorization": f"Bearer {secret}"}
        r = http.get("/api/status", headers=auth)
        assert r.status_code == 200, r.text
        assert {c["name"] for c in r.json()["collections"]} == {"memory", "notes"}
        with gno.Client.connect(srv.url, token=secret) as client:
            assert client.status().documents == r.json()["documents"]
        with gno.Client.connect(srv.url) as client, pytest.raises(gno.AuthError) as ei:
            client.status()
        assert ei.value.code == ErrorCode.UNAUTHORIZED
