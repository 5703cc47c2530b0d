"""A Capsule under a small budget keeps the best-ranked evidence, first: one-line passages that
mention one word of the goal do not crowd out the passages retrieval ranked above them (each item's
ids, hashes and dates weigh some 700 bytes, so a short passage is barely cheaper than a long one)."""

from __future__ import annotations

from gno.evidence.capsule import CapsuleRequest
from gno.models import Capsule

from .conftest import KB, MakeKB

GOAL = "How often does the sync engine refresh the space index?"

NOTES = {
    "sync.md": (
        "# Sync\n\nThe sync engine refreshes the whole space every 20 seconds and the open page every 5 seconds. "
        "It compares the local copy with the server's copy of every page and fetches what changed since the "
        "last run, so a page edited on another device shows up here within half a minute.\n"
    ),
    "index.md": (
        "# Space index\n\nThe space index lists every page, tag and link of the space. The index is rebuilt "
        "when the sync engine sees changed pages, and a full rebuild can be asked for from the command palette "
        "whenever the index looks out of date after a large import.\n"
    ),
    **{f"misc{i}.md": f"# Note {i}\n\nAn index card of {word}.\n" for i, word in enumerate(
        ("birds", "trees", "rivers", "stones", "clouds", "ferns"))},
}


def build(kb: KB, budget: int) -> Capsule:
    return kb.engine.context_build(CapsuleRequest(goal=GOAL, budget_tokens=budget))


def test_small_budget_keeps_the_best_ranked_evidence_first(make_kb: MakeKB) -> None:
    small = build(make_kb(NOTES), 2600)
    uris = [e.uri.rsplit("/", 1)[-1] for e in small.evidence]
    assert small.truncated and len(uris) >= 2, uris
    assert uris[:2] == ["sync.md", "index.md"], uris
    ranks = [e.retrieval_rank for e in small.evidence]
    assert ranks == sorted(ranks), ranks


def test_a_larger_budget_adds_evidence_after_the_best_ranked(make_kb: MakeKB) -> None:
    kb = make_kb(NOTES)
    small = [e.uri for e in build(kb, 2600).evidence]
    large = [e.uri for e in build(kb, 12000).evidence]
    assert large[: len(small)] == small and len(large) > len(small)
