"""Secrets said in a sentence: what a memory holds ("the PIN for Bob's card is 4417").

Why: the scanner rules know config lines and provider tokens, and the context rules want a key next to its
value. A memory is written in prose: "Changed my credit card PIN to 6628", "La password della mail di lavoro
è Pizzeria#2019", "combination 1-9-8-4", "Seed phrase for the hardware wallet: ribbon garden …", "router
admin -> admin / Zebra#Stripes9". Each form here is a *label* that names a secret, what it is for (up to
six words after "for", "of", "de", …), a *connector* ("is", "was changed to", ":", "=", "->") and a value of
the *shape* that label's secrets have. The shape is what keeps ordinary talk intact: a password is never a
plain word ("the password is stored in the vault"), a code is four to eight digits (a card's CVV three or
four) and only after a label that names a lock ("error code 404", "PIN 13 on the Arduino" and "locker 47"
stay), a key is grouped or generated, a seed phrase is twelve to twenty-four lower-case words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from gno.guard.secret_values import is_placeholder, looks_random, wordiness

_B = r"[^\S\n]+"  # blanks within one line
_O = r"[^\S\n]*"
#: what a secret is for: "for the office wifi", "della mail di lavoro", "between billing and the ledger"
_FOR = (
    rf"(?:{_B}(?:for|of|on|to|at|in|between|with|from|de|del|della|dello|di|für|des|du|da|do|per)"
    rf"(?:{_B}[\w.'’/()&-]+){{1,6}}?)?"
)
_VERB = r"(?:is|was|are|were|è|es|ist|est|é|era|war|lautet)"
#: "is", "is now", "was changed to", "set to", "'s", ":", "=", "->"
_CONNECT = (
    rf"(?:{_O}(?::|=|->|→|—|–){_O}|['’]s{_B}"
    rf"|{_B}{_VERB}(?:{_B}(?:now|still))?(?:{_B}(?:changed|set|reset|updated){_B}to)?{_B}"
    rf"|{_B}(?:(?:has|have){_B}been{_B})?(?:changed|set|reset|updated){_B}to{_B}"
    rf"|{_B}to{_B})"
)
_PASSWORD = (
    rf"(?:pass(?:word|phrase|code)s?|pass{_B}phrase|pass(?={_O}[:=])|passwd|passwort|kennwort|contrase[ñn]a|clave"
    rf"|wachtwoord|lösenord|passord|adgangskode|salasana|has[łl]o|heslo"
    rf"|mot{_B}de{_B}passe|senha|pwd|pw|(?:pre-?shared|shared|encryption|wi-?fi|wlan|wpa2?|network){_B}(?:key|secret)"
    rf"|shared{_B}secret)"
)
#: things a code opens; the first ones are physical, and only those name a code before a colon alone
#: ("locker: 3829"), since "Security: 2024" or "Entry: 2023" head a note
_PHYSICAL = (
    rf"(?:door|alarm|gate|safe|locker|lock|lockbox|keybox|key{_B}box|garage(?:{_B}door)?(?:{_B}opener)?"
    rf"|keypad|padlock|front{_B}door)"
)
_LOCK = rf"(?:{_PHYSICAL}|access|entry|security|unlock)"
#: a label that names a lock's code: "PIN", "combination", "door code", "locker:", "code to the safe",
#: "code de l'alarme", "código de la puerta", "digicode", "Geheimzahl"
_CODE = (
    rf"(?:pin(?:{_O}(?:code|number|no\.?))?|pin-nummer|combination|combinazione|combo|{_LOCK}{_B}code|{_PHYSICAL}(?={_O}:)"
    rf"|code(?={_B}(?:to|for|of){_B}(?:(?:the|my|our|his|her|their){_B})?{_LOCK}\b)"
    rf"|(?:code|codice|código)(?:{_B}(?:pin|de|del|della|dell['’]|d['’]|de{_B}la|de{_B}l['’])"
    rf"{_O}(?:alarme?|allarme|alarma|acc[eè]s|acceso|accesso|entrée|porte|puerta|portón|cancello|porta))"
    rf"|digicode|geheimzahl|zugangscode|türcode|alarmcode)"
)
_KEY = (
    rf"(?:licen[cs]e(?:{_B}key)?|product{_B}key|activation{_B}(?:code|key)|serial{_B}(?:number|key)"
    rf"|(?:recovery|backup){_B}(?:codes?|keys?))"
)
_VALUE = r"(?P<q>['\"`“‘]?)(?P<v>[^\s'\"`”’]{4,100})"
#: a quoted passphrase may hold blanks: "password is 'tulips in april'" (up to six words)
_QUOTED = r"['\"`“‘](?P<pv>[^\s'\"`”’][^\n'\"`”’]{3,60}?)['\"`”’]"

_PASSWORD_RE = re.compile(rf"(?i:\b{_PASSWORD}){_FOR}(?i:{_CONNECT})(?:{_QUOTED}|{_VALUE})")
#: "password Summer2024!": after a blank alone only a value of the strongest shape (see `_typed_password`)
_PASSWORD_BLANK_RE = re.compile(rf"(?i:\b{_PASSWORD}){_B}{_VALUE}")
#: "SSID Riverside / key W@terfall22": a network named, then its key
_NETWORK_RE = re.compile(
    rf"(?i:\b(?:ssid|network|wi-?fi|wlan))\b[^\n/]{{0,40}}?{_B}/{_B}(?i:key|pass(?:word)?|pw|pwd)(?:{_CONNECT}|{_B}){_VALUE}"
)
#: "the padlock opens with 4471": a lock named, then what opens it
_OPENS_RE = re.compile(
    rf"(?i:\b{_LOCK}\b[^\n.]{{0,40}}?\b(?:opens|unlocks)(?:{_B}with)?){_B}['\"`]?(?P<v>\d{{4,8}})(?![\w-])"
)
#: "CVV 123", "CVC: 4412": a card's check digits
_CARD_CHECK_RE = re.compile(rf"(?i:\b(?:cvv2?|cvc2?|csc)){_FOR}(?i:{_CONNECT}|{_B})['\"`]?(?P<v>\d{{3,4}})(?![\w-])")
#: "Zebra#Stripes9 is the router password", "use W@terfall2022 as the wifi key": the label ends its
#: phrase ("as the password hash" names an algorithm, not a password)
_NAMED_AFTER_RE = re.compile(
    rf"(?:^|(?<=[\s(\"'`]))(?P<v>[^\s'\"`]{{6,100}}?)['\"`]?{_B}(?i:is|was|as){_B}(?i:(?:the|my|our|his|her|their)"
    rf"{_B})?(?:[\w-]+{_B}){{0,3}}(?i:{_PASSWORD})(?={_O}(?:[.,;:!?)]|$)|{_B}(?i:for|of|on|to|at)\b)"
)
_DIGITS = r"(?P<v>\d{4,8}|\d(?:[- ]\d){3,7}|\d{2}(?:-\d{2}){2,3})(?![\w-])"
# a code or a key may follow its label after a blank alone ("combination 1-9-8-4"), but then right after it
_CODE_RE = re.compile(rf"(?i:\b{_CODE})(?:{_FOR}(?i:{_CONNECT})|{_B})['\"`]?{_DIGITS}")
_KEY_RE = re.compile(rf"(?i:\b{_KEY}){_FOR}(?i:{_CONNECT})(?:(?P<dv>\d{{3,6}}[- ]\d{{3,6}})(?![\w-])|{_VALUE})")
_KEY_BLANK_RE = re.compile(rf"(?i:\b{_KEY}){_B}{_VALUE}")  # "activation code 4HTR9-PLM2Q-…": groups or digits only
_SEED_RE = re.compile(
    rf"(?i:\b(?:seed|recovery|mnemonic|backup|secret|wallet){_B}(?:phrase|words)|\b(?:12|24)-word{_B}\w+"
    rf"|\bmnemonic|\bseed(?={_O}:)){_FOR}(?i:{_CONNECT})['\"`“]?(?P<v>[a-z]{{3,8}}(?:{_B}[a-z]{{3,8}}){{11,23}})"
    rf"(?!{_O}[a-z])"
)
#: "router admin -> admin / Zebra#Stripes9", "credentials: bob / Hunter22!": a login label, a connector, the
#: user name and " / " (not "User research / Q3-2024")
_PAIR_RE = re.compile(
    rf"(?i:\b(?:login|log-in|sign-in|credentials?|creds|admin|username|user)){_FOR}(?i:{_CONNECT})"
    rf"[\w.@+-]+{_B}/{_B}(?P<v>[^\s/]{{6,100}})"
)
#: "alice@example.com / Qwerty!2345", "alice@example.com:Qwerty!2345": an address and what opens it (the
#: slash between blanks, so a URL or a path is never a pair; never an address inside a URL)
_ADDRESS_PAIR_RE = re.compile(
    rf"(?<![\w.+/:-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?:{_B}/{_B}|:)(?P<v>[^\s/]{{6,100}})(?=\s|$|[.,;)])"
)
#: "mother's maiden name: Fitzgerald", "security question (first pet) - the answer is Biscuit"; the
#: question itself is not the secret ("the security question is Where were you born")
_ANSWER_RE = re.compile(
    rf"(?i:\b(?:(?:maiden{_B}name|pet['’]?s?{_B}name)[^\n.]{{0,40}}?(?::|\bis)"
    rf"|security{_B}(?:question|answer)[^\n.]{{0,60}}?answer(?:{_O}:|{_B}is)|security{_B}answer{_O}:){_B})"
    rf"['\"`]?(?P<v>[A-Z][\w'’-]+(?:{_B}[A-Z][\w'’-]+)?)"
)
_GROUPED_RE = re.compile(r"[A-Za-z0-9]{3,8}(?:-[A-Za-z0-9]{3,8}){2,}")
_TRAILING = ".,;:)]}”’'\"`"


def _password_like(value: str) -> bool:
    """A chosen password, not a word: letters with digits or symbols, an inner capital, or three or more
    words joined by hyphens ("purple-lantern-river")."""
    if is_placeholder(value) or value.startswith(("http", "www.")):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(c in "!@#$%^&*+=?~|<>" for c in value)
    if has_alpha and (has_digit or has_symbol):
        return True
    parts = value.split("-")
    if len(parts) >= 3 and all(p.isalpha() for p in parts):
        return True
    return len(value) >= 8 and value.isalpha() and any(c.isupper() for c in value[1:]) and not value.isupper()


def _key_like(value: str, *, generated: bool = True) -> bool:
    """A key or code of groups ("BX9Q-2LKM-P7TR", "qv7m-2kx9-ht4p") with digits, six or more digits (a
    recovery code), or, after "is" or ":" (`generated`), a long generated-looking one."""
    if value.isdigit():
        return 6 <= len(value) <= 12
    if re.fullmatch(r"\d{3,6}[- ]\d{3,6}", value):
        return True
    if _GROUPED_RE.fullmatch(value):
        return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    # a generated key, not a licence's name ("Apache-2.0", "GPL-3.0-or-later"), and only after "is" or ":"
    return generated and looks_random(value, 12) and wordiness(value) < 0.5 and value[:1].isalnum()


def _span(match: re.Match[str]) -> tuple[int, int]:
    group = next(g for g in ("dv", "pv", "v") if g in match.re.groupindex and match.group(g) is not None)
    start, value = match.start(group), match.group(group)
    stripped = value.rstrip(_TRAILING)
    return start, start + len(stripped)


def _accept_password(value: str) -> bool:
    """A password's shape; a value with blanks comes only quoted ("password is 'tulips in april'")."""
    if " " in value:
        return len(value) >= 8 and not is_placeholder(value) and len(value.split()) <= 6
    return _password_like(value)


def _typed_password(value: str) -> bool:
    """After a blank alone ("password Summer2024!"): letters and digits, at least eight characters, or
    letters, digits and a symbol."""
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(c in "!@#$%^&*+=?~|<>" for c in value)
    return not is_placeholder(value) and has_alpha and has_digit and (len(value) >= 8 or has_symbol)


def _accept_pair(value: str) -> bool:
    return _password_like(value) and "@" not in value and "://" not in value


def _accept_generated_key(value: str) -> bool:
    return _key_like(value, generated=True)


def _accept_grouped_key(value: str) -> bool:
    return _key_like(value, generated=False)


_PASSWORD_NEEDLES = ("pass", "pw", "kennwort", "contrase", "clave", "mot de", "senha", "key", "secret", "wachtwoord",
                     "lösenord", "adgangskode", "salasana", "hasło", "haslo", "heslo")
#: (rule id, pattern, words one of which the text must hold for the pattern to run, the value's shape)
_FORMS: tuple[tuple[str, re.Pattern[str], tuple[str, ...], Callable[[str], bool] | None], ...] = (
    ("spoken-password", _PASSWORD_RE, _PASSWORD_NEEDLES, _accept_password),
    ("spoken-password", _NAMED_AFTER_RE, _PASSWORD_NEEDLES, _accept_password),
    ("spoken-password", _PASSWORD_BLANK_RE, _PASSWORD_NEEDLES, _typed_password),
    ("spoken-password", _NETWORK_RE, ("ssid", "network", "wifi", "wi-fi", "wlan"), _accept_password),
    ("spoken-code", _OPENS_RE, ("opens", "unlocks"), None),
    ("spoken-code", _CARD_CHECK_RE, ("cvv", "cvc", "csc"), None),
    ("spoken-code", _CODE_RE, ("pin", "combin", "combo", "code", "codice", "código", "geheimzahl", "lock", "safe",
                               "door", "gate", "alarm", "garage", "access", "entry", "security", "unlock", "keypad",
                               "box"), None),  # fmt: skip
    ("spoken-key", _KEY_RE, ("licen", "product", "activation", "serial", "recovery", "backup"), _accept_generated_key),
    ("spoken-key", _KEY_BLANK_RE, ("licen", "product", "activation", "serial", "recovery", "backup"),
     _accept_grouped_key),  # fmt: skip
    ("seed-phrase", _SEED_RE, ("seed", "phrase", "words", "mnemonic", "-word"), None),
    ("login-pair", _PAIR_RE, ("login", "log-in", "sign-in", "cred", "admin", "user"), _accept_pair),
    ("login-pair", _ADDRESS_PAIR_RE, ("@",), _accept_pair),
    ("security-answer", _ANSWER_RE, ("maiden", "pet", "security"), None),
)


def spoken_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Secrets said in a sentence (see the module's docstring). A form runs only on a text that holds one
    of its label words, so ordinary text pays a few substring tests."""
    folded = text.lower()
    for rule, pattern, needles, accept in _FORMS:
        if not any(n in folded for n in needles):
            continue
        for match in pattern.finditer(text):
            start, end = _span(match)
            if end > start and (accept is None or accept(text[start:end])):
                yield rule, start, end
