"""MCP tool profiles: `core` lists the tools an agent needs every turn, `full` every tool.

Through the MCP SDK's in-memory client (`gno mcp`'s server) and over real Streamable HTTP
(`gno serve`'s `/mcp`, served by uvicorn): the listed names, and a tool outside the profile
answering NOT_FOUND in the one envelope.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gno.contract import CAPABILITIES, CORE
from servers import uvicorn_thread

from .conftest import McpDriver, SurfaceEnv

CORE_READ = ["gno_changes", "gno_context", "gno_get", "gno_multi_get", "gno_query", "gno_recall", "gno_search"]


def test_core_lists_the_every_turn_tools_and_the_writes_only_with_writes(env: SurfaceEnv) -> None:
    from gno.mcp.server import build_mcp

    ro = McpDriver(build_mcp(env.engine, enable_write=False, instance_id="t", tool_profile="core"))
    rw = McpDriver(build_mcp(env.engine, enable_write=True, instance_id="t", tool_profile="core"))
    full = McpDriver(build_mcp(env.engine, enable_write=True, instance_id="t"))
    assert ro.list_tools() == CORE_READ
    assert rw.list_tools() == sorted([*CORE_READ, "gno_capture", "gno_remember"])
    assert full.list_tools() == sorted(c.tool_name for c in CAPABILITIES if c.tool_name)
    assert {c.name for c in CAPABILITIES if c.tool_name in rw.list_tools()} == set(CORE)
    out = rw.call("gno_status", {})
    assert out.is_error and out.error_code == "NOT_FOUND"
    assert out.structured is not None and out.structured["error"]["details"]["toolProfile"] == "core"
    assert not rw.call("gno_search", {"query": "deploy"}).is_error


def test_an_unknown_profile_is_validation(env: SurfaceEnv) -> None:
    from gno.errors import ValidationError
    from gno.mcp.server import build_mcp

    with pytest.raises(ValidationError):
        build_mcp(env.engine, enable_write=False, instance_id="t", tool_profile="tiny")


def test_serve_mcp_over_http_takes_the_profile(env: SurfaceEnv) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from gno.http.app import create_app

    async def tools(url: str) -> tuple[list[str], Any]:
        async with Client(streamable_http_client(f"{url}/mcp")) as c:
            names = sorted(t.name for t in (await c.list_tools()).tools)
            res = await c.call_tool("gno_ls", {})
        return names, res

    with uvicorn_thread(create_app(env.engine, tool_profile="core")) as url:
        names, res = asyncio.run(tools(url))
    assert names == CORE_READ
    assert res.is_error and res.structured_content["error"]["code"] == "NOT_FOUND"


def test_the_cli_options_name_the_profiles() -> None:
    from click.testing import CliRunner

    from gno.cli.main import cli

    for cmd in (["mcp", "--help"], ["serve", "--help"]):
        out = CliRunner().invoke(cli, cmd)
        assert out.exit_code == 0 and "--tool-profile [core|full]" in out.output, out.output
