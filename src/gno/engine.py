"""The engine: one facade, one method per capability, shared by every surface.

Surfaces (CLI, MCP, REST, SDK) parse input, make one call here and render the pydantic result.
The engine owns the settings, the config, the index store and the write lease; capability
logic lives in the core packages (ingest, retrieve, memory, evidence, writes) and is composed
here. Core never imports this module: each core function states what it uses (the protocols of
`gno.index`, `CapsuleSource`, `SemanticHost`, `Searcher`, or plain values), and the engine hands
itself or those values in (`lint-imports` holds the layering).
"""

from __future__ import annotations

import _thread
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gno import config_snapshot
from gno.errors import ConflictError, ErrorCode, ValidationError, from_exception, unknown_collection
from gno.retrieve.search import SearchOptions, SearchPage, check_query, search_page
from gno.store.db import Store
from gno.store.fts import DocFilter
from gno.wire import fields

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.
    from contextlib import AbstractContextManager
    from pathlib import Path

    from gno.config import CollectionConfig, GnoConfig
    from gno.doctor import DoctorResult
    from gno.evidence.capsule import CapsuleRequest
    from gno.evidence.graph_models import GraphResult
    from gno.hints import ContextAddResult, ContextCheckResult, ContextList, ContextRemoved, HintConfig
    from gno.ingest.sync import DocumentProjector, ProgressFn
    from gno.ledger import Ledger, RequestStatusResult
    from gno.memory.models import AuditResult, MemoryHistoryResult, RecallResult, RememberResult
    from gno.memory.recall import RecallRequest
    from gno.memory.remember import RememberRequest
    from gno.models import (
        AskResult,
        BenchResult,
        Capsule,
        CaptureResult,
        ChangesResult,
        CollectionInfo,
        CollectionList,
        CollectionRemoved,
        ContextVerifyResult,
        DiagnoseResult,
        DiffResult,
        DocumentResult,
        DocUpdateResult,
        EmbedResult,
        ImpactResult,
        InitResult,
        LinksResult,
        LsResult,
        MultiGetResult,
        QueryExplain,
        SearchResult,
        StatusResult,
        SyncCollectionResult,
        SyncResult,
    )
    from gno.retrieve.hybrid import Depth, HybridRetriever, QueryOptions, QueryRun
    from gno.retrieve.semantic import Semantic
    from gno.retrieve.similar import SimilarResult
    from gno.settings import Settings
    from gno.store import documents as docs
    from gno.writes.capture import CaptureRequest
    from gno.writes.rename import CollectionRenamed
    from gno.writes.tags import TagsEditResult, TagsResult


def _collection_info(c: CollectionConfig, count: int | None = None) -> CollectionInfo:
    from gno.models import CollectionInfo

    return CollectionInfo(
        name=c.name,
        path=c.path,
        pattern=c.pattern,
        include=c.include,
        exclude=c.exclude,
        memory_managed=c.memory_managed,
        egress_policy=c.egress_policy,
        documents=count,
    )


def nested_memory_exclude(folder: Path, memory_folder: Path) -> str | None:
    """The `exclude` glob by which a collection in `folder` leaves the memory collection in
    `memory_folder` (below it) its files, or None when the path cannot be spelled as a glob."""
    rel = memory_folder.relative_to(folder).as_posix()
    return None if any(ch in rel for ch in "*?[]{}") else f"{rel}/**"


def _check_overlap(cfg: GnoConfig, root: Path, *, memory: bool) -> list[tuple[str, str]]:
    """A folder inside (or holding) another collection's folder would index its files twice;
    the one nesting allowed is a memory collection inside an ordinary one (memory kept in the
    vault, so the facts show in the user's editor): the outer collection then excludes the
    memory folder. Returns the (collection, glob) exclusions that make the nesting disjoint."""
    from pathlib import Path

    exclusions: list[tuple[str, str]] = []
    for c in cfg.collections:
        other = Path(c.path).expanduser().resolve()
        inner_memory = (memory and not c.memory_managed and other in root.parents) or (
            c.memory_managed and not memory and root in other.parents
        )
        outer, inner = (other, root) if memory else (root, other)
        glob = nested_memory_exclude(outer, inner) if inner_memory else None
        if glob is not None:
            exclusions.append((c.name if memory else "", glob))
            continue
        if root == other or other in root.parents or root in other.parents:
            how = "is" if root == other else "is inside" if other in root.parents else "contains"
            raise ConflictError(
                f"folder {root} {how} the folder of collection {c.name!r} ({other}): its files would be "
                f"indexed twice. Narrow {c.name!r} with --pattern/--exclude, or pick a folder outside it",
                code=ErrorCode.COLLECTION_OVERLAP,
                details={"path": str(root), "collection": c.name, "collectionPath": str(other)},
            )
    return exclusions


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return (s or "notes")[:64]


def _checked_name(name: str) -> str:
    """A `--name` as given (trimmed, lowercased), or VALIDATION naming a valid spelling of it."""
    from gno.config import COLLECTION_NAME_RE

    cname = name.strip().lower()
    if not COLLECTION_NAME_RE.match(cname):
        raise ValidationError(
            f"invalid collection name {name!r}: use lowercase letters, digits, '_' and '-' (at most 64, "
            f"starting with a letter or digit), e.g. --name {_slug(name)}",
            details={"collection": name, "suggestion": _slug(name)},
        )
    return cname


class Engine:
    """Facade over one index, shared by the threads of a server.

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

    # -- plumbing -----------------------------------------------------------------------
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

    def request_status(self, request_id: str) -> RequestStatusResult:
        return self.requests.status(request_id)

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
        from gno.memory.projector import MemoryProjector

        return [MemoryProjector()]

    # -- init & collections ---------------------------------------------------------------
    def init(
        self,
        path: str | None = None,
        *,
        name: str | None = None,
        pattern: str | None = None,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        memory_managed: bool = False,
    ) -> InitResult:
        from gno.config import GnoConfig, save_config
        from gno.models import InitResult

        cfg_path = self.settings.config_path
        created = not cfg_path.exists()
        coll = None
        if path:
            # first, so that a bad folder, name or pattern leaves no config and no index behind
            coll = self.collection_add(
                path, name=name, pattern=pattern, include=include, exclude=exclude, memory_managed=memory_managed
            )
        elif created:
            save_config(self.settings, GnoConfig())
            self._config = None
        _ = self.store
        return InitResult(
            config_path=str(cfg_path), db_path=str(self.settings.db_path), created=created, collection=coll
        )

    def collection_add(
        self,
        path: str,
        *,
        name: str | None = None,
        pattern: str | None = None,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        memory_managed: bool = False,
    ) -> CollectionInfo:
        from pathlib import Path

        from gno.config import DEFAULT_EXCLUDES, CollectionConfig, load_config, save_config

        root = Path(path).expanduser().resolve()
        if memory_managed and not root.exists() and root.parent.is_dir():
            root.mkdir()  # gno writes the facts there itself: an empty memory folder is a fine start
        if not root.is_dir():
            raise ValidationError(
                f"folder {path!r} does not exist or is not a folder",
                code=ErrorCode.PATH_NOT_FOUND,
                details={"path": str(root)},
            )
        cfg = load_config(self.settings, must_exist=False)
        cname = _checked_name(name) if name is not None else _slug(root.name)
        if cfg.collection(cname) is not None:
            raise ConflictError(
                f"a collection named {cname!r} already exists; pick another --name",
                code=ErrorCode.COLLECTION_EXISTS,
                details={"collection": cname},
            )
        exclusions = _check_overlap(cfg, root, memory=memory_managed)
        fields: dict[str, Any] = {"name": cname, "path": str(root), "memoryManaged": memory_managed}
        own = [glob for outer, glob in exclusions if not outer]  # a new outer collection leaves memory folders out
        for outer, glob in exclusions:
            c = cfg.collection(outer) if outer else None
            if c is not None and glob not in c.exclude:
                c.exclude.append(glob)
        if pattern:
            fields["pattern"] = pattern
        if include:
            fields["include"] = list(include)
        if exclude or own:
            fields["exclude"] = [*(exclude or DEFAULT_EXCLUDES), *own]
        try:
            coll = CollectionConfig.model_validate(fields)
        except Exception as exc:  # noqa: BLE001 - pydantic's first error, as one line
            problem = from_exception(exc).message.removeprefix("invalid input: ")
            raise ValidationError(f"invalid collection {cname!r}: {problem}", details={"collection": cname}) from exc
        cfg.collections.append(coll)
        save_config(self.settings, cfg)
        self._config = None
        return _collection_info(coll)

    def collection_set(self, name: str, *, memory_managed: bool | None = None) -> CollectionInfo:
        """Change a collection's settings in `index.yml` (no YAML editing for a memory collection).

        The next `gno update` re-reads the collection's files under the new projection (a
        collection turned memory managed gets its fact files as records, and loses them when
        turned back), without re-embedding anything.
        """
        from gno.config import save_config

        coll = self.collection(name)
        if memory_managed is None:
            raise ValidationError(
                f"nothing to change for collection {coll.name!r}: pass --memory or --no-memory",
                details={"collection": coll.name},
            )
        cfg = self.config
        updated = coll.model_copy(update={"memory_managed": memory_managed})
        cfg.collections = [updated if c.name == coll.name else c for c in cfg.collections]
        save_config(self.settings, cfg)
        self._config = None
        return _collection_info(updated)

    def collection_list(self) -> CollectionList:
        from gno.models import CollectionList
        from gno.store import documents as docs

        counts = docs.collection_counts(self.store) if self.settings.db_path.exists() else {}
        return CollectionList(
            collections=[_collection_info(c, counts.get(c.name, {}).get("active", 0)) for c in self.config.collections]
        )

    def collection_remove(self, name: str, *, lock_wait: float | None = None) -> CollectionRemoved:
        from pathlib import Path

        from gno.clock import now_iso
        from gno.config import save_config
        from gno.models import CollectionRemoved
        from gno.store import documents as docs

        coll = self.collection(name)
        cfg = self.config
        cfg.collections = [c for c in cfg.collections if c.name != coll.name]
        if coll.memory_managed:  # an outer collection that left this folder to it takes it back
            for c in cfg.collections:
                outer, inner = Path(c.path).expanduser().resolve(), Path(coll.path).expanduser().resolve()
                if outer in inner.parents and (glob := nested_memory_exclude(outer, inner)) in c.exclude:
                    c.exclude.remove(glob)
        with self.lease(lock_wait):
            save_config(self.settings, cfg)
            self._config = None
            with self.store.write() as conn:  # rows and vectors stay until `update --prune`
                n = docs.deactivate_collection(conn, coll.name, now_iso())
        return CollectionRemoved(name=coll.name, removed_documents=n)

    def collection_rename(self, name: str, new_name: str, *, lock_wait: float | None = None) -> CollectionRenamed:
        from gno.writes.rename import rename_collection

        try:
            return rename_collection(self, name, new_name, lock_wait)
        finally:
            self._config = None

    # -- sync -----------------------------------------------------------------------------
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
        from gno.ingest.sync import run_sync
        from gno.models import SyncCollectionResult, SyncResult

        cfg = self.config
        targets = [self.collection(n) for n in collections] if collections else list(cfg.collections)
        with self.lease(lock_wait):
            if not cfg.collections and not prune:
                self._refuse_empty_config()
            results, detached, secs = run_sync(
                self.store,
                targets,
                projectors=self.projectors(),
                progress=progress,
                force=force,
                all_collections={c.name for c in cfg.collections},
                prune=prune,
            )
        return SyncResult(
            collections=[SyncCollectionResult.model_validate(r.__dict__) for r in results],
            duration_ms=round(secs * 1000, 1),
            detached_collections=detached,
            pruned=prune,
        )

    def _refuse_empty_config(self) -> None:
        """A blank or emptied `index.yml` is far more often a mistake than a wish to empty the index."""
        from gno.store import documents as docs

        n = docs.count_docs(self.store, None)
        if n:
            raise ConflictError(
                f"{self.settings.config_path} lists no collections, and the index holds {n} documents "
                "(and their vectors). Nothing was changed. Add the folders back with `gno collection add`, "
                "or run `gno update --prune` to empty the index",
                code=ErrorCode.PRUNE_REQUIRED,
                details={"config": str(self.settings.config_path), "documents": n},
            )

    def sync_paths(self, coll: CollectionConfig, rel_paths: set[str]) -> SyncCollectionResult:
        """Path-scoped sync for a caller that already holds the lease (remember, capture, edit, the
        resident watcher): named paths that exist are (re)indexed, named paths that vanished are
        retired, and a vanished path whose bytes reappear under a new name in the batch is a rename."""
        from gno.ingest.sync import Syncer
        from gno.models import SyncCollectionResult

        syncer = Syncer(self.store, self.projectors())
        try:
            r = syncer.sync_collection(coll, only=rel_paths)
        finally:
            syncer.close()
        return SyncCollectionResult.model_validate(r.__dict__)

    # -- reads ----------------------------------------------------------------------------
    def doc_filter(
        self, collection: str | None = None, tags_any: Sequence[str] = (), tags_all: Sequence[str] = ()
    ) -> DocFilter:
        colls = [self.collection_name(collection)] if collection else []
        return DocFilter(collections=colls, tags_any=list(tags_any), tags_all=list(tags_all))

    def search(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        full: bool = False,
    ) -> SearchResult:
        from gno.models import SearchResult

        page = self.search_page(
            query,
            collection=collection,
            limit=limit,
            min_score=min_score,
            tags_any=tags_any,
            tags_all=tags_all,
            full=full,
        )
        return SearchResult.model_validate(page.wire())

    def search_page(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        full: bool = False,
    ) -> SearchPage:
        """`search` without pydantic: the same hits as plain data, for the CLI's cold start."""
        from gno.hints import attach_page

        check_query(query, limit, min_score)
        f = self.doc_filter(collection, tags_any, tags_all)
        page = search_page(self.store, query, f, SearchOptions(limit=limit, min_score=min_score, full=full))
        attached: SearchPage = attach_page(page, self.hints())
        return attached

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

    def get(
        self, ref: str, *, from_line: int | None = None, line_count: int | None = None, source: bool = False
    ) -> DocumentResult:
        """A document's markdown (for a converted file, its mirror), or a line range of it; with
        `source`, also the original file's bytes."""
        from gno.doc_reads import read_document
        from gno.models import DocumentResult

        doc = read_document(self.store, self.root_of, ref, from_line=from_line, line_count=line_count, source=source)
        return DocumentResult.model_validate(fields(doc))

    def multi_get(self, refs: Sequence[str], *, max_bytes: int = 10240) -> MultiGetResult:
        from gno.doc_reads import read_documents
        from gno.models import MultiGetResult

        documents = read_documents(self.store, self.root_of, refs, max_bytes=max_bytes)
        return MultiGetResult.model_validate(fields(documents))

    def ls(self, scope: str | None = None, *, limit: int = 10000, offset: int = 0) -> LsResult:
        from gno.doc_reads import list_documents
        from gno.models import LsResult

        listing = list_documents(self.store, lambda c: self.collection(c).name, scope, limit=limit, offset=offset)
        return LsResult.model_validate(fields(listing))

    # -- semantic: embed, vsearch, query, diagnose -------------------------------------------
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

    def embed(
        self,
        collections: Sequence[str] = (),
        *,
        batch_size: int = 8,
        force: bool = False,
        dry_run: bool = False,
        progress: Any = None,
        lock_wait: float | None = None,
        max_chunks: int | None = None,
        first_pass_only: bool = False,
    ) -> EmbedResult:
        names = [self.collection(c).name for c in collections]
        return self.semantic.embed(
            collections=names,
            batch_size=batch_size,
            force=force,
            dry_run=dry_run,
            progress=progress,
            lock_wait=lock_wait,
            max_chunks=max_chunks,
            first_pass_only=first_pass_only,
        )

    def vsearch(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        full: bool = False,
    ) -> SearchResult:
        """Vector-only search: documents ranked by their best chunk's cosine."""
        import time

        from gno.hints import attach
        from gno.models import SearchMeta, SearchResult
        from gno.retrieve.grammar import parse_query
        from gno.retrieve.search import build_hits
        from gno.store.chunks import chunk_lines

        check_query(query, limit, min_score)
        t0 = time.perf_counter()
        f = self.doc_filter(collection, tags_any, tags_all)
        found = self.semantic.search_docs(query, f, limit)
        scored = [(d, max(0.0, s)) for d, s, _ in found if s >= min_score]
        starts = chunk_lines(self.store, [key for _, _, key in found])
        hits = build_hits(
            self.store,
            scored,
            parse_query(query).words(),
            full=full,
            sources={d: ["vector"] for d, _ in scored},
            lines={d: starts[key] for d, _, key in found if key in starts},  # a long note: its best chunk's window
        )
        meta = SearchMeta(
            total_results=len(hits), mode="vector", elapsed_ms=round((time.perf_counter() - t0) * 1000, 3)
        )
        return attach(SearchResult(query=query, mode="vector", results=hits, meta=meta), self.hints())

    def query(
        self,
        query: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        depth: Depth = "balanced",
        graph: bool = True,
        candidate_limit: int | None = None,
        full: bool = False,
        explain: bool = False,
        lexical_only: bool = False,
    ) -> SearchResult:
        """Hybrid query (rung 3): BM25 + vectors → RRF → graph → re-scoring."""
        from gno.hints import attach

        check_query(query, limit, min_score)
        opts = self._query_options(limit, min_score, depth, graph, candidate_limit, full)
        opts.lexical_only, opts.hints = lexical_only, self.hints()
        run = self.retriever().run(query, self.doc_filter(collection, tags_any, tags_all), opts)
        if explain:
            run.result.explain = self._explain(run, opts)
        return attach(run.result, opts.hints)

    def similar(
        self, ref: str, *, limit: int = 5, threshold: float | None = None, cross_collection: bool = False
    ) -> SimilarResult:
        from gno.retrieve.similar import similar

        row = self.resolve(ref)
        return similar(
            self.store, self.semantic, row, limit=limit, threshold=threshold, cross_collection=cross_collection
        )

    def doctor(self) -> DoctorResult:
        from gno.doctor import run_doctor

        return run_doctor(self)

    def bench(
        self,
        fixture: str,
        *,
        modes: Sequence[str] = ("bm25", "hybrid"),
        top_k: int = 10,
        candidate_limit: int | None = None,
    ) -> BenchResult:
        from gno.retrieve.benchmark import run_bench

        return run_bench(self, fixture, tuple(modes), top_k, candidate_limit)

    def diagnose(
        self,
        query: str,
        target: str,
        *,
        collection: str | None = None,
        limit: int = 10,
        tags_any: Sequence[str] = (),
        tags_all: Sequence[str] = (),
        depth: Depth = "balanced",
        graph: bool = True,
        candidate_limit: int | None = None,
    ) -> DiagnoseResult:
        from gno.retrieve.diagnose import diagnose

        check_query(query, limit, 0.0)
        opts = self._query_options(limit, 0.0, depth, graph, candidate_limit, False)
        f = self.doc_filter(collection, tags_any, tags_all)
        return diagnose(self.retriever(), self.config.chunking, query, target, f, opts)

    @staticmethod
    def _query_options(
        limit: int,
        min_score: float,
        depth: Depth,
        graph: bool,
        candidate_limit: int | None,
        full: bool,
    ) -> QueryOptions:
        from gno.retrieve.hybrid import QueryOptions

        return QueryOptions(
            limit=limit,
            candidate_limit=candidate_limit,
            depth=depth,
            graph=graph,
            min_score=min_score,
            full=full,
        )

    def _explain(self, run: QueryRun, opts: QueryOptions) -> QueryExplain:
        from gno.models import ExplainHit, ExplainStage, QueryExplain
        from gno.store import documents as docs

        ids = sorted({d for st in run.stages for d in st.ranked[:5]})
        rows = docs.docs_by_ids(self.store, ids)
        stages = []
        for st in run.stages:
            top = [
                ExplainHit(docid=rows[d].docid, uri=rows[d].uri, rank=i, score=round(st.scores.get(d, 0.0), 6))
                for i, d in enumerate(st.ranked[:5], 1)
                if d in rows
            ]
            stages.append(
                ExplainStage(
                    name=st.name,
                    status=st.status,
                    ms=round(st.ms, 3),
                    count=len(st.ranked),
                    reason=st.reason,
                    top=top,
                )
            )
        cand = opts.candidate_limit or (40 if opts.depth == "thorough" else 20)
        return QueryExplain(
            depth=opts.depth, candidate_limit=cand, stages=stages, vectors=run.vectors, first_pass=run.first_pass
        )

    # -- context hints (configuration attached to results, never evidence) -------------------------
    def hints(self) -> list[HintConfig]:
        """The configured hints: none, without validating the config, while its snapshot says so."""
        state = config_snapshot.read_state(self.settings) if self._config is None else None
        return [] if state is not None and not state[1] else list(self.config.contexts)

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

    # -- evidence: capsules, delta, ask ------------------------------------------------------
    def context_build(self, req: CapsuleRequest) -> Capsule:
        from gno.evidence.capsule import build_capsule

        return build_capsule(self, req)

    def context_verify(self, capsule: Any) -> ContextVerifyResult:
        from gno.evidence.verify import verify_capsule

        return verify_capsule(self, capsule)

    def changes(self, *, since: str | None = None, collection: str | None = None, limit: int = 100) -> ChangesResult:
        from gno.evidence.delta import changes

        return changes(self, since=since, collection=collection, limit=limit)

    def diff(self, ref: str, change: str | None = None) -> DiffResult:
        from gno.evidence.delta import diff

        return diff(self, ref, change)

    def impact(self, ref: str, *, max_depth: int = 3, max_nodes: int = 100, max_edges: int = 250) -> ImpactResult:
        from gno.evidence.delta import impact

        return impact(self, ref, max_depth=max_depth, max_nodes=max_nodes, max_edges=max_edges)

    def links(self, ref: str, *, backlinks: bool = False) -> LinksResult:
        from gno.doc_reads import read_links
        from gno.models import LinksResult

        return LinksResult.model_validate(fields(read_links(self.store, ref, backlinks=backlinks)))

    def backlinks(self, ref: str) -> LinksResult:
        return self.links(ref, backlinks=True)

    def graph(self, **bounds: Any) -> GraphResult:
        """Documents as nodes, links and relations (and, asked, vector neighbours) as edges."""
        from gno.evidence.graph import build_graph

        return build_graph(self, self.semantic, **bounds)

    def ask(
        self,
        question: str,
        *,
        verify: bool = False,
        budget_tokens: int = 12000,
        collection: str | None = None,
        depth: Depth = "balanced",
    ) -> AskResult:
        from gno.evidence.ask import ask

        return ask(self, question, verify=verify, budget_tokens=budget_tokens, collection=collection, depth=depth)

    # -- writes: capture, edit -----------------------------------------------------------
    def capture(self, req: CaptureRequest) -> CaptureResult:
        from gno.writes.capture import capture

        return capture(self, req)

    def update_doc(
        self,
        ref: str,
        content: Any,
        expected_source_hash: Any,
        lock_wait: float | None = None,
        request_id: str | None = None,
    ) -> DocUpdateResult:
        from gno.writes.edit import update_doc

        return update_doc(self, ref, content, expected_source_hash, lock_wait, request_id)

    def tags(self, collection: str | None = None) -> TagsResult:
        from gno.writes.tags import list_tags

        return list_tags(self.store, self.collection(collection).name if collection else None)

    def tags_edit(
        self,
        ref: str,
        *,
        add: Sequence[str] = (),
        remove: Sequence[str] = (),
        lock_wait: float | None = None,
        request_id: str | None = None,
    ) -> TagsEditResult:
        from gno.writes.tags import edit_tags

        return edit_tags(self, ref, list(add), list(remove), lock_wait, request_id)

    # -- memory -------------------------------------------------------------------------
    def remember(self, req: RememberRequest, *, semantic: bool = True) -> RememberResult:
        """Propose/add/supersede a fact; candidates are ranked by cosine when the memory is embedded."""
        from gno.memory.contract import resolve_collection
        from gno.memory.remember import remember
        from gno.store import vectors as vstore

        embedder = None
        reason = "lexical only on this surface (no model is loaded per call)"
        if semantic:
            reason = "no embedding model available"
            try:
                coll = resolve_collection(self.config, req.collection)
                if self.semantic.collection_embedded(coll.name):
                    embedder = self.semantic.embedder()
                else:
                    reason = vstore.unembedded(coll.name)
            except Exception:  # noqa: BLE001 - validation errors surface from remember itself
                embedder = None
        return remember(self, req, embedder, reason, key_dir=self.settings.data_dir)

    def recall(self, req: RecallRequest, *, semantic: bool = True) -> RecallResult:
        """Recall current facts; the vector leg joins when the memory collection is embedded."""
        from gno.memory.contract import resolve_collection
        from gno.memory.recall import recall
        from gno.store import vectors as vstore

        if not semantic:
            return recall(self, req, None, "lexical only on this surface (no model is loaded per call)")
        try:
            coll = resolve_collection(self.config, req.collection)
        except Exception:  # noqa: BLE001 - let recall report the validation error
            return recall(self, req)
        if not self.semantic.collection_embedded(coll.name):  # no model's vectors: no model (nor numpy) loaded
            return recall(self, req, None, vstore.no_vectors_reason(self.store, coll.name))
        reason = self.semantic.unavailable_reason()
        if reason is None and not self.semantic.collection_embedded(coll.name):  # now: the configured model's
            reason = vstore.unembedded(coll.name)
        if reason is not None:
            return recall(self, req, None, reason)
        leg = lambda q, f, k: [d for d, _, _ in self.semantic.search_docs(q, f, k)]  # noqa: E731
        return recall(self, req, leg)

    def memory_history(self, uri: str) -> MemoryHistoryResult:
        from gno.memory.timeline import history

        return history(self, uri)

    def audit(self, collection: str | None = None, max_findings: int = 100) -> AuditResult:
        from gno.memory.audit import audit_memory

        managed = (
            [self.collection(collection)] if collection else [c for c in self.config.collections if c.memory_managed]
        )
        return audit_memory(self.store, managed, max_findings)

    def status(self) -> StatusResult:
        from gno.ingest.problems import severity
        from gno.memory.status import memory_status
        from gno.models import CollectionStatus, IngestErrorInfo, StatusResult
        from gno.store import documents as docs

        cfg = self.config
        exists = self.settings.db_path.exists()
        counts = docs.collection_counts(self.store)
        errs = [{**e, "severity": severity(e["code"])} for e in docs.ingest_errors(self.store)]
        per_coll: dict[tuple[str, str], int] = {}
        for e in errs:
            key = (e["collection"], e["severity"])
            per_coll[key] = per_coll.get(key, 0) + 1
        colls = []
        for c in cfg.collections:
            cnt = counts.get(c.name, {})
            colls.append(
                CollectionStatus(
                    name=c.name,
                    path=c.path,
                    path_exists=c.root.is_dir(),
                    memory_managed=c.memory_managed,
                    active=cnt.get("active", 0),
                    inactive=cnt.get("inactive", 0),
                    chunks=cnt.get("chunks", 0),
                    errors=per_coll.get((c.name, "error"), 0),
                    warnings=per_coll.get((c.name, "warning"), 0),
                )
            )
        vectors = self.semantic.status()
        steps = [
            f"folder {c.path} of collection {c.name} is missing: restore it or run `gno collection remove {c.name}`"
            for c in colls
            if not c.path_exists
        ]
        if vectors.model is not None and vectors.reason:  # a loadable model with chunks left to embed
            steps.append(vectors.reason)
        return StatusResult(
            index_name=self.settings.index_name,
            config_path=str(self.settings.config_path),
            db_path=str(self.settings.db_path),
            db_exists=exists,
            size_bytes=self.store.size_bytes(),
            collections=colls,
            documents=sum(c.active for c in colls),
            chunks=sum(c.chunks for c in colls),
            ingest_errors=[IngestErrorInfo.model_validate(e) for e in errs[:200]],
            healthy=not steps,
            memory=memory_status(self.store, [c for c in cfg.collections if c.memory_managed]),
            vectors=vectors,
            next_steps=steps,
        )
