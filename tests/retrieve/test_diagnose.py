"""`gno query diagnose "<q>" --target <ref>`: where did the expected document drop out?

Spec: issue 5 "Deliver" 6; reference §5.4 (target statuses, per-stage presence/rank/score/
survived/dropReason, meta). Stages here: bm25, vector, fusion, graph, rescore, then final.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gno.engine import Engine
from gno.models import DiagnoseResult, DiagnoseStage

from .conftest import GRAPH, SIDE, TECH, Build, Cli, write_files

STAGES = ["bm25", "vector", "fusion", "graph", "rescore", "guard", "final"]


@pytest.fixture
def linked(build: Build) -> Engine:
    return build({"kb": {**TECH, **GRAPH}, "side": SIDE})


def by_name(d: DiagnoseResult) -> dict[str, DiagnoseStage]:
    assert [s.name for s in d.stages] == STAGES
    return {s.name: s for s in d.stages}


def kb_root(e: Engine) -> Path:
    c = e.config.collection("kb")
    assert c is not None
    return c.root


# -- target status ------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["kb/nope.md", "#deadbeef", "gno://kb/nope.md", "nocoll/incident.md"])
def test_unknown_target_is_not_found(linked: Engine, ref: str) -> None:
    d = linked.diagnose("outage", ref)
    assert d.target.status == "not_found"
    assert d.target.ref == ref and d.target.docid is None and d.target.uri is None
    assert d.verdict == ("the target is not in the index: check the ref, the collection, then run `gno update`")
    assert not any(s.present for s in d.stages)


def test_removed_target_is_inactive(linked: Engine) -> None:
    docid = linked.resolve("kb/incident.md").docid
    (kb_root(linked) / "incident.md").unlink()
    linked.update()
    for ref in ("kb/incident.md", docid, "gno://kb/incident.md"):
        d = linked.diagnose("outage", ref)
        assert d.target.status == "inactive", ref
        assert d.target.docid == docid and d.target.uri == "gno://kb/incident.md"
        assert d.verdict.startswith("the target's file is gone (inactive)")
        assert not any(s.present for s in d.stages)


def test_empty_target_has_no_indexed_content(linked: Engine) -> None:
    write_files(kb_root(linked), {"empty.md": "", "front-only.md": "---\ntitle: Only front matter\n---\n"})
    linked.update()
    for ref in ("kb/empty.md", "kb/front-only.md"):
        d = linked.diagnose("outage", ref)
        assert (d.target.status, d.target.chunk_count) == ("no_indexed_content", 0), ref
        assert d.verdict == "the target has no indexed text (empty body)"


def test_target_outside_the_collection_filter_is_filtered_out(linked: Engine) -> None:
    d = linked.diagnose("outage", "kb/incident.md", collection="side")
    assert d.target.status == "filtered_out"
    assert d.target.filter_reasons == ["collection 'kb' is not in ['side']"]
    assert d.verdict == "the filters exclude the target: collection 'kb' is not in ['side']"
    assert not any(s.present for s in d.stages)


def test_target_outside_the_tag_filter_is_filtered_out(linked: Engine) -> None:
    d = linked.diagnose("outage", "kb/remediation.md", tags_any=["ops"])
    assert d.target.status == "filtered_out"
    assert d.target.filter_reasons == ["tag filter excludes it"]
    d = linked.diagnose("outage", "kb/incident.md", tags_any=["ops"])
    assert d.target.status == "diagnosed"


# -- per-stage traces ---------------------------------------------------------------------------


def test_returned_target_has_a_full_trace(linked: Engine) -> None:
    d = linked.diagnose("outage", "kb/incident.md")
    assert d.schema_version == "1.0" and d.query == "outage"
    t = d.target
    assert (t.status, t.uri, t.title, t.chunk_count) == ("diagnosed", "gno://kb/incident.md", "Incident", 1)
    assert t.docid == linked.resolve("kb/incident.md").docid
    st = by_name(d)
    assert (st["bm25"].present, st["bm25"].rank, st["bm25"].survived, st["bm25"].source_count) == (True, 1, True, 1)
    assert st["bm25"].score is not None and st["bm25"].score > 0
    assert (st["vector"].present, st["vector"].rank) == (True, 1) and 1 <= st["vector"].source_count <= 12
    assert (st["fusion"].present, st["fusion"].rank, st["fusion"].survived) == (True, 1, True)
    # graph adds neighbours of the seeds; the target is a seed itself and keeps rank 1 after it
    assert (st["graph"].present, st["graph"].rank, st["graph"].survived) == (False, 1, True)
    assert (st["guard"].rank, st["guard"].survived) == (1, True)
    assert (st["rescore"].present, st["rescore"].rank) == (True, 1)
    assert (st["final"].rank, st["final"].score, st["final"].survived, st["final"].drop_reason) == (1, 1.0, True, None)
    assert d.verdict == "the target is returned at rank 1"
    assert d.chunk is not None and (d.chunk.seq, d.chunk.start_line, d.chunk.end_line) == (0, 5, 9)
    m = d.meta
    assert (m.mode, m.vectors_used, m.reranked, m.total_results, m.limit, m.candidate_limit) == (
        "hybrid",
        True,
        True,
        6,  # vector hits at or below their pool's median stay candidates, ranked after the evidence
        10,
        20,
    )
    # the diagnosis agrees with `gno query`
    q = linked.query("outage")
    assert q.results[0].uri == "gno://kb/incident.md"


def test_graph_presence_is_traced(linked: Engine) -> None:
    st = by_name(linked.diagnose("outage", "kb/reviews.md"))
    assert (st["bm25"].present, st["bm25"].drop_reason) == (False, "not_in_candidate_set")
    assert (st["graph"].present, st["graph"].survived) == (True, True)
    # linked notes enter below the seed they were reached from
    assert st["graph"].rank is not None and st["graph"].rank > 1
    assert st["vector"].present is True
    # its cosine is below the vector leg's floor: fusion never had it
    assert (st["fusion"].present, st["fusion"].drop_reason) == (False, "not_in_candidate_set")


def test_ranking_miss_is_told_apart(linked: Engine) -> None:
    d = linked.diagnose("outage", "kb/reviews.md", limit=1)
    st = by_name(d)
    assert (st["final"].present, st["final"].rank, st["final"].survived, st["final"].drop_reason) == (
        True,
        4,
        False,
        "below_cutoff",
    )
    # the stage that placed it past the limit is named
    assert d.verdict == (
        "ranking miss: retrieved by vector but ranked 4 (limit 1): graph ranked it 6; "
        "raise -n or -C, or sharpen the query"
    )
    assert [h.uri for h in linked.query("outage", limit=1).results] == ["gno://kb/incident.md"]


def test_candidate_limit_cut_shows_below_cutoff(linked: Engine) -> None:
    d = linked.diagnose("outage", "kb/reviews.md", candidate_limit=1)
    st = by_name(d)
    assert (st["graph"].present, st["graph"].survived, st["graph"].drop_reason) == (True, False, "below_cutoff")
    assert (st["rescore"].survived, st["rescore"].drop_reason) == (False, "below_cutoff")
    assert d.meta.candidate_limit == 1


def test_fusion_rank_is_taken_before_graph_expansion(linked: Engine) -> None:
    """The rank fusion gave is not the rank after the graph merged its neighbours in."""
    d = linked.diagnose("outage migration canary", "kb/remediation.md", limit=1)
    st = by_name(d)
    assert st["fusion"].rank is not None and st["graph"].rank is not None
    run = linked.query("outage migration canary", depth="fast")  # fast = fusion alone
    assert [h.rel_path for h in run.results].index("remediation.md") + 1 == st["fusion"].rank


def test_candidate_generation_miss_in_hybrid_mode(build: Build) -> None:
    """200 near-identical fillers fill both legs' candidate pools; the target shares nothing."""
    files = {f"f{i:03d}.md": f"# Filler {i}\n\nalpha beta gamma delta notes number {i}.\n" for i in range(200)}
    files["target.md"] = "# Zebra\n\nquixotic zephyr wombat.\n"
    e = build({"kb": files})
    d = e.diagnose("alpha beta", "kb/target.md")
    st = by_name(d)
    assert (d.target.status, d.target.embedded) == ("diagnosed", True)
    assert st["bm25"].status == st["vector"].status == "active"
    assert not any(s.present for s in d.stages)
    assert all(s.drop_reason == "not_in_candidate_set" for s in d.stages)
    assert d.verdict == (
        "candidate-generation miss: neither BM25 nor vectors retrieved the target; "
        "rephrase with its words or embed the collection"
    )
    # the target's own words find it
    assert by_name(e.diagnose("wombat", "kb/target.md"))["final"].rank == 1


def test_bm25_only_diagnosis_without_vectors(build: Build) -> None:
    e = build({"kb": {**TECH, **GRAPH}}, embed=False)
    d = e.diagnose("kafka", "kb/incident.md")
    st = by_name(d)
    assert (st["vector"].status, st["vector"].drop_reason, st["vector"].reason) == (
        "skipped",
        "skipped",
        "no vectors yet; run `gno embed`",
    )
    assert (st["rescore"].status, st["rescore"].drop_reason) == ("skipped", "skipped")
    assert (d.meta.mode, d.meta.vectors_used, d.meta.reranked) == ("bm25_only", False, False)
    assert d.verdict == (
        "candidate-generation miss: neither BM25 nor vectors retrieved the target (vector skipped); "
        "rephrase with its words; the target is not embedded yet: run `gno embed`"
    )
    # nothing is chunked before `gno embed`: the target's chunks are counted on the fly
    assert (d.target.status, d.target.chunk_count, d.target.embedded) == ("diagnosed", 1, False)
    ok = e.diagnose("kafka", "kb/kafka.md")
    assert by_name(ok)["bm25"].rank == 1 and ok.verdict == "the target is returned at rank 1"


def test_bm25_only_fusion_source_count_is_one(build: Build) -> None:
    e = build({"kb": {**TECH, **GRAPH}}, embed=False)
    st = by_name(e.diagnose("kafka postgres", "kb/kafka.md"))
    assert st["fusion"].source_count == 1


def test_fast_diagnosis_skips_graph_and_rescore(linked: Engine) -> None:
    st = by_name(linked.diagnose("outage", "kb/reviews.md", depth="fast"))
    assert [(st[n].status, st[n].drop_reason, st[n].reason) for n in ("graph", "rescore")] == [
        ("skipped", "skipped", "--fast"),
        ("skipped", "skipped", "--fast"),
    ]


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_diagnose_json_and_text(linked: Engine, cli: Cli) -> None:
    r = cli("query", "diagnose", "outage", "--target", "kb/reviews.md", "-n", "1", "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    body = r.json
    assert body["schemaVersion"] == "1.0"
    assert body["target"]["status"] == "diagnosed" and body["target"]["uri"] == "gno://kb/reviews.md"
    assert [s["name"] for s in body["stages"]] == STAGES
    assert set(body["stages"][0]) >= {"name", "status", "sourceCount", "present", "survived"}
    assert body["stages"][-1]["dropReason"] == "below_cutoff"
    assert body["meta"]["mode"] == "hybrid" and body["verdict"].startswith("ranking miss")
    r = cli("query", "diagnose", "outage", "--target", "kb/reviews.md", "-n", "1")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "target gno://kb/reviews.md: diagnosed"
    assert [ln.split()[0] for ln in lines[1:8]] == STAGES
    assert lines[-1].startswith("ranking miss: retrieved by vector but ranked 4 (limit 1): graph ranked it 6")
    r = cli("query", "diagnose", "outage", "--target", "kb/nope.md", "--json")
    assert r.exit_code == 0 and r.json["target"]["status"] == "not_found"
    r = cli("query", "diagnose", "outage")
    assert r.exit_code == 2 and "--target" in r.stderr
