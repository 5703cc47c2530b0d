"""Line-aware chunking sized for the embedder: windows of its own word pieces, with overlap.

Each chunk holds at most ``max_tokens`` word pieces of the embedder's WordPiece vocabulary
(default 240 of MiniLM's 256-piece window, see `gno.embed.tokens`), so every part of a note is
embedded; without the tokenizer the count falls back to an estimate of 4 characters per token.
Breaks are searched in the last 10% of each window, preferring a paragraph break, then a
sentence end, then a line break, then a word boundary. Consecutive chunks overlap by
``overlap_percent`` of the window. Every chunk keeps its 1-based start and end line in the
canonical text so vector hits can cite exact spans.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final, Literal

CHARS_PER_TOKEN = 4
MIN_MAX_TOKENS = 10
MAX_OVERLAP_PERCENT = 0.5
SENTENCE_RE = re.compile(r"[.!?][ \t]+(?=[A-Z])")
#: how `chunk_text` counts tokens: the embedder's word pieces (falling back to characters when
#: the tokenizer is unavailable) or the character estimate alone
Counting = Literal["wordpiece", "chars"]
DEFAULT_COUNTING: Final[Counting] = "wordpiece"
#: part of every chunk key (`gno.ingest.chunking`): bump it whenever `chunk_text` cuts the same
#: text differently, so `gno embed` re-chunks stored content (and re-embeds what changed)
CHUNKER_VERSION: Final = "1"


@dataclass(frozen=True)
class Chunk:
    seq: int
    pos: int  # character offset in the canonical text
    text: str
    start_line: int
    end_line: int
    tokens: int | None = None  # word pieces, when counted with the tokenizer

    @property
    def token_count(self) -> int:
        return self.tokens if self.tokens is not None else max(1, -(-len(self.text) // CHARS_PER_TOKEN))


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


class _Meter:
    """Maps a chunk start to where a window of `max_tokens` tokens ends, in characters."""

    def __init__(self, text: str, max_tokens: int, counting: Counting) -> None:
        from gno.embed.tokens import token_spans

        self.n = len(text)
        self.max_tokens = max_tokens
        spans = token_spans(text) if counting == "wordpiece" else None
        self.starts = [s for s, _ in spans] if spans is not None else None
        self.ends = [e for _, e in spans] if spans is not None else None

    def window(self, start: int) -> tuple[int, int]:
        """(break-window start, hard end) of the chunk starting at `start`."""
        if self.ends is None:
            max_chars = self.max_tokens * CHARS_PER_TOKEN
            return start + max_chars - max(1, max_chars // 10), start + max_chars
        i = bisect.bisect_right(self.ends, start)  # first token ending after `start`
        j = i + self.max_tokens - 1
        if j >= len(self.ends):
            return self.n, self.n
        lo_tok = i + max(0, self.max_tokens - max(1, self.max_tokens // 10)) - 1
        return max(start + 1, self.ends[lo_tok]), self.ends[j]

    def back(self, start: int, end: int, overlap_percent: float) -> int:
        """Where the next chunk starts: `overlap_percent` of the window before `end`."""
        if self.starts is None or self.ends is None:
            return end - int(self.max_tokens * CHARS_PER_TOKEN * overlap_percent)
        k = bisect.bisect_left(self.ends, end)  # tokens before `end`
        back = k - int(self.max_tokens * overlap_percent)
        return self.starts[back] if 0 <= back < len(self.starts) else end

    def count(self, start: int, end: int) -> int | None:
        if self.ends is None or self.starts is None:
            return None
        return max(1, bisect.bisect_right(self.starts, end - 1) - bisect.bisect_right(self.ends, start))


def chunk_text(
    text: str,
    *,
    line_offset: int = 0,
    max_tokens: int = 240,
    overlap_percent: float = 0.15,
    counting: Counting = DEFAULT_COUNTING,
) -> list[Chunk]:
    """Split `text` (a body starting at canonical line `line_offset + 1`) into chunks."""
    if not text.strip():
        return []
    max_tokens = max(MIN_MAX_TOKENS, max_tokens)
    overlap_percent = min(max(overlap_percent, 0.0), MAX_OVERLAP_PERCENT)
    meter = _Meter(text, max_tokens, counting)
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
        lo, hard = meter.window(start)
        if hard >= n:
            end = n
        else:
            end = _break_at(text, lo, hard)
            if end <= start:
                end = hard
        piece = text[start:end].rstrip()
        if piece:
            chunks.append(
                Chunk(
                    len(chunks),
                    start,
                    piece,
                    line_of(start),
                    line_of(start + len(piece) - 1),
                    meter.count(start, start + len(piece)),
                )
            )
        if end >= n:
            break
        nxt = max(meter.back(start, end, overlap_percent), start + 1)
        # snap the overlap start forward to a word boundary
        if 0 < nxt < n and not text[nxt - 1].isspace():
            sp = min((p for p in (text.find(" ", nxt), text.find("\n", nxt)) if p >= 0), default=-1)
            back = max(text.rfind(" ", start + 1, nxt), text.rfind("\n", start + 1, nxt))
            nxt = sp + 1 if 0 <= sp < end - 1 else back + 1 if back > start else end
        start = nxt
    return chunks
