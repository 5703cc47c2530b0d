"""Answering by meaning: the typed sentence a question paraphrases, when the words differ.

The extractive answerer's word rules (`extract`, `confidence`) release an answer only when its
sentence, heading and title repeat most of the question's words. A how-to manual rarely repeats a
user's wording: "Which URL brings you back to the space manager?" is answered by "To return to the
space manager, simply open the `/.spaces` URL." — three of the four required words are missing, and
the word rules abstain. Those abstentions are most of what a new user meets.

This module is the second reading, used only when the word rules abstained for want of coverage or
focus. Every candidate sentence that states a value of the asked type is read as a unit with its
note title and heading ("Setup wizard: To return to the space manager, …") and embedded with MiniLM
beside the question. The closest unit answers when it is close in absolute terms (cosine ≥
`SIMILARITY_FLOOR`) and clearly closer than every unit giving another value (by `SIMILARITY_MARGIN`):
two sentences about the same thing with different values leave the choice open, and gno abstains.
The claim is still checked as any other (cited, supported, the type and rival rules of
`confidence.assess`), so meaning only replaces the word-coverage test, never the verification.

Both constants were chosen on the tune halves of the how-to manual, the command pages and the
linked vault (0 wrong releases there from 0.05 to 0.07 of margin and 0.58 to 0.6 of floor); they
hold for MiniLM's cosine scale only, so no other model is used for this reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gno.errors import GnoError
from gno.evidence.extract import scope_of
from gno.evidence.focus import scattered

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    import numpy.typing as npt

    from gno.embed.base import Embedder
    from gno.evidence.extract import Candidate
    from gno.evidence.question import QuestionFrame
    from gno.models import Capsule
    from gno.retrieve.semantic import Semantic

    Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]

SIMILARITY_FLOOR = 0.58
SIMILARITY_MARGIN = 0.05
#: typed candidates read, best word score first: a Capsule of many short passages holds hundreds
MAX_UNITS = 64
#: the abstentions a reading by meaning may overturn: the word tests, never a failed verification
WORD_REASONS = frozenset({"coverage_below_threshold", "focus_not_addressed"})
BRACKETS = (("{", "}"), ("[", "]"), ("(", ")"))


@dataclass(frozen=True)
class MeaningPick:
    """The chosen candidate, its cosine to the question and its lead over the best other value."""

    candidate: Candidate
    similarity: float
    margin: float


def whole(value: str) -> bool:
    """A value with balanced brackets: `vim = {` opens a block whose value is elsewhere."""
    return all(value.count(a) == value.count(b) for a, b in BRACKETS)


def unit_text(candidate: Candidate, cap: Capsule) -> str:
    """The sentences a candidate would answer with, under its note title and heading."""
    ev = next(e for e in cap.evidence if e.evidence_id == candidate.evidence_id)
    said = " ".join(candidate.sentences[i] for i in candidate.answer)
    return f"{ev.title} {ev.heading or ''}: {said}"


def pick(
    fr: QuestionFrame, cands: Sequence[Candidate], cap: Capsule, embed_query: Callable[[str], npt.NDArray[np.float32]],
    embed: Embed,
) -> MeaningPick | None:
    """The typed candidate whose unit the question paraphrases, or None when none clearly is.

    A candidate that states the words of one of the question's phrases apart (`focus.scattered`) is
    about something else, however close its words make it: it is neither chosen nor a rival."""
    by_id = {e.evidence_id: e for e in cap.evidence}
    typed = [
        c
        for c in cands
        if any(whole(v) for v in c.values)
        and not scattered(fr.focus, " ".join(c.sentences[i] for i in c.answer), scope_of(by_id[c.evidence_id]))
    ][:MAX_UNITS]
    if not typed:
        return None
    q = embed_query(fr.text)
    sims = [float(s) for s in embed([unit_text(c, cap) for c in typed]) @ q]
    order = sorted(range(len(typed)), key=lambda i: -sims[i])
    best = typed[order[0]]
    rival = next((sims[i] for i in order[1:] if set(typed[i].values) != set(best.values)), 0.0)
    top = sims[order[0]]
    if top < SIMILARITY_FLOOR or top - rival < SIMILARITY_MARGIN:
        return None
    return MeaningPick(best, top, top - rival)


def minilm(semantic: Semantic) -> Embedder | None:
    """MiniLM, when the index's vector side has it (configured, or as the re-scorer of a fast model)."""
    try:
        for emb in (semantic.embedder(), semantic.quality_embedder()):
            if emb is not None and emb.model_id.startswith("minilm"):
                return emb
    except GnoError:
        return None  # lexical mode: the word rules alone decide
    return None
