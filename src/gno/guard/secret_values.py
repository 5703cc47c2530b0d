"""Value heuristics shared by the secret rules: does a string read like a generated secret?

Why separate: the format rules, the detect-secrets adapter and the context rules all need the same
answers (is this a placeholder, an identifier, a digest, or random?), and they must agree, or the same
value would be redacted by one rule and spared by another.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

_PLACEHOLDER_RE = re.compile(
    r"""(?ix)^(?:
        <[^>]*> | \$\{?[\w.:-]*\}? | \{\{.*\}\} | \{[\w.-]*\} | %\(?\w*\)?[sd]? | \[[^\]]*\]
        | [*x.?#_-]+ | null | none | nil | true | false | undefined | required | optional
        | string | str | int | integer | bool | boolean | number | empty | secret | password | passwd
        | pass | pwd | token | redacted | hidden | masked | changeme | change[_-]?me | example\w*
        | placeholder | dummy | your[_-]?\w* | my[_-]?(?:password|secret|token|key) | env | environ
        | process\.env\S* | os\.environ\S* | getenv\S* | keyring\S* | vault\S* | input | prompt
        | htpasswd | basic | bearer | digest | oauth2? | ntlm | kerberos | saml | ldap | jwt | hmac | plain
        | (?:[~.]{0,2}/|[a-z]:\\)[\w./\\-]*
        | [\w.-]+\.(?:pem|key|crt|cer|der|p12|pfx|jks|json|ya?ml|txt|conf|cfg|ini|env)
    )$""",
)
_DOTTED_IDENT_RE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
HEX_RE = re.compile(r"^[0-9a-fA-F-]+$")
_WORDY_RE = re.compile(r"[A-Z]?[a-z]{4,}")
_SYMBOL_RE = re.compile(r"[!@#$%^&*+=?~|<>]")
CONSTANT_NAME_RE = re.compile(r"^[A-Z]+(?:_[A-Z]+)+$")
# Names whose values are identifiers or digests, not secrets (``invoice_id``, ``invoiceId``, ``sha``).
ID_KEY_RE = re.compile(
    r"(?:^|[^A-Za-z0-9]|(?<=[a-z0-9])(?=[A-Z]))"
    r"(?i:id|ids|uuid|guid|hash|sha\d*|digest|checksum|address|addr|nonce|etag|version|commit|ref|slug|url|uri|accept"
    r"|path)['\"]?$"
)


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` measured over its own alphabet."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def is_placeholder(value: str) -> bool:
    stripped = value.strip()
    return (
        not stripped
        or bool(_PLACEHOLDER_RE.match(stripped))
        or (bool(_DOTTED_IDENT_RE.match(stripped)) and not any(looks_random(p) for p in stripped.split(".")))
        or "(" in stripped
        or stripped.startswith("[REDACTED:")
    )


def typed_in_order(value: str) -> bool:
    """A run typed in order (``abcdefgh…``, ``1234567890…``, ``a1b2c3d4…``, ``9876543210…``): a sample value
    written to fill a slot, not a generated one. Half the neighbours (or neighbours but one) step by one."""
    codes = [ord(c) for c in value.lower()]
    if len(codes) < 8:
        return False
    for step in (1, 2):
        pairs = len(codes) - step
        if sum(1 for a, b in zip(codes, codes[step:], strict=False) if abs(b - a) == 1) >= pairs / 2:
            return True
    return False


def wordiness(value: str) -> float:
    """Share of characters that sit inside word-like runs (``Account``, ``settings``)."""
    covered = sum(len(m.group()) for m in _WORDY_RE.finditer(value))
    return covered / max(len(value), 1)


_DIGIT_RE = re.compile(r"\d")
_ALPHA_RE = re.compile(r"[^\W\d_]")
_UPPER_RE = re.compile(r"[A-Z]")
_LOWER_RE = re.compile(r"[a-z]")


def has_symbol(value: str) -> bool:
    """A character of `_SYMBOL_RE`: what a chosen password holds and a word or an identifier does not."""
    return _SYMBOL_RE.search(value) is not None


def looks_random(value: str, min_len: int = 8) -> bool:
    """A value that reads like a generated secret rather than a word or an identifier."""
    if len(value) < min_len or value.isdigit():
        return False
    has_digit = _DIGIT_RE.search(value) is not None
    has_alpha = _ALPHA_RE.search(value) is not None
    if has_digit and has_alpha:
        return True
    if _SYMBOL_RE.search(value) and has_alpha:
        return True
    mixed = _UPPER_RE.search(value) is not None and _LOWER_RE.search(value) is not None
    return mixed and len(value) >= 16 and wordiness(value) < 0.5 and shannon_entropy(value) >= 3.8


def has_base62_mix(value: str) -> bool:
    return bool(_DIGIT_RE.search(value) and _UPPER_RE.search(value) and _LOWER_RE.search(value))


def decodes_to_words(value: str) -> bool:
    """Base64 of plain words (``dGhlIHNhbXBsZSBub25jZQ==`` is "the sample nonce"): a sample, not a key."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        text = raw.decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return " " in text and all(c.isalpha() or c in " .,'-" for c in text)
