"""Drive one capability call through any local surface and check the error the table promises.

A `Call` names the capability (a row of `gno.contract`), its request fields (python names) and
the CLI words that express it. `expect_error` makes the call on one surface and asserts:

- CLI: exit code = ERROR_TABLE[code].exit_code, stdout is the `{"error": {...}}` envelope;
- MCP: `isError`, `structuredContent` is the envelope, the text content the same JSON;
- REST: status = ERROR_TABLE[code].http_status, the body is the envelope;
- SDK (in-process and over HTTP): raises `error_class_for(code)` carrying the code.

The MCP, REST and SDK requests are built generically from the capability table (tool name,
route, camelCase wire names, identity from the connection), so a case states its input once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic.alias_generators import to_camel

from gno.contract import BY_NAME
from gno.errors import ERROR_TABLE, ErrorCode, GnoError, error_class_for

from .conftest import CALLER, SESSION, CliRun, McpDriver

#: every (code, surface) a contract case drives; `test_code_table` compares it with the table
DRIVEN: set[tuple[ErrorCode, str]] = set()


def drives(code: ErrorCode, *surfaces: str) -> Any:
    """Register a test as driving `code` through `surfaces`, and parametrize it by `surface`."""
    DRIVEN.update((code, s) for s in surfaces)
    return pytest.mark.parametrize("surface", surfaces)


@dataclass(frozen=True)
class Call:
    capability: str
    args: dict[str, Any]
    cli: tuple[str, ...] = ()  # `gno` words; () = the capability has no CLI form here


def expect_envelope(body: Any, code: ErrorCode) -> dict[str, Any]:
    assert isinstance(body, dict) and set(body) == {"error"}, body
    err = body["error"]
    assert set(err) == {"code", "message", "details"}, err
    assert err["code"] == str(code), err
    assert isinstance(err["message"], str) and err["message"], err
    assert "Traceback" not in err["message"], err
    assert isinstance(err["details"], dict), err
    return body


def rest_request(rest: Any, call: Call, headers: dict[str, str] | None = None) -> Any:
    cap = BY_NAME[call.capability]
    method, path = cap.http
    args = dict(call.args)
    for key in cap.identity:  # REST takes identity from the body
        args.setdefault(key, {"caller": CALLER, "session": SESSION}[key])
    for name in [n for n in args if "{" + n + "}" in path]:
        path = path.replace("{" + name + "}", str(args.pop(name)).removeprefix("#"))
    wire = {to_camel(k): v for k, v in args.items()}
    if method == "GET":
        return rest.request(method, path, params=wire, headers=headers)
    return rest.request(method, path, json=wire, headers=headers)


def mcp_arguments(call: Call) -> tuple[str, dict[str, Any]]:
    cap = BY_NAME[call.capability]
    assert cap.tool_name is not None, f"{call.capability} has no MCP tool"
    return cap.tool_name, {to_camel(k): v for k, v in call.args.items() if k not in cap.identity}


def expect_error(
    surface: str, call: Call, code: ErrorCode, request: pytest.FixtureRequest, *, mcp: str = "mcp_rw"
) -> dict[str, Any]:
    """Make `call` on `surface`; assert the code, exit code / status and envelope; the envelope.

    `mcp` names the MCP server fixture (`mcp_ro`: the server started without --enable-write).
    """
    mapping = ERROR_TABLE[code]
    if surface == "cli":
        assert call.cli, f"{call.capability}: no CLI words for this case"
        cli: CliRun = request.getfixturevalue("cli")
        r = cli(*call.cli)
        assert r.exit_code == mapping.exit_code, (r.exit_code, r.stdout, r.stderr)
        return expect_envelope(json.loads(r.stdout), code)
    if surface == "mcp":
        server: McpDriver = request.getfixturevalue(mcp)
        tool, args = mcp_arguments(call)
        out = server.call(tool, args)
        assert out.is_error is True, out
        assert json.loads(out.text) == out.structured
        return expect_envelope(out.structured, code)
    if surface == "rest":
        resp = rest_request(request.getfixturevalue("rest"), call)
        assert resp.status_code == mapping.http_status, (resp.status_code, resp.text)
        return expect_envelope(resp.json(), code)
    assert surface in ("sdk_local", "sdk_remote"), surface
    client = request.getfixturevalue(surface)
    with pytest.raises(GnoError) as ei:
        client.call(call.capability, **call.args)
    err = ei.value
    assert err.code == code, (err.code, err.message)
    assert type(err) is error_class_for(code), type(err)
    assert (err.exit_code, err.http_status) == (mapping.exit_code, mapping.http_status)
    return expect_envelope(err.to_body(), code)
