"""Requests of the context hints: `context add | list | rm | check` (configuration, not evidence).

A scope is `/` (everything), `NAME:` (a collection) or `gno://NAME/path` (a folder or file
prefix); the engine parses it and answers a malformed one with CONTEXT_SCOPE_INVALID on every
surface, so the schema only documents its shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from gno.contract.request import CallContext, Request

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.hints import ContextAddResult, ContextCheckResult, ContextList, ContextRemoved

SCOPE_DOC = "`/` (everything), `NAME:` (a collection) or `gno://NAME/path` (a folder or file prefix)."


class ContextAddRequest(Request):
    """Attach a context hint to a scope: a sentence saying what the notes there are.

    Hits of search, vsearch and query carry the hints that apply (`context`); Capsules and ask list
    them apart from the evidence, as trusted configuration that is never cited.
    """

    scope: str = Field(description=SCOPE_DOC, json_schema_extra={"minLength": 1})
    text: str = Field(description="The hint (at most 2000 characters).", json_schema_extra={"minLength": 1})

    def run(self, engine: Engine, ctx: CallContext) -> ContextAddResult:
        return engine.context_add(self.scope, self.text, lock_wait=ctx.lock_wait)


class ContextListRequest(Request):
    """The configured context hints, in the order of `index.yml`."""

    def run(self, engine: Engine, ctx: CallContext) -> ContextList:
        return engine.context_list()


class ContextRmRequest(Request):
    """Remove the context hints of a scope (only the one with `text` when given)."""

    scope: str = Field(description=SCOPE_DOC, json_schema_extra={"minLength": 1})
    text: str | None = Field(None, description="Remove only the hint with exactly this text.")

    def run(self, engine: Engine, ctx: CallContext) -> ContextRemoved:
        return engine.context_rm(self.scope, self.text, lock_wait=ctx.lock_wait)


class ContextCheckRequest(Request):
    """Check the context hints: warn about a scope whose collection is not configured or whose
    prefix holds no indexed document."""

    def run(self, engine: Engine, ctx: CallContext) -> ContextCheckResult:
        return engine.context_check()
