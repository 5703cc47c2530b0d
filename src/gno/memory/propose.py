"""A fact's candidates: what `remember` finds already stored like it, before any decision.

The BM25 pool of 16 current facts in the same scopes (any-term, inside the query), ranked by
cosine when an embedder is given, else token Jaccard; a fact with the same normalised text is
`exact` (found even outside the pool), one over the threshold `likely`, the rest `weak`.
`propose` is the whole answer to a proposal: `existing` when the exact fact is stored, else
the `candidates`. Plain data (the fields, in the order, of `gno.models.memory_results`), so a cold
`gno remember` (`gno.cli.cold_memory`) and the engine's `remember` compose the same function.
"""

from __future__ import annotations

from gno.memory.inputs import facts_of
from gno.memory.limits import (
    MEMORY_CANDIDATE_POOL,
    MEMORY_LEXICAL_LIKELY_THRESHOLD,
    MEMORY_SEMANTIC_LIKELY_THRESHOLD,
    jaccard,
    normalize_text,
    token_set,
)
from gno.memory_records import Fact, Matching, Similar
from gno.retrieve.grammar import compile_fts, parse_query
from gno.store import memory as mstore
from gno.store.fts import DocFilter, FtsQueryError, bm25_search
from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold proposal imports neither typing nor pydantic
if TYPE_CHECKING:
    from typing import Literal

    from gno.embed.base import Embedder
    from gno.store.db import Store


class Proposal(NamedTuple):
    """`gno.models.memory_results.RememberResult` of a proposal (nothing written) as plain data."""

    outcome: str  # existing | candidates
    record: Fact | None
    candidates: list[Similar] | None
    matching: Matching


def candidates(
    store: Store,
    coll: str,
    scopes: list[str],
    text: str,
    chash: str,
    embedder: Embedder | None,
    unavailable: str = "no embedding model available",
) -> tuple[list[Similar], Matching]:
    pq = parse_query(normalize_text(text).replace('"', " "))
    f = DocFilter(collections=[coll], memory_scopes=scopes, current_facts_only=True)
    pool: list[int] = []
    if pq.positives:
        try:
            pool = [h.doc_id for h in bm25_search(store, compile_fts(pq, any_term=True), f, MEMORY_CANDIDATE_POOL)]
        except FtsQueryError:
            pool = []
    recs = facts_of(store, pool)
    records = [recs[i] for i in pool if i in recs]
    reason = None
    sims: list[float] = []
    mode: Literal["semantic", "lexical"] = "lexical"
    threshold = MEMORY_LEXICAL_LIKELY_THRESHOLD
    if embedder is not None and records:
        try:
            vecs = embedder.embed_documents([normalize_text(text)] + [normalize_text(r.text) for r in records])
            sims = [float(vecs[0] @ vecs[i + 1]) for i in range(len(records))]
            mode, threshold = "semantic", MEMORY_SEMANTIC_LIKELY_THRESHOLD
        except Exception as exc:  # noqa: BLE001 - degrade to lexical, say why
            embedder, reason = None, f"embedding failed: {exc}"
    if embedder is None or not records:
        q = token_set(text)
        sims = [jaccard(q, token_set(r.text)) for r in records]
        mode, threshold = "lexical", MEMORY_LEXICAL_LIKELY_THRESHOLD
        if embedder is None and reason is None:
            reason = unavailable
    exact_id = mstore.current_by_hash(store, coll, scopes, chash)
    if exact_id is not None and not any(r.content_hash == chash for r in records):
        exact_rec = facts_of(store, [exact_id]).get(exact_id)
        if exact_rec is not None:  # the same fact ranked outside the BM25 pool: still `existing`
            records.append(exact_rec)
            sims.append(1.0)
    cands = []
    for r, s in zip(records, sims, strict=True):
        match: Literal["exact", "likely", "weak"] = "weak"
        if r.content_hash == chash:
            match = "exact"
        elif s >= threshold:
            match = "likely"
        cands.append(Similar(record=r, similarity=round(1.0 if match == "exact" else s, 6), match=match))
    cands.sort(key=lambda c: (-c.similarity, c.record.record_id))
    matching = Matching(
        mode=mode,
        threshold=threshold,
        pool_size=len(records),
        semantic_unavailable=reason if mode == "lexical" else None,
    )
    return cands, matching


def propose(found: tuple[list[Similar], Matching]) -> Proposal:
    """What `candidates` found, as a proposal: `existing` (the exact fact, nothing else) when it is
    stored, else the `candidates`."""
    cands, matching = found
    exact = next((c for c in cands if c.match == "exact"), None)
    if exact is not None:
        return Proposal(outcome="existing", record=exact.record, candidates=None, matching=matching)
    return Proposal(outcome="candidates", record=None, candidates=cands, matching=matching)
