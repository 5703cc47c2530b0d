"""The memory contract's results as plain records: fact records, a recall and its receipt, a
proposal's candidates.

`gno.memory` computes them (`inputs.facts_of`, `recall.recall_facts`, `receipts.make_receipt`,
`propose.candidates`) and a cold `gno recall` or `gno remember` prints them without importing
typing or pydantic; the result models of `gno.models.memory_results` derive from them, so each
field is declared once. They live here, beside `gno.doc_reads` and `gno.change_reads`, because
every layer imports the models and no layer below the memory contract may import `gno.memory`.
"""

from __future__ import annotations

from gno.tuples import Record

TYPE_CHECKING = False  # not typing's: a cold recall imports neither typing nor pydantic
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from gno.egress import Lineage


class Fact(Record):
    """A fact record as plain data (the fields of `gno.models.memory_results.MemoryRecord`, which
    derives from it)."""

    uri: str
    docid: str
    record_id: str
    text: str
    scopes: list[str]
    caller: str
    session: str
    created_at: str
    content_hash: str
    supersedes: list[str]
    source: str | None = None
    valid_from: str | None = None  # the event time, when the caller gave one (`--valid-from`)


class RecalledFact(Fact):
    """A fact record, its span hash, score and lineage (the fields of
    `gno.models.memory_results.MemoryFact`, which derives from it)."""

    span_hash: str
    score: float
    egress_lineage: Lineage


class Issued(Record):
    """What a recall issues (the fields of `gno.models.memory_results.Receipt`, which derives from it)."""

    caller: str
    session: str
    issued_at: str
    memory_ids: list[str]
    span_hashes: list[str]
    digest: str


class Budget(Record):
    max_facts: int
    max_tokens: int
    used_tokens: int
    omitted: int


class Retrieval(Record):
    mode: Literal["lexical", "hybrid"]
    semantic_unavailable: str | None = None


class Recalled(Record):
    """A recall (the fields of `gno.models.memory_results.RecallResult`, which derives from it)."""

    facts: Sequence[RecalledFact]
    receipt: Issued
    budget: Budget
    retrieval: Retrieval
    egress_lineage: Lineage | None  # None when nothing was recalled (the model's default)
    hint: str | None = None


class Similar(Record):
    """A stored fact like the proposed one (the fields of `gno.models.memory_results.Candidate`,
    which derives from it)."""

    record: Fact
    similarity: float
    match: Literal["exact", "likely", "weak"]


class Matching(Record):
    """How the candidates were matched (the fields of `gno.models.memory_results.Matching`, which
    derives from it)."""

    mode: Literal["semantic", "lexical"]
    threshold: float
    pool_size: int
    semantic_unavailable: str | None = None
