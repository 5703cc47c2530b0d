"""The engine's lifecycle: the settings, the config, the index store, the vector side and the write lease.

Everything here is opened on first use and shared by the threads of a server: the config is
re-read when `index.yml` changes (its collection names come from the snapshot while it does not),
the store and the semantic side are created once per engine. These are also what the engine hands
the core (through the protocols of `gno.index`): a collection by name, a document filter, a ref
resolved to its row, the path-scoped sync a write runs under its lease.
"""

from __future__ import annotations

import _thread
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gno import config_snapshot
from gno.errors import ErrorCode, unknown_collection
from gno.store.db import Store
from gno.store.fts import DocFilter

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.
    from contextlib import AbstractContextManager
    from pathlib import Path

    from gno.config import CollectionConfig, GnoConfig
    from gno.hints import HintConfig
    from gno.ingest.sync import DocumentProjector
    from gno.ledger import Ledger
    from gno.models import SyncCollectionResult
    from gno.retrieve.hybrid import HybridRetriever
    from gno.retrieve.semantic import Semantic
    from gno.settings import Settings
    from gno.store import documents as docs


class Lifecycle:
    """The index as the engine owns it: lazily opened, shared by threads, released by `close`.

    Reads run in parallel (one SQLite connection per thread, WAL snapshots); writes serialise on
    the cross-process write lease they take. No engine-wide lock is held around a call.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None
        self._config: GnoConfig | None = None
        self._config_mtime: float | None = None
        self._semantic: Semantic | None = None
        self._init_lock = _thread.allocate_lock()  # lazy store / semantic creation, once per engine
        #: for callers that want to serialise their own sequences of calls (no surface takes it)
        self.lock = _thread.RLock()  # threading.RLock itself, without importing threading

    @property
    def config(self) -> GnoConfig:
        from gno.config import load_config

        identity = config_snapshot.identity(self.settings.config_location)
        mtime = identity[3] if identity else None
        if self._config is None or mtime != self._config_mtime:
            self._config = load_config(self.settings)
            self._config_mtime = mtime
            if identity is not None:
                colls = self._config.collections
                names = [c.name for c in colls]
                config_snapshot.record(self.settings, identity, names, len(self._config.contexts))
                guard = self._config.memory_guard
                config_snapshot.record_collections(self.settings, identity, colls, memory_guard=guard)
        return self._config

    def collection_names(self) -> list[str]:
        """Configured collection names, from the snapshot while `index.yml` is unchanged.

        Raises what loading the config raises (NOT_INITIALIZED, CONFIG_INVALID) otherwise, so a
        read that trusts the snapshot behaves exactly like one that validated the file.
        """
        if self._config is None:
            names = config_snapshot.read(self.settings)
            if names is not None:
                return names
        return [c.name for c in self.config.collections]

    @property
    def store(self) -> Store:
        if self._store is None:
            self.collection_names()  # no index without a valid config: NOT_INITIALIZED names `gno init`
            with self._init_lock:
                if self._store is None:
                    self._store = Store(self.settings.db_location)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def lease(
        self, wait_s: float | None = None, busy_code: ErrorCode = ErrorCode.LOCKED
    ) -> AbstractContextManager[None]:
        from gno.lease import default_wait, write_lease

        wait = default_wait(self.settings.env) if wait_s is None else wait_s
        return write_lease(self.settings.lease_path, wait, busy_code)

    @property
    def requests(self) -> Ledger:
        """The request ledger of retry-safe writes (its own file: it outlives an index rebuild)."""
        from gno.ledger import Ledger

        return Ledger(self.settings.requests_path)

    def collection(self, name: str) -> CollectionConfig:
        return self.config.require(name)

    def collection_name(self, name: str) -> str:
        """The configured name `name` refers to (case-insensitive), without validating the config twice."""
        names = self.collection_names()
        want = name.lower()
        if want not in names:
            raise unknown_collection(name, names)
        return want

    def projectors(self) -> list[DocumentProjector]:
        from gno.memory.projector import projectors

        return list(projectors())

    @property
    def semantic(self) -> Semantic:
        if self._semantic is None:
            from gno.retrieve.semantic import Semantic

            with self._init_lock:
                if self._semantic is None:
                    self._semantic = Semantic(self)
        return self._semantic

    def retriever(self) -> HybridRetriever:
        """The hybrid pipeline (rung 3) over this index, as `query` and `diagnose` run it."""
        from gno.retrieve.hybrid import HybridRetriever

        return HybridRetriever(self.store, self.semantic)

    def hints(self) -> list[HintConfig]:
        """The configured hints: none, without validating the config, while its snapshot says so."""
        state = config_snapshot.read_state(self.settings) if self._config is None else None
        return [] if state is not None and not state[1] else list(self.config.contexts)

    def doc_filter(
        self, collection: str | None = None, tags_any: Sequence[str] = (), tags_all: Sequence[str] = ()
    ) -> DocFilter:
        colls = [self.collection_name(collection)] if collection else []
        return DocFilter(collections=colls, tags_any=list(tags_any), tags_all=list(tags_all))

    def resolve(self, ref: str, *, allow_inactive: bool = False) -> docs.DocRow:
        """The document a ref names (active first); `allow_inactive` also finds deleted ones (history)."""
        from gno.refs import resolve_ref

        return resolve_ref(self.store, ref, allow_inactive=allow_inactive)

    def confined_path(self, row: docs.DocRow, *, action: str) -> Path:
        """The document's real path; VALIDATION when a symlink now leads it out of its collection."""
        from gno.confine import confined

        return confined(self.collection(row.collection).root, row.rel_path, action=action)

    def root_of(self, collection: str) -> str:
        """A configured collection's folder (COLLECTION_NOT_FOUND when it is not configured)."""
        return self.collection(collection).path

    def sync_paths(self, coll: CollectionConfig, rel_paths: set[str]) -> SyncCollectionResult:
        """Path-scoped sync for a caller that already holds the lease (remember, capture, edit, the
        resident watcher)."""
        from gno.ingest.update import sync_paths

        return sync_paths(self.store, self.projectors(), coll, rel_paths)
