"""What a question asks for: its facets, its names, and the type of value an answer must state.

The extractive answerer and the verifier both need more than the question's content words: a
sentence that repeats every word of "Where did Dave buy the car?" without naming a place echoes
the question, it does not answer it. `frame()` records the expected answer type (the wh-word and
the noun it governs: `how many` → a number, `which city` → a place, `who` → a person), the
question's own words (an answer must say something beyond them), the capitalised names (the
subject the passage must be about, not the answer) and its content-word bigrams (a passage that
states the question's phrases in the same order is the one the question is about). Words that
only shape the question are no facets an answer must state: a leading preposition ("according to
whom"), `mean` in "what does X mean", "the author" of a personal note (its first person), and the
noun an acronym modifies ("the *SMTP server*": a note says what SMTP is, not that it is a server).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gno.evidence.focus import MEASURES, WH, Focus, parse
from gno.evidence.forms import form_of
from gno.evidence.passages import facets_of, stem
from gno.retrieve.grammar import STOPWORDS, singular, word_tokens

POLAR = frozenset("did does do is are was were can could has have had will would should shall may might".split())
# nouns after `what`/`which` that fix the answer type whatever the wh-word
TIME_NOUNS = frozenset("year date day month time week weekday season".split())
NUMBER_NOUNS = frozenset("number amount percentage percent count total price cost age score".split())
PLACE_NOUNS = frozenset(
    "city country place state town village region area location continent island street restaurant venue".split()
)
# nouns after `what is the …` that ask for a measure: a number with its unit ("the maximum *length*")
MEASURE_NOUNS = frozenset("length size limit duration width height weight capacity timeout interval".split())
PERSON_NOUNS = frozenset("person people man woman friend name author artist player singer band".split())
#: weekday and month names and the month abbreviations (shared with `answer_type.TIME_RE`)
CALENDAR_WORDS = (
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|"
    r"jun|jul|aug|sep|sept|oct|nov|dec"
)
TIME_WORD_RE = re.compile(
    rf"{CALENDAR_WORDS}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|today|yesterday|tomorrow|tonight|last|next"
)
# words that shape a question rather than say what it is about ("what *kind* of", "as *mentioned*")
PHRASING = frozenset(
    "kind type sort specific particular mention mentioned according accord recently currently exactly main".split()
)
# "how *strong* is the key": a measure adjective asks for a value with a number ("256-bit")
QUANTITY = re.compile(
    r"^\s*how\s+(long|often|old|far|frequently|big|large|small|tall|high|wide|deep|heavy|fast|quick|slow|strong"
    r"|soon|much time)\b",
    re.I,
)
NUMBER = re.compile(r"^\s*how\s+(many|much)\b", re.I)
# "According to whom …", "From which version …", "In what year …": a preposition before the wh-word
LEAD_PREP = re.compile(
    r"^\s*(according to|in|on|at|from|for|to|by|with|since|until|during|of|after|before)\s+"
    r"(?=(?:what|which|whom|who|when|where|how)\b)",
    re.I,
)
# "What does the Italian word pomodoro mean?": asks for a meaning, and "mean" only shapes the question
# ("what *key* does Mod stand for": the same, for a value of a named kind)
MEANING = re.compile(r"^\s*what\s+(?:\w+\s+)?(?:does|do|did)\b.*\b(?:mean|stand\s+for)\b.*$", re.I)
# "… *by default*": the value a note states when nothing is set; notes give it without the words
# ("its pages are prefixed with `Journal/`"), so the qualifier is no facet an answer must state
BY_DEFAULT = re.compile(r"\bby\s+default\b", re.I)
# "when you don't say how many", "unless told otherwise", "when no count is given", "if not specified": ways to
# say "by default", which a question is read as (the docs write "default", never the question's paraphrase)
_SAY = r"(?:say|specify|set|give|pick|choose|pass|provide|name|configure|tell\s+it)"
DEFAULT_PARAPHRASE = re.compile(
    r",?\s*\b(?:"
    rf"(?:when|if|unless)\s+(?:you|i|we|they|one|users?)\s+(?:don'?t|do\s+not|doesn'?t|does\s+not|didn'?t|never)\s+{_SAY}"
    r"(?:\s+(?:how\s+(?:many|much|long|often)|which(?:\s+one)?|what|one|it|any(?:thing|one)?|otherwise|a\s+\w+))?"
    r"|unless\s+(?:told|specified|set|configured|stated|asked|instructed)\s+otherwise"
    r"|(?:when|if)\s+(?:no|none|nothing)(?:\s+\w+){0,2}\s+(?:is|are|was)\s+"
    r"(?:given|specified|set|passed|provided|chosen|named|configured|requested)"
    r"|(?:when|if)\s+(?:not|un)\s*(?:specified|set|given|configured)"
    r"|out\s+of\s+the\s+box"
    r")(?=\s*[?.,]|\s*$)",
    re.I,
)


def as_by_default(question: str) -> str:
    """The question with a paraphrase of "by default" written as "by default" (see `DEFAULT_PARAPHRASE`)."""
    return DEFAULT_PARAPHRASE.sub(" by default", question)


# "What's the shortcut …", "Where's the file …", "Whats the port": a wh-word with its verb contracted is read
# as written out, so the kind of answer ("where" asks for a place) and the thing asked for are found
_WH_CONTRACTION = re.compile(r"\b(what|where|who|how|when|which|why)(?:['’]s|s(?=\s+the\b))\b", re.I)
_WH_ARE = re.compile(r"\b(what|where|who|how|when|which|why)['’]re\b", re.I)


def expanded(question: str) -> str:
    """The question with a contracted wh-word written out ("What's" → "What is", "Where're" → "Where are")."""
    return _WH_ARE.sub(r"\1 are", _WH_CONTRACTION.sub(r"\1 is", question))


# "Can you tell me which port …", "Do you know where …", "I'd like to know how …", "Quick question: what …": a
# wh-question asked inside a request is that question (as asked, it reads as a yes/no question, which an
# extractive answer never answers, and "want", "quick" become words the answer must state)
_PREAMBLE = re.compile(
    r"^\s*(?:(?:hey|hi|hello|ok|okay|so|well|quick\s+question|question|please)\s*[,:!-]?\s+)*"
    r"(?:(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|show|remind)\s+me"
    r"|(?:do|does|did)\s+(?:you|anyone|anybody)\s+know|(?:please\s+)?tell\s+me"
    r"|i(?:\s+(?:want|wanted|would\s+like|need)|['’]d\s+like)\s+to\s+know|i(?:['’]m|\s+am)\s+wondering|i\s+wonder"
    r"|any\s+idea)\s*[,:-]?\s+)?"
    rf"(?=(?:{'|'.join(sorted(WH))})\b)",
    re.I,
)


def direct(question: str) -> str:
    """The wh-question a request or greeting carries ("Can you tell me which port …" → "which port …")."""
    return _PREAMBLE.sub("", question, count=1)

# "Where did *the author* go …": in a personal note the author is its first person, never named
AUTHOR = re.compile(r"\bthe\s+(author|writer)\b(?!\s+of\b)", re.I)
# "What does Calvin do to relax?": asks for an activity, which no name or number in a sentence states;
# "what do you add to the URL *to do* a reset" asks for the thing added ("to do" is the purpose)
ACTIVITY = re.compile(r"^\s*what\s+(?:does|do|did|will|would|can|could)\s+.+?(?<!\bto)\s+do\b", re.I)
# "What is *the SMTP server* for …": the noun an acronym modifies is the kind of thing the acronym
# already names (notes write "SMTP is smtp.gmail.com", "the DNS is …"), so the answer need not repeat it
NAMED_NOUN = re.compile(r"\b(?:the|a|an|its|their|his|her|our|your|this|that)\s+[A-Z][A-Z0-9]+\s+([a-z][\w-]*)\b")
# "what *kind of* number": asks for a kind ("a *prime* number"), whatever noun it sorts
SORT_OF = re.compile(r"^\s*(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b", re.I)
WH_NOUN = re.compile(r"^\s*(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+|sort\s+of\s+)?([\w'’-]+)", re.I)


@dataclass(frozen=True)
class QuestionFrame:
    """The parts of a question that decide whether a sentence answers it."""

    text: str
    kind: str  # polar | number | quantity | time | person | place | reason | manner | thing
    facets: list[str]
    names: frozenset[str]
    subjects: frozenset[str]  # the names that are not dates: who or what the question is about
    content: list[str]
    words: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    target: tuple[str, ...] = ()  # the words after `what`/`which` ("which *systemd unit*", "what kind of *games*")
    plural: bool = False  # "which cities has …": a set of answers across notes
    sort: bool = False  # "what kind of …": the answer is a kind, the word that modifies the noun
    counted: str = ""  # "how many *kinds* of accounts": the noun the number must count (stemmed)
    agent_of: str = ""  # "who *developed* Hive": the deed the answer must be the doer of
    meaning: bool = False  # "what does X mean": the answer is the word a sentence gives for X
    prep: str = ""  # the preposition before the wh-word: the answer is its object ("according to *X*")
    focus: Focus = Focus((), (), (), frozenset())  # what the question is about (see `focus`)
    form: str | None = None  # the written form of the value asked for ("which shortcut": a key chord)
    optional: frozenset[str] = frozenset()  # content an answer need not repeat: the measure, the target's noun

    @property
    def relation(self) -> bool:
        """A named value asked through a verb ("which mode *replaces* …"): the answer must state the verb."""
        return self.kind == "thing" and bool(self.focus.target) and bool(self.focus.verbs)

    @property
    def required(self) -> list[str]:
        """The content facets an answer must state (or paraphrase): not the value's type."""
        return [f for f in self.content if f not in self.optional] or self.content


def name_stems(question: str, *, dates: bool = True) -> set[str]:
    """Capitalised words after the first: names and titles the question is *about*, never the answer."""
    words = [re.sub(r"['’]s?$", "", w).lower() for w in re.findall(r"[\w'’]+", question)[1:] if w[:1].isupper()]
    return {stem(w) for w in words if dates or not TIME_WORD_RE.fullmatch(w)}


def content_stems(text: str) -> list[str]:
    """Stemmed non-stopword tokens in order (for bigrams: the question's phrases)."""
    return [stem(w) for w in word_tokens(text.lower()) if w not in STOPWORDS and len(w) > 1]


def unprefixed(question: str) -> tuple[str, str]:
    """(preposition, rest): "According to whom is …" → ("according to", "whom is …")."""
    m = LEAD_PREP.match(question)
    return (m.group(1).lower(), question[m.end():]) if m else ("", question)


def answer_kind(question: str) -> str:
    """The type of value the question asks for, from its wh-word and the noun that follows it."""
    q = unprefixed(question)[1].strip()
    low = q.lower()
    first = low.split(" ", 1)[0] if low else ""
    if first in POLAR:
        return "polar"
    if NUMBER.match(q):
        return "number"
    if QUANTITY.match(q):
        return "quantity"
    if first == "when":
        return "time"
    if first in ("who", "whom", "whose"):
        return "person"
    if first == "where":
        return "place"
    if first == "why":
        return "reason"
    if first == "how" or ACTIVITY.match(q):
        return "manner"
    m = WH_NOUN.match(q)
    if m and not SORT_OF.match(q):
        nouns = {singular(m.group(1).lower()), m.group(1).lower()}
        if nouns & TIME_NOUNS:
            return "time"
        if nouns & NUMBER_NOUNS:
            return "number"
        if nouns & PLACE_NOUNS:
            return "place"
        if nouns & PERSON_NOUNS:
            return "person"
    return "thing"


def target_phrase(question: str) -> list[str]:
    """The words after `what`/`which` up to the verb: "which *systemd unit* deploys" (lower case)."""
    rest = unprefixed(question)[1].strip()
    m = re.match(r"^\s*(?:what|which)\s+(?:(?:kind|type|sort|name)s?\s+of\s+)?(.*)$", rest, re.I)
    if not m:
        return []
    out: list[str] = []
    for w in word_tokens(m.group(1).lower())[:3]:
        if w in STOPWORDS or w in POLAR:
            break
        out.append(w)
    return out


# words that count the same thing: "how many kinds" is answered by "two types" as well as "3 kinds"
KIND_WORDS = frozenset("kind type sort category class variety form".split())


def counted_noun(question: str) -> str:
    """"How many Gestalt *rules* are there", "how many *kinds* of accounts": the head noun counted."""
    rest = unprefixed(question)[1]  # "After how many failed attempts …" counts attempts too
    m = NUMBER.match(rest)
    if not m:
        return ""
    head = ""
    for w in word_tokens(rest[m.end():].lower()):
        if w in STOPWORDS or w in POLAR:
            break
        head = w
    return "kind" if singular(head) in KIND_WORDS else stem(singular(head)) if head else ""


def deed(question: str) -> str:
    """"Who (originally) *developed* git": the past-tense verb whose doer is asked for, else ""."""
    m = re.match(r"^\s*who\s+(?:\w+ly\s+)?(\w+)\b", question, re.I)
    if not m:
        return ""
    verb = m.group(1).lower()
    return verb if verb not in POLAR and verb not in STOPWORDS and (verb.endswith("ed") or verb in IRREGULAR) else ""


#: past tense → past participle of the verbs questions ask the doer of ("who wrote" / "written by")
IRREGULAR = {"wrote": "written", "made": "made", "built": "built", "drew": "drawn", "began": "begun",
             "took": "taken", "gave": "given", "ran": "run", "chose": "chosen", "found": "found", "led": "led",
             "sang": "sung", "won": "won", "held": "held", "designed": "designed"}


def asks_for_a_set(question: str) -> bool:
    """`Which cities has …`, `What are …'s hobbies`: many answers, spread over many notes."""
    low = question.strip().lower()
    if re.search(r"\bboth\b", low) or re.search(r"\b[A-Z]\w+\s+and\s+[A-Z]\w+", question.strip()[1:]):
        return True  # about two subjects: each needs its own evidence
    m = WH_NOUN.match(low)
    phrase = target_phrase(question)
    # "what does X produce": `does` is the verb, not a noun the answer is a set of
    target = phrase[-1] if phrase else (m.group(1) if m and m.group(1) not in POLAR else None)
    if re.match(r"^(what|where)\s+(has|have)\s+\w+\s+\w+", low):
        return True  # "where has X camped": everything X ever did, across notes
    if re.match(r"^(what|which)\s+are\b", low) and not re.match(r"^(what|which)\s+are\s+(the\s+)?name", low):
        return True
    if target and singular(target) != target:
        return bool(re.search(r"\b(has|have|does|do|did|are|were)\b", low))
    return False


def frame(question: str) -> QuestionFrame:
    question = as_by_default(direct(expanded(question)))
    facets = facets_of(question)
    names = name_stems(question)
    prep, _rest = unprefixed(question)
    shaping = set(PHRASING) | set(word_tokens(prep))
    if MEANING.match(question):
        shaping |= {"mean", "means", "meaning", "stand"}
    shaping |= {m.group(1).lower() for m in AUTHOR.finditer(question)} if answer_kind(question) != "person" else set()
    shaping |= {n for m in NAMED_NOUN.finditer(question) if (n := m.group(1)) not in STOPWORDS and n not in POLAR}
    phrasing = {stem(w) for w in shaping} | shaping
    if shaping - set(PHRASING):  # words that only shape this question are not facets an answer must state
        facets = [f for f in facets if f not in phrasing or f in names] or facets
    named = [f for f in facets if f not in names] or facets
    content = [f for f in named if f not in phrasing] or named
    seq = content_stems(question)
    focus = parse(question)
    if shaping - set(PHRASING):  # "the author" of a personal note, "stand for": no focus a sentence must name
        kept = tuple(p for p in (tuple(w for w in ph if w not in shaping) for ph in focus.phrases) if p)
        verbs = tuple(v for v in focus.verbs if v not in shaping)
        focus = Focus(focus.target, verbs, kept, focus.names)
    form = form_of(focus.target)
    kind = answer_kind(question)
    if kind == "thing" and focus.target and singular(focus.target[-1]) in MEASURE_NOUNS:
        kind = "quantity"
    # the measure of "how long/often" is the answer's type, and the noun after "which"/"what" names
    # what the value is, not what it is about: a sentence stating `Ctrl-k` need not say "shortcut"
    asked = {stem(w) for w in re.findall(r"^\s*how\s+(\w+)", question.lower()) if w in MEASURES}
    asked |= {"default"} if BY_DEFAULT.search(question) else set()
    if form or (kind == "thing" and not MEANING.match(question)):
        asked |= {stem(p) for w in focus.target for p in re.split(r"[-_']+", w) if p}
    targets = {stem(w) for w in focus.target}
    subjects = {s for s in name_stems(question, dates=False) if s not in targets}
    # "which *mv* option", "which *ssh* flag": a flag is a command's, and the words before it name the
    # command, which the passage or note an answer quotes must name (`cavif --overwrite` is no mv flag)
    command = {stem(w) for w in focus.target[:-1]} if form in ("flag", "option") else set()
    return QuestionFrame(
        text=question,
        kind=kind,
        facets=facets,
        names=frozenset(names | command),
        subjects=frozenset(subjects | command),
        content=content,
        optional=frozenset(asked),
        words=frozenset(stem(w) for w in word_tokens(question.lower())),
        bigrams=frozenset(zip(seq, seq[1:], strict=False)),
        target=tuple(target_phrase(question)),
        plural=asks_for_a_set(question),
        sort=bool(SORT_OF.match(question)),
        counted=counted_noun(question),
        agent_of=deed(question),
        meaning=bool(MEANING.match(question)),
        prep=prep,
        focus=focus,
        form=form,
    )
