"""How context hints steer `gno query`: a small prior for documents whose hints speak of the query.

A hint says what a scope holds ("the Android shell's programs"). When a query is closer in meaning
to the hints of one scope than to another's, the documents of the first scope are a little more
likely to be what the user means. Each fused candidate gets

    prior = HINT_WEIGHT × (cosine(query, its hints) − the lowest such cosine among the candidates)

with the hints of a document joined (global, collection, prefixes) and embedded, like the query,
by the model whose vectors ranked the vector leg. Only a *difference* between scopes moves
anything: hints that every candidate shares (the global hint, the one collection a query
searches) change no score and no rank.

Where it runs (each choice measured on `bench/retrieval_suite.py --hints bench/queries/hints.yml`,
weight chosen on the tune parts): after fusion, before graph expansion, as a stage of its own
(`hints`, in `--explain` and `query diagnose`); only with the vector leg on (counting shared words
instead moved dwarves and tldr down); and not when a re-scoring model re-ranks the candidates after
it (a static first pass: silverbullet's report part lost 0.012 nDCG@10 with the prior there). With
no hint configured the stage does not run and every result is as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.hints import HintConfig
    from gno.retrieve.hybrid import Ranked, Stage
    from gno.retrieve.semantic import Semantic
    from gno.store.db import Store

#: what one unit of cosine above the candidates' lowest adds to a fused score (BM25's best hit = 1);
#: chosen on the suite's tune parts (0.1 … 1.5; 0.8 is the one where no tune figure fell)
HINT_WEIGHT = 0.8
#: cosine differences (above the candidates' lowest) up to this much add nothing; the tune parts were
#: best at 0 (0.02-0.1 measured), so every difference counts
HINT_MARGIN = 0.0

Relevance = Callable[[tuple[str, ...]], float]


def vector_relevance(semantic: Semantic, query: str) -> Relevance:
    """The cosine between the query and a document's hints (joined), by the model whose vectors ranked."""
    import numpy as np

    emb = semantic.ranking_embedder()
    q = emb.embed_query(query)
    qn = float(np.linalg.norm(q)) or 1.0

    def rel(texts: tuple[str, ...]) -> float:
        if not texts:
            return 0.0
        v = semantic.text_vector(" ".join(texts), emb)
        return float(np.dot(q, v)) / (qn * (float(np.linalg.norm(v)) or 1.0))

    return rel


def hint_prior(
    store: Store,
    fused: Ranked,
    hints: Sequence[HintConfig],
    relevance: Relevance,
    weight: float | None = None,
) -> tuple[Stage, Ranked]:
    """The `hints` stage: the fused ranking with each candidate's prior added (see the module)."""
    from gno.hints import matching
    from gno.retrieve.hybrid import Stage, _order

    t = time.perf_counter()
    w = HINT_WEIGHT if weight is None else weight
    rows = docs.docs_by_ids(store, [d for d, _ in fused])
    per_set: dict[tuple[str, ...], float] = {}
    raw: dict[int, float] = {}
    for d, _ in fused:
        row = rows.get(d)
        texts = tuple(h.text for h in matching(hints, row.collection, row.rel_path)) if row else ()
        if texts not in per_set:
            per_set[texts] = relevance(texts)
        raw[d] = per_set[texts]
    low = min(raw.values(), default=0.0)
    prior = {d: w * max(0.0, r - low - HINT_MARGIN) for d, r in raw.items()}
    st = Stage("hints", scores=prior)
    ranked = _order({d: s + prior[d] for d, s in fused}) if w and len(per_set) > 1 else fused
    st.ranked = [d for d, _ in ranked]
    st.after = st.ranked
    st.reason = f"prior {w:g} × (cosine of the query and a document's hints − the lowest); {len(per_set)} hint sets"
    st.ms = (time.perf_counter() - t) * 1000
    return st, ranked
