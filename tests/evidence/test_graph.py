"""`graph`: documents as nodes, the index's links and typed relations as edges (the same ones `links`
reports), bounded by `limit` / `edgeLimit`, optionally with `similar` edges from the stored vectors;
on the engine, the CLI (text and --json), REST, MCP and the SDK."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any

import pytest

from gno.errors import ErrorCode, GnoError

from .conftest import KB, Cli, MakeKB, mcp_call

VAULT = {
    "hub.md": "---\ntags: [hub, ops]\n---\n# Hub\n\nSee [[a]], [[b]] and [c](c.md).\n\nAgain [[a]].\n",
    "a.md": "---\ntags: [ops]\n---\n# A\n\nBack to [[hub]].\n",
    "b.md": "---\nrelations:\n  depends_on: [gno://kb/a.md]\n---\n# B\n\nNothing else links from here.\n",
    "c.md": "# C\n\nA plain note about deployments.\n",
    "lonely.md": "# Lonely\n\nNo links at all.\n",
    "dangling.md": "# Dangling\n\nPoints at [[nowhere]].\n",
}
OTHER = {"x.md": "# X\n\nLinks [[hub]] across collections.\n", "y.md": "# Y\n\nSee [[x]].\n"}


@pytest.fixture
def vault(make_kb: MakeKB) -> KB:
    return make_kb(VAULT, more={"other": OTHER})


def test_edges_are_the_links_and_relations_of_every_document(vault: KB) -> None:
    g = vault.engine.graph()
    by_source: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    for e in g.edges:
        by_source[e.source].add((e.target, e.type))
    for n in g.nodes:  # the graph is the union of what `links` says of each document
        assert by_source[n.uri] == {(x.uri, x.edge_type) for x in vault.engine.links(n.uri).links}, n.uri
    weight = {(e.source, e.target, e.type): e.weight for e in g.edges}
    assert weight[("gno://kb/hub.md", "gno://kb/a.md", "wiki")] == 2  # written twice
    assert weight[("gno://kb/b.md", "gno://kb/a.md", "depends_on")] == 1
    assert weight[("gno://other/x.md", "gno://kb/hub.md", "wiki")] == 1
    nodes = {n.uri: n for n in g.nodes}
    assert "gno://kb/lonely.md" not in nodes and "gno://kb/dangling.md" not in nodes  # linked only
    hub = nodes["gno://kb/hub.md"]
    assert (hub.title, hub.collection, hub.rel_path, hub.tags, hub.degree) == ("Hub", "kb", "hub.md", ["hub", "ops"], 4)
    assert g.nodes[0].uri == "gno://kb/hub.md"  # the most linked first
    assert [n.degree for n in g.nodes] == sorted((n.degree for n in g.nodes), reverse=True)
    m = g.meta
    assert (m.total_nodes, m.returned_nodes, m.total_edges, m.returned_edges) == (6, 6, 7, 7)
    assert m.truncated is False and m.linked_only is True and m.included_similar is False
    assert m.edge_types == {"depends_on": 1, "markdown": 1, "wiki": 5}


def test_collection_isolated_and_the_bounds(vault: KB) -> None:
    g = vault.engine.graph(collection="other")
    assert [n.uri for n in g.nodes] == ["gno://other/x.md", "gno://other/y.md"]
    assert [(e.source, e.target) for e in g.edges] == [("gno://other/y.md", "gno://other/x.md")]
    assert g.meta.collection == "other"
    g = vault.engine.graph(collection="KB", include_isolated=True)
    assert {n.uri for n in g.nodes} == {f"gno://kb/{p}" for p in VAULT}
    assert {n.uri: n.degree for n in g.nodes}["gno://kb/lonely.md"] == 0
    assert g.nodes[-1].degree == 0 and g.meta.linked_only is False
    g = vault.engine.graph(limit=2)
    assert [n.uri for n in g.nodes] == ["gno://kb/hub.md", "gno://kb/a.md"]
    assert {(e.source, e.target) for e in g.edges} == {
        ("gno://kb/hub.md", "gno://kb/a.md"),
        ("gno://kb/a.md", "gno://kb/hub.md"),
    }
    assert g.meta.truncated is True and g.meta.total_nodes == 6 and g.meta.returned_nodes == 2
    g = vault.engine.graph(edge_limit=1)
    assert len(g.edges) == 1 and g.edges[0].weight == 2 and g.meta.truncated is True  # the heaviest kept
    with pytest.raises(GnoError) as err:
        vault.engine.graph(collection="nope")
    assert err.value.code == ErrorCode.COLLECTION_NOT_FOUND


def test_similar_edges_need_vectors_and_say_so(vault: KB) -> None:
    g = vault.engine.graph(include_similar=True)
    assert g.meta.included_similar is True and g.meta.similar_available is False
    assert any("gno embed" in w for w in g.meta.warnings)
    assert "similar" not in g.meta.edge_types and g.meta.returned_edges == 7  # the links still answer


def centroid_cosines(kb: KB) -> dict[frozenset[str], float]:
    """Brute force from the database: each document's mean chunk vector, normalised; every pair's cosine."""
    import numpy as np

    conn = sqlite3.connect(kb.settings.db_path)
    try:
        assert len({r[0] for r in conn.execute("SELECT fingerprint FROM content_vectors")}) == 1
        rows = conn.execute(
            "SELECT d.uri, v.embedding FROM documents d JOIN content_vectors v ON v.mirror_hash = d.mirror_hash "
            "WHERE d.active = 1"
        ).fetchall()
    finally:
        conn.close()
    chunks: defaultdict[str, list[Any]] = defaultdict(list)
    for uri, blob in rows:
        chunks[uri].append(np.frombuffer(blob, dtype="<f4"))
    unit = {u: (m := np.mean(v, axis=0)) / np.linalg.norm(m) for u, v in chunks.items()}
    return {frozenset((a, b)): float(unit[a] @ unit[b]) for a in unit for b in unit if a < b}


def test_similar_edges_from_the_stored_vectors(make_kb: MakeKB) -> None:
    kb = make_kb(VAULT, embed=True)
    want = centroid_cosines(kb)
    assert len(want) == len(VAULT) * (len(VAULT) - 1) // 2
    g = kb.engine.graph(include_similar=True, include_isolated=True, threshold=0.0, similar_top_k=50)
    assert g.meta.similar_available is True and not g.meta.warnings
    similar = {frozenset((e.source, e.target)): e.weight for e in g.edges if e.type == "similar"}
    assert len(similar) == len([e for e in g.edges if e.type == "similar"])  # each pair once, undirected
    assert similar.keys() == {p for p, cos in want.items() if cos >= 0.0}
    assert all(abs(similar[p] - want[p]) < 1e-3 for p in similar)
    strong = kb.engine.graph(include_similar=True, threshold=0.5, similar_top_k=1)
    kept = {frozenset((e.source, e.target)) for e in strong.edges if e.type == "similar"}
    assert kept and all(want[p] >= 0.5 for p in kept)
    nearest = {u: max(cos for q, cos in want.items() if u in q) for p in want for u in p}
    for pair in kept:  # top 1: the pair is the nearest neighbour of one of its ends
        assert any(want[pair] == nearest[u] for u in pair), pair


def test_graph_on_every_surface(vault: KB, cli: Cli, rest: Any) -> None:
    want = vault.engine.graph(collection="kb").dump()
    out = cli("graph", "-c", "kb", "--json")
    assert out.exit_code == 0 and out.json == want
    text = cli("graph")
    assert text.exit_code == 0
    assert text.stdout.splitlines()[0] == "6 documents, 7 edges (1 depends_on, 1 markdown, 5 wiki)"
    assert "Hub  gno://kb/hub.md #hub #ops" in text.stdout and "→ A, B, C" in text.stdout
    note = cli("graph", "--include-similar")
    assert note.exit_code == 0 and "note: similar edges left out" in note.stderr
    bad = cli("graph", "-c", "nope", "--json")
    assert bad.exit_code == 1 and bad.json["error"]["code"] == "COLLECTION_NOT_FOUND"
    assert cli("graph", "--limit", "0", "--json").json["error"]["code"] == "VALIDATION"
    resp = rest(vault.engine).get("/api/graph", params={"collection": "kb"})
    assert resp.status_code == 200 and resp.json() == want
    resp = rest(vault.engine).get("/api/graph", params={"limit": 1, "includeIsolated": "true"})
    assert resp.status_code == 200 and len(resp.json()["nodes"]) == 1
    assert rest(vault.engine).get("/api/graph", params={"threshold": 2}).status_code == 400
    m = mcp_call(vault.engine, "gno_graph", {"collection": "kb"})
    assert not m.is_error and m.structured == want
    import gno

    client = gno.Client.open()
    try:
        assert client.graph(collection="kb").dump() == want
    finally:
        client.close()
