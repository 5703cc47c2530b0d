"""How a sentence hands over a secret: the grammar the prose forms of `secret_spoken` and `secret_codes` share.

A label names the secret ("password", "PIN", "Türcode"), then may say what it is for ("for the office
wifi", "della mail di lavoro", "(12 words)"), then a connector leads to the value ("is", "lautet", "är",
"was changed to", ":", "=", "->", " - ", an opening bracket). The labels and the shape of their values
live with each form; this module holds what every form reads the same way, in the languages a memory is
likely to be written in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

B = r"[^\S\n]+"  # blanks within one line
O = r"[^\S\n]*"  # noqa: E741 - the optional blank, beside B
_PREPS = (
    "for|of|on|to|at|in|between|with|from|de|del|della|dello|di|du|des|da|do|dos|das|per|pour|para|für|zum|zur"
    "|vom|van|voor|till|för|dla|na|au|aux"
)
#: what a secret is for: "for the office wifi", "della mail di lavoro", "for the hardware wallet, in order",
#: "(post room, box 38)", "till wifi:t"
FOR = (
    rf"(?:{B}(?:{_PREPS})(?:{B}[\w.,'’/&-]+(?::[a-z]+)?){{1,6}}?)?"
    rf"(?:{O}\([^)\n]{{1,40}}\))?"
)
_VERB = r"(?:is|was|are|were|è|es|ist|est|é|era|war|lautet|är|jest|blijft)"
#: "is", "is now", "was changed to", "set to", "as", "'s", ":", "=", "->", "➜", " - "; a quoted key closes
#: first (`"pin": "2958"`)
CONNECT = (
    rf"(?:['\"]?{O}(?::|=|->|=>|→|➜|⇒|—|–){O}|{B}-{B}|['’]s{B}|{B}as{B}"
    rf"|{B}{_VERB}(?:{B}(?:now|still))?(?:{B}(?:changed|set|reset|updated){B}to)?{B}"
    rf"|{B}(?:(?:has|have){B}been{B})?(?:changed|set|reset|updated){B}to{B}"
    rf"|{B}to{B})"
)
#: a label's few own words before a colon: "Türcode Hintereingang: 3490", "PIN work phone: 1234"
BEFORE_COLON = rf"(?:{B}[^\s:]+){{1,3}}{O}:{O}"
#: a value given later on the line than its label: "it is now …", "its …", "the new one is …"
LATER = (
    rf"(?:it['’]?s|it{B}is|the{B}new{B}one(?:['’]s|{B}is)|new{B}one(?:['’]s|{B}is)|the{B}correct{B}one{B}is)"
    rf"(?:{B}now)?"
)
VALUE = r"(?P<q>['\"`“‘]?)(?P<v>[^\s'\"`”’]{4,100})"
_TRAILING = ".,;:)]}”’'\"`"

#: (rule id, pattern, words one of which the text must hold for the pattern to run, the value's shape)
Form = tuple[str, re.Pattern[str], tuple[str, ...], Callable[[str], bool] | None]


def span(match: re.Match[str]) -> tuple[int, int]:
    """The value's span: the first value group that took part, without the punctuation that closes it."""
    group = next(g for g in ("dv", "pv", "v") if g in match.re.groupindex and match.group(g) is not None)
    start, value = match.start(group), match.group(group)
    return start, start + len(value.rstrip(_TRAILING))


def run_forms(text: str, forms: tuple[Form, ...]) -> Iterator[tuple[str, int, int]]:
    """Each form on `text`, but only when the text holds one of its label words: ordinary text pays a few
    substring tests."""
    folded = text.lower()
    for rule, pattern, needles, accept in forms:
        if not any(n in folded for n in needles):
            continue
        for match in pattern.finditer(text):
            start, end = span(match)
            if end > start and (accept is None or accept(text[start:end])):
                yield rule, start, end
