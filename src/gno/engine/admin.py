"""The engine's administration: the config's collections and hints, syncing and embedding, status.

Each method composes one core call (`gno.collection_admin`, `gno.hint_admin`, `gno.ingest.update`,
the semantic side, `gno.index_status`, `gno.doctor`) and drops the engine's cached config after an
edit of `index.yml`, so the next call reads what was written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict, Unpack

from gno.engine.lifecycle import Lifecycle
from gno.store.db import Store

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.

    from gno.collection_admin import NewCollectionOptions
    from gno.doctor import DoctorResult
    from gno.hints import ContextAddResult, ContextCheckResult, ContextList, ContextRemoved
    from gno.ingest.sync import ProgressFn
    from gno.ledger import RequestStatusResult
    from gno.models import (
        CollectionInfo,
        CollectionList,
        CollectionRemoved,
        EmbedResult,
        IndexResult,
        InitResult,
        StatusResult,
        SyncResult,
    )
    from gno.retrieve.semantic import EmbedProgress
    from gno.writes.rename import CollectionRenamed

    class EmbedOptions(TypedDict, total=False):
        """How `Semantic.embed` embeds (its keyword options, defaults there), passed on as given."""

        batch_size: int
        force: bool
        dry_run: bool
        progress: EmbedProgress | None
        lock_wait: float | None
        max_chunks: int | None
        first_pass_only: bool


class Admin(Lifecycle):
    """`gno init`, `collection`, `context`, `update`, `embed`, `index`, `status`, `doctor`, `request-status`."""

    def init(self, path: str | None = None, **new: Unpack[NewCollectionOptions]) -> InitResult:
        from gno import collection_admin as admin

        def opened() -> Store:
            self._config = None
            return self.store

        try:
            return admin.init(self.settings, path, admin.NewCollection(**new), opened)
        finally:
            self._config = None

    def collection_add(self, path: str, **new: Unpack[NewCollectionOptions]) -> CollectionInfo:
        from gno import collection_admin as admin

        try:
            return admin.add(self.settings, path, admin.NewCollection(**new))
        finally:
            self._config = None

    def collection_set(self, name: str, *, memory_managed: bool | None = None) -> CollectionInfo:
        from gno.collection_admin import set_memory

        try:
            return set_memory(self.settings, self.config, self.collection(name), memory_managed)
        finally:
            self._config = None

    def collection_list(self) -> CollectionList:
        from gno.collection_admin import listed

        return listed(self.config, self.store if self.settings.db_path.exists() else None)

    def collection_remove(self, name: str, *, lock_wait: float | None = None) -> CollectionRemoved:
        from gno.collection_admin import remove

        try:
            return remove(self.settings, self.config, lambda: self.store, self.lease(lock_wait), name)
        finally:
            self._config = None

    def collection_rename(self, name: str, new_name: str, *, lock_wait: float | None = None) -> CollectionRenamed:
        from gno.writes.rename import rename_collection

        try:
            return rename_collection(self, name, new_name, lock_wait)
        finally:
            self._config = None

    def update(
        self,
        collections: Sequence[str] = (),
        *,
        lock_wait: float | None = None,
        progress: ProgressFn | None = None,
        force: bool = False,
        prune: bool = False,
    ) -> SyncResult:
        """Sync the files into the index; `prune` also drops what the config no longer names."""
        from gno.ingest.update import update

        cfg = self.config
        targets = [self.collection(n) for n in collections] if collections else list(cfg.collections)
        with self.lease(lock_wait):
            return update(
                self.store,
                targets,
                {c.name for c in cfg.collections},
                self.projectors(),
                config_path=self.settings.config_path,
                progress=progress,
                force=force,
                prune=prune,
            )

    def embed(self, collections: Sequence[str] = (), **options: Unpack[EmbedOptions]) -> EmbedResult:
        return self.semantic.embed(collections=[self.collection(c).name for c in collections], **options)

    def index(
        self,
        collections: Sequence[str] = (),
        *,
        embed: bool = True,
        quick: bool = False,
        lock_wait: float | None = None,
    ) -> IndexResult:
        """Sync, then embed (`quick`: only the static first pass). Without a model or the semantic
        extra the lexical index is built and usable, and `embed_skipped` says why and what to install."""
        from gno.errors import ErrorCode, GnoError
        from gno.models import IndexResult

        sync = self.update(collections, lock_wait=lock_wait)
        if not embed:
            return IndexResult(sync=sync, embed=None, embed_skipped="--no-embed")
        try:
            emb = self.embed(collections, lock_wait=lock_wait, first_pass_only=quick)
        except GnoError as exc:
            if exc.code in (ErrorCode.VECTORS_UNAVAILABLE, ErrorCode.EXTRA_MISSING):
                return IndexResult(sync=sync, embed=None, embed_skipped=exc.message)
            raise
        return IndexResult(sync=sync, embed=emb, embed_skipped=None)

    def context_add(self, scope: str, text: str, *, lock_wait: float | None = None) -> ContextAddResult:
        from gno import hint_admin

        self._config = None
        return hint_admin.add(self.settings, self.lease(lock_wait), scope, text)

    def context_list(self) -> ContextList:
        from gno.hint_admin import listed

        return listed(self.hints())

    def context_rm(self, scope: str, text: str | None = None, *, lock_wait: float | None = None) -> ContextRemoved:
        from gno import hint_admin

        self._config = None
        return hint_admin.remove(self.settings, self.lease(lock_wait), scope, text)

    def context_check(self) -> ContextCheckResult:
        from gno.hint_admin import check

        return check(self.hints(), self.collection_names(), self.store if self.settings.db_path.exists() else None)

    def status(self) -> StatusResult:
        from gno.index_status import index_status

        return index_status(self)

    def doctor(self) -> DoctorResult:
        from gno.doctor import run_doctor

        return run_doctor(self)

    def request_status(self, request_id: str) -> RequestStatusResult:
        return self.requests.status(request_id)
