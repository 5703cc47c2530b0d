"""Positive parity across the four surfaces, and writes fenced across them.

One recall gives the same facts (whole objects, scores included) on the CLI, MCP, REST and both SDK
transports; a recall receipt taken on one surface fences `remember` on every other (MCP receipt →
CLI, CLI receipt → MCP / REST / SDK); an edit by the docid that was read loses to a newer write
(CONFLICT, the newer bytes kept); the MCP write set is listed only with --enable-write.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gno.errors import ERROR_TABLE, ErrorCode, GnoError, error_class_for

from .conftest import CALLER, MCP_CLIENT_NAME, SCOPE, SESSION, CliRun, McpDriver, SurfaceEnv
from .drive import Call, expect_envelope, expect_error


def _seed_facts(env: SurfaceEnv) -> list[str]:
    uris = [
        env.add_fact("Prod deploys run from the main branch only").uri,
        env.add_fact("Staging deploys happen on Mondays").uri,
        env.add_fact("The deploy pipeline posts to the releases channel").uri,
        env.add_fact("Lunch is at noon", scopes=["team:social"]).uri,
    ]
    return uris


def test_recall_is_the_same_object_on_every_surface(
    env: SurfaceEnv, cli: CliRun, mcp_rw: McpDriver, rest: Any, sdk_local: Any, sdk_remote: Any
) -> None:
    uris = _seed_facts(env)
    q = "deploys"
    results: dict[str, dict[str, Any]] = {}

    r = cli("recall", "--json", "--caller", CALLER, "--session", SESSION, "-s", SCOPE, "--", q)
    assert r.exit_code == 0, r.stdout
    results["cli"] = r.json
    out = mcp_rw.call("gno_recall", {"query": q, "scopes": [SCOPE]})
    assert out.is_error is False, out
    assert out.structured is not None
    results["mcp"] = out.structured
    resp = rest.post("/api/memory/recall", json={"query": q, "scopes": [SCOPE], "caller": CALLER, "session": SESSION})
    assert resp.status_code == 200, resp.text
    results["rest"] = resp.json()
    results["sdk_local"] = sdk_local.recall(q, scopes=[SCOPE]).dump()
    results["sdk_remote"] = sdk_remote.recall(q, scopes=[SCOPE]).dump()

    ref = results["sdk_local"]
    # the three deploy facts of the scope; the fact in another scope is never recalled
    assert sorted(f["uri"] for f in ref["facts"]) == sorted(uris[:3])
    for surface, res in results.items():
        assert [(f["uri"], f["contentHash"]) for f in res["facts"]] == [
            (f["uri"], f["contentHash"]) for f in ref["facts"]
        ], surface
        assert res["facts"] == ref["facts"], surface  # the whole fact objects, scores included
        assert res["budget"] == ref["budget"], surface
        assert res["retrieval"]["mode"] == "lexical", surface
        assert res.get("hint") == ref.get("hint"), surface
        if surface != "mcp":  # MCP says why it is lexical in its own words (no model per call)
            assert res["retrieval"] == ref["retrieval"], surface
        for key in ("memoryIds", "spanHashes"):
            assert res["receipt"][key] == ref["receipt"][key], (surface, key)
    # identity: REST/SDK carry the request's; MCP takes it from the connection, never from arguments
    for surface in ("cli", "rest", "sdk_local", "sdk_remote"):
        assert (results[surface]["receipt"]["caller"], results[surface]["receipt"]["session"]) == (
            CALLER,
            SESSION,
        ), surface
    assert results["mcp"]["receipt"]["caller"] == MCP_CLIENT_NAME
    assert results["mcp"]["receipt"]["session"] == "test"


def test_an_mcp_receipt_fences_cli_remember(env: SurfaceEnv, cli: CliRun, mcp_rw: McpDriver) -> None:
    fact = env.add_fact("Staging deploys happen on Mondays")
    out = mcp_rw.call("gno_recall", {"query": "staging deploys", "scopes": [SCOPE]})
    assert out.is_error is False and out.structured is not None
    assert [f["uri"] for f in out.structured["facts"]] == [fact.uri]
    before = env.fact_files()
    for name, payload in (("whole", out.structured), ("receipt-only", out.structured["receipt"])):
        f = env.tmp / f"mcp-{name}.json"
        f.write_text(json.dumps(payload), encoding="utf-8")
        r = cli("remember", "--json", "-s", SCOPE, "--add", "--receipt", str(f), "--", fact.text)
        assert r.exit_code == ERROR_TABLE[ErrorCode.MEMORY_FENCED_REPLAY].exit_code, r.stdout
        assert r.error_code == "MEMORY_FENCED_REPLAY", name
        assert r.json["error"]["details"]["receiptDigest"] == out.structured["receipt"]["digest"]
    assert env.fact_files() == before


@pytest.mark.parametrize("surface", ["cli", "mcp", "rest", "sdk_local", "sdk_remote"])
def test_a_cli_receipt_fences_every_surface(
    surface: str, env: SurfaceEnv, cli: CliRun, request: pytest.FixtureRequest
) -> None:
    fact = env.add_fact("Staging deploys happen on Mondays")
    r = cli("recall", "--json", "-s", SCOPE, "--", "staging deploys")
    assert r.exit_code == 0, r.stdout
    saved = r.json
    assert [f["uri"] for f in saved["facts"]] == [fact.uri]
    receipt = saved["receipt"]
    before = env.fact_files()
    code = ErrorCode.MEMORY_FENCED_REPLAY
    if surface == "cli":
        f = env.tmp / "cli-recall.json"
        f.write_text(r.stdout, encoding="utf-8")
        out = cli("remember", "--json", "-s", SCOPE, "--add", "--receipt", str(f), "--", fact.text)
        assert out.exit_code == ERROR_TABLE[code].exit_code
        body = out.json
    elif surface == "mcp":
        mcp: McpDriver = request.getfixturevalue("mcp_rw")
        res = mcp.call("gno_remember", {"text": fact.text, "scopes": [SCOPE], "decision": "add", "receipt": receipt})
        assert res.is_error is True
        body = res.structured
    elif surface == "rest":
        rest = request.getfixturevalue("rest")
        resp = rest.post(
            "/api/memory/remember",
            json={
                "text": fact.text,
                "scopes": [SCOPE],
                "decision": "add",
                "receipt": receipt,
                "caller": "rest-agent",
                "session": "rest-session",
            },
        )
        assert resp.status_code == ERROR_TABLE[code].http_status
        body = resp.json()
    else:
        client = request.getfixturevalue(surface)
        with pytest.raises(GnoError) as ei:
            client.remember(fact.text, scopes=[SCOPE], decision="add", receipt=receipt)
        assert type(ei.value) is error_class_for(code)
        body = ei.value.to_body()
    expect_envelope(body, code)
    assert body["error"]["details"]["receiptDigest"] == receipt["digest"]
    assert env.fact_files() == before


@pytest.mark.parametrize("surface", ["rest", "sdk_local", "sdk_remote"])
def test_a_lost_update_by_the_docid_that_was_read_is_a_conflict(
    surface: str, env: SurfaceEnv, request: pytest.FixtureRequest
) -> None:
    read = env.engine.get("notes/deploy.md")  # writer A reads the note
    (env.notes / "deploy.md").write_text("# Deploys\n\nWriter B was here.\n", encoding="utf-8")
    env.engine.update()  # writer B's change is indexed
    args = {"ref": read.docid, "content": "# Deploys\n\nWriter A.\n", "expected_source_hash": read.source_hash}
    expect_error(surface, Call("update_doc", args), ErrorCode.CONFLICT, request)
    assert (env.notes / "deploy.md").read_text(encoding="utf-8") == "# Deploys\n\nWriter B was here.\n"


def test_the_write_set_is_listed_only_with_enable_write(mcp_rw: McpDriver, mcp_ro: McpDriver) -> None:
    read = {"gno_search", "gno_get", "gno_multi_get", "gno_ls", "gno_status", "gno_recall"}
    write = {
        "gno_remember",
        "gno_capture",
        "gno_update",
        "gno_context_add",
        "gno_context_rm",
        "gno_tags_add",
        "gno_tags_rm",
        "gno_collection_rename",
    }
    ro, rw = set(mcp_ro.list_tools()), set(mcp_rw.list_tools())
    assert read <= ro and not ro & write
    assert read | write <= rw
    assert rw - ro == write


def test_context_hints_are_edited_on_any_surface_and_ride_along_on_every_one(
    env: SurfaceEnv, cli: CliRun, mcp_rw: McpDriver, rest: Any, sdk_local: Any, sdk_remote: Any
) -> None:
    assert cli("context", "add", "--json", "--", "/", "The team vault").exit_code == 0
    out = mcp_rw.call("gno_context_add", {"scope": "notes:", "text": "Runbooks and decisions"})
    assert out.is_error is False and out.structured is not None and out.structured["added"] is True
    resp = rest.post("/api/contexts", json={"scope": "gno://notes/deploy.md", "text": "The deploy runbook"})
    assert resp.status_code == 200, resp.text
    sdk_remote.context_add("gno://notes/archive", "Retired notes")
    listed = sdk_local.context_list().dump()
    assert [c["scopeKey"] for c in listed["contexts"]] == ["/", "notes:", "gno://notes/deploy.md", "gno://notes/archive"]
    assert rest.get("/api/contexts").json() == listed
    want = ["The team vault", "Runbooks and decisions", "The deploy runbook"]
    hits = {
        "cli": cli("search", "--json", "--", "deploy").json["results"],
        "mcp": (mcp_rw.call("gno_search", {"query": "deploy"}).structured or {})["results"],
        "rest": rest.post("/api/search", json={"query": "deploy"}).json()["results"],
        "sdk_local": sdk_local.search("deploy").dump()["results"],
        "sdk_remote": sdk_remote.search("deploy").dump()["results"],
    }
    for surface, results in hits.items():
        by_path = {h["relPath"]: h.get("context") for h in results}
        assert by_path["deploy.md"] == want, surface
    assert rest.get("/api/contexts/check").json()["ok"] is False  # the archive prefix holds no note
    gone = rest.request("DELETE", "/api/contexts", json={"scope": "gno://notes/archive"})
    assert gone.status_code == 200 and gone.json()["removed"][0]["text"] == "Retired notes"
    assert sdk_remote.context_check().ok
