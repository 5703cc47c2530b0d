"""Rung 7: `query diagnose` — where did the document I expected drop out?

Runs the same hybrid pipeline as `gno query` and reads its stage traces for one target:
presence, rank and score in the bm25 and vector legs; then, for each ordering stage (fusion
before any graph expansion, graph, rescore, guard), the target's rank once that stage applied,
whether it survived into the next stage, and the drop reason (`not_in_candidate_set`,
`below_cutoff`, `skipped`). A candidate-generation miss (never retrieved) is told apart from a
ranking miss (retrieved, then cut), and a ranking miss names the stage that pushed the target
past the limit, before anyone falls back to grep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.errors import GnoError
from gno.models import (
    DiagnoseChunk,
    DiagnoseMeta,
    DiagnoseResult,
    DiagnoseStage,
    DiagnoseTarget,
)
from gno.refs import resolve_ref
from gno.retrieve.hybrid import HybridRetriever, QueryOptions, QueryRun, Stage
from gno.store import documents as docs
from gno.store import vectors as vstore
from gno.store.fts import DocFilter, filter_sql

if TYPE_CHECKING:
    from gno.config import ChunkingConfig


def _target(
    hr: HybridRetriever, chunking: ChunkingConfig, ref: str, f: DocFilter
) -> tuple[DiagnoseTarget, docs.DocRow | None]:
    try:
        row = resolve_ref(hr.store, ref, allow_inactive=True)
    except GnoError:
        return DiagnoseTarget(status="not_found", ref=ref), None
    chunks, embedded = _chunking(hr, chunking, row.mirror_hash)
    t = DiagnoseTarget.take(row, status="diagnosed", ref=ref, chunk_count=chunks, embedded=embedded)
    if not row.active:
        t.status = "inactive"
        return t, row
    if not chunks:
        t.status = "no_indexed_content"
        return t, row
    where, params = filter_sql(f)
    if where and row.id not in {d for d, _ in vstore.filtered_docs(hr.store, where, params)}:
        t.status = "filtered_out"
        if f.collections and row.collection not in f.collections:
            t.filter_reasons.append(f"collection {row.collection!r} is not in {list(f.collections)}")
        if f.tags_any or f.tags_all:
            t.filter_reasons.append("tag filter excludes it")
    return t, row


def _chunking(hr: HybridRetriever, chunking: ChunkingConfig, mirror_hash: str) -> tuple[int, bool | None]:
    """(chunks, embedded?) of the target's content; content not chunked yet is cut on the fly.

    `gno update` stores no chunks (`gno embed` makes them), so a count of stored rows alone would
    call a new note empty. `embedded` is None when no embedder can load.
    """
    from gno.ingest.chunking import cut
    from gno.store import chunks as cstore

    store = hr.store
    if cstore.is_chunked(store, mirror_hash):
        n = cstore.chunk_count(store, mirror_hash)
    else:
        src = cstore.sources(store, [mirror_hash])
        n = len(cut(src[0][1], src[0][2], chunking)[1]) if src else 0
    if not n or not vstore.fingerprints(store):
        return n, False  # nothing to embed, or nothing embedded at all: no model to load
    try:
        fp = hr.semantic.fingerprint()
    except GnoError:
        return n, None
    return n, len(vstore.with_vectors(store, fp, [(mirror_hash, s) for s in range(n)])) == n


ORDERING = ("fusion", "graph", "rescore", "guard")


def _stage(st: Stage, doc_id: int, cutoff: int | None) -> DiagnoseStage:
    if st.status == "skipped":
        return DiagnoseStage(
            name=st.name,
            status="skipped",
            source_count=0,
            present=False,
            survived=False,
            drop_reason="skipped",
            reason=st.reason,
        )
    present = doc_id in st.scores or doc_id in st.ranked
    order = st.after if st.after is not None else st.ranked
    rank = order.index(doc_id) + 1 if doc_id in order else None
    if st.name in ORDERING and st.name != "graph":
        present = rank is not None
    survived = rank is not None and (cutoff is None or rank <= cutoff) if st.name in ORDERING else present
    drop = None if survived else ("not_in_candidate_set" if rank is None else "below_cutoff")
    score = st.scores.get(doc_id)
    return DiagnoseStage(
        name=st.name,
        status="active",
        source_count=len(st.ranked),
        present=present,
        rank=rank,
        score=None if score is None else round(score, 6),
        survived=survived,
        drop_reason=drop,
        reason=st.reason,
    )


def diagnose(
    hr: HybridRetriever, chunking: ChunkingConfig, query: str, ref: str, f: DocFilter, opts: QueryOptions
) -> DiagnoseResult:
    """`chunking` cuts a target not chunked yet the way `gno embed` will."""
    target, row = _target(hr, chunking, ref, f)
    run: QueryRun = hr.run(query, f, opts)
    cand = opts.candidate_limit or (40 if opts.depth == "thorough" else 20)
    by_name = {s.name: s for s in run.stages}
    stages: list[DiagnoseStage] = []
    doc_id = row.id if row is not None and target.status == "diagnosed" else -1
    for name in ("bm25", "vector", *ORDERING):
        st = by_name.get(name)
        if st is None:
            continue
        cutoff = cand if name in ORDERING else None
        ds = _stage(st, doc_id, cutoff)
        if name == "fusion":  # the number of source lists fused, as the reference counts it
            ds.source_count = sum(1 for n in ("bm25", "vector", "feedback", "graph")
                                  if n in by_name and by_name[n].status == "active" and by_name[n].ranked)
        stages.append(ds)
    final_rank = next((i for i, (d, _) in enumerate(run.final, 1) if d == doc_id), None)
    stages.append(
        DiagnoseStage(
            name="final",
            status="active",
            source_count=len(run.final),
            present=final_rank is not None,
            rank=final_rank,
            score=next((round(s, 6) for d, s in run.final if d == doc_id), None),
            survived=final_rank is not None and final_rank <= opts.limit,
            drop_reason=None
            if final_rank is not None and final_rank <= opts.limit
            else ("below_cutoff" if final_rank is not None else "not_in_candidate_set"),
        )
    )
    chunk = None
    key = run.best_chunk.get(doc_id)
    if key is not None:
        rows = vstore.chunk_rows(hr.store, [key])
        if key in rows:
            chunk = DiagnoseChunk(seq=key[1], start_line=rows[key][1], end_line=rows[key][2])
    vec = by_name.get("vector")
    rs = by_name.get("rescore")
    meta = DiagnoseMeta(
        mode="hybrid" if vec is not None and vec.status == "active" else "bm25_only",
        vectors_used=vec is not None and vec.status == "active",
        reranked=rs is not None and rs.status == "active",
        total_results=len(run.final),
        limit=opts.limit,
        candidate_limit=cand,
    )
    return DiagnoseResult(
        query=query,
        target=target,
        stages=stages,
        chunk=chunk,
        meta=meta,
        verdict=_verdict(target, stages, opts.limit),
    )


def _verdict(t: DiagnoseTarget, stages: list[DiagnoseStage], limit: int) -> str:
    if t.status == "not_found":
        return "the target is not in the index: check the ref, the collection, then run `gno update`"
    if t.status == "inactive":
        return "the target's file is gone (inactive): restore it or run `gno update` after moving it"
    if t.status == "no_indexed_content":
        return "the target has no indexed text (empty body)"
    advice = (
        "rephrase with its words; the target is not embedded yet: run `gno embed`"
        if t.embedded is False
        else "rephrase with its words or embed the collection"
    )
    if t.status == "filtered_out":
        return "the filters exclude the target: " + "; ".join(t.filter_reasons)
    final = stages[-1]
    if final.survived:
        return f"the target is returned at rank {final.rank}"
    legs = [s for s in stages if s.name in ("bm25", "vector") and s.present]
    if not legs:
        skipped = [s.name for s in stages if s.name in ("bm25", "vector") and s.status == "skipped"]
        extra = f" ({', '.join(skipped)} skipped)" if skipped else ""
        return (
            "candidate-generation miss: neither BM25 nor vectors retrieved the target"
            + extra
            + "; "
            + advice
        )
    return (
        f"ranking miss: retrieved by {', '.join(s.name for s in legs)} but ranked {final.rank} "
        f"(limit {limit}){_culprit(stages, limit)}; raise -n or -C, or sharpen the query"
    )


def _culprit(stages: list[DiagnoseStage], limit: int) -> str:
    """Which ordering stage first pushed the target past the limit (or that fusion never let it in)."""
    prev: int | None = None
    for s in stages:
        if s.name not in ORDERING or s.status != "active" or s.rank is None:
            continue
        if s.rank > limit and (prev is None or prev <= limit):
            return f": {s.name} ranked it {s.rank}" if prev is None else f": {s.name} moved it from {prev} to {s.rank}"
        prev = s.rank
    return ""
