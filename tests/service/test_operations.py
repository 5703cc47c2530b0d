"""The service's table drives both faces: each operation's request model is its route's body and
its MCP tool's arguments (names, order, required fields, defaults), and nothing else is either."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gno.service.mcp_tools import build_service_mcp
from gno.service.operations import OPERATIONS, Operation

from .conftest import Http, Team


@pytest.fixture
def tools(team: Team) -> dict[str, Any]:
    from mcp import Client

    async def go() -> dict[str, Any]:
        async with Client(build_service_mcp(team.svc, fixed_key=team.keys["alpha"])) as c:
            return {t.name: t for t in (await c.list_tools()).tools}

    return asyncio.run(go())


@pytest.mark.parametrize("op", OPERATIONS, ids=[o.name for o in OPERATIONS])
def test_a_tools_arguments_are_its_request_models_fields(op: Operation, tools: dict[str, Any]) -> None:
    schema = tools[op.name].input_schema
    fields = op.params.model_fields
    assert list(schema["properties"]) == list(fields)
    assert sorted(schema.get("required", [])) == sorted(n for n, f in fields.items() if f.is_required())
    for name, f in fields.items():
        if not f.is_required():
            assert schema["properties"][name]["default"] == f.default, name
    assert tools[op.name].description == op.description
    assert tools[op.name].annotations.read_only_hint is (op.kind == "read")
    assert bool(tools[op.name].annotations.destructive_hint) is (op.kind == "forget")


def test_the_routes_and_tools_are_the_tables(http: Http, tools: dict[str, Any]) -> None:
    doc = http.client.get("/openapi.json").json()
    routes = {p.removeprefix("/v1/memory/"): item for p, item in doc["paths"].items()}
    assert list(tools) == list(routes) == [o.name for o in OPERATIONS]
    for op in OPERATIONS:
        body = routes[op.name]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body["$ref"].endswith("/" + op.params.__name__), op.name
        assert doc["components"]["schemas"][op.params.__name__]["additionalProperties"] is False


def test_a_routes_body_is_its_strict_request_model(http: Http) -> None:
    """A string for a number and an unknown field are INVALID_ARGUMENT, as the model says."""
    status, doc = http.call("remember", {"content": "x", "confidence": "0.5"})
    assert status == 400 and doc["error"]["code"] == "INVALID_ARGUMENT"
    status, doc = http.call("remember", {"content": "x", "unknown": 1})
    assert status == 400 and doc["error"]["code"] == "INVALID_ARGUMENT"
