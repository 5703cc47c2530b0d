"""Bare tokens: a long generated string standing alone as a word is a credential, whoever issued it.

Why: the vendor rules know the shapes their vendors publish, and the context rules need a key, a label or
quotes. A note or a chat turn often pastes a token with only its vendor's name before it (``skrapp`` and
42 random letters and digits), in a shape no rule file carries. Such a string reads as generated:
`MIN_LENGTH` characters or more of one word, upper and lower case and digits mixed, and at least
`MIN_ENTROPY` bits per character (detect-secrets' base64 limit is 4.5 for quoted strings; a bare token
must stand as a whole word, which a prose word or identifier of that length and mix rarely is).

What keeps notes intact: only a whole word counts (a token inside a URL, a path or an assignment is left to
the rules that see its key), never hex (digests, mixed-case ``0x`` addresses: hex stays below the entropy
floor anyway), placeholders, base64 of plain words, word-like names (``CamelCaseIdentifiersLikeThis2``) or
a value bound to a key that names an id (``invoice_id: in_0KVn…``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gno.guard.secret_context import bound_to_id
from gno.guard.secret_values import HEX_RE, decodes_to_words, has_base62_mix, is_placeholder, shannon_entropy, wordiness

MIN_LENGTH = 24
MIN_ENTROPY = 4.3
#: a word of token characters between blanks, quotes or brackets (never after ``/``, ``=``, ``.`` or ``:``)
_BARE_RE = re.compile(
    rf"(?:^|(?<=[\s\"'`(\[<]))([A-Za-z0-9_-]{{{MIN_LENGTH},200}})(?=$|[\s\"'`)\]>.,;:!?])", re.MULTILINE
)


def bare_token_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Standalone generated-looking tokens (see the module's docstring)."""
    for match in _BARE_RE.finditer(text):
        value = match.group(1)
        if not has_base62_mix(value) or HEX_RE.match(value) or value.lower().startswith("0x"):
            continue
        if shannon_entropy(value) < MIN_ENTROPY or wordiness(value) >= 0.45:
            continue
        if is_placeholder(value) or decodes_to_words(value) or bound_to_id(text, match.start(1)):
            continue
        yield "bare-token", match.start(1), match.end(1)
