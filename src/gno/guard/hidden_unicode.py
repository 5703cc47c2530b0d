"""Hidden-Unicode detection on the raw text: invisible characters that smuggle instructions.

Why raw: normalisation deletes exactly the characters this rule looks for. Zero-width joiners inside
emoji sequences or scripts that need them, and direction marks in right-to-left text, are legitimate and
pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from gno.guard.text_views import TextViews

# Bidi overrides/isolates, invisible operators and word joiner, Unicode tag characters.
_ALWAYS_HIDDEN = re.compile("[\u202a-\u202e\u2066-\u2069\u2060-\u2064\U000e0000-\U000e007f]")
# Zero-width space / non-joiner / joiner and the LRM/RLM marks.
_ZERO_WIDTH = re.compile("[\u200b-\u200f]")
_JOINERS = ("\u200c", "\u200d")
_DIRECTION_MARKS = ("\u200e", "\u200f")


def _is_pictographic(ch: str) -> bool:
    code = ord(ch)
    return (
        0x1F000 <= code <= 0x1FAFF
        or 0x2190 <= code <= 0x21FF
        or 0x2600 <= code <= 0x27BF
        or 0x2B00 <= code <= 0x2BFF
        or code in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x20E3, 0xFE0F)
    )


def _is_rtl(ch: str) -> bool:
    return unicodedata.bidirectional(ch) in ("R", "AL")


def _benign_invisible(text: str, index: int) -> bool:
    """ZWJ inside an emoji sequence, ZWJ/ZWNJ inside a script that needs them, LRM/RLM in RTL text."""
    char = text[index]
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char == "\u200d" and before and after and _is_pictographic(before) and _is_pictographic(after):
        return True
    if char in _JOINERS and before.isalpha() and after.isalpha():
        return not (before.isascii() or after.isascii())
    if char in _DIRECTION_MARKS:
        return any(_is_rtl(c) for c in text[max(0, index - 3) : index + 4])
    return False


def hidden_unicode(view: TextViews) -> Iterator[str]:
    raw = view.raw
    if raw.isascii():
        return
    always = _ALWAYS_HIDDEN.search(raw)
    if always:
        yield f"U+{ord(always.group()):04X} at {always.start()}"
        return
    suspicious = [m.start() for m in _ZERO_WIDTH.finditer(raw) if not _benign_invisible(raw, m.start())]
    if suspicious:
        first = suspicious[0]
        yield f"U+{ord(raw[first]):04X} at {first} ({len(suspicious)} hidden)"
