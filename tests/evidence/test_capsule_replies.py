"""A question in the Capsule carries its reply (the next paragraph), so `ask` can answer from the pair; a
command's caption carries the command, and the command its caption.

In notes, FAQs and transcripts the value often sits in a reply that shares no word with the goal
("Nate: What's the name of your team?" / "Joanna: The Minnesota Wolves!"): selected on its own facets
it would be omitted, or cut among a document's better-scoring passages. All through a real index.
"""

from __future__ import annotations

from typing import Any

from gno.evidence.budget import Meter
from gno.evidence.canonical import canonical_json, sha256_hex, token_counter
from gno.evidence.capsule import CapsuleRequest, _Cand, _select
from gno.evidence.passages import captions, ends_with_question, is_code, is_question
from gno.models import Capsule
from gno.store import documents as docs

from .conftest import KB, MakeKB
from .test_capsule import check_budget

TEAM_Q = "What's the name of Joanna's team?"

# the question paragraph scores 3 facets (name, joanna, team), the reply only 1 (joanna), and eight
# paragraphs score 2: without pairing the reply falls outside the document's best eight passages
FILLER = [
    "Joanna: My team trains on Tuesdays and Thursdays at the old rink.",
    "Joanna: The whole team went out for pizza after practice.",
    "Joanna: Our team bus broke down on the highway last month.",
    "Joanna: I bought new skates because the team coach insisted.",
    "Joanna: My brother came to watch the team play on Sunday.",
    "Joanna: The team jerseys are green with a white stripe.",
    "Joanna: I scored twice for the team in the scrimmage.",
    "Joanna: Our team captain is moving to Denver next spring.",
]
CHAT = (
    "\n\n".join(
        [
            "# Hockey chat",
            "Nate: Joanna, I saw the photos from your first game. What's the name of your team?",
            "Joanna: The Minnesota Wolves!",
            *FILLER,
        ]
    )
    + "\n"
)

FAQ = """# Frequently asked

**Q: Which command deploys the site?**

Run `make ship` from the repository root.

**Q: Who approves a release?**

The release captain of the week approves it.
"""


def build(kb: KB, goal: str, budget: int = 12000) -> Capsule:
    return kb.engine.context_build(CapsuleRequest(goal=goal, budget_tokens=budget))


def spans(cap: Capsule) -> dict[tuple[str, int], Any]:
    return {(e.uri.rsplit("/", 1)[-1], e.start_line): e for e in cap.evidence}


def test_question_detection() -> None:
    assert is_question("Nate: What's the name of your team?")
    assert is_question("**Q: Which command deploys the site?**")
    assert not is_question("Joanna: The Minnesota Wolves!")
    assert ends_with_question("First line.\nSo, where are you going to stay?\n")
    assert not ends_with_question("Where are you going? Galway, I think.")


def test_reply_to_a_question_is_in_the_capsule(make_kb: MakeKB) -> None:
    kb = make_kb({"chat.md": CHAT})
    cap = build(kb, TEAM_Q)
    ev = spans(cap)
    lines = kb.lines("chat.md")
    assert ("chat.md", 3) in ev, "the question paragraph is selected"
    reply = ev.get(("chat.md", 5))
    assert reply is not None, "the reply travels with its question"
    # exact coordinates and hash: the reply is cited like any other passage
    assert reply.end_line == 5 and reply.text == lines[4] == "Joanna: The Minnesota Wolves!"
    assert reply.passage_hash == sha256_hex(reply.text)
    assert reply.selection_rank == ev[("chat.md", 3)].selection_rank + 1
    ranks = [e.retrieval_rank for e in cap.evidence]
    assert len(set(ranks)) == len(ranks)
    assert kb.engine.context_verify(cap.dump()).status == "unchanged"


def test_faq_answer_without_goal_words_is_carried(make_kb: MakeKB) -> None:
    """The FAQ's answer shares no word with the goal: it used to be omitted as `redundant_coverage`."""
    kb = make_kb({"faq.md": FAQ})
    cap = build(kb, "Which command deploys the site?")
    ev = spans(cap)
    assert ("faq.md", 3) in ev
    reply = ev[("faq.md", 5)]
    assert reply.text == "Run `make ship` from the repository root." and reply.facets == []
    assert not any(o.get("startLine") == 5 for o in cap.omissions["items"]), cap.omissions


def test_reply_carries_its_question(make_kb: MakeKB) -> None:
    """The other way round: a reply that states the goal's words brings the question it answers."""
    kb = make_kb(
        {"chat.md": "# Chat\n\nMaria: Where are you going next?\n\nTim: I'm going to Galway for my semester abroad.\n"}
    )
    cap = build(kb, "Where will Tim spend his semester abroad?")
    ev = spans(cap)
    assert ev[("chat.md", 3)].facets == [] and ("chat.md", 5) in ev
    assert [e.start_line for e in cap.evidence] == [3, 5]


def test_capsule_with_replies_is_deterministic_and_within_budget(make_kb: MakeKB) -> None:
    kb = make_kb({"chat.md": CHAT, "faq.md": FAQ})
    for goal in (TEAM_Q, "Which command deploys the site?"):
        for budget in (2000, 3000, 12000):
            a, b = build(kb, goal, budget), build(kb, goal, budget)
            assert canonical_json(a.dump()) == canonical_json(b.dump())
            check_budget(a)


def test_question_alone_when_the_pair_does_not_fit(make_kb: MakeKB) -> None:
    """Budget is measured on both passages; when only the question fits, it is selected alone."""
    long_reply = "Joanna: " + " ".join(["The Minnesota Wolves, and what a season it was!"] * 60)
    kb = make_kb({"chat.md": f"# Chat\n\nNate: What's the name of your team?\n\n{long_reply}\n"})
    row = docs.doc_by_path(kb.engine.store, "kb", "chat.md")
    assert row is not None
    lines = kb.lines("chat.md")

    def cand(rank: int, start: int, facets: list[str]) -> _Cand:
        t = lines[start - 1]
        return _Cand(rank, row, start, start, t, "Chat", facets, sha256_hex(t), ["bm25"])

    facets = ["name", "joanna", "team"]
    meter = Meter(token_counter())

    def select(budget: int, reply: bool) -> list[int]:
        question = cand(1, 3, ["name", "team"])
        question.reply = cand(2, 5, ["joanna"]) if reply else None
        req = CapsuleRequest(goal=TEAM_Q, budget_tokens=budget)
        selected, omitted = _select(kb.engine, [question], facets, req, budget * 4, meter)
        assert omitted == [] or [o["reason"] for o in omitted] == ["global_budget"]
        return [c.start for c in selected]

    # the smallest budget the question fits in alone is far too small for its ~700-token reply
    budget = next(b for b in range(1000, 4000, 50) if select(b, reply=False) == [3])
    assert select(budget, reply=True) == [3]
    assert select(budget + 2000, reply=True) == [3, 5]


def test_ask_answers_from_a_question_and_its_reply(make_kb: MakeKB) -> None:
    kb = make_kb({"chat.md": CHAT})
    r = kb.engine.ask(TEAM_Q, verify=True)
    assert r.answer_status == "verified", (r.abstention_reason, r.verification)
    assert r.answer is not None and "Minnesota Wolves" in r.answer
    assert "What's the name of your team?" in r.answer
    assert {(c.start_line, c.end_line) for c in r.citations} == {(3, 3), (5, 5)}


def test_ask_answers_a_faq(make_kb: MakeKB) -> None:
    kb = make_kb({"faq.md": FAQ})
    r = kb.engine.ask("Which command deploys the site?", verify=True)
    assert r.answer_status == "verified", (r.abstention_reason, r.verification)
    assert r.answer is not None and "make ship" in r.answer
    assert {c.start_line for c in r.citations} == {3, 5}


# -- a command's caption carries the command ---------------------------------------------------------

MV = """# mv

> Move or rename files and directories.

- Do not prompt for confirmation before overwriting existing files:

`mv {{[-f|--force]}} {{path/to/source}} {{path/to/target}}`

- Do not overwrite existing files at the target:

`mv {{[-n|--no-clobber]}} {{path/to/source}} {{path/to/target}}`

- Move files in verbose mode, showing files after they are moved:

`mv {{[-v|--verbose]}} {{path/to/source}} {{path/to/target}}`
"""


def test_caption_detection() -> None:
    assert captions("- Do not overwrite existing files at the target:", "`mv -n src dst`")
    assert captions("To bind on another address, use `-L`:", "```bash\n./app -L 0.0.0.0\n```")
    assert not captions("- Do not overwrite existing files at the target:", "Then check the result.")
    assert not captions("Files are moved.", "`mv -n src dst`")  # no colon: says nothing of what follows
    assert not captions("First line:\nsecond line:", "`mv -n src dst`")  # a paragraph, not a caption
    assert is_code("`a`\n`b`") and not is_code("`a` is a flag")


def test_a_caption_carries_its_command(make_kb: MakeKB) -> None:
    """The flag stands only in the command, which shares no word with the goal: it used to be left out."""
    kb = make_kb({"mv.md": MV})
    cap = build(kb, "Which mv option refuses to overwrite files that already exist at the destination?")
    ev = spans(cap)
    assert ("mv.md", 9) in ev, [e.start_line for e in cap.evidence]
    command = ev[("mv.md", 11)]
    assert command.text == "`mv {{[-n|--no-clobber]}} {{path/to/source}} {{path/to/target}}`"
    assert command.passage_hash == sha256_hex(command.text)
    assert kb.engine.context_verify(cap.dump()).status == "unchanged"


def test_a_command_carries_its_caption(make_kb: MakeKB) -> None:
    kb = make_kb({"mv.md": MV})
    cap = build(kb, "What is no-clobber for?")  # only the command writes it
    starts = [e.start_line for e in cap.evidence]
    assert 11 in starts and 9 in starts, starts
