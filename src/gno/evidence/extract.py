"""The extractive answerer: pick the passage sentence the question is about, answer with its turn.

Every sentence of every Capsule passage is a candidate *anchor*. Its score is how much of the
question it states: the question's content facets it contains, weighted by how rare each facet is
across the Capsule (a facet every passage mentions tells nothing), plus the question's phrases
(content-word bigrams) it repeats in order, plus a little for facets only its passage or heading
covers (who is speaking, the section's date). The answer is the anchor and, when the anchor only
restates the question, the sentence after it in the same passage — notes (and conversations) set
the topic in one sentence and give the value in the next ("I got a puppy. Her name's Coco.").

A passage that replies to a question asked in the paragraph right before it (a FAQ, a meeting
transcript: "Which team did you sign with?" / "The Minnesota Wolves!") is read with that question:
its first sentence covers the question's facets too, and the answer quotes both, each cited — when
the quoted question asks about something of the question (shares a content facet): a reply to "What
made you name her Tilly?" is not an answer to "What is Joanna allergic to?". A command is read the same
way with its caption, the one-line paragraph ending in a colon above it ("- Connect through a jump host:"
above `ssh -J …`): the command holds the flag, the caption what it does.

The answer is at most `MAX_SENTENCES` sentences, each cited to its passage, so the verifier checks
every claim against its span; the candidate chosen is the best one that states a value of the type
the question asks for (see `answer_type`) and most of the question, else simply the best.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from gno.evidence.answer_type import Vocabulary, typed_values, vocabulary
from gno.evidence.claims import split_sentences
from gno.evidence.focus import addresses, contrasted, paraphrased, platforms_stated
from gno.evidence.passages import captions, covered, is_question, stem
from gno.evidence.question import QuestionFrame, content_stems, frame
from gno.models import Capsule, CapsuleEvidence

MAX_SENTENCES = 3
ANSWER_COVERAGE = 0.75
CONTEXT_WEIGHT = 0.25
BIGRAM_WEIGHT = 0.5
TAG_RE = re.compile(r",\s*(?:\w+n't\s+\w+|right|huh|eh|no|ok|okay)\s*\?$", re.I)
IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
LEAD_IN_RE = re.compile(r"^\s{0,3}[^\s*+#>|-].{0,118}:\s*$")
_MD_RE = re.compile(r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|#+\s+|>\s*)")


@dataclass
class Candidate:
    evidence_id: str
    rank: int
    sentences: list[str]
    anchor: int
    covered: list[str]
    score: float
    asked: tuple[str, str] | None = None  # (question sentence, its evidence id) this anchor replies to
    answer: list[int] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    about: bool = True  # its passage (or note title) names every subject of the question
    stated: list[str] = field(default_factory=list)  # content facets the anchor, its heading or title states
    focused: bool = True  # the anchor, in its section, states what the question is about (`focus.addresses`)

    def cited(self) -> str:
        """The answer: its sentences, each followed by its citation marker."""
        parts = [f"{self.asked[0].rstrip()} [evidence:{self.asked[1]}]"] if self.asked else []
        parts += [f"{self.sentences[i].rstrip()} [evidence:{self.evidence_id}]" for i in self.answer]
        return " ".join(parts)


@dataclass
class Draft:
    """The extractive answer (cited sentences), the question's frame and the chosen candidate."""

    answer: str
    frame: QuestionFrame
    best: Candidate | None


def scope_of(ev: CapsuleEvidence) -> str:
    """The heading and note title a passage stands under, and the lead-in lines of its lists ("Sync
    happens:" above "* For the entire space: roughly every 20 seconds"): they state the topic of
    the sentences below them."""
    leads = [ln.strip() for ln in ev.text.split("\n") if LEAD_IN_RE.match(ln)]
    name = unquote(ev.uri.rsplit("/", 1)[-1]).removesuffix(".md")  # a wikilinked note is known by its name
    return "\n".join([ev.heading or "", ev.title, name, *leads])


def passage_sentences(text: str) -> list[str]:
    """A passage's sentences, split exactly as `segment` will split the answer into claims; a table's
    data row is one sentence (`table_row`): reference pages state defaults in option tables."""
    out: list[str] = []
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if (row := table_row(line, lines[k + 1] if k + 1 < len(lines) else "")) is not None:
            out.extend([row] if row else [])
            continue
        line = _MD_RE.sub("", line).strip()
        if not line or line.startswith(("```", "~~~", "|", "<")) or not IMAGE_RE.sub("", line).strip():
            continue  # an image alone states nothing, whatever words its file name holds
        out.extend(s.strip() for s in split_sentences(line) if s.strip())
    return out


_RULE_RE = re.compile(r"^\s*\|?(?:\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*$")


def table_row(line: str, following: str) -> str | None:
    """A markdown table's data row read as a definition (`-n, --lines <int>`: Number of entries (default:
    100)): its first cell is the term the others describe. "" for a header or rule row; None when the
    line is no table row."""
    if not line.lstrip().startswith("|"):
        return None
    if _RULE_RE.match(line) or _RULE_RE.match(following):
        return ""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    cells = [c for c in cells if c]
    if len(cells) < 2:
        return ""
    return f"{cells[0]}: {'; '.join(cells[1:])}"


def paragraph_before(ev: CapsuleEvidence, cap: Capsule) -> CapsuleEvidence | None:
    """The Capsule's passage one blank line above `ev` in its file, if it holds one."""
    return next((o for o in cap.evidence if o.uri == ev.uri and o.end_line + 2 == ev.start_line), None)


def asked_before(ev: CapsuleEvidence, cap: Capsule) -> tuple[str, str] | None:
    """The last question of the paragraph right before `ev` in its file, when the Capsule holds it.

    A tag question ("…, didn't they?") asks for a confirmation, not for a value: it is not paired.
    """
    if (other := paragraph_before(ev, cap)) is None:
        return None
    qs = [s for s in passage_sentences(other.text) if is_question(s)]
    return (qs[-1], other.evidence_id) if qs and not TAG_RE.search(qs[-1]) else None


def caption_before(ev: CapsuleEvidence, cap: Capsule) -> tuple[str, str] | None:
    """The caption of a passage of code (`passages.captions`), when the Capsule holds it."""
    if (other := paragraph_before(ev, cap)) is None or not captions(other.text, ev.text):
        return None
    sents = passage_sentences(other.text)
    return (sents[-1], other.evidence_id) if sents else None


def preface(ev: CapsuleEvidence, cap: Capsule, fr: QuestionFrame) -> tuple[str, str] | None:
    """What a passage's first sentence is read with: the question it replies to, when that asks about
    the question, else the caption of a command."""
    asked = asked_before(ev, cap)
    return asked if asks_about(asked, fr) else caption_before(ev, cap)


def asks_about(asked: tuple[str, str] | None, fr: QuestionFrame) -> bool:
    """The quoted question asks about something the question asks about (one content facet in common).

    Why: a reply is read as being about the question as a whole (`typed_values(reply=True)` keeps
    every name in it), which only holds when the quoted question and the question ask the same thing.
    """
    return asked is not None and bool(covered(asked[0], fr.content))


def rarity(texts: list[str], facets: list[str]) -> dict[str, float]:
    """Inverse document frequency of each facet over the Capsule's passages."""
    n = len(texts)
    df = dict.fromkeys(facets, 0)
    for t in texts:
        for f in covered(t, facets):
            df[f] += 1
    return {f: math.log((n + 1) / (df[f] + 0.5)) for f in facets}


def candidates(fr: QuestionFrame, cap: Capsule, vocab: Vocabulary) -> list[Candidate]:
    texts = [e.text + "\n" + (e.heading or "") for e in cap.evidence]
    idf = rarity(texts, fr.facets)
    out: list[Candidate] = []
    for ev, ptext in zip(cap.evidence, texts, strict=True):
        sents = passage_sentences(ev.text)
        ctx = covered(ptext, fr.facets)
        scope = scope_of(ev)
        scoped = covered(scope, fr.content)
        about = fr.subjects <= set(covered(platforms_stated(f"{ptext}\n{ev.title}"), sorted(fr.subjects)))
        asked = preface(ev, cap, fr)
        for j, s in enumerate(sents):
            if is_question(s):
                continue
            lead = asked if j == 0 else None
            cov = covered(s + " " + (lead[0] if lead else ""), fr.content)
            # a sentence that names the subject under a heading or title stating the question's words
            # ("SMTP is smtp.gmail.com" in the note "Configure the company email") is about the question
            if not cov and not (scoped and fr.subjects and covered(s, sorted(fr.subjects))):
                continue
            seq = content_stems(s)
            bi = len(fr.bigrams & set(zip(seq, seq[1:], strict=False)))
            score = (
                sum(idf[f] for f in cov)
                + CONTEXT_WEIGHT * sum(idf[f] for f in ctx if f not in cov)
                + BIGRAM_WEIGHT * bi
            )
            c = Candidate(ev.evidence_id, ev.selection_rank, sents, j, cov, score, lead, about=about)
            c.stated = [f for f in fr.content if f in cov or f in scoped]
            c.stated += paraphrased([f for f in fr.required if f not in c.stated], s)
            c.focused = addresses(fr.focus, s + " " + (lead[0] if lead else ""), scope, relation=fr.relation)
            c.answer, c.values = answer_span(c, fr, vocab)
            out.append(c)
    out.sort(key=lambda c: (-c.score, c.rank, c.anchor))
    return out


def answer_span(c: Candidate, fr: QuestionFrame, vocab: Vocabulary) -> tuple[list[int], list[str]]:
    """The anchor, and the next sentence of its passage when only that one states a typed value."""
    values = typed_values(c.sentences[c.anchor], fr, vocab, reply=c.asked is not None)
    span = [c.anchor]
    nxt = c.anchor + 1
    if not values and nxt < len(c.sentences) and not is_question(c.sentences[nxt]):
        more = typed_values(c.sentences[nxt], fr, vocab)
        if more:
            span.append(nxt)
            values = more
    return span[: MAX_SENTENCES - (1 if c.asked else 0)], values


def draft(question: str, cap: Capsule, vocab: Vocabulary | None = None) -> Draft:
    """The best-supported answer in the Capsule; `vocab` (of the notes) tells names from words."""
    fr = frame(question)
    vocab = vocab or vocabulary(e.text for e in cap.evidence)
    if fr.kind == "polar":  # an extractive answerer cannot say yes or no
        return Draft("", fr, None)
    cands = candidates(fr, cap, vocab)
    if not cands:
        return Draft("", fr, None)
    full = [
        c
        for c in cands
        if c.values
        and c.about
        and c.focused
        and len(set(c.stated) & set(fr.required)) >= ANSWER_COVERAGE * len(fr.required)
        and not contrasted(fr.focus, c.sentences[c.anchor])
    ]
    # a sentence that names the kind of value asked for ("prefixed with `Journal/`" for "what prefix")
    # says which of its values that is; the others may give a value of something else
    named = {stem(w) for w in fr.focus.target} if not fr.form else set()
    # and one that names what the question is about itself ("`Mod`: an alias for … `Cmd` on Mac")
    # says it of that, where one that leaves it to its heading may say it of a neighbour ("`Cmd`: …")
    full.sort(
        key=lambda c: (
            not (named and covered(c.sentences[c.anchor], sorted(named))),
            bool(fr.subjects) and set(covered(c.sentences[c.anchor], sorted(fr.subjects))) != fr.subjects,
        )
    )
    best = full[0] if full else cands[0]
    return Draft(best.cited(), fr, best)
