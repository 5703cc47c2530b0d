"""Verified ask: answer forms that a claim of the wrong form cannot state.

"Which flag/switch" asks for a command-line flag (`-p`, `--single`), never a hyphenated word ("which
option" may ask for a setting such as `sync.ignore`: no form);
"which command" for a command (a code span, a quoted `Namespace: Name`, a shell line), never a name
such as "Self-update the CLI binary"; "which endpoint/url/route" for a path; "how often" for a
recurrence (every 20 seconds, twice a week) and "how long" for a unit, never a bare number.
Each table holds values of the form and their wrong-form counterparts; the `ask` cases run
`engine.ask(..., verify=True)` on a real index of hand-written notes, released or abstained.
"""

from __future__ import annotations

import pytest

from gno.evidence.answer_type import typed_values, vocabulary
from gno.evidence.forms import formed_values
from gno.evidence.question import frame

from .conftest import MakeKB, assert_asked

#: (text, question, the flags it states)
FLAGS: list[tuple[str, str, list[str]]] = [
    ("`grep {{[-o|--only-matching]}} {{pat}}`", "Which grep flag prints the match?", ["-o", "--only-matching"]),
    ("To pick a different port, use `-p`:", "Which flag sets the port?", ["-p"]),
    ("`rsync -r --delete {{src}} {{dst}}`", "Which rsync switch deletes files?", ["-r", "--delete"]),
    ("the re-indexing of a well-known page", "Which switch re-indexes?", []),  # hyphenated words are no flags
    ("Use the `--single` flag for one space.", "Which flag serves one space?", ["--single"]),
    ("`sb logs -l 20`", "Which command-line flag sets the count?", ["-l"]),  # "command-line" writes no `-l`
    ("`sb -n 3`", "Which -n flag sets the count?", []),  # the question's own flag restates it
]


@pytest.mark.parametrize(("text", "question", "flags"), FLAGS)
def test_a_flag_is_a_dash_token_not_a_hyphenated_word(text: str, question: str, flags: list[str]) -> None:
    assert frame(question).form == "flag"
    assert formed_values(text, "flag", question) == flags


#: (text, question, the options it states): an option is a flag or a setting named in code
OPTIONS: list[tuple[str, str, list[str]]] = [
    ("Set `sync.ignore` to a list of patterns.", "Which option lists the files sync skips?", ["sync.ignore"]),
    ("`-L`, `--location`: follow redirects", "Which curl option follows redirects?", ["-L", "--location"]),
    ("3xx responses are redirects.", "Which curl option follows redirects?", []),  # a status class is no option
    ("Follow any `3xx` redirects and dump the reply to `stdout`:", "Which curl option follows redirects?", []),
    ("Set `readOnly` to true.", "Which option makes the space read-only?", ["readOnly"]),
    ("Redirects are followed when you ask for it.", "Which curl option follows redirects?", []),
    ("Run `curl -L https://example.test`", "Which curl option follows redirects?", ["-L"]),
]


@pytest.mark.parametrize(("text", "question", "options"), OPTIONS)
def test_an_option_is_a_flag_or_a_setting_named_in_code(text: str, question: str, options: list[str]) -> None:
    assert frame(question).form == "option"
    assert formed_values(text, "option", question) == options


#: (text, the commands it states)
COMMANDS: list[tuple[str, list[str]]] = [
    ("./silverbullet upgrade", ["./silverbullet upgrade"]),
    ("sb logs -f", ["sb logs -f"]),
    ('run the ${widgets.commandButton("System: Reload")} command', ["System: Reload"]),
    ("Run it with `caddy run --config x`", ["caddy run --config x"]),
    ("Self-update the CLI binary to the latest release.", []),  # a name is no command
    ("and then run it", []),  # prose, not a shell line
]


@pytest.mark.parametrize(("text", "commands"), COMMANDS)
def test_a_command_is_code_a_quoted_name_or_a_shell_line(text: str, commands: list[str]) -> None:
    question = "Which command updates the server?"
    assert frame(question).form == "command"
    assert formed_values(text, "command", question) == commands


#: (question, text, the paths it states)
ENDPOINTS: list[tuple[str, str, list[str]]] = [
    ("Which endpoint evaluates a Lua expression?", "`POST /.runtime/lua` evaluates it.", ["/.runtime/lua"]),
    ("Which URL opens the space manager?", "Open /.spaces in a browser.", ["/.spaces"]),
    ("Which route serves screenshots?", "They are served at `/.runtime/shot`.", ["/.runtime/shot"]),
    ("Which endpoint evaluates a Lua expression?", "The Runtime API evaluates Lua over HTTP (experimental).", []),
]


@pytest.mark.parametrize(("question", "text", "paths"), ENDPOINTS)
def test_an_endpoint_is_a_path(question: str, text: str, paths: list[str]) -> None:
    assert frame(question).form == "path"
    assert formed_values(text, "path", question) == paths


#: (question, sentence, whether it states a value of the asked kind)
TIMED: list[tuple[str, str, bool]] = [
    ("How often does the server back up a space?", "`poll` scans for changes (~2s).", False),
    ("How often is the whole space synced?", "The whole space syncs roughly every 20 seconds.", True),
    ("How often is the open file synced?", "The open file syncs every 4–5 seconds.", True),
    ("How often are the logs rotated?", "The logs are rotated 3 times per hour.", True),
    ("How often are the logs rotated?", "The logs are rotated twice a week.", True),
    ("How often does the server back up a space?", "One profile for every space, 2 in all.", False),  # no period
    ("How long does ping wait between requests?", "The interval between requests (default is 1 second).", True),
    ("How long does the client wait?", "Request timeout (default: 30)", False),
    ("How old is the archive?", "The archive holds 30 entries.", True),  # "how old" keeps any number
]


@pytest.mark.parametrize(("question", "sentence", "valued"), TIMED)
def test_how_often_needs_a_recurrence_and_how_long_a_unit(question: str, sentence: str, valued: bool) -> None:
    fr = frame(question)
    assert bool(typed_values(sentence, fr, vocabulary([sentence]))) == valued


SERVER = "# Server\n\n{flag}\n"
SYNC = "# Sync\n\nThe whole space is synced {how}.\n"
CLI = "# Client\n\n{cmd}\n"
API = "# Runtime API\n\n{lua}\n"

#: (notes, question, what the verified answer holds); no `holds`: it abstains
CASES: dict[str, tuple[dict[str, str], str, tuple[str, ...]]] = {
    "a flag answers which flag": (
        {"server.md": SERVER.format(flag="The `--single` flag serves one folder as a single space.")},
        "Which flag serves one folder as a single space?",
        ("--single",),
    ),
    "a hyphenated word answers no flag": (
        {"server.md": SERVER.format(flag="The `single-space` mode serves one folder as a single space.")},
        "Which flag serves one folder as a single space?",
        (),
    ),
    "a command answers which command": (
        {"cli.md": CLI.format(cmd="Run `sb upgrade` to update the client binary to the latest release.")},
        "Which command updates the client binary?",
        ("sb upgrade",),
    ),
    "a name answers no command": (
        {"cli.md": CLI.format(cmd="The **Self-update** command updates the client binary to the latest release.")},
        "Which command updates the client binary?",
        (),
    ),
    "a path answers which endpoint": (
        {"api.md": API.format(lua="The `POST /.runtime/lua` endpoint evaluates a Lua expression.")},
        "Which endpoint evaluates a Lua expression?",
        ("/.runtime/lua",),
    ),
    "a name answers no endpoint": (
        {"api.md": API.format(lua="The `Runtime API` endpoint evaluates a Lua expression.")},
        "Which endpoint evaluates a Lua expression?",
        (),
    ),
    "how often: a recurrence": (
        {"sync.md": SYNC.format(how="every 20 seconds")},
        "How often is the whole space synced?",
        ("every 20 seconds",),
    ),
    "how often: a bare number is none": (
        {"sync.md": SYNC.format(how="in batches of 20")},
        "How often is the whole space synced?",
        (),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_released_only_in_the_asked_form(make_kb: MakeKB, case: str) -> None:
    assert_asked(make_kb, *CASES[case])
