"""Incremental sync of collections into the index (the `gno update` pipeline).

Per file: stat → (size, mtime) unchanged ⇒ skip without reading; else read, SHA-256 the bytes,
same hash ⇒ only refresh the stat; else parse, chunk and write. Files that vanished become
inactive (their rows and content stay, so restoring identical bytes reactivates them); a new
file whose bytes equal a vanished one is a rename. Every state change lands in the change
journal. A file that cannot be read is recorded as an ingest error and never stops the sync.

The caller holds the write lease; this module does not take it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from gno.config import ChunkingConfig, CollectionConfig
from gno.ingest.chunker import chunk_text
from gno.ingest.markdown import ParsedDoc, decode_source, normalize_ref, parse_markdown
from gno.ingest.walker import MAX_FILE_BYTES, WalkedFile, walk_collection
from gno.refs import docid_for, make_uri
from gno.store import documents as docs
from gno.store.db import Store

BATCH = 500
ProgressFn = Callable[[str, int, int], None]  # (collection, done, total)


class DocumentProjector(Protocol):
    """Extra per-document projections (e.g. memory records) kept in step with sync."""

    def project(self, conn: Any, doc_id: int, coll: CollectionConfig, parsed: ParsedDoc, uri: str) -> None: ...

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


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _delta(
    old: docs.DocRow | None,
    old_links: list[dict[str, Any]],
    old_edges: list[tuple[str, str]],
    new: docs.DocWrite,
) -> dict[str, Any]:
    """Structural delta between two versions: headings, links, typed edges, dates (bounded)."""

    cut = False

    def diff(a: set[str], b: set[str]) -> dict[str, list[str]]:
        nonlocal cut
        added, removed = sorted(b - a), sorted(a - b)
        cut = cut or len(added) > 50 or len(removed) > 50
        return {"added": added[:50], "removed": removed[:50]}

    old_h = {h["text"] for h in json.loads(old.headings_json)} if old else set()
    new_h = {h["text"] for h in new.headings}
    old_l = {f"{link['link_type']}:{link['target_ref']}" for link in old_links}
    new_l = {f"{lt}:{t}" for lt, t, *_ in new.links}
    old_e = {f"{e}:{t}" for e, t in old_edges}
    new_e = {f"{e}:{t}" for e, t in new.edges}
    old_dates = dict(json.loads(old.dates_json)) if old else {}
    new_dates = dict(new.dates)
    changed = sorted(k for k in old_dates.keys() & new_dates.keys() if old_dates[k] != new_dates[k])
    old_d = {f"{k}={v}" for k, v in old_dates.items() if k not in changed}
    new_d = {f"{k}={v}" for k, v in new_dates.items() if k not in changed}
    out: dict[str, Any] = {
        "headings": diff(old_h, new_h),
        "links": diff(old_l, new_l),
        "typedEdges": diff(old_e, new_e),
        "dates": {**diff(old_d, new_d),
                  "changed": [{"field": k, "from": old_dates[k], "to": new_dates[k]} for k in changed]},
        "truncated": False,
    }
    out["truncated"] = cut
    if len(json.dumps(out)) > 16384:
        out = {k: {"added": [], "removed": []} for k in ("headings", "links", "typedEdges", "dates")}
        out["truncated"] = True
    return out


class Syncer:
    """Runs one sync over a set of collections against one store."""

    def __init__(
        self,
        store: Store,
        chunking: ChunkingConfig,
        projectors: Sequence[DocumentProjector] = (),
        progress: ProgressFn | None = None,
    ) -> None:
        self.store = store
        self.chunking = chunking
        self.projectors = list(projectors)
        self.progress = progress

    # -- building a document --------------------------------------------------------------
    def _prepare(
        self, coll: CollectionConfig, f: WalkedFile, data: bytes, source_hash: str, at: str
    ) -> tuple[docs.DocWrite, ParsedDoc, str | None]:
        text, enc_warning = decode_source(data)
        stem = Path(f.rel_path).stem
        parsed = parse_markdown(text, fallback_title=stem)
        body = parsed.body
        chunks = chunk_text(
            body,
            line_offset=parsed.body_start_line - 1,
            max_tokens=self.chunking.max_tokens,
            overlap_percent=self.chunking.overlap_percent,
        )
        warning = parsed.frontmatter_error or enc_warning
        w = docs.DocWrite(
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
            chunks=[(c.seq, c.pos, c.text, c.start_line, c.end_line, c.token_count) for c in chunks],
            indexed_at=at,
            link_keys=link_keys(parsed.title, f.rel_path),
        )
        return w, parsed, warning

    def _write(
        self,
        coll: CollectionConfig,
        w: docs.DocWrite,
        parsed: ParsedDoc,
        existing: docs.DocRow | None,
        kind: str,
        at: str,
        warning: str | None,
    ) -> int:
        conn = self.store.conn
        old_links = docs.links_of(self.store, existing.id) if existing and kind == "update" else []
        old_edges = docs.edges_of(self.store, existing.id) if existing and kind == "update" else []
        doc_id = docs.write_document(conn, w, existing.id if existing else None)
        for p in self.projectors:
            p.project(conn, doc_id, coll, parsed, w.uri)
        current = {
            "relPath": w.rel_path,
            "docid": w.docid,
            "uri": w.uri,
            "sourceHash": w.source_hash,
            "mirrorHash": w.mirror_hash,
            "active": True,
        }
        delta = _delta(existing, old_links, old_edges, w) if kind in ("create", "update") else None
        docs.record_change(conn, kind, coll.name, doc_id, at, existing.snapshot() if existing else None, current, delta)
        if warning:
            code = "FRONTMATTER_INVALID" if parsed.frontmatter_error else "ENCODING_FALLBACK"
            docs.set_ingest_error(conn, coll.name, w.rel_path, code, warning, at)
        else:
            docs.clear_ingest_error(conn, coll.name, w.rel_path)
        return doc_id

    # -- one collection -------------------------------------------------------------------
    def sync_collection(
        self, coll: CollectionConfig, *, only: set[str] | None = None, force: bool = False
    ) -> CollectionSync:
        res = CollectionSync(coll.name)
        at = now_iso()
        # a change of the projection settings (memoryManaged) re-projects every file once
        meta_key = f"collection:{coll.name}:projection"
        projection = "memory" if coll.memory_managed else "plain"
        reproject = only is None and (self.store.get_meta(meta_key) or projection) != projection
        existing = docs.collection_docs(self.store, coll.name)
        if not coll.root.is_dir():
            with self.store.write() as conn:
                docs.set_ingest_error(
                    conn,
                    coll.name,
                    "",
                    "COLLECTION_PATH_MISSING",
                    f"collection folder {coll.path} does not exist",
                    at,
                )
            res.errors += 1
            res.error_paths.append("")
            return res
        if only is not None:
            files = []
            for rel in sorted(only):
                p = coll.root / rel
                if p.is_file():
                    st = p.stat()
                    files.append(WalkedFile(rel, p, st.st_size, st.st_mtime_ns))
        else:
            files = list(walk_collection(coll))
        res.scanned = len(files)
        seen: set[str] = set()
        pending_new: list[tuple[WalkedFile, bytes, str]] = []
        failed: set[str] = set()
        total = len(files)
        conn = self.store.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            for i, f in enumerate(files, 1):
                seen.add(f.rel_path)
                if self.progress and (i % 200 == 0 or i == total):
                    self.progress(coll.name, i, total)
                old = existing.get(f.rel_path)
                if (
                    not force
                    and not reproject
                    and old is not None
                    and old.active
                    and old.source_size == f.size
                    and old.source_mtime_ns == f.mtime_ns
                ):
                    res.unchanged += 1
                    continue
                try:
                    if f.size > MAX_FILE_BYTES:
                        raise OSError("file larger than 100 MB")
                    data = f.abs_path.read_bytes()
                except OSError as exc:
                    docs.set_ingest_error(conn, coll.name, f.rel_path, "READ_FAILED", str(exc), at)
                    res.errors += 1
                    res.error_paths.append(f.rel_path)
                    failed.add(f.rel_path)
                    continue
                h = hashlib.sha256(data).hexdigest()
                if old is not None and old.source_hash == h and not force:
                    if old.active:
                        docs.touch_document(conn, old.id, f.size, f.mtime_ns)
                        if reproject:  # same bytes, new projection: no journal event
                            parsed = parse_markdown(decode_source(data)[0], fallback_title=Path(f.rel_path).stem)
                            for proj in self.projectors:
                                proj.project(conn, old.id, coll, parsed, old.uri)
                        res.unchanged += 1
                        continue
                if old is None:
                    pending_new.append((f, data, h))
                    continue
                kind = "update" if old.active else "reactivate"
                self._process(coll, f, data, h, old, kind, at, res)
                if i % BATCH == 0:
                    conn.execute("COMMIT")
                    conn.execute("BEGIN IMMEDIATE")
            # vanished files: renames first, then inactivation
            if only is None:
                missing = {rel: d for rel, d in existing.items() if d.active and rel not in seen}
            else:
                missing = {}
            by_hash: dict[str, docs.DocRow] = {}
            for d in missing.values():
                by_hash.setdefault(d.source_hash, d)
            for f, data, h in pending_new:
                moved = by_hash.pop(h, None)
                if moved is not None:
                    missing.pop(moved.rel_path, None)
                    self._process(coll, f, data, h, moved, "rename", at, res)
                else:
                    self._process(coll, f, data, h, None, "create", at, res)
            for d in missing.values():
                docs.deactivate(conn, d.id)
                for proj in self.projectors:
                    proj.retract(conn, d.id)
                docs.record_change(
                    conn, "inactivate", coll.name, d.id, at, d.snapshot(), {**d.snapshot(), "active": False}
                )
                res.inactivated += 1
            if only is None:
                docs.prune_ingest_errors(conn, coll.name, seen)
                self.store.set_meta(meta_key, projection)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return res

    def _process(
        self,
        coll: CollectionConfig,
        f: WalkedFile,
        data: bytes,
        h: str,
        old: docs.DocRow | None,
        kind: str,
        at: str,
        res: CollectionSync,
    ) -> None:
        try:
            w, parsed, warning = self._prepare(coll, f, data, h, at)
        except Exception as exc:  # noqa: BLE001 - a bad file never stops the sync
            docs.set_ingest_error(self.store.conn, coll.name, f.rel_path, "PARSE_FAILED", str(exc), at)
            res.errors += 1
            res.error_paths.append(f.rel_path)
            return
        self._write(coll, w, parsed, old, kind, at, warning)
        if warning:
            res.warnings += 1
            res.error_paths.append(f.rel_path)
        if kind == "create":
            res.added += 1
        elif kind == "update":
            res.updated += 1
        elif kind == "rename":
            res.renamed += 1
        else:
            res.reactivated += 1

    def finish(self, known_collections: set[str]) -> None:
        """Drop rows of collections no longer in the config; collect unreferenced content."""
        with self.store.write() as conn:
            rows = conn.execute("SELECT DISTINCT collection FROM documents").fetchall()
            for r in rows:
                if r[0] not in known_collections:
                    docs.delete_collection(conn, r[0])
            docs.gc_content(conn)


def run_sync(
    store: Store,
    collections: Sequence[CollectionConfig],
    chunking: ChunkingConfig,
    *,
    projectors: Sequence[DocumentProjector] = (),
    progress: ProgressFn | None = None,
    force: bool = False,
    all_collections: set[str] | None = None,
) -> tuple[list[CollectionSync], float]:
    t0 = time.perf_counter()
    syncer = Syncer(store, chunking, projectors, progress)
    results = [syncer.sync_collection(c, force=force) for c in collections]
    if all_collections is not None:
        syncer.finish(all_collections)
    return results, time.perf_counter() - t0
