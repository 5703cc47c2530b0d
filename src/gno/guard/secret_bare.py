"""Bare tokens: a long generated string standing alone as a word is a credential, whoever issued it.

Why: the vendor rules know the shapes their vendors publish, and the context rules need a key, a label or
quotes. A note or a chat turn often pastes a token with only its vendor's name before it (``skrapp`` and
42 random letters and digits), in a shape no rule file carries. Such a string reads as generated:
`MIN_LENGTH` characters or more of one word, upper and lower case and digits mixed, and at least
`MIN_ENTROPY` bits per character (detect-secrets' base64 limit is 4.5 for quoted strings; a bare token
must stand as a whole word, which a prose word or identifier of that length and mix rarely is).

A token of one case of letters with digits (base32 access tokens, ``oy2…`` package keys) is generated too
when it is longer (`SINGLE_CASE_LENGTH`) and not a bech32 address or public key, a host name's label, a run
typed in order (``a1b2c3…``) or words.

What keeps notes intact: only a whole word counts (a token inside a URL, a path or an assignment is left to
the rules that see its key), never hex (digests, mixed-case ``0x`` addresses: hex stays below the entropy
floor anyway), placeholders, base64 of plain words, word-like names (``CamelCaseIdentifiersLikeThis2``) or
a value bound to a key that names an id (``invoice_id: in_0KVn…``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gno.guard.secret_context import bound_to_id
from gno.guard.secret_values import (
    HEX_RE,
    decodes_to_words,
    has_base62_mix,
    is_placeholder,
    shannon_entropy,
    typed_in_order,
    wordiness,
)

MIN_LENGTH = 24
MIN_ENTROPY = 4.3
#: one case of letters with digits (``oy2e…``, a 52-character base32 access token) carries less entropy per
#: character than a base62 mix, so it must be longer and may sit a little lower
SINGLE_CASE_LENGTH = 32
SINGLE_CASE_ENTROPY = 4.0
#: a bech32 string (``bc1q…``, ``age1…``): an address or a public key, published on purpose
_BECH32_RE = re.compile(r"^[a-z]{1,12}1[02-9ac-hj-np-z]{20,}$")
#: a label followed by a dot and a word is a host name (``<56 base32>.onion``), not a token
_HOST_NEXT_RE = re.compile(r"\.[A-Za-z]")
#: a word of token characters between blanks, quotes or brackets (never after ``/``, ``=``, ``.`` or ``:``)
_BARE_RE = re.compile(
    rf"(?:^|(?<=[\s\"'`(\[<]))([A-Za-z0-9_-]{{{MIN_LENGTH},200}})(?=$|[\s\"'`)\]>.,;:!?])", re.MULTILINE
)


def bare_token_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Standalone generated-looking tokens (see the module's docstring)."""
    for match in _BARE_RE.finditer(text):
        value = match.group(1)
        if HEX_RE.match(value) or value.lower().startswith("0x"):
            continue
        if has_base62_mix(value):
            if shannon_entropy(value) < MIN_ENTROPY or wordiness(value) >= 0.45:
                continue
        elif not _single_case(value) or _HOST_NEXT_RE.match(text, match.end(1)):
            continue
        if is_placeholder(value) or decodes_to_words(value) or bound_to_id(text, match.start(1)):
            continue
        yield "bare-token", match.start(1), match.end(1)


def _single_case(value: str) -> bool:
    """Letters of one case and digits, long and spread enough to be generated (see `SINGLE_CASE_LENGTH`)."""
    if len(value) < SINGLE_CASE_LENGTH or not value.isalnum() or not (value.islower() or value.isupper()):
        return False
    if value.isalpha() or value.isdigit() or _BECH32_RE.match(value.lower()):
        return False
    unworded = wordiness(value) < 0.3 or _vowel_share(value) < 0.3
    return shannon_entropy(value) >= SINGLE_CASE_ENTROPY and unworded and not typed_in_order(value)


def _vowel_share(value: str) -> float:
    """Vowels among the letters: about 0.2 for generated letters, near 0.4 for words run together. One case of
    letters forms long runs by chance (base32: `wordiness` calls them words), so a scarcity of vowels says the
    run is generated."""
    letters = [c for c in value.lower() if c.isalpha()]
    return sum(1 for c in letters if c in "aeiou") / max(len(letters), 1)
