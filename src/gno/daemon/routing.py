"""Map raw file-system events to the collection paths a sync must look at.

The watcher reports paths, not meanings: an editor's atomic save is a temp file created and then
renamed over the note; `rm -rf folder` may arrive as one event for the folder and none for the
files inside it (inotify drops the watches first); a folder moved into a collection is one
event for the folder. So every event becomes a set of relative paths to (re)check: the path
itself when it is a collection file, every indexed document under it when it was a folder that
vanished, and every matching file under it when it is a folder that appeared. The path-scoped
sync then decides, per path, between index, retire and rename.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gno.config import CollectionConfig
from gno.ingest.walker import Matcher
from gno.store import documents as docs
from gno.store.db import Store


@dataclass
class Routed:
    """Per collection: relative paths to sync, and whether a folder-level event was seen."""

    paths: dict[str, set[str]] = field(default_factory=dict)
    folders: set[str] = field(default_factory=set)
    whole: set[str] = field(default_factory=set)

    def add(self, coll: str, rel: str) -> None:
        self.paths.setdefault(coll, set()).add(rel)


class ChangeRouter:
    """Routes event paths to collections (the deepest collection root that contains them)."""

    def __init__(self, collections: Sequence[CollectionConfig]) -> None:
        self.collections = sorted(collections, key=lambda c: len(c.root.parts), reverse=True)
        self.matchers = {c.name: Matcher(c) for c in collections}

    def roots(self) -> list[Path]:
        return sorted({c.root for c in self.collections if c.root.is_dir()})

    def _owner(self, path: Path) -> tuple[CollectionConfig, str] | None:
        for c in self.collections:
            try:
                rel = path.relative_to(c.root)
            except ValueError:
                continue
            return c, rel.as_posix()
        return None

    def route(self, paths: Iterable[str], store: Store) -> Routed:
        out = Routed()
        for raw in paths:
            found = self._owner(Path(raw))
            if found is None:
                continue
            coll, rel = found
            if rel == ".":
                out.whole.add(coll.name)
                continue
            m = self.matchers[coll.name]
            if any(m.prune_dir(part) for part in rel.split("/")[:-1]):
                continue
            if m.matches(rel):
                out.add(coll.name, rel)
            full = coll.root / rel
            if full.is_dir():
                out.folders.add(coll.name)
                for sub in _walk(full, rel, m):
                    out.add(coll.name, sub)
            if not full.is_file():
                # a folder that vanished (or was renamed away): every document indexed under it
                under = docs.list_docs(store, coll.name, rel + "/", limit=10**9)
                if under:
                    out.folders.add(coll.name)
                for row in under:
                    out.add(coll.name, row.rel_path)
        return out


def _walk(folder: Path, rel: str, m: Matcher) -> Iterable[str]:
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [d for d in dirnames if not m.prune_dir(d)]
        sub = os.path.relpath(dirpath, folder)
        prefix = rel + "/" if sub == "." else f"{rel}/{sub.replace(os.sep, '/')}/"
        for name in filenames:
            if m.matches(prefix + name):
                yield prefix + name
