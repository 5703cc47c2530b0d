"""Requests that look after the vault: similar documents, tags (list, add, remove), the doctor and
renaming a collection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from gno.contract.documents import REF_DOC
from gno.contract.request import REQUEST_ID_DOC, REQUEST_ID_SCHEMA, CallContext, Request, split_commas

if TYPE_CHECKING:
    from gno.doctor import DoctorResult
    from gno.engine import Engine
    from gno.retrieve.similar import SimilarResult
    from gno.writes.rename import CollectionRenamed
    from gno.writes.tags import TagsEditResult, TagsResult

TAG_DOC = "Tags: lowercase letters, digits, '-', '.', '/', '_' (a leading # is dropped); TAG_INVALID otherwise."


class SimilarRequest(Request):
    """Documents nearest to one document by its stored chunk vectors (how well each covers its chunks); needs
    `gno embed`."""

    ref: str = Field(description=REF_DOC)
    limit: int = Field(5, ge=1, le=50, description="Neighbours to return.")
    threshold: float | None = Field(
        None, ge=-1.0, le=1.0, description="Lowest score to list (default: no cut; cosine scales differ by model)."
    )
    cross_collection: bool = Field(False, description="Look in every collection (default: the document's own).")

    def run(self, engine: Engine, ctx: CallContext) -> SimilarResult:
        return engine.similar(**self.fields())


class TagsRequest(Request):
    """Tags with the number of documents carrying each (front matter `tags:` and inline `#tags`)."""

    collection: str | None = Field(None, description="Only this collection.")

    def run(self, engine: Engine, ctx: CallContext) -> TagsResult:
        return engine.tags(self.collection)


class TagsAddRequest(Request):
    """Add tags to a note's front matter (an edit: hash-checked, atomic, re-indexed; the body is untouched)."""

    ref: str = Field(description=REF_DOC)
    tags: list[str] = Field(description=TAG_DOC + " An item may hold several, comma-separated.", min_length=1)
    request_id: str | None = Field(None, description=REQUEST_ID_DOC, json_schema_extra=REQUEST_ID_SCHEMA)

    @field_validator("tags")
    @classmethod
    def _split(cls, v: list[str]) -> list[str]:
        return split_commas(v)

    def run(self, engine: Engine, ctx: CallContext) -> TagsEditResult:
        return engine.tags_edit(self.ref, add=self.tags, lock_wait=ctx.lock_wait, request_id=self.request_id)


class TagsRmRequest(TagsAddRequest):
    """Remove tags from a note's front matter (an edit; inline `#tags` in the body are kept and named)."""

    def run(self, engine: Engine, ctx: CallContext) -> TagsEditResult:
        return engine.tags_edit(self.ref, remove=self.tags, lock_wait=ctx.lock_wait, request_id=self.request_id)


class DoctorRequest(Request):
    """Check the installation and the index: extras, model files and hashes, SQLite and full-text integrity,
    vectors, the resident owner, the config; each finding names its fix."""

    def run(self, engine: Engine, ctx: CallContext) -> DoctorResult:
        return engine.doctor()


class CollectionRenameRequest(Request):
    """Rename a collection without re-reading its files: its URIs, journal and memory references follow."""

    collection: str = Field(description="The collection's current name.")
    new_name: str = Field(description="The new name: lowercase letters, digits, '_' and '-'; it must not exist.")

    def run(self, engine: Engine, ctx: CallContext) -> CollectionRenamed:
        return engine.collection_rename(self.collection, self.new_name, lock_wait=ctx.lock_wait)
