"""The index as core code sees it: narrow views that the composition root (the engine) satisfies.

Core modules never import the engine. Each states the few things it reads or calls through one
of these protocols, and the engine, which owns the settings, the config, the store and the write
lease, hands itself (or a narrower object) in. The store and the config stay lazy behind them:
a request is validated before anything opens the index, exactly as when the engine calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gno.errors import ErrorCode, RuntimeFailure

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from gno.config import CollectionConfig, GnoConfig
    from gno.ledger import Ledger
    from gno.retrieve.semantic import Semantic
    from gno.settings import Settings
    from gno.store.db import Store


class IndexReader(Protocol):
    """The index (opened on first use) and the current config (re-read when `index.yml` changes)."""

    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> GnoConfig: ...


class SemanticIndex(IndexReader, Protocol):
    """The index with its settings and its vector side (created on first use, so a caller that
    never asks for `semantic` loads no model)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def semantic(self) -> Semantic: ...


class WriteLease(Protocol):
    """The cross-process write lease every write of this index takes (`gno.lease.write_lease`)."""

    def lease(
        self, wait_s: float | None = None, busy_code: ErrorCode = ErrorCode.LOCKED
    ) -> AbstractContextManager[None]: ...


class IndexWriter(IndexReader, WriteLease, Protocol):
    """What a write path (capture, edit, remember) needs: read, lease, sync what it wrote, and the
    request ledger its retry-safe writes record their plans and outcomes in."""

    @property
    def requests(self) -> Ledger: ...

    def sync_paths(self, coll: CollectionConfig, rel_paths: set[str]) -> object:
        """Index exactly these paths of the collection now; the caller holds the lease."""
        ...


def sync_written(index: IndexWriter, coll: CollectionConfig, rel: str, what: str, code: ErrorCode) -> None:
    """Index the file a write just made (the caller holds the lease); a failure keeps the file, names it
    and `gno update` (the index lags the file, nothing is lost)."""
    path = coll.root / rel
    try:
        index.sync_paths(coll, {rel})
    except Exception as exc:  # noqa: BLE001 - the file is kept; the index lags
        raise RuntimeFailure(
            f"{what} {path} but the index sync failed ({exc}); run `gno update`",
            code=code,
            details={"absPath": str(path)},
        ) from exc
