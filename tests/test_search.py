"""Search grammar and BM25 behaviour on the fixture corpus (collection `notes`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gno.config import Settings
from gno.engine import Engine
from gno.errors import ErrorCode, GnoError, ValidationError
from gno.retrieve.grammar import Term, compile_fts, parse_query, word_tokens

ALL = {
    "gno://notes/archive/old.md",
    "gno://notes/deploy.md",
    "gno://notes/projects/languages.md",
    "gno://notes/projects/runbook.md",
    "gno://notes/rollback.md",
}


def uris(e: Engine, q: str, **kw: object) -> list[str]:
    """The documents matching every content word (the conjunctive part of the results)."""
    return [h.uri for h in e.search(q, **kw).results if h.match == "all"]  # type: ignore[arg-type]


def partial_uris(e: Engine, q: str, **kw: object) -> list[str]:
    return [h.uri for h in e.search(q, **kw).results if h.match == "partial"]  # type: ignore[arg-type]


def code_of(e: Engine, q: str, **kw: object) -> ErrorCode:
    with pytest.raises(GnoError) as ei:
        e.search(q, **kw)  # type: ignore[arg-type]
    return ei.value.code


# -- grammar (pure) -------------------------------------------------------------------------


def test_parse_query_pieces() -> None:
    pq = parse_query('deploy "release pipeline" -legacy gpt-4 -"cron job" AND')
    assert pq.positives == (Term("deploy", False), Term("release pipeline", True), Term("gpt-4", False))
    assert pq.negatives == (Term("legacy", False), Term("cron job", True))
    assert pq.words() == ["deploy", "release", "pipeline", "gpt", "4"]


def test_compile_fts_quotes_everything() -> None:
    assert compile_fts("deploy") == '"deploy"*'
    assert compile_fts("deploy staging") == '("deploy"* AND "staging"*)'
    assert compile_fts('"release pipeline"') == '"release pipeline"'
    assert compile_fts("deploy -legacy") == '"deploy"* NOT "legacy"'
    assert compile_fts("gpt-4") == '"gpt 4"*'
    assert compile_fts("DEC-0054") == '"dec 0054"*'
    assert compile_fts('C++ "unbalanced') == '("c" AND "unbalanced")'
    assert compile_fts("a b", any_term=True) == '("a" OR "b")'
    assert compile_fts("NEAR(") == '"near"*'


def test_word_tokens_keep_diacritics_and_split_punctuation() -> None:
    assert word_tokens("Café-Style, gpt-4!") == ["café", "style", "gpt", "4"]
    assert word_tokens("\u200b*") == []


@pytest.mark.parametrize("q", ["-legacy", "-legacy -cron", '-"cron job"'])
def test_only_negations_is_invalid_query(q: str) -> None:
    with pytest.raises(ValidationError) as ei:
        compile_fts(q)
    assert ei.value.code == ErrorCode.INVALID_QUERY
    assert "positive term" in ei.value.message


# -- plain terms, phrases, negation --------------------------------------------------------


def test_plain_term_is_a_prefix_match(engine: Engine) -> None:
    assert uris(engine, "stag") == ["gno://notes/deploy.md"]
    assert uris(engine, "rehears") == ["gno://notes/rollback.md"]
    assert uris(engine, "zzzz") == []


def test_terms_are_anded(engine: Engine) -> None:
    assert uris(engine, "deploy") == [
        "gno://notes/deploy.md", "gno://notes/archive/old.md", "gno://notes/projects/runbook.md",
    ]
    assert uris(engine, "deploy cron") == ["gno://notes/archive/old.md"]
    assert uris(engine, "deploy tuesday") == ["gno://notes/deploy.md"]
    assert uris(engine, "cron tuesday") == []


def test_case_insensitive(engine: Engine) -> None:
    assert uris(engine, "TUESDAY") == uris(engine, "tuesday") == ["gno://notes/deploy.md"]


def test_quoted_phrase(engine: Engine) -> None:
    assert uris(engine, '"release pipeline"') == ["gno://notes/rollback.md"]
    assert uris(engine, '"pipeline release"') == []
    # a phrase is exact, no prefix expansion on its last word
    assert uris(engine, '"release pipe"') == []
    assert uris(engine, '"main branch" deploys') == ["gno://notes/deploy.md"]


def test_negation(engine: Engine) -> None:
    assert uris(engine, "deploy -legacy") == ["gno://notes/deploy.md", "gno://notes/projects/runbook.md"]
    assert uris(engine, 'deploy -"release pipeline" -tuesday') == [
        "gno://notes/archive/old.md", "gno://notes/projects/runbook.md",
    ]
    assert uris(engine, "deploy -app-staging") == uris(engine, "deploy -staging")
    assert "gno://notes/deploy.md" not in uris(engine, "deploy -app-staging")


@pytest.mark.parametrize("q", ["-legacy", "-legacy -cron", '-"release pipeline"'])
def test_lone_negation_is_invalid_query(engine: Engine, q: str) -> None:
    assert code_of(engine, q) == ErrorCode.INVALID_QUERY


def test_hyphenated_tokens(engine: Engine) -> None:
    assert uris(engine, "gpt-4") == ["gno://notes/projects/runbook.md"]
    assert uris(engine, "GPT-4") == ["gno://notes/projects/runbook.md"]
    assert uris(engine, "DEC-0054") == ["gno://notes/rollback.md"]
    assert uris(engine, "dec-0054") == ["gno://notes/rollback.md"]
    assert uris(engine, "DEC-0055") == []
    assert uris(engine, "app-staging") == ["gno://notes/deploy.md"]
    assert uris(engine, "on-call") == ["gno://notes/projects/runbook.md"]
    hit = engine.search("DEC-0054").results[0]
    assert hit.line == 5
    assert "DEC-0054" in hit.snippet


def test_diacritics_fold(engine: Engine) -> None:
    assert uris(engine, "cafe") == ["gno://notes/projects/languages.md"]
    assert uris(engine, "café") == ["gno://notes/projects/languages.md"]
    assert uris(engine, "CAFÉ-style") == ["gno://notes/projects/languages.md"]
    hit = engine.search("café").results[0]
    assert hit.line == 3


def test_diacritic_free_query_points_at_the_matching_line(engine: Engine) -> None:
    hit = engine.search("cafe").results[0]
    assert hit.line == 3
    assert "café" in hit.snippet


def test_porter_stemming(engine: Engine) -> None:
    assert uris(engine, '"rollbacks"')[0] == "gno://notes/rollback.md"
    assert uris(engine, '"deployed"') == uris(engine, '"deploys"') == uris(engine, "deploy")


def test_filepath_and_title_are_indexed(engine: Engine) -> None:
    # "archive" occurs only in the path; "projects" in two paths and in deploy.md's link target
    assert uris(engine, "projects") == [
        "gno://notes/projects/languages.md", "gno://notes/projects/runbook.md", "gno://notes/deploy.md",
    ]
    assert uris(engine, "archive") == ["gno://notes/archive/old.md"]


def test_title_weighted_above_body(engine: Engine) -> None:
    # "rollback" is the title of rollback.md and only a section heading / link in the others
    hits = engine.search("rollback").results
    assert hits[0].uri == "gno://notes/rollback.md"
    assert hits[0].score == 1.0


# -- hostile input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ('C++ "unbalanced', []),
        ("NEAR(", []),
        ("title:", []),
        ("title:deploy", []),
        ("deploy:", ["gno://notes/archive/old.md", "gno://notes/deploy.md", "gno://notes/projects/runbook.md"]),
        ('deploy "', ["gno://notes/archive/old.md", "gno://notes/deploy.md", "gno://notes/projects/runbook.md"]),
        ("{deploy} ^deploy", ["gno://notes/archive/old.md", "gno://notes/deploy.md",
                              "gno://notes/projects/runbook.md"]),
        ("deploy\u200b", ["gno://notes/archive/old.md", "gno://notes/deploy.md",
                          "gno://notes/projects/runbook.md"]),
        ("deploy AND NOT legacy", ["gno://notes/archive/old.md"]),  # bare operators are dropped
        ("'; DROP TABLE documents; --", []),
        ("x*y", []),
        ("(deploy", ["gno://notes/archive/old.md", "gno://notes/deploy.md", "gno://notes/projects/runbook.md"]),
    ],
)
def test_hostile_inputs_are_just_words(engine: Engine, q: str, expected: list[str]) -> None:
    assert sorted(uris(engine, q)) == expected


@pytest.mark.parametrize(
    "q", ["AND OR NOT *", '"""', "*", "\u200b", "\u200b\u200c\ufeff", "-", "--", "()", '""', "  "]
)
def test_inputs_without_words_are_invalid_query(engine: Engine, q: str) -> None:
    assert code_of(engine, q) == ErrorCode.INVALID_QUERY


def test_invalid_query_details_carry_the_query(engine: Engine) -> None:
    with pytest.raises(GnoError) as ei:
        engine.search("-legacy")
    assert ei.value.details == {"query": "-legacy"}


def test_invalid_query_does_not_mention_fts(engine: Engine) -> None:
    with pytest.raises(GnoError) as ei:
        engine.search("AND OR NOT *")
    assert "fts" not in ei.value.message.lower()
    assert "syntax" not in ei.value.message.lower()
    assert ei.value.exit_code == 1


@pytest.mark.parametrize("q", ['"a\x00b"', '"deploy\x00"', 'deploy -"x\x00"'])
def test_nul_in_a_phrase_is_safe(engine: Engine, q: str) -> None:
    try:
        engine.search(q)
    except GnoError as exc:
        assert exc.code == ErrorCode.INVALID_QUERY


@settings(max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(q=st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
                max_size=40))
@example(q='C++ "unbalanced')
@example(q="AND OR NOT *")
@example(q="NEAR(a b, 3)")
@example(q='"""')
@example(q="-")
@example(q="col:term^2 OR")
def test_any_text_query_is_safe(engine: Engine, q: str) -> None:
    # NUL is excluded here: see test_nul_in_a_phrase_is_safe (known bug)
    try:
        res = engine.search(q)
    except GnoError as exc:
        assert exc.code == ErrorCode.INVALID_QUERY, (q, exc.code, exc.message)
    else:
        assert all(0.0 <= h.score <= 1.0 for h in res.results)


@settings(max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(q=st.lists(st.sampled_from(['"', "-", "*", "(", ")", ":", "^", "AND", "OR", "NOT", "NEAR", "deploy",
                                   "gpt-4", "+", "C++", " ", "café", "\u200b", "'", "{", "}"]),
                  max_size=12).map("".join))
def test_operator_soup_is_safe(engine: Engine, q: str) -> None:
    try:
        engine.search(q)
    except GnoError as exc:
        assert exc.code == ErrorCode.INVALID_QUERY, (q, exc.code, exc.message)


# -- hit shape and scores ------------------------------------------------------------------


def test_scores_normalised_best_is_one(engine: Engine) -> None:
    res = engine.search("deploy")
    scores = [h.score for h in res.results]
    assert scores[0] == 1.0
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s <= 1.0 for s in scores)
    assert len(scores) == 3
    assert res.meta.total_results == 3
    assert res.mode == "bm25"
    assert res.query == "deploy"


def test_hit_fields(engine: Engine, corpus: Path) -> None:
    hit = engine.search("tuesday").results[0]
    d = hit.dump()
    assert set(d) == {"docid", "uri", "title", "collection", "relPath", "score", "line", "snippet",
                      "snippetRange", "tags", "match"}
    raw = (corpus / "deploy.md").read_bytes()
    import hashlib

    assert hit.docid == "#" + hashlib.sha256(raw).hexdigest()[:8]
    assert (hit.uri, hit.title, hit.collection, hit.rel_path) == (
        "gno://notes/deploy.md", "Deploy process", "notes", "deploy.md",
    )
    assert hit.tags == ["ops", "release"]
    lines = raw.decode().split("\n")
    assert hit.line == 11
    assert "Tuesday" in lines[hit.line - 1]
    assert (hit.snippet_range.start_line, hit.snippet_range.end_line) == (11, 11)
    assert hit.snippet == lines[10]
    assert d["snippetRange"] == {"startLine": 11, "endLine": 11}


def test_snippet_skips_front_matter(engine: Engine) -> None:
    # "process" / "runbook" are on a front matter `title:` line and again in the H1 below it
    hit = engine.search("process").results[0]
    assert (hit.uri, hit.line, hit.snippet) == ("gno://notes/deploy.md", 7, "# Deploy process")
    hit = engine.search("runbook", collection="notes").results[0]
    assert (hit.uri, hit.line, hit.snippet) == ("gno://notes/projects/runbook.md", 6, "# Runbook")
    for q in ("deploy", "rollback", "ops", "staging"):
        for h in engine.search(q).results:
            if h.uri in ("gno://notes/deploy.md", "gno://notes/projects/runbook.md"):
                assert h.snippet_range.start_line >= (6 if h.uri.endswith("deploy.md") else 5), (q, h)
                assert "---" not in h.snippet


def test_snippet_when_only_the_path_matches(engine: Engine) -> None:
    hit = engine.search("archive").results[0]
    assert (hit.line, hit.snippet) == (1, "# Old notes")


def test_line_within_snippet_range_and_snippet_is_file_text(engine: Engine, corpus: Path) -> None:
    for q in ("deploy", "rollback", "gpt-4", "legacy", "café", "the", "ops"):
        for h in engine.search(q, limit=10).results:
            lines = (corpus / h.rel_path).read_text(encoding="utf-8").split("\n")
            r = h.snippet_range
            assert 1 <= r.start_line <= h.line <= r.end_line <= len(lines)
            assert h.snippet == "\n".join(lines[r.start_line - 1 : r.end_line]).strip()


def test_snippet_with_context_lines(engine: Engine) -> None:
    hit = engine.search("latency").results[0]
    assert hit.line == 11
    assert (hit.snippet_range.start_line, hit.snippet_range.end_line) == (10, 12)
    assert hit.snippet.split("\n")[1] == "2. Check the gpt-4 gateway latency dashboard."


# -- filters -----------------------------------------------------------------------------------


@pytest.fixture
def two_collections(engine: Engine, tmp_path: Path) -> Engine:
    other = tmp_path / "other"
    other.mkdir()
    (other / "deploy-notes.md").write_text(
        "---\ntags: [ops, other]\n---\n# Other deploy notes\n\ndeploy it\n", encoding="utf-8"
    )
    engine.collection_add(str(other), name="other")
    engine.update()
    return engine


def test_collection_filter(two_collections: Engine) -> None:
    e = two_collections
    assert len(uris(e, "deploy")) == 4
    assert uris(e, "deploy", collection="other") == ["gno://other/deploy-notes.md"]
    assert "gno://other/deploy-notes.md" not in uris(e, "deploy", collection="notes")
    res = e.search("deploy", collection="other")
    assert res.meta.collection == "other"
    assert res.results[0].score == 1.0  # normalised within the filtered result set
    assert code_of(e, "deploy", collection="nope") == ErrorCode.COLLECTION_NOT_FOUND
    assert uris(e, "deploy", collection="OTHER") == ["gno://other/deploy-notes.md"]


def test_tags_any_and_all(two_collections: Engine) -> None:
    e = two_collections
    assert set(uris(e, "deploy", tags_any=["ops"])) == {
        "gno://notes/deploy.md", "gno://notes/projects/runbook.md", "gno://other/deploy-notes.md",
    }
    assert set(uris(e, "deploy", tags_any=["release", "other"])) == {
        "gno://notes/deploy.md", "gno://other/deploy-notes.md",
    }
    assert uris(e, "deploy", tags_all=["ops", "release"]) == ["gno://notes/deploy.md"]
    assert uris(e, "deploy", tags_all=["ops", "other"]) == ["gno://other/deploy-notes.md"]
    assert uris(e, "deploy", tags_all=["release", "other"]) == []
    assert uris(e, "deploy", tags_any=["OPS"], tags_all=["Release"]) == ["gno://notes/deploy.md"]
    assert uris(e, "rollback", tags_any=["incident"]) == ["gno://notes/rollback.md"]
    assert uris(e, "deploy", tags_any=["nosuchtag"]) == []


def test_min_score(engine: Engine) -> None:
    all_hits = engine.search("deploy").results
    assert len(all_hits) == 3
    cut = all_hits[1].score - 1e-6
    kept = engine.search("deploy", min_score=cut).results
    assert [h.uri for h in kept] == [h.uri for h in all_hits[:2]]
    assert [h.score for h in kept] == [h.score for h in all_hits[:2]]  # scores do not change
    assert [h.uri for h in engine.search("deploy", min_score=1.0).results] == [all_hits[0].uri]
    assert [h.uri for h in engine.search("deploy", min_score=0.0).results] == [h.uri for h in all_hits]
    assert code_of(engine, "deploy", min_score=1.5) == ErrorCode.VALIDATION
    assert code_of(engine, "deploy", min_score=-0.1) == ErrorCode.VALIDATION


def test_min_score_equal_to_a_shown_score_keeps_that_hit(engine: Engine) -> None:
    shown = engine.search("deploy").results[1]
    kept = engine.search("deploy", min_score=shown.score).results
    assert shown.uri in [h.uri for h in kept]


def test_limit_and_total(engine: Engine) -> None:
    res = engine.search("deploy", limit=1)
    assert len(res.results) == 1
    assert res.results[0].score == 1.0
    assert res.meta.total_results == 3
    assert [h.uri for h in engine.search("deploy", limit=2).results] == uris(engine, "deploy")[:2]
    assert code_of(engine, "deploy", limit=0) == ErrorCode.VALIDATION
    assert code_of(engine, "deploy", limit=1001) == ErrorCode.VALIDATION


def test_full_body(engine: Engine, corpus: Path) -> None:
    h = engine.search("tuesday", full=True).results[0]
    text = (corpus / "deploy.md").read_text(encoding="utf-8")
    assert h.body_start_line == 6
    assert h.body == "\n".join(text.split("\n")[5:])
    assert "title: Deploy process" not in (h.body or "")
    lean = engine.search("tuesday").results[0]
    assert lean.body is None and lean.body_start_line is None
    assert "body" not in lean.dump()


def test_empty_query_is_invalid(engine: Engine) -> None:
    assert code_of(engine, "") == ErrorCode.INVALID_QUERY
    assert code_of(engine, "   ") == ErrorCode.INVALID_QUERY


def test_zero_results_is_not_an_error(engine: Engine) -> None:
    res = engine.search("xylophone")
    assert res.results == []
    assert res.meta.total_results == 0


def test_search_on_fresh_index_without_documents(settings: Settings) -> None:
    e = Engine(settings)
    e.init()
    try:
        assert e.search("anything").results == []
    finally:
        e.close()


def test_every_result_is_in_the_corpus(engine: Engine) -> None:
    for q in ("the", "a", "deploy", "o"):
        assert set(uris(engine, q, limit=100)) <= ALL


# -- questions in words: conjunctive first, then partial matches ---------------------------------


def test_question_in_words_fills_with_partial_matches(engine: Engine) -> None:
    res = engine.search("how do I undo a deploy on tuesday")
    # stopwords never count: deploy.md has undo, deploy and tuesday, so it is the one full match
    assert [(h.uri, h.match) for h in res.results[:1]] == [("gno://notes/deploy.md", "all")]
    assert {h.match for h in res.results[1:]} == {"partial"} and len(res.results) > 1
    assert res.meta.partial_results == len(res.results) - 1
    # no note has both words: the old conjunctive search said "No results"
    only_partial = engine.search("how do I rehearse a tuesday deploy")
    assert only_partial.results and {h.match for h in only_partial.results} <= {"all", "partial"}
    assert engine.search("rehearsed tuesday").results


def test_full_matches_rank_before_partial_ones(engine: Engine) -> None:
    res = engine.search("rollback rehearsed")
    kinds = [h.match for h in res.results]
    assert kinds[0] == "all" and "partial" in kinds
    assert kinds == sorted(kinds)  # "all" < "partial": every full match comes first
    weakest_full = min(h.score for h in res.results if h.match == "all")
    assert all(h.score < weakest_full for h in res.results if h.match == "partial")


def test_no_fill_when_the_limit_is_reached_by_full_matches(engine: Engine) -> None:
    res = engine.search("deploy", limit=2)
    assert [h.match for h in res.results] == ["all", "all"]


def test_negation_and_phrases_keep_their_meaning_in_the_fill(engine: Engine) -> None:
    assert "gno://notes/rollback.md" not in [h.uri for h in engine.search("deploy pipeline -rehearsed").results]
    phrase = {h.uri: h.match for h in engine.search('"release pipeline" tuesday').results}
    assert phrase.get("gno://notes/rollback.md") == "partial"  # has the phrase, not tuesday
    assert phrase.get("gno://notes/deploy.md") == "partial"  # has tuesday, not the phrase
    assert engine.search('"pipeline release" tuesday').results[0].uri == "gno://notes/deploy.md"


def test_stemming_works_with_prefix_matching(engine: Engine) -> None:
    assert "gno://notes/rollback.md" in uris(engine, "rehearse")  # "rehearsed" in the note
    assert "gno://notes/rollback.md" in uris(engine, "rollbacks")
