"""Each surface words its own parameters: an MCP or REST client reads `scopes`, the CLI `--scope`
(a tool caller told to "pass --scope <scope>" has no such thing to pass); MCP names its version."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gno.errors import GnoError
from surfaces.conftest import CliRun, McpDriver, SurfaceEnv

FLAGS = ("--scope", "--collection", "--supersede", "--predecessor-hash", "--budget", "--limit", "--since")


def _flagless(message: str) -> None:
    assert not any(flag in message for flag in FLAGS), message


def test_mcp_and_rest_errors_name_their_own_parameters(env: SurfaceEnv, mcp_rw: McpDriver, rest: Any) -> None:
    out = mcp_rw.call("gno_recall", {"query": "deploys"})
    assert out.is_error and out.error_code == "MEMORY_SCOPES_REQUIRED"
    message = out.structured["error"]["message"] if out.structured else ""
    assert "`scopes`" in message
    _flagless(message)
    out = mcp_rw.call("gno_remember", {"text": "a fact", "scopes": ["p:x"], "decision": "supersede"})
    assert out.error_code == "MEMORY_PREDECESSOR_REQUIRED"
    message = out.structured["error"]["message"] if out.structured else ""
    assert "`predecessorUri`" in message and "`predecessorHash`" in message
    _flagless(message)
    res = rest.post("/api/memory/recall", json={"query": "deploys", "caller": "c", "session": "s"})
    body = res.json()["error"]
    assert (res.status_code, body["code"]) == (400, "MEMORY_SCOPES_REQUIRED")
    _flagless(body["message"])
    res = rest.get("/api/changes", params={"since": "yesterday"})
    assert res.status_code == 400 and res.json()["error"]["message"].startswith("invalid `since` 'yesterday'")


def test_mcp_server_info_carries_gno_version(mcp_rw: McpDriver) -> None:
    from mcp import Client

    import gno

    async def version() -> str:
        async with Client(mcp_rw.server) as c:
            assert c.server_info is not None and c.server_info.name == "gno"
            return c.server_info.version

    assert asyncio.run(version()) == gno.__version__


def test_core_checks_name_the_wire_parameter_and_the_cli_its_flags(
    env: SurfaceEnv, mcp_rw: McpDriver, cli: CliRun
) -> None:
    out = mcp_rw.call("gno_capture", {"content": "   "})
    assert out.is_error and out.error_code == "VALIDATION"
    message = out.structured["error"]["message"] if out.structured else ""
    assert "`content`" in message and "--stdin" not in message, message
    res = cli("capture", "--json")
    assert res.exit_code == 1 and res.error_code == "VALIDATION"
    assert "--stdin or --file" in res.json["error"]["message"]
    res = cli("embed", "--batch-size", "0")
    assert res.exit_code == 1 and "--batch-size must be between 1 and 1024" in res.stderr
    res = cli("search", "deploys", "--min-score", "2")
    assert res.exit_code == 1 and "--min-score must be between 0 and 1" in res.stderr, res.stderr
    res = cli("search", "deploys", "--limit", "0")
    assert res.exit_code == 1 and "--limit must be between 1 and 100" in res.stderr, res.stderr
    with pytest.raises(GnoError) as ei:
        env.engine.search("deploys", min_score=2.0)
    assert ei.value.message == "`minScore` must be between 0 and 1"
