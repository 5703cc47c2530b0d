"""Fusion, graph placement and the rare-word guard of `gno query`, on real indexes.

Calibrated fusion keeps what one leg says about a document found by that leg only; the graph may
lift a linked note from the tail but never over the documents the query itself ranked best; and
BM25's #1 that holds the only exact match of a rare word stays within the top 3.
"""

from __future__ import annotations

from gno.engine import Engine
from gno.retrieve.fusion import calibrated_scores, margin_scaled
from gno.retrieve.grammar import parse_query
from gno.retrieve.hybrid import DEFAULT_TRUST, GRAPH_SEEDS, QueryOptions
from gno.store.fts import BM25Hit, DocFilter

from .conftest import Build


def test_a_strong_single_leg_hit_beats_weak_hits_of_both_legs() -> None:
    bm25 = [("generic-a", 2.0), ("generic-b", 1.9), ("exact", 10.0)]
    vec = [("semantic", 0.70), ("generic-a", 0.25), ("generic-b", 0.24)]
    s = calibrated_scores([(bm25, 0.6, 0.0), (vec, 0.4, 0.2)])
    assert s["exact"] > s["generic-a"]  # BM25's best, found by BM25 only
    assert s["semantic"] > s["generic-b"]  # the vector leg's best, found by it only
    # at or below the floor a cosine is no evidence at all: never a candidate
    assert "x" not in calibrated_scores([([], 0.6, 0.0), ([("x", 0.1)], 0.4, 0.2)])


def _hub_vault() -> dict[str, str]:
    """A hub note linked from every answer note (a MOC), and notes that each answer one query."""
    files = {
        f"topic{i}.md": f"# Topic {i}\n\nDetails about subject{i} and widgets.\n\nSee [[hub]].\n" for i in range(8)
    }
    files["hub.md"] = "# Hub\n\n" + "\n".join(f"- [[topic{i}]]" for i in range(8)) + "\n"
    return files


def test_graph_never_lifts_a_neighbour_over_the_seeds(build: Build) -> None:
    e = build({"kb": _hub_vault()})
    run = e.retriever().run("widgets subject3", DocFilter(), QueryOptions())
    by = {s.name: s for s in run.stages}
    seeds = by["fusion"].ranked[:GRAPH_SEEDS]
    after = by["graph"].after
    assert after is not None and by["graph"].status == "active"
    neighbours = [d for d in by["graph"].ranked if d not in seeds]
    assert neighbours, "the hub is linked from every seed"
    # every seed keeps its place in front of every linked-in neighbour
    assert max(after.index(d) for d in seeds if d in after) < min(after.index(d) for d in neighbours)
    assert after[: len(seeds)] == seeds


def test_rare_exact_match_that_is_bm25_first_stays_in_the_top_3(build: Build) -> None:
    files = {f"n{i}.md": f"# Note {i}\n\nDeployment pipelines and release notes number {i}.\n" for i in range(30)}
    files["rare.md"] = "# Odd one\n\nThe zygomorphic flower has one plane of symmetry.\n"
    e = build({"kb": files})
    hr = e.retriever()
    pq = parse_query("zygomorphic deployment")
    rare = e.resolve("kb/rare.md").id
    others = [e.resolve(f"kb/n{i}.md").id for i in range(10)]
    # a later stage ranked BM25's #1 eighth: the guard brings it back to third
    ranked = [(d, 1.0 - k / 20) for k, d in enumerate(others[:7] + [rare] + others[7:])]
    st, out = hr._rare_guard(pq, DocFilter(), [BM25Hit(rare, 9.0)], ranked)
    assert [d for d, _ in out].index(rare) == 2 and st.reason is not None and "zygomorphic" in st.reason
    assert sorted(d for d, _ in out) == sorted(d for d, _ in ranked)  # nothing lost or added
    # a common word is not rare: the same ranking is left alone
    st, out = hr._rare_guard(parse_query("deployment"), DocFilter(), [BM25Hit(others[7], 9.0)], ranked)
    assert out == ranked and st.reason == "no rare query word in BM25 #1"
    # and the default pipeline keeps it in the top 3 end to end
    hits = [h.rel_path for h in e.query("zygomorphic deployment pipelines release").results]
    assert "rare.md" in hits[:3], hits


def test_vector_first_that_stands_out_of_its_pool_stays_in_the_top_3(build: Build) -> None:
    files = {f"n{i}.md": f"# Note {i}\n\nDeployment pipelines and release notes number {i}.\n" for i in range(30)}
    e = build({"kb": files})
    hr = e.retriever()
    pq = parse_query("deployment")
    ids = [e.resolve(f"kb/n{i}.md").id for i in range(12)]
    target = ids[9]
    # fusion ranked the vector leg's #1 tenth; BM25's #1 is already first, so only the vector guard can act
    ranked = [(d, 1.0 - k / 20) for k, d in enumerate(ids)]
    hits = [BM25Hit(ids[0], 9.0)]

    def vector(scores: dict[int, float]) -> tuple[int, float]:
        """The vector leg's #1 and the credit fusion gives it over this pool of cosines."""
        top = max(scores, key=lambda d: scores[d])
        ordered = sorted(scores.items(), key=lambda x: -x[1])
        return top, margin_scaled(ordered, DEFAULT_TRUST.spread, DEFAULT_TRUST.floor)[top]

    # a cosine far above its pool's median (many deviations): kept at third, nothing lost or added
    pool = {d: 0.30 + 0.01 * (k % 3) for k, d in enumerate(ids) if d != target}
    st, out = hr._rare_guard(pq, DocFilter(), hits, ranked, vector({**pool, target: 0.80}))
    assert [d for d, _ in out].index(target) == 2 and st.reason is not None and "vector #1" in st.reason
    assert sorted(d for d, _ in out) == sorted(d for d, _ in ranked)
    # a #1 barely above its pool earns no such place: the ranking is left alone
    flat = {d: 0.50 - 0.01 * k for k, d in enumerate([target] + [d for d in ids if d != target])}
    st, out = hr._rare_guard(pq, DocFilter(), hits, ranked, vector(flat))
    assert out == ranked and "vector #1" not in (st.reason or "")


def test_fusion_trace_is_taken_before_the_graph(build: Build) -> None:
    e: Engine = build({"kb": _hub_vault()})
    fast = [h.rel_path for h in e.query("widgets subject3", depth="fast", limit=20).results]
    d = e.diagnose("widgets subject3", "kb/hub.md", limit=20)
    fusion = next(s for s in d.stages if s.name == "fusion")
    graph = next(s for s in d.stages if s.name == "graph")
    # fusion's rank of the hub is its --fast rank (or absent), whatever the graph did next
    assert fusion.rank == (fast.index("hub.md") + 1 if "hub.md" in fast else None)
    assert graph.present and graph.rank is not None
