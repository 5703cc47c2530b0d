"""The semantic halves of recall and remember (issue 5 "Deliver" 5; reference §3.5, §3.6).

recall adds the vector leg (`retrieval.mode: hybrid`) once the memory collection has vectors for
the configured model; remember ranks its candidates by cosine with the 0.83 "likely" threshold.
The MCP surface stays lexical (no model is loaded per call).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from gno.config import Settings
from gno.embed.fake import FakeEmbedder
from gno.engine import Engine
from gno.memory.recall import RecallRequest
from gno.memory.records import (
    MEMORY_LEXICAL_LIKELY_THRESHOLD,
    MEMORY_SEMANTIC_LIKELY_THRESHOLD,
    jaccard,
    normalize_text,
    token_set,
)
from gno.memory.remember import RememberRequest
from gno.models.memory_results import RecallResult, RememberResult

from .conftest import FAKE, Cli, set_embed

CALLER, SESSION = "test:caller", "test:session"
SCOPE = "project:gno"


@dataclass
class Mem:
    engine: Engine
    memory: Path

    def add(self, text: str, scopes: tuple[str, ...] = (SCOPE,)) -> Any:
        r = self.remember(text, scopes, decision="add")
        assert r.outcome == "added", r
        return r.record

    def remember(
        self, text: str, scopes: tuple[str, ...] = (SCOPE,), *, semantic: bool = True, **kw: Any
    ) -> RememberResult:
        req = RememberRequest(text=text, scopes=list(scopes), caller=CALLER, session=SESSION, **kw)
        return self.engine.remember(req, semantic=semantic)

    def recall(self, query: str, scopes: tuple[str, ...] = (SCOPE,), *, semantic: bool = True) -> RecallResult:
        req = RecallRequest(query=query, scopes=list(scopes), caller=CALLER, session=SESSION)
        return self.engine.recall(req, semantic=semantic)


@pytest.fixture
def mem(settings: Settings, tmp_path: Path) -> Iterator[Mem]:
    memory, notes = tmp_path / "memory-src", tmp_path / "notes-src"
    memory.mkdir()
    notes.mkdir()
    (notes / "deploy.md").write_text("# Deploys\n\nWe deploy on Tuesdays.\n", encoding="utf-8")
    cfg = {
        "version": "1.0",
        "collections": [
            {"name": "memory", "path": str(memory), "pattern": "**/*.md", "memoryManaged": True},
            {"name": "notes", "path": str(notes), "pattern": "**/*.md"},
        ],
        "models": {"embed": FAKE},
    }
    settings.config_path.parent.mkdir(parents=True, exist_ok=True)
    settings.config_path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    e = Engine(settings)
    e.update()
    yield Mem(e, memory)
    e.close()


@pytest.fixture
def facts(mem: Mem) -> Mem:
    mem.add("The staging database is postgres 16")
    mem.add("Releases are cut every Friday afternoon")
    mem.add("Our message bus is kafka", scopes=("project:other",))
    return mem


def cosine(a: str, b: str) -> float:
    v = FakeEmbedder(64).embed_documents([normalize_text(a), normalize_text(b)])
    return float(v[0] @ v[1])


# -- recall ---------------------------------------------------------------------------------------


def test_recall_is_lexical_until_the_memory_collection_is_embedded(facts: Mem) -> None:
    r = facts.recall("postgres")
    assert r.retrieval.mode == "lexical"
    assert r.retrieval.semantic_unavailable == "no vectors yet; run `gno embed`"
    assert [f.text for f in r.facts] == ["The staging database is postgres 16"]

    # embedding another collection does not count
    facts.engine.embed(["notes"])
    r = facts.recall("postgres")
    assert r.retrieval.mode == "lexical"
    assert r.retrieval.semantic_unavailable == "memory collection 'memory' has no vectors yet; run `gno embed`"

    e = facts.engine.embed(["memory"])
    assert e.embedded == 3
    r = facts.recall("postgres")
    assert r.retrieval.mode == "hybrid" and r.retrieval.semantic_unavailable is None
    assert r.facts[0].text == "The staging database is postgres 16"


def test_cli_recall_reports_hybrid_after_gno_embed(facts: Mem, cli: Cli) -> None:
    args = ("--scope", SCOPE, "--caller", CALLER, "--session", SESSION, "--json")
    r = cli("recall", "postgres", *args)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.json["retrieval"]["mode"] == "lexical"
    r = cli("embed", "-c", "memory", "--json")
    assert r.exit_code == 0 and r.json["embedded"] == 3
    r = cli("recall", "postgres", *args)
    assert r.exit_code == 0
    assert r.json["retrieval"] == {"mode": "hybrid"}


def test_the_vector_leg_finds_a_fact_without_shared_words_inside_scopes_only(facts: Mem) -> None:
    lexical = facts.recall("postgresql")
    assert lexical.facts == [] and lexical.hint  # "postgresql*" does not match "postgres"
    facts.engine.embed(["memory"])
    r = facts.recall("postgresql")
    assert r.retrieval.mode == "hybrid"
    texts = [f.text for f in r.facts]
    assert texts[0] == "The staging database is postgres 16"
    assert "Our message bus is kafka" not in texts  # other scope: filtered inside the vector leg
    assert set(texts) == {"The staging database is postgres 16", "Releases are cut every Friday afternoon"}
    assert r.receipt.memory_ids == [f.docid for f in r.facts]
    other = facts.recall("kafkaesque", scopes=("project:other",))
    assert [f.text for f in other.facts] == ["Our message bus is kafka"]


def test_superseded_facts_stay_out_of_the_vector_leg(facts: Mem) -> None:
    old = facts.recall("postgres").facts[0]
    r = facts.remember(
        "The staging database is mysql 8",
        decision="supersede",
        predecessor_uri=old.uri,
        predecessor_hash=old.content_hash,
    )
    assert r.outcome == "superseded"
    facts.engine.embed(["memory"])
    got = facts.recall("postgresql")
    assert got.retrieval.mode == "hybrid"
    assert "The staging database is postgres 16" not in [f.text for f in got.facts]


def test_facts_added_after_embedding_join_the_vector_leg_after_the_next_embed(facts: Mem) -> None:
    facts.engine.embed(["memory"])
    facts.add("Dashboards live in grafana")
    r = facts.recall("grafanalabs")
    assert r.retrieval.mode == "hybrid"
    assert "Dashboards live in grafana" not in [f.text for f in r.facts]  # no vector yet
    assert facts.engine.embed(["memory"]).embedded == 1
    assert facts.recall("grafanalabs").facts[0].text == "Dashboards live in grafana"


def test_recall_on_the_mcp_surface_stays_lexical(facts: Mem) -> None:
    facts.engine.embed(["memory"])
    r = facts.recall("postgresql", semantic=False)
    assert r.retrieval.mode == "lexical"
    assert r.retrieval.semantic_unavailable == "lexical only on this surface (no model is loaded per call)"
    assert r.facts == []


def test_mcp_gno_recall_tool_is_lexical(facts: Mem) -> None:
    from mcp import Client

    from gno.mcp.server import build_mcp

    facts.engine.embed(["memory"])
    server = build_mcp(facts.engine, enable_write=False, instance_id="retrieve-test")

    async def go() -> Any:
        async with Client(server) as c:
            return await c.call_tool("gno_recall", {"query": "postgres", "scopes": [SCOPE]})

    res = asyncio.run(go())
    assert not res.is_error
    body = res.structured_content
    assert body is not None
    assert body["retrieval"]["mode"] == "lexical"
    assert [f["text"] for f in body["facts"]] == ["The staging database is postgres 16"]


@pytest.mark.parametrize(
    ("spec", "reason_start"),
    [
        ("no-such-model", "unknown embedder 'no-such-model'"),
        ("fake:32", "vectors were built with another model; run `gno embed`"),
    ],
)
def test_recall_degrades_to_lexical_when_the_model_cannot_serve(facts: Mem, spec: str, reason_start: str) -> None:
    facts.engine.embed(["memory"])
    set_embed(facts.engine, spec)
    r = facts.recall("postgres")
    assert r.retrieval.mode == "lexical"
    assert r.retrieval.semantic_unavailable is not None
    assert r.retrieval.semantic_unavailable.startswith(reason_start)
    assert [f.text for f in r.facts] == ["The staging database is postgres 16"]


# -- remember ---------------------------------------------------------------------------------


def test_remember_matches_by_cosine_with_threshold_0_83_once_embedded(facts: Mem) -> None:
    text = "The staging database is postgresql 16"
    before = facts.remember(text)
    assert (before.matching.mode, before.matching.threshold) == ("lexical", MEMORY_LEXICAL_LIKELY_THRESHOLD)

    facts.engine.embed(["memory"])
    r = facts.remember(text)
    assert r.outcome == "candidates"
    m = r.matching
    assert (m.mode, m.threshold, m.semantic_unavailable) == ("semantic", 0.83, None)
    assert MEMORY_SEMANTIC_LIKELY_THRESHOLD == 0.83
    top = r.candidates[0]
    sim = cosine(text, "The staging database is postgres 16")
    assert sim >= 0.83
    assert (top.record.text, top.similarity, top.match) == (
        "The staging database is postgres 16",
        round(sim, 6),
        "likely",
    )
    assert all(c.record.scopes == [SCOPE] for c in r.candidates)  # other scopes are not candidates


def test_semantic_and_lexical_matching_disagree_where_they_should(facts: Mem) -> None:
    """Jaccard 0.5 (lexically "likely") but cosine 0.65 (semantically "weak")."""
    text = "Releases are cut every Thursday morning"
    stored = "Releases are cut every Friday afternoon"
    assert jaccard(token_set(text), token_set(stored)) == 0.5
    sim = cosine(text, stored)
    assert sim < 0.83

    lexical = facts.remember(text)
    cand = next(c for c in lexical.candidates if c.record.text == stored)
    assert (lexical.matching.mode, cand.match, cand.similarity) == ("lexical", "likely", 0.5)

    facts.engine.embed(["memory"])
    semantic = facts.remember(text)
    cand = next(c for c in semantic.candidates if c.record.text == stored)
    assert (semantic.matching.mode, cand.match, cand.similarity) == ("semantic", "weak", round(sim, 6))


def test_an_exact_repeat_is_existing_in_both_modes(facts: Mem) -> None:
    facts.engine.embed(["memory"])
    r = facts.remember("The staging database is postgres 16")
    assert r.outcome == "existing" and r.matching.mode == "semantic"
    assert r.record is not None and r.record.text == "The staging database is postgres 16"


def test_remember_on_the_mcp_surface_stays_lexical(facts: Mem) -> None:
    facts.engine.embed(["memory"])
    r = facts.remember("The staging database is postgresql 16", semantic=False)
    assert (r.matching.mode, r.matching.threshold) == ("lexical", MEMORY_LEXICAL_LIKELY_THRESHOLD)


def test_remember_says_why_matching_is_lexical_before_embedding(facts: Mem) -> None:
    r = facts.remember("The staging database is postgresql 16")
    assert r.matching.mode == "lexical"
    assert r.matching.semantic_unavailable != "no embedding model available"


def test_beside_the_vector_leg_the_lexical_leg_fills_up_with_any_term_matches(mem: Mem) -> None:
    """Lexical recall stays conjunctive; with a vector leg the BM25 leg also ranks partial matches.

    The vector leg here is a stub that finds nothing, so the fused list is the lexical leg alone:
    the full match first, then the partial ones, scored by RRF with the hybrid k (10) instead of 60.
    """
    from gno.memory.recall import recall
    from gno.memory.records import MEMORY_HYBRID_RRF_K, MEMORY_RRF_K

    mem.add("staging database backups are encrypted")
    mem.add("The staging database is postgres 16")
    mem.add("Releases are cut every Friday afternoon")
    req = RecallRequest(query="staging database backups", scopes=[SCOPE], caller=CALLER, session=SESSION)

    lexical = recall(mem.engine, req)
    assert [f.text for f in lexical.facts] == ["staging database backups are encrypted"]
    assert lexical.facts[0].score == round(1 / (MEMORY_RRF_K + 1), 6)

    hybrid = recall(mem.engine, req, vector_leg=lambda q, f, k: [])
    assert hybrid.retrieval.mode == "hybrid"
    assert [f.text for f in hybrid.facts] == [
        "staging database backups are encrypted",
        "The staging database is postgres 16",
    ]
    assert [f.score for f in hybrid.facts] == [round(1 / (MEMORY_HYBRID_RRF_K + r), 6) for r in (1, 2)]
