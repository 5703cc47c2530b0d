"""Pick the lines of a document that best show why it matched a query.

BM25 ranks whole documents; the snippet is chosen here over the canonical lines (skipping
front matter and fenced-code markers), so each hit carries an exact `line` and
`snippetRange` a reader can open. Term matching mirrors the index: case-folded, and a query
word matches a document word that starts with its stem-ish prefix.

The snippet is picked from a bounded window of at most `SNIPPET_WINDOW` bytes of the canonical
text (the store reads no more than that): the whole of a note up to 32 KB; of a longer one, the
first segment of it that matches the query (all its words, else any), or that holds a vector hit's chunk
(`gno.store.segments`), so a match deep in a long note is what its snippet shows. A note of any
size then costs a search what a 32 KB one does, and its ranking is BM25's over the whole text.
"""

from __future__ import annotations

import unicodedata

from gno.retrieve.grammar import word_tokens
from gno.store.segments import SEGMENT_BYTES
from gno.tuples import NamedTuple

MAX_SNIPPET_CHARS = 320
#: bytes of a document's text a snippet is chosen from: one segment of a long note
SNIPPET_WINDOW = SEGMENT_BYTES


class Snippet(NamedTuple):  # not a dataclass: this module is on `gno search`'s cold path
    text: str
    line: int
    start_line: int
    end_line: int


def fold(word: str) -> str:
    """Drop diacritics like the index does (`remove_diacritics 2`): café → cafe. (NFKD, then every
    character of a nonzero combining class removed: found among the text's distinct characters.)"""
    if word.isascii():  # nothing to fold; most lines of most notes
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    marks = [c for c in set(decomposed) if not c.isascii() and unicodedata.combining(c)]
    return decomposed.translate(dict.fromkeys(map(ord, marks))) if marks else decomposed


def _keys(words: list[str]) -> list[str]:
    out = []
    for w in dict.fromkeys(fold(x) for x in words):
        out.append(w if len(w) <= 4 else w[: max(4, len(w) - 2)])
    return out


def _line_score(line: str, keys: list[str]) -> int:
    toks = [fold(t) for t in word_tokens(line)]
    if not toks:
        return 0
    joined = "\0" + "\0".join(toks)
    return sum(1 for k in keys if starts_any(toks, k, joined))


def starts_any(tokens: list[str] | set[str], prefix: str, joined: str | None = None) -> bool:
    """Whether a token starts with `prefix`: one substring search of the NUL-joined tokens
    (`joined`, built here when not given) instead of a Python loop over them. Tokens hold no NUL
    (`word_tokens` keeps letters and digits)."""
    if not prefix or "\0" in prefix:
        return any(t.startswith(prefix) for t in tokens)
    return ("\0" + prefix) in (joined if joined is not None else "\0" + "\0".join(tokens))


def pick_snippet(
    canonical: str,
    body_start_line: int,
    words: list[str],
    context: int = 1,
    *,
    truncated: bool = False,
    first_line: int = 1,
) -> Snippet:
    """The best lines of `canonical` for `words`; `truncated`: the text is a window cut from a longer
    one, so its last line may be partial and is left out; `first_line`: the note's line number of
    the text's first line (a window deep in a long note), which the returned lines count from."""
    lines = canonical.split("\n")
    if truncated and len(lines) > 1:
        lines.pop()
    first = max(body_start_line - first_line, 0)
    keys = _keys(words)
    best_i, best_s = -1, 0
    for i in range(first, len(lines)):
        if not keys:
            break
        low = fold(lines[i].lower())
        if not any(k in low for k in keys):  # cheap substring screen before tokenising the line
            continue
        s = _line_score(lines[i], keys)
        if s > best_s:
            best_i, best_s = i, s
    if best_i < 0:
        best_i = next((i for i in range(first, len(lines)) if lines[i].strip()), first)
    lo = best_i
    hi = best_i
    # widen to neighbouring non-empty lines for context
    for _ in range(context):
        if lo - 1 >= first and lines[lo - 1].strip():
            lo -= 1
        if hi + 1 < len(lines) and lines[hi + 1].strip():
            hi += 1
    text = "\n".join(lines[lo : hi + 1]).strip()
    if len(text) > MAX_SNIPPET_CHARS:
        focus = lines[best_i].strip()
        text = focus if len(focus) <= MAX_SNIPPET_CHARS else focus[: MAX_SNIPPET_CHARS - 1] + "…"
        lo = hi = best_i
    n, off = len(lines), first_line - 1
    return Snippet(text, off + min(best_i + 1, n), off + min(lo + 1, n), off + min(hi + 1, n))
