"""Evidence passages: a document's body cut into cited spans, and the facets of a goal.

A passage is a paragraph-sized block of the canonical text (blank-line separated, code fences
kept whole, long blocks split on line boundaries), so its `startLine..endLine` are exactly the
lines of the user's file and its text can be re-hashed later by `context verify`. Facets are the
content words of the goal; a passage covers a facet when one of its words has the facet's stem
or starts with it (the stem strips common suffixes, a silent final e and a final consonant-y, and
maps common irregular past forms to their verb). A passage that ends with a question
(`ends_with_question`) is read with the paragraph after it, its reply: see `gno.evidence.capsule`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from gno.retrieve.grammar import STOPWORDS, word_tokens
from gno.retrieve.snippets import fold, starts_any

MAX_PASSAGE_CHARS = 1200
FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
# emphasis, quotes and brackets that may close a question: "**Q: How do I deploy?**", "(why?)"
CLOSERS = "*_`\"'”’)]» \t"
STOP = STOPWORDS


@dataclass(frozen=True)
class Passage:
    start_line: int
    end_line: int
    text: str
    heading: str | None


#: irregular past forms of common verbs → the verb ("bought" meets "buy", "wrote" "writing"); forms that
#: are also other words ("left", "found", "saw", "rose") and verbs of three letters or fewer whose
#: stem would prefix-match unrelated words ("went" → "go" matches "good") are left out, and so is
#: "known" (in "also known as" it names, and "know" would match "knowledge")
_IRREGULAR = {
    form: verb
    for verb, forms in {
        "buy": "bought", "bring": "brought", "catch": "caught", "teach": "taught", "sell": "sold", "tell": "told",
        "pay": "paid", "say": "said", "meet": "met", "begin": "began begun", "choose": "chose chosen",
        "write": "wrote written", "give": "gave given", "build": "built", "send": "sent", "spend": "spent",
        "hold": "held", "keep": "kept", "sleep": "slept", "eat": "ate eaten", "drink": "drank drunk",
        "drive": "drove driven", "fly": "flew flown", "grow": "grew grown",
        "sing": "sang sung", "swim": "swam swum", "break": "broke broken", "steal": "stole stolen",
        "forget": "forgot forgotten", "understand": "understood", "stand": "stood", "hear": "heard",
        "lose": "lost", "seek": "sought", "fight": "fought", "throw": "threw thrown", "wear": "wore worn",
        "hide": "hidden", "ride": "rode ridden", "wake": "woke woken", "take": "took taken", "make": "made",
        "feel": "felt", "draw": "drew drawn", "speak": "spoke spoken", "lead": "led", "become": "became",
        "fall": "fell fallen", "shake": "shook shaken", "hang": "hung", "mean": "meant", "feed": "fed",
        "blow": "blew blown", "freeze": "froze frozen", "forgive": "forgave forgiven", "tear": "tore torn",
        "sink": "sank sunk", "swing": "swung", "learn": "learnt", "dream": "dreamt",
    }.items()
    for form in forms.split()
}


_CONSONANT_Y = re.compile(r"[^aeiouy]y$")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The word's stem (memoised: a capsule stems the same words of every passage again)."""
    w = word.lower()
    w = _IRREGULAR.get(w, w)
    for suf in ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "s"):
        if len(w) - len(suf) >= 4 and w.endswith(suf):
            return w[: -len(suf)]
    # a silent final e ("compare" meets "compared", "comparison"; "configure" "configuration") and a
    # final y after a consonant ("theory" meets "theories", "company" "companies")
    if len(w) >= 6 and (w.endswith("e") and not w.endswith(("ee", "ie", "ye")) or _CONSONANT_Y.search(w)):
        return w[:-1]
    return w


def facets_of(goal: str, limit: int = 12) -> list[str]:
    """Content words of a goal, stemmed, deduplicated, in order."""
    out: list[str] = []
    for w in word_tokens(goal):
        if len(w) < 3 or w in STOP or w.isdigit():
            continue
        s = stem(w)
        if s not in out:
            out.append(s)
    return out[:limit]


#: the stems irregular forms have ("bought" → "buy"): the only stems a word need not start with
_IRREGULAR_STEMS = frozenset(stem(form) for form in _IRREGULAR)


def covered(text: str, facets: list[str]) -> list[str]:
    """The facets a word of `text` has as its stem or starts with, in the facets' order.

    A word's stem is a prefix of the word, irregular forms aside, so a word with the facet as its
    stem starts with it: only the irregular forms' stems need computing."""
    if text.isascii():
        # nor can a facet that is not in the lower-case text be covered (most passages hold none)
        low = text.lower()
        facets = [f for f in facets if f in low or f in _IRREGULAR_STEMS]
        if not facets:
            return []
    raw = set(word_tokens(fold(text)))
    irregular = {stem(w) for w in raw if w in _IRREGULAR}
    joined = "\0" + "\0".join(raw)
    return [f for f in facets if f in irregular or starts_any(raw, f, joined)]


def is_question(sentence: str) -> bool:
    """A sentence that asks: it ends with '?', markup closing it aside (a FAQ's bold "**Q: …?**")."""
    return sentence.rstrip(CLOSERS).endswith("?")


def ends_with_question(text: str) -> bool:
    """The passage's last sentence asks a question, so the paragraph after it is probably its reply."""
    last = next((line for line in reversed(text.split("\n")) if line.strip()), "")
    return is_question(last)


#: a command line in backticks, or a fence line (a fenced block counts as code from its opening fence)
_CODE_LINE_RE = re.compile(r"^\s*(?:`[^`\n]+`\s*|```.*|~~~.*)$")


def is_code(text: str) -> bool:
    """The passage is only code: command lines in backticks, or a fenced block."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines:
        return False
    return lines[0].lstrip().startswith(("```", "~~~")) or all(_CODE_LINE_RE.match(ln) for ln in lines)


def leads_in(sentence: str) -> bool:
    """A sentence ending in a colon introduces what follows it ("Sync happens:", a command's caption)."""
    return sentence.rstrip().endswith(":")


def captions(text: str, following: str) -> bool:
    """A one-line paragraph ending in a colon right above a passage of code is that code's caption
    ("- Connect through a jump host to a remote server:" above `ssh -J …`): the command says what it
    does only through it, as a reply only through the question before it."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return len(lines) == 1 and leads_in(lines[0]) and is_code(following)


def split_passages(canonical: str, body_start_line: int) -> list[Passage]:
    lines = canonical.split("\n")
    out: list[Passage] = []
    heading: str | None = None
    block: list[int] = []
    fence = False

    def flush() -> None:
        nonlocal block
        if not block:
            return
        texts = [lines[i] for i in block]
        if all(HEADING_RE.match(t) for t in texts if t.strip()):
            block = []
            return
        start = 0
        while start < len(block):
            size, end = 0, start
            while end < len(block) and (size == 0 or size + len(lines[block[end]]) + 1 <= MAX_PASSAGE_CHARS):
                size += len(lines[block[end]]) + 1
                end += 1
            piece = block[start:end]
            text = "\n".join(lines[i] for i in piece)
            if text.strip():
                out.append(Passage(piece[0] + 1, piece[-1] + 1, text, heading))
            start = end
        block = []

    for i in range(max(body_start_line - 1, 0), len(lines)):
        line = lines[i]
        if FENCE_RE.match(line):
            fence = not fence
            block.append(i)
            if not fence:
                flush()
            continue
        if fence:
            block.append(i)
            continue
        h = HEADING_RE.match(line)
        if h:
            flush()
            heading = h.group(1).strip() or heading
            continue
        if not line.strip():
            flush()
            continue
        block.append(i)
    flush()
    return out
