"""How context hints steer `gno query`: a small prior for documents whose hints speak of the query.

A hint says what a scope holds ("Programs found only on Windows"). When a query names a scope, the
documents of that scope are a little more likely to be what the user means. The prior acts only
where the query speaks to a scope: a candidate's hints earn it only when they hold the *one* hint
that names a content word of the query (stop words out, plurals as their singular, a name such as
"Windows" as written) that not every candidate's hints name (`speaking_sets`). "list disks on
windows" then lifts the Windows scope; "compress a folder" names no scope and moves nothing; a
query that names two scopes ("on Windows and on other platforms") does not say which it is about
and moves nothing either. A speaking candidate then gets

    prior = HINT_WEIGHT × (cosine(query, its hints) − the lowest such cosine among the candidates)

with the hints of a document joined (global, collection, prefixes) and embedded, like the query,
by the model whose vectors ranked the vector leg. The prior reorders only the documents the fusion
already put in the first `limit` (the user's ``-n``), among themselves: a hint says which of the
found documents the user more likely means, not which others to bring in, so the set a query shows
is the same with hints as without (lifting scope notes from below the top pushed a root map of
content out of dwarves' top 10: Recall@10 of a tune part fell 1.000 -> 0.985; reordering only,
its nDCG@10 rose 0.955 -> 0.963 and no figure fell). Hints that every candidate shares (the global
hint, the one collection a query searches) never open the gate and change no score and no rank.

Why the gate: by the cosine alone, every query moved between scopes by small differences in how
close it is to each hint, most of them noise (the spread of a query's cosines across a corpus's
hints is 0.05-0.08 on every corpus, so no margin separates signal from it), and tldr's report part
fell. Measured on `bench/retrieval_suite.py --hints bench/queries/hints.yml` (figures and commands
in docs/benchmarks.md, "Context hints"): with the gate no nDCG@10 of any corpus, embedder, mode or
part is below its value without hints. Matching words by the light stemmer instead of plurals
("indexer" met "index"), letting a query speak to several scopes, and folding a name to a singular
("an X11 window" met "Windows") each cost a report figure.

Where it runs: after fusion, before graph expansion, as a stage of its own (`hints`, in `--explain`
and `query diagnose`); only with the vector leg on (counting shared words instead of the cosine
moved dwarves and tldr down); and not when a re-scoring model re-ranks the candidates after it (a
static first pass: silverbullet's report part lost 0.012 nDCG@10 with the prior there). With no
hint configured the stage does not run and every result is as before; with hints but no scope
named, it runs, finds no speaking set, and leaves the fusion as it is without embedding anything.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gno.retrieve.grammar import STOPWORDS, singular
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.hints import HintConfig
    from gno.retrieve.hybrid import Ranked, Stage
    from gno.retrieve.semantic import Semantic
    from gno.store.db import Store

#: what one unit of cosine above the candidates' lowest adds to a fused score (BM25's best hit = 1);
#: chosen with the gate on the suite's tune parts (0.5, 0.65, 0.8: 0.65 is best on dwarves wordllama,
#: equal elsewhere; by the cosine alone 0.8 had been chosen from 0.1 … 1.5)
HINT_WEIGHT = 0.65
#: cosine differences (above the candidates' lowest) up to this much add nothing; the tune parts were
#: best at 0 (0.02-0.1 measured), so every difference counts
HINT_MARGIN = 0.0
#: a candidate's hints earn the prior only when they hold the one hint that names a word of the query
#: not every candidate's hints name (`speaking_sets`); off, every candidate's do (the cosine alone)
LEXICAL_GATE = True
#: the prior reorders the fused list's first `limit` documents among themselves and never brings in one
#: from below them; off, it may lift any candidate of the pool into the top
REORDER_ONLY = True

Relevance = Callable[[tuple[str, ...]], float]


def vector_relevance(semantic: Semantic, query: str) -> Relevance:
    """The cosine between the query and a document's hints (joined), by the model whose vectors ranked."""
    import numpy as np

    emb = semantic.ranking_embedder()
    asked: list[tuple[np.ndarray, float]] = []  # the query's vector and norm, embedded on first use

    def rel(texts: tuple[str, ...]) -> float:
        if not texts:
            return 0.0
        if not asked:
            q = emb.embed_query(query)
            asked.append((q, float(np.linalg.norm(q)) or 1.0))
        q, qn = asked[0]
        v = semantic.text_vector(" ".join(texts), emb)
        return float(np.dot(q, v)) / (qn * (float(np.linalg.norm(v)) or 1.0))

    return rel


_WORD = re.compile(r"[^\W_]+")


def named_words(text: str, asked: bool = False) -> frozenset[str]:
    """The content words a text names (three letters or more, stop words and numbers out), lower case.

    A hint's word is kept as its singular ("environments" meets "environment"), but a name, a
    capitalised word inside a sentence ("Windows", "Linux"), as written: "windows" meets it, an X11
    "window" does not. A query's (`asked`) word stands for itself and its singular. No stemming:
    "indexer" and "index" do not meet."""
    out: set[str] = set()
    for m in _WORD.finditer(text):
        w = m.group().lower()
        if len(w) < 3 or w in STOPWORDS or w.isdigit():
            continue
        if asked:
            out.update((w, singular(w)))
            continue
        before = text[: m.start()].rstrip()
        name = m.group()[0].isupper() and bool(before) and before[-1] not in ".:;!?"
        out.add(w if name else singular(w))
    return frozenset(out)


def speaking_sets(query: str, sets: Sequence[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """The hint sets that speak to the query: those holding the one hint that names a word of it not
    named by every one of `sets` (so a word of the global or the collection hint, which all share,
    never counts). A query naming words of two hints ("available as msedge on Windows and as
    microsoft-edge for other platforms") does not say which scope it is about: no set speaks."""
    asked = named_words(query, asked=True)
    shared = frozenset.intersection(*(named_words(" ".join(t)) for t in sets)) if sets else frozenset()
    naming = {h for texts in sets for h in texts if (named_words(h) & asked) - shared}
    if len(naming) != 1:
        return set()
    return {texts for texts in sets if naming <= set(texts)}


def hint_prior(
    store: Store,
    fused: Ranked,
    hints: Sequence[HintConfig],
    relevance: Relevance,
    query: str,
    limit: int,
    weight: float | None = None,
) -> tuple[Stage, Ranked]:
    """The `hints` stage: the fused ranking with each candidate's prior added (see the module); with
    `REORDER_ONLY`, only the first `limit` move, among themselves."""
    from gno.hints import matching
    from gno.retrieve.hybrid import Stage, _order

    t = time.perf_counter()
    w = HINT_WEIGHT if weight is None else weight
    rows = docs.docs_by_ids(store, [d for d, _ in fused])
    sets: dict[int, tuple[str, ...]] = {}
    for d, _ in fused:
        row = rows.get(d)
        sets[d] = tuple(h.text for h in matching(hints, row.collection, row.rel_path)) if row else ()
    distinct = list(dict.fromkeys(sets.values()))
    speaking = speaking_sets(query, distinct) if LEXICAL_GATE else set(distinct)
    # a cosine is needed for every set (the lowest is the baseline) only when one set earns a prior
    per_set = {texts: relevance(texts) for texts in distinct} if speaking and len(distinct) > 1 else {}
    low = min(per_set.values(), default=0.0)
    prior = {
        d: w * max(0.0, per_set[texts] - low - HINT_MARGIN) if texts in speaking and per_set else 0.0
        for d, texts in sets.items()
    }
    moved = fused[:limit] if REORDER_ONLY else fused
    applied = {d: prior[d] for d, _ in moved}
    st = Stage("hints", scores=applied)
    ranked = fused
    if w and any(applied.values()):
        ranked = _order({d: s + applied[d] for d, s in moved}) + list(fused[len(moved) :])
    st.ranked = [d for d, _ in ranked]
    st.after = st.ranked
    st.reason = (
        f"prior {w:g} × (cosine of the query and a document's hints − the lowest), for the one scope whose"
        f" hint names a word of the query; {len(speaking)} of {len(distinct)} hint sets"
        + (f"; only the first {len(moved)} move, among themselves" if REORDER_ONLY else "")
    )
    st.ms = (time.perf_counter() - t) * 1000
    return st, ranked
