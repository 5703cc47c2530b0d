"""Four surfaces, one contract (issue 4): every reachable error code, the same on every surface.

ONE parametrised table drives (capability, bad input, expected code) through:

- CLI   `gno … --json` via click's runner: exit code = ERROR_TABLE[code].exit_code, stdout envelope code;
- MCP   the SDK's in-memory client: `isError` and structured content `{"error": {code, message, details}}`;
- REST  the ASGI app: status = ERROR_TABLE[code].http_status, body envelope code;
- SDK   `gno.Client.open()` and `gno.Client.connect(url)`: raises `error_class_for(code)` with `.code`.

A combination a surface cannot express is skipped *in the table*, with the reason. The MCP, REST
and SDK calls are built from the capability table (`drive.py`); the CLI words here. Bad *state*
(config, lease, index, models, servers) is `test_contract_codes.py` and its siblings;
`code_table.py` says which surfaces every code reaches. Positive parity: `test_contract_parity.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gno.errors import ERROR_TABLE, ErrorCode

from .conftest import CALLER, SCOPE, SESSION, SurfaceEnv
from .drive import Call, expect_error

SURFACES = ("cli", "mcp", "rest", "sdk_local", "sdk_remote")
STALE_HASH = "0" * 64
MISSING_FACT = "gno://memory/facts/2020-01-01/mem-0000000000000000.md"

NO_CLI_EDIT = "no CLI command edits a note (update_doc is REST/SDK only)"
NO_MCP_EDIT = "no MCP tool replaces a note's content (update_doc is REST/SDK only; MCP edits only tags)"
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
    # context hints
    Case("context_add", ErrorCode.CONTEXT_SCOPE_INVALID, {"scope": "not a scope", "text": "Team notes"}),
    Case("context_add", ErrorCode.CONTEXT_SCOPE_INVALID, {"scope": "nope:", "text": "Team notes"}, label="unknown"),
    Case("context_add", ErrorCode.CONTEXT_TEXT_INVALID, {"scope": "notes:", "text": "   "}),
    Case("context_rm", ErrorCode.CONTEXT_NOT_FOUND, {"scope": "gno://notes/archive"}),
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
    # the vault: similar, tags, collection rename
    Case("similar", ErrorCode.VECTORS_UNAVAILABLE, {"ref": "notes/deploy.md"}),
    Case("similar", ErrorCode.NOT_FOUND, {"ref": "notes/missing.md"}),
    Case("tags_add", ErrorCode.TAG_INVALID, {"ref": "notes/deploy.md", "tags": ["Bad Tag"]}),
    Case("tags_rm", ErrorCode.TAG_INVALID, {"ref": "notes/deploy.md", "tags": ["#"]}),
    Case("tags_add", ErrorCode.NOT_FOUND, {"ref": "notes/missing.md", "tags": ["ops"]}),
    Case(
        "tags_add",
        ErrorCode.WRITE_DISABLED,
        {"ref": "notes/deploy.md", "tags": ["ops"]},
        read_only_mcp=True,
        skip=dict.fromkeys(("cli", "rest", "sdk_local", "sdk_remote"), MCP_ONLY_GATE),
    ),
    Case("collection_rename", ErrorCode.COLLECTION_EXISTS, {"collection": "notes", "new_name": "memory"}),
    Case("collection_rename", ErrorCode.COLLECTION_NOT_FOUND, {"collection": "nope", "new_name": "fresh"}),
    Case(
        "collection_rename",
        ErrorCode.VALIDATION,
        {"collection": "notes", "new_name": "Not A Name!"},
        label="bad-name",
    ),
    Case(
        "collection_rename",
        ErrorCode.WRITE_DISABLED,
        {"collection": "notes", "new_name": "fresh"},
        read_only_mcp=True,
        skip=dict.fromkeys(("cli", "rest", "sdk_local", "sdk_remote"), MCP_ONLY_GATE),
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


# -- the CLI words of a case ---------------------------------------------------------------------


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
    if capability in ("context_add", "context_rm"):
        text = [a["text"]] if a.get("text") is not None else []
        return ["context", capability.removeprefix("context_"), "--json", "--", a["scope"], *text]
    if capability == "similar":
        return ["similar", "--json", "--", a["ref"]]
    if capability in ("tags_add", "tags_rm"):
        return ["tags", capability.removeprefix("tags_"), "--json", "--", a["ref"], *a["tags"]]
    if capability == "collection_rename":
        return ["collection", "rename", "--json", "--", a["collection"], a["new_name"]]
    raise AssertionError(f"no CLI for {capability}")


# -- the one contract test ------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "surface"), _params())
def test_error_contract(case: Case, surface: str, env: SurfaceEnv, request: pytest.FixtureRequest) -> None:
    args = dict(case.args)
    if case.setup is not None:
        args.update(case.setup(env))
    call = Call(case.capability, args, tuple(_cli_args(case.capability, args, env.tmp)) if surface == "cli" else ())
    before = env.files()
    expect_error(surface, call, case.code, request, mcp="mcp_ro" if case.read_only_mcp else "mcp_rw")
    assert env.files() == before  # an error writes nothing
