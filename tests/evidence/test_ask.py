"""Verified ask (rung 6): extractive answers with citations, abstentions, contradiction and
freshness checks, claim segmentation and the verifier, MCP/REST/CLI, and the optional
OpenAI-compatible generator (a fake `/v1/chat/completions` on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gno.errors import GnoError
from gno.evidence import ask as ask_mod
from gno.evidence.capsule import CapsuleRequest
from gno.evidence.claims import MAX_CLAIMS, judge, segment
from gno.models import AskCitation, AskResult, Capsule

from .conftest import KB, Cli, MakeKB, mcp_call, mcp_tools

ASK_KB = {
    "deploy.md": (
        "# Deploy process\n\nStaging is deployed with the systemd unit app-staging.\n\n"
        "Production deploys happen from the main branch only, every Tuesday.\n\n"
        "See [[rollback]] for how to undo a deploy.\n"
    ),
    "rollback.md": "# Rollback\n\nTo roll back, run the revert job in the release pipeline.\n",
    "team.md": "# Team\n\nThe platform team owns deploys. Alice is the on-call lead.\n",
    "db.md": "# Database\n\nThe primary database is postgres 16 with two streaming replicas.\n",
}

ANSWERABLE = [
    ("Which systemd unit deploys staging?", "app-staging", "deploy.md"),
    ("Who is the on-call lead?", "Alice", "team.md"),
    ("Which branch do production deploys happen from?", "main branch", "deploy.md"),
    ("How many streaming replicas does the primary database have?", "two streaming replicas", "db.md"),
]
ABSENT = [
    "What is the database password for the billing cluster?",
    "Who owns the billing service?",
    "Describe the quantum flux capacitor calibration",
]
Q = ANSWERABLE[0][0]


@pytest.fixture
def kb(make_kb: MakeKB) -> KB:
    return make_kb(ASK_KB)


def capsule_for(kb: KB, question: str, budget: int = 12000) -> Capsule:
    return kb.engine.context_build(CapsuleRequest(goal=question, budget_tokens=budget))


def rel_of(uri: str) -> str:
    assert uri.startswith("gno://kb/"), uri
    return uri[len("gno://kb/") :]


# -- answered ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "answer", "rel"), ANSWERABLE)
def test_answer_in_corpus_is_verified_with_valid_citations(kb: KB, question: str, answer: str, rel: str) -> None:
    r = kb.engine.ask(question, verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.abstention_reason is None and r.message is None
    assert r.answerer == "extractive"
    assert r.answer is not None and answer in r.answer
    v = r.verification
    assert v is not None and v.mode == "closed_capsule" and v.coverage_threshold == 1.0
    assert v.claims and all(c.status == "supported" for c in v.claims)
    assert all(c.rationale_code == "semantic_entailment" and c.rejected_citations == [] for c in v.claims)
    assert v.coverage["totalClaims"] == v.coverage["supportedClaims"] == len(v.claims)
    assert v.coverage["supportedRatio"] == 1.0
    # the Capsule the answer is closed over is the one `context build` gives for the same goal
    cap = capsule_for(kb, question)
    assert r.capsule_id == v.capsule_id == cap.capsule_id
    by_id = {e.evidence_id: e for e in cap.evidence}
    assert r.citations
    cited = {c.evidence_id for c in r.citations}
    assert cited == {i for c in v.claims for i in c.citations}
    for c in r.citations:
        ev = by_id[c.evidence_id]
        assert (c.uri, c.docid, c.start_line, c.end_line) == (ev.uri, ev.docid, ev.start_line, ev.end_line)
    # every claim is quoted from its cited span, and the cited lines of the file hold the answer
    for claim in v.claims:
        assert any(claim.text in by_id[i].text for i in claim.citations), claim
    answer_cites = [c for c in r.citations if answer in by_id[c.evidence_id].text]
    assert answer_cites
    for c in answer_cites:
        assert rel_of(c.uri) == rel
        lines = kb.lines(rel)[c.start_line - 1 : c.end_line]
        assert answer in "\n".join(lines)
    # the answer's markers are exactly `[evidence:<id>]` with full ids of the Capsule
    markers = re.findall(r"\[evidence:([^\]]*)\]", r.answer)
    assert markers and set(markers) == cited


def test_unverified_ask_without_verify(kb: KB) -> None:
    r = kb.engine.ask(Q)
    assert r.answer_status == "unverified"
    assert r.verification is None
    assert r.answer is not None and "app-staging" in r.answer and r.citations


def test_question_coverage_is_reported(kb: KB) -> None:
    r = kb.engine.ask(Q, verify=True)
    assert r.verification is not None
    qc = r.verification.question_coverage
    assert qc["threshold"] == 0.75 and qc["ratio"] >= 0.75
    assert set(qc["covered"]) <= set(qc["facets"])


# -- abstained ---------------------------------------------------------------------------------


@pytest.mark.parametrize("question", ABSENT)
def test_absent_answer_abstains(kb: KB, question: str) -> None:
    r = kb.engine.ask(question, verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason in ("coverage_below_threshold", "no_substantive_claims")
    assert r.answer is None and r.citations == []
    assert r.message is not None and "verified" in r.message


def test_cli_abstention_exits_0(kb: KB, cli: Cli) -> None:
    r = cli("ask", ABSENT[0], "--verify", "--json")
    assert r.exit_code == 0
    doc = r.json
    assert doc["answerStatus"] == "abstained"
    assert doc["abstentionReason"] in ("coverage_below_threshold", "no_substantive_claims")
    assert "answer" not in doc or doc["answer"] is None
    r = cli("ask", ABSENT[0], "--verify")
    assert r.exit_code == 0
    assert r.stdout.strip() == ask_mod.ABSTAIN_TEXT
    assert "status: abstained (" in r.stderr


def test_cli_verified_answer(kb: KB, cli: Cli) -> None:
    r = cli("ask", Q, "--verify", "--json")
    assert r.exit_code == 0
    assert r.json["answerStatus"] == "verified" and "app-staging" in r.json["answer"]
    r = cli("ask", Q, "--verify")
    assert r.exit_code == 0
    assert "app-staging" in r.stdout and "gno://kb/deploy.md:" in r.stdout
    assert "status: verified" in r.stderr
    r = cli("ask", "   ", "--verify", "--json")
    assert r.exit_code == 1


def test_rest_and_sdk_ask(kb: KB, rest: Any) -> None:
    resp = rest(kb.engine).post("/api/ask", json={"question": Q, "verify": True})
    assert resp.status_code == 200, resp.text
    assert resp.json()["answerStatus"] == "verified"
    resp = rest(kb.engine).post("/api/ask", json={"question": ABSENT[0]})
    assert resp.status_code == 200 and resp.json()["answerStatus"] == "abstained"
    import gno

    client = gno.Client.open()
    try:
        assert client.ask(Q).answer_status == "verified"
        assert client.ask(ABSENT[1]).answer_status == "abstained"
    finally:
        client.close()


# -- contradictions ----------------------------------------------------------------------------


def contradiction_kb(make_kb: MakeKB, first: str, second: str) -> KB:
    return make_kb(
        {
            "rollback.md": f"# Rollback\n\n{first}\n",
            "ops.md": f"# Ops notes\n\n{second}\n",
            "team.md": ASK_KB["team.md"],
        }
    )


def test_contradicted_numbers_abstain(make_kb: MakeKB) -> None:
    kb = contradiction_kb(make_kb, "A rollback takes about 10 minutes.", "A rollback takes about 45 minutes.")
    r = kb.engine.ask("How many minutes does a rollback take?", verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason == "contradiction_detected"
    assert r.verification is not None and r.verification.coverage["contradictedClaims"] >= 1
    assert any(c.rationale_code == "semantic_contradiction" for c in r.verification.claims)


def test_contradicted_number_word_abstains(make_kb: MakeKB) -> None:
    kb = contradiction_kb(make_kb, "A rollback takes about ten minutes.", "A rollback takes about 45 minutes.")
    r = kb.engine.ask("How many minutes does a rollback take?", verify=True)
    assert r.answer_status == "abstained", r.answer
    assert r.abstention_reason == "contradiction_detected"


def test_contradiction_inside_a_longer_passage_abstains(make_kb: MakeKB) -> None:
    kb = contradiction_kb(
        make_kb,
        "To roll back, run the revert job in the release pipeline.\nA rollback takes about 10 minutes.",
        "A rollback takes about 45 minutes.",
    )
    r = kb.engine.ask("How many minutes does a rollback take?", verify=True)
    assert r.answer_status == "abstained", r.answer
    assert r.abstention_reason == "contradiction_detected"


# -- freshness: an edited source between build and verify ------------------------------------------


def draft(kb: KB, question: str) -> tuple[Capsule, str, list[Any], list[str], list[AskCitation]]:
    """What `ask` holds before verification: the Capsule, the extractive answer, its claims."""
    cap = capsule_for(kb, question)
    answer, facets = ask_mod.extractive_answer(question, cap)
    claims, citations = ask_mod._cited(answer, cap)
    return cap, answer, claims, facets, citations


def verified(kb: KB, question: str, cap: Capsule, answer: str, claims: Any, facets: Any, cites: Any) -> AskResult:
    return ask_mod._verified(kb.engine, question, answer, claims, cap, facets, cites, "extractive")


def test_verify_passes_on_a_fresh_draft(kb: KB) -> None:
    cap, answer, claims, facets, cites = draft(kb, Q)
    r = verified(kb, Q, cap, answer, claims, facets, cites)
    assert r.answer_status == "verified" and r.answer == answer


def test_edited_source_between_build_and_verify_is_caught(kb: KB) -> None:
    cap, answer, claims, facets, cites = draft(kb, Q)
    kb.write("deploy.md", ASK_KB["deploy.md"].replace("app-staging", "app-staging-v2"))
    kb.sync()
    r = verified(kb, Q, cap, answer, claims, facets, cites)
    assert r.answer_status == "abstained"
    assert r.abstention_reason == "citation_hygiene_failed"
    assert r.answer is None and r.citations == []
    assert r.verification is not None
    stale = [c for c in r.verification.claims if "evidence_stale" in c.rejected_citations]
    assert stale and all(c.status != "supported" for c in stale)


def test_deleted_source_between_build_and_verify_is_caught(kb: KB) -> None:
    cap, answer, claims, facets, cites = draft(kb, Q)
    kb.path("deploy.md").unlink()
    kb.sync()
    r = verified(kb, Q, cap, answer, claims, facets, cites)
    assert r.abstention_reason == "citation_hygiene_failed"
    assert r.verification is not None
    assert any("evidence_missing" in c.rejected_citations for c in r.verification.claims)


def test_edit_racing_the_ask_is_caught(kb: KB, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file changes (and is re-indexed) after the Capsule is built, before verification."""
    real = ask_mod.build_capsule

    def build_then_edit(engine: Any, req: CapsuleRequest) -> Capsule:
        cap = real(engine, req)
        kb.write("deploy.md", ASK_KB["deploy.md"].replace("systemd unit app-staging", "systemd unit app-blue"))
        kb.sync()
        return cap

    monkeypatch.setattr(ask_mod, "build_capsule", build_then_edit)
    r = kb.engine.ask(Q, verify=True)
    assert r.answer_status == "abstained"
    assert r.abstention_reason == "citation_hygiene_failed"


def test_edit_on_disk_without_resync_is_caught(kb: KB) -> None:
    cap, answer, claims, facets, cites = draft(kb, Q)
    kb.write("deploy.md", ASK_KB["deploy.md"].replace("app-staging", "app-green"))
    r = verified(kb, Q, cap, answer, claims, facets, cites)
    assert r.answer_status == "abstained"


def test_verifier_that_cannot_run_fails_closed(kb: KB, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_a: Any, **_k: Any) -> tuple[str, str]:
        raise RuntimeError("verifier down")

    monkeypatch.setattr(ask_mod, "judge", broken)
    r = kb.engine.ask(Q, verify=True)
    assert r.answer_status == "abstained"
    assert r.abstention_reason == "coverage_below_threshold"
    assert r.verification is not None
    assert all(
        c.status == "uncertain" and c.rationale_code == "semantic_judgment_unavailable" for c in r.verification.claims
    )
    assert r.verification.coverage["uncertainClaims"] == len(r.verification.claims) >= 1


# -- claims: segmentation and claimId ------------------------------------------------------------

CAP_ID = "c" * 64


def claim_id(capsule_id: str, start: int, end: int, text: str) -> str:
    payload = json.dumps(
        {"capsuleId": capsule_id, "end": end, "start": start, "text": text}, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def test_segment_sentences_citations_and_claim_ids() -> None:
    a, b = "a" * 64, "b" * 64
    answer = f"Staging uses app-staging. [evidence:{a}] Alice leads on-call! [evidence:{b}] [evidence:{a}]"
    claims = segment(answer, CAP_ID)
    assert [c.text for c in claims] == ["Staging uses app-staging.", "Alice leads on-call!"]
    assert [c.citations for c in claims] == [[a], [b, a]]
    first, second = claims
    assert (first.start, first.end) == (0, len("Staging uses app-staging."))
    assert answer[second.start : second.end] == "Alice leads on-call!"
    for c in claims:
        assert c.claim_id == claim_id(CAP_ID, c.start, c.end, c.text)
        assert c.status == "uncertain"  # nothing judged yet
    # the same text under another Capsule is another claim
    assert segment(answer, "d" * 64)[0].claim_id != first.claim_id


def test_segment_offsets_are_utf16() -> None:
    answer = "😀 Deploys are weekly. Rollbacks take ten minutes. Zürich ✓ is fine."
    claims = segment(answer, CAP_ID)
    assert [c.text for c in claims] == ["😀 Deploys are weekly.", "Rollbacks take ten minutes.", "Zürich ✓ is fine."]
    assert (claims[0].start, claims[0].end) == (0, 22)  # the emoji is two UTF-16 code units
    assert answer.index("Rollbacks") == 22
    assert (claims[1].start, claims[1].end) == (23, 50)  # Python index 22..49
    assert claims[2].start == 51 and claims[2].end == 51 + len("Zürich ✓ is fine.")
    for c in claims:
        assert c.claim_id == claim_id(CAP_ID, c.start, c.end, c.text)


def test_segment_splits_before_non_ascii_capitals() -> None:
    claims = segment("Deploys are weekly. Übergabe happens on Fridays.", CAP_ID)
    assert [c.text for c in claims] == ["Deploys are weekly.", "Übergabe happens on Fridays."]


def test_segment_lines_and_empty_parts() -> None:
    e = "e" * 16
    claims = segment(f"- First point [evidence:{e}]\n\n- Second point\n...\n[evidence:{e}]", CAP_ID)
    assert [c.text for c in claims] == ["- First point", "- Second point"]
    assert claims[0].citations == [e]
    assert claims[1].citations == [e]  # a marker on its own line belongs to the claim before it
    assert segment("", CAP_ID) == []
    assert segment("... !!! ???", CAP_ID) == []
    assert segment("[evidence:deadbeef]", CAP_ID) == []


def test_segment_caps_the_number_of_claims() -> None:
    answer = " ".join(f"Claim number {i} holds." for i in range(MAX_CLAIMS + 44))
    claims = segment(answer, CAP_ID)
    assert len(claims) == MAX_CLAIMS == 256
    assert claims[-1].text == "Claim number 255 holds."


def test_segment_is_abbreviation_aware() -> None:
    claims = segment("Dr. Smith deployed it. It worked.", CAP_ID)
    assert [c.text for c in claims] == ["Dr. Smith deployed it.", "It worked."]


def test_segment_excludes_code_fences() -> None:
    claims = segment("Run the job.\n```\nrm -rf /\n```\nDone.", CAP_ID)
    assert [c.text for c in claims] == ["Run the job.", "Done."]


# -- the verifier ----------------------------------------------------------------------------------

SPAN = "Production deploys happen from the main branch only, every Tuesday."


@pytest.mark.parametrize(
    ("claim", "spans", "others", "want"),
    [
        (SPAN, [SPAN], [], ("supported", "semantic_entailment")),
        ("production deploys happen from the MAIN branch", [SPAN], [], ("supported", "semantic_entailment")),
        ("Deploys happen on Tuesday from main.", [SPAN], [], ("supported", "semantic_entailment")),
        ("Production deploys happen from a release branch.", [SPAN], [], ("insufficient", "no_valid_evidence")),
        ("Anything at all.", [], [SPAN], ("insufficient", "no_valid_evidence")),
        (
            "A rollback takes 45 minutes.",
            ["A rollback takes 10 minutes."],
            [],
            ("contradicted", "semantic_contradiction"),
        ),
        ("Version 2.4 shipped.", ["Version 2.5 shipped on time."], [], ("contradicted", "semantic_contradiction")),
        (
            "Rollbacks are not rehearsed.",
            ["Rollbacks are rehearsed every month."],
            [],
            ("contradicted", "semantic_contradiction"),
        ),
        (
            "Rollbacks are rehearsed.",
            ["Rollbacks are never rehearsed."],
            [],
            ("contradicted", "semantic_contradiction"),
        ),
        (
            "A rollback takes 45 minutes.",
            ["A rollback takes 45 minutes."],
            ["A rollback takes 10 minutes."],
            ("contradicted", "semantic_contradiction"),
        ),
        (
            "A rollback takes 45 minutes.",
            ["A rollback takes 45 minutes."],
            ["Alice is the on-call lead."],
            ("supported", "semantic_entailment"),
        ),
    ],
)
def test_judge(claim: str, spans: list[str], others: list[str], want: tuple[str, str]) -> None:
    assert judge(claim, spans, others) == want


def test_judge_contraction_negation_is_a_contradiction() -> None:
    got = judge("Rollbacks aren't rehearsed.", ["Rollbacks are rehearsed monthly."], [])
    assert got == ("contradicted", "semantic_contradiction")


# -- MCP gno_ask ---------------------------------------------------------------------------------


def test_mcp_gno_ask_verifies_by_default(kb: KB) -> None:
    tool = next(t for t in mcp_tools(kb.engine) if t.name == "gno_ask")
    assert tool.input_schema["properties"]["verify"]["default"] is True
    out = mcp_call(kb.engine, "gno_ask", {"question": Q})
    assert not out.is_error, out.text
    assert out.structured is not None and out.structured["answerStatus"] == "verified"
    assert out.structured["verification"]
    out = mcp_call(kb.engine, "gno_ask", {"question": Q, "verify": False})
    assert not out.is_error and out.structured is not None
    assert out.structured["answerStatus"] != "verified"
    out = mcp_call(kb.engine, "gno_ask", {"question": Q, "verify": True})
    assert not out.is_error, out.text
    assert out.structured is not None and out.structured["answerStatus"] == "verified"
    assert "app-staging" in out.structured["answer"]
    out = mcp_call(kb.engine, "gno_ask", {"question": ABSENT[0], "verify": True})
    assert not out.is_error and out.structured is not None
    assert out.structured["answerStatus"] == "abstained"


# -- the optional generator ----------------------------------------------------------------------

EVIDENCE_RE = re.compile(r'<evidence id="([0-9a-f]+)">\n(.*?)\n</evidence>', re.S)


@dataclass
class FakeChat:
    """A tiny OpenAI-compatible `/v1/chat/completions` on 127.0.0.1; `mode` picks the answer."""

    mode: str = "verbatim"
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    port: int = 0

    def answer(self, prompt: str) -> str:
        ev = EVIDENCE_RE.findall(prompt)
        staging = next((i for i, t in ev if "app-staging" in t), ev[0][0] if ev else "0" * 64)
        if self.mode == "verbatim":
            return f"Staging is deployed with the systemd unit app-staging. [evidence:{staging}]"
        if self.mode == "hallucinate":
            return f"Staging is deployed with the systemd unit app-prod-7 on Kubernetes. [evidence:{staging}]"
        if self.mode == "out_of_capsule":
            return "Staging is deployed with the systemd unit app-staging. [evidence:" + "ab" * 32 + "]"
        if self.mode == "uncited":
            return "Staging is deployed with the systemd unit app-staging."
        raise AssertionError(self.mode)


@pytest.fixture
def fake_chat(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChat]:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    state = FakeChat()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            state.paths.append(self.path)
            if state.mode == "error":
                self.send_response(500)
                self.end_headers()
                return
            content = state.answer(body["messages"][-1]["content"])
            out = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *_a: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = int(server.server_address[1])
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        t.join(timeout=10)


@pytest.fixture
def gen_kb(kb: KB, fake_chat: FakeChat) -> KB:
    kb.set_models(gen=f"http://127.0.0.1:{fake_chat.port}/v1#m")
    return kb


def test_generator_answer_citing_evidence_verbatim_is_verified(gen_kb: KB, fake_chat: FakeChat) -> None:
    r = gen_kb.engine.ask(Q, verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.answerer == f"generator:http://127.0.0.1:{fake_chat.port}/v1#m"
    assert r.answer is not None and "app-staging" in r.answer
    assert [rel_of(c.uri) for c in r.citations] == ["deploy.md"]
    # the request: the configured model, the Capsule's evidence delimited as untrusted, the question
    assert fake_chat.paths == ["/v1/chat/completions"]
    req = fake_chat.requests[0]
    assert req["model"] == "m" and req["temperature"] == 0
    prompt = req["messages"][-1]["content"]
    assert Q in prompt and "untrusted" in prompt
    cap = capsule_for(gen_kb, Q)
    assert [i for i, _ in EVIDENCE_RE.findall(prompt)] == [e.evidence_id for e in cap.evidence]
    assert [t for _, t in EVIDENCE_RE.findall(prompt)] == [e.text for e in cap.evidence]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("hallucinate", "coverage_below_threshold"),
        ("out_of_capsule", "citation_hygiene_failed"),
        ("uncited", "citation_hygiene_failed"),
    ],
)
def test_generator_hallucination_abstains(gen_kb: KB, fake_chat: FakeChat, mode: str, reason: str) -> None:
    fake_chat.mode = mode
    r = gen_kb.engine.ask(Q, verify=True)
    assert r.answer_status == "abstained", r.dump()
    assert r.abstention_reason == reason
    assert r.answer is None and r.citations == []
    assert r.answerer.startswith("generator:")
    assert len(fake_chat.requests) == 1
    assert r.verification is not None
    claims = r.verification.claims
    assert claims and not all(c.status == "supported" and not c.rejected_citations for c in claims)
    if mode == "out_of_capsule":
        assert claims[0].rejected_citations == ["out_of_capsule"]
    if mode == "uncited":
        assert claims[0].rejected_citations == ["orphan_citation"]


def test_generator_failure_never_releases_an_answer(gen_kb: KB, fake_chat: FakeChat) -> None:
    fake_chat.mode = "error"
    try:
        r = gen_kb.engine.ask(Q, verify=True)
    except GnoError as err:
        assert "generator" in err.message
    else:
        assert r.answer_status == "abstained"


def test_generator_respects_local_only_egress(kb: KB, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    calls: list[str] = []

    def no_network(url: str, **_kw: Any) -> Any:
        calls.append(url)
        raise httpx.ConnectError("network disabled by the test")

    monkeypatch.setattr(httpx, "post", no_network)
    kb.set_models(gen="https://llm.example.com/v1#m")
    try:
        kb.engine.ask(Q, verify=True)
    except GnoError:
        pass
    assert calls == []


def test_the_generator_reads_the_hints_as_configuration_apart_from_the_evidence(
    gen_kb: KB, fake_chat: FakeChat
) -> None:
    gen_kb.engine.context_add("/", "Runbooks of the zebra crew, newest first")
    r = gen_kb.engine.ask(Q, verify=True)
    assert r.answer_status == "verified", r.dump()
    assert r.context is not None and [h.text for h in r.context] == ["Runbooks of the zebra crew, newest first"]
    prompt = fake_chat.requests[0]["messages"][-1]["content"]
    head = prompt.partition("<evidence")[0]
    assert "Runbooks of the zebra crew" in head and "never cite" in head
    assert all("zebra crew" not in t for _, t in EVIDENCE_RE.findall(prompt))
    assert {c.evidence_id for c in r.citations} <= {i for i, _ in EVIDENCE_RE.findall(prompt)}
