"""Verified ask by meaning: a how-to sentence that words the question otherwise is released.

The word rules abstain when the answer's sentence, heading and title miss most of the question's
words ("brings you back" / "return to"). The second reading (`gno.evidence.meaning`) embeds each
typed candidate under its title and heading with the real MiniLM model from the installed wheel
and releases the closest one only when it is close (the floor) and clearly closer than any other
value (the margin), and the verifier's other tests still pass. Real SQLite index, real model.
"""

from __future__ import annotations

import pytest

import gno.evidence.ask as ask_mod
import gno.evidence.meaning as meaning
from gno.evidence.focus import parse, scattered

from .conftest import MakeKB

pytestmark = pytest.mark.slow

MANUAL = {
    "Space Manager.md": (
        "# Space Manager\n\n## Setup wizard\n\nOn a fresh install the server opens a setup wizard that asks for an "
        "admin account.\n\nTo return to the space manager, simply open the `/.spaces` URL.\n"
    ),
    "Sync.md": "# Sync\n\nThe client keeps a full copy of your space and syncs it roughly every 20 seconds.\n",
    "Editor.md": "# Editor\n\n## Undo\n\nPress `Mod-z` to undo the last change in the editor.\n",
}
QUESTION = "Which URL brings you back to the space manager?"


def test_paraphrased_how_to_question_is_released_by_meaning(make_kb: MakeKB) -> None:
    r = make_kb(MANUAL).engine.ask(QUESTION, verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "`/.spaces`" in r.answer
    assert [c.uri for c in r.citations] == ["gno://kb/Space%20Manager.md"]
    v = r.verification
    assert v is not None and all(c.status == "supported" for c in v.claims)
    qc = v.question_coverage
    assert qc["matchedBy"] == "meaning"
    assert qc["similarity"] >= qc["similarityFloor"] == meaning.SIMILARITY_FLOOR
    assert qc["margin"] >= meaning.SIMILARITY_MARGIN


def test_without_minilm_the_word_rules_alone_decide(make_kb: MakeKB, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ask_mod, "minilm", lambda _semantic: None)
    r = make_kb(MANUAL).engine.ask(QUESTION, verify=True)
    assert r.answer_status == "abstained" and r.abstention_reason in meaning.WORD_REASONS, r.dump()
    assert r.verification is not None and r.verification.question_coverage["matchedBy"] == "words"


@pytest.mark.parametrize(("name", "value"), [("SIMILARITY_FLOOR", 0.99), ("SIMILARITY_MARGIN", 0.99)])
def test_a_unit_not_close_enough_or_not_clearly_closest_abstains(
    make_kb: MakeKB, monkeypatch: pytest.MonkeyPatch, name: str, value: float
) -> None:
    monkeypatch.setattr(meaning, name, value)
    r = make_kb(MANUAL).engine.ask(QUESTION, verify=True)
    assert r.answer_status == "abstained" and r.answer is None, r.dump()


def test_unanswerable_question_abstains(make_kb: MakeKB) -> None:
    r = make_kb(MANUAL).engine.ask("How many undo steps does the editor remember?", verify=True)
    assert r.answer_status == "abstained" and r.answer is None, r.dump()


def test_two_values_for_the_same_paraphrase_abstain(make_kb: MakeKB) -> None:
    notes = dict(MANUAL)
    notes["Legacy.md"] = (
        "# Legacy servers\n\n## Setup wizard\n\nTo return to the space manager, simply open the `/.manager` URL.\n"
    )
    r = make_kb(notes).engine.ask(QUESTION, verify=True)
    assert r.answer_status == "abstained" and r.answer is None, r.dump()


def test_a_name_the_question_is_about_must_still_be_named(make_kb: MakeKB) -> None:
    notes = {
        "start.md": (
            "# Getting started\n\n## Commands\n\nCommands can be invoked by name by clicking the command button at "
            "the top right, or hitting `Cmd-/` on Mac.\n"
        )
    }
    r = make_kb(notes).engine.ask("What shortcut invokes commands by name on Windows or Linux?", verify=True)
    assert r.answer_status == "abstained", r.dump()


def test_words_of_one_phrase_stated_apart_are_about_something_else() -> None:
    focus = parse("What shortcut opens the command palette?")
    example = "In this example the command `Page: Open` gets `Ctrl-Alt-o`, and the colour palette stays as it was."
    assert scattered(focus, example, "Custom bindings\nExample")
    assert not scattered(focus, "The command palette opens with `Ctrl-/`.", "Keyboard shortcuts")
    assert not scattered(focus, "Press `Ctrl-/` to open it.", "Command palette")  # the section names it
    assert not scattered(focus, "Press `Ctrl-/` to run any command.", "Keyboard shortcuts")  # a paraphrase may


def test_a_value_with_open_brackets_is_a_fragment() -> None:
    assert meaning.whole("`/.spaces`") and meaning.whole("f(x)")
    assert not meaning.whole("vim = {") and not meaning.whole("[[Space")
