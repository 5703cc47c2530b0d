"""Spelling-tolerant key words: the rules' vocabulary restored in a misspelt or leetspeak copy of the text.

Why: the override and role rules match exact words, and an attacker needs only one typo to pass them
("Ignore your previous iunstructions", "disregrad the sytem prompt", "pr3vious 1nstructions"). A reader
still understands such a sentence, so the guard should too. This module rewrites every word that lies one
edit (a letter inserted, deleted, replaced, or two neighbours swapped) from one of the rules' key words, or
that spells one in leetspeak, into that key word; the rule families then run once more on the rewritten copy.

What is not rewritten: words shorter than six letters (too many real words lie one edit from a short one),
inflections of a key word (``systems``, ``ignored``, ``prompts``: the rules decide what those mean), the few
real English words one edit from a key word (``precious``, ``developed``) and words that start with ``@`` or
``$`` (an ``@Override`` annotation is code, not leetspeak). The cost is linear: a word is looked up only when
its first or last two letters are those of some key word (one edit cannot change both ends of a word of five
letters or more), then by its single-letter deletions in a table built once (symmetric deletion).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

KEYWORDS: tuple[str, ...] = (
    "instructions",
    "instruction",
    "previous",
    "previously",
    "ignore",
    "disregard",
    "system",
    "prompt",
    "override",
    "guidelines",
    "directions",
    "directives",
    "restrictions",
    "developer",
    "assistant",
    "important",
    "message",
)
# Real words one edit from a key word that are not one of its inflections.
_REAL_NEIGHBOURS = frozenset({"precious", "previews", "massage", "systemd", "developed", "overrode"})
_INFLECTIONS = ("s", "d", "ed", "es", "r", "n", "ly", "al")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_MIN_LETTERS = 6
_MAX_LETTERS = max(map(len, KEYWORDS)) + 1
# A candidate token: letters with leetspeak digits or symbols among them, bounded by non-word characters.
_TOKEN_RE = re.compile(rf"(?<![\w@$])[a-z0-9@$]{{{_MIN_LETTERS - 1},{_MAX_LETTERS}}}(?![\w@$])")
_ENDS = (frozenset(k[:2] for k in KEYWORDS), frozenset(k[-2:] for k in KEYWORDS))


def _deletions(word: str) -> list[str]:
    return [word[:i] + word[i + 1 :] for i in range(len(word))]


@cache
def _index() -> dict[str, tuple[str, ...]]:
    """Every key word and every single-letter deletion of it -> the key words it comes from."""
    table: dict[str, list[str]] = {}
    for keyword in KEYWORDS:
        for variant in (keyword, *_deletions(keyword)):
            if keyword not in table.setdefault(variant, []):
                table[variant].append(keyword)
    return {variant: tuple(words) for variant, words in table.items()}


def one_edit(a: str, b: str) -> bool:
    """True if ``a`` becomes ``b`` by one insertion, deletion, substitution or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


def _inflection(word: str, keyword: str) -> bool:
    if word.startswith(keyword):
        return word[len(keyword) :] in _INFLECTIONS
    return keyword.startswith(word) or (keyword.endswith("e") and word.startswith(keyword[:-1]))


@lru_cache(maxsize=8192)
def keyword_for(token: str) -> str | None:
    """The key word ``token`` misspells or spells in leetspeak, if any."""
    word = token.translate(_LEET)
    if token[0] in "@$" or not word.isalpha() or len(word) < _MIN_LETTERS - 1:
        return None
    index = _index()
    if word in KEYWORDS:
        return word if word != token else None
    if word in _REAL_NEIGHBOURS or (word[:2] not in _ENDS[0] and word[-2:] not in _ENDS[1]):
        return None
    candidates = {k for variant in (word, *_deletions(word)) for k in index.get(variant, ())}
    for keyword in sorted(candidates, key=lambda k: (-len(k), k)):
        if len(keyword) >= _MIN_LETTERS and one_edit(word, keyword) and not _inflection(word, keyword):
            return keyword
    return None


def correct_keywords(light: str) -> str:
    """``light`` (a normalised text) with every misspelt or leetspeak key word written correctly."""
    return _TOKEN_RE.sub(lambda m: keyword_for(m.group()) or m.group(), light)
