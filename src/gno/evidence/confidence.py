"""Confidence rules: when a fully supported answer is still not released.

Claim support (`claims.judge`) proves that every sentence of the answer is *in* the evidence; it
does not prove that the sentences *answer the question*. Three checks, all against the same closed
Capsule, decide that; each failure is an abstention with its own reason:

* `answer_type_not_found`: the answer states no value of the type the question asks for
  (`answer_type.typed_values`) — it only restates the question;
* `ambiguous_evidence`: another passage the answer does not cite supports the question at least as
  well and states a *different* value of that type (two notes name two different cities: which one
  is right cannot be decided from the Capsule);
* `answer_incomplete`: the question asks for a set ("which cities has …", "what has X painted")
  and the answer quotes a single passage, or other passages support the question as well as the
  cited ones — a set gathered over many notes is never verified complete from one of them.

A rival must be about the same subject: the question's names (people, dates) must occur in its
passage or heading. How much of the question an answer states counts the heading and note title
its sentences stand under ("SMTP is smtp.gmail.com" under "Configure the company email"); whether
another passage is a rival is decided on the sentences alone, since a heading says as much about
each sentence below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gno.evidence.answer_type import Vocabulary, typed_values, vocabulary
from gno.evidence.extract import asked_before, caption_before, passage_sentences, scope_of
from gno.evidence.focus import (
    LIGHT_VERBS,
    USE_VERBS,
    addresses,
    attribute_stated,
    contrasted,
    paraphrased,
    parse,
    platforms_stated,
    same_target,
    target_head,
)
from gno.evidence.passages import covered, is_question, leads_in
from gno.evidence.question import QuestionFrame, expanded
from gno.models import Capsule, CapsuleEvidence
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.store.db import Store

RIVAL_COVERAGE = 0.75  # as `ask.QUESTION_COVERAGE`: what a passage needs to count as an answer
VOCAB_DOCS = 400  # documents per collection read for the lower-case vocabulary
#: (index file, collection, change id) → the mirror hashes of its first `VOCAB_DOCS` documents, and the
#: lower-case words and mid-sentence capitals they write
_COLLECTION_WORDS: dict[tuple[str, str, int], tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}


def collection_words(store: Store, collection: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The words of a collection's first `VOCAB_DOCS` documents: (their mirror hashes, the words they
    write in lower case, those they capitalise mid-sentence). Cached per index state (the same
    collection at the same change id reads the same words), so a resident owner's template computes
    them once for every worker it forks."""
    key = (store.path, collection, docs.latest_change_id(store))
    hit = _COLLECTION_WORDS.get(key)
    if hit is None:
        hashes = frozenset(r.mirror_hash for r in docs.list_docs(store, collection, limit=VOCAB_DOCS))
        full = vocabulary([], docs.contents_of(store, hashes).values())
        if len(_COLLECTION_WORDS) > 16:
            _COLLECTION_WORDS.clear()
        hit = _COLLECTION_WORDS[key] = (hashes, full.lower, full.capital)
    return hit


def notes_vocabulary(store: Store, cap: Capsule) -> Vocabulary:
    """The vocabulary of the notes the Capsule comes from: its evidence's collections (bounded) and
    its evidence's documents. The words of a set of documents are the union of each one's, so each
    collection's are kept apart (`collection_words`) and only documents beyond them are read here."""
    base = vocabulary([e.text for e in cap.evidence])
    lower, capital = set(base.lower), set(base.capital)
    read: set[str] = set()
    for coll in sorted({e.collection for e in cap.evidence}):
        hashes, words, names = collection_words(store, coll)
        read |= hashes
        lower |= words
        capital |= names
    if rest := {e.mirror_hash for e in cap.evidence} - read:
        more = vocabulary([], docs.contents_of(store, rest).values())
        lower |= more.lower
        capital |= more.capital
    return Vocabulary(lower=frozenset(lower), capital=frozenset(capital), context=base.context)


@dataclass(frozen=True)
class QuestionCoverage:
    covered: list[str]  # the question's facets the answer (or its replies' labels and headings) states
    ratio: float  # min(covered / facets, best answer unit's content facets / content facets)
    subject: bool  # the passages the answer quotes as stating the value name all whom/what the question is about


def question_coverage(
    fr: QuestionFrame, facets: list[str], supported: list[tuple[str, list[str]]], by_id: dict[str, CapsuleEvidence]
) -> QuestionCoverage:
    """How much of the question the supported claims state.

    The names a question is about (who, which month) may stand in the label or heading of the
    passage a claim is quoted from rather than in the claim; but only passages that state the
    answer count for that — a quoted question may well be asked by, or name, someone else.
    """
    replies = [(t, cites) for t, cites in supported if not is_question(t)]
    quoted = [by_id[i] for _t, cites in replies for i in cites if i in by_id]
    about = " ".join(f"{e.text}\n{e.heading or ''}\n{e.title}" for e in quoted)
    named = set(covered(platforms_stated(about + " " + " ".join(t for t, _c in replies)), sorted(fr.names)))
    said = set(covered(" ".join(t for t, _c in supported), facets))
    scoped = set(covered(" ".join(scope_of(e) for e in quoted), facets))
    claimed = [f for f in facets if f in said or f in named or f in scoped]
    claimed += paraphrased([f for f in fr.required if f not in claimed], " ".join(t for t, _c in supported))
    units = answer_units([t for t, _c in supported], [_scope(c, by_id) for _t, c in supported])
    need = fr.required
    best = max((len(set(covered(u, need)) | set(paraphrased(need, u))) for u in units), default=0)
    # not "what *kind* of", nor the type of the value ("which *shortcut*": `Ctrl-k` states one)
    asked = [f for f in facets if (f in fr.content and f not in fr.optional) or f in fr.names] or facets
    stated = [f for f in asked if f in claimed]
    # a question with no facets at all (`0.1.0`) has nothing an answer could be shown to cover
    share = len(stated) / len(asked) if asked else 0.0
    ratio = min(share, best / len(need) if need else 1.0)
    # every name the question is about must be named where the answer is stated: an answer about
    # one of two names (htmx for "which ports can WebSocket use over HTTP") answers another question
    return QuestionCoverage(claimed, ratio, fr.subjects <= named)


def focused(fr: QuestionFrame, claims: list[tuple[str, list[str]]], by_id: dict[str, CapsuleEvidence]) -> bool:
    """Some claim, read with the question it replies to and in the section of the passage it quotes,
    states what the question is about (`focus.addresses`): a supported sentence of the right type
    about something else answers another question."""
    attribute = _only_attribute(fr)
    for i, (text, cites) in enumerate(claims):
        if is_question(text):
            continue
        prev = claims[i - 1][0] if i else ""
        # a caption is read as the command's own words, not as a term its colon defines
        lead = prev if is_question(prev) else prev.rstrip().removesuffix(":") if leads_in(prev) else ""
        said = f"{lead} {text}"
        for c in cites:
            if c not in by_id:
                continue
            scope = scope_of(by_id[c])
            if addresses(fr.focus, said, scope, relation=fr.relation) and (
                not attribute or attribute_stated(fr.focus, said, scope)
            ):
                return True
    return False


#: verbs that join a thing to its attribute without saying what the value does ("get", "have")
_BARE_VERBS = LIGHT_VERBS - USE_VERBS


def _only_attribute(fr: QuestionFrame) -> bool:
    """The question asks for an attribute and names nothing else an answer must state ("what is nl's
    default line-number increment?"), or nothing but the thing that has it, joined by no verb of its
    own ("which tag do journal pages get?"): any sentence with a value beside the thing's name would
    cover it (`Journal/YYYY-MM-DD` on the journal page), so the attribute must be named where the
    answer stands. A verb of substance ("which tag *points to* the edge build", "which library does
    it *use*") says what the value does, and a sentence that says so answers without naming the kind."""
    if fr.kind != "thing" or fr.form or not fr.focus.target:
        return False
    verbs = fr.focus.verbs
    return set(fr.required) <= {"default"} or (bool(verbs) and all(v in _BARE_VERBS for v in verbs))


def answer_units(texts: list[str], scopes: list[str] | None = None) -> list[str]:
    """Claims as units of meaning: a quoted question (or a command's caption) is read together with the
    claim after it, and each claim under the heading and note title of the passage it is quoted from
    (`scopes`).

    Each other claim stands alone: a sentence that states most of the question is what anchors
    an answer, and a value in the sentence after it does not make up for what the anchor lacks.
    """
    out: list[str] = []
    for i, t in enumerate(texts):
        if is_question(t):
            continue
        unit = (texts[i - 1] + " " + t) if i and (is_question(texts[i - 1]) or leads_in(texts[i - 1])) else t
        out.append(f"{unit}\n{scopes[i]}" if scopes else unit)
    return out


def _scope(cites: list[str], by_id: dict[str, CapsuleEvidence]) -> str:
    return "\n".join(scope_of(by_id[i]) for i in cites if i in by_id)


def _replies_to_another(fr: QuestionFrame, claim_texts: list[str], stated: str) -> bool:
    """The answer quotes a question that asks for another kind of thing ("Which team did you sign with?" for
    John's *position*) and its own sentences never name the thing asked for: the reply answers that question."""
    head = target_head(fr.focus)
    if not head or covered(stated, [head]):
        return False
    return any(is_question(t) and not same_target(fr.focus, parse(expanded(t))) for t in claim_texts)


def assess(
    fr: QuestionFrame, claim_texts: list[str], claim_cites: list[list[str]], cap: Capsule, vocab: Vocabulary
) -> str | None:
    """The abstention reason for a supported answer that does not (certainly) answer, or None."""
    if fr.kind == "polar" or not claim_texts:
        return None  # only a generator answers yes/no; its claims were judged like any other
    stated = " ".join(t for t in claim_texts if not is_question(t))
    if _replies_to_another(fr, claim_texts, stated):
        return "focus_not_addressed"
    # read as a reply only to a quoted question that asks about the question (as `extract.asks_about`)
    reply = any(is_question(t) and covered(t, fr.content) for t in claim_texts)
    given = [v.lower() for v in typed_values(stated, fr, vocab, reply=reply)]
    if not given:
        return "answer_type_not_found"
    sources = {i for t, cites in zip(claim_texts, claim_cites, strict=True) if not is_question(t) for i in cites}
    if fr.plural and len(sources) < 2:
        return "answer_incomplete"
    # the sentences alone, without the heading and title they share with the rest of their note: a
    # heading does not tell one of its sentences from another (the answer's own note may hold the rival)
    own = max((len(covered(u, fr.content)) for u in answer_units(claim_texts)), default=0)
    # a rival is a passage that would itself qualify as an answer (or supports the question as well)
    bar = min(own, math.ceil(RIVAL_COVERAGE * len(fr.content)))
    cited = {i for cites in claim_cites for i in cites}
    low = stated.lower()
    defaults = "default" in fr.words and bool(covered(stated, ["default"]))
    for ev in cap.evidence:
        named = set(covered(platforms_stated(f"{ev.text}\n{ev.heading or ''}"), fr.facets))
        if ev.evidence_id in cited or not fr.names <= named:
            continue
        caption = caption_before(ev, cap)
        if caption and caption[1] in cited:
            continue  # the command of the caption the answer quotes says the same, not something else
        asked = asked_before(ev, cap) or caption
        sents = passage_sentences(ev.text)
        for j, s in enumerate(sents):
            lead = asked[0] + " " if asked and j == 0 else ""
            if is_question(s) or len(covered(lead + s, fr.content)) < bar:
                continue
            if not addresses(fr.focus, lead + s, scope_of(ev), relation=fr.relation) or contrasted(fr.focus, s):
                continue  # about something else, or another thing of the kind ("a different port"): no rival
            if defaults and not covered(lead + s, ["default"]):
                continue  # the default was asked and stated: a value set in some setup is no rival
            if fr.plural:
                return "answer_incomplete"
            nxt = sents[j + 1] if j + 1 < len(sents) else ""
            values = typed_values(f"{s} {nxt}", fr, vocab, reply=bool(lead))
            # a longer form of the answer's value (`Journal/YYYY-MM-DD` for `Journal/`) does not disagree
            if any(v.lower() not in low and not any(g in v.lower() for g in given) for v in values):
                return "ambiguous_evidence"
    return None
