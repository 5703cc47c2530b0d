"""Regressions of `ask` found by the acceptance checks."""

from __future__ import annotations

from pathlib import Path

from gno.engine import Engine


def test_question_whose_words_no_passage_covers_abstains_not_errors(engine: Engine) -> None:
    # candidates exist (the any-term BM25 leg finds something) but no passage covers a facet of the
    # question: that is "no evidence", an abstention, never a "budget too small" error
    r = engine.ask("What is the database password for the billing cluster?", verify=True)
    assert r.answer_status == "abstained"
    assert r.answer is None and r.citations == []


def test_supported_question_is_verified(engine: Engine) -> None:
    r = engine.ask("Which systemd unit deploys staging?", verify=True)
    assert r.answer_status == "verified", r.abstention_reason
    assert r.answer is not None and "app-staging" in r.answer
    assert [c.uri for c in r.citations] == ["gno://notes/deploy.md"]


def test_question_without_facets_abstains_not_crashes(engine: Engine, corpus: Path) -> None:
    # found by bench/schemathesis_rest.py: `0.1.0` has no facet, so the coverage share divided by zero
    (corpus / "release.md").write_text("# Release\n\nVersion 0.1.0 shipped.\n", encoding="utf-8")
    (corpus / "bare.md").write_text("0.1.0\n", encoding="utf-8")
    engine.update()
    r = engine.ask("0.1.0", verify=True)
    assert r.answer_status == "abstained"
