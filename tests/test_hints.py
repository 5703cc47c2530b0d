"""Context hints: scopes, matching, `gno context add|list|rm|check`, hints on hits, Capsules and ask,
and no change at all to any result while none is configured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gno.cli.main import cli
from gno.config import load_config
from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.evidence.capsule import CapsuleRequest
from gno.hints import HintConfig, matching, parse_scope, texts_for
from gno.retrieve.hint_prior import hint_prior


def _hint(scope: str, text: str) -> HintConfig:
    kind, key = parse_scope(scope)
    return HintConfig(scopeType=kind, scopeKey=key, text=text)


@pytest.mark.parametrize(
    ("scope", "kind", "key"),
    [
        ("/", "global", "/"),
        (" Notes: ", "collection", "notes:"),
        ("gno://notes/projects/", "prefix", "gno://notes/projects"),
        ("gno://notes/My Notes//a", "prefix", "gno://notes/My%20Notes/a"),
        ("gno://notes", "prefix", "gno://notes"),
    ],
)
def test_a_scope_is_parsed_and_normalised(scope: str, kind: str, key: str) -> None:
    assert parse_scope(scope) == (kind, key)


@pytest.mark.parametrize("scope", ["", "notes", "Not A Name:", "gno://", "gno:///x", "gno://notes/../x", "*"])
def test_a_malformed_scope_is_context_scope_invalid(scope: str) -> None:
    with pytest.raises(GnoError) as err:
        parse_scope(scope)
    assert err.value.code == ErrorCode.CONTEXT_SCOPE_INVALID


def test_matching_is_ordered_segment_aware_and_deduplicated() -> None:
    hints = [
        _hint("gno://notes/projects/alpha", "Alpha project"),
        _hint("gno://notes/projects", "Projects"),
        _hint("notes:", "Team notes"),
        _hint("/", "Everything"),
        _hint("gno://notes/proj", "Never: a sibling prefix"),
        _hint("other:", "Another collection"),
        _hint("gno://notes/projects/alpha/deep", "Team notes"),  # a text already given is not repeated
    ]
    assert texts_for(hints, "notes", "projects/alpha/deep/x.md") == [
        "Everything",
        "Team notes",
        "Projects",
        "Alpha project",
    ]
    assert texts_for(hints, "notes", "projects.md") == ["Everything", "Team notes"]
    assert texts_for(hints, "notes", "proj/x.md") == ["Everything", "Team notes", "Never: a sibling prefix"]
    assert texts_for([], "notes", "x.md") is None
    assert [h.scope_type for h in matching(hints, "other", "a.md")] == ["global", "collection"]


def test_add_list_rm_and_check_edit_index_yml(engine: Engine) -> None:
    assert engine.context_add("/", "The team's knowledge base").added
    assert not engine.context_add("/", "  The team's knowledge base ").added  # the same hint, nothing written
    engine.context_add("NOTES:", "Deploy runbooks and decisions")
    engine.context_add("gno://notes/projects", "Project plans")
    engine.context_add("gno://notes/projects", "Second hint on the same prefix")
    engine.context_add("gno://notes/nothing-here", "A folder that holds nothing yet")
    raw = yaml.safe_load(engine.settings.config_path.read_text(encoding="utf-8"))
    entry = {"scopeType": "collection", "scopeKey": "notes:", "text": "Deploy runbooks and decisions"}
    assert raw["contexts"][1] == entry
    assert [h.scope_key for h in engine.context_list().contexts] == [
        "/",
        "notes:",
        "gno://notes/projects",
        "gno://notes/projects",
        "gno://notes/nothing-here",
    ]
    check = engine.context_check()
    assert not check.ok and [(w.scope_key, w.code) for w in check.warnings] == [
        ("gno://notes/nothing-here", "no_documents")
    ]
    removed = engine.context_rm("gno://notes/projects/", "Second hint on the same prefix")
    assert [h.text for h in removed.removed] == ["Second hint on the same prefix"]
    assert len(engine.context_rm("gno://notes/nothing-here").removed) == 1
    assert engine.context_check().ok
    engine.collection_remove("notes")
    warned = engine.context_check().warnings
    assert [(w.scope_key, w.code) for w in warned] == [
        ("notes:", "unknown_collection"),
        ("gno://notes/projects", "unknown_collection"),
    ]


def test_edits_are_refused_with_their_codes(engine: Engine) -> None:
    before = engine.settings.config_path.read_bytes()
    for call, code in [
        (lambda: engine.context_add("nope:", "A hint"), ErrorCode.CONTEXT_SCOPE_INVALID),
        (lambda: engine.context_add("gno://nope/x", "A hint"), ErrorCode.CONTEXT_SCOPE_INVALID),
        (lambda: engine.context_add("/", "x" * 2001), ErrorCode.CONTEXT_TEXT_INVALID),
        (lambda: engine.context_rm("/"), ErrorCode.CONTEXT_NOT_FOUND),
    ]:
        with pytest.raises(GnoError) as err:
            call()
        assert err.value.code == code
    assert engine.settings.config_path.read_bytes() == before


def test_a_hand_edited_hint_that_breaks_the_rules_is_config_invalid_with_its_line(engine: Engine) -> None:
    path = engine.settings.config_path
    path.write_text(
        path.read_text(encoding="utf-8") + "contexts:\n- scopeType: global\n  scopeKey: notes\n  text: x\n",
        encoding="utf-8",
    )
    with pytest.raises(GnoError) as err:
        load_config(engine.settings)
    assert err.value.code == ErrorCode.CONFIG_INVALID and err.value.details["line"]


def _dumped(result: Any) -> str:
    data = result.dump()
    data["meta"].pop("elapsedMs", None)
    return json.dumps(data, sort_keys=True)


def test_without_hints_every_result_is_as_before_and_with_them_hits_carry_them(engine: Engine) -> None:
    def calls() -> list[str]:
        return [
            _dumped(engine.search("deploy")),
            _dumped(engine.query("how do we deploy")),
            _dumped(engine.query("rollback", lexical_only=True, depth="fast")),
        ]

    before = calls()
    capsule = engine.context_build(CapsuleRequest(goal="how do we deploy", budget_tokens=4000))
    assert "context" not in "".join(before) and "configuredContexts" not in json.dumps(capsule.dump())
    engine.context_add("/", "Everything")
    engine.context_add("gno://notes/projects", "Project plans")
    hinted = engine.query("runbook", limit=10)
    by_path = {h.rel_path: h.context for h in hinted.results}
    assert by_path["projects/runbook.md"] == ["Everything", "Project plans"]
    assert all(c and c[0] == "Everything" for c in by_path.values())
    engine.context_rm("/")
    engine.context_rm("gno://notes/projects")
    assert calls() == before  # configured, then removed: byte for byte the same results
    explained = engine.query("how do we deploy", explain=True).explain
    assert explained is not None and "hints" not in [s.name for s in explained.stages]
    again = engine.context_build(CapsuleRequest(goal="how do we deploy", budget_tokens=4000))
    assert again.capsule_id == capsule.capsule_id


def test_a_capsule_lists_hints_apart_from_evidence_and_ask_returns_them_uncited(engine: Engine) -> None:
    engine.context_add("notes:", "Deploy runbooks of the platform team")
    cap = engine.context_build(CapsuleRequest(goal="how do we deploy", budget_tokens=4000))
    configured = cap.guidance["configuredContexts"]
    assert [c["scopeKey"] for c in configured] == ["notes:"]
    assert all(e.context_ids == [configured[0]["contextId"]] for e in cap.evidence)
    assert all("platform team" not in e.text for e in cap.evidence)  # never quoted as evidence
    assert engine.context_verify(cap.dump()).integrity == "intact"
    res = engine.ask("How do we deploy?", verify=True)
    assert res.context and res.context[0].text == "Deploy runbooks of the platform team"
    cited = {c.evidence_id for c in res.citations}
    assert configured[0]["contextId"] not in cited


def test_the_prior_moves_only_between_scopes(engine: Engine) -> None:
    ids = {r["rel_path"]: r["id"] for r in engine.store.execute("SELECT id, rel_path FROM documents")}
    a, b, c = ids["deploy.md"], ids["projects/runbook.md"], ids["rollback.md"]
    fused = [(a, 0.9), (b, 0.88), (c, 0.5)]

    def closeness(texts: tuple[str, ...]) -> float:  # stands in for the cosine of query and hints
        return 0.9 if "Project plans" in texts else 0.5 if texts else 0.0

    query = "project plans for the deploy"
    st, ranked = hint_prior(engine.store, fused, [_hint("/", "Everything")], closeness, query, 10, weight=0.5)
    assert ranked == fused and set(st.scores.values()) == {0.0}  # one hint set: nothing moves
    hints = [_hint("/", "Everything"), _hint("gno://notes/projects", "Project plans")]
    st, ranked = hint_prior(engine.store, fused, hints, closeness, query, 10, weight=0.5)
    assert [d for d, _ in ranked] == [b, a, c]
    assert st.scores == {a: 0.0, b: pytest.approx(0.5 * 0.4), c: 0.0}
    assert dict(ranked)[b] == pytest.approx(0.88 + 0.2)


def test_the_prior_reorders_the_top_and_never_lifts_a_document_into_it(engine: Engine) -> None:
    ids = {r["rel_path"]: r["id"] for r in engine.store.execute("SELECT id, rel_path FROM documents")}
    a, b, c = ids["deploy.md"], ids["projects/runbook.md"], ids["rollback.md"]
    hints = [_hint("/", "Everything"), _hint("gno://notes/projects", "Project plans")]

    def closeness(texts: tuple[str, ...]) -> float:
        return 0.9 if "Project plans" in texts else 0.5

    query = "project plans for the deploy"
    below = [(a, 0.9), (c, 0.6), (b, 0.5)]  # the scope's note is third: outside a top 2
    st, ranked = hint_prior(engine.store, below, hints, closeness, query, 2, weight=0.5)
    assert ranked == below and b not in st.scores  # earned, but not lifted into the top 2
    inside = [(a, 0.9), (b, 0.8), (c, 0.6)]
    _, ranked = hint_prior(engine.store, inside, hints, closeness, query, 2, weight=0.5)
    assert [d for d, _ in ranked] == [b, a, c] and dict(ranked)[c] == 0.6  # reordered within the top 2


def test_the_cli_prints_hints_and_the_cold_search_attaches_them(engine: Engine, tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["context", "add", "gno://notes/projects", "Project", "plans"])
    assert out.exit_code == 0 and "added: gno://notes/projects  Project plans" in out.output
    listed = runner.invoke(cli, ["context", "list", "--json"])
    assert json.loads(listed.output)["contexts"][0]["text"] == "Project plans"
    bad = runner.invoke(cli, ["context", "rm", "/", "--json"])
    assert bad.exit_code == 1 and json.loads(bad.output)["error"]["code"] == "CONTEXT_NOT_FOUND"
    _ = engine.config  # the snapshot records one hint: a cold search must not answer without it
    proc = subprocess.run(
        [sys.executable, "-m", "gno", "--no-daemon", "search", "--json", "runbook"],
        capture_output=True,
        text=True,
        check=True,
    )
    hits = {h["relPath"]: h.get("context") for h in json.loads(proc.stdout)["results"]}
    assert hits["projects/runbook.md"] == ["Project plans"]
    assert all(v is None for k, v in hits.items() if not k.startswith("projects/"))
