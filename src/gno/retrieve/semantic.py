"""The semantic side of an index: the configured embedder, the vector index, embedding jobs.

The embedder comes from `models.embed` in the config (default: MiniLM through onnxruntime; see
`gno.embed.registry` for the measurements behind that choice). Models ship inside pip packages:
nothing downloads; a model that cannot load leaves gno in lexical mode with the reason reported.
Stored vectors carry the model fingerprint; if the configured model changed, vector search
refuses with VECTORS_STALE instead of silently returning nothing. A transformer model gets a fast
static first pass (`gno.retrieve.first_pass`): its vectors rank until the transformer's cover
as many chunks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from gno.errors import ErrorCode, GnoError, RuntimeFailure, make_error
from gno.index import IndexReader, WriteLease
from gno.models import EmbedResult, VectorStatus
from gno.retrieve import first_pass
from gno.store import vectors as vstore
from gno.store.vectors import NO_VECTORS as NO_VECTORS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from gno.embed.base import Embedder
    from gno.retrieve.vectors import VectorIndex  # numpy: loaded with the first vector, not for lexical recall
    from gno.settings import Settings
    from gno.status_reads import Models
    from gno.store.fts import DocFilter

EmbedProgress = Callable[[int, int], None]


def document_text(title: str, text: str) -> str:
    """What an embedder sees for a chunk: its text, led by the title when the text lacks it."""
    head = text[:200].lower()
    return text if not title or title.lower() in head else f"{title}\n{text}"


def _texts(items: list[tuple[str, str]]) -> list[str]:
    return [document_text(title, text) for title, text in items]


class SemanticHost(IndexReader, WriteLease, Protocol):
    """What the semantic side reads, live: the index, the config (its embedder and chunking change
    with `index.yml`), the settings (ANN threshold and cache) and the write lease of `embed`."""

    @property
    def settings(self) -> Settings: ...


class Semantic:
    """Lazily loads the embedder and the vector matrix of one index."""

    def __init__(self, host: SemanticHost) -> None:
        self.host = host
        self._embedder: Embedder | None = None
        self._reason: str | None = None
        self._spec: str | None = None
        self._index: VectorIndex | None = None
        self._quality: Embedder | None = None
        self._first: tuple[str, Embedder | None] | None = None  # (configured fingerprint, first pass)
        self._counts: tuple[tuple[int, int, int], dict[str, int]] | None = None
        self._reason_cache: tuple[tuple[str, tuple[int, int, int]], str | None] | None = None
        self._short: dict[tuple[str, str], NDArray[np.float32]] = {}  # configured texts (context hints)

    # -- model -------------------------------------------------------------------------------
    @property
    def spec(self) -> str | None:
        return self.host.config.models.embed

    def embedder(self) -> Embedder:
        """The configured embedder, or VECTORS_UNAVAILABLE naming why it cannot load."""
        spec = self.spec
        if self._embedder is not None and spec == self._spec:
            return self._embedder
        from gno.embed import EmbedderUnavailable, load_embedder

        try:
            self._embedder = load_embedder(spec)
            self._spec, self._reason = spec, None
        except EmbedderUnavailable as exc:
            self._reason = exc.reason
            if exc.extra is not None:
                from gno.extras import missing_extra

                raise missing_extra(exc.extra, "embeddings and vector search", exc.reason) from exc
            raise make_error(
                ErrorCode.VECTORS_UNAVAILABLE,
                f"no embedding model available ({exc.reason}); gno runs in lexical mode",
                {"reason": exc.reason},
            ) from exc
        return self._embedder

    def first_pass_embedder(self) -> Embedder | None:
        """The static model of the first pass when the configured one is a transformer; else None."""
        from gno.retrieve import first_pass

        emb = self.embedder()
        if self._first is not None and self._first[0] == emb.fingerprint:
            return self._first[1]
        first = None
        if first_pass.wanted(emb, self.host.config.models.first_pass):
            from gno.embed import EmbedderUnavailable, load_embedder

            try:
                first = load_embedder(first_pass.FIRST_PASS_DEFAULT)
            except EmbedderUnavailable:
                first = None
        self._first = (emb.fingerprint, first)
        return first

    def vector_counts(self) -> dict[str, int]:
        """Stored vectors per model fingerprint (cached until vectors or documents change)."""
        gen = vstore.generation(self.host.store)
        if self._counts is None or self._counts[0] != gen:
            self._counts = (gen, vstore.fingerprints(self.host.store))
        return self._counts[1]

    def ranking_embedder(self) -> Embedder:
        """The model whose vectors rank: the configured one, or its first pass while that covers more."""
        from gno.retrieve import first_pass

        emb = self.embedder()
        first = self.first_pass_embedder()
        if first is not None and first_pass.ranks(self.vector_counts(), emb.fingerprint, first.fingerprint):
            return first
        return emb

    def quality_embedder(self) -> Embedder | None:
        """The re-scorer of a fast first stage: the configured transformer while its first pass ranks,
        MiniLM when the configured model itself is a fast one; else None."""
        emb = self.embedder()
        if self.ranking_embedder() is not emb:
            return emb
        if emb.model_id.startswith(("minilm", "mpnet")):  # already a quality model
            return None
        if self._quality is None:
            from gno.embed import EmbedderUnavailable, load_embedder

            try:
                self._quality = load_embedder("minilm")
            except EmbedderUnavailable:
                return None
        return self._quality

    def fingerprint(self) -> str:
        return self.embedder().fingerprint

    def unavailable_reason(self) -> str | None:
        """None when vector search can run; else the reason (for `retrieval.mode` reports)."""
        try:
            fp = self.ranking_embedder().fingerprint
        except GnoError as err:
            return str(err.details.get("reason") or err.message)
        gen = (fp, vstore.generation(self.host.store))
        if self._reason_cache is not None and self._reason_cache[0] == gen:
            return self._reason_cache[1]
        reason = None
        if vstore.count_embedded(self.host.store, fp) == 0:
            others = [f for f in vstore.fingerprints(self.host.store) if f != fp]
            reason = (
                "vectors were built with another model; run `gno embed`"
                if others
                else NO_VECTORS
            )
        self._reason_cache = (gen, reason)
        return reason

    def collection_embedded(self, collection: str) -> bool:
        """True when the collection has vectors for the configured model (never loads the model)."""
        spec_fp = self._embedder.fingerprint if self._embedder is not None and self._spec == self.spec else None
        return vstore.collection_has_vectors(self.host.store, collection, spec_fp)

    # -- index -------------------------------------------------------------------------------
    def index(self) -> VectorIndex:
        fp = self.ranking_embedder().fingerprint
        store = self.host.store
        gen = vstore.generation(store)
        if self._index is None or self._index.fingerprint != fp or self._index.generation != gen:
            from gno.retrieve.vectors import VectorIndex, shared

            kept = shared(store, fp, gen)  # a resident owner's template loaded it before forking
            if kept is not None and len(kept) < self.ann_threshold():  # (a kept matrix has no ANN index)
                self._index = kept
            else:
                self._index = VectorIndex.load(store, fp)
                self._attach_ann(self._index)
        if len(self._index) == 0:
            others = [f for f in vstore.fingerprints(store) if f != fp]
            if others:
                raise make_error(
                    ErrorCode.VECTORS_STALE,
                    f"the stored vectors were built with {others[0].split(':')[0]}, but the configured "
                    f"model is {fp.split(':')[0]}; run `gno embed` to re-embed",
                    {"stored": others, "configured": fp},
                )
            raise make_error(
                ErrorCode.VECTORS_UNAVAILABLE,
                "no vectors in this index yet; run `gno embed`",
                {"configured": fp},
            )
        return self._index

    def ann_threshold(self) -> int:
        from gno.retrieve.ann import ANN_THRESHOLD

        raw = self.host.settings.env.get("GNO_ANN_THRESHOLD", "")
        return int(raw) if raw.isdigit() else ANN_THRESHOLD

    def _attach_ann(self, idx: VectorIndex, *, build: bool = False) -> None:
        """Use (or with `build`, make and save) the HNSW index when the matrix is large enough."""
        from gno.retrieve import ann

        if len(idx) < self.ann_threshold() or not ann.available():
            return
        path = ann.ann_path(self.host.settings.cache_dir, self.host.settings.index_name, idx)
        idx.ann = ann.AnnIndex.load(path)
        if idx.ann is None and build:
            idx.ann = ann.AnnIndex.build(idx)
            idx.ann.save(path)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        return self.ranking_embedder().embed_query(text)

    def text_vector(self, text: str, emb: Embedder) -> NDArray[np.float32]:
        """A short configured text (context hints) embedded as a document by `emb`; kept per model, as
        the few configured texts come back with every query."""
        key = (emb.fingerprint, text)
        if key not in self._short:
            self._short[key] = emb.embed_documents([text])[0]
        return self._short[key]

    def search_chunks(
        self, query: str | NDArray[np.float32], f: DocFilter | None, k: int
    ) -> list[tuple[str, int, float]]:
        """Top chunks (mirror_hash, seq, cosine) for a query, inside the filter."""
        from gno.store.fts import filter_sql

        idx = self.index()
        q = self.embed_query(query) if isinstance(query, str) else query
        allowed: set[str] | None = None
        if f is not None:
            where, params = filter_sql(f)
            if where:
                allowed = {m for _, m in vstore.filtered_docs(self.host.store, where, params)}
        return idx.search(q, k, allowed)

    def search_docs(
        self, query: str | NDArray[np.float32], f: DocFilter | None, k: int
    ) -> list[tuple[int, float, tuple[str, int]]]:
        """Documents ranked by their best chunk: (doc_id, cosine, best chunk key)."""
        from gno.store.fts import filter_sql

        idx = self.index()
        q = self.embed_query(query) if isinstance(query, str) else query
        allowed_ids: set[int] | None = None
        allowed_m: set[str] | None = None
        if f is not None:
            where, params = filter_sql(f)
            if where:
                pairs = vstore.filtered_docs(self.host.store, where, params)
                allowed_ids = {d for d, _ in pairs}
                allowed_m = {m for _, m in pairs}
        chunks = idx.search(q, max(k * 4, 32), allowed_m)
        by_mirror = vstore.docs_for_mirrors(self.host.store, [m for m, _, _ in chunks])
        out: list[tuple[int, float, tuple[str, int]]] = []
        seen: set[int] = set()
        for m, s, score in chunks:
            for doc_id in by_mirror.get(m, []):
                if doc_id in seen or (allowed_ids is not None and doc_id not in allowed_ids):
                    continue
                seen.add(doc_id)
                out.append((doc_id, score, (m, s)))
        return out[:k]

    # -- status & embedding jobs -------------------------------------------------------------
    def resolved(self) -> Models:
        """What the configured models resolve to: the embedder's fingerprint (or why it cannot
        load), the first pass's, the chunking key (`gno.status_reads`)."""
        from gno.ingest.chunking import chunk_key
        from gno.status_reads import Models

        key = chunk_key(self.host.config.chunking)
        try:
            fp = self.fingerprint()
        except GnoError as err:
            return Models(None, str(err.details.get("reason", err.message)), None, key)
        first = self.first_pass_embedder()
        return Models(fp, None, first.fingerprint if first is not None else None, key)

    def status(self) -> VectorStatus:
        """Counts of chunks and vectors, and how many documents still wait for `gno embed`."""
        from gno.status_reads import vector_status
        from gno.wire import fields

        return VectorStatus.model_validate(fields(vector_status(self.host.store, self.resolved())))

    def _pending(self, fp: str, collections: Sequence[str]) -> int:
        return sum(vstore.pending_per_content(self.host.store, fp, collections).values())

    def _dry_run(self, model: str, fp: str, collections: Sequence[str], *, force: bool) -> EmbedResult:
        """What `embed` would do, chunks not yet cut included (counted in memory, nothing stored)."""
        from gno.ingest.chunking import ensure_chunks

        store = self.host.store
        plan = ensure_chunks(store, self.host.config.chunking, collections, write=False)
        total = vstore.count_chunks(store) - plan.replaced + len(plan.chunks)
        if force:
            pending = total
        else:
            redone = set(plan.contents)
            waiting = vstore.pending_per_content(store, fp, collections)
            kept = [k for k in plan.chunks if k not in plan.changed]
            pending = sum(n for m, n in waiting.items() if m not in redone)
            pending += len(plan.changed) + len(kept) - len(vstore.with_vectors(store, fp, kept))
        return EmbedResult(
            model=model,
            fingerprint=fp,
            embedded=0,
            pending=pending,
            total_chunks=total,
            duration_ms=0.0,
            chunks_per_second=0.0,
            dry_run=True,
        )

    def embed(
        self,
        *,
        collections: Sequence[str] = (),
        batch_size: int = 8,
        force: bool = False,
        dry_run: bool = False,
        progress: EmbedProgress | None = None,
        lock_wait: float | None = None,
        max_chunks: int | None = None,
        first_pass_only: bool = False,
    ) -> EmbedResult:
        """Embed every chunk that lacks a vector for the configured model (incremental, resumable).

        `max_chunks` bounds one call (the resident owner embeds in short rounds, so the write lease
        is free between rounds and a file saved meanwhile is indexed at once); `pending` then
        counts what is left, each content not cut into chunks yet counted as one. A transformer
        model with a large backlog gets the static first pass first (`gno.retrieve.first_pass`;
        in a bounded round, that round is the first pass's: `max_chunks` x its speed-up);
        `first_pass_only` stops after it when it ran."""
        if batch_size < 1 or batch_size > 1024:
            raise make_error(ErrorCode.VALIDATION, "`batchSize` must be between 1 and 1024")
        emb = self.embedder()
        fp = emb.fingerprint
        store = self.host.store
        t0 = time.perf_counter()
        with self.host.lease(lock_wait):
            if dry_run:
                return self._dry_run(emb.model_id, fp, collections, force=force)
            if force:
                with store.write() as conn:
                    vstore.delete_vectors(conn, fp)
            from gno.ingest.chunking import ensure_chunks

            # chunks are cut here, from the stored content (a bounded round cuts what it can embed)
            # the first pass is a whole-index job (every collection: else its vectors could never
            # cover more chunks than the transformer's and rank)
            first = self.first_pass_embedder()
            budget = None if max_chunks is None else max_chunks * (first_pass.SPEEDUP if first else 1)
            enough = None if budget is None else max(0, budget - self._pending(fp, collections))
            uncut = ensure_chunks(store, self.host.config.chunking, collections, enough=enough).remaining
            first_done = 0
            if first is not None and first_pass.worth_it(store, fp, first.fingerprint):
                first_done = first_pass.run(store, first, _texts, budget=budget)
            total = vstore.count_chunks(store)
            pending_total = self._pending(fp, collections)
            done = 0
            # a bounded round that did first-pass work ends there (the owner's next round goes on)
            stop = bool(first_done) and (max_chunks is not None or first_pass_only)
            while not stop and (max_chunks is None or done < max_chunks):
                want = batch_size * 8 if max_chunks is None else min(batch_size * 8, max_chunks - done)
                batch = vstore.pending_chunks(store, fp, want, collections)
                if not batch:
                    break
                for i in range(0, len(batch), batch_size):
                    part = batch[i : i + batch_size]
                    try:
                        vecs = emb.embed_documents([document_text(c.title, c.text) for c in part])
                    except Exception as exc:  # noqa: BLE001 - report, keep what is stored
                        raise RuntimeFailure(
                            f"embedding failed after {done} chunks: {exc}; rerun `gno embed` to resume",
                            details={"embedded": done},
                        ) from exc
                    with store.write() as conn:
                        vstore.put_vectors(conn, fp, [(c.mirror_hash, c.seq, vecs[j]) for j, c in enumerate(part)])
                    done += len(part)
                    if progress:
                        progress(done, pending_total)
            if (done or force) and done >= pending_total:
                # above the threshold, build the ANN index now, so queries never pay for it
                from gno.retrieve.vectors import VectorIndex

                self._index = VectorIndex.load(store, fp)
                self._attach_ann(self._index, build=True)
            if first is not None and done:
                first_pass.retire(store, fp, first.fingerprint, uncut=uncut)
        secs = time.perf_counter() - t0
        return EmbedResult(
            model=emb.model_id,
            fingerprint=fp,
            embedded=done,
            pending=max(0, pending_total - done) + uncut,
            total_chunks=total,
            duration_ms=round(secs * 1000, 1),
            chunks_per_second=round(done / secs, 1) if secs else 0.0,
            dry_run=False,
            first_pass_model=first.model_id if first_done and first is not None else None,
            first_pass_embedded=first_done,
        )
