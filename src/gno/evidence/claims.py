"""Deterministic claim verification against a closed Capsule (no NLI model exists offline).

A claim is a sentence of the answer with its `[evidence:<id>]` citations. Citation hygiene
first (well-formed, inside the Capsule, cited lines unchanged since the build). Then each claim
is classified against its cited spans: `supported` when its normalised text is contained in a
span or its content words all occur there with consistent numbers, dates and negation;
`contradicted` when the cited span (or another Capsule passage about the same thing) states a
different number/date or the opposite polarity; `insufficient` otherwise; `uncertain` when the
verifier cannot run. The answer is released only when every claim is supported (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field

from gno.evidence.passages import STOP, stem
from gno.retrieve.grammar import word_tokens

CITE_RE = re.compile(r"\[evidence:([0-9a-fA-F]{8,64})\]")
ANY_CITE_RE = re.compile(r"\[evidence:[^\]]*\]")
NUM_RE = re.compile(r"\b\d+(?:[.,:/-]\d+)*\b")
NEG = frozenset({"not", "no", "never", "none", "cannot", "without", "nobody", "nothing", "neither", "nor"})
MONTHS = ("january february march april may june july august september october november december").split()
MAX_CLAIMS = 256


@dataclass
class Claim:
    claim_id: str
    text: str
    start: int
    end: int
    citations: list[str]
    status: str = "uncertain"
    rationale: str = "semantic_judgment_unavailable"
    rejected: list[str] = field(default_factory=list)


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def _norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).casefold()
    s = re.sub(r"[*_`>#\[\]()]", " ", s)
    s = s.replace("’", "'")
    return " ".join(s.split()).strip(" .;:!?,")


def content_words(s: str) -> set[str]:
    low = s.lower().replace("n't", " not").replace("n’t", " not")
    return {stem(w) for w in word_tokens(low) if w not in STOP and not w.isdigit() and len(w) > 1}


NUMBER_WORDS = {
    w: str(i) for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split())
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
     "hundred": "100", "thousand": "1000", "dozen": "12", "once": "1", "twice": "2", "half": "0.5"}


def numbers(s: str) -> set[str]:
    """Numbers, number words (as digits) and month names in a text: what must agree between spans."""
    out = {n.replace(",", "") for n in NUM_RE.findall(s)}
    low = s.lower()
    out |= {NUMBER_WORDS[w] for w in word_tokens(low) if w in NUMBER_WORDS}
    out |= {m for m in MONTHS if re.search(rf"\b{m}\b", low)}
    return out


def negated(s: str) -> bool:
    low = s.lower().replace("n't", " not")
    return any(w in NEG for w in word_tokens(low))


def segment(answer: str, capsule_id: str) -> list[Claim]:
    """Split an answer into claims: sentences (or lines) with their citation markers."""
    claims: list[Claim] = []
    pos = 0
    parts: list[str] = []
    fence = False
    for line in answer.split("\n"):
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or not line.strip():
            continue  # code is quoted material, never a claim
        parts.extend(split_sentences(line))
    for part in parts:
        if not part or not part.strip():
            continue
        idx = answer.find(part, pos)
        if idx < 0:
            idx = pos
        pos = idx + len(part)
        cites = CITE_RE.findall(part)
        text = ANY_CITE_RE.sub("", part).strip()
        if not re.search(r"[\w\d]", text):
            if cites and claims:
                claims[-1].citations.extend(c.lower() for c in cites)
            continue
        start, end = utf16_len(answer[:idx]), utf16_len(answer[:idx]) + utf16_len(part)
        cid = hashlib.sha256(
            json.dumps(
                {"capsuleId": capsule_id, "end": end, "start": start, "text": text},
                separators=(",", ":"),
                ensure_ascii=False,
            ).encode()
        ).hexdigest()
        claims.append(Claim(cid, text, start, end, [c.lower() for c in cites]))
        if len(claims) >= MAX_CLAIMS:
            break
    return claims


ABBREVIATIONS = frozenset("dr mr mrs ms prof st jr sr vs etc e.g i.e fig no vol approx inc ltd co".split())


def split_sentences(text: str) -> list[str]:
    """Sentences (abbreviation-aware; a citation marker ends its sentence, other brackets do not).

    Only `[evidence:…]` ends a sentence: notes quote brackets mid-sentence (`[this car]`, `[photo: …]`),
    and splitting there would leave the sentence's head as an uncited, orphan claim.
    """
    out: list[str] = []
    start = 0
    for m in re.finditer(r"(\[evidence:[^\]]*\])\s+|([.!?])\s+(?=\S)", text):
        end = m.end(1) if m.group(1) else m.end(2)
        if m.group(2):
            word = re.findall(r"([\w.]+)$", text[start:end - 1])
            nxt = text[m.end():m.end() + 1]
            if (word and word[0].lower().rstrip(".") in ABBREVIATIONS) or not (nxt.isupper() or nxt in "[\"'(" or
                                                                              nxt.isdigit()):
                continue
        out.append(text[start:end].strip())
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


def judge(claim: str, spans: list[str], others: list[str]) -> tuple[str, str]:
    """(status, rationale) of one claim against its cited spans and the rest of the Capsule."""
    if not spans:
        return "insufficient", "no_valid_evidence"
    nc = _norm(claim)
    cw, cn, cneg = content_words(claim), numbers(claim), negated(claim)
    best = "insufficient"
    for span in spans:
        ns = _norm(span)
        sw, sn = content_words(span), numbers(span)
        if nc and nc in ns:
            best = "supported"
            break
        if cw and cw <= sw:
            if cn - sn:
                return "contradicted", "semantic_contradiction"
            if cneg != negated(span) and len(cw & sw) >= 2:
                return "contradicted", "semantic_contradiction"
            best = "supported"
            break
    if best != "supported":
        return "insufficient", "no_valid_evidence"
    # another passage in the Capsule about the same thing that disagrees makes the claim contested
    for other in (sent for o in others for sent in split_sentences(o.replace("\n", " "))):
        ow = content_words(other)
        if not cw or not ow:
            continue
        overlap = len(cw & ow) / len(cw | ow)
        on = numbers(other)
        if overlap >= 0.6 and cn and on and (cn != on) and not (cn <= on):
            return "contradicted", "semantic_contradiction"
        if overlap >= 0.75 and negated(other) != cneg:
            return "contradicted", "semantic_contradiction"
    return "supported", "semantic_entailment"
