"""Requests of the retrieval rungs: search (1), vsearch and query (3), diagnose (7), and bench (their
scores on a fixture of judged queries).

One limit for every surface: 1..`MAX_LIMIT` hits, 10 by default: the defaults of
`gno.retrieve.search`, which a cold `gno search` reads without pydantic. `depth` replaces the
`fast`/`thorough` pair (the CLI keeps `--fast`/`--thorough` as shorthands for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from gno.contract.request import CallContext, Depth, Request, TagFilter, choice
from gno.retrieve.search import DEFAULTS, MAX_LIMIT

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.models import BenchResult, DiagnoseResult, SearchResult

DEFAULT_LIMIT = DEFAULTS.limit
MAX_CANDIDATES = 200

QUERY_DOC = 'Query text: terms, "phrases", -negation. Empty is INVALID_QUERY.'


class HitOptions(TagFilter):
    query: str = Field(description=QUERY_DOC, json_schema_extra={"minLength": 1})
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Maximum hits.")
    min_score: float = Field(
        DEFAULTS.min_score, ge=0.0, le=1.0, description="Drop hits below this normalised score (0..1)."
    )
    full: bool = Field(False, description="Include each hit's full body.")


class DepthOptions(Request):
    depth: Depth = Field("balanced", description="fast: no graph, no re-scoring; thorough: adds feedback terms.")
    graph: bool = Field(True, description="One-hop link expansion.")
    candidate_limit: int | None = Field(
        None, ge=1, le=MAX_CANDIDATES, description="Candidates re-scored (default 20; 40 thorough)."
    )


class SearchRequest(HitOptions):
    """Exact (BM25) search with cited spans. Rung 1 of the ladder."""

    def run(self, engine: Engine, ctx: CallContext) -> SearchResult:
        return engine.search(**self.fields())


class VsearchRequest(HitOptions):
    """Vector-only search over embedded chunks (needs `gno embed`)."""

    def run(self, engine: Engine, ctx: CallContext) -> SearchResult:
        return engine.vsearch(**self.fields())


class QueryRequest(HitOptions, DepthOptions):
    """Hybrid query: BM25 + vectors → RRF → graph → re-scoring. Rung 3 of the ladder."""

    explain: bool = Field(False, description="Attach stage timings and ranks (`explain`).")

    def run(self, engine: Engine, ctx: CallContext) -> SearchResult:
        return engine.query(**self.fields())


class DiagnoseRequest(TagFilter, DepthOptions):
    """Where did an expected document drop out of the results? Rung 7 of the ladder."""

    query: str = Field(description=QUERY_DOC, json_schema_extra={"minLength": 1})
    target: str = Field(description="The expected document: #docid, gno:// URI or collection/path.")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Result depth the target must reach.")

    def run(self, engine: Engine, ctx: CallContext) -> DiagnoseResult:
        return engine.diagnose(**self.fields())


BENCH_MODES = ("bm25", "vector", "hybrid", "fast")


class BenchRequest(Request):
    """Score retrieval on a fixture of judged queries: P@k, R@k, MRR, nDCG@k and latency per mode."""

    fixture: str = Field(description='A JSON file: {"version": 1, "queries": [{"query", "expected": [refs]}]}.')
    modes: list[str] = Field(
        default_factory=lambda: ["bm25", "hybrid"],
        min_length=1,
        description="Modes to compare: bm25, vector, hybrid, fast.",
        json_schema_extra={"items": choice(*BENCH_MODES)},
    )
    top_k: int = Field(10, ge=1, description="k of P@k, R@k and nDCG@k.")
    candidate_limit: int | None = Field(
        None, ge=1, le=MAX_CANDIDATES, description="Candidates re-scored by the hybrid modes (default 20)."
    )

    def run(self, engine: Engine, ctx: CallContext) -> BenchResult:
        return engine.bench(**self.fields())
