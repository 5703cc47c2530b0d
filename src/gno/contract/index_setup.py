"""Requests that set an index up: init, collection add/set/remove, embed, index (sync then embed)
and the demo on the shipped sample notes.

They change which folders of the machine gno reads, or run for minutes with a progress bar, so
the CLI and the in-process SDK offer them and REST and MCP do not (`gno.contract.NO_HTTP`,
`NO_MCP` say why for each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from gno.contract.request import CallContext, Request

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.models import CollectionInfo, CollectionRemoved, DemoResult, EmbedResult, IndexResult, InitResult

MEMORY_DOC = "A memory collection: remember writes fact files into it and recall reads them."
PATTERN_DOC = 'Glob of files to index (default "**/*.md").'


class NewCollectionFields(Request):
    """What a new collection takes besides its folder (`init PATH` and `collection add`)."""

    name: str | None = Field(None, description="Collection name (default: the folder name).")
    pattern: str | None = Field(None, description=PATTERN_DOC)
    include: list[str] = Field(default_factory=list, description="Extension allowlist, e.g. .md.")
    exclude: list[str] = Field(default_factory=list, description="Folder names to skip (replaces the defaults).")
    memory_managed: bool = Field(False, description=MEMORY_DOC)

    def new_collection(self) -> dict[str, Any]:
        return self.fields("path")


class InitRequest(NewCollectionFields):
    """Create the config and the index; optionally add `path` as a first collection."""

    path: str | None = Field(None, description="A folder to add as the first collection.")

    def run(self, engine: Engine, ctx: CallContext) -> InitResult:
        return engine.init(self.path, **self.new_collection())


class CollectionAddRequest(NewCollectionFields):
    """Add a folder as a collection (`update` indexes it)."""

    path: str = Field(description="The folder (relative to the caller's working directory, or absolute).")

    def run(self, engine: Engine, ctx: CallContext) -> CollectionInfo:
        return engine.collection_add(self.path, **self.new_collection())


class CollectionSetRequest(Request):
    """Change a collection's settings in the config (`update` applies them to the index)."""

    name: str = Field(description="The collection.")
    memory_managed: bool | None = Field(None, description=MEMORY_DOC + " False: a plain collection.")

    def run(self, engine: Engine, ctx: CallContext) -> CollectionInfo:
        return engine.collection_set(self.name, memory_managed=self.memory_managed)


class CollectionRemoveRequest(Request):
    """Remove a collection from the config and its documents from search (its files are untouched)."""

    name: str = Field(description="The collection.")

    def run(self, engine: Engine, ctx: CallContext) -> CollectionRemoved:
        return engine.collection_remove(self.name, lock_wait=ctx.lock_wait)


class EmbedRequest(Request):
    """Embed the chunks that have no vector yet (incremental and resumable)."""

    collections: list[str] = Field(default_factory=list, description="Only these collections (default: all).")
    force: bool = Field(False, description="Re-embed everything for the configured model.")
    batch_size: int = Field(
        8, description="Chunks per model call (1-1024).", json_schema_extra={"minimum": 1, "maximum": 1024}
    )
    dry_run: bool = Field(False, description="Only count what would be embedded.")

    def run(self, engine: Engine, ctx: CallContext) -> EmbedResult:
        return engine.embed(**self.fields(), progress=ctx.progress, lock_wait=ctx.lock_wait)


class IndexRequest(Request):
    """Sync the files, then embed the new chunks (= update + embed)."""

    collections: list[str] = Field(default_factory=list, description="Only these collections (default: all).")
    no_embed: bool = Field(False, description="Sync only (same as update).")
    quick: bool = Field(False, description="Stop after the static first pass (a vector for every chunk in seconds).")

    def run(self, engine: Engine, ctx: CallContext) -> IndexResult:
        return engine.index(self.collections, embed=not self.no_embed, quick=self.quick, lock_wait=ctx.lock_wait)


class DemoRequest(Request):
    """Index the sample notes shipped with gno in a scratch home, search them, remember one fact and
    recall it (never the caller's own config or index)."""

    home: str | None = Field(None, description="Folder for the demo's config and index (default: a temp folder).")
    query: str = Field("retrieval ladder", description="What to search for.")

    @field_validator("home")
    @classmethod
    def _blank(cls, v: str | None) -> str | None:
        return v or None

    def run(self, engine: Engine, ctx: CallContext) -> DemoResult:
        from gno.engine.demo import run_demo

        return run_demo(self.home, self.query)
