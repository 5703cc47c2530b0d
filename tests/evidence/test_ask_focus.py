"""Verified ask answers the question asked: a claim is released only when it addresses the
question's focus (what it is about, in the sentence or its section), states a value of the form
the question asks for, and short factual questions whose answer is one phrase of one passage are
answered. Every test runs `engine.ask(..., verify=True)` on a real index of hand-written notes."""

from __future__ import annotations

import pytest

from gno.evidence.focus import addresses, parse
from gno.evidence.forms import examples_removed, form_of, formed_values
from gno.evidence.question import frame

from .conftest import MakeKB

# -- the parse ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "target", "verbs", "phrases"),
    [
        ("What shortcut opens the command palette?", ("shortcut",), ("opens",), (("command", "palette"),)),
        ("Which environment variable sets the default page to load?", ("environment", "variable"),
         ("sets", "load"), (("page",),)),
        ("How often is the whole space synced?", (), ("synced",), (("whole", "space"),)),
        ("What port does the server listen on by default?", ("port",), ("listen",), (("server",),)),
        ("Which folder in the container is the space root?", ("folder",), (), (("container",), ("space", "root"))),
        ("What is the maximum length of a page name?", ("maximum", "length"), (), (("page", "name"),)),
        ("Who developed Hive?", (), ("developed",), (("hive",),)),
        ("Which composers does Dijkstra compare schools of programming to?", ("composers",), ("compare",),
         (("dijkstra",), ("schools",), ("programming",))),
        # "as" and "than" join phrases like any preposition: "a folder" need not be written "folder as"
        ("Which flag forces the server to serve one folder as a classic single space?", ("flag",),
         ("forces", "serve"), (("server",), ("folder",), ("classic", "single", "space"))),
    ],
)
def test_question_parse(question: str, target: tuple[str, ...], verbs: tuple[str, ...],
                        phrases: tuple[tuple[str, ...], ...]) -> None:
    f = parse(question)
    assert (f.target, f.verbs, f.phrases) == (target, verbs, phrases)


def test_focus_phrase_must_stand_together_not_scattered() -> None:
    f = parse("Which shortcut opens the command palette?")
    assert addresses(f, "Press Ctrl-Shift-p to open the command palette.", "Keyboard")
    assert addresses(f, "Open the palette of commands with Ctrl-Shift-p.", "Keyboard")  # either order, close
    scattered = "The command `Page: Open` is bound to `Ctrl-Alt-o` in this example; the colour palette stays."
    assert not addresses(f, scattered, "Example: custom bindings")
    # a section that names part of the phrase lends it to its sentences ("Client Encryption" note)
    g = parse("Which function derives the client encryption key?")
    assert addresses(g, "A strong key is derived on the client using PBKDF2.", "Client Encryption")


def test_forms_of_asked_values() -> None:
    assert form_of(("keyboard", "shortcut")) == "key" and form_of(("port",)) == "port"
    assert form_of(("key", "derivation", "function")) is None
    assert formed_values("press `Cmd-k` on Mac or `Ctrl-k` elsewhere", "key", "q") == ["Cmd-k", "Ctrl-k"]
    assert formed_values("bind it to a custom keyboard shortcut", "key", "q") == []
    assert formed_values("`SB_PORT`: the port to listen to, e.g. `SB_PORT=1234`, default is `3000`", "port", "q") == [
        "3000"
    ]
    assert "600px" not in examples_removed('CSS lengths (e.g. `"600px"`, `"50%"`) merged into')


def test_target_noun_is_the_type_not_a_required_word() -> None:
    fr = frame("Which environment variable sets the default page to load?")
    assert fr.form == "env"
    assert "environ" not in fr.required and "page" in fr.required


# -- released, or not -------------------------------------------------------------------------


def test_sentence_about_the_palette_without_a_shortcut_is_not_released(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "palette.md": (
                "# Command palette\n\nThe command palette lists every command. You can bind any command to a custom "
                "keyboard shortcut in the settings.\n"
            ),
        }
    )
    r = kb.engine.ask("What shortcut opens the command palette?", verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.answer is None


def test_sentence_from_an_unrelated_example_with_the_question_words_is_not_released(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "bindings.md": (
                "# Custom bindings\n\n## Example\n\nIn this example the command `Page: Open` gets `Ctrl-Alt-o`, and "
                "the colour palette of the theme stays as it was.\n"
            ),
        }
    )
    r = kb.engine.ask("What shortcut opens the command palette?", verify=True)
    assert r.answer_status == "abstained", r.dump()


def test_shortcut_stated_for_the_focus_is_released(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "palette.md": (
                "# Command palette\n\nThe command palette lists every command. It can be invoked by pressing "
                "`Cmd-Shift-p` on Mac, or `Ctrl-Shift-p` on Windows and Linux.\n"
            ),
            "bindings.md": "# Custom bindings\n\nYou can bind any command to a custom keyboard shortcut.\n",
        }
    )
    r = kb.engine.ask("What shortcut opens the command palette?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "Ctrl-Shift-p" in r.answer
    assert [c.uri for c in r.citations] == ["gno://kb/palette.md"]


def test_value_in_a_list_under_its_lead_in_is_released(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "sync.md": (
                "# Sync\n\nThe app keeps a local copy in sync with the server.\n\nSync happens:\n"
                "* For the entire space: roughly every 20 seconds\n* For the open file: every 4-5 seconds\n"
            ),
        }
    )
    r = kb.engine.ask("How often is the entire space synced?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "20 seconds" in r.answer


def test_environment_variable_label_answers_which_variable(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "config.md": (
                "# Configuration\n\n* `APP_INDEX_PAGE`: Sets the default page to load, defaults to `index`.\n"
                "* `APP_PORT`: Sets the port to listen to, defaults to `3000`.\n"
            ),
        }
    )
    r = kb.engine.ask("Which environment variable sets the default page to load?", verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answer is not None and "APP_INDEX_PAGE" in r.answer


def test_unanswerable_question_sharing_words_abstains(make_kb: MakeKB) -> None:
    kb = make_kb(
        {
            "widget.md": (
                "# Diagram widget\n\nEach node navigates to the named page. Options may set `width` and `height`, "
                'CSS lengths (e.g. `"600px"`, `"50%"`).\n'
            ),
        }
    )
    r = kb.engine.ask("What is the maximum length of a page name?", verify=True)
    assert r.answer_status == "abstained", r.dump()
