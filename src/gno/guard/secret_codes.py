"""Codes said in a sentence: PINs, PUKs, passcodes, door, gate, alarm, safe and locker codes, combinations.

Why apart from the passwords of `secret_spoken`: a code is a bare number, and a bare number is most often
not a secret ("error code 404", "room 4021", "gate B12", "PIN 13 on the Arduino", "Alarm: 0700"). So a
code counts only where a label names something it opens: a PIN, PUK or passcode; a lock word (door, gate,
safe, locker, padlock, keypad, shed, alarm panel, in the languages of `_LOCK_WORDS`) joined to "code", or
a few words before "is" or a colon ("the padlock on the storage cage is 1066", "garage keypad -> 5172");
"type / enter / punch in" a number where the sentence names such a lock; a number that "opens" or
"disarms" something. The value is four to eight digits (a door code may hold a capital: "72B41"), digit
groups of a combination ("19-27-4", "1-9-7-3"), or a card's three or four check digits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gno.guard.secret_phrasing import BEFORE_COLON, CONNECT, FOR, LATER, B, Form, O, run_forms

#: what a code opens, in the languages a memory is written in; the physical ones may head a code alone
_PHYSICAL = (
    rf"(?:door|gate|safe|locker|lockbox|keybox|smart{B}lock|key{B}box|garage(?:{B}door)?(?:{B}opener)?|keypad|padlock"
    rf"|front{B}door|shed|storage{B}(?:unit|room|cage)|mailbox|intercom|bike{B}lock|alarm{B}panel"
    r"|cadeado|candado|lucchetto|schloss|kłódka|hänglås|porte|puerta|porta|portão|portón|cancello|tür|deur|poort"
    r"|drzwi|dörr(?:en)?|domofon[a-z]*|interphone|citofono|kluis|coffre|cassaforte|tresor|sejf|kassaskåp|casier"
    r"|taquilla|armadietto|spind|garagem|garaje)"
)
_LOCK = rf"(?:{_PHYSICAL}|alarm(?:e|a)?|allarme|access|entry|security|unlock|acc[eè]s|acceso|accesso|entrée)"
_NUMBER_WORD = r"(?:codes?|codice|código|kod|koden)"
#: "PIN", "PUK", "passcode", "combination", "door code", "6-digit code", "Türcode", "Portkoden",
#: "code to the safe", "código do cadeado da bicicleta", "Kod do domofonu"
_CODE = (
    rf"(?:(?<!to )pin#?(?:{O}(?:code|number|no\.?))?|pin-nummer|pincode|puk\d?|pass{O}codes?|combination"
    rf"|combinazione|combo|otp|one-time{B}(?:pass)?code|2fa{B}code|verification{B}code|voicemail(?:{B}pin)?"
    rf"|(?:phone|screen|device){B}unlock|\d+-digit{B}(?:code|pin|passcode)|{_LOCK}(?:{B}[\w-]+)?{B}code|(?:haus)?(?:tür|tor|port|deur|poort|alarm|zugangs?"
    rf"|digi|garage|hek|dörr|grind)(?:code|koden?|kod)"
    rf"|{_NUMBER_WORD}(?={B}(?:to|for|of|de|do|da|del|della|dell['’]|di|du|d['’]|van|voor|till|för|zum|zur|dla)"
    rf"(?:{B}[\w'’-]+){{0,3}}?{B}(?:the{B}|my{B}|our{B}|his{B}|her{B}|their{B}|la{B}|le{B}|el{B}|l['’])?{_LOCK}))"
)
#: a number followed by a unit is a size, a price or a time, never a code ("the safe is 1200 mm wide")
_UNIT = (
    r"(?:bytes?|[kmgt]i?b|mm|cm|m|km|kg|g|lbs?|px|ms|s|secs?|seconds?|minutes?|hours?|days?|years?|items?|rows?"
    r"|words?|char(?:acter)?s?|users?|people|euros?|dollars?|usd|eur|pounds?|%)"
)
_DIGITS = (
    r"(?P<v>\d{4,8}|\d{1,3}[A-Z]\d{1,4}|\d(?:[- ]\d){3,7}|\d{2}(?: \d{2}){1,3}|\d{1,2}(?:-\d{1,2}){2,5})(?![\w-])"
    rf"(?!{B}(?i:{_UNIT})\b)"
)
_NOT_A_YEAR = r"(?!(?:19|20)\d\d(?![\w-]))"  # "Safe harbor rules: 2018", "code for 2024"
# a code may follow its label after a blank alone ("combination 1-9-8-4"), but then right after it
_CODE_RE = re.compile(
    rf"(?i:\b{_CODE})(?:{FOR}(?i:{CONNECT}|,{B}|{B}(?=\())|(?i:{BEFORE_COLON})|{FOR}{B})['\"`(]?"
    rf"{_NOT_A_YEAR}{_DIGITS}"
)
#: "the storage cage is 1066", "garage keypad -> 5172", "alarm panel disarm is 6672": a physical lock, at
#: most one word, then "is" or a colon (never a blank alone: "door 2041" is a room), and never a year
#: ("Safe harbor: 2018")
_LOCK_RE = re.compile(
    rf"(?i:\b{_PHYSICAL}\b(?:{B}[\w'’-]+)?(?:{CONNECT}(?:armed{B}with{B})?|{B}is{B}armed{B}with{B}))"
    rf"['\"`]?{_NOT_A_YEAR}{_DIGITS}"
)
#: "car keypad 73915", "padlock 4471": a word that is nothing but a lock, then the number; "door 6318#": a
#: number keyed with its closing # or * after any physical lock
_KEYPAD_RE = re.compile(
    rf"(?i:\b(?:keypad|padlock|lockbox|keybox|key{B}box|bike{B}lock|combination{B}lock)){B}['\"`]?"
    rf"{_NOT_A_YEAR}{_DIGITS}"
    rf"|(?i:\b{_PHYSICAL}\b){B}(?P<dv>\d{{4,8}})(?=[#*])"
)
#: "4930 is the card pin", "3318 - bike lock": the number first, then what it is
_NAMED_AFTER_RE = re.compile(
    rf"(?:^|(?<=[\s(]))(?P<v>\d{{4,8}}){B}(?:(?i:is|was){B}(?i:(?:the|my|our|his|her|their){B})?(?:[\w'’-]+{B}){{0,3}}"
    rf"(?i:pin|puk|passcode|code|combination|combo)\b|[-–—]{B}(?i:{_PHYSICAL}|{_CODE})\b)"
)
#: "the garage code … it is 8147", "voicemail PIN changed; the new one is 1 4 8 2": a code named, and its
#: number after "it is" / "the new one is" / "its" later on the line
_LATER_RE = re.compile(
    rf"(?i:\b{_CODE}\b[^\n]{{0,80}}?\b{LATER}){B}['\"`]?{_NOT_A_YEAR}{_DIGITS}"
)
#: "the padlock opens with 4471", "4471 opens the shed", "1357 disarms the alarm"
_OPENS_RE = re.compile(
    rf"(?i:\b{_LOCK}\b[^\n.]{{0,40}}?\b(?:opens|unlocks|disarms)(?:{B}with)?){B}['\"`]?{_DIGITS}"
    rf"|(?:^|(?<=[\s(]))(?P<dv>\d{{4,8}}){B}(?i:opens|unlocks|disarms)\b"
)
#: "CVV 123", "CVC: 4412": a card's check digits
_CARD_CHECK_RE = re.compile(rf"(?i:\b(?:cvv2?|cvc2?|csc)){FOR}(?i:{CONNECT}|{B})['\"`]?(?P<v>\d{{3,4}})(?![\w-])")
#: "type 1357 on the keypad", "enter 0911 on the alarm panel", "punch in 6620": a number keyed into a lock
_KEYED_RE = re.compile(rf"(?i:\b(?:type|enter|punch{B}in|key{B}in|dial)){B}['\"`]?(?P<v>\d{{4,8}})(?![\w-])")
#: the lock a keyed number goes into: a physical one or an alarm ("Enter 8080 for the access port" keys nothing)
_LOCK_NEAR_RE = re.compile(rf"(?i:\b(?:{_PHYSICAL}|alarm(?:e|a)?|allarme)\b)")
#: a chat line asking for a code ("what's the code for the bike shed again?"), and the reply's bare number
#: on the next line ("Marco: 2907"), a speaker's name or a time stamp before it
_ASKED_RE = re.compile(rf"(?i:\b{_CODE}\b[^\n]{{0,60}}\?)[^\S\n]*\n")
_REPLY_RE = re.compile(
    r"[^\S\n]*(?:\[[^\]\n]{1,20}\][^\S\n]*)?(?:[\w .'’-]{1,30}:[^\S\n]*)?(?P<v>\d{4,8})[^\S\n]*(?:\n|$)"
)

_FORMS: tuple[Form, ...] = (
    ("spoken-code", _CODE_RE, ("pin", "puk", "pass", "combin", "combo", "digit", "code", "codice", "código", "kod",
                               "otp", "2fa", "voicemail", "unlock"), None),  # fmt: skip
    ("spoken-code", _LOCK_RE, ("door", "gate", "safe", "lock", "box", "garage", "keypad", "shed", "storage",
                               "mailbox", "intercom", "alarm", "cadeado", "candado", "tür", "deur", "porte", "puerta",
                               "kluis", "tresor", "domofon"), None),  # fmt: skip
    ("spoken-code", _OPENS_RE, ("opens", "unlocks", "disarms"), None),
    ("spoken-code", _LATER_RE, ("it", "new one", "correct one"), None),
    ("spoken-code", _KEYPAD_RE, ("keypad", "padlock", "lockbox", "keybox", "key box", "bike lock", "#", "*"), None),
    ("spoken-code", _NAMED_AFTER_RE, ("pin", "puk", "code", "combin", "combo", "lock", "door", "gate", "safe"), None),
    ("spoken-code", _CARD_CHECK_RE, ("cvv", "cvc", "csc"), None),
)


def code_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Codes said in a sentence (see the module's docstring), or given as the reply to a question for one."""
    yield from run_forms(text, _FORMS)
    if "?" in text:
        for asked in _ASKED_RE.finditer(text):
            reply = _REPLY_RE.match(text, asked.end())
            if reply:
                yield "spoken-code", reply.start("v"), reply.end("v")
    folded = text.lower()
    if not any(k in folded for k in ("type", "enter", "punch", "key in", "dial")):
        return
    for match in _KEYED_RE.finditer(text):
        start, end = match.span("v")
        # the sentence around it, looked at no further than 120 characters either side
        lo, hi = max(0, start - 120), min(len(text), end + 120)
        sentence_start = max(text.rfind(".", lo, start), text.rfind("\n", lo, start), lo - 1) + 1
        stops = [i for i in (text.find(".", end, hi), text.find("\n", end, hi)) if i >= 0]
        if _LOCK_NEAR_RE.search(text, sentence_start, min(stops, default=hi)):
            yield "spoken-code", start, end
