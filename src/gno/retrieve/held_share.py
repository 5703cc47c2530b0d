"""How much of a query BM25's best hit holds: the share of credit its leg has earned in fusion.

Fusion scales BM25's scores to the query's best hit, so that hit earns full credit however little of the
query it holds. On a how-to manual that let a long reference page holding only a question's common words
("edit", "style", "keys") bury the page the vector leg found first ("can I edit with vi style keys" →
`Vim.md`). The share of the query's IDF weight that BM25's #1 holds says how much of the question the
lexical match found, and BM25's credit is scaled by it.

A short note (a chat turn, a one-line fact) seldom holds a whole question, and when BM25 ranks it first
it is usually right: on chat turns the share alone cost 0.016 nDCG@10. So the share counts in proportion
to the note's length, in full from `FULL_SIZE` bytes. Chosen on the retrieval suite's tune parts
(docs/benchmarks.md, "Fusion: BM25's credit is what its #1 holds").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gno.errors import GnoError
from gno.retrieve.grammar import FUNCTION_WORDS, ParsedQuery, compile_fts, content_query
from gno.store.fts import holds, term_documents

if TYPE_CHECKING:
    from gno.store.db import Store

#: a note of this many bytes or more is judged by the whole share; a shorter one by a fraction of it
FULL_SIZE = 2000
#: document counts are read up to this many (a bound on the cost for a common word in a large vault;
#: every word this common weighs the same)
DF_CAP = 10_000


def held_share(store: Store, pq: ParsedQuery, top: int, size: int) -> float:
    """The factor for BM25's credit: the share of the query's content words (each by its IDF) that the
    document `top` holds, raised to min(1, size / FULL_SIZE). 1.0 when the query has no content word."""
    terms = content_query(pq, FUNCTION_WORDS).positives
    if not terms:
        return 1.0
    # the highest document id for the vault's size: read from the primary key's end, not counted (an
    # upper bound once notes are deleted, which only flattens every word's IDF a little)
    n = max(1, int(store.conn.execute("SELECT COALESCE(MAX(id), 0) FROM documents").fetchone()[0]))
    total = held = 0.0
    for term in terms:
        try:
            expr = compile_fts(ParsedQuery((term,), ()))
        except GnoError:
            continue  # nothing searchable in it (punctuation only)
        df = term_documents(store, expr, DF_CAP)
        idf = math.log((max(n, df) - df + 0.5) / (df + 0.5) + 1.0)
        total += idf
        if df and holds(store, expr, top):
            held += idf
    if total <= 0:
        return 1.0
    return float((held / total) ** min(1.0, size / FULL_SIZE))
