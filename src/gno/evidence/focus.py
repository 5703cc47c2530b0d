"""The focus of a question: what it is about, apart from what it asks for and how it asks it.

"What shortcut opens the command palette on Windows?" asks for a *shortcut* (the target: the kind
of value the answer is), through a verb (*opens*, which notes paraphrase freely: "invoked by
pressing", "launch it with"), about *the command palette* on *Windows* (the focus). A sentence that
states a shortcut answers the question only when it is about the command palette: the focus terms
must be stated by the sentence or by the section it stands in (its heading, note title, the
lead-in line of its list), as phrases — "command palette" is one thing, and a sentence with
"command" at one end and "palette" at the other is about two others.

The parse is a few rules of English question syntax, no tagger:

* the target is the noun phrase after `what`/`which` (`what kind of` skipped) or after `how
  many`; it ends at an auxiliary (`do`, `is`, `can` …), a preposition, or a verb;
* a verb is a word followed by a determiner, pronoun, preposition or wh-word ("opens *the*",
  "points *to*"), a third-person `-s` form right after a singular target noun ("which cipher mode
  *encrypts* values"), a participle after `is`/`was` ("is the space *synced*"), the word after a
  name subject of `does` ("does Zod *infer*"), or the last word of a `does the …` subject
  ("does the server *listen* on"); after `to` it is an infinitive ("the page *to load*");
* in `what is the X of Y`, X is the target and Y the focus;
* adverbs ("originally", "never", "by default") and the measure of `how long/often/…` are neither;
* a setting put before the question ("*In dark mode*, what colour …", "*With curl*, which option …") is
  focus too: "Black (in light mode)" answers the question for another setting.

Each run of adjacent focus words is one phrase. A phrase is stated when its words occur within a
window of `len + 2` words of one text (either order: "page name" and "named page"), or, split, when
the section states some of them and the sentence the rest ("Client Encryption" as the note's title,
"the key is derived" in its sentence). A capitalised name may stand anywhere in the unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gno.evidence.passages import stem
from gno.retrieve.grammar import singular
from gno.retrieve.snippets import fold

DETERMINERS = frozenset(
    "one the a an its their his her my your our this that these those every each some any all no".split()
)
PRONOUNS = frozenset("i you he she it we they me him us them".split())
WH = frozenset("what which who whom whose where when why how".split())
AUX_DO = frozenset("do does did".split())
AUX_BE = frozenset("is are was were be been am".split())
MODALS = frozenset("can could will would should shall may might must has have had".split())
AUX = AUX_DO | AUX_BE | MODALS
PREPS = frozenset(
    "in on at of for to from by with over under into onto about after before during since until within without "
    "between through per via across against along among around behind beside beyond near off out up down like "
    "as than".split()
)
CONJ = frozenset("and or nor but".split())
# words that say how often, how surely or since when: never the thing a question is about
ADVERBS = frozenset(
    "never always often usually sometimes ever also only first originally currently recently exactly roughly "
    "approximately typically generally normally still already just really actually automatically default".split()
)
#: the measure of "how long / often / …" is the answer's type, not a term a note must repeat
MEASURES = frozenset(
    "long often old far frequently big large small tall high wide deep heavy fast quick slow strong many much "
    "early late soon".split()
)
SORT_WORDS = frozenset("kind kinds type types sort sorts".split())
#: verbs that say little of their own ("what prefix do journal pages *get*"): no relation to state
LIGHT_VERBS = frozenset("get gets got have has had do does did make makes made use uses used take takes go goes "
                        "come comes become becomes give gives need needs".split())
#: verbs that notes use for one another ("opens" / "invoke" / "launch"): a question's verb is stated
#: when its sentence uses one of its class
VERB_CLASSES = tuple(
    frozenset(c.split())
    for c in (
        "open invoke launch trigger activate bring start show",
        "run execute invoke call trigger",
        "create make add generate insert",
        "delete remove erase drop",
        "store keep save persist hold write",
        "set configure specify define change",
        "move shift drag",
        "show display list render",
        "derive generate compute produce",
        "go navigate jump",
        "block lock",
        "skip ignore exclude",
        "last expire duration lifetime",  # "how long does a session last": "the session duration"
    )
)
#: nouns that notes use for one another: "an outline *item*" is "the current *element*" or "entry"
#: of a list; a focus noun is stated when its sentence or section uses one of its class
NOUN_CLASSES = tuple(
    frozenset(c.split())
    for c in (
        "item element entry node bullet",
        "setting option preference",
        "folder directory",
        "picture image photo",
    )
)
#: "for values *we use* AES-GCM": the instrument of the act the section is about ("Client
#: Encryption"); a question's verb is stated by such a sentence when its section names the act
USE_VERBS = frozenset("use uses used using".split())
#: operating systems a note contrasts: "`Cmd-/` on Mac or `Ctrl-/` anywhere else" gives the key for
#: Windows and Linux too, without naming them
PLATFORMS = ("Windows", "Linux", "Mac")
_PLATFORM_RE = re.compile(r"\b(?:windows|linux|mac|macos|os x)\b", re.I)
_COMPLEMENT_RE = re.compile(r"\b(?:anywhere else|everywhere else|elsewhere|other platforms|other systems)\b", re.I)
#: the term of a definition-list item: "`SB_PORT`: …", "**Hostname** (optional): …"
TERM_RE = re.compile(r"^\s*([`*_]{0,2}[\w .'’/-]{1,60}?[`*_]{0,2})\s*(?:\([^)]{0,40}\))?:\s")
#: "True KPI *is* settled by all 3 levels of management: Top, …": a clause before the colon is a statement
#: introducing what follows, not a term being defined
_CLAUSE_VERB_RE = re.compile(r"\b(?:is|are|was|were|has|have|had|can|will|should|must|does|do)\b", re.I)
WORD_RE = re.compile(r"[A-Za-z0-9][\w'’]*(?:-[\w'’]+)*")


@dataclass(frozen=True)
class Focus:
    """The parse of a question: the target noun phrase, its verbs and the focus phrases (lower case)."""

    target: tuple[str, ...]
    verbs: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...]
    names: frozenset[str]  # the focus words the question capitalises (names may stand anywhere)

    @property
    def words(self) -> list[str]:
        return [w for p in self.phrases for w in p]


def _verb_like(word: str) -> bool:
    return word.endswith(("ed", "en", "wn")) or word in ("made", "built", "kept", "held", "set", "put", "run", "done")


#: words that end a subject or verb: after one of these, the word before was the verb
_CLOSERS = DETERMINERS | PRONOUNS | WH | CONJ | (PREPS - {"of"})
_SKIP = DETERMINERS | PRONOUNS | PREPS | CONJ | WH | ADVERBS | frozenset(
    "there more less most least last next today yesterday tomorrow tonight ago".split()
)


def parse(question: str) -> Focus:
    """Target, verbs and focus phrases of a question (see the module's rules)."""
    raw = WORD_RE.findall(question)
    toks = [t.lower().replace("’", "'") for t in raw]
    caps = {t.lower() for i, t in enumerate(raw) if i and t[:1].isupper()}
    n = len(toks)
    role = ["" for _ in toks]  # target | verb | skip | "" (a focus word)
    i = 0
    while i < n and toks[i] not in WH:  # "According to whom", "In what year"
        role[i] = "skip"
        i += 1
    if i < n and toks[0] in PREPS and toks[0] != "according":
        for j in range(1, i):  # "In dark mode, what …": the setting the question asks about
            role[j] = "" if toks[j] not in _SKIP and toks[j] not in PREPS else "skip"
    wh = toks[i] if i < n else ""
    if i < n:
        role[i] = "skip"
        i += 1
    if wh == "how" and i < n and toks[i] in MEASURES:
        role[i] = "skip"
        i += 1
        if toks[i - 1] in ("many", "much"):
            i = _target(toks, role, i, caps)
    elif wh in ("what", "which", "whose"):
        if i + 1 < n and toks[i] in SORT_WORDS and toks[i + 1] == "of":
            role[i] = role[i + 1] = "skip"
            i += 2
        i = _target(toks, role, i, caps)
    elif wh in ("who", "whom") and i < n and toks[i] not in AUX:
        role[i] = "verb"  # "who developed Hive"
        i += 1
    _rest(toks, role, i, caps, copula_ok=wh in ("what", "which") and "target" not in role)
    target = tuple(t for t, r in zip(toks, role, strict=True) if r == "target")
    verbs = tuple(t for t, r in zip(toks, role, strict=True) if r == "verb")
    phrases = _phrases(toks, role, caps)
    return Focus(target, verbs, phrases, frozenset(w for p in phrases for w in p if w in caps))


def _rest(toks: list[str], role: list[str], i: int, caps: set[str], *, copula_ok: bool) -> None:
    """Auxiliaries, the subject, the verb and its objects after the target."""
    n = len(toks)
    be = do = copula_np = verb_found = expect_verb = False
    since_aux = 0  # focus words since the last auxiliary
    for j in range(i, n):
        t = toks[j]
        after = toks[j + 1] if j + 1 < n else ""
        if t in AUX:
            role[j] = "skip"
            be, do = be or t in AUX_BE, do or t not in AUX_BE
            copula_np = copula_ok and t in AUX_BE and not verb_found
            since_aux = 0
            continue
        if t in _SKIP or t.endswith("ly") or len(t) < 2:
            role[j] = "skip"
            copula_np = copula_np and t not in PREPS
            expect_verb = verb_found and t in CONJ
            continue
        name = t in caps
        if copula_np and not name:  # "what is the maximum length of …": the copula's noun phrase is asked
            role[j] = "target"
        elif j and toks[j - 1] == "to" and (j < 2 or toks[j - 2] not in DETERMINERS) and not name:
            role[j] = "verb"  # an infinitive: "the page to load"
        elif expect_verb and not name:
            role[j] = "verb"
        elif name:
            since_aux += 1
        elif j and toks[j - 1] in caps and t.endswith("ed"):
            role[j] = "verb"  # "the puppy Maria *adopted*": a reduced relative clause
        elif not verb_found and do and (after in _CLOSERS or after == "" or _after_name(toks, j, caps)):
            role[j] = "verb" if since_aux or toks[j - 1] in AUX or toks[j - 1] in PRONOUNS else ""
            since_aux += role[j] == ""
        elif _verb_like(t) and any(toks[k] in AUX_BE for k in range(max(i, j - 6), j)):
            role[j] = "verb"  # a participle: "is the whole space synced", "when Remember me is checked"
        else:
            since_aux += 1
        expect_verb = False
        verb_found = verb_found or role[j] == "verb"


def _after_name(toks: list[str], j: int, caps: set[str]) -> bool:
    """"does *Dijkstra* compare": the word after a one-name subject of an auxiliary is its verb."""
    return j >= 2 and toks[j - 1] in caps and toks[j - 2] in AUX


def _target(toks: list[str], role: list[str], i: int, caps: set[str]) -> int:
    """Mark the target noun phrase from `i` (and its verb, when one ends it); return where it stops."""
    n = len(toks)
    start = i
    while i < n:
        t = toks[i]
        if t in AUX or t in PREPS or t in DETERMINERS or t in WH or t in CONJ:
            break
        if i > start and t in ADVERBS and t != "default":  # "which mkdir option *also* creates": it ends there
            role[i] = "skip"
            return i + 1
        after = toks[i + 1] if i + 1 < n else ""
        if i == start and _verb_like(t) and (after in _CLOSERS or after in caps):
            role[i] = "verb"  # "what *inspired* Caroline's painting", "what caused the outage": "what" is the subject
            return i + 1
        if i > start and t not in caps:
            third_person = t.endswith("s") and not t.endswith("ss") and not toks[i - 1].endswith("s")
            if after in _CLOSERS or (third_person and after not in AUX):
                role[i] = "verb"
                return i + 1
        role[i] = "target"
        i += 1
    return i


def _phrases(toks: list[str], role: list[str], caps: set[str]) -> tuple[tuple[str, ...], ...]:
    """Runs of adjacent focus words; a name stands alone (it may be written anywhere near its noun)."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    for t, r in zip(toks, role, strict=True):
        if r == "" and len(t) > 1 and not t.isdigit() and t not in caps:
            run.append(t)
            continue
        if r == "" and t in caps:
            if run:
                out.append(tuple(run))
            out.append((t,))
            run = []
            continue
        if run:
            out.append(tuple(run))
        run = []
    if run:
        out.append(tuple(run))
    return tuple(out)


def paraphrased(facets: list[str], text: str) -> list[str]:
    """The facets among `facets` (stems) that `text` states through a verb or noun of the same class."""
    if not facets:
        return []
    toks = _stems(text)
    out: list[str] = []
    for f in facets:
        for cls in VERB_CLASSES + NOUN_CLASSES:
            if any(stem(v) == f for v in cls) and any(_hit(v, t) for v in cls for t in toks):
                out.append(f)
                break
    return out


#: "to pick a *different* port, use `-p 3001`": a value of another X than the one asked
CONTRAST = frozenset("different another other custom alternative alternate non-default".split())


def contrasted(focus: Focus, sentence: str) -> bool:
    """The sentence speaks of another thing of the asked kind ("a different port", "another key") than
    the question, which does not: the value it gives is an alternative, not the one asked for."""
    if not focus.target:
        return False
    head = singular(focus.target[-1])
    toks = [t.lower() for t in WORD_RE.findall(sentence)]
    return any(a in CONTRAST and singular(b) == head for a, b in zip(toks, toks[1:], strict=False)) and not any(
        w in CONTRAST for w in focus.target
    )


def _noun(word: str) -> str:
    """A target word as its noun: lower case, no possessive, singular ("John's" → "john", "Cats" → "cat")."""
    return singular(re.sub(r"['’]s$", "", word.lower()))


def target_head(focus: Focus) -> str:
    """The noun the question asks for ("John's *position*", "favorite *genre*"), singular; "" when none."""
    return _noun(focus.target[-1]) if focus.target else ""


def same_target(focus: Focus, other: Focus) -> bool:
    """A quoted question (`other`) asks for the kind of thing the question asks for: the question's target noun
    is one of the quoted question's target words, or of one class with one. Either without a target: no
    evidence they differ. "Which *team* did you sign with?" asks for a team, not for John's *position*."""
    head = target_head(focus)
    if not head or not other.target:
        return True
    words = {_noun(w) for w in other.target}
    kin = next((c for c in NOUN_CLASSES if head in c), frozenset({head}))  # a class holds its own word
    return bool(kin & words)


def platforms_stated(text: str) -> str:
    """`text`, with the platforms it names by contrast spelled out: a sentence that gives a value for one
    platform and another for "anywhere else" states the others (`PLATFORMS`) as well."""
    named = {m.group(0).lower() for m in _PLATFORM_RE.finditer(text)}
    if not named or not _COMPLEMENT_RE.search(text):
        return text
    rest = [p for p in PLATFORMS if p.lower() not in named and not (p == "Mac" and named & {"macos", "os x"})]
    return f"{text} ({' '.join(rest)})" if rest else text


def _stems(text: str) -> list[str]:
    return [w for t in WORD_RE.findall(fold(text).lower()) for w in re.split(r"[-_']+", t) if w]


def _hit(word: str, token: str) -> bool:
    s = stem(word)
    return stem(token) == s or token.startswith((s, word))


def _parts(word: str, tokens: list[str]) -> bool:
    """A word of the question is in `tokens`; a hyphenated one as its parts or joined ("locked-out": "lockout");
    a noun as one of its class (`NOUN_CLASSES`: "item" as "element")."""
    word = re.sub(r"['’]s$", "", word)  # a possessive names its noun: "a Bloom filter's bit array"
    parts = [p for p in re.split(r"[-_'’]+", word) if p]
    joined = "".join(stem(p) for p in parts)
    if any(t.startswith(joined) for t in tokens) or all(any(_hit(p, t) for t in tokens) for p in parts):
        return True
    kin = next((c for c in NOUN_CLASSES if singular(word) in c), None)
    return kin is not None and any(_hit(k, t) for k in kin for t in tokens)


def _window_of(words: list[str], tokens: list[str]) -> bool:
    size = len(words) + 2
    return any(all(_parts(w, tokens[a : a + size]) for w in words) for a in range(len(tokens)))


def addresses(focus: Focus, sentence: str, scope: str, *, relation: bool = False) -> bool:
    """The sentence, in its section (`scope`: heading, note title and name, list lead-in), states every
    focus phrase: within a window of one text, or part of it together in the section and the rest
    in the sentence; a name anywhere in the sentence or section. With `relation`, the sentence
    itself also states one of the question's verbs (or one of its class): a section says what its
    sentences are about, not what each says of it ("which cipher mode *encrypts* values")."""
    label = TERM_RE.match(sentence)
    if label and not _CLAUSE_VERB_RE.search(label.group(1)):
        # "`SB_LOCKOUT_TIME`: Specifies …": a definition's term is the section of its description
        scope, sentence = f"{scope}\n{label.group(1)}", sentence[label.end() :]
    said = _stems(platforms_stated(sentence))
    verbs = [v for v in focus.verbs if v not in LIGHT_VERBS]
    where = [_stems(line) for line in scope.split("\n") if line.strip()]
    if relation and verbs and not any(_parts(v, said) or paraphrased([stem(v)], sentence) for v in verbs):
        # "for values we use AES-GCM" under "Client Encryption": the sentence names the instrument of
        # the act its section is about
        instrument = USE_VERBS & set(said) and any(_parts(v, s) for v in verbs for s in where)
        if not instrument:
            return False
    everything = said + [t for s in where for t in s]
    for phrase in focus.phrases:
        names = [w for w in phrase if w in focus.names]
        if not all(_parts(w, everything) for w in names):
            return False
        common = [w for w in phrase if w not in focus.names]
        if not common or _window_of(common, said) or any(_window_of(common, s) for s in where):
            continue
        in_section = next((s for s in where if any(_parts(w, s) for w in common)), None)
        if in_section is None:
            return False  # all in the sentence but scattered: about something else
        rest = [w for w in common if not _parts(w, in_section)]
        if not rest or not all(_parts(w, said) for w in rest):
            return False
    return True


def attribute_stated(focus: Focus, sentence: str, scope: str) -> bool:
    """The attribute asked for ("what is nl's default line-number *increment*") is named by the sentence
    or its section, as its word or one of its class: "`TAB` by default" on nl's page is its separator."""
    if not focus.target:
        return True
    everything = _stems(sentence) + [t for line in scope.split("\n") if line.strip() for t in _stems(line)]
    return _parts(focus.target[-1], everything)
