"""Secret redaction for everything gno writes to memory.

Why this exists: agent memories are re-read by models, synced, exported and searched. A credential
pasted into a chat turn must never be persisted verbatim, but the rest of the record is still
valuable, so the secret itself is *replaced* (the value is gone, the text around it untouched) by a
marker ``[REDACTED:<rule>:<digest8>]`` instead of the record being dropped. The digest is an HMAC of
the secret keyed with a per-install key (``marker_key``): equal secrets still share a marker within
one install, but a dictionary cannot turn ``hunter2``'s marker back into ``hunter2``.

Detection is layered:

* gitleaks' public rule set, read as data (``gitleaks``): vendor token formats with keywords,
  entropy floors and allowlists, matched by RE2;
* Nosey Parker's and Kingfisher's rule sets, read as data (``noseyparker``, ``kingfisher``; see
  ``vendored_rules``): two more maintained sources of provider formats;
* a short list of our own format rules (``secret_formats``) for shapes that rule file lacks or
  spells more narrowly, and the precise, format-based plugins of ``detect-secrets`` run in-process
  through ``analyze_string`` (never ``analyze_line``, which may try to verify secrets over the
  network); its noisy keyword and entropy plugins are replaced by the context rules below;
* context rules (``secret_context``): ``password = "..."`` style assignments (value only), YAML/INI
  blocks, prose labels, chat disclosures, connection strings (password only), guarded entropy.

Cost stays linear in the input: RE2 is linear by construction, and every Python-regex detector runs
over overlapping windows of bounded size, so no crafted text makes one detector rescan the input
from many starting points. Overlapping candidates are resolved longest-first; existing markers are
never re-matched, which makes redaction idempotent.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache

from gno.guard.gitleaks import gitleaks_candidates, is_generic
from gno.guard.secret_bare import bare_token_candidates
from gno.guard.secret_codes import code_candidates
from gno.guard.secret_context import (
    assignment_candidates,
    authorization_candidates,
    block_candidates,
    connection_candidates,
    disclosure_candidates,
    entropy_candidates,
    hex_literal_candidates,
    keyed_token_candidates,
    labelled_candidates,
    plausible_generic,
)
from gno.guard.secret_formats import detect_secrets_candidates, format_candidates, key_file_candidates
from gno.guard.secret_slots import env_default_candidates, prefixed_token_candidates, slot_candidates
from gno.guard.secret_spoken import spoken_candidates
from gno.guard.secret_values import shannon_entropy
from gno.guard.vendored_rules import RULE_FILES, vendored_candidates

__all__ = [
    "MARKER_RE",
    "RULE_SOURCES",
    "RedactionResult",
    "SecretFinding",
    "digest8",
    "marker",
    "redact_secrets",
    "shannon_entropy",
]

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")


@dataclass(frozen=True)
class SecretFinding:
    """One redacted secret; ``start``/``end`` index the *original* text."""

    rule: str
    start: int
    end: int
    digest8: str


@dataclass(frozen=True)
class RedactionResult:
    """The redacted text plus what was removed from it."""

    text: str
    findings: list[SecretFinding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.findings)


@dataclass(frozen=True)
class _Candidate:
    rule: str
    start: int
    end: int
    priority: int


@cache
def _process_key() -> bytes:
    """Key for callers that name no install key: random per process, so never a bare hash."""
    return secrets.token_bytes(32)


def digest8(secret: str, key: bytes | None = None) -> str:
    """First 8 hex chars of HMAC-SHA256(key, secret): groups equal secrets, useless to a dictionary."""
    return hmac.new(key or _process_key(), secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]


def marker(rule: str, secret: str, key: bytes | None = None) -> str:
    """The replacement written in place of ``secret``."""
    return f"[REDACTED:{rule}:{digest8(secret, key)}]"


# --------------------------------------------------------------------------------------------------
# Selection and rewriting
# --------------------------------------------------------------------------------------------------

_Detector = Callable[[str], Iterable[tuple[str, int, int]]]
# Python-regex detectors see the text in windows of this many characters, overlapping by enough to
# hold any token whole; RE2 rules see the whole text (they are linear anyway).
WINDOW_CHARS = 2048
OVERLAP_CHARS = 512
_QUOTES = "'\"`"
# (priority, detector): the priority only breaks ties between equally long candidates. Specific
# formats first; gitleaks' generic keyword rules after the context rules, which know ids and
# placeholders better; guarded entropy last.
_GITLEAKS_SPECIFIC, _GITLEAKS_GENERIC = 1, 8
_WHOLE: tuple[tuple[int, _Detector], ...] = ((0, key_file_candidates),)
_WINDOWED: tuple[tuple[int, _Detector], ...] = (
    (0, format_candidates),
    (2, detect_secrets_candidates),
    (3, connection_candidates),
    (4, assignment_candidates),
    (5, block_candidates),
    (6, disclosure_candidates),
    (7, labelled_candidates),
    (7, spoken_candidates),  # after the older rules on a tie: their rule names stay
    (7, code_candidates),
    (7, authorization_candidates),
    (8, keyed_token_candidates),
    (8, prefixed_token_candidates),
    (8, slot_candidates),
    (8, env_default_candidates),
    (9, entropy_candidates),
    (10, hex_literal_candidates),
    (11, bare_token_candidates),
)


def windows(text: str, size: int = WINDOW_CHARS, overlap: int = OVERLAP_CHARS) -> Iterator[tuple[int, str]]:
    """(offset, chunk) covering ``text``; chunks end at a line break when one is near, and each
    starts ``overlap`` characters before the previous one ended, at a line start when possible."""
    start, n = 0, len(text)
    while True:
        end = min(n, start + size)
        if end < n:
            cut = text.rfind("\n", start + size // 2, end)
            end = cut + 1 if cut >= 0 else end
        yield start, text[start:end]
        if end >= n:
            return
        nxt = end - overlap
        line = text.find("\n", nxt, end)
        start = max(start + 1, line + 1 if 0 <= line < end - 1 else nxt)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """A captured value never takes the quotes or blanks around it with it."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end - start >= 2 and text[start] in _QUOTES and text[end - 1] == text[start]:
        start, end = start + 1, end - 1
    return start, end


# The rule sources a caller may switch off (the bench measures each secret collection without the rule
# project it comes from): the two rule files, detect-secrets' plugins and gno's own format/context rules.
RULE_SOURCES = ("gitleaks", "noseyparker", "kingfisher", "detect-secrets", "gno")
_SOURCE_OF: dict[_Detector, str] = {detect_secrets_candidates: "detect-secrets"}


def _source(detector: _Detector) -> str:
    return _SOURCE_OF.get(detector, "gno")


def _rule_file_candidates(text: str, skip: frozenset[str]) -> Iterator[_Candidate]:
    found: list[tuple[str, int, int, bool]] = []
    if "gitleaks" not in skip:
        found.extend((rule, s, e, is_generic(rule)) for rule, s, e in gitleaks_candidates(text))
    for source in RULE_FILES:
        if source not in skip:
            found.extend(
                (rule, s, e, rule.startswith(("np-generic", "kf-generic")))
                for rule, s, e in vendored_candidates(source, text)
            )
    for rule, start, end, generic in found:
        start, end = _trim(text, start, end)
        if not generic or plausible_generic(text, start, end):
            yield _Candidate(rule, start, end, _GITLEAKS_GENERIC if generic else _GITLEAKS_SPECIFIC)


def _candidates(text: str, skip: frozenset[str] = frozenset()) -> list[_Candidate]:
    found: list[_Candidate] = list(_rule_file_candidates(text, skip))
    windowed = tuple(d for d in _WINDOWED if _source(d[1]) not in skip)
    whole = tuple(d for d in _WHOLE if _source(d[1]) not in skip)
    for priority, detector in whole:
        found.extend(_Candidate(rule, start, end, priority) for rule, start, end in detector(text))
    for offset, chunk in windows(text):
        for priority, detector in windowed:
            for rule, start, end in detector(chunk):
                found.append(_Candidate(rule, offset + start, offset + end, priority))
    return [c for c in found if c.end > c.start]


class _Occupied:
    """Non-overlapping spans sorted by start; overlap queries in O(log n) via bisection."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in sorted(spans):
            self.add(start, end)

    def overlaps(self, start: int, end: int) -> bool:
        index = bisect.bisect_right(self._starts, start)
        if index > 0 and self._ends[index - 1] > start:
            return True
        return index < len(self._starts) and self._starts[index] < end

    def add(self, start: int, end: int) -> None:
        index = bisect.bisect_right(self._starts, start)
        self._starts.insert(index, start)
        self._ends.insert(index, end)


def _select(candidates: list[_Candidate], protected: list[tuple[int, int]]) -> list[_Candidate]:
    """Longest candidate wins an overlap; nothing touching an existing marker is kept."""
    occupied = _Occupied(protected)
    chosen: list[_Candidate] = []
    for cand in sorted(set(candidates), key=lambda c: (c.start - c.end, c.priority, c.start, c.rule)):
        if not occupied.overlaps(cand.start, cand.end):
            occupied.add(cand.start, cand.end)
            chosen.append(cand)
    return sorted(chosen, key=lambda c: c.start)


def redact_secrets(
    text: str, *, key: bytes | None = None, skip_sources: frozenset[str] = frozenset()
) -> RedactionResult:
    """Replace every detected secret in ``text`` by ``[REDACTED:<rule>:<digest8>]``.

    ``key`` is the install's marker key (``marker_key.install_key``); without one a per-process
    random key is used, so markers stay unlinkable to the secret either way. ``skip_sources`` switches
    rule sources off (names from ``RULE_SOURCES``), for measuring one source's contribution.
    """
    unknown = skip_sources - set(RULE_SOURCES)
    if unknown:
        raise ValueError(f"unknown rule sources: {sorted(unknown)}")
    if not text:
        return RedactionResult(text=text, findings=[])
    protected = [(m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    chosen = _select(_candidates(text, skip_sources), protected)
    if not chosen:
        return RedactionResult(text=text, findings=[])
    parts: list[str] = []
    findings: list[SecretFinding] = []
    cursor = 0
    for cand in chosen:
        secret = text[cand.start : cand.end]
        parts.append(text[cursor : cand.start])
        digest = digest8(secret, key)
        parts.append(f"[REDACTED:{cand.rule}:{digest}]")
        findings.append(SecretFinding(cand.rule, cand.start, cand.end, digest))
        cursor = cand.end
    parts.append(text[cursor:])
    return RedactionResult(text="".join(parts), findings=findings)
