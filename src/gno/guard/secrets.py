"""Secret redaction for everything gno writes to memory.

Why this exists: agent memories are re-read by models, synced, exported and searched. A credential
pasted into a chat turn must never be persisted verbatim, but the rest of the record is still
valuable, so secrets are *replaced* by a stable marker ``[REDACTED:<rule>:<sha256[:8]>]`` instead of
the record being dropped. The short digest lets a user tell whether two memories held the same secret
without revealing it.

Detection is layered:

* our own regex rules for well-known token formats (OpenAI, Anthropic, AWS, GitHub, Slack, Stripe,
  Google, PEM private keys, JWTs, ...), for ``password = "..."`` style assignments (value only) and
  for connection strings (password only);
* a guarded high-entropy rule that only looks at quoted strings and assignment values, so prose,
  hex digests, git SHAs, UUIDs and URLs are left alone;
* a narrowed form of detect-secrets' hex-entropy rule: a quoted literal of 32-63 hex digits (never 40,
  a git SHA; 64 is a SHA-256 digest) that mixes letters and digits and is bound to no key;
* the precise, format-based plugins of ``detect-secrets`` run in-process through
  ``analyze_string`` (never ``analyze_line``, which may try to verify secrets over the network). Its
  noisy high-entropy and keyword plugins are deliberately not used: the rules above replace them with
  positional, context-aware versions.

The rules live in ``secret_formats`` (token shapes, detect-secrets), ``secret_context`` (names, labels,
blocks, connection strings, entropy) and ``secret_values`` (shared heuristics); this module picks among
their candidates and rewrites the text. Overlapping candidates are resolved longest-first; existing markers
are never re-matched, which makes redaction idempotent.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gno.guard.secret_context import (
    assignment_candidates,
    block_candidates,
    connection_candidates,
    disclosure_candidates,
    entropy_candidates,
    hex_literal_candidates,
    labelled_candidates,
)
from gno.guard.secret_formats import detect_secrets_candidates, format_candidates
from gno.guard.secret_values import shannon_entropy

__all__ = [
    "MARKER_RE",
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


def digest8(secret: str) -> str:
    """First 8 hex chars of sha256 of the secret: enough to correlate, useless to attack."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:8]


def marker(rule: str, secret: str) -> str:
    """The replacement written in place of ``secret``."""
    return f"[REDACTED:{rule}:{digest8(secret)}]"


# --------------------------------------------------------------------------------------------------
# Selection and rewriting
# --------------------------------------------------------------------------------------------------

_Detector = Callable[[str], Iterable[tuple[str, int, int]]]
# Order matters only to break ties between equally long candidates: specific formats first.
_DETECTORS: tuple[_Detector, ...] = (
    format_candidates,
    detect_secrets_candidates,
    connection_candidates,
    assignment_candidates,
    block_candidates,
    disclosure_candidates,
    labelled_candidates,
    entropy_candidates,
    hex_literal_candidates,
)


def _candidates(text: str) -> list[_Candidate]:
    found: list[_Candidate] = []
    for priority, detector in enumerate(_DETECTORS):
        for rule, start, end in detector(text):
            if end > start:
                found.append(_Candidate(rule, start, end, priority))
    return found


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


def redact_secrets(text: str) -> RedactionResult:
    """Replace every detected secret in ``text`` by ``[REDACTED:<rule>:<digest8>]``."""
    if not text:
        return RedactionResult(text=text, findings=[])
    protected = [(m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    chosen = _select(_candidates(text), protected)
    if not chosen:
        return RedactionResult(text=text, findings=[])
    parts: list[str] = []
    findings: list[SecretFinding] = []
    cursor = 0
    for cand in chosen:
        secret = text[cand.start : cand.end]
        parts.append(text[cursor : cand.start])
        parts.append(marker(cand.rule, secret))
        findings.append(SecretFinding(cand.rule, cand.start, cand.end, digest8(secret)))
        cursor = cand.end
    parts.append(text[cursor:])
    return RedactionResult(text="".join(parts), findings=findings)
