"""Line-aware chunking: ~800 tokens (4 chars/token) with 15% overlap.

Breaks are searched in the last 10% of each window, preferring a paragraph break, then a
sentence end, then a line break, then a word boundary (reference §1.3). Every chunk keeps its
1-based start and end line in the canonical text so vector hits can cite exact spans.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

CHARS_PER_TOKEN = 4
MIN_MAX_TOKENS = 10
MAX_OVERLAP_PERCENT = 0.5
SENTENCE_RE = re.compile(r"[.!?][ \t]+(?=[A-Z])")


@dataclass(frozen=True)
class Chunk:
    seq: int
    pos: int  # character offset in the canonical text
    text: str
    start_line: int
    end_line: int

    @property
    def token_count(self) -> int:
        return max(1, -(-len(self.text) // CHARS_PER_TOKEN))


def _break_at(text: str, lo: int, hi: int) -> int:
    """Best break offset in text[lo:hi] (the returned offset starts the next piece)."""
    window = text[lo:hi]
    i = window.rfind("\n\n")
    if i >= 0:
        return lo + i + 2
    last = None
    for m in SENTENCE_RE.finditer(window):
        last = m
    if last is not None:
        return lo + last.end()
    i = window.rfind("\n")
    if i >= 0:
        return lo + i + 1
    i = max(window.rfind(" "), window.rfind("\t"))
    if i >= 0:
        return lo + i + 1
    return hi


def chunk_text(text: str, *, line_offset: int = 0, max_tokens: int = 800, overlap_percent: float = 0.15) -> list[Chunk]:
    """Split `text` (a body starting at canonical line `line_offset + 1`) into chunks."""
    if not text.strip():
        return []
    max_tokens = max(MIN_MAX_TOKENS, max_tokens)
    overlap_percent = min(max(overlap_percent, 0.0), MAX_OVERLAP_PERCENT)
    max_chars = max_tokens * CHARS_PER_TOKEN
    overlap = int(max_chars * overlap_percent)
    window = max(1, max_chars // 10)
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(line_starts, offset) + line_offset

    chunks: list[Chunk] = []
    start = 0
    n = len(text)
    while start < n:
        # skip leading blank space so chunks start on content
        while start < n and text[start] in " \t\n":
            start += 1
        if start >= n:
            break
        if n - start <= max_chars:
            end = n
        else:
            end = _break_at(text, start + max_chars - window, start + max_chars)
            if end <= start:
                end = start + max_chars
        piece = text[start:end].rstrip()
        if piece:
            chunks.append(Chunk(len(chunks), start, piece, line_of(start), line_of(start + len(piece) - 1)))
        if end >= n:
            break
        nxt = max(end - overlap, start + 1)
        # snap the overlap start forward to a word boundary
        if 0 < nxt < n and not text[nxt - 1].isspace():
            sp = min((p for p in (text.find(" ", nxt), text.find("\n", nxt)) if p >= 0), default=-1)
            nxt = sp + 1 if 0 <= sp < end else end
        start = nxt
    return chunks
