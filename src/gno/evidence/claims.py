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
    return {stem(w) for w in word_tokens(s) if w not in STOP and not w.isdigit() and len(w) > 1}


def numbers(s: str) -> set[str]:
    out = {n.replace(",", "") for n in NUM_RE.findall(s)}
    low = s.lower()
    out |= {m for m in MONTHS if re.search(rf"\b{m}\b", low)}
    return out


def negated(s: str) -> bool:
    low = s.lower().replace("n't", " not")
    return any(w in NEG for w in word_tokens(low))


def segment(answer: str, capsule_id: str) -> list[Claim]:
    """Split an answer into claims: sentences (or lines) with their citation markers."""
    claims: list[Claim] = []
    pos = 0
    parts = re.split(r"(?<=\])\s+|(?<=[.!?])\s+(?=[A-Z\[])|\n+", answer)
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
    for other in others:
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
