"""Rung 3 as `gno query` and `gno diagnose` ask for it: the options, the run and its explanation.

The request's fields become one `QueryOptions`; the hybrid pipeline runs over the filtered index;
with `explain`, each stage's five best documents, its timing and its status are reported beside the
hits (the stages `gno diagnose` walks for one target document).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gno.hints import HintConfig
    from gno.models import QueryExplain, SearchResult
    from gno.retrieve.hybrid import Depth, HybridRetriever, QueryOptions, QueryRun
    from gno.store.db import Store
    from gno.store.fts import DocFilter


def query_options(
    limit: int,
    min_score: float,
    depth: Depth,
    graph: bool,
    candidate_limit: int | None,
    full: bool,
    *,
    lexical_only: bool = False,
    snippets: bool = True,
) -> QueryOptions:
    from gno.retrieve.hybrid import QueryOptions

    return QueryOptions(
        limit=limit,
        candidate_limit=candidate_limit,
        depth=depth,
        graph=graph,
        min_score=min_score,
        full=full,
        lexical_only=lexical_only,
        snippets=snippets,
    )


def query(
    retriever: HybridRetriever,
    query: str,
    f: DocFilter,
    opts: QueryOptions,
    hints: Sequence[HintConfig],
    *,
    explain: bool = False,
) -> SearchResult:
    """The hybrid run's result, each hit with the context hints that apply to it."""
    from gno.hints import attach

    opts.hints = hints
    run = retriever.run(query, f, opts)
    if explain:
        run.result.explain = explained(retriever.store, run, opts)
    return attach(run.result, hints)


def explained(store: Store, run: QueryRun, opts: QueryOptions) -> QueryExplain:
    """Each stage of the run with its five best documents (rank and score within the stage)."""
    from gno.models import ExplainHit, ExplainStage, QueryExplain
    from gno.store import documents as docs

    ids = sorted({d for st in run.stages for d in st.ranked[:5]})
    rows = docs.docs_by_ids(store, ids)
    stages = []
    for st in run.stages:
        top = [
            ExplainHit(docid=rows[d].docid, uri=rows[d].uri, rank=i, score=round(st.scores.get(d, 0.0), 6))
            for i, d in enumerate(st.ranked[:5], 1)
            if d in rows
        ]
        stages.append(
            ExplainStage(
                name=st.name, status=st.status, ms=round(st.ms, 3), count=len(st.ranked), reason=st.reason, top=top
            )
        )
    cand = opts.candidate_limit or (40 if opts.depth == "thorough" else 20)
    return QueryExplain(
        depth=opts.depth, candidate_limit=cand, stages=stages, vectors=run.vectors, first_pass=run.first_pass
    )
