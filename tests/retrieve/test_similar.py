"""`similar`: neighbours by how well they cover a document's chunks (each chunk's best cosine in the
other document, averaged), checked against a brute-force replay over the raw vector rows; its
collection scope, threshold, limit, duplicates and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.store import documents as docs

from .conftest import GRAPH, SIDE, TECH, Build, expect_code

LONG = "# Long\n\n" + "\n\n".join(f"Section {i} on kafka brokers and topic retention number {i}." for i in range(60))


def _brute_force(e: Engine, uri: str, collection: str | None) -> list[tuple[str, float]]:
    """Every other active document's score against `uri`, from the raw vector rows, loop by loop."""
    fp = e.semantic.ranking_embedder().fingerprint
    rows = e.store.conn.execute("SELECT mirror_hash, embedding FROM content_vectors WHERE fingerprint = ?", (fp,))
    chunks: dict[str, list[np.ndarray]] = {}
    for m, blob in rows:
        chunks.setdefault(str(m), []).append(np.frombuffer(blob, dtype="<f4").astype(np.float64))
    me = docs.doc_by_path(e.store, *uri.removeprefix("gno://").split("/", 1))
    assert me is not None
    out = []
    for r in e.store.conn.execute("SELECT uri, mirror_hash, collection FROM documents WHERE active = 1"):
        if r[0] == uri or (collection and r[2] != collection):
            continue
        best = [max(float(a @ b) for b in chunks[str(r[1])]) for a in chunks[me.mirror_hash]]
        out.append((str(r[0]), sum(best) / len(best)))
    return sorted(out, key=lambda x: -x[1])


@pytest.mark.parametrize("block", [64, 1])
def test_neighbours_match_a_brute_force_replay_and_exclude_the_document(
    build: Build, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gno.retrieve.similar

    monkeypatch.setattr(gno.retrieve.similar, "_BLOCK", block)  # the document's chunks in blocks, or one by one
    e = build({"tech": {**TECH, "long.md": LONG}, "graph": GRAPH, "side": SIDE})
    long_chunks = e.store.conn.execute(
        "SELECT COUNT(*) FROM content_chunks c JOIN documents d ON d.mirror_hash = c.mirror_hash "
        "WHERE d.rel_path = 'long.md'"
    ).fetchone()[0]
    assert long_chunks > 1
    for uri in ("gno://tech/kafka.md", "gno://tech/long.md", "gno://graph/incident.md"):
        coll = uri.split("/")[2]
        want = _brute_force(e, uri, coll)
        got = e.similar(uri, limit=50)
        assert [h.uri for h in got.results] == [u for u, _ in want]
        assert [h.score for h in got.results] == pytest.approx([s for _, s in want], abs=1e-5)
        assert all(h.collection == coll for h in got.results)
        wide = e.similar(uri, limit=50, cross_collection=True)
        assert [h.uri for h in wide.results] == [u for u, _ in _brute_force(e, uri, None)]
        assert uri not in [h.uri for h in wide.results]
    assert e.similar("tech/kafka.md", cross_collection=True).results[0].uri == "gno://side/kafka-ops.md"


def test_limit_threshold_and_what_is_reported(build: Build) -> None:
    e = build({"tech": TECH})
    every = e.similar("tech/kafka.md", limit=50)
    assert len(every.results) == len(TECH) - 1
    assert len(e.similar("tech/kafka.md", limit=2).results) == 2
    cut = sorted(h.score for h in every.results)[len(every.results) // 2]
    high = e.similar("tech/kafka.md", limit=50, threshold=cut)
    assert high.results and all(h.score >= cut for h in high.results)
    assert len(high.results) < len(every.results)
    assert (every.method, every.model, every.cross_collection) == ("best-match", e.semantic.fingerprint(), False)


def test_an_identical_file_is_a_neighbour_at_one(build: Build) -> None:
    e = build({"tech": {**TECH, "copy/redis.md": TECH["redis.md"]}})
    top = e.similar("tech/redis.md").results[0]
    assert (top.uri, top.score) == ("gno://tech/copy/redis.md", 1.0)


def test_no_vectors_and_unknown_refs_are_refused(build: Build) -> None:
    e = build({"tech": TECH}, embed=False)
    with pytest.raises(GnoError) as ei:
        e.similar("tech/kafka.md")
    assert "gno embed" in expect_code(ei.value, ErrorCode.VECTORS_UNAVAILABLE).message
    e.embed()
    root = e.collection("tech").root
    (root / "kafka.md").write_text("# Queue\n\nNow about something else entirely.\n", encoding="utf-8")
    e.update()  # changed content: its new chunks have no vectors until `gno embed`
    with pytest.raises(GnoError) as ei:
        e.similar("tech/kafka.md")
    err = expect_code(ei.value, ErrorCode.VECTORS_UNAVAILABLE)
    assert "gno://tech/kafka.md" in err.message and "gno embed" in err.message
    with pytest.raises(GnoError) as ei:
        e.similar("tech/nope.md")
    expect_code(ei.value, ErrorCode.NOT_FOUND)
