"""Verified ask (issue 6): the confidence rules that decide whether supported sentences *answer*.

Every test runs `engine.ask(..., verify=True)` against a real SQLite index of hand-written notes
(`make_kb`): a released answer must state a value of the type the question asks for, no other
passage may state a different one, a set question is never answered from one note, a reply is read
with the question asked right before it, and the answer never grows beyond a few cited sentences.
"""

from __future__ import annotations

import re

import pytest

from gno.evidence.answer_type import typed_values, vocabulary
from gno.evidence.claims import segment
from gno.evidence.question import frame

from .conftest import MakeKB


def marker_ids(answer: str) -> list[str]:
    return re.findall(r"\[evidence:([0-9a-f]+)\]", answer)


# -- answer type --------------------------------------------------------------------------------


def test_sentence_that_only_restates_the_question_abstains(make_kb: MakeKB) -> None:
    kb = make_kb({"cars.md": "# Cars\n\nDave restored the vintage car last spring after a long search.\n"})
    r = kb.engine.ask("Where did Dave restore the vintage car?", verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason == "answer_type_not_found"
    assert r.answer is None and r.citations == []
    assert r.verification is not None and r.verification.question_coverage["answerType"] == "place"


def test_sentence_naming_a_place_is_released(make_kb: MakeKB) -> None:
    kb = make_kb({"cars.md": "# Cars\n\nDave restored the vintage car in Denver after a long search.\n"})
    r = kb.engine.ask("Where did Dave restore the vintage car?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "Denver" in r.answer
    assert [c.uri for c in r.citations] == ["gno://kb/cars.md"]


def test_value_in_the_next_sentence_is_quoted_with_its_anchor(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "pets.md": (
                "# Pets\n\nMaria adopted a puppy from the shelter last week. Her name is Coco and she loves walks.\n"
            ),
            "work.md": "# Work\n\nMaria volunteers at the shelter on weekends.\n",
        }
    )
    r = kb.engine.ask("What is the name of the puppy Maria adopted last week?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "Coco" in r.answer and "adopted a puppy" in r.answer
    v = r.verification
    assert v is not None and len(v.claims) == 2  # two sentences of one passage, each cited to it
    assert len({i for c in v.claims for i in c.citations}) == 1


def test_how_questions_ask_for_a_description_and_abstain(make_kb: MakeKB) -> None:
    kb = make_kb({"launch.md": "# Launch\n\nAlice reacted calmly to the launch of Atlas.\n"})
    r = kb.engine.ask("How did Alice react to the launch?", verify=True)
    assert r.answer_status == "abstained"
    assert r.abstention_reason == "answer_type_not_found"


# -- ambiguity and sets -------------------------------------------------------------------------


def test_two_notes_with_different_values_abstain_as_ambiguous(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "offsite-a.md": "# Offsite\n\nThe team offsite this year is in Lisbon.\n",
            "offsite-b.md": "# Offsite plan\n\nThe team offsite this year is in Porto.\n",
        }
    )
    r = kb.engine.ask("Where is the team offsite this year?", verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason == "ambiguous_evidence"
    assert r.answer is None


def test_one_note_with_the_value_is_not_ambiguous(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "offsite-a.md": "# Offsite\n\nThe team offsite this year is in Lisbon.\n",
            "offsite-b.md": "# Budget\n\nThe team budget this year grew.\n",
        }
    )
    r = kb.engine.ask("Where is the team offsite this year?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "Lisbon" in r.answer


def test_set_question_is_not_answered_from_one_note(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "trip-1.md": "# Trip\n\nDana attended the Kyoto conference with her team.\n",
            "trip-2.md": "# Another trip\n\nDana attended the Oslo conference in May.\n",
        }
    )
    r = kb.engine.ask("Which conferences has Dana attended?", verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason == "answer_incomplete"


# -- a reply read with the question before it ---------------------------------------------------

TRANSCRIPT = (
    "# Standup\n\n"
    "Bob: The billing service needs a new home. Which database should billing use?\n\n"
    "Alice: We settled on CockroachDB for billing.\n\n"
    "Bob: How long have you been painting?\n\n"
    "Carol: I have been painting since I was 17 or so.\n"
)


def test_reply_to_a_quoted_question_is_released_with_the_question(make_kb: MakeKB) -> None:
    kb = make_kb({"standup.md": TRANSCRIPT})
    r = kb.engine.ask("Which database should billing use?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "CockroachDB" in r.answer
    v = r.verification
    assert v is not None
    assert [c.text.endswith("?") for c in v.claims] == [True, False]  # the question, then the reply
    assert len(set(marker_ids(r.answer))) == 2 and len(r.citations) == 2
    lines = kb.lines("standup.md")
    assert sorted(lines[c.start_line - 1] for c in r.citations) == sorted(
        [lines[2], "Alice: We settled on CockroachDB for billing."]
    )


def test_reply_by_someone_else_than_the_question_is_about_abstains(make_kb: MakeKB) -> None:
    kb = make_kb({"standup.md": TRANSCRIPT})
    r = kb.engine.ask("How long has Bob been painting?", verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason == "coverage_below_threshold"


# -- answers stay short --------------------------------------------------------------------------


def test_released_answer_is_a_few_cited_sentences_not_the_note(make_kb: MakeKB) -> None:
    body = " ".join(f"Filler sentence number {i} about the garden." for i in range(30))
    kb = make_kb({"garden.md": f"# Garden\n\n{body} The greenhouse heater is a Bioheat 3000.\n"})
    r = kb.engine.ask("Which greenhouse heater do we have?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "Bioheat 3000" in r.answer and "Filler" not in r.answer
    assert r.verification is not None and 1 <= len(r.verification.claims) <= 3


# -- units: the answer-type detector and sentence segmentation ------------------------------------


@pytest.mark.parametrize(
    ("question", "sentence", "found"),
    [
        ("Where did Dave buy the car?", "Guess what, Dave bought the car yesterday.", []),
        ("Where did Dave buy the car?", "Dave bought the car in Denver.", ["Denver"]),
        ("Who leads on-call?", "Thanks, Sam! I lead on-call this week.", []),
        ("How many replicas does the database have?", "It has two replicas and 3 users.", ["two"]),
        ("How long did the migration take?", "The migration took 3 weeks.", ["3", "weeks"]),
        ("When did the outage start?", "It started on the 15th.", []),
        ("When did the outage start?", "It started on March 15th.", ["March", "15th"]),
        ("What kind of pizza does John like?", "John likes a great pizza.", []),
        ("What kind of pizza does John like?", "John likes Hawaiian pizza.", ["Hawaiian"]),
        ("What book is Jon reading?", 'Jon is reading "The Lean Startup" these days.', ["The Lean Startup"]),
        ("Did Jon read the book?", "Jon read it.", []),
    ],
)
def test_typed_values(question: str, sentence: str, found: list[str]) -> None:
    fr = frame(question)
    got = typed_values(sentence, fr, vocabulary([sentence, "guess what, thanks for the car"]))
    assert [v for v in found if v not in got] == []
    if not found:
        assert got == []


def test_brackets_inside_a_sentence_do_not_end_it() -> None:
    claims = segment("Long drives in [this car] really help me relax. [evidence:" + "a" * 64 + "]", "c" * 64)
    assert [c.text for c in claims] == ["Long drives in [this car] really help me relax."]
    assert claims[0].citations == ["a" * 64]


# -- about the question's subject ---------------------------------------------------------------


NOTES = {
    "htmx.md": "# Htmx\n\nHtmx works over HTTP on ports 80 and 8080 in the demo.\n",
    "cache.md": "# Cache\n\nThe cache sits in front of the API.\n",
}


def test_answer_about_another_subject_abstains(make_kb: MakeKB) -> None:
    """Every name the question is about must be named where the value is stated."""
    r = make_kb(NOTES).engine.ask("Which HTTP ports can WebSocket work over?", verify=True)
    assert r.answer_status == "abstained", r.dump()


def test_answer_about_the_subject_is_released(make_kb: MakeKB) -> None:
    kb = make_kb({**NOTES, "ws.md": "# WebSocket\n\nWebSocket works over the HTTP ports 80 and 443.\n"})
    r = kb.engine.ask("Which HTTP ports can WebSocket work over?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "443" in r.answer


# -- tables ----------------------------------------------------------------------------------------


def test_a_table_row_is_read_as_its_term_and_description() -> None:
    from gno.evidence.extract import passage_sentences, table_row

    assert table_row("| Option | Description |", "|---|---|") == ""  # the header names the columns
    assert table_row("| :-- | --: |", "") == ""
    assert table_row("| `-n` | Number of entries (default: 100) |", "") == "`-n`: Number of entries (default: 100)"
    assert table_row("Not a row | at all", "") is None
    text = "Flags:\n\n| Flag | Meaning |\n| --- | --- |\n| `-f` | Follow new entries |\n| `-q` | Quiet | Since 2.1 |\n"
    assert passage_sentences(text) == ["Flags:", "`-f`: Follow new entries", "`-q`: Quiet; Since 2.1"]


def test_a_flag_stated_only_in_an_option_table_is_released(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "CLI.md": (
                "# CLI\n\n## logs\n\nShows the server's recent log entries.\n\n| Option | Description |\n|---|---|\n"
                "| `-n, --lines <int>` | Number of entries (default: 100) |\n| `-f, --follow` | Keep printing new "
                "entries |\n"
            ),
        }
    )
    r = kb.engine.ask("Which flag keeps printing new log entries?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and r.answer.startswith("`-f, --follow`: Keep printing new entries")
    assert [c.uri for c in r.citations] == ["gno://kb/CLI.md"]


NL = (
    "# nl\n\n> Number lines of a file.\n\n- Use a specific string to separate the line numbers from the lines "
    "(`TAB` by default):\n\n`nl -s {{separator}} {{path/to/file}}`\n"
)


def test_a_default_of_another_attribute_does_not_answer(make_kb: MakeKB) -> None:
    """The question names nothing but the attribute it asks for: a sentence giving the default of a
    neighbouring one (the separator) states a value and "default", and still answers another question."""
    r = make_kb({"nl.md": NL}).engine.ask("What is nl's default line-number increment?", verify=True)
    assert r.answer_status == "abstained" and r.abstention_reason == "focus_not_addressed", r.dump()


def test_the_default_of_the_attribute_asked_is_released(make_kb: MakeKB) -> None:
    notes = {"nl.md": "# nl\n\n- Set the line-number separator (`TAB` by default):\n\n`nl -s {{separator}} {{file}}`\n"}
    r = make_kb(notes).engine.ask("What is nl's default line-number separator?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "`TAB` by default" in r.answer


NAMER = (
    "# Page Namer\n\nAt the header of each page, you see the currently open page name.\n\n"
    "* Its font color indicates the current **page status**:\n"
    "  * Black (in light mode) indicates the page is currently saved\n"
    "  * Gray (in light mode) indicates the page is currently not saved\n"
)


def test_a_value_for_another_setting_than_the_one_put_before_the_question_abstains(make_kb: MakeKB) -> None:
    r = make_kb({"Page Namer.md": NAMER}).engine.ask(
        "In dark mode, what colour is the page name when the page is saved?", verify=True
    )
    assert r.answer_status == "abstained" and r.abstention_reason == "focus_not_addressed", r.dump()


def test_the_setting_put_before_the_question_stated_by_the_sentence_is_released(make_kb: MakeKB) -> None:
    notes = {"Page Namer.md": NAMER.replace("Black (in light mode)", "Black (in dark mode)")}
    r = make_kb(notes).engine.ask("In dark mode, what colour is the page name when the page is saved?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "Black (in dark mode)" in r.answer
