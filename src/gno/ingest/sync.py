"""Incremental sync of collections into the index (the `gno update` pipeline).

Walk first (one stat per file), then compare with the index's (path, size, mtime, hash) rows:
an unchanged stat is skipped without reading. A changed file is read and SHA-256'd: same hash ⇒
only the stat is refreshed; else it is parsed and written. No chunks are cut here: only the
embedder reads them, so `gno embed` cuts them from the stored content (`gno.ingest.chunking`).
Files that vanished become inactive (their rows and content stay, so restoring identical bytes
reactivates them); a new file whose bytes equal a vanished one is a rename. Every state change
lands in the change journal. A file that cannot be read is recorded as an ingest problem and
never stops the sync.

Work is committed in batches (every `COMMIT_FILES` files or `COMMIT_SECONDS`), each batch whole
documents only, so the index is consistent at every commit: a search during a first index sees
what is indexed so far, and a killed `update` keeps it (the next run skips it as unchanged).

The caller holds the write lease; this module does not take it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gno.clock import now_iso as now_iso
from gno.ingest.convert_pool import Converted, ConvertPool
from gno.ingest.converters import NATIVE_EXTENSIONS, Budget, Converter, extension, registry
from gno.ingest.markdown import NotText, ParsedDoc, decode_source, normalize_ref, parse_markdown
from gno.ingest.problems import IngestCode, severity
from gno.ingest.structure_delta import structure_delta
from gno.ingest.walker import CollectionSpec, Walk, WalkedFile, read_file, stat_paths, walk_collection
from gno.refs import docid_for, make_uri
from gno.store import documents as docs
from gno.store.db import Store
from gno.store.doc_batch import DocBatch, DocWrite

COMMIT_FILES = 2000
COMMIT_SECONDS = 2.0
PROGRESS_EVERY = 200
ProgressFn = Callable[[str, int, int], None]  # (collection, done, total)


class DocumentProjector(Protocol):
    """Extra per-document projections (e.g. memory records) kept in step with sync."""

    def project(self, conn: Any, doc_id: int, coll: CollectionSpec, parsed: ParsedDoc, uri: str) -> None: ...

    def retract(self, conn: Any, doc_id: int) -> None: ...


@dataclass
class CollectionSync:
    name: str
    scanned: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    renamed: int = 0
    inactivated: int = 0
    reactivated: int = 0
    errors: int = 0
    warnings: int = 0
    error_paths: list[str] = field(default_factory=list)


def link_keys(title: str, rel_path: str) -> list[str]:
    """Keys a wiki/markdown link may use to name this document: its title and its file stem."""
    return sorted({normalize_ref(title), normalize_ref(rel_path)} - {""})


def _stem(rel_path: str) -> str:
    """The file name without its last suffix (as `PurePosixPath.stem`, without building a path)."""
    name = rel_path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def _has_text(body: str) -> bool:
    """Whether a mirror holds anything besides headings (a scanned PDF has only `## Page N`)."""
    return any(ln.strip() and not ln.startswith("#") for ln in body.split("\n"))


class Syncer:
    """Runs one sync over a set of collections against one store."""

    def __init__(
        self,
        store: Store,
        projectors: Sequence[DocumentProjector] = (),
        progress: ProgressFn | None = None,
        *,
        commit_files: int = COMMIT_FILES,
        commit_seconds: float = COMMIT_SECONDS,
        budget: Budget | None = None,
    ) -> None:
        self.store = store
        self.projectors = list(projectors)
        self.progress = progress
        self.commit_files = commit_files
        self.commit_seconds = commit_seconds
        self.budget = budget or Budget()
        self._pool: ConvertPool | None = None

    def convert(self, conv: Converter, f: WalkedFile) -> Converted:
        """The file's markdown mirror from the conversion worker (started on first use)."""
        if self._pool is None:
            self._pool = ConvertPool(self.budget)
        return self._pool.convert(conv, f.abs_path, f.size)

    def close(self) -> None:
        """Stop the conversion worker, if one was started."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def prepare(
        self, coll: CollectionSpec, f: WalkedFile, text: str, source_hash: str, at: str
    ) -> tuple[DocWrite, ParsedDoc]:
        """Parse one document's text into the rows the index keeps for it."""
        parsed = parse_markdown(text, fallback_title=_stem(f.rel_path))
        body = parsed.body
        w = DocWrite(
            collection=coll.name,
            rel_path=f.rel_path,
            source_hash=source_hash,
            source_size=f.size,
            source_mtime_ns=f.mtime_ns,
            docid=docid_for(source_hash),
            uri=make_uri(coll.name, f.rel_path),
            title=parsed.title,
            mirror_hash=parsed.mirror_hash,
            canonical=parsed.canonical,
            body=body,
            body_start_line=parsed.body_start_line,
            frontmatter=parsed.frontmatter,
            headings=[{"level": h.level, "text": h.text, "line": h.line} for h in parsed.headings],
            dates=parsed.dates,
            tags=parsed.tags,
            links=[(lk.link_type, lk.target, lk.target_norm, lk.anchor, lk.text, lk.line) for lk in parsed.links],
            edges=parsed.relations,
            indexed_at=at,
            link_keys=link_keys(parsed.title, f.rel_path),
        )
        return w, parsed

    def sync_collection(
        self, coll: CollectionSpec, *, only: set[str] | None = None, force: bool = False
    ) -> CollectionSync:
        run = _CollectionRun(self, coll, force=force, scoped=only is not None)
        if not os.path.isdir(coll.path):
            run.folder_missing()
        else:
            run.run(stat_paths(coll, only) if only is not None else walk_collection(coll), named=only)
        return run.result()

    def finish(self, known_collections: set[str], *, prune: bool = False) -> list[str]:
        """Collections in the index but not in the config leave search; `prune` also drops their rows.

        Without `prune` their rows, content and vectors stay (inactive), so putting the collection
        back needs no re-embedding. Returns the collections that left search in this call.
        """
        gone = [c for c in docs.indexed_collections(self.store) if c not in known_collections]
        left: list[str] = []
        if not gone and not prune:
            return left
        with self.store.write() as conn:
            for name in gone:
                if prune:
                    docs.delete_collection(conn, name)
                elif docs.deactivate_collection(conn, name, now_iso()):
                    left.append(name)
            if prune:
                docs.gc_content(conn)
        return left


class _CollectionRun:
    """The state of one collection's sync: its index rows, the open batch, its problems."""

    def __init__(self, syncer: Syncer, coll: CollectionSpec, *, force: bool, scoped: bool) -> None:
        self.s = syncer
        self.store = syncer.store
        self.coll = coll
        self.force = force
        self.scoped = scoped
        self.at = now_iso()
        self.res = CollectionSync(coll.name)
        self.meta_key = f"collection:{coll.name}:projection"
        self.projection = "memory" if coll.memory_managed else "plain"
        stored = self.store.get_meta(self.meta_key)
        self.reproject = not scoped and (stored or self.projection) != self.projection
        self.problems = docs.ingest_problems(self.store, coll.name)  # rel_path -> (code, message)
        self.by_hash: dict[str, int] = {}  # vanished documents a new file may be a rename of
        self.claimed: set[int] = set()
        self.hashes: dict[int, str] = {}  # source hashes of the rows this run may replace
        self.batch: DocBatch | None = None
        self.replaced: set[str] = set()  # mirror hashes that may have lost their last document
        self.done = 0
        self.tags_key = f"collection:{coll.name}:converters"
        self.tags: dict[str, str] | None = None  # extension -> converter tag, when documents were walked
        self.reconvert: frozenset[str] = frozenset()  # extensions whose converter changed since the last run

    # -- problems ------------------------------------------------------------------------
    def problem(self, rel: str, code: IngestCode, message: str) -> None:
        message = message[:1000]
        if self.problems.get(rel) != (code, message):
            docs.set_ingest_error(self.store.conn, self.coll.name, rel, code, message, self.at)
            self.problems[rel] = (code, message)

    def clear_problem(self, rel: str) -> None:
        if self.problems.pop(rel, None) is not None:
            docs.clear_ingest_error(self.store.conn, self.coll.name, rel)

    def folder_missing(self) -> None:
        with self.store.write():
            self.problem("", IngestCode.COLLECTION_PATH_MISSING, f"collection folder {self.coll.path} does not exist")

    def result(self) -> CollectionSync:
        """Counts from the standing problem rows: the very numbers `status` shows."""
        for rel, (code, _) in sorted(self.problems.items()):
            if severity(code) == "error":
                self.res.errors += 1
            else:
                self.res.warnings += 1
            self.res.error_paths.append(rel)
        return self.res

    # -- the run -------------------------------------------------------------------------
    def run(self, walk: Walk, named: set[str] | None = None) -> None:
        # a path-scoped sync (a write, the resident watcher) also looks up the named paths that
        # vanished: they are retired, or renamed when their bytes reappear under a walked name
        scoped = sorted({f.rel_path for f in walk.files} | (named or set())) if self.scoped else None
        rows = docs.stat_rows(self.store, self.coll.name, scoped)  # popped as walked: the rest vanished
        res = self.res
        res.scanned = len(walk.files)
        todo: list[tuple[WalkedFile, docs.StatRow | None]] = []
        recheck = self.force or self.reproject
        if walk.documents:
            self.converter_versions()
        reconvert = self.reconvert
        for f in walk.files:
            old = rows.pop(f.rel_path, None)
            if old is not None and old.size == f.size and old.mtime_ns == f.mtime_ns and old.active and not recheck:
                if not reconvert or extension(f.rel_path) not in reconvert:
                    res.unchanged += 1
                    continue
            todo.append((f, old))
        todo.sort(key=lambda t: t[0].rel_path)  # one order for ids and the journal, whatever the listing
        missing = [r for rel, r in rows.items() if r.active and not walk.covers_unlisted(rel)]
        stale: list[str] = []
        if self.problems and not self.scoped:  # problems of paths that are gone
            keep = {f.rel_path for f in walk.files} | {i.rel_path for i in walk.issues}
            stale = [rel for rel in self.problems if rel not in keep]
        issues_new = [i for i in walk.issues if self.problems.get(i.rel_path) != (i.code, i.message)]
        meta_due = not self.scoped and self.store.get_meta(self.meta_key) != self.projection
        meta_due = meta_due or (self.tags is not None and bool(self.reconvert))
        if not (todo or missing or stale or issues_new or meta_due):
            return  # a no-change re-index writes nothing
        self.hashes = docs.source_hashes(self.store, [r.id for r in missing] + [o.id for _, o in todo if o])
        for r in missing:
            self.by_hash.setdefault(self.hashes[r.id], r.id)
        base = res.unchanged
        conn = self.store.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            self.batch = DocBatch(conn)
            last_commit = time.monotonic()
            for f, old in todo:
                self.file(f, old)
                self.done += 1
                if self.s.progress and self.done % PROGRESS_EVERY == 0:
                    self.s.progress(self.coll.name, base + self.done, res.scanned)
                if self.batch.pending >= self.s.commit_files or time.monotonic() - last_commit >= self.s.commit_seconds:
                    self.commit()
                    last_commit = time.monotonic()
            for r in missing:
                if r.id not in self.claimed:  # not renamed: the file is gone
                    self.deactivate(r.id)
            for i in walk.issues:
                self.problem(i.rel_path, i.code, i.message)
            for rel in stale:
                self.clear_problem(rel)
            self.gc()
            if not self.scoped:
                self.store.set_meta(self.meta_key, self.projection)
                if self.tags is not None:
                    self.store.set_meta(self.tags_key, json.dumps(self.tags, sort_keys=True))
            self.batch.flush()
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if self.s.progress and todo:
            self.s.progress(self.coll.name, res.scanned, res.scanned)

    def converter_versions(self) -> None:
        """Which converted formats a new converter (or library) version re-converts in this run."""
        self.tags = registry().tags()
        stored = self.store.get_meta(self.tags_key)
        try:
            before: dict[str, str] = json.loads(stored) if stored else {}
        except ValueError:
            before = {}
        self.reconvert = frozenset(e for e in self.tags if before.get(e) != self.tags[e])
        if self.scoped:  # a path-scoped sync converts what it is given; the next full run records
            self.reconvert = frozenset()

    def commit(self) -> None:
        assert self.batch is not None
        self.batch.flush()
        self.store.conn.execute("COMMIT")
        self.store.conn.execute("BEGIN IMMEDIATE")

    def gc(self) -> None:
        """Drop content that its last document just let go of (only what this run replaced)."""
        if self.replaced:
            assert self.batch is not None
            self.batch.flush()
            docs.gc_content(self.store.conn, sorted(self.replaced))

    # -- one file ------------------------------------------------------------------------
    def file(self, f: WalkedFile, old: docs.StatRow | None) -> None:
        assert self.batch is not None
        rel = f.rel_path
        try:
            if f.size < 0:
                raise FileNotFoundError(2, "No such file or directory (dangling symlink)", f.abs_path)
            data = read_file(f.abs_path)
        except OSError as exc:
            self.problem(rel, IngestCode.READ_FAILED, str(exc))  # the last good version stays indexed
            return
        h = hashlib.sha256(data).hexdigest()
        ext = extension(rel)
        conv = None if ext in NATIVE_EXTENSIONS else registry().by_ext.get(ext)
        if old is not None and old.active and self.hashes.get(old.id) == h and not self.force:
            if conv is None or ext not in self.reconvert:  # the source hash decides re-conversion
                self.batch.touch(old.id, f.size, f.mtime_ns)
                if self.reproject:  # same bytes, new projection: no journal event
                    parsed = parse_markdown(self.source_text(old.id, data, conv), fallback_title=_stem(rel))
                    for proj in self.s.projectors:
                        proj.project(self.store.conn, old.id, self.coll, parsed, make_uri(self.coll.name, rel))
                self.res.unchanged += 1
                return
        note: Converted | None = None
        enc_warning: str | None = None
        if conv is not None:
            note = self.s.convert(conv, f)
            if note.markdown is None:  # refused: the last good version (if any) stays indexed
                self.problem(rel, note.code or IngestCode.CONVERT_FAILED, note.message)
                return
            text = note.markdown
        else:
            try:
                text, enc_warning = decode_source(data)
            except NotText as exc:
                self.problem(rel, IngestCode.NOT_TEXT, str(exc))
                if old is not None and old.active:
                    self.deactivate(old.id)
                return
        target: int | None = None
        if old is not None:
            kind, target = ("update" if old.active else "reactivate"), old.id
        elif (moved := self.by_hash.pop(h, None)) is not None:
            kind, target = "rename", moved
            self.claimed.add(moved)
        else:
            kind = "create"
        try:
            w, parsed = self.s.prepare(self.coll, f, text, h, self.at)
        except Exception as exc:  # noqa: BLE001 - a bad file never stops the sync
            self.problem(rel, IngestCode.PARSE_FAILED, str(exc))
            return
        self.write(w, parsed, target, kind)
        if note is not None and note.code is not None:
            self.problem(rel, note.code, note.message)
        elif note is not None and not _has_text(parsed.body):
            self.problem(rel, IngestCode.NO_TEXT, "no text to index (a scan or an image-only file?); indexed by name")
        elif parsed.frontmatter_error:
            self.problem(rel, IngestCode.FRONTMATTER_INVALID, parsed.frontmatter_error)
        elif enc_warning:
            self.problem(rel, IngestCode.ENCODING_FALLBACK, enc_warning)
        else:
            self.clear_problem(rel)
        counter = {"create": "added", "update": "updated", "rename": "renamed", "reactivate": "reactivated"}[kind]
        setattr(self.res, counter, getattr(self.res, counter) + 1)

    def write(self, w: DocWrite, parsed: ParsedDoc, target: int | None, kind: str) -> None:
        assert self.batch is not None
        conn = self.store.conn
        if target is None:
            doc_id = self.batch.put(w, None)
            previous = delta = None
            if self.coll.memory_managed:  # a new document has no projection to drop elsewhere
                for p in self.s.projectors:
                    p.project(conn, doc_id, self.coll, parsed, w.uri)
        else:
            existing = docs.doc_by_id(self.store, target)
            assert existing is not None
            delta = None
            if kind == "update":
                old_links, old_edges = docs.links_of(self.store, target), docs.edges_of(self.store, target)
                delta = structure_delta(existing, old_links, old_edges, w)
            previous = existing.snapshot()
            if existing.mirror_hash != w.mirror_hash:
                self.replaced.add(existing.mirror_hash)
            doc_id = self.batch.put(w, target)
            for p in self.s.projectors:
                p.project(conn, doc_id, self.coll, parsed, w.uri)
        self.batch.change(kind, self.coll.name, doc_id, self.at, previous, w.snapshot(), delta)

    def source_text(self, doc_id: int, data: bytes, conv: Converter | None) -> str:
        """The text a document was parsed from: its file's, or for a converted file its stored mirror."""
        if conv is None:
            return decode_source(data)[0]
        row = docs.doc_by_id(self.store, doc_id)
        return (docs.content_of(self.store, row.mirror_hash) or "") if row is not None else ""

    def deactivate(self, doc_id: int) -> None:
        assert self.batch is not None
        row = docs.doc_by_id(self.store, doc_id)
        assert row is not None
        docs.deactivate(self.store.conn, doc_id)
        for proj in self.s.projectors:
            proj.retract(self.store.conn, doc_id)
        snap = row.snapshot()
        self.batch.change("inactivate", self.coll.name, doc_id, self.at, snap, {**snap, "active": False})
        self.res.inactivated += 1


def run_sync(
    store: Store,
    collections: Sequence[CollectionSpec],
    *,
    projectors: Sequence[DocumentProjector] = (),
    progress: ProgressFn | None = None,
    force: bool = False,
    all_collections: set[str] | None = None,
    prune: bool = False,
) -> tuple[list[CollectionSync], list[str], float]:
    """Sync `collections`; with `all_collections`, also retire what the config no longer names."""
    t0 = time.perf_counter()
    syncer = Syncer(store, projectors, progress)
    try:
        results = [syncer.sync_collection(c, force=force) for c in collections]
    finally:
        syncer.close()
    left = syncer.finish(all_collections, prune=prune) if all_collections is not None else []
    return results, left, time.perf_counter() - t0
