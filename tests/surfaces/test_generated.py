"""The surfaces are generated from the capability table: every tool and operation is typed.

MCP: a tool per capability (minus the stated exemptions), each with an `outputSchema` and an
input schema whose every property is described; OpenAPI: every operation has a 2xx response
schema and its error statuses in the one envelope, and FastAPI's 422 body is never advertised.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from gno.contract import CAPABILITIES, NO_HTTP, NO_MCP
from gno.errors import ERROR_TABLE


def _engine() -> Any:
    from gno.config import build_settings
    from gno.engine import Engine

    nowhere = str(Path("/nonexistent-gno-home"))
    return Engine(build_settings(env={"HOME": nowhere, "GNO_CONFIG_DIR": nowhere, "GNO_DATA_DIR": nowhere}))


def test_every_mcp_tool_has_an_output_schema_and_described_inputs() -> None:
    from gno.mcp.server import build_mcp

    tools = anyio.run(build_mcp(_engine(), enable_write=True, instance_id="t").list_tools)
    by_name = {t.name: t for t in tools}
    expected = {c.tool_name for c in CAPABILITIES if c.tool_name}
    assert set(by_name) == expected
    assert {c.name for c in CAPABILITIES if c.tool_name is None} == set(NO_MCP)
    for cap in CAPABILITIES:
        if cap.tool_name is None:
            continue
        tool = by_name[cap.tool_name]
        assert tool.description, cap.name
        assert tool.output_schema and tool.output_schema["type"] == "object", cap.name
        props = tool.input_schema.get("properties", {})
        for field in cap.identity:  # identity comes from the connection, never from arguments
            assert field not in props, (cap.name, field)
        for name, spec in props.items():
            assert spec.get("description"), f"{cap.tool_name}.{name} has no description"


def test_every_openapi_operation_has_a_2xx_schema_and_its_error_responses() -> None:
    from gno.http.app import create_app

    doc = create_app(_engine()).openapi()
    ops = [(p, m, op) for p, item in doc["paths"].items() for m, op in item.items()]
    assert len(ops) >= len([c for c in CAPABILITIES if c.http is not None])
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    for path, method, op in ops:
        responses = op["responses"]
        assert "422" not in responses, (method, path)
        ok = [s for s in responses if s.startswith("2")]
        assert ok and all("schema" in responses[s]["content"]["application/json"] for s in ok), (method, path)
        errors = [s for s in responses if s[0] in "45"]
        assert {"400", "401", "500"} <= set(errors), (method, path, errors)
        for s in errors:
            ref = responses[s]["content"]["application/json"]["schema"]["$ref"]
            assert ref.endswith("/ErrorBody"), (method, path, s)
    by_route = {(m.upper(), p.replace(":path", "")): op for p, item in doc["paths"].items() for m, op in item.items()}
    assert {c.name for c in CAPABILITIES if c.http is None} == set(NO_HTTP)
    for cap in CAPABILITIES:
        if cap.http is None:
            continue
        op = by_route[cap.http]
        for code in cap.all_errors():
            assert str(ERROR_TABLE[code].http_status) in op["responses"], (cap.name, code)
