"""The MCP surface: gno's capabilities as tools, over stdio (`gno mcp`) or Streamable HTTP (`/mcp`).

Generated from the capability table: a tool per capability, its input schema the request
model's (with descriptions), its `outputSchema` the result model's. A call validates the
arguments into the request model, makes the one engine call in a worker thread and returns the
result as structured content (and as JSON text). Any failure is an `isError` result whose
structured content is the `{"error": {code, message, details}}` envelope.

Identity is never a tool argument: caller = the client name from the `initialize` handshake,
session = the Streamable HTTP session id (stdio: one id per server instance). The write set is
listed only with `--enable-write`; called without it, a write tool answers WRITE_DISABLED. The
`core` tool profile lists only the tools an agent needs every turn (`gno.contract.CORE`); a tool
outside the server's profile is not listed, and calling it is NOT_FOUND.
Recall and remember run lexical only here, so a resident server never loads a model per call.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool

from gno import __version__
from gno.contract import BY_TOOL, CAPABILITIES, TOOL_PROFILES, ToolSpec, in_profile
from gno.contract.request import CallContext, parse
from gno.engine import Engine
from gno.errors import AuthError, ErrorCode, GnoError, NotFoundError, ValidationError, from_exception
from gno.models import GnoModel

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
CTX = CallContext(surface="mcp", semantic=False)
WRITE_TOOLS = frozenset(c.tool_name for c in CAPABILITIES if c.write and c.tool_name)


def ok(model: GnoModel) -> CallToolResult:
    body = model.dump()
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))], structured_content=body
    )


def fail(err: GnoError) -> CallToolResult:
    body = err.to_body()
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structured_content=body,
        is_error=True,
    )


def tool_of(spec: ToolSpec) -> MCPTool:
    return MCPTool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        annotations=WRITE if spec.write else READ,
    )


class GnoMCPServer(MCPServer[Any]):
    """MCPServer whose tools are the capability table (the write set only with writes enabled)."""

    def __init__(
        self, engine: Engine, *, enable_write: bool, instance_id: str, tool_profile: str = "full", **kw: Any
    ) -> None:
        super().__init__(**kw)
        if tool_profile not in TOOL_PROFILES:
            raise ValidationError(
                f"tool profile must be one of {', '.join(TOOL_PROFILES)} (got {tool_profile!r})",
                details={"toolProfile": tool_profile},
            )
        self.engine = engine
        self.enable_write = enable_write
        self.instance_id = instance_id
        self.tool_profile = tool_profile
        self._tools = {
            spec.name: tool_of(spec) for c in CAPABILITIES if in_profile(c, tool_profile) and (spec := c.mcp_tool())
        }

    async def list_tools(self) -> list[MCPTool]:
        return [t for name, t in self._tools.items() if self.enable_write or not BY_TOOL[name].write]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        tool = self._tools.get(name)
        return None if tool is None else tool.input_schema

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult:
        try:
            cap = BY_TOOL.get(name)
            if cap is None:
                raise NotFoundError(f"no tool named {name!r}", details={"tool": name})
            if name not in self._tools:
                raise NotFoundError(
                    f"tool {name!r} is not in the {self.tool_profile} tool profile; start the server with "
                    "--tool-profile full",
                    details={"tool": name, "toolProfile": self.tool_profile},
                )
            if cap.write and not self.enable_write:
                raise AuthError(
                    "write tools are disabled: start the server with --enable-write (or GNO_MCP_ENABLE_WRITE=1)",
                    code=ErrorCode.WRITE_DISABLED,
                )
            data = {k: v for k, v in (arguments or {}).items() if k not in cap.identity}
            if cap.identity:
                who = identity(context, self.instance_id) if context else ("mcp:unknown", self.instance_id)
                data.update((k, v) for k, v in zip(("caller", "session"), who, strict=True) if k in cap.identity)
            req = parse(cap.request_model, data)
            return ok(await anyio.to_thread.run_sync(self._run, req))
        except GnoError as err:
            return fail(err)
        except Exception as exc:  # noqa: BLE001 - never a bare protocol error
            return fail(from_exception(exc))

    def _run(self, req: Any) -> GnoModel:
        result: GnoModel = req.run(self.engine, CTX)
        return result


def identity(ctx: Context[Any, Any], instance_id: str) -> tuple[str, str]:
    """(caller, session) from the connection, never from tool arguments."""
    caller = "mcp:unknown"
    try:
        params = ctx.session.client_params
        if params is not None and params.client_info.name:
            caller = params.client_info.name
    except Exception:  # noqa: BLE001 - a missing handshake keeps the placeholder
        pass
    session = None
    req = ctx.request_context.request
    headers = getattr(req, "headers", None)
    if headers is not None:
        session = headers.get("mcp-session-id")
    if not session:
        conn = getattr(ctx.session, "_connection", None)
        session = getattr(conn, "session_id", None)
    if not session and headers is not None:
        # 2026-07-28 Streamable HTTP is sessionless: derive the session per authenticated caller
        auth = headers.get("authorization", "")
        digest = hashlib.sha256(f"{instance_id}\n{caller}\n{auth}".encode()).hexdigest()[:16]
        session = f"{instance_id}:caller-{digest}"
    return caller, session or instance_id


def build_mcp(engine: Engine, *, enable_write: bool, instance_id: str, tool_profile: str = "full") -> GnoMCPServer:
    # log_level WARNING: the SDK configures the root logger; keep embedding apps quiet
    return GnoMCPServer(
        engine,
        enable_write=enable_write,
        instance_id=instance_id,
        tool_profile=tool_profile,
        name="gno",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )


INSTRUCTIONS = (
    "gno answers from the user's markdown collections. Climb the retrieval ladder: gno_search for exact "
    "words; gno_recall (explicit scopes) for what we know; then the document tools. Cite gno:// URIs. "
    "Writes: gno_capture creates a new note; gno_remember proposes a fact and stores it only with "
    "decision add/supersede; pass the latest recall receipt back to gno_remember."
)
