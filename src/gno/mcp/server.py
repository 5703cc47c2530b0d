"""The MCP surface: gno's capabilities as tools, over stdio (`gno mcp`) or Streamable HTTP (`/mcp`).

Thin by design: each tool validates nothing itself, makes one engine call and returns the same
pydantic object every surface returns, as structured content (and as JSON text). A `GnoError`
becomes an `isError` result whose structured content is the `{"error": {...}}` envelope.

Identity is never a tool argument: caller = the client name from the `initialize` handshake,
session = the Streamable HTTP session id (stdio: one id per server instance). The write set
(`gno_remember`, `gno_capture`, `gno_update`) is listed only with `--enable-write`; called
without it, a write tool answers WRITE_DISABLED. Recall here is lexical only, so a resident
server never loads a model per call.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from gno.engine import Engine
from gno.errors import ErrorCode, GnoError, ValidationError, from_exception
from gno.memory.recall import RecallRequest
from gno.memory.remember import RememberRequest
from gno.models import CaptureSource, GnoModel
from gno.writes.capture import CaptureRequest

T = TypeVar("T")
WRITE_TOOLS = frozenset({"gno_remember", "gno_capture", "gno_update"})
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


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


class GnoMCPServer(MCPServer[Any]):
    """MCPServer that hides the write set from `tools/list` unless writes are enabled."""

    def __init__(self, *, enable_write: bool, **kw: Any) -> None:
        super().__init__(**kw)
        self.enable_write = enable_write

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        return tools if self.enable_write else [t for t in tools if t.name not in WRITE_TOOLS]


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


def build_mcp(engine: Engine, *, enable_write: bool, instance_id: str) -> GnoMCPServer:
    # log_level WARNING: the SDK configures the root logger; keep embedding apps quiet
    srv = GnoMCPServer(name="gno", instructions=INSTRUCTIONS, enable_write=enable_write, warn_on_duplicate_tools=False,
                       log_level="WARNING")

    async def call(fn: Callable[[], GnoModel], *, write: bool = False) -> CallToolResult:
        if write and not srv.enable_write:
            return fail(
                ValidationError(
                    "write tools are disabled: start the server with --enable-write (or GNO_MCP_ENABLE_WRITE=1)",
                    code=ErrorCode.WRITE_DISABLED,
                )
            )

        def locked() -> GnoModel:
            with engine.lock:
                return fn()

        try:
            return ok(await anyio.to_thread.run_sync(locked))
        except GnoError as err:
            return fail(err)
        except Exception as exc:  # noqa: BLE001 - never a bare protocol error
            return fail(from_exception(exc))

    @srv.tool(annotations=READ, description="Exact (BM25) search with cited spans. Rung 1 of the ladder.")
    async def gno_search(
        query: str,
        collection: str | None = None,
        limit: int = 5,
        minScore: float = 0.0,
        tagsAll: list[str] | None = None,
        tagsAny: list[str] | None = None,
        full: bool = False,
    ) -> CallToolResult:
        return await call(
            lambda: engine.search(
                query,
                collection=collection,
                limit=limit,
                min_score=minScore,
                tags_all=tagsAll or [],
                tags_any=tagsAny or [],
                full=full,
            )
        )

    @srv.tool(
        annotations=READ,
        description="Read a document by #docid, gno://collection/path[:line] or collection/path[:line].",
    )
    async def gno_get(ref: str, fromLine: int | None = None, lineCount: int | None = None) -> CallToolResult:
        return await call(lambda: engine.get(ref, from_line=fromLine, line_count=lineCount))

    @srv.tool(annotations=READ, description="Read several documents by ref.")
    async def gno_multi_get(refs: list[str], maxBytes: int = 10240) -> CallToolResult:
        return await call(lambda: engine.multi_get(refs, max_bytes=maxBytes))

    @srv.tool(annotations=READ, description="List indexed documents of a collection or gno://coll/prefix.")
    async def gno_ls(scope: str | None = None) -> CallToolResult:
        return await call(lambda: engine.ls(scope))

    @srv.tool(annotations=READ, description="Index health: collections, counts, ingest errors, memory.")
    async def gno_status() -> CallToolResult:
        return await call(engine.status)

    @srv.tool(
        annotations=READ,
        description="Recall current facts in explicit scopes, under a budget, with a "
        "receipt (lexical leg). Rung 2 of the ladder.",
    )
    async def gno_recall(
        query: str,
        scopes: list[str] | None = None,
        collection: str | None = None,
        maxFacts: int = 8,
        maxTokens: int = 512,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        assert ctx is not None
        caller, session = identity(ctx, instance_id)
        req = RecallRequest(
            query=query,
            scopes=scopes or [],
            caller=caller,
            session=session,
            collection=collection,
            max_facts=maxFacts,
            max_tokens=maxTokens,
        )
        return await call(lambda: engine.recall(req, semantic=False))

    @srv.tool(
        annotations=WRITE,
        description="Propose one fact; decision 'add' stores it, 'supersede' replaces "
        "predecessorUri (hash-checked). Pass the recall receipt to fence replays.",
    )
    async def gno_remember(
        text: str,
        scopes: list[str] | None = None,
        collection: str | None = None,
        decision: str | None = None,
        predecessorUri: str | None = None,
        predecessorHash: str | None = None,
        receipt: dict[str, Any] | None = None,
        derivedFrom: list[str] | None = None,
        source: str | None = None,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        assert ctx is not None
        caller, session = identity(ctx, instance_id)
        req = RememberRequest(
            text=text,
            scopes=scopes or [],
            caller=caller,
            session=session,
            collection=collection,
            decision=decision,
            predecessor_uri=predecessorUri,
            predecessor_hash=predecessorHash,
            receipt=receipt,
            derived_from=derivedFrom or [],
            source=source,
        )
        return await call(lambda: engine.remember(req, semantic=False), write=True)

    @srv.tool(annotations=WRITE, description="Create a genuinely new note with provenance (never an update).")
    async def gno_capture(
        content: str,
        collection: str | None = None,
        title: str | None = None,
        folderPath: str | None = None,
        path: str | None = None,
        collisionPolicy: Literal["error", "open_existing", "create_with_suffix"] = "error",
        source: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        assert ctx is not None
        caller, _ = identity(ctx, instance_id)

        def run() -> GnoModel:
            try:
                src = CaptureSource.model_validate(source) if source else None
            except Exception as exc:
                raise ValidationError(f"invalid source: {exc}") from exc
            return engine.capture(
                CaptureRequest(
                    content=content,
                    collection=collection,
                    title=title,
                    path=path,
                    folder=folderPath,
                    tags=tags or [],
                    source=src,
                    collision_policy=collisionPolicy,
                    caller=caller,
                )
            )

        return await call(run, write=True)

    @srv.tool(annotations=WRITE, description="Sync the index with the files (all collections or one).")
    async def gno_update(collection: str | None = None) -> CallToolResult:
        return await call(lambda: engine.update([collection] if collection else []), write=True)

    from gno.mcp.extra_tools import register_extra_tools

    register_extra_tools(srv, engine, call)
    return srv


INSTRUCTIONS = (
    "gno answers from the user's markdown collections. Climb the retrieval ladder: gno_search for exact "
    "words; gno_recall (explicit scopes) for what we know; then the document tools. Cite gno:// URIs. "
    "Writes: gno_capture creates a new note; gno_remember proposes a fact and stores it only with "
    "decision add/supersede; pass the latest recall receipt back to gno_remember."
)
