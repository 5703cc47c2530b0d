"""The search query grammar, compiled to a safe FTS5 expression.

Users type plain terms (prefix matches), "quoted phrases", `-term` negations (only alongside a
positive term) and hyphenated tokens (`gpt-4`, `DEC-0054`, matched as phrases). Every piece is
emitted as a quoted FTS5 string, so no user input can produce an FTS5 syntax error: `C++
"unbalanced`, `AND OR NOT *` or `NEAR(` are just words (or nothing) to the index.
"""

from __future__ import annotations

import re
import unicodedata

from gno.tuples import NamedTuple

_TOKEN_RE = re.compile(r'-?"[^"]*"?|\S+')
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}


class Term(NamedTuple):  # NamedTuples, not dataclasses: this module is on `gno search`'s cold path
    text: str
    phrase: bool  # quoted by the user: exact phrase, no prefix expansion


class ParsedQuery(NamedTuple):
    positives: tuple[Term, ...]
    negatives: tuple[Term, ...]

    def words(self) -> list[str]:
        """Lowercased word tokens of the positive terms (for snippets and facets)."""
        out: list[str] = []
        for t in self.positives:
            out.extend(w for w in word_tokens(t.text) if w)
        return out


_ASCII_WORD_RE = re.compile(r"[a-z0-9]+")


def word_tokens(text: str) -> list[str]:
    """Split like FTS5's unicode61: runs of letters/digits, lowercased, diacritics kept.

    A word character is one of the categories L*, N* or Co; each character is lowercased on its own
    (so a final capital sigma becomes σ, as it does one character at a time)."""
    if text.isascii():  # the same split, without a category lookup per character
        return _ASCII_WORD_RE.findall(text.lower())
    found = _words_re(frozenset(ch for ch in set(text) if not ch.isascii() and _is_word(ch))).findall(text)
    return [t.lower() if "Σ" not in t else "".join(ch.lower() for ch in t) for t in found]


def singular(word: str) -> str:
    """A plural noun's singular ("cities" → "city", "boxes" → "box", "windows" → "window"); other words as
    they are. A plain suffix rule: what matters is that a word and its plural meet."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


_WORD_CHAR: dict[str, bool] = {}


def _is_word(ch: str) -> bool:
    hit = _WORD_CHAR.get(ch)
    if hit is None:
        cat = unicodedata.category(ch)
        hit = _WORD_CHAR[ch] = cat[0] in "LN" or cat == "Co"
    return hit


_WORDS_RE: dict[frozenset[str], re.Pattern[str]] = {}


def _words_re(extra: frozenset[str]) -> re.Pattern[str]:
    """Runs of ASCII letters and digits and of `extra` (the text's non-ASCII word characters)."""
    pattern = _WORDS_RE.get(extra)
    if pattern is None:
        if len(_WORDS_RE) >= 4096:
            _WORDS_RE.clear()
        chars = "".join(re.escape(ch) for ch in sorted(extra))
        pattern = _WORDS_RE[extra] = re.compile(f"[A-Za-z0-9{chars}]+")
    return pattern


def _has_word(text: str) -> bool:
    return bool(word_tokens(text))


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def parse_query(q: str) -> ParsedQuery:
    pos: list[Term] = []
    neg: list[Term] = []
    q = _CONTROL_RE.sub(" ", q)  # NUL and friends can never reach FTS5
    for raw in _TOKEN_RE.findall(q.strip()):
        negated = raw.startswith("-") and len(raw) > 1
        body = raw[1:] if negated else raw
        phrase = body.startswith('"')
        text = body.strip('"') if phrase else body
        if not phrase and text.upper() in _OPERATORS:
            continue  # bare FTS operators are not words anyone searches for
        if not _has_word(text):
            continue
        (neg if negated else pos).append(Term(text, phrase))
    return ParsedQuery(tuple(pos), tuple(neg))


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


MIN_PREFIX_CHARS = 3


def _fts_term(t: Term, *, prefix: bool) -> str:
    # Phrase content is re-tokenized by FTS5 itself, so `gpt-4` becomes the phrase "gpt 4".
    words = word_tokens(t.text)
    s = _quote(" ".join(words) if not t.phrase else " ".join(words) or t.text)
    # one- and two-letter prefixes match most of a corpus: they stay exact words
    expand = len(words) > 1 or len(words[-1]) >= MIN_PREFIX_CHARS
    return s + "*" if prefix and not t.phrase and expand else s


def compile_fts(q: str | ParsedQuery, *, any_term: bool = False, prefix: bool = True, raw: str | None = None) -> str:
    """User query → FTS5 MATCH expression. Raises INVALID_QUERY when nothing is searchable."""
    pq = parse_query(q) if isinstance(q, str) else q
    raw = q if isinstance(q, str) else raw
    if not pq.positives:
        from gno.errors import ErrorCode, ValidationError  # on failure only: a cold search skips it

        if pq.negatives:
            raise ValidationError(
                "a query needs at least one positive term besides -negations",
                code=ErrorCode.INVALID_QUERY,
                details={"query": raw},
            )
        raise ValidationError(
            "the query has no searchable words",
            code=ErrorCode.INVALID_QUERY,
            details={"query": raw},
        )
    joiner = " OR " if any_term else " AND "
    expr = joiner.join(_fts_term(t, prefix=prefix) for t in pq.positives)
    if len(pq.positives) > 1:
        expr = f"({expr})"
    for t in pq.negatives:
        expr += " NOT " + _fts_term(t, prefix=False)
    return expr


#: Grammatical function words (articles, auxiliaries, pronouns, wh-words, prepositions,
#: conjunctions, quantifiers): never worth matching on their own, not even in an any-term match.
FUNCTION_WORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in into
    is it its me my no not of on or our so than that the their them then there these they this those to up us
    was we were what when where which who whom why will with would you your about after again all also any
    both each more most other over some such under very just he she his her him hers""".split()
)
#: ... plus the words a request is phrased with ("show", "explain", "way", "use", "done"): dropped where
#: every word must match (a conjunctive search, facets, feedback terms), but in a note they are content
#: ("Show, don't tell", "Jobs to be done"), so the any-term BM25 leg keeps them and lets IDF weigh them.
STOPWORDS = FUNCTION_WORDS | frozenset(
    """doing done because before being between during few further here same should through until while yes
    answer tell know find show give list explain describe please much many one ones thing things way ways use
    used using get got ever""".split()
)


def content_query(pq: ParsedQuery, stopwords: frozenset[str] = STOPWORDS) -> ParsedQuery:
    """The same query without stopword-only terms and possessive endings (`Caroline's` → `Caroline`).

    Natural-language questions put every term of a conjunctive match at risk on words like "what" or
    "did"; dropping them keeps the match about the content. Quoted phrases stay as written. An
    any-term match passes `FUNCTION_WORDS`, the smaller list.
    """
    keep: list[Term] = []
    for t in pq.positives:
        if t.phrase:
            keep.append(t)
            continue
        text = re.sub(r"['’]s$", "", t.text, flags=re.IGNORECASE)
        words = word_tokens(text)
        if any(len(w) > 1 and w not in stopwords for w in words):
            keep.append(Term(text, False))
    return ParsedQuery(tuple(keep) or pq.positives, pq.negatives)
