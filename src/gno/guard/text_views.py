"""The normalised views of a text that the poisoning rules match against.

Why: attackers obfuscate (full-width letters, Cyrillic look-alikes, zero-width characters, spaced-out or
leetspeak words). Every phrase rule matches one canonical, case-folded copy, so that each rule is written
once and obfuscation does not evade it; the letters-only "squashed" copy and the copy with misspelt key words
restored (``spelling``) are computed only when a rule asks for them.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cached_property

from gno.guard.spelling import correct_keywords


class TextViews:
    """The text as each family of rules wants to see it (the squashed copy only if asked for)."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.light = normalize(raw)

    @cached_property
    def squashed(self) -> str:
        return squash(self.light)

    @cached_property
    def corrected(self) -> str | None:
        """The normalised text with misspelt or leetspeak key words restored, or None when none was."""
        corrected = correct_keywords(self.light)
        return None if corrected == self.light else corrected


_CONFUSABLES = str.maketrans(
    {
        # Cyrillic and Greek letters that render like Latin ones.
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
        "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ο": "o", "α": "a",
        "ι": "i", "ν": "v", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "ε": "e", "А": "A", "В": "B",
        "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X",
        "І": "I", "Ѕ": "S",
        # Typographic quotes and dashes.
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    }
)  # fmt: skip
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})
_HSPACE_RE = re.compile(r"[^\S\n]+")
_NEWLINES_RE = re.compile(r"\n\s*\n+")
# Unicode general category Cf (format characters): zero-width, bidi controls, tags, soft hyphen...
_FORMAT_CHARS_RE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def normalize(text: str) -> str:
    """The canonical form phrase rules match against."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)
        text = _FORMAT_CHARS_RE.sub("", text)
    folded = _HSPACE_RE.sub(" ", text.casefold())
    return _NEWLINES_RE.sub("\n", folded).strip()


def squash(normalized: str) -> str:
    """Letters only, leetspeak undone: ``I.g.n.0.r.e  previous`` -> ``ignoreprevious``."""
    return re.sub(r"[^a-z]", "", normalized.translate(_LEET))
