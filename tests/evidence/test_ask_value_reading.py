"""Verified ask finds the value a sentence states when the sentence states it in an ordinary way: a
measure adjective ("how *strong*") asks for a number, "what do you add … *to do* a reset" asks for a
thing, "the number of failed attempts …, defaults to `10`" counts the attempts, a link reads as its
text and a relative clause (", which does the keyboard handling") is about the noun before it, and a
"writer" named beside a work is its author; "what *kind of* number" asks for a kind, a possessive ("a
Bloom filter's bit array") names the filter, a clause before a colon is no term being defined, and the
items after it are what the clause announces. A command is read with its caption ("- Connect through a
jump host:" above `ssh -J …`), and a flag asked of a command ("which *mv* option") must come from a
passage or note naming that command. "Unless told otherwise" or "when no count is given" is read as "by
default", "What's" as "What is", and "Can you tell me which …" as "which …"; a reply to a quoted question
that asks for another thing ("Which team …?" for a position) answers that question. Each rule has a
counterpart that still abstains. Every `ask` test runs `engine.ask(..., verify=True)` on a real index of
hand-written notes."""

from __future__ import annotations

import pytest

from gno.evidence.answer_type import Vocabulary, typed_values
from gno.evidence.focus import addresses
from gno.evidence.question import answer_kind, as_by_default, direct, expanded, frame

from .conftest import MakeKB, assert_asked

NO_WORDS = Vocabulary(frozenset(), frozenset(), frozenset())

# -- the rules ------------------------------------------------------------------------------------


def test_a_measure_adjective_asks_for_a_number() -> None:
    assert answer_kind("How strong is the client encryption key?") == "quantity"
    assert answer_kind("How wide can the sidebar get?") == "quantity"
    assert answer_kind("How do I hide a folder?") == "manner"
    fr = frame("How strong is the client encryption key?")
    assert typed_values("A strong 256-bit key is derived on the client.", fr, NO_WORDS) == ["256"]
    assert typed_values("A strong key is derived on the client.", fr, NO_WORDS) == []


def test_to_do_after_another_verb_is_a_purpose_not_an_activity() -> None:
    assert answer_kind("What do you add to the URL to do a full client reset?") == "thing"
    assert answer_kind("What does Calvin do to relax?") == "manner"
    assert answer_kind("What did Caroline do after the race?") == "manner"


def test_the_number_of_what_is_counted_names_the_count() -> None:
    fr = frame("After how many failed login attempts is a user locked out by default?")
    assert fr.counted == "attempt"  # the leading preposition does not hide the counted noun
    said = "Specifies the number of failed login attempts before locking the user out, defaults to `10`"
    assert typed_values(said, fr, NO_WORDS) == ["10"]
    # a number that measures something else is no count of attempts
    timed = "Specifies the number of failed login attempts before locking the user out for 60 seconds"
    assert typed_values(timed, fr, NO_WORDS) == []
    # without "the number of", a number far from the counted noun says nothing about it
    assert typed_values("Failed login attempts lock the user out, defaults to `10`", fr, NO_WORDS) == []


def test_a_link_reads_as_its_text_and_a_relative_clause_as_its_noun() -> None:
    fr = frame("Which editor component does most of the keyboard handling?")
    said = "SilverBullet uses [CodeMirror](https://codemirror.net) under the hood, which does most keyboard handling."
    assert "CodeMirror" in typed_values(said, fr, NO_WORDS)
    # a name in a clause of its own, not described by the one that states the question's words
    apart = "SilverBullet ships CodeMirror themes; most keyboard handling is done by plugs."
    assert typed_values(apart, fr, NO_WORDS) == []


def test_the_noun_of_the_deed_names_its_doer() -> None:
    fr = frame("Who wrote the master plot for 6000-word stories?")
    said = "Prolific pulp writer Lester Dent outlines a simple master plot for short (6000-word) stories."
    assert typed_values(said, fr, NO_WORDS) == ["Lester Dent"]
    assert typed_values("The developer Linus Torvalds released it.", frame("Who developed git?"), NO_WORDS) == [
        "Linus Torvalds"
    ]
    reviewed = "A simple master plot for short (6000-word) stories, reviewed by editor Jane Roe."
    assert typed_values(reviewed, fr, NO_WORDS) == []


def test_a_kind_of_number_is_a_kind_and_a_possessive_names_its_owner() -> None:
    fr = frame("What kind of number is the size of a Bloom filter's bit array usually?")
    assert fr.kind == "thing" and fr.sort
    said = "You start with a bit array of size `m` (usually a large prime number), all zeros."
    assert typed_values(said, fr, NO_WORDS) == ["prime"]
    assert addresses(fr.focus, said, "How it works\nBloom Filter")
    assert not addresses(fr.focus, said, "How it works\nHash Table")  # another structure's bit array
    assert frame("How many kinds of accounts does Solana have?").kind == "number"


def test_a_clause_before_a_colon_announces_its_items() -> None:
    fr = frame("Which levels of management should settle a true KPI?")
    said = "True KPI is settled by all 3 levels of management: Top, Middle and First"
    assert addresses(fr.focus, said, "The correct way to build KPI", relation=fr.relation)
    assert {"Middle", "First"} <= set(typed_values(said, fr, NO_WORDS))
    # a term being defined stays the section of its description; a list after an unrelated label says nothing
    assert addresses(
        frame("How long is a user locked out?").focus,
        "`SB_LOCKOUT_TIME`: Specifies the time in seconds a user is locked out",
        "Authentication",
    )
    assert typed_values("Roles: Top, Middle and First", fr, NO_WORDS) == []


def test_a_flag_asked_of_a_command_names_the_command() -> None:
    fr = frame("Which mkdir option also creates the missing parent folders?")
    assert fr.focus.target == ("mkdir", "option") and fr.form == "option"  # "also" ends the target
    assert fr.subjects == {"mkdir"} and "also" not in fr.focus.words
    assert frame("Which ssh flag connects through a jump host?").subjects == {"ssh"}
    assert frame("Which option lets the server bind to another address?").subjects == set()


# -- released, or not -------------------------------------------------------------------------

LOCKOUT = (
    "# Configuration\n\n## Authentication\n\n* `SB_LOCKOUT_LIMIT`: Specifies the number of failed login attempts "
    "before locking the user out (for a `SB_LOCKOUT_TIME` specified amount of seconds), defaults to `{limit}`\n"
)
RESET = "# Troubleshooting\n\n## Client reset\n\nIf all else fails, you can perform a full client reset by {how}.\n"
ENCRYPTION = (
    "# Client Encryption\n\n## Details\n\nA strong {bits}cryptographic key is derived (using _PBKDF2_) on the client "
    "from your username and password.\n"
)
KEYS = (
    "# Keyboard Shortcuts\n\n## Editor\n\nSilverBullet uses [CodeMirror](https://codemirror.net) under the hood{rest}\n"
)

#: (notes, question, what the verified answer holds); no `holds`: it abstains
CASES: dict[str, tuple[dict[str, str], str, tuple[str, ...]]] = {
    "the number of attempts": (
        {"Configuration.md": LOCKOUT.format(limit="10")},
        "After how many failed login attempts is a user locked out by default?",
        ("`10`",),
    ),
    "a strong 256-bit key": (
        {"Client Encryption.md": ENCRYPTION.format(bits="256-bit ")},
        "How strong is the client encryption key?",
        ("256-bit",),
    ),
    "a strong key, no number": (
        {"Client Encryption.md": ENCRYPTION.format(bits="")},
        "How strong is the client encryption key?",
        (),
    ),
    "what to add to the URL": (
        {"Troubleshooting.md": RESET.format(how="adding `?resetClient=1` to any URL")},
        "What do you add to the URL to do a full client reset?",
        ("?resetClient=1",),
    ),
    "a reset that adds nothing to the URL": (
        {"Troubleshooting.md": RESET.format(how="clearing the browser's data")},
        "What do you add to the URL to do a full client reset?",
        (),
    ),
    "the component that handles the keyboard": (
        {"Keyboard Shortcuts.md": KEYS.format(rest=", which does the majority of the keyboard handling.")},
        "Which editor component does most of the keyboard handling?",
        ("CodeMirror",),
    ),
    "a component that is not said to handle the keyboard": (
        {"Keyboard Shortcuts.md": KEYS.format(rest=", which renders markdown. Plugs do the keyboard handling.")},
        "Which editor component does most of the keyboard handling?",
        (),
    ),
}


SSH = "# ssh\n\n- Connect through a jumphost to a remote server:\n\n`ssh -J {{user}}@{{jump_host}} {{host}}`\n"
CAVIF = "# cavif\n\n- Overwrite the destination file if it already exists:\n\n`cavif --overwrite {{image.jpg}}`\n"
MV = "# mv\n\n- Rename a file or directory:\n\n`mv {{path/to/source}} {{path/to/target}}`\n"
CASES["a command read with its caption"] = ({"ssh.md": SSH}, "Which ssh flag connects through a jump host?", ("-J",))
CASES["another command's flag"] = (
    {"cavif.md": CAVIF, "mv.md": MV},
    "Which mv option refuses to overwrite files that already exist at the destination?",
    (),
)


CHAT = (
    "# Session 1 — 2 May 2023\n\nJames: Congrats on the contract! Which team did you sign with?\n\n"
    "John: The Minnesota Wolves! I can't wait to play with them.\n"
)
CASES["a reply to the question"] = ({"session-01.md": CHAT}, "Which team did John sign with?", ("Minnesota Wolves",))
CASES["a reply to another question"] = (
    {"session-01.md": CHAT},
    "What is John's position on the team he signed with?",
    (),
)
PORT = "# Install\n\n## Server\n\nThe server listens on port `3000` by default.\n"
CASES["a question asked inside a request"] = (
    {"Install.md": PORT},
    "Can you tell me which port the server listens on by default?",
    ("`3000`",),
)
CASES["a yes/no question inside a request"] = (
    {"Install.md": PORT},
    "Can you tell me if the server listens on port 3000 by default?",
    (),
)
SYNC = "# Sync\n\n## Interval\n\nThe client syncs every 20 seconds by default; set `syncInterval` to change it.\n"
CASES["a paraphrase of by default"] = (
    {"Sync.md": SYNC},
    "How often does the client sync unless told otherwise?",
    ("20 seconds",),
)


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("How many log lines are shown when you don't say how many?", "How many log lines are shown by default?"),
        ("How long does it wait, unless told otherwise?", "How long does it wait by default?"),
        ("How many lines does tail print when no count is given?", "How many lines does tail print by default?"),
        ("Which port is used if not specified?", "Which port is used by default?"),
        ("What level does zip use if I don't pick one?", "What level does zip use by default?"),
    ],
)
def test_a_paraphrase_of_by_default_is_read_as_by_default(question: str, read: str) -> None:
    assert as_by_default(question) == read
    assert "default" in frame(question).optional


@pytest.mark.parametrize(
    ("contracted", "written_out"),
    [
        ("What's the shortcut for the command palette?", "What is the shortcut for the command palette?"),
        ("Where's the config file stored?", "Where is the config file stored?"),
        ("Who’s the author of the plugin?", "Who is the author of the plugin?"),
        ("Whats the default port?", "What is the default port?"),
        ("What're the default ports?", "What are the default ports?"),
    ],
)
def test_a_contracted_wh_word_is_read_as_written_out(contracted: str, written_out: str) -> None:
    a, b = frame(contracted), frame(written_out)
    assert (a.kind, a.form, a.required, a.optional, a.focus) == (b.kind, b.form, b.required, b.optional, b.focus)


@pytest.mark.parametrize(
    "asked",
    [
        "Can you tell me which port the server listens on?",
        "Do you know which port the server listens on?",
        "I'd like to know which port the server listens on",
        "Hey, quick question: which port does the server listen on?",
        "Please tell me which port the server listens on.",
    ],
)
def test_a_wh_question_inside_a_request_is_that_question(asked: str) -> None:
    a, b = frame(asked), frame("Which port does the server listen on?")
    assert (a.kind, a.form, a.required, a.optional) == (b.kind, b.form, b.required, b.optional)
    assert direct("Can you tell me if the server listens on 3000?") == "Can you tell me if the server listens on 3000?"


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("What inspired Caroline's painting for the art show?", "inspired"),
        ("What caused the outage last week?", "caused"),
        ("What made you name her Tilly?", "made"),
    ],
)
def test_a_verb_right_after_what_is_the_verb_not_the_thing_asked_for(question: str, verb: str) -> None:
    focus = frame(question).focus
    assert focus.target == () and verb in focus.verbs


def test_an_adjective_in_ed_before_its_noun_stays_in_the_target() -> None:
    assert frame("What hosted service does it use?").focus.target == ("hosted", "service")


def test_words_that_only_start_like_a_contraction_stay() -> None:
    assert expanded("Whatsapp backups: where are they kept?") == "Whatsapp backups: where are they kept?"
    assert expanded("Hows and whys of sync") == "Hows and whys of sync"


@pytest.mark.parametrize(
    "question", ["How do I say no when asked?", "What happens if nothing is set up?", "Which file is given to tail?"]
)
def test_other_questions_keep_their_words(question: str) -> None:
    assert as_by_default(question) == question


@pytest.mark.parametrize("case", sorted(CASES))
def test_ask_reads_the_value(make_kb: MakeKB, case: str) -> None:
    notes, question, holds = CASES[case]
    assert_asked(make_kb, notes, question, holds)
