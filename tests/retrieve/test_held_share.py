"""BM25's credit in fusion is what its #1 holds of the query (`gno.retrieve.held_share`), on real indexes.

A long page that holds only a question's common words no longer takes full BM25 credit over the note
the vector leg found; a short note (a chat turn) that holds part of a question keeps most of its credit.
"""

from __future__ import annotations

import pytest

from gno.retrieve import held_share as hs
from gno.retrieve.grammar import parse_query
from gno.retrieve.hybrid import QueryOptions
from gno.store.fts import DocFilter

from .conftest import TECH, Build

FILLER = " ".join(f"Paragraph {i} explains how to configure the settings of the editor." for i in range(60))


def _vault() -> dict[str, str]:
    files = dict(TECH)
    files["handbook.md"] = f"# Handbook\n\n{FILLER}\n"
    for i in range(12):
        files[f"tips{i}.md"] = f"# Tip {i}\n\nConfigure the settings you need, tip number {i}.\n"
    return files


def test_share_weighs_each_word_by_its_rarity_and_the_note_by_its_length(build: Build) -> None:
    e = build({"kb": _vault()}, embed=False)
    handbook = e.resolve("kb/handbook.md")
    kafka = e.resolve("kb/kafka.md")
    store = e.store
    # holds the common words, not the rare one: well below full credit
    partial = hs.held_share(store, parse_query("configure settings kafka"), handbook.id, hs.FULL_SIZE)
    assert 0.0 < partial < 0.5
    # a note holding every content word keeps full credit, whatever its length
    assert hs.held_share(store, parse_query("kafka topics"), kafka.id, 10) == pytest.approx(1.0)
    # the same share for a short note counts a tenth as much: a chat turn seldom holds a whole question
    short = hs.held_share(store, parse_query("configure settings kafka"), handbook.id, hs.FULL_SIZE // 10)
    assert short == pytest.approx(partial**0.1) and short > partial
    # a word no note holds is part of the question BM25 missed
    missed = hs.held_share(store, parse_query("configure settings kafkaesque"), handbook.id, hs.FULL_SIZE)
    assert 0.0 < missed < 0.5


def test_a_long_page_with_only_common_words_no_longer_buries_the_vector_leg_s_find(
    build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    e = build({"kb": _vault()})
    target = e.resolve("kb/kubernetes.md").id
    handbook = e.resolve("kb/handbook.md").id
    query = "kubernetesclusters settings"

    def order() -> tuple[list[int], str]:
        run = e.retriever().run(query, DocFilter(), QueryOptions(graph=False))
        fusion = next(s for s in run.stages if s.name == "fusion")
        return fusion.ranked, fusion.reason or ""

    ranked, reason = order()
    assert "BM25 credit x" in reason and "x1.00" not in reason
    assert ranked.index(target) < ranked.index(handbook)
    # with BM25's #1 at full credit (the rule off), the handbook outranks the note the vectors found
    monkeypatch.setattr("gno.retrieve.hybrid.held_share", lambda *a, **k: 1.0)
    ranked, reason = order()
    assert "x1.00" in reason and ranked.index(handbook) < ranked.index(target)
