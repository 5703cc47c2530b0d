"""Requests over the index and its documents: status, collections, update, get, multi_get, ls,
the two document writes, capture (a new note) and update_doc (edit a note, hash-checked), and
request_status (what became of a retry-safe write)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import AliasChoices, Field, field_validator

from gno.contract.request import REQUEST_ID_DOC, REQUEST_ID_SCHEMA, CallContext, Request
from gno.models import CaptureSource

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.ledger import RequestStatusResult
    from gno.models import (
        CaptureResult,
        CollectionList,
        DocumentResult,
        DocUpdateResult,
        LsResult,
        MultiGetResult,
        StatusResult,
        SyncResult,
    )

REF_DOC = "#docid, gno://collection/path[:line] or collection/path[:line]."


class StatusRequest(Request):
    """Index health: collections, counts, ingest errors, memory, vectors."""

    def run(self, engine: Engine, ctx: CallContext) -> StatusResult:
        return engine.status()


class CollectionsRequest(Request):
    """The configured collections with their document counts."""

    def run(self, engine: Engine, ctx: CallContext) -> CollectionList:
        return engine.collection_list()


class UpdateRequest(Request):
    """Sync the index with the files (all collections, or the named ones)."""

    collections: list[str] = Field(default_factory=list, description="Only these collections (default: all).")
    force: bool = Field(False, description="Re-read and re-parse every file, even unchanged ones.")
    prune: bool = Field(False, description="Also drop the rows and vectors of collections no longer configured.")

    def run(self, engine: Engine, ctx: CallContext) -> SyncResult:
        return engine.update(
            self.collections, force=self.force, prune=self.prune, lock_wait=ctx.lock_wait, progress=ctx.progress
        )


class GetRequest(Request):
    """Read one document (or a line range of it)."""

    ref: str = Field(
        description=REF_DOC + " (`uri` is accepted as another name.)", validation_alias=AliasChoices("ref", "uri")
    )
    from_line: int | None = Field(None, ge=1, description="First line to return (1-based).")
    line_count: int | None = Field(None, ge=1, description="Number of lines to return.")
    source: bool = Field(
        False, description="Also return the original file's bytes (base64): the PDF or DOCX behind a converted mirror."
    )

    def run(self, engine: Engine, ctx: CallContext) -> DocumentResult:
        return engine.get(**self.fields())


class MultiGetRequest(Request):
    """Read several documents; a ref that fails is reported beside the others."""

    refs: list[str] = Field(description="Refs (" + REF_DOC + "); an item may hold several, comma-separated.")
    max_bytes: int = Field(10240, ge=1, description="Truncate each document to this many bytes.")

    def run(self, engine: Engine, ctx: CallContext) -> MultiGetResult:
        return engine.multi_get(**self.fields())


#: one page of `ls` at most; an offset is bounded by SQLite's integer (a larger one cannot be bound)
MAX_LS = 1_000_000
SQLITE_MAX_INT = 2**63 - 1


class LsRequest(Request):
    """List indexed documents: all, one collection, or gno://collection/prefix."""

    scope: str | None = Field(None, description="A collection name or gno://collection/prefix.")
    limit: int = Field(10000, ge=1, le=MAX_LS, description="Documents to list.")
    offset: int = Field(0, ge=0, le=SQLITE_MAX_INT, description="Documents to skip first (for the next page).")

    def run(self, engine: Engine, ctx: CallContext) -> LsResult:
        return engine.ls(self.scope, limit=self.limit, offset=self.offset)


class CaptureRequest(Request):
    """Create a genuinely new note with provenance (never an update of an existing one)."""

    content: str = Field(description="The note's markdown. Empty is VALIDATION.", json_schema_extra={"minLength": 1})
    collection: str | None = Field(None, description="Target collection (default: the only one, or the first).")
    title: str | None = Field(None, description="Title (default: the first heading or line).")
    path: str | None = Field(None, description="Relative path inside the collection (default: from the title).")
    folder_path: str | None = Field(None, description="Folder inside the collection for a generated path.")
    tags: list[str] = Field(default_factory=list, description="Tags written to the front matter.")
    source: CaptureSource | None = Field(None, description="Where the content came from (provenance).")
    collision_policy: Literal["error", "open_existing", "create_with_suffix"] = Field(
        "error", description="What to do when the path exists."
    )
    caller: str | None = Field(None, description="Who captures (recorded; MCP: the connection's client).")
    request_id: str | None = Field(None, description=REQUEST_ID_DOC, json_schema_extra=REQUEST_ID_SCHEMA)

    def run(self, engine: Engine, ctx: CallContext) -> CaptureResult:
        from gno.writes.capture import CaptureRequest as Capture

        fields = self.fields("folder_path")  # the core calls it `folder`
        return engine.capture(Capture(**fields, folder=self.folder_path, lock_wait=ctx.lock_wait))


class UpdateDocRequest(Request):
    """Edit a note: replace its content if it still has the hash that was read (else CONFLICT)."""

    ref: str = Field(description=REF_DOC + " A bare docid (no #) is accepted: it names a URL path.")
    content: str = Field(description="The new content of the whole file.")
    expected_source_hash: str = Field(description="`sourceHash` of the version that was read.")
    request_id: str | None = Field(None, description=REQUEST_ID_DOC, json_schema_extra=REQUEST_ID_SCHEMA)

    @field_validator("ref")
    @classmethod
    def _docid(cls, v: str) -> str:
        return v if v.startswith(("#", "gno://")) or "/" in v else "#" + v

    def run(self, engine: Engine, ctx: CallContext) -> DocUpdateResult:
        return engine.update_doc(
            self.ref, self.content, self.expected_source_hash, lock_wait=ctx.lock_wait, request_id=self.request_id
        )


class RequestStatusRequest(Request):
    """What became of a retry-safe write: committed (with what it wrote), pending, expired or not_found."""

    request_id: str = Field(description="The request ID the write was made with.", json_schema_extra=REQUEST_ID_SCHEMA)

    def run(self, engine: Engine, ctx: CallContext) -> RequestStatusResult:
        return engine.request_status(self.request_id)
