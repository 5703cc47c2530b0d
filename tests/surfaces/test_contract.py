"""Four surfaces, one contract (issue 4): every reachable error code, the same on every surface.

ONE parametrised table drives (capability, bad input, expected code) through:

- CLI   `gno … --json` via click's runner: exit code = ERROR_TABLE[code].exit_code, stdout envelope code;
- MCP   the SDK's in-memory client: `isError` and structured content `{"error": {code, message, details}}`;
- REST  the ASGI app: status = ERROR_TABLE[code].http_status, body envelope code;
- SDK   `gno.Client.open()` and `gno.Client.connect(url)`: raises `error_class_for(code)` with `.code`.

A combination a surface cannot express is skipped *in the table*, with the reason. Then positive
parity: one recall gives the same facts everywhere, and recall receipts fence `remember` across
surfaces (MCP receipt → CLI, CLI receipt → MCP / REST / SDK).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gno.errors import ERROR_TABLE, ErrorCode, GnoError, error_class_for

from .conftest import CALLER, MCP_CLIENT_NAME, SCOPE, SESSION, CliRun, McpDriver, SurfaceEnv

SURFACES = ("cli", "mcp", "rest", "sdk_local", "sdk_remote")
STALE_HASH = "0" * 64
MISSING_FACT = "gno://memory/facts/2020-01-01/mem-0000000000000000.md"

NO_CLI_EDIT = "no CLI command edits a note (update_doc is REST/SDK only)"
NO_MCP_EDIT = "no MCP tool edits a note (the write set is gno_remember, gno_capture, gno_update)"
DECISION_CLI = "`--decision` is a click.Choice(add|supersede): a bad value is a usage error before the engine"
MCP_ONLY_GATE = "the write gate (--enable-write) exists on MCP only"


# -- the table ------------------------------------------------------------------------------------

Setup = Callable[[SurfaceEnv], dict[str, Any]]


@dataclass(frozen=True)
class Case:
    capability: str  # search | get | recall | remember | capture | update_doc
    code: ErrorCode
    args: dict[str, Any]
    setup: Setup | None = None
    skip: dict[str, str] = field(default_factory=dict)
    xfail: dict[str, str] = field(default_factory=dict)
    read_only_mcp: bool = False  # drive MCP through the server built without --enable-write
    label: str = ""

    @property
    def id(self) -> str:
        return f"{self.capability}-{self.label or self.code}"


def _hash_mismatch(env: SurfaceEnv) -> dict[str, Any]:
    old = env.add_fact("Staging deploys happen on Mondays")
    return {"predecessor_uri": old.uri, "predecessor_hash": STALE_HASH}


def _supersede_conflict(env: SurfaceEnv) -> dict[str, Any]:
    old = env.add_fact("Staging deploys happen on Mondays")
    env.supersede(old, "Staging deploys happen on Wednesdays")
    return {"predecessor_uri": old.uri, "predecessor_hash": old.content_hash}


def _fenced_replay(env: SurfaceEnv) -> dict[str, Any]:
    fact = env.add_fact("Staging deploys happen on Mondays")
    rec = env.recall("staging deploys")
    assert [f.uri for f in rec.facts] == [fact.uri]
    return {"text": fact.text, "receipt": rec.dump()["receipt"]}


def _stale_edit(env: SurfaceEnv) -> dict[str, Any]:
    doc = env.engine.get("notes/deploy.md")
    return {"ref": doc.docid}


CASES: list[Case] = [
    # search
    Case("search", ErrorCode.INVALID_QUERY, {"query": "-onlyneg"}),
    Case("search", ErrorCode.COLLECTION_NOT_FOUND, {"query": "deploy", "collection": "nope"}),
    # get
    Case("get", ErrorCode.NOT_FOUND, {"ref": "notes/missing.md"}),
    Case("get", ErrorCode.INVALID_REF, {"ref": "#zz"}),
    # recall
    Case("recall", ErrorCode.MEMORY_SCOPES_REQUIRED, {"query": "deploys", "scopes": []}),
    Case("recall", ErrorCode.MEMORY_SCOPES_INVALID, {"query": "deploys", "scopes": ["!bad scope"]}),
    Case("recall", ErrorCode.MEMORY_QUERY_REQUIRED, {"query": "   ", "scopes": [SCOPE]}),
    Case("recall", ErrorCode.MEMORY_BUDGET_INVALID, {"query": "deploys", "scopes": [SCOPE], "max_facts": 0}),
    Case(
        "recall",
        ErrorCode.MEMORY_COLLECTION_UNMANAGED,
        {"query": "deploys", "scopes": [SCOPE], "collection": "notes"},
    ),
    Case(
        "recall",
        ErrorCode.MEMORY_COLLECTION_NOT_FOUND,
        {"query": "deploys", "scopes": [SCOPE], "collection": "nope"},
    ),
    # remember
    Case("remember", ErrorCode.MEMORY_TEXT_REQUIRED, {"text": "   ", "scopes": [SCOPE], "decision": "add"}),
    Case(
        "remember",
        ErrorCode.MEMORY_TEXT_TOO_LARGE,
        {"text": "word " * 1000, "scopes": [SCOPE], "decision": "add"},
    ),
    Case("remember", ErrorCode.MEMORY_SCOPES_REQUIRED, {"text": "A new fact", "scopes": [], "decision": "add"}),
    Case(
        "remember",
        ErrorCode.MEMORY_DECISION_INVALID,
        {"text": "A new fact", "scopes": [SCOPE], "decision": "maybe"},
        skip={"cli": DECISION_CLI},
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_PREDECESSOR_REQUIRED,
        {"text": "A new fact", "scopes": [SCOPE], "decision": "supersede"},
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND,
        {
            "text": "A new fact",
            "scopes": [SCOPE],
            "decision": "supersede",
            "predecessor_uri": MISSING_FACT,
            "predecessor_hash": STALE_HASH,
        },
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_PREDECESSOR_HASH_MISMATCH,
        {"text": "Staging deploys happen on Fridays", "scopes": [SCOPE], "decision": "supersede"},
        setup=_hash_mismatch,
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_SUPERSEDE_CONFLICT,
        {"text": "Staging deploys happen on Fridays", "scopes": [SCOPE], "decision": "supersede"},
        setup=_supersede_conflict,
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_FENCED_REPLAY,
        {"scopes": [SCOPE], "decision": "add"},
        setup=_fenced_replay,
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_FENCED_DERIVED,
        {
            "text": "We deploy on Tuesdays",
            "scopes": [SCOPE],
            "decision": "add",
            "derived_from": ["gno://notes/deploy.md"],
        },
    ),
    Case(
        "remember",
        ErrorCode.MEMORY_COLLECTION_UNMANAGED,
        {"text": "A new fact", "scopes": [SCOPE], "decision": "add", "collection": "notes"},
    ),
    Case(
        "remember",
        ErrorCode.WRITE_DISABLED,
        {"text": "A new fact", "scopes": [SCOPE], "decision": "add"},
        read_only_mcp=True,
        skip=dict.fromkeys(("cli", "rest", "sdk_local", "sdk_remote"), MCP_ONLY_GATE),
    ),
    # capture
    Case(
        "capture",
        ErrorCode.DUPLICATE,
        {"content": "Another deploy note", "collection": "notes", "path": "deploy.md", "collision_policy": "error"},
    ),
    Case("capture", ErrorCode.VALIDATION, {"content": "   ", "collection": "notes"}, label="empty-content"),
    Case(
        "capture",
        ErrorCode.WRITE_DISABLED,
        {"content": "A note", "collection": "notes"},
        read_only_mcp=True,
        skip=dict.fromkeys(("cli", "rest", "sdk_local", "sdk_remote"), MCP_ONLY_GATE),
    ),
    # update_doc (edit a note)
    Case(
        "update_doc",
        ErrorCode.CONFLICT,
        {"content": "# Deploys\n\nChanged.\n", "expected_source_hash": STALE_HASH},
        setup=_stale_edit,
        skip={"cli": NO_CLI_EDIT, "mcp": NO_MCP_EDIT},
    ),
    Case(
        "update_doc",
        ErrorCode.NOT_FOUND,
        {"ref": "#0badc0de", "content": "# Nope\n", "expected_source_hash": STALE_HASH},
        skip={"cli": NO_CLI_EDIT, "mcp": NO_MCP_EDIT},
    ),
]


def _params() -> list[Any]:
    out = []
    for case in CASES:
        for surface in SURFACES:
            marks: list[Any] = []
            if surface in case.skip:
                marks.append(pytest.mark.skip(reason=case.skip[surface]))
            elif surface in case.xfail:
                marks.append(pytest.mark.xfail(strict=True, reason=case.xfail[surface]))
            out.append(pytest.param(case, surface, id=f"{case.id}-{surface}", marks=marks))
    return out


def test_every_code_in_the_table_is_a_real_code_with_a_mapping() -> None:
    for case in CASES:
        assert case.code in ERROR_TABLE
    # each capability's table covers the codes the brief names for it
    by_cap: dict[str, set[str]] = {}
    for case in CASES:
        by_cap.setdefault(case.capability, set()).add(str(case.code))
    assert by_cap["search"] == {"INVALID_QUERY", "COLLECTION_NOT_FOUND"}
    assert by_cap["get"] == {"NOT_FOUND", "INVALID_REF"}
    assert by_cap["update_doc"] == {"CONFLICT", "NOT_FOUND"}
    assert by_cap["capture"] == {"DUPLICATE", "VALIDATION", "WRITE_DISABLED"}
    assert by_cap["recall"] == {
        "MEMORY_SCOPES_REQUIRED",
        "MEMORY_SCOPES_INVALID",
        "MEMORY_QUERY_REQUIRED",
        "MEMORY_BUDGET_INVALID",
        "MEMORY_COLLECTION_UNMANAGED",
        "MEMORY_COLLECTION_NOT_FOUND",
    }
    assert by_cap["remember"] == {
        "MEMORY_TEXT_REQUIRED",
        "MEMORY_TEXT_TOO_LARGE",
        "MEMORY_SCOPES_REQUIRED",
        "MEMORY_DECISION_INVALID",
        "MEMORY_PREDECESSOR_REQUIRED",
        "MEMORY_PREDECESSOR_NOT_FOUND",
        "MEMORY_PREDECESSOR_HASH_MISMATCH",
        "MEMORY_SUPERSEDE_CONFLICT",
        "MEMORY_FENCED_REPLAY",
        "MEMORY_FENCED_DERIVED",
        "MEMORY_COLLECTION_UNMANAGED",
        "WRITE_DISABLED",
    }


# -- per-surface drivers ------------------------------------------------------------------------


def _camel(args: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    return {names.get(k, k): v for k, v in args.items()}


REMEMBER_WIRE = {
    "predecessor_uri": "predecessorUri",
    "predecessor_hash": "predecessorHash",
    "derived_from": "derivedFrom",
}
RECALL_WIRE = {"max_facts": "maxFacts", "max_tokens": "maxTokens"}
CAPTURE_WIRE = {"collision_policy": "collisionPolicy", "folder_path": "folderPath"}


def _cli_args(capability: str, a: dict[str, Any], tmp: Path) -> list[str]:
    ident = ["--caller", CALLER, "--session", SESSION]
    if capability == "search":
        return ["search", "--json", *(["-c", a["collection"]] if "collection" in a else []), "--", a["query"]]
    if capability == "get":
        return ["get", "--json", "--", a["ref"]]
    if capability == "recall":
        out = ["recall", "--json", *ident]
        for s in a.get("scopes", []):
            out += ["-s", s]
        if "collection" in a:
            out += ["-c", a["collection"]]
        if "max_facts" in a:
            out += ["--max-facts", str(a["max_facts"])]
        if "max_tokens" in a:
            out += ["--max-tokens", str(a["max_tokens"])]
        return [*out, "--", a["query"]]
    if capability == "remember":
        out = ["remember", "--json", *ident]
        for s in a.get("scopes", []):
            out += ["-s", s]
        if "collection" in a:
            out += ["-c", a["collection"]]
        if "decision" in a:
            out += ["--decision", a["decision"]]
        if "predecessor_uri" in a:
            out += ["--predecessor", a["predecessor_uri"]]
        if "predecessor_hash" in a:
            out += ["--predecessor-hash", a["predecessor_hash"]]
        if "receipt" in a:
            f = tmp / "receipt.json"
            f.write_text(json.dumps(a["receipt"]), encoding="utf-8")
            out += ["--receipt", str(f)]
        for d in a.get("derived_from", []):
            out += ["--derived-from", d]
        return [*out, "--", a["text"]]
    if capability == "capture":
        out = ["capture", "--json"]
        if "collection" in a:
            out += ["-c", a["collection"]]
        if "path" in a:
            out += ["--path", a["path"]]
        if "collision_policy" in a:
            out += ["--collision-policy", a["collision_policy"]]
        return [*out, "--", a["content"]]
    raise AssertionError(f"no CLI for {capability}")


def _mcp_call(capability: str, a: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if capability == "search":
        return "gno_search", dict(a)
    if capability == "get":
        return "gno_get", dict(a)
    if capability == "recall":
        return "gno_recall", _camel(a, RECALL_WIRE)
    if capability == "remember":
        return "gno_remember", _camel(a, REMEMBER_WIRE)
    if capability == "capture":
        return "gno_capture", _camel(a, CAPTURE_WIRE)
    raise AssertionError(f"no MCP tool for {capability}")


def _rest_call(rest: Any, capability: str, a: dict[str, Any]) -> Any:
    ident = {"caller": CALLER, "session": SESSION}
    if capability == "search":
        return rest.post("/api/search", json=a)
    if capability == "get":
        return rest.get("/api/doc", params={"uri": a["ref"]})
    if capability == "recall":
        return rest.post("/api/memory/recall", json={**_camel(a, RECALL_WIRE), **ident})
    if capability == "remember":
        return rest.post("/api/memory/remember", json={**_camel(a, REMEMBER_WIRE), **ident})
    if capability == "capture":
        return rest.post("/api/capture", json=_camel(a, CAPTURE_WIRE))
    if capability == "update_doc":
        doc_id = a["ref"].removeprefix("#")
        return rest.put(
            f"/api/docs/{doc_id}",
            json={"content": a["content"], "expectedSourceHash": a["expected_source_hash"]},
        )
    raise AssertionError(capability)


def _sdk_call(client: Any, capability: str, a: dict[str, Any]) -> Any:
    a = dict(a)
    if capability == "search":
        return client.search(a.pop("query"), **a)
    if capability == "get":
        return client.get(a.pop("ref"))
    if capability == "recall":
        return client.recall(a.pop("query"), **a)
    if capability == "remember":
        return client.remember(a.pop("text"), **a)
    if capability == "capture":
        return client.capture(a.pop("content"), **a)
    if capability == "update_doc":
        return client.update_doc(a["ref"], a["content"], a["expected_source_hash"])
    raise AssertionError(capability)


def _expect_envelope(body: Any, code: ErrorCode) -> None:
    assert isinstance(body, dict) and set(body) == {"error"}, body
    err = body["error"]
    assert set(err) == {"code", "message", "details"}, err
    assert err["code"] == str(code), err
    assert isinstance(err["message"], str) and err["message"], err
    assert isinstance(err["details"], dict), err


# -- the one contract test ------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "surface"), _params())
def test_error_contract(case: Case, surface: str, env: SurfaceEnv, request: pytest.FixtureRequest) -> None:
    args = dict(case.args)
    if case.setup is not None:
        args.update(case.setup(env))
    before = env.fact_files()
    mapping = ERROR_TABLE[case.code]

    if surface == "cli":
        cli: CliRun = request.getfixturevalue("cli")
        r = cli(*_cli_args(case.capability, args, env.tmp))
        assert r.exit_code == mapping.exit_code, (r.exit_code, r.stdout, r.stderr)
        _expect_envelope(r.json, case.code)
    elif surface == "mcp":
        mcp: McpDriver = request.getfixturevalue("mcp_ro" if case.read_only_mcp else "mcp_rw")
        tool, tool_args = _mcp_call(case.capability, args)
        out = mcp.call(tool, tool_args)
        assert out.is_error is True, out
        _expect_envelope(out.structured, case.code)
        assert json.loads(out.text) == out.structured  # the text content is the same envelope
    elif surface == "rest":
        resp = _rest_call(request.getfixturevalue("rest"), case.capability, args)
        assert resp.status_code == mapping.http_status, (resp.status_code, resp.text)
        _expect_envelope(resp.json(), case.code)
    else:
        client = request.getfixturevalue(surface)
        with pytest.raises(GnoError) as ei:
            _sdk_call(client, case.capability, args)
        assert ei.value.code == case.code, (ei.value.code, ei.value.message)
        assert type(ei.value) is error_class_for(case.code), type(ei.value)
        assert ei.value.exit_code == mapping.exit_code
        assert ei.value.http_status == mapping.http_status

    # an error never writes a fact
    assert env.fact_files() == before


# -- positive parity ----------------------------------------------------------------------------


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
    _expect_envelope(body, code)
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
    if surface == "rest":
        resp = _rest_call(request.getfixturevalue("rest"), "update_doc", args)
        assert resp.status_code == 409, resp.text
        _expect_envelope(resp.json(), ErrorCode.CONFLICT)
    else:
        with pytest.raises(GnoError) as ei:
            _sdk_call(request.getfixturevalue(surface), "update_doc", args)
        assert ei.value.code == ErrorCode.CONFLICT, (ei.value.code, ei.value.message)
    assert (env.notes / "deploy.md").read_text(encoding="utf-8") == "# Deploys\n\nWriter B was here.\n"


def test_the_write_set_is_listed_only_with_enable_write(mcp_rw: McpDriver, mcp_ro: McpDriver) -> None:
    read = {"gno_search", "gno_get", "gno_multi_get", "gno_ls", "gno_status", "gno_recall"}
    write = {"gno_remember", "gno_capture", "gno_update"}
    ro, rw = set(mcp_ro.list_tools()), set(mcp_rw.list_tools())
    assert read <= ro and not ro & write
    assert read | write <= rw
    assert rw - ro == write
