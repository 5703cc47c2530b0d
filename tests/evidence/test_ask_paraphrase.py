"""Verified ask reads a question the way notes answer it: "by default" qualifies the value without
being a word the answer must repeat, nouns and verbs notes use for one another ("item" / "element",
"last" / "duration") state the question's words, "for values we use X" under a section about the
act states the act, "what key does X stand for" asks for the key X stands for, and "`Ctrl-/` anywhere
else" beside "on Mac" gives the key for Windows and Linux. None of this
lets a sentence about something else through: each rule has its counterpart that still abstains.
Every `ask` test runs `engine.ask(..., verify=True)` on a real index of hand-written notes."""

from __future__ import annotations

import pytest

from gno.evidence.focus import addresses, paraphrased, parse, platforms_stated
from gno.evidence.forms import formed_values
from gno.evidence.question import frame

from .conftest import MakeKB, assert_asked

# -- the rules ------------------------------------------------------------------------------------


def test_by_default_is_a_qualifier_not_a_required_word() -> None:
    fr = frame("What prefix do journal pages get by default?")
    assert "default" not in fr.required and {"journal", "page"} <= set(fr.required)
    assert "default" in frame("Where is the default config file stored?").required  # a modifier, not the qualifier


def test_noun_and_verb_classes_state_the_question_word() -> None:
    f = parse("What shortcut moves an outline item up?")
    assert addresses(f, "`Outline: Move Up` (`Alt-ArrowUp`): moves the current element up", "Outlines")
    assert not addresses(f, "`Table: Move Up` (`Alt-ArrowUp`): moves the current row up", "Tables")
    assert paraphrased(["last"], "Sets the session duration in hours") == ["last"]
    assert paraphrased(["item"], "Sets the session duration in hours") == []


def test_instrument_sentence_states_the_act_its_section_names() -> None:
    f = parse("Which cipher mode encrypts values in client encryption?")
    assert addresses(f, "For values we use AES-GCM with randomized ivs.", "Details\nClient Encryption", relation=True)
    # without the act in its section, "we use" states no relation to the question's verb
    assert not addresses(f, "For values we use AES-GCM with randomized ivs.", "Client storage", relation=True)


def test_what_key_does_x_stand_for_is_a_meaning_question() -> None:
    fr = frame("What key does Mod stand for on a Mac?")
    assert fr.meaning and fr.form == "key" and "stand" not in fr.focus.verbs
    values = formed_values("`Mod`: an alias for `Ctrl` on Linux and Windows, to `Cmd` on Mac", "key", fr.text)
    assert values == ["Ctrl", "Cmd"]
    # a chord built on the key the question names restates its term: no rival value
    assert formed_values("Outline commands use a `Mod-.` prefix", "key", fr.text) == []


def test_anywhere_else_beside_one_platform_names_the_others() -> None:
    said = platforms_stated("hitting `Cmd-/` on Mac or `Ctrl-/` anywhere else")
    assert "Windows" in said and "Linux" in said and said.count("Mac") == 1
    assert platforms_stated("hitting `Cmd-/` on Mac") == "hitting `Cmd-/` on Mac"
    assert platforms_stated("move it elsewhere") == "move it elsewhere"  # no platform to contrast


# -- released, or not -------------------------------------------------------------------------

OUTLINES = "# Outlines\n\n## Move\n\n* `Outline: Move Up` (`Alt-ArrowUp`): moves the current element up\n"
TABLES = "# Tables\n\n## Editing\n\n* `Table: Move Up` (`Alt-ArrowUp`): moves the current row up\n"
PALETTE = (
    "# Getting started\n\n## Commands\n\nCommands can be invoked by name by clicking the command button at the "
    "top right, or hitting `Cmd-/` on Mac{rest}.\n"
)
INSTALL = (
    "# Install\n\n## Running the server\n\n{default}To pick a different port for the server, use `-p`:\n\n"
    "./app -p 3001 my-space\n"
)
TUNNEL = "# TLS\n\n## SSH tunnel\n\nThis tunnels your local port 3002 to port 3000 on the server.\n"
DEFAULT_PORT = "The server listens on `http://localhost:3000` by default.\n\n"
JOURNAL = (
    "# Journal\n\n## Journal pages\n\nYou land on today's journal page (by default `Journal/YYYY-MM-DD`) when "
    "you run `Journal: Today`.\n\n{tag}"
)

#: (notes, question, what the verified answer holds and must not hold); no `holds`: it abstains
CASES: dict[str, tuple[dict[str, str], str, tuple[str, ...], tuple[str, ...]]] = {
    "short factual answer stated without 'by default'": (
        {
            "journal.md": (
                "# Journal\n\nA journal entry is a quick note of the day, except that its page names are prefixed "
                "with `Journal/` and only contain the date.\n"
            ),
            "tags.md": "# Tags\n\nBy default journal pages are tagged `journal`.\n",
        },
        "What prefix do journal pages get by default?",
        ("`Journal/`",),
        (),
    ),
    "an element answers an item": (
        {"outlines.md": OUTLINES, "tables.md": TABLES},
        "What shortcut moves an outline item up?",
        ("Alt-ArrowUp", "current element"),
        ("current row",),
    ),
    "a row does not answer an item": ({"tables.md": TABLES}, "What shortcut moves an outline item up?", (), ()),
    "the instrument of the section's act": (
        {
            "Client Encryption.md": (
                "# Client Encryption\n\nThe encryption layer encrypts keys and values on the fly.\n\n## Details\n\n"
                "For values we use _AES-GCM_ with randomized ivs.\n"
            ),
        },
        "Which cipher mode encrypts values in client encryption?",
        ("AES-GCM",),
        (),
    ),
    "the meaning of a modifier": (
        {
            "Keyboard Shortcuts.md": (
                "# Keyboard Shortcuts\n\n## Modifier keys\n\n* `Cmd`: Command key (Mac only)\n"
                "* `Mod`: An alias for `Ctrl` on Linux and Windows, to `Cmd` on Mac\n\n## Combos\n\n"
                "Outline commands use a `Mod-.` prefix.\n"
            ),
        },
        "What key does Mod stand for on a Mac?",
        ("`Mod`: An alias", "`Cmd`"),
        (),
    ),
    "an unanswerable shortcut question": (
        {
            "api.md": "# API\n\n## Global functions\n\n* `print(...)`: prints its arguments to the log.\n",
            "keys.md": "# Keyboard Shortcuts\n\n* `Ctrl-k`: opens the page picker\n* `Ctrl-/`: runs a command\n",
        },
        "Which shortcut prints the current page?",
        (),
        (),
    ),
    "a key for anywhere else answers Windows or Linux": (
        {"start.md": PALETTE.format(rest=" or `Ctrl-/` anywhere else")},
        "What shortcut invokes commands by name on Windows or Linux?",
        ("`Ctrl-/`",),
        (),
    ),
    "a key for Mac alone does not": (
        {"start.md": PALETTE.format(rest="")},
        "What shortcut invokes commands by name on Windows or Linux?",
        (),
        (),
    ),
    "the default is not contradicted by a different or a tunnelled port": (
        {"install.md": INSTALL.format(default=DEFAULT_PORT), "tls.md": TUNNEL},
        "What is the default port of the server?",
        ("3000",),
        ("3001",),
    ),
    "a different port is not the default": (
        {"install.md": INSTALL.format(default="")},
        "What is the default port of the server?",
        (),
        (),
    ),
    "the word the sentence names as the thing asked for, though the question says it too": (
        {"journal.md": JOURNAL.format(tag="## Tag\n\nBy default journal pages are tagged `journal`.\n")},
        "Which tag do journal pages get by default?",
        ("tagged `journal`",),
        ("YYYY-MM-DD",),
    ),
    "a page name with the question's words is not the tag": (
        {"journal.md": JOURNAL.format(tag="")},
        "Which tag do journal pages get by default?",
        (),
        (),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_released_only_when_it_answers_the_question(make_kb: MakeKB, case: str) -> None:
    assert_asked(make_kb, *CASES[case])
