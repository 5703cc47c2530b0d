"""Answer-type check: does a sentence state a value of the kind the question asks for?

A sentence can contain every content word of a question and still not answer it ("I got a puppy
two weeks ago" does not say the puppy's name). Extraction has no model that could tell, so the
rule is conservative and checkable: the answer must *name something specific* that the question
does not already contain, of the type the question asks for —

* `number` / `quantity`: a number (digits or a number word) — for `how many <noun>` next to that
  noun (`3 kinds`, `four 1500-word sections`; "one mint account" does not count kinds); for
  `how long/often/old` also the unit or frequency that goes with it (`twice a week`, `10 years`),
  and only a sentence that names one states a value: a recurrence for `how often` (`every 20
  seconds`, `daily`), a unit for `how long` (a bare `~2s` is neither);
* `person` asked as `who <verb>ed …`: the doer of that deed (`developed by Facebook`,
  `Linus Torvalds developed`), not any name near the question's words;
* "what does X mean": the word a definition gives for X (`the Italian word for tomato`);
* `time`: a date, weekday, month, year or relative time (`yesterday`, `last week`);
* `person` / `place` / `thing`: a quoted title or code span; a proper name (a capitalised word
  that the notes never write in lower case) or an identifier (`v2.4`, `deploy_staging`) in a
  clause that states the question's words or opens with its subject (`SMTP is smtp.gmail.com`);
  the word a sentence names with the question's own noun or a naming verb (`the systemd unit
  app-staging`, `a puppy named Coco`); for "what kind of X" only the word that classifies X
  (`Hawaiian pizza`, not `a great pizza`); after a preposition that opens the question
  ("according to whom", "from which version") the object of the same preposition (`According to
  Jim Kalbach, …`, `from Docker 1.10`);
* `reason`: a causal clause (`because`, `so that`, `due to`, …);
* `polar` (yes/no) and `manner` ("how did …", "what does X do …") questions have no value a quoted sentence can be
  checked to state: extraction abstains on them.

Names that recur across much of the evidence (the people a notebook is about, a project's own
name) are context rather than answers, and so are `Label:` prefixes at the start of a line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from gno.evidence.claims import NUMBER_WORDS
from gno.evidence.forms import examples_removed, formed_values
from gno.evidence.passages import covered, stem
from gno.evidence.question import CALENDAR_WORDS, IRREGULAR, KIND_WORDS, TIME_WORD_RE, QuestionFrame
from gno.retrieve.grammar import STOPWORDS, singular, word_tokens

# markdown emphasis around a word (`_PBKDF2_`, `**AES**`): markup, not part of the name it marks
EMPHASIS_RE = re.compile(r"(?<![\w*])[_*]{1,2}(?=\w)|(?<=\w)[_*]{1,2}(?![\w*])")
LABEL_RE = re.compile(r"^\s*\w[\w .'’-]{0,40}:\s")
#: `[CodeMirror](https://codemirror.net)`: a link reads as its text; its target is no clause of the sentence
MD_LINK_RE = re.compile(r"!?\[([^\]\n]{1,120})\]\([^)\s]{1,400}\)")
#: ", which does …", ", who …": a relative clause says more about the noun of the clause before it
RELATIVE_RE = re.compile(r"\s*(?:which|who|whose)\b", re.I)
#: "the number of failed login attempts …, defaults to `10`": the sentence names what its number counts
COUNT_OF_RE = re.compile(r"\b(?:number|count|maximum|minimum|max|min|limit)\s+(?:amount\s+)?of\b", re.I)
# "double", “curly”, `code` quotes; 'single' ones only around a capitalised title ('em is no title)
QUOTED_RE = re.compile(r"(?<!\w)(?:[\"“`]([^\"”`\n]{2,80})[\"”`]|['‘]([A-Z0-9][^'’\n]{1,79})['’])(?!\w)")
LOWER_RE = re.compile(r"(?<![\w'’-])[a-z][\w'’-]*")
CAP_RE = re.compile(r"(?<![\w'’-])([A-Z][\w'’-]*)")
MID_CAP_RE = re.compile(r"(?<=[a-z,])\s+([A-Z][\w'’-]*)")
IDENT_RE = re.compile(r"(?<![\w-])([a-z][\w-]*(?:[_.][\w-]+)+|[a-z][a-z-]*\d[\w-]*)(?![\w-])")
NAMING_RE = re.compile(
    r"\b(?:called|named|titled|name is|name's|name was)\s+(?:(?:him|her|it|them)\s+)?[\"“'‘*_`]*([\w'’-]+)", re.I
)
# "the Italian word *for* tomato", "Zettelkasten *means* slip box": what a definition gives for a word
MEANING_RE = re.compile(
    r"\b(?:word|term|name|short|stands)\s+for\s+[\"“'‘*_`]*([\w'’-]+)|\b(?:means|meaning)\s+[\"“'‘*_`]*([\w'’-]+)", re.I
)
DIGITS_RE = re.compile(r"\b\d+(?:[.,:/-]\d+)*(?:st|nd|rd|th|s)?\b")
TIME_RE = re.compile(
    rf"\b(yesterday|today|tonight|tomorrow|ago|last|next|{CALENDAR_WORDS}|"
    r"spring|summer|autumn|fall|winter|morning|evening|night|weekend|\d{1,4}(?:st|nd|rd|th)?)\b",
    re.I,
)
FREQUENCY_RE = re.compile(
    r"\b(once|twice|daily|weekly|monthly|yearly|annually|hourly|every|each|minutes?|hours?|days?|weeks?|months?|"
    r"years?|decades?)\b",
    re.I,
)
RATE_RE = re.compile(r"\b(?:times?|once|twice)\s+(?:a|an|per|each|every)\s+(?:day|week|month|year|night)\b", re.I)
REASON_RE = re.compile(r"\b(because|so that|due to|in order to|as a result|that's why|that is why|the reason)\b", re.I)
DEFINES_RE = re.compile(r"\s*(?:the\s+)?\**([A-Z][\w'’.-]*)\**\s*(?:is|are|was|were)\b")
CLAUSE_RE = re.compile(r"[,;:()—–]|\s-\s|\bbut\b")
PRONOUNS = frozenset("i i'm i've i'd i'll we we're you you're he she it they".split())
# a sentence-initial word followed by one of these reads as a subject ("Alice is the on-call lead")
SUBJECT_VERBS = frozenset("is was are were has had owns leads runs will can does did".split())
# adjectives that praise or count rather than classify: "a *big* game" does not say what kind of game
EVALUATIVE = frozenset(
    "big small large little great good bad best better new old young another other first last next same different "
    "few several whole real huge nice cool awesome amazing favorite fun special entire own crazy weird wild lovely "
    "beautiful terrible horrible fantastic wonderful incredible perfect cute super certain particular".split()
)
#: units of measure (stemmed): a number in a sentence that names the unit counts it
UNITS = frozenset(
    stem(u) for u in "second minute hour day week month year millisecond byte kilobyte megabyte gigabyte character "
    "pixel percent".split()
)
#: "how often", "how long" (after a leading preposition too): the value is a frequency or a duration
TIMED = re.compile(r"^\s*(?:\w+\s+)?how\s+(often|frequently|long)\b", re.I)
_PERIOD = r"(?:second|minute|hour|day|week|month|year|ms|s|m|h|d)s?"
#: how a recurrence is written: "every 20 seconds", "each day", "daily", "twice a week", "3 times per hour"
RECURRENCE_RE = re.compile(
    rf"\b(?:every|each)\s+(?:\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+)?\s*|few\s+|other\s+)?{_PERIOD}\b|"
    r"\b(?:hourly|daily|nightly|weekly|monthly|yearly|annually)\b|"
    rf"\b(?:once|twice|\d+\s+times?)\s+(?:a|an|per|each|every)\b|\bper\s+{_PERIOD}\b",
    re.I,
)
CONTEXT_SHARE = 0.34  # a name in more than a third of the evidence passages is what the notes are about


@dataclass(frozen=True)
class Vocabulary:
    """Word statistics of the notes: which capitalised words are names, and which are context."""

    lower: frozenset[str]
    capital: frozenset[str]
    context: frozenset[str]


def vocabulary(passages: Iterable[str], documents: Iterable[str] = ()) -> Vocabulary:
    """Words the notes write in lower case, words they capitalise mid-sentence, frequent names.

    The lower-case vocabulary is what tells "Guess what" (a common word starting a sentence) from
    "Coco is adorable" (a name): a word the notes never write in lower case, and capitalise where
    no sentence starts, is a name.
    """
    passages = list(passages)
    lower: set[str] = set()
    capital: set[str] = set()
    df: Counter[str] = Counter()
    for t in passages:
        df.update({m.lower() for m in CAP_RE.findall(t)})
    for t in [*passages, *documents]:
        lower.update(LOWER_RE.findall(t))
        capital.update(re.sub(r"['’]s$", "", m).lower() for m in MID_CAP_RE.findall(t))
    n = max(len(passages), 1)
    context = {w for w, k in df.items() if k >= 3 and k / n > CONTEXT_SHARE}
    return Vocabulary(frozenset(lower), frozenset(capital), frozenset(context))


def _novel(word: str, fr: QuestionFrame) -> bool:
    toks = word_tokens(re.sub(r"['’]s$", "", word).lower())
    return bool(toks) and not all(stem(t) in fr.words or t in fr.words for t in toks)


def _all_novel(title: str, fr: QuestionFrame) -> bool:
    """A quoted title that repeats the question's words is about the topic, not the value asked for."""
    toks = [t for t in word_tokens(title.lower()) if t not in STOPWORDS]
    return bool(toks) and not any(stem(t) in fr.words or t in fr.words for t in toks)


def specifics(text: str, fr: QuestionFrame, vocab: Vocabulary, *, reply: bool = False) -> list[str]:
    """Quoted titles; names and identifiers in a clause that states the question's words (anywhere in
    a `reply` to the quoted question); what a sentence names with the question's noun or a naming verb."""
    body = EMPHASIS_RE.sub(" ", LABEL_RE.sub("", MD_LINK_RE.sub(r"\1", text), count=1))
    titles = [t for m in QUOTED_RE.finditer(body) if _all_novel(t := m.group(1) or m.group(2), fr)
              or _coded(m, fr, body)]
    found: list[tuple[int, str]] = []
    for m in CAP_RE.finditer(body):
        w = m.group(1).rstrip("'’-")
        low = re.sub(r"['’]s$", "", w).lower()
        if low in PRONOUNS or low in vocab.context or TIME_WORD_RE.fullmatch(low) or not _novel(w, fr):
            continue
        if _addressee(body, m.start(), m.end()):
            continue
        if _mid_sentence(body, m.start()) or _initial_name(body, m.end(), low, vocab):
            found.append((m.start(), w))
    found += [(m.start(1), m.group(1)) for m in IDENT_RE.finditer(body) if _novel(m.group(1), fr)]
    kinds = [w for w in _modifiers(body, fr) if _novel(w, fr)]
    if fr.sort:
        return kinds
    if fr.meaning:
        return [w for m in MEANING_RE.finditer(body) if _novel(w := m.group(1) or m.group(2), fr)] + titles
    # "according to whom": the name after the question's own preposition, whichever clause it opens
    prepped = [m.group(1).rstrip(".") for m in re.finditer(rf"\b{re.escape(fr.prep)}\s+([\w'’.-]+)", body, re.I)
               if fr.prep and (m.group(1)[:1].isupper() or re.search(r"\d", m.group(1))) and _novel(m.group(1), fr)]
    bounds = [0] + [m.end() for m in CLAUSE_RE.finditer(body)] + [len(body) + 1]
    clauses: list[tuple[int, int, bool]] = []
    listing = False  # "… levels of management: Top, Middle and First": the items the clause announces
    for a, b in zip(bounds, bounds[1:], strict=False):
        listing = listing and body[a - 1 : a] in (",", ":")
        hit = bool(covered(body[a:b], fr.content)) or _defines(body[a:b], fr) or listing
        listing = listing or (hit and body[b - 1 : b] == ":")
        # a parenthesis belongs to the clause it interrupts: "a key is derived (using PBKDF2)"
        clauses.append((a, b, hit or (a > 0 and body[a - 1] == "(" and bool(clauses) and clauses[-1][2])))
        if hit and clauses[:-1] and body[a - 1 : a] == "," and RELATIVE_RE.match(body[a:b]):
            # "SilverBullet uses CodeMirror, which does the keyboard handling": the noun the
            # relative clause describes stands in the clause before it
            clauses[-2] = (clauses[-2][0], clauses[-2][1], True)
    kept = [w for pos, w in found if reply or any(a <= pos < b and hit for a, b, hit in clauses)]
    return titles + kept + prepped + kinds + [w for w in _apposed(body, fr) if _novel(w, fr)]


_LINKS = frozenset({"as", "with", "the", "a", "an"})


def _coded(m: re.Match[str], fr: QuestionFrame, text: str) -> bool:
    """A code span written as a value (`Journal/`, `--single`): punctuation makes it more than the
    question's own word, whatever words it repeats. So does the word the sentence names as the
    thing asked for: "which tag do journal pages get" is answered by "tagged `journal`"."""
    code = m.group(1) or ""
    if not m.group(0).startswith("`"):
        return False
    if re.search(r"[^\w\s]", code) and code.lower() not in fr.text.lower():
        return True
    if not fr.target:
        return False
    head = singular(fr.target[-1].lower())
    before = [w for w in word_tokens(text[max(0, m.start() - 40) : m.start()].lower())[-2:] if w not in _LINKS]
    return bool(before) and before[-1] in {head, f"{head}s", f"{head}d", f"{head}ed", f"{head}{head[-1:]}ed"}


def _defines(clause: str, fr: QuestionFrame) -> bool:
    """"SMTP is smtp.gmail.com": a clause that opens with the subject of the question and a copula
    says what that subject is, whether or not it repeats the question's other words."""
    m = DEFINES_RE.match(clause)
    return m is not None and stem(re.sub(r"['’]s$", "", m.group(1)).lower()) in fr.subjects


def _modifiers(text: str, fr: QuestionFrame) -> list[str]:
    """The word right before the question's noun: "what kind of pizza" → "*Hawaiian* pizza", and
    "which branch" → "the *main* branch" (for a plain which/what question only a definite "the …"
    singles one out; "a community event" does not say which event)."""
    out: list[str] = []
    for noun in fr.target[-1:]:
        for m in re.finditer(rf"(\w+\s+)?([\w'’-]+)\s+{re.escape(noun)}\b", text, re.I):
            w, low = m.group(2), m.group(2).lower()
            if low in STOPWORDS or low in PRONOUNS or low in EVALUATIVE or low in NUMBER_WORDS or low.isdigit():
                continue
            if re.search(r"[^-](ed|ing)$", low):
                continue
            if fr.sort or (m.group(1) or "").strip().lower() == "the":
                out.append(w)
    return out


def _mid_sentence(text: str, pos: int) -> bool:
    before = text[:pos].rstrip()
    return bool(before) and (before[-1].isalnum() or before[-1] in ",'’")


def _addressee(text: str, start: int, end: int) -> bool:
    """"Hey Andrew", "Thanks, Sam!", "…, Sam.": the person spoken to, not the answer."""
    before = text[:start].lower().rstrip(" ,")
    if re.search(r"(?:^|\W)(?:hey|hi|hello|thanks|thank you|dear|bye|congrats|congratulations)$", before):
        return True
    return text[start - 2 : start] == ", " and re.match(r"[!?.]|$", text[end : end + 1]) is not None


def _initial_name(text: str, end: int, low: str, vocab: Vocabulary) -> bool:
    """A capitalised word that starts a sentence is a name only when the notes never write it in
    lower case, and either capitalise it mid-sentence elsewhere or make it the sentence's subject;
    interjections and adverbs ("Yes,", "Hopefully", "Combining …") are not names."""
    if low in vocab.lower or low.endswith(("ly", "ing")) or "-" in low or re.search(r"['’](re|ll|ve|d|m|t)$", low):
        return False
    if text[end : end + 1] in (",", "!", ";", ":", "-", "—"):
        return False
    nxt = word_tokens(text[end : end + 30].lower())[:1]
    return low in vocab.capital or bool(nxt and nxt[0] in SUBJECT_VERBS)


def _apposed(text: str, fr: QuestionFrame) -> list[str]:
    """`a puppy named Coco`, `the systemd unit app-staging`: the word after a naming verb, or a
    name/identifier right after the question's own noun."""
    out = [m.group(1) for m in NAMING_RE.finditer(text)]
    for noun in fr.target:
        for m in re.finditer(rf"\b{re.escape(noun)},?\s+([\w'’-]+)", text, re.I):
            w = m.group(1)
            low = w.lower()
            specific = w[:1].isupper() or re.search(r"[\d_.-]", w)
            if specific and low not in PRONOUNS and not TIME_WORD_RE.fullmatch(low):
                out.append(w)
    return out


def _unit_named(text: str) -> bool:
    return any(stem(singular(t)) in UNITS for t in word_tokens(text.lower()))


def _counts(text: str, fr: QuestionFrame) -> list[str]:
    """"How many replicas …" → "two streaming replicas": a number next to a word of the question —
    to the noun it counts when the question names one ("how many *kinds*": "3 kinds", not "one account")."""
    toks = word_tokens(text.lower())
    if fr.counted in UNITS and any(stem(singular(t)) == fr.counted for t in toks):
        # "how many seconds": a sentence that names the unit states its number anywhere ("(in seconds) …
        # defaults to 60")
        return [t for t in toks if t.isdigit() and t not in fr.words]
    if _count_named(text, fr):
        # "the number of failed login attempts …, defaults to `10`": every bare number of the sentence
        # that measures nothing else ("60 seconds" is a duration) counts what the sentence names
        return [t for i, t in enumerate(toks) if t.isdigit() and t not in fr.words and not _unit_next(toks, i)]
    out: list[str] = []
    for i, t in enumerate(toks):
        if (t in NUMBER_WORDS or t.isdigit()) and t not in fr.words:
            # the noun may follow a compound modifier: "four *1500-word* sections"
            if any(_counts_noun(n, fr) for n in toks[i + 1 : i + (4 if fr.counted else 3)]):
                out.append(t)
    return out


def _count_named(text: str, fr: QuestionFrame) -> bool:
    """The sentence says "the number of" what the question counts, the counted noun within four words."""
    if not fr.counted:
        return False
    for m in COUNT_OF_RE.finditer(text):
        after = word_tokens(text[m.end() : m.end() + 60].lower())[:4]
        if any(_counts_noun(w, fr) for w in after):
            return True
    return False


def _unit_next(toks: list[str], i: int) -> bool:
    return i + 1 < len(toks) and stem(singular(toks[i + 1])) in UNITS


def _counts_noun(word: str, fr: QuestionFrame) -> bool:
    if not fr.counted:
        return bool(covered(word, fr.content))
    if fr.counted == "kind":
        return singular(word) in KIND_WORDS
    return stem(singular(word)) == fr.counted or word.startswith(fr.counted)


def _doers(text: str, fr: QuestionFrame) -> list[str]:
    """"Hive was developed *by Facebook*", "*Linus Torvalds* developed git": the doer of the asked deed."""
    forms = {fr.agent_of, IRREGULAR.get(fr.agent_of, fr.agent_of)}
    verb = "|".join(re.escape(f) for f in sorted(forms))
    name = r"([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*)"
    out = [m.group(1) for m in re.finditer(rf"\b(?:{verb})\b(?:\s+\w+){{0,3}}?\s+by\s+(?:the\s+)?{name}", text)]
    out += [m.group(1) for m in re.finditer(rf"{name}(?:\s+\w+ly)?\s+(?:{verb})\b", text)]
    # "pulp writer Lester Dent outlines a master plot": the doer named by the noun of the deed
    if nouns := "|".join(sorted(_agent_nouns(fr.agent_of))):
        out += [m.group(1) for m in re.finditer(rf"\b(?:{nouns})\s+{name}", text)]
    return [w for w in out if _novel(w, fr) and w.lower() not in PRONOUNS]


#: the nouns of a deed's doer that "-er"/"-or" does not derive from its past tense
_AGENTS = {"wrote": ("writer", "author"), "made": ("maker", "creator"), "built": ("builder",)}


def _agent_nouns(verb: str) -> set[str]:
    """"developed" → developer, "created" → creator, "wrote" → writer or author."""
    if verb in _AGENTS:
        return set(_AGENTS[verb])
    base = verb[:-2] if verb.endswith("ed") else ""
    return {base + "er", base + "or", base + "r"} if len(base) >= 3 else set()


def typed_values(text: str, fr: QuestionFrame, vocab: Vocabulary, *, reply: bool = False) -> list[str]:
    """The values of the question's answer type that `text` states beyond the question's words.

    `reply`: `text` answers the question quoted right before it, so all of it is about the question.
    """
    kind = fr.kind
    if fr.form:
        return formed_values(text, fr.form, fr.text)
    if kind in ("number", "quantity"):
        text = examples_removed(text)  # "e.g. `SB_PORT=1234`" gives no value of its own
    if kind == "number":
        return _counts(text, fr)
    if kind == "quantity":
        words = [w for w in word_tokens(text.lower()) if w in NUMBER_WORDS and w not in fr.words]
        digits = [n for n in DIGITS_RE.findall(text) if n not in fr.words]
        timed = TIMED.match(fr.text)
        if timed and not (RECURRENCE_RE.search(text) if timed.group(1) != "long" else _unit_named(text)):
            return []  # "how often": a recurrence ("every 20 seconds"), "how long": a unit; a bare number is neither
        if digits or words:
            words += [m.lower() for m in FREQUENCY_RE.findall(text) if m.lower() not in fr.words]
        return [*digits, *words, *RATE_RE.findall(text)]
    if kind == "time":
        found = [m for m in TIME_RE.findall(text) if m.lower() not in fr.text.lower()]
        # "on the 15th" without its month is not a date
        return found if any(not re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?", m) for m in found) else []
    if kind == "reason":
        return REASON_RE.findall(text)
    if kind in ("polar", "manner"):
        return []  # yes/no, and "how did …" descriptions: nothing a quoted sentence can be checked to state
    if kind == "person" and fr.agent_of:
        return _doers(text, fr)
    return specifics(text, fr, vocab, reply=reply)
