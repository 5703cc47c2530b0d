"""`recall`: current facts that match a query, in explicit scopes, under a budget, with a receipt.

BM25 leg always (conjunctive, limit 32, scope and "current only" filters inside the query);
a vector leg when the caller passes one (the model already on disk; never downloaded); RRF
fuses them by URI (k = 60 for the lexical leg alone, as the reference; k = 10 with the vector leg).
With the vector leg present, the lexical leg is filled up to its limit with any-term matches after
the conjunctive ones: the vector leg returns the nearest facts whatever their words, so a
conjunctive-only lexical leg would only starve the fusion (measured on LoCoMo dialog R@10:
0.599 → 0.624 together with the smaller k). Budget: at most `maxFacts` facts under `maxTokens` estimated
tokens (ceil(UTF-8 bytes / 4)); `omitted` counts matched facts that did not fit. `asOf` recalls
the facts that were current at that time instead (`gno.memory.timeline`). An empty
result carries the same fixed hint on every surface, naming the write path.
"""

from __future__ import annotations

from gno.memory.inputs import facts_of, positive_int, require_identity
from gno.memory.limits import (
    MEMORY_EMPTY_RECALL_HINT,
    MEMORY_HYBRID_RRF_K,
    MEMORY_RECALL_MAX_FACTS,
    MEMORY_RECALL_MAX_TOKENS,
    MEMORY_RECALL_RETRIEVAL_LIMIT,
    MEMORY_RRF_K,
    MEMORY_TOKEN_BYTES_ESTIMATE,
    validate_scopes,
)
from gno.memory.receipts import make_receipt
from gno.memory_records import Budget, Recalled, RecalledFact, Retrieval
from gno.retrieve.fusion import rrf_scores
from gno.retrieve.grammar import compile_fts, content_query, parse_query
from gno.store.fts import REBUILD_HINT, DocFilter, FtsQueryError, bm25_search
from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: a cold `gno recall` imports neither typing nor pydantic
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Literal, Protocol

    from gno.index import IndexReader
    from gno.models.memory_results import RecallResult
    from gno.store.db import Store

    #: (query, filter, limit) → doc ids ranked by vector similarity (the semantic leg)
    VectorLeg = Callable[[str, DocFilter, int], list[int]]
    #: the memory collection a request names (or the only one) → (its name, (name, egress policy, explicit))
    Resolve = Callable[[str | None], tuple[str, tuple[str, str, bool]]]

    class HasStore(Protocol):
        @property
        def store(self) -> Store: ...


class RecallRequest(NamedTuple):
    query: Any
    scopes: Any
    caller: str | None
    session: str | None
    collection: str | None = None
    max_facts: Any = MEMORY_RECALL_MAX_FACTS
    max_tokens: Any = MEMORY_RECALL_MAX_TOKENS
    as_of: Any = None


def estimate_tokens(text: str) -> int:
    return -(-len(text.encode("utf-8")) // MEMORY_TOKEN_BYTES_ESTIMATE)


def rrf(legs: Sequence[Sequence[str]], k: int = MEMORY_RRF_K) -> list[tuple[str, float]]:
    """Unweighted RRF, ties by key."""
    return sorted(rrf_scores([(leg, 1.0) for leg in legs], k).items(), key=lambda kv: (-kv[1], kv[0]))


def recall(
    index: IndexReader,
    req: RecallRequest,
    vector_leg: VectorLeg | None = None,
    semantic_unavailable: str | None = "no embedding model available",
) -> RecallResult:
    """`recall_facts` on the validated config, as the model every surface dumps."""
    from gno.memory.inputs import resolve_collection
    from gno.models.memory_results import RecallResult
    from gno.wire import fields

    def resolve(name: str | None) -> tuple[str, tuple[str, str, bool]]:
        c = resolve_collection(index.config, name)
        return c.name, (c.name, c.egress_policy, c.egress_explicit)

    return RecallResult.model_validate(fields(recall_facts(index, resolve, req, vector_leg, semantic_unavailable)))


def recall_facts(
    index: HasStore,
    resolve: Resolve,
    req: RecallRequest,
    vector_leg: VectorLeg | None = None,
    semantic_unavailable: str | None = "no embedding model available",
) -> Recalled:
    """Current facts in the request's scopes, ranked, under its budget, with a receipt (plain data).

    Validates in the contract's order: identity, query, collection (`resolve`), scopes, budget.
    """
    from gno.egress import lineage_of

    caller, session = require_identity(req.caller, req.session)
    if not isinstance(req.query, str) or not req.query.strip():
        from gno.errors import ErrorCode, ValidationError

        raise ValidationError("recall needs a query", code=ErrorCode.MEMORY_QUERY_REQUIRED)
    coll_name, source = resolve(req.collection)
    scopes = validate_scopes(req.scopes)
    max_facts = positive_int(req.max_facts, "maxFacts")
    max_tokens = positive_int(req.max_tokens, "maxTokens")
    if req.as_of is None:
        f = DocFilter(collections=[coll_name], memory_scopes=scopes, current_facts_only=True)
    else:  # the facts current then (gno.memory.timeline), not now
        from gno.memory.instants import require_instant

        as_of = require_instant(req.as_of, "asOf", end_of_day=True)
        f = DocFilter(collections=[coll_name], memory_scopes=scopes, as_of=as_of)
    store = index.store
    try:
        bm25_ids: list[int] = []
        try:
            # conjunctive over the content words; any-term matches ranked by BM25 only when that finds
            # nothing (a question worded unlike the fact) or to fill the leg beside the vector leg
            limit = MEMORY_RECALL_RETRIEVAL_LIMIT
            pq = content_query(parse_query(req.query))
            bm25_ids = [h.doc_id for h in bm25_search(store, compile_fts(pq), f, limit)]
            fill = not bm25_ids or (vector_leg is not None and len(bm25_ids) < limit)
            if fill and len(pq.positives) > 1:
                have = set(bm25_ids)
                more = bm25_search(store, compile_fts(pq, any_term=True), f, limit)
                bm25_ids += [h.doc_id for h in more if h.doc_id not in have][: limit - len(bm25_ids)]
        except Exception as exc:
            from gno.errors import ValidationError

            if not isinstance(exc, ValidationError):
                raise
            bm25_ids = []  # nothing searchable lexically: the vector leg may still answer
        legs: list[list[int]] = [bm25_ids]
        mode: Literal["lexical", "hybrid"] = "lexical"
        reason = semantic_unavailable
        if vector_leg is not None:
            from gno.errors import GnoError

            try:
                legs.append(vector_leg(req.query, f, MEMORY_RECALL_RETRIEVAL_LIMIT))
                mode, reason = "hybrid", None
            except GnoError as exc:
                reason = exc.message
            except Exception as exc:  # noqa: BLE001 - degrade to lexical and say why
                reason = f"vector leg failed: {exc}"
    except FtsQueryError as exc:
        from gno.errors import ErrorCode, RuntimeFailure

        raise RuntimeFailure(f"recall query failed: {exc}; {REBUILD_HINT}", code=ErrorCode.MEMORY_QUERY_FAILED) from exc
    fused = rrf([[str(i) for i in leg] for leg in legs], MEMORY_HYBRID_RRF_K if len(legs) > 1 else MEMORY_RRF_K)
    ids = [int(k) for k, _ in fused]
    recs = facts_of(store, ids)
    ranked = [(recs[int(k)], s) for k, s in fused if int(k) in recs]
    # the RRF keys above are doc ids; order ties by URI as the reference does
    ranked.sort(key=lambda rs: (-rs[1], rs[0].uri))
    lin = lineage_of([source])
    facts: list[RecalledFact] = []
    used = 0
    for rec, score in ranked:
        if len(facts) >= max_facts:
            break
        t = estimate_tokens(rec.text)
        if used + t > max_tokens:
            continue
        used += t
        fact = RecalledFact(**rec._asdict(), span_hash=rec.content_hash, score=round(score, 6), egress_lineage=lin)
        facts.append(fact)
    from gno.clock import now_iso

    receipt = make_receipt(caller, session, now_iso(), [x.docid for x in facts], [x.content_hash for x in facts])
    return Recalled(
        facts=facts,
        receipt=receipt,
        budget=Budget(max_facts=max_facts, max_tokens=max_tokens, used_tokens=used, omitted=len(ranked) - len(facts)),
        retrieval=Retrieval(mode=mode, semantic_unavailable=reason if mode == "lexical" else None),
        egress_lineage=lin if facts else None,
        hint=None if facts else MEMORY_EMPTY_RECALL_HINT,
    )
