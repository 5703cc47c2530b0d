"""Requests of the memory contract: recall (rung 2), remember (the fact write path), a fact's history and
the audit of the fact files.

The engine validates these in the contract's order (identity, text/query, collection, scopes,
decision/budget) and answers with `MEMORY_*` codes, so the limits below are documented in the
schema (`json_schema_extra`) but not enforced by the model. Identity (`caller`, `session`) is
filled by the surface: the CLI from flags or the environment, the SDK from the client, REST
from the body, MCP from the connection (never from tool arguments).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, JsonValue

from gno.contract.request import REQUEST_ID_DOC, REQUEST_ID_SCHEMA, CallContext, Request, choice

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.models.memory_results import AuditResult, MemoryHistoryResult, RecallResult, RememberResult

SCOPES_DOC = "Scopes (1–8; letters, digits and . _ : / @ -; at most 64 characters). Required."
SCOPES_SCHEMA: dict[str, JsonValue] = {"minItems": 1, "maxItems": 8}


class Identity(Request):
    caller: str | None = Field(None, description="Caller identity (recorded and bound into receipts).")
    session: str | None = Field(None, description="Session identity (recorded and bound into receipts).")


class RecallRequest(Identity):
    """Current facts in explicit scopes, cited, under a budget, with a receipt. Rung 2."""

    query: str = Field(description="What to recall.", json_schema_extra={"minLength": 1})
    scopes: list[str] = Field(default_factory=list, description=SCOPES_DOC, json_schema_extra=SCOPES_SCHEMA)
    collection: str | None = Field(None, description="Memory-managed collection (default: the only one).")
    max_facts: int = Field(8, description="At most this many facts.", json_schema_extra={"minimum": 1})
    max_tokens: int = Field(512, description="Token budget (UTF-8 bytes / 4).", json_schema_extra={"minimum": 1})
    as_of: str | None = Field(
        None,
        description="Recall the facts current at this ISO date (its end, UTC) or date-time instead of now: "
        "started by then (validFrom, else createdAt) and not yet superseded.",
    )

    def run(self, engine: Engine, ctx: CallContext) -> RecallResult:
        from gno.memory.recall import RecallRequest as Recall

        return engine.recall(Recall(**self.fields()), semantic=ctx.semantic)


class RememberRequest(Identity):
    """Propose one fact; `add` stores it, `supersede` replaces `predecessorUri` (hash-checked)."""

    text: str = Field(description="The fact (at most 4096 bytes).", json_schema_extra={"minLength": 1})
    scopes: list[str] = Field(default_factory=list, description=SCOPES_DOC, json_schema_extra=SCOPES_SCHEMA)
    collection: str | None = Field(None, description="Memory-managed collection (default: the only one).")
    decision: str | None = Field(
        None,
        description="None: only list candidates; add: store; supersede: replace predecessorUri.",
        json_schema_extra=choice("add", "supersede"),
    )
    predecessor_uri: str | None = Field(None, description="With supersede: the current fact to replace.")
    predecessor_hash: str | None = Field(None, description="With supersede: its contentHash.")
    receipt: dict[str, Any] | None = Field(None, description="The latest recall receipt (fences replays).")
    derived_from: list[str] = Field(default_factory=list, description="Declared origins of the text.")
    source: str | None = Field(None, description="Free-text evidence for the fact (recorded).")
    valid_from: str | None = Field(None, description="When the fact became true (ISO date or date-time), if known.")
    request_id: str | None = Field(None, description=REQUEST_ID_DOC, json_schema_extra=REQUEST_ID_SCHEMA)

    def run(self, engine: Engine, ctx: CallContext) -> RememberResult:
        from gno.memory.remember import RememberRequest as Remember

        return engine.remember(Remember(**self.fields(), lock_wait=ctx.lock_wait), semantic=ctx.semantic)


class MemoryHistoryRequest(Request):
    """A fact's supersession chain, oldest first, with when each fact was current."""

    uri: str = Field(description="gno:// URI of any fact of the chain.")

    def run(self, engine: Engine, ctx: CallContext) -> MemoryHistoryResult:
        return engine.memory_history(self.uri)


class AuditRequest(Request):
    """Fact files that break the memory contract (front matter, scopes, hashes, supersession links)."""

    collection: str | None = Field(None, description="Only this collection (default: every memory collection).")
    max_findings: int = Field(100, ge=1, le=1000, description="Most findings listed.")

    def run(self, engine: Engine, ctx: CallContext) -> AuditResult:
        return engine.audit(self.collection, self.max_findings)
