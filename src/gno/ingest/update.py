"""`gno update` and the path-scoped sync of a write: the files into the index, as result models.

`update` syncs whole collections (the caller holds the write lease) (with `prune`, it also drops what the
config no longer names); `sync_paths` re-reads the few paths a write (remember, capture, edit, the
resident watcher) just made, for a caller that already holds the lease.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a cold `gno update` (`gno.cli.cold_update`) imports this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from gno.config import CollectionConfig
    from gno.ingest.sync import CollectionSync, DocumentProjector, ProgressFn
    from gno.ingest.walker import CollectionSpec
    from gno.models import SyncCollectionResult, SyncResult
    from gno.store.db import Store


def update(
    store: Store,
    targets: Sequence[CollectionConfig],
    configured: set[str],
    projectors: Sequence[DocumentProjector],
    *,
    config_path: Path,
    progress: ProgressFn | None = None,
    force: bool = False,
    prune: bool = False,
) -> SyncResult:
    """Sync `targets` (of the `configured` collections) into the index; the caller holds the lease."""
    from gno.models import SyncCollectionResult, SyncResult

    results, detached, ms = sync_files(
        store, targets, configured, projectors, config_path=config_path, progress=progress, force=force, prune=prune
    )
    return SyncResult(
        collections=[SyncCollectionResult.model_validate(r.__dict__) for r in results],
        duration_ms=ms,
        detached_collections=detached,
        pruned=prune,
    )


def sync_files(
    store: Store,
    targets: Sequence[CollectionSpec],
    configured: set[str],
    projectors: Sequence[DocumentProjector],
    *,
    config_path: Path | str,
    progress: ProgressFn | None = None,
    force: bool = False,
    prune: bool = False,
) -> tuple[list[CollectionSync], list[str], float]:
    """`update` as plain records: each target's counts, the collections that left search, the milliseconds.

    A cold `gno update` prints these without the result models; the engine builds its `SyncResult` from them.
    `targets` may be any objects with a collection's fields (the config snapshot's recorded rows).
    """
    from gno.ingest.sync import run_sync

    if not configured and not prune:
        _refuse_empty_config(store, config_path)
    results, detached, secs = run_sync(
        store, targets, projectors=projectors, progress=progress, force=force, all_collections=configured, prune=prune
    )
    return results, detached, round(secs * 1000, 1)


def _refuse_empty_config(store: Store, config_path: Path | str) -> None:
    """A blank or emptied `index.yml` is far more often a mistake than a wish to empty the index."""
    from gno.errors import ConflictError, ErrorCode
    from gno.store import documents as docs

    n = docs.count_docs(store, None)
    if n:
        raise ConflictError(
            f"{config_path} lists no collections, and the index holds {n} documents "
            "(and their vectors). Nothing was changed. Add the folders back with `gno collection add`, "
            "or run `gno update --prune` to empty the index",
            code=ErrorCode.PRUNE_REQUIRED,
            details={"config": str(config_path), "documents": n},
        )


def sync_paths(
    store: Store, projectors: Sequence[DocumentProjector], coll: CollectionConfig, rel_paths: set[str]
) -> SyncCollectionResult:
    """Named paths that exist are (re)indexed, named paths that vanished are retired, and a
    vanished path whose bytes reappear under a new name in the batch is a rename."""
    from gno.ingest.sync import Syncer
    from gno.models import SyncCollectionResult

    syncer = Syncer(store, projectors)
    try:
        r = syncer.sync_collection(coll, only=rel_paths)
    finally:
        syncer.close()
    return SyncCollectionResult.model_validate(r.__dict__)
