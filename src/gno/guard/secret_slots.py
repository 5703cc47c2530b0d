"""Credential slots: a value is a secret because a credential word names the slot it fills.

Why a second keyword rule: the assignment and label rules judge a value by its shape as well as by its key,
so a hex string or a UUID after ``api_key =`` is taken for a digest and kept. Provider keys come in every
shape (hex, UUIDs, dashed groups, plain digits), and a provider's name glued to the credential word
(``tomtom_key=…``, ``weatherbitACCESS …``, ``newsapi KEY …``, ``podioToken …``, ``dd-apikey-…``) says more
about the value than its shape does. Here the slot decides: when the credential word ends a compound key
(``<vendor>_key``, ``<vendor>Token``, ``<VENDOR>_SECRET_KEY``), is upper case (``KEY``) or is a strong word on
its own (``token``, ``secret``, ``password``, ``apikey``), any token-shaped value in it is redacted, whatever
its alphabet. What keeps notes intact: a compound that names a non-secret key (``cache_key``, ``sort_key``,
``public_key``, ``partition_key``), an id or digest after the word (``key_id``, ``token_hash`` never reach a
separator), a bare weak word in lower case (``key``, ``access``, ``private``, ``auth``, ``pass`` alone, as in a
JSON ``"key"`` field or in prose), words joined into a name (``token_file_exits``), URLs and paths, public
``0x`` addresses, template placeholders (``<token>``, ``${API_KEY}``, ``YOUR_KEY``, ``xxxx``) and values that
read as words or file names.

The other vendor mark lives here too: a short prefix glued to the token itself (``tvly-…``, ``sk_…``,
``bkua_…``) rather than a label before it; a long body mixing letters and digits after such a prefix is a token
unless the prefix names a digest or an id (``sha256-…``, ``commit_…``) or the token ends in a file extension.

Every pattern is a bounded alternation without nested repetition, the value is matched possessively and the
look-back is bounded; the detector runs over the redactor's bounded windows, so its cost stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gno.guard.secret_context import bound_to_id
from gno.guard.secret_values import (
    CONSTANT_NAME_RE,
    ID_KEY_RE,
    decodes_to_words,
    has_base62_mix,
    is_placeholder,
    shannon_entropy,
    typed_in_order,
    wordiness,
)

_WORDS = r"api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|keys?|tokens?|secrets?|passwords?"
_WORDS += r"|passwd|pwd|pass|access|private|auth|credentials?|pat"
_SLOT_RE = re.compile(
    rf"(?P<label>(?i:{_WORDS}))"
    r"(?P<more>(?:[_.-]?(?i:key|token|secret|access|private|code))?)"
    r"(?P<sep>['\"]?[^\S\n]*(?::=|=>|[:=])[^\S\n]*|[^\S\n]+|[-_])"
    r"['\"`]?(?P<v>[A-Za-z0-9][A-Za-z0-9+/_.~-]{7,199}+(?::[A-Za-z0-9+/_.~-]{8,199}+)?={0,2}+)(?![A-Za-z0-9+/_.=~-])"
)
# Credential words that name a secret on their own; the others do only as the last word of a compound.
_STRONG = frozenset(
    "apikey api_key api-key access_key access-key accesskey secret_key secret-key secretkey private_key"
    " private-key privatekey token tokens secret secrets password passwords passwd pwd credential credentials".split()
)
# The compound names a key that is not a credential (``cache_key``, ``publicKey``, ``s3_key``).
_NOT_SECRET = frozenset(
    "cache sort primary partition foreign public publishable idempotency object s3 lookup row map routing shard"
    " index unique composite natural surrogate dedup group hot short dict hash sign next page cursor event message"
    " translation i18n locale list item menu css style storage redis entry label field".split()
)
_PARTS_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_MAX_PREFIX = 40
_MAX_RUN = 200
_RUN_STOPS = (" ", "\t", "\n", "\r", "'", '"', "`", "(", "<", "[")
_FILE_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}$")
_DIGIT_RE = re.compile(r"\d")
_UPPER_RE = re.compile(r"[A-Z]")
_LOWER_RE = re.compile(r"[a-z]")
_MIN_DIGITS_ONLY = 16
_MIN_ONE_RUN = 20
_PART_SPLIT_RE = re.compile(r"[-_./+~=]")
_WORD_PART_RE = re.compile(r"^[a-z]{3,}$|^[A-Z][a-z]{2,}$")
_WORD_PARTS = 3  # shorter runs of digits are numbers: ports, dates, counts, phone numbers


def _prefix(text: str, start: int) -> str:
    """The key characters glued to the left of the credential word (``tomtom_`` in ``tomtom_key``)."""
    begin = start
    while begin > 0 and start - begin < _MAX_PREFIX and text[begin - 1] in _PREFIX_CHARS:
        begin -= 1
    return text[begin:start]


def _in_url_or_path(text: str, start: int) -> bool:
    """The word stands in a URL or a path (``/t/level-1-access-your-…``): a slug, not a slot."""
    low = max(0, start - _MAX_RUN)
    run_start = max(text.rfind(stop, low, start) for stop in _RUN_STOPS) + 1
    return "/" in text[max(run_start, low) : start]


def _glued(prefix: str, label: str) -> bool:
    """The word closes a compound: ``tomtom_key``, ``dd-apikey``, ``podioToken``, ``weatherbitACCESS``; a
    lower-case word inside a lower-case word (``monkey``, ``bypass``) is no compound."""
    if not prefix:
        return False
    if prefix[-1] in "_.-":
        return True
    return label[0].isupper() and (prefix[-1].islower() or prefix[-1].isdigit())


def _names_no_credential(prefix: str) -> bool:
    """The compound's last word before the credential word names another kind of key (``cache_``, ``sort``)."""
    parts = _PARTS_RE.findall(prefix)
    return bool(parts) and parts[-1].lower() in _NOT_SECRET


def _token_shaped(value: str) -> bool:
    if len(value) < 8 or is_placeholder(value) or CONSTANT_NAME_RE.match(value) or _FILE_RE.search(value):
        return False
    if value.count("/") > 1 or len(set(value.lower())) < 5 or decodes_to_words(value):
        return False
    if value.isdigit():
        return len(value) >= _MIN_DIGITS_ONLY
    if value[:2].lower() == "0x":
        return False  # contract and wallet addresses are public
    if sum(1 for part in _PART_SPLIT_RE.split(value) if _WORD_PART_RE.match(part)) >= _WORD_PARTS:
        return False  # ``your-home-network-using-twingate``: a slug of words
    if _DIGIT_RE.search(value):
        return True  # letters and digits mixed: generated, even when runs of letters look like syllables
    if len(value) >= _MIN_ONE_RUN and value.isalpha() and (value.islower() or value.isupper()):
        return True  # one unbroken run of letters in one case is no name (names have parts) but a key
    mixed = bool(_UPPER_RE.search(value)) and bool(_LOWER_RE.search(value))
    return len(value) >= 16 and mixed and wordiness(value) < 0.5


def slot_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """``<vendor>_key = <value>``, ``<vendor>Token <value>``, ``token: <value>``: the value, whatever its
    alphabet, when a credential word names its slot."""
    for match in _SLOT_RE.finditer(text):
        label = match.group("label")
        prefix = _prefix(text, match.start())
        glued = _glued(prefix, label)
        if prefix and not glued:
            continue  # inside a word
        if _in_url_or_path(text, match.start()):
            continue
        word = (label + match.group("more")).lower()
        if not glued and word not in _STRONG and not label.isupper():
            continue  # a bare ``key``/``access``/``auth``: a JSON field, a cache key, prose
        if glued and (_names_no_credential(prefix) or ID_KEY_RE.search(prefix)):
            continue
        value = match.group("v").rstrip(".=")
        if match.group("sep") in "-_" and any(_WORD_PART_RE.match(p) for p in _PART_SPLIT_RE.split(value)):
            continue  # ``token-based``, ``token_file_exits_1``: words joined into a name, not a slot and its value
        if _token_shaped(value):
            yield "credential-slot", match.start("v"), match.start("v") + len(value)


# A vendor prefix, then a long generated body (``tvly-…``, ``odt_…``, ``hvs.…``, ``live_<id>_…``): the shape most
# provider tokens share, whatever the provider. Not inside a URL or path, not bound to an id key (``Invoice ID:
# in_0KVn…``), and the body must mix cases and digits, read as random and not as words. A base64url body may
# carry ``-`` and ``_`` after its first 20 characters (``ya29.A0Ar…_HH0_tn5g…``), and a vendor's name may be long
# (``signupgeniusPRIVATE.<hex>``); neither of these wider shapes takes a sample typed in order.
_PREFIXED_RE = re.compile(
    r"(?<![A-Za-z0-9_.\-/=?&#%+@:])(?P<prefix>(?:[A-Za-z][A-Za-z0-9]{1,23}[-_.]){1,3})"
    r"(?P<body>[A-Za-z0-9]{20,200}(?:[-_][A-Za-z0-9]+){0,12})"
    r"(?![A-Za-z0-9_\-/])"
)


_JOINED_RE = re.compile(r"[-_]")
_LONG_PART_RE = re.compile(r"[A-Za-z0-9]{13}")


def prefixed_token_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _PREFIXED_RE.finditer(text):
        body = match.group("body")
        if not (_generated_body(body) or _lowercase_token(match.group(), body)):
            continue
        if (_JOINED_RE.search(body) or _LONG_PART_RE.search(match.group("prefix"))) and typed_in_order(body):
            continue  # a sample typed in order, joined like a base64url body (``…xyZ1234567890_ABCDEF``)
        if _FILE_AFTER_RE.match(text, match.end()):
            continue  # ``chunk-5f3a….js``: a hashed file name
        if bound_to_id(text, match.start()):
            continue
        yield "prefixed-token", match.start(), match.end()


def _generated_body(body: str) -> bool:
    return has_base62_mix(body) and shannon_entropy(body) >= 3.8 and wordiness(body) < 0.3


# A single-case body is a token too (``sk_1234…abcdef``, ``bkua_…``) when it is long, mixes letters and digits and
# its prefix is short and names no digest or id (``sha256_…``, ``commit-…``, ``blob_…`` hold hashes).
_DIGEST_WORD_RE = re.compile(
    r"(?i)^(?:sha\d*|md5|hash|digest|commit|blob|tree|rev|git|id|uuid|guid|obj|etag|v\d*)[-_.]"
)
_LOWERCASE_BODY_MIN = 24
_FILE_AFTER_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}\b")


def _lowercase_token(token: str, body: str) -> bool:
    if len(body) < _LOWERCASE_BODY_MIN or _DIGEST_WORD_RE.match(token) or body.isdigit() or body.isalpha():
        return False
    return len(set(body)) >= 8 and shannon_entropy(body) >= 3.0


# ``os.environ.get("DJANGO_SECRET_KEY", "<value>")``, ``getenv('API_TOKEN', '…')``, ``ENV.fetch("DB_PASSWORD", …)``:
# the fallback of a variable that names a secret is that secret, written into the code.
_ENV_DEFAULT_RE = re.compile(
    r"(?<![A-Za-z0-9_])(?:getenv|environ\.get|env\.get|ENV\.fetch|env)\(\s*['\"](?P<name>[A-Za-z0-9_.-]{1,80})['\"]\s*,\s*"
    r"['\"](?P<v>[^'\"\s]{8,200})['\"]"
)
_SECRET_NAME_RE = re.compile(rf"(?i)(?:^|[_.-])(?:{_WORDS})(?:[_.-]?(?:key|token|secret))?$")


def env_default_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _ENV_DEFAULT_RE.finditer(text):
        name, value = match.group("name"), match.group("v")
        if not _SECRET_NAME_RE.search(name) or ID_KEY_RE.search(name) or not _token_shaped(value):
            continue
        yield "credential-slot", match.start("v"), match.end("v")
