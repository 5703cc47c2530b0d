"""`gno update` from a cold process, without click, pydantic or the capability models.

A no-change re-index of a large vault is a walk and one stat per file: about half a second for
38k files. Importing click, pydantic and the capability models costs most of that again, so the
console script answers a plain `gno [--index N] [--config F] update [-c NAME]... [--force]
[--json]` here, when the config is unchanged since it last validated (its recorded collections,
`gno.config_snapshot`), the write lease is free at once, and no terminal waits for a progress
bar. It makes the core call `Engine.update` makes (`gno.ingest.update.sync_files` under the write
lease, with the same projectors and every configured name, so collections the config dropped leave
search) and prints what the click command prints. Anything else -- help, another option, a stale record, a busy
lease, an unknown collection, any error -- goes to click, which runs the command as always; a
sync that failed half-way is simply continued there (sync is idempotent and commits in batches).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gno.ingest.sync import CollectionSync

from gno.cli.entry import Unhandled, options

_VALUES = {"-c": "collections", "--collection": "collections"}
_FLAGS = {"--force": "force", "--json": "as_json"}


class RecordedCollection:
    """A collection as the validated config recorded it (the fields a walk and a sync read)."""

    __slots__ = ("name", "path", "pattern", "include", "exclude", "memory_managed", "file_cap")

    def __init__(self, row: dict[str, Any]) -> None:
        self.name: str = row["name"]
        self.path: str = row["path"]
        self.pattern: str = row["pattern"]
        self.include: list[str] = list(row["include"])
        self.exclude: list[str] = list(row["exclude"])
        self.memory_managed: bool = bool(row["memory_managed"])
        self.file_cap: int = int(row["file_cap"])


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def sync_json(results: Sequence[CollectionSync], detached: list[str], duration_ms: float) -> dict[str, Any]:
    """The `--json` body of an update, as `SyncResult.dump()` writes it (a test holds them equal)."""
    return {
        "collections": [{_camel(k): v for k, v in r.__dict__.items()} for r in results],
        "durationMs": duration_ms,
        "status": "completed",
        "detachedCollections": detached,
        "pruned": False,
    }


def cold_update(_command: str, glob: dict[str, Any], rest: Sequence[str]) -> str:
    """The complete output of `gno GLOBAL update REST` when plain, or `Unhandled`."""
    opts, words, _ = options(rest, _VALUES, _FLAGS, stop_at_word=False, multi={"collections"})
    if words or sys.stderr.isatty():
        raise Unhandled("arguments, or a terminal that wants a progress bar")

    from gno import config_snapshot
    from gno.settings import build_settings

    settings = build_settings(index_name=glob.get("index"), config_file=glob.get("config"))
    rows = config_snapshot.read_collections(settings)
    if not rows:
        raise Unhandled("config to validate, or no collections (the engine explains)")
    colls = [RecordedCollection(r) for r in rows]
    wanted = opts.get("collections") or []
    by_name = {c.name: c for c in colls}
    if any(n not in by_name for n in wanted):
        raise Unhandled("a collection to look up case-insensitively, or to report as unknown")
    targets = [by_name[n] for n in dict.fromkeys(wanted)] if wanted else colls

    from gno.ingest.update import sync_files
    from gno.lease import write_lease
    from gno.memory.projector import projectors
    from gno.store.db import Store

    with write_lease(settings.lease_path, 0.0):  # busy: click waits for it, with its message
        store = Store(settings.db_location)
        try:
            force = bool(opts.get("force"))
            configured, where = set(by_name), settings.config_location
            results, detached, ms = sync_files(store, targets, configured, projectors(), config_path=where, force=force)
        finally:
            store.close()
    if opts.get("as_json"):
        import json

        return json.dumps(sync_json(results, detached, ms), ensure_ascii=False, indent=2) + "\n"
    from gno.cli.render_sync import sync_lines

    return "".join(line + "\n" for line in sync_lines(results, detached, ms, pruned=False))
