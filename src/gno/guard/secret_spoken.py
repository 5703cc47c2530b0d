"""Secrets said in a sentence: what a memory holds ("the password for the office wifi is BlueSky2024").

Why: the scanner rules know config lines and provider tokens, and the context rules want a key next to its
value. A memory is written in prose: "La password della mail di lavoro è Pizzeria#2019", "Seed phrase for
the hardware wallet: ribbon garden …", "router admin -> admin / Zebra#Stripes9", "enter the passphrase
(stonefruit_42_mirror)", a table with a Password column. Each form is a *label* that names a secret, what
it is for, a *connector* (`gno.guard.secret_phrasing`) and a value of the *shape* that label's secrets
have. The shape is what keeps ordinary talk intact: a password is never a plain word ("the password is
stored in the vault"), a key is grouped or generated, a seed phrase is twelve to twenty-four lower-case
words, a security answer follows its question. Codes (PINs, lock codes) are `gno.guard.secret_codes`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from gno.guard.secret_phrasing import CONNECT, FOR, LATER, VALUE, B, Form, O, run_forms
from gno.guard.secret_values import has_symbol, is_placeholder, looks_random, wordiness

_PASSWORD = (
    rf"(?:pass(?:word|phrase|code)s?|pass{B}phrase|pass(?={O}[:=])|passwd|passwort|kennwort|contrase[ñn]a|clave"
    rf"|wachtwoord|lösenord(?:et)?|passord|adgangskode|salasana|has[łl]o|heslo|mot{B}de{B}passe|senha|pwd|pw|psk"
    rf"|(?:pre-?shared|shared|encryption|wi-?fi|wlan|wpa2?|network){B}(?:key|secret)|shared{B}secret"
    rf"|auth(?:entication)?{B}(?:string|secret))"
)
_KEY = (
    rf"(?:licen[cs]e(?:{B}key)?|product{B}key|activation{B}(?:code|key)|serial(?:{B}(?:number|key))?"
    rf"|(?:recovery|backup){B}(?:codes?|keys?))"
)
#: a quoted passphrase may hold blanks: "passphrase: 'purple giraffe eats cold pizza at noon'"
_QUOTED = r"['\"`“‘](?P<pv>[A-Za-z0-9][A-Za-z0-9 '’-]{3,80}?)['\"`”’]"  # words, not code

_PASSWORD_RE = re.compile(rf"(?i:\b{_PASSWORD}){FOR}(?i:{CONNECT})(?:{_QUOTED}|{VALUE})")
#: "enter the passphrase (stonefruit_42_mirror)": in brackets only a typed password ("password (MD5)" and
#: "(_right!?_)" are remarks)
_BRACKETED_RE = re.compile(rf"(?i:\b{_PASSWORD}){O}\({O}(?P<v>[^\s()]{{4,100}})\)")
#: "password Summer2024!", "user admin, pass Kx7#pLm2Qz": after a blank alone only a typed password
_PASSWORD_BLANK_RE = re.compile(
    rf"(?i:\b{_PASSWORD})(?:{O}\([^)\n]{{1,40}}\))?{B}(?:{_QUOTED}|{VALUE})|(?i:\bpass){B}(?P<dv>[^\s'\"`”’]{{4,100}})"
)
#: "new laptop login → Brindle&Moss77": a login's value counts only with letters, digits and a symbol (a
#: user name has no symbol); "🔑 Tamarind#09", "🔐 bank app: 660138"
_LOGIN_RE = re.compile(
    rf"(?:(?i:\blog(?:-|{O})?in){FOR}(?i:{CONNECT})|[🔑🔐](?:{O}[\w .'’-]{{1,30}}:)?{O}){VALUE}"
)
#: "The password for the shared drive changed; it is now Ferrous_Owl_8", "pw for wp-admin? its Oriole88":
#: the value after "it is now" / "the new one is" / "its", the label earlier on the line
_LATER_RE = re.compile(
    rf"(?i:\b(?:{_PASSWORD}|pass)\b[^\n]{{0,80}}?\b{LATER}){B}{VALUE}"
)
#: "u: jbrooks p: Cardamom!82", "curl -u admin:Halyard#77", "db root: Ql7!mvB3sT"
_SHORT_PAIR_RE = re.compile(
    rf"(?i:\bu(?:ser)?:{O}[\w.@+-]+[,;]?{B}p(?:w|wd|ass)?:){O}(?P<v>[^\s'\"]{{4,100}})"
    rf"|(?:^|(?<=\s))-u{B}[\w.@+-]+:(?P<dv>[^\s'\"]{{4,100}})"
    rf"|(?i:\b(?:root|admin)){O}:{B}(?P<pv>[^\s'\"]{{6,100}})"
)
#: "API key for the mapping service is c92e4b7a…", "API key for weather svc 7d3f0a9b…", "webhook signing
#: secret for the staging endpoint is 3e8b…": a key's label, what it is for, then a generated value
_API_KEY_RE = re.compile(
    rf"(?<![?&/=.])(?i:\b(?:api{B}key|access{B}key|(?:signing|webhook|client|app){B}secret|token|secret{B}key)){FOR}"
    rf"(?i:{CONNECT}|{B})['\"`]?(?!0x)(?P<v>(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{{16,100}})(?![\w-])"
)
#: "mysqldump -u backup -p'Ty7#kW3nQ'", "--password=…": a command line's password flag
_FLAG_RE = re.compile(r"(?:^|(?<=\s))(?:-p|--password[= ])['\"]?(?P<v>[^\s'\"]{4,100})")
#: "SSID Riverside / key W@terfall22": a network named, then its key
_NETWORK_RE = re.compile(
    rf"(?i:\b(?:ssid|network|wi-?fi|wlan))\b[^\n/]{{0,40}}?{B}/{B}(?i:key|pass(?:word)?|pw|pwd)(?:{CONNECT}|{B}){VALUE}"
)
#: "Zebra#Stripes9 is the router password", "use W@terfall2022 as the wifi key": the label ends its
#: phrase ("as the password hash" names an algorithm, not a password)
_NAMED_AFTER_RE = re.compile(
    rf"(?:^|(?<=[\s(\"'`]))(?P<v>[^\s'\"`]{{6,100}}?)['\"`]?{B}(?i:is|was|as){B}(?i:(?:the|my|our|his|her|their)"
    rf"{B})?(?:[\w-]+{B}){{0,3}}(?i:{_PASSWORD})(?={O}(?:[.,;:!?)]|$)|{B}(?i:for|of|on|to|at)\b)"
)
_KEY_RE = re.compile(rf"(?i:\b{_KEY}){FOR}(?i:{CONNECT})(?:(?P<dv>\d{{3,6}}[- ]\d{{3,6}})(?![\w-])|{VALUE})")
_KEY_BLANK_RE = re.compile(rf"(?i:\b{_KEY}){B}{VALUE}")  # "activation code 4HTR9-PLM2Q-…": groups or digits only
_SEED_RE = re.compile(
    rf"(?i:\b(?:seed|recovery|mnemonic|backup|secret|wallet){B}(?:phrase|words)|\b(?:12|24)-word{B}\w+"
    rf"|\bmnemonic|\b(?:wallet{B})?seed(?={O}[:(])){FOR}(?i:{CONNECT})['\"`“]?"
    rf"(?P<v>[a-z]{{3,8}}(?:{B}[a-z]{{3,8}}){{11,23}})(?!{O}[a-z])"
)
#: "router admin -> admin / Zebra#Stripes9", "credentials: bob / Hunter22!", "creds … are root:Vx4mL9qT2w",
#: "grafana admin / Owl-Stream-6640": a login label, a connector, the user name and " / " or ":" (not
#: "User research / Q3-2024")
_PAIR_RE = re.compile(
    rf"(?i:\b(?:login|log-in|sign-in|credentials?|creds|admin|username|user)){FOR}(?i:{CONNECT})"
    rf"[\w.@+-]+(?:{B}/{B}|:)(?P<v>[^\s/]{{6,100}})"
    rf"|(?i:\b(?:admin|administrator|root)){B}/{B}(?P<dv>[^\s/]{{6,100}})"
)
#: "alice@example.com / Qwerty!2345", "alice@example.com:Qwerty!2345": an address and what opens it (the
#: slash between blanks, so a URL or a path is never a pair; never an address inside a URL)
_ADDRESS_PAIR_RE = re.compile(
    rf"(?<![\w.+/:-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?:{B}/{B}|:)(?P<v>[^\s/]{{6,100}})(?=\s|$|[.,;)])"
)
#: "mother's maiden name: Fitzgerald", "security question (first pet) - the answer is Biscuit", "answer to
#: 'city where you were born' … is Tromsdal"; the question itself is not the secret ("the security
#: question is Where were you born")
_ANSWER_RE = re.compile(
    rf"(?i:\b(?:(?:maiden{B}name|pet['’]?s?{B}name)[^\n.]{{0,40}}?(?::|\bis)"
    rf"|security{B}(?:question|answer)[^\n.]{{0,60}}?answer(?:{O}:|{B}is)|security{B}answer{O}:"
    rf"|answer{B}to{B}(?:[^\n.'\"‘“]{{0,30}}['\"‘“][^\n'\"’”]{{3,60}}['\"’”]|[^\n.]{{0,40}}?security{B}question)"
    rf"[^\n.]{{0,60}}?(?::|\bis)|(?:security{B}answer|sec{B}q\b)[^\n.]{{0,60}}?(?::|=|->|\bis)"
    rf"|security{B}question[^\n.]{{0,40}}?:[^\n.]{{1,40}}?(?:=|->|:)){B})['\"`]?(?P<v>[A-Z][\w'’-]+(?:{B}[A-Z][\w'’-]+)?)"
)
_GROUPED_RE = re.compile(r"[A-Za-z0-9]{3,8}(?:-[A-Za-z0-9]{3,8}){2,}")
_DIGIT_GROUPS_RE = re.compile(r"\d{4,8}(?:-\d{4,8}){2,}")  # "418253-092114-660781-…": a BitLocker key
#: a markdown table's header row naming a secret column ("| Service | User | Password |")
_TABLE_SECRET_HEAD_RE = re.compile(rf"(?i)^\s*(?:{_PASSWORD}|pin|passcode|secret|token|api{O}key)\s*$")


def _password_like(value: str) -> bool:
    """A chosen password, not a word: letters with digits or symbols, an inner capital, or three or more
    words joined by hyphens ("purple-lantern-river")."""
    if is_placeholder(value) or value.startswith(("http", "www.")):
        return False
    if value.rstrip("?!").isalpha() and not any(c.isupper() for c in value[1:]):
        return False  # "pw is wrong?", "Password!": a word and its punctuation
    has_alpha = any(c.isalpha() for c in value)
    if has_alpha and (any(c.isdigit() for c in value) or has_symbol(value)):
        return True
    parts = value.split("-")
    if len(parts) >= 3 and all(p.isalpha() for p in parts):
        return True
    return len(value) >= 8 and value.isalpha() and any(c.isupper() for c in value[1:]) and not value.isupper()


def _key_like(value: str, *, generated: bool = True) -> bool:
    """A key or code of groups ("BX9Q-2LKM-P7TR", "qv7m-2kx9-ht4p") with digits, digit groups or six or
    more digits (a recovery code), or, after "is" or ":" (`generated`), a long generated-looking one."""
    if value.isdigit():
        return 6 <= len(value) <= 12
    if re.fullmatch(r"\d{3,6}[- ]\d{3,6}", value) or _DIGIT_GROUPS_RE.fullmatch(value):
        return True
    if _GROUPED_RE.fullmatch(value):
        return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    # a generated key, not a licence's name ("Apache-2.0", "GPL-3.0-or-later"), and only after "is" or ":"
    return generated and looks_random(value, 12) and wordiness(value) < 0.5 and value[:1].isalnum()


def _accept_password(value: str) -> bool:
    """A password's shape; a value with blanks comes only quoted ("password is 'tulips in april'")."""
    if " " in value:
        return len(value) >= 8 and not is_placeholder(value) and len(value.split()) <= 8
    return _password_like(value)


def _typed_password(value: str) -> bool:
    """After a blank alone ("password Summer2024!"): letters and digits, at least eight characters, or
    letters, digits and a symbol."""
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    return not is_placeholder(value) and has_alpha and has_digit and (len(value) >= 8 or has_symbol(value))


def _blank_password(value: str) -> bool:
    """After a blank alone: a typed password, or a quoted passphrase ("wifi pw 'blue kettle forty'")."""
    return _accept_password(value) if " " in value else _typed_password(value)


def _symbolic_password(value: str) -> bool:
    """Letters, digits and a symbol other than an address's: what a user name never is; or a PIN's digits."""
    if value.isdigit():
        return 4 <= len(value) <= 8
    return _typed_password(value) and has_symbol(value.replace("@", "")) and "://" not in value


def _generated(value: str) -> bool:
    """A generated key: 16 or more characters of hex with letters and digits, or a random-looking token."""
    hexed = re.fullmatch(r"[0-9a-fA-F]{16,}", value) is not None
    mixed = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    if is_placeholder(value) or value.lower().startswith("0x"):  # a contract or wallet address is public
        return False
    return (hexed and mixed) or (looks_random(value, 16) and wordiness(value) < 0.5)


def _accept_pair(value: str) -> bool:
    return _password_like(value) and "@" not in value and "://" not in value


_PASSWORD_NEEDLES = ("pass", "pw", "psk", "kennwort", "contrase", "clave", "mot de", "senha", "key", "secret",
                     "wachtwoord", "lösenord", "adgangskode", "salasana", "hasło", "haslo", "heslo",
                     "auth")  # fmt: skip
_KEY_NEEDLES = ("licen", "product", "activation", "serial", "recovery", "backup")
_FORMS: tuple[Form, ...] = (
    ("spoken-password", _PASSWORD_RE, _PASSWORD_NEEDLES, _accept_password),
    ("spoken-password", _NAMED_AFTER_RE, _PASSWORD_NEEDLES, _accept_password),
    ("spoken-password", _PASSWORD_BLANK_RE, _PASSWORD_NEEDLES, _blank_password),
    ("spoken-password", _BRACKETED_RE, _PASSWORD_NEEDLES, _typed_password),
    ("spoken-password", _LOGIN_RE, ("login", "log-in", "log in", "🔑", "🔐"), _symbolic_password),
    ("spoken-password", _LATER_RE, _PASSWORD_NEEDLES, _accept_password),
    ("login-pair", _SHORT_PAIR_RE, ("u:", "user:", "-u", "root", "admin"), _symbolic_password),
    ("spoken-key", _API_KEY_RE, ("key", "secret", "token"), _generated),
    ("spoken-password", _FLAG_RE, ("-p", "--password"), _typed_password),
    ("spoken-password", _NETWORK_RE, ("ssid", "network", "wifi", "wi-fi", "wlan"), _accept_password),
    ("spoken-key", _KEY_RE, _KEY_NEEDLES, partial(_key_like, generated=True)),
    ("spoken-key", _KEY_BLANK_RE, _KEY_NEEDLES, partial(_key_like, generated=False)),
    ("seed-phrase", _SEED_RE, ("seed", "phrase", "words", "mnemonic", "-word"), None),
    ("login-pair", _PAIR_RE, ("login", "log-in", "sign-in", "cred", "admin", "user", "root"), _accept_pair),
    ("login-pair", _ADDRESS_PAIR_RE, ("@",), _accept_pair),
    ("security-answer", _ANSWER_RE, ("maiden", "pet", "security", "answer"), None),
)


def _table_cells(text: str) -> Iterator[tuple[str, int, int]]:
    """The cells under a markdown table header that names a secret ("| Service | User | Password |"): a
    typed password or a PIN's digits, never a cell of words ("| password 1 |")."""
    if "|" not in text:
        return
    column: int | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if not stripped.startswith("|"):
            column = None
        else:
            cells = stripped.strip("|").split("|")
            if column is None:
                heads = [i for i, c in enumerate(cells) if _TABLE_SECRET_HEAD_RE.match(c)]
                column = heads[0] if heads else None
            elif not set(stripped) <= set("|-: ") and column < len(cells):
                value = cells[column].strip()
                typed = _typed_password(value) or (value.isdigit() and 4 <= len(value) <= 8)
                if value and " " not in value and typed:
                    start = line.index(value, line.index("|") + sum(len(c) + 1 for c in cells[:column]))
                    yield "spoken-password", offset + start, offset + start + len(value)
        offset += len(line)


def spoken_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Secrets said in a sentence or a table (see the module's docstring)."""
    yield from run_forms(text, _FORMS)
    yield from _table_cells(text)
