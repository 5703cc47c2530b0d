"""Encoded payloads: an instruction hidden in base64, hex, percent-encoding, HTML entities, escape
sequences, ROT13, reversed text or Morse, so that no phrase rule sees it in the clear.

Why decode rather than refuse the shapes: base64 blobs, hex digests and escaped strings are
everyday content (keys, hashes, code). What makes one an attack is what it *says* once decoded, so
each blob is decoded and the decoded text goes through the same phrase rules as plain text. ROT13,
reversal and Morse are tried only when the text names them (or, for Morse, is written in it):
applied blindly to prose they only make noise.

Cost stays linear: at most ``MAX_BLOBS`` blobs are decoded, each view is no longer than the text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import urllib.parse
from collections.abc import Iterator

from gno.guard.exfiltration_rules import exfiltration
from gno.guard.override_rules import instruction_override, role_smuggling, system_prompt_exfiltration
from gno.guard.text_views import TextViews

MAX_BLOBS = 32
_B64_RE = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RE = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY_RE = re.compile(r"&#(?:x[0-9A-Fa-f]{1,6}|\d{1,7});")
_ESCAPE_RE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2})")
_ROT13_CUE_RE = re.compile(r"rot[\s_-]?13|caesar", re.IGNORECASE)
_REVERSE_CUE_RE = re.compile(r"backwards?|revers(?:e|ed|ing)|right\s+to\s+left", re.IGNORECASE)
_MORSE_RE = re.compile(r"(?:[.\-]{1,7}[ /]+){8,}[.\-]{1,7}")
_MORSE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
    ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
    "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z",
}  # fmt: skip


def _readable(data: bytes) -> str | None:
    """Decoded bytes that read as text (words and spaces), else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    if len(text) < 8 or printable < 0.95 * len(text) or " " not in text:
        return None
    return text


def _b64(blob: str) -> str | None:
    padded = blob + "=" * (-len(blob) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            text = _readable(decode(padded))
        except (binascii.Error, ValueError):
            continue
        if text:
            return text
    return None


def _morse(text: str) -> str:
    words = re.split(r"\s{2,}|\s*/\s*", text.strip())
    return " ".join("".join(_MORSE.get(sym, "") for sym in word.split()) for word in words)


def decoded_views(raw: str) -> Iterator[str]:
    """Every decoded reading of ``raw`` worth checking (nothing when nothing decodes)."""
    blobs = 0
    for regex, decode in ((_B64_RE, _b64), (_HEX_RE, lambda b: _readable(bytes.fromhex(b)))):
        for match in regex.finditer(raw):
            if blobs >= MAX_BLOBS:
                break
            blobs += 1
            text = decode(match.group())
            if text:
                yield text
    if len(_PERCENT_RE.findall(raw, 0, 4096)) >= 3:
        yield urllib.parse.unquote(raw)
    if _ENTITY_RE.search(raw):
        yield html.unescape(raw)
    if _ESCAPE_RE.search(raw):
        yield _ESCAPE_RE.sub(lambda m: chr(int(m.group()[2:], 16)), raw)
    if _ROT13_CUE_RE.search(raw):
        yield codecs.encode(raw, "rot13")
    if _REVERSE_CUE_RE.search(raw):
        yield raw[::-1]
    morse = _MORSE_RE.search(raw)
    if morse:
        yield _morse(morse.group())


def encoded_payload(view: TextViews) -> Iterator[str]:
    """The first plain-text rule that fires on a decoded reading of the text."""
    for text in decoded_views(view.raw):
        inner = TextViews(text)
        for check in (instruction_override, role_smuggling, system_prompt_exfiltration, exfiltration):
            for excerpt in check(inner):
                yield f"decoded: {excerpt}"
                return
