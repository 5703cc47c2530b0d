"""Rung 3: hybrid query. BM25 (documents) + vectors (chunks) → fusion → graph → re-scoring → documents.

Stages (what runs offline here; every default chosen on `bench/retrieval_suite.py`):
1. bm25: document-level FTS5, any-term match ranked by BM25 (`search` stays conjunctive first);
2. vector: chunk-level cosine over the configured embedder, deduplicated to documents;
3. fusion: calibrated scores, not ranks. BM25's scores are scaled to its best hit, times the share
   of the query that hit holds (`held_share`: a long page matching only common words earns little);
   a vector hit earns credit by its margin over the median of its own query's pool, in units of the pool's
   spread, so uniformly high cosines (short chat turns) carry little and a hit that stands out
   carries much. The legs are weighted (`DEFAULT_TRUST`): a document found by one leg keeps what
   that leg says about it, and a weak vector leg cannot drag BM25 down. `--thorough` adds
   pseudo-relevance feedback (terms of the top 3 documents) as a third, lighter leg;
   With context hints configured, a small prior for documents whose hints are closest to the query
   (`hint_prior`) is added here;
4. graph (not `--fast`): one hop of links and backlinks from the top 5 fused documents. Linked
   notes enter *below* those seeds: the graph can lift a neighbour from the tail, never over
   the documents the query itself found best;
5. rescore (not `--fast`): when the vectors come from a fast static model, the top candidates are
   re-scored by MiniLM's cosine on their best chunk, blended by position (ranks 1-3: 0.75
   fusion / 0.25, 4-10: 0.60 / 0.40, 11+: 0.40 / 0.60);
6. guard: no leg's confident #1 leaves the top 3: a document that is BM25's #1 and holds the
   only few exact matches of a rare query word, nor the vector leg's #1 when it stands out of its
   pool (`VECTOR_GUARD`; without it, fusion lost to the vector leg alone on how-to questions).
Every stage leaves a trace (the order after it): `--explain` prints them and `query diagnose`
names the stage that dropped a target.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from gno.errors import GnoError
from gno.models import SearchHit, SearchMeta, SearchResult
from gno.retrieve.fusion import LegTrust, margin_scaled, scaled_to_best, weighted_sum
from gno.retrieve.grammar import (
    FUNCTION_WORDS,
    STOPWORDS,
    ParsedQuery,
    Term,
    compile_fts,
    content_query,
    parse_query,
    word_tokens,
)
from gno.retrieve.held_share import held_share
from gno.retrieve.search import build_hits
from gno.retrieve.semantic import document_text
from gno.store import documents as docs
from gno.store import graph as gstore
from gno.store import vectors as vstore
from gno.store.fts import BM25Hit, DocFilter, bm25_search, count_matches, filter_sql, holds

if TYPE_CHECKING:
    from gno.hints import HintConfig
    from gno.retrieve.semantic import Semantic
    from gno.store.db import Store

#: vector-leg trust: each hit is judged by its margin over its own query's pool (`margin_scaled`),
#: not by an absolute cosine that differs per model. A static model's (wordllama) pool is noisier:
#: its hits need a wider margin for full credit and weigh less. Chosen on the suite's tune queries;
#: remote and other models get MiniLM's.
DEFAULT_TRUST = LegTrust(weight=0.35, spread=5.0, floor=0.1)
LEG_TRUST: dict[str, LegTrust] = {
    "minilm": DEFAULT_TRUST,
    "mpnet": DEFAULT_TRUST,  # not tuned yet: MiniLM's
    "wordllama": LegTrust(weight=0.25, spread=10.0, floor=0.1),
}
W_PRF = 0.25  # share of the feedback leg (`--thorough`), beside BM25's
GRAPH_BONUS = 0.1  # what a link from a top document adds to a neighbour's fused score
GRAPH_SEEDS, GRAPH_MAX = 5, 20
RARE_DF = 3  # a query word in at most this many documents is rare
RARE_TOP = 3  # ... and BM25's #1 holding it stays within this many ranks
#: the vector leg's #1 stays within RARE_TOP ranks too when its credit (`margin_scaled`) reaches this:
#: it stands out of its own pool (3.25 deviations above the median at MiniLM's spread). On chat turns a
#: #1 standing that far out is seldom the answer, on a how-to manual it mostly is: on the manual's tune
#: questions 0.65 keeps four of its five helpful moves and none of its three harmful ones (0.6 made all
#: eight; 0.7 left right pages out)
VECTOR_GUARD = 0.65
Ranked = list[tuple[int, float]]


def trust_for(model_id: str) -> LegTrust:
    return next((t for prefix, t in LEG_TRUST.items() if model_id.startswith(prefix)), DEFAULT_TRUST)


Depth = Literal["fast", "balanced", "thorough"]


@dataclass
class Stage:
    name: str
    status: Literal["active", "skipped"] = "active"
    ranked: list[int] = field(default_factory=list)
    scores: dict[int, float] = field(default_factory=dict)
    reason: str | None = None
    ms: float = 0.0
    cutoff: int | None = None  # how many of `ranked` go on to the next stage
    after: list[int] | None = None  # the ranking once this stage applied (ordering stages only)


@dataclass
class QueryOptions:
    limit: int = 10
    candidate_limit: int | None = None
    depth: Depth = "balanced"
    graph: bool = True
    min_score: float = 0.0
    full: bool = False
    lexical_only: bool = False
    snippets: bool = True  # False: hits without snippets, for a caller that reads the documents itself
    hints: Sequence[HintConfig] = ()  # the configured context hints (see `hint_prior`)


@dataclass
class QueryRun:
    result: SearchResult
    stages: list[Stage]
    best_chunk: dict[int, tuple[str, int]]
    final: list[tuple[int, float]]  # every ranked document before the limit (diagnose)
    vectors: str | None = None  # the model whose vectors ranked the vector leg
    first_pass: bool = False  # ... the static first pass of the configured transformer


class HybridQuery(Protocol):
    """Rung 3 as `gno query` runs it (validated options, a collection by name): what a capability
    built on hybrid retrieval (Capsules, `gno bench`) is handed."""

    def __call__(
        self,
        query: str,
        *,
        collection: str | None = ...,
        limit: int = ...,
        tags_any: Sequence[str] = ...,
        tags_all: Sequence[str] = ...,
        depth: Depth = ...,
        graph: bool = ...,
        candidate_limit: int | None = ...,
        lexical_only: bool = ...,
        snippets: bool = ...,
    ) -> SearchResult: ...


class HybridRetriever:
    """The hybrid pipeline over one index: its store (BM25, graph, chunks) and its vector side."""

    def __init__(self, store: Store, semantic: Semantic) -> None:
        self.store = store
        self.semantic = semantic

    # -- legs --------------------------------------------------------------------------------
    def _bm25(self, pq: ParsedQuery, f: DocFilter, limit: int) -> tuple[Stage, list[BM25Hit]]:
        t = time.perf_counter()
        st = Stage("bm25")
        hits: list[BM25Hit] = []
        # any-term matching: function words and one-letter prefixes would match nearly everything; the
        # words of a request ("show", "way", "done") stay, BM25's IDF weighs them (chosen on the
        # retrieval suite, where no corpus lost more than 0.005 nDCG@10)
        pq = content_query(pq, FUNCTION_WORDS)
        try:
            hits = bm25_search(self.store, compile_fts(pq, any_term=True), f, limit)
        except GnoError as err:
            st.status, st.reason = "skipped", err.message
        st.ranked = [h.doc_id for h in hits]
        st.scores = {h.doc_id: h.raw for h in hits}
        st.ms = (time.perf_counter() - t) * 1000
        return st, hits

    def _semantic_stage(self, name: str) -> Stage:
        """A stage that needs the embedder: skipped, with the reason, when it cannot load."""
        st = Stage(name)
        reason = self.semantic.unavailable_reason()
        if reason:
            st.status, st.reason = "skipped", reason
        return st

    def _vector(self, query: str, f: DocFilter, limit: int, best: dict[int, tuple[str, int]]) -> Stage:
        t = time.perf_counter()
        st = self._semantic_stage("vector")
        sem = self.semantic
        if st.status == "active":
            try:
                ranking, configured = sem.ranking_embedder(), sem.embedder()
                if ranking is not configured:
                    n = sem.vector_counts().get(configured.fingerprint, 0)
                    st.reason = (
                        f"first pass: {ranking.model_id} vectors ({n} chunks have {configured.model_id} ones so far; "
                        f"the top candidates are re-scored by it)"
                    )
                for doc_id, score, key in sem.search_docs(query, f, limit):
                    if score <= 0.0:
                        break  # unrelated: never a candidate (vsearch drops them too)
                    st.ranked.append(doc_id)
                    st.scores[doc_id] = score
                    best.setdefault(doc_id, key)
            except GnoError as err:
                st.status, st.reason = "skipped", err.message
        st.ms = (time.perf_counter() - t) * 1000
        return st

    def _feedback(self, pq: ParsedQuery, f: DocFilter, top: list[int], limit: int) -> Stage:
        """Pseudo-relevance feedback: the top documents' most distinctive words as extra terms."""
        t = time.perf_counter()
        st = Stage("feedback")
        rows = docs.docs_by_ids(self.store, top[:3])
        texts = docs.contents_of(self.store, (r.mirror_hash for r in rows.values()))
        qwords = set(pq.words())
        tf: Counter[str] = Counter()
        for r in rows.values():
            body = "\n".join(texts.get(r.mirror_hash, "").split("\n")[r.body_start_line - 1 :])  # no front matter
            words = word_tokens(body)
            tf.update(w for w in words if len(w) > 2 and w not in STOPWORDS and w not in qwords and not w.isdigit())
        total = max(1, docs.count_active(self.store))
        scored: list[tuple[float, str]] = []
        for w, n in tf.most_common(30):
            try:
                df = count_matches(self.store, compile_fts(w, prefix=False), DocFilter())
            except GnoError:
                continue
            scored.append((n * math.log(1 + total / (1 + df)), w))
        extra = [w for _, w in sorted(scored, reverse=True)[:5]]
        if not extra:
            st.status, st.reason = "skipped", "no feedback terms"
        else:
            expanded = ParsedQuery(pq.positives + tuple(Term(w, False) for w in extra), pq.negatives)
            try:
                hits = bm25_search(self.store, compile_fts(expanded, any_term=True), f, limit)
                st.ranked = [h.doc_id for h in hits]
                st.scores = {h.doc_id: h.raw for h in hits}
                st.reason = "terms: " + ", ".join(extra)
            except GnoError as err:
                st.status, st.reason = "skipped", err.message
        st.ms = (time.perf_counter() - t) * 1000
        return st

    def _graph(self, seeds: list[int], f: DocFilter) -> Stage:
        t = time.perf_counter()
        st = Stage("graph")
        found: list[int] = []
        for s in seeds[:GRAPH_SEEDS]:
            for e in gstore.outgoing(self.store, s) + gstore.incoming(self.store, s):
                other = e.target if e.source == s else e.source
                if other not in found and other not in seeds[:GRAPH_SEEDS]:
                    found.append(other)
        if found:
            where, params = filter_sql(f._replace(doc_ids=found, as_of=None))
            allowed = {d for d, _ in vstore.filtered_docs(self.store, where, params)}
            found = [d for d in found if d in allowed]
        st.ranked = found[:GRAPH_MAX]
        st.scores = dict.fromkeys(st.ranked, 1.0)
        if not st.ranked:
            st.reason = "no linked documents"
        st.ms = (time.perf_counter() - t) * 1000
        return st

    def _rescore(
        self, query: str, ranked: list[tuple[int, float]], best: dict[int, tuple[str, int]], n: int
    ) -> tuple[Stage, list[tuple[int, float]]]:
        t = time.perf_counter()
        st = self._semantic_stage("rescore")
        if st.status == "skipped":
            return st, ranked
        sem = self.semantic
        quality = sem.quality_embedder()
        if quality is None:
            # re-scoring with the model that produced the vector leg only re-weights that leg (measured on
            # NFCorpus: -0.01 nDCG@10); it pays only when the first stage is a fast static model
            st.status, st.reason = "skipped", "vectors already come from the quality embedder"
            return st, ranked
        idx = sem.index()
        q = sem.embed_query(query)
        head = ranked[:n]
        rows = docs.docs_by_ids(self.store, [d for d, _ in head])
        sims: dict[int, float] = {}
        for doc_id, _ in head:
            row = rows.get(doc_id)
            if row is None:
                continue
            best_sim, best_key = -1.0, None
            seq = 0
            while True:
                v = idx.vector_of((row.mirror_hash, seq))
                if v is None:
                    break
                s = float(v @ q)
                if s > best_sim:
                    best_sim, best_key = s, (row.mirror_hash, seq)
                seq += 1
            if best_key is not None:
                sims[doc_id] = best_sim
                best.setdefault(doc_id, best_key)
        if not sims:
            st.status, st.reason = "skipped", "no vectors for the candidates"
            return st, ranked
        keys = [best[d] for d in sims]
        texts = vstore.chunk_rows(self.store, keys)
        order = [d for d in sims if best[d] in texts]
        import numpy as np

        qv = quality.embed_query(query)
        # chunks the quality model already embedded (an index may hold vectors of both models) are
        # read back, not embedded again: identical vectors, a fraction of the cost
        stored = vstore.stored_vectors(self.store, quality.fingerprint, [best[d] for d in order])
        todo = [d for d in order if best[d] not in stored]
        # as `embed` stores them: led by the title (the same vectors a stored MiniLM pass holds)
        mv = quality.embed_documents([document_text(rows[d].title, texts[best[d]][0]) for d in todo]) if todo else None
        fresh = {d: mv[i] for i, d in enumerate(todo)} if mv is not None else {}
        sims = {}
        for d in order:
            v = fresh[d] if d in fresh else np.frombuffer(stored[best[d]], dtype="<f4")
            sims[d] = float(v @ qv)
        lo, hi = min(sims.values()), max(sims.values())
        top_f = head[0][1] if head and head[0][1] > 0 else 1.0
        blended: list[tuple[int, float]] = []
        for pos, (doc_id, fscore) in enumerate(head, 1):
            w = 0.75 if pos <= 3 else 0.60 if pos <= 10 else 0.40
            r = (sims[doc_id] - lo) / (hi - lo) if doc_id in sims and hi > lo else 0.5
            blended.append((doc_id, w * (fscore / top_f) + (1 - w) * r))
        blended.sort(key=lambda x: (-x[1], x[0]))
        tail = [(d, 0.5 * s / top_f) for d, s in ranked[n:]]
        st.ranked = [d for d, _ in blended]
        st.scores = dict(sims)
        st.ms = (time.perf_counter() - t) * 1000
        return st, blended + tail

    # -- ordering stages -------------------------------------------------------------------
    @staticmethod
    def _place_neighbours(fused: Ranked, neighbours: list[int]) -> Ranked:
        """Neighbours of the seeds gain GRAPH_BONUS, capped just below the weakest seed (in link order)."""
        seeds = fused[:GRAPH_SEEDS]
        seed_ids = {d for d, _ in seeds}
        floor = min((sc for _, sc in seeds), default=0.0)
        scores = dict(fused)
        for rank, d in enumerate(neighbours):
            if d in seed_ids:
                continue
            own = scores.get(d, 0.0)
            cap = floor * (1.0 - 1e-3 * (rank + 1))
            scores[d] = max(own, min(own + GRAPH_BONUS, cap))
        return _order(scores)

    def _rare_guard(
        self,
        pq: ParsedQuery,
        f: DocFilter,
        hits: list[BM25Hit],
        ranked: Ranked,
        vector_top: tuple[int, float] | None = None,
    ) -> tuple[Stage, Ranked]:
        """BM25's #1 that holds a rare query word (in <= RARE_DF documents) stays in the top RARE_TOP, and
        so does the vector leg's #1 (`vector_top`: it and its fusion credit) when its credit reaches
        VECTOR_GUARD."""
        st = Stage("guard")
        t = time.perf_counter()
        if not hits or not ranked:
            st.status, st.reason = "skipped", "no BM25 hit"
            return st, ranked
        top = hits[0].doc_id
        pos = next((i for i, (d, _) in enumerate(ranked) if d == top), None)
        if pos is not None and pos < RARE_TOP:
            st.reason = "BM25 #1 already in the top 3"
        else:
            rare = None
            for term in content_query(pq).positives:
                try:
                    expr = compile_fts(ParsedQuery((term,), ()))
                    if count_matches(self.store, expr, DocFilter(), cap=RARE_DF + 1) > RARE_DF:
                        continue
                    if holds(self.store, expr, top):
                        rare = term.text
                        break
                except GnoError:
                    continue
            if rare is None:
                st.reason = "no rare query word in BM25 #1"
            else:
                st.reason = f"BM25 #1 holds the rare word {rare!r}"
                ranked = _keep_near_top(ranked, top)
        if vector_top is not None:
            vtop, credit = vector_top
            vpos = next((i for i, (d, _) in enumerate(ranked) if d == vtop), None)
            if credit >= VECTOR_GUARD and (vpos is None or vpos >= RARE_TOP):
                ranked = _keep_near_top(ranked, vtop)
                st.reason = (st.reason or "") + f"; vector #1 stands {credit:.2f} out of its pool"
        st.ranked = [d for d, _ in ranked]
        st.after = st.ranked
        st.ms = (time.perf_counter() - t) * 1000
        return st, ranked

    # -- pipeline ----------------------------------------------------------------------------
    def run(self, query: str, f: DocFilter, opts: QueryOptions) -> QueryRun:
        t0 = time.perf_counter()
        pq = parse_query(query)
        cand = opts.candidate_limit or (40 if opts.depth == "thorough" else 20)
        pool = max(cand * 2, opts.limit * 2)
        best: dict[int, tuple[str, int]] = {}
        bm25_st, hits = self._bm25(pq, f, pool)
        vec_st = (
            Stage("vector", "skipped", reason="lexical only")
            if opts.lexical_only
            else self._vector(query, f, pool, best)
        )
        stages = [bm25_st, vec_st]
        trust = DEFAULT_TRUST
        ranking = self.semantic.ranking_embedder() if vec_st.status == "active" else None
        if ranking is not None:
            trust = trust_for(ranking.model_id)
        w_vec = trust.weight if vec_st.status == "active" and vec_st.ranked else 0.0
        vec_credit = margin_scaled([(d, vec_st.scores[d]) for d in vec_st.ranked], trust.spread, trust.floor)
        bm25_credit = scaled_to_best([(h.doc_id, h.raw) for h in hits])
        held = 1.0
        if w_vec and hits:  # beside a vector leg, BM25 earns what its #1 holds of the query (`held_share`)
            top = docs.docs_by_ids(self.store, [hits[0].doc_id]).get(hits[0].doc_id)
            held = held_share(self.store, pq, hits[0].doc_id, top.source_size) if top else 1.0
            bm25_credit = {d: s * held for d, s in bm25_credit.items()}
        legs: list[tuple[dict[int, float], float]] = [(bm25_credit, 1.0 - w_vec), (vec_credit, w_vec)]
        if opts.depth == "thorough" and bm25_st.ranked:
            prf = self._feedback(pq, f, [d for d, _ in _order(weighted_sum(legs))[:3]], pool)
            stages.append(prf)
            legs.append((scaled_to_best([(d, prf.scores[d]) for d in prf.ranked]), W_PRF * (1.0 - w_vec)))
        fused = _order(weighted_sum(legs))
        fus = Stage("fusion", ranked=[d for d, _ in fused], scores=dict(fused), cutoff=cand)
        fus.after = fus.ranked
        fus.reason = (
            f"vector weight {w_vec:.2f}, full credit {trust.spread:g} deviations above the pool median; "
            f"BM25 credit x{held:.2f} (what its #1 holds of the query)"
            if w_vec
            else "BM25 only"
        )
        stages.insert(2, fus)
        if opts.hints and fused and w_vec and not (opts.depth != "fast" and self.semantic.quality_embedder()):
            from gno.retrieve import hint_prior as hp  # a prior between scopes; not before a re-scoring

            relevance = hp.vector_relevance(self.semantic, query)
            hs, fused = hp.hint_prior(self.store, fused, opts.hints, relevance, query, opts.limit)
            stages.append(hs)
        if opts.depth != "fast" and opts.graph and fused:
            g = self._graph([d for d, _ in fused], f)
            fused = self._place_neighbours(fused, g.ranked)
            g.after = [d for d, _ in fused]
            stages.append(g)
        else:
            why = "--fast" if opts.depth == "fast" else "--no-graph" if not opts.graph else "no candidates"
            stages.append(Stage("graph", "skipped", reason=why))
        ranked = fused
        if opts.depth != "fast" and fused and not opts.lexical_only:
            rs, ranked = self._rescore(query, fused, best, cand)
            rs.after = [d for d, _ in ranked] if rs.status == "active" else None
            stages.append(rs)
        else:
            why = "--fast" if opts.depth == "fast" else "lexical only" if opts.lexical_only else "no candidates"
            stages.append(Stage("rescore", "skipped", reason=why))
        if vec_st.status == "active" and w_vec and ranked:
            vtop = vec_st.ranked[0]
            gs, ranked = self._rare_guard(pq, f, hits, ranked, (vtop, vec_credit.get(vtop, 0.0)))
            stages.append(gs)
        else:
            stages.append(Stage("guard", "skipped", reason="BM25 alone already ranks"))
        top_score = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0
        final = [(d, round(max(0.0, min(1.0, s / top_score)), 6)) for d, s in ranked]
        kept = [x for x in final if x[1] >= opts.min_score][: opts.limit]
        sources = {
            d: [s.name for s in stages if s.name in ("bm25", "vector", "graph", "feedback") and d in s.scores]
            for d, _ in kept
        }
        t_asm = time.perf_counter()
        # a hit only the vector leg found shows its best chunk's window of a long note
        vector_only = [best[d] for d, _ in kept if d in best and "bm25" not in sources[d]] if opts.snippets else []
        starts = vstore.chunk_lines(self.store, vector_only) if vector_only else {}
        lines = {d: starts[best[d]] for d, _ in kept if d in best and best[d] in starts and "bm25" not in sources[d]}
        results = build_hits(
            self.store, kept, pq.words(), full=opts.full, sources=sources, lines=lines, snippets=opts.snippets
        )
        if opts.snippets:
            self._chunk_snippets(results, kept, best, pq)
        stages.append(Stage("assembly", ranked=[d for d, _ in kept], ms=(time.perf_counter() - t_asm) * 1000))
        mode = "hybrid" if vec_st.status == "active" else "bm25"
        notes = None if vec_st.status == "active" else [f"vector leg skipped: {vec_st.reason}"]
        meta = SearchMeta(
            total_results=len(final),
            mode=mode,
            elapsed_ms=round((time.perf_counter() - t0) * 1000, 3),
            collection=f.collections[0] if len(f.collections) == 1 else None,
            notes=notes,
        )
        first = ranking is not None and ranking is not self.semantic.embedder()
        result = SearchResult(query=query, mode=mode, results=results, meta=meta)
        return QueryRun(result, stages, best, final, ranking.model_id if ranking else None, first)

    def _chunk_snippets(
        self,
        results: list[SearchHit],
        kept: list[tuple[int, float]],
        best: dict[int, tuple[str, int]],
        pq: ParsedQuery,
    ) -> None:
        """Hits found through a chunk cite that chunk's best line window when BM25 words miss it."""
        rows = vstore.chunk_rows(self.store, [best[d] for d, _ in kept if d in best])
        words = pq.words()
        for hit, (doc_id, _) in zip(results, kept, strict=False):
            key = best.get(doc_id)
            if key is None or key not in rows:
                continue
            text, start, end = rows[key]
            if any(w in hit.snippet.lower() for w in words):
                continue
            lines = text.split("\n")
            first = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
            snippet = "\n".join(lines[first : first + 3]).strip()
            hit.snippet = snippet[:320]
            hit.line = start + first
            hit.snippet_range.start_line = start + first
            hit.snippet_range.end_line = min(end, start + first + max(0, len(snippet.split("\n")) - 1))


def _keep_near_top(ranked: Ranked, doc: int) -> Ranked:
    """`doc` moved up to rank RARE_TOP (or kept where it is, when higher), scored between its neighbours."""
    rest = [x for x in ranked if x[0] != doc]
    at = min(RARE_TOP - 1, len(rest))
    score = rest[at - 1][1] if at > 0 else 1.0
    if at < len(rest):
        score = (score + rest[at][1]) / 2
    return rest[:at] + [(doc, score)] + rest[at:]


def _order(scores: dict[int, float]) -> Ranked:
    """Best first, ties by document id."""
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))
