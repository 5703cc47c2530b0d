"""`gno embed` / `gno index` and the vector store: incremental, keyed by content and model,
resumable, with stale and missing models reported, never silently empty results.

Spec: issue 5 "Deliver" 1-3; reference §6.2 (vector leg).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gno.embed import load_embedder
from gno.embed.fake import FakeEmbedder
from gno.engine import Engine
from gno.errors import ERROR_TABLE, ErrorCode, GnoError
from gno.store.chunks import chunk_rows

from .conftest import FAKE, Build, Cli, expect_code, set_embed


def vector_rows(engine: Engine) -> int:
    return int(engine.store.conn.execute("SELECT COUNT(*) FROM content_vectors").fetchone()[0])


# -- incremental embedding --------------------------------------------------------------------


def test_first_embed_covers_every_chunk_and_second_embeds_nothing(fake_engine: Engine) -> None:
    before = fake_engine.status().vectors
    assert before is not None  # `gno update` cuts no chunks: `gno embed` does, then embeds them
    assert (before.embedded_chunks, before.total_chunks, before.pending_documents, before.available) == (0, 0, 5, False)
    assert before.reason == "5 documents not yet chunked and embedded — run `gno embed`"
    st = fake_engine.status()
    assert (st.healthy, st.next_steps) == (False, [before.reason])

    first = fake_engine.embed()
    assert (first.embedded, first.pending, first.total_chunks, first.dry_run) == (5, 0, 5, False)
    assert first.model == "fake-64"
    assert first.fingerprint == FakeEmbedder(64).fingerprint

    second = fake_engine.embed()
    assert (second.embedded, second.pending, second.total_chunks) == (0, 0, 5)
    after = fake_engine.status().vectors
    assert after is not None
    assert (after.embedded_chunks, after.total_chunks, after.stale_chunks, after.available) == (5, 5, 0, True)
    assert after.model == FakeEmbedder(64).fingerprint
    assert after.reason is None and after.pending_documents == 0
    assert vector_rows(fake_engine) == 5
    assert (fake_engine.status().healthy, fake_engine.status().next_steps) == (True, [])


def test_stored_vectors_are_the_embedder_output_as_float32(embedded: Engine) -> None:
    row = embedded.store.conn.execute(
        "SELECT v.dim, v.embedding, v.mirror_hash, v.seq FROM content_vectors v "
        "JOIN documents d ON d.mirror_hash = v.mirror_hash WHERE d.rel_path = 'rollback.md'"
    ).fetchone()
    dim, blob, key = int(row[0]), bytes(row[1]), (str(row[2]), int(row[3]))
    text = chunk_rows(embedded.store, [key])[key][0]
    assert dim == 64 and len(blob) == 64 * 4
    stored = np.frombuffer(blob, dtype="<f4")
    # rollback.md's chunk already starts with its title "Rollback", so it is embedded as is
    expected = FakeEmbedder(64).embed_documents([text])[0]
    np.testing.assert_array_equal(stored, expected)


def test_only_new_or_changed_content_is_embedded_after_an_update(embedded: Engine, corpus: Path) -> None:
    (corpus / "new.md").write_text("# New\n\nA brand new note about canaries.\n", encoding="utf-8")
    (corpus / "rollback.md").write_text("# Rollback\n\nRollbacks now use the blue/green switch.\n")
    embedded.update()
    dry = embedded.embed(dry_run=True)
    assert (dry.pending, dry.embedded, dry.total_chunks, dry.dry_run) == (2, 0, 6, True)
    r = embedded.embed()
    assert (r.embedded, r.total_chunks) == (2, 6)
    assert embedded.embed().embedded == 0


def test_status_names_gno_embed_while_any_chunk_lacks_a_vector(embedded: Engine, corpus: Path, cli: Cli) -> None:
    r = cli("status")
    assert r.exit_code == 0 and "Healthy" in r.stdout and "Next:" not in r.stdout, r.stdout
    (corpus / "new.md").write_text("# New\n\nA brand new note about canaries.\n", encoding="utf-8")
    embedded.update()
    st = embedded.status()
    assert st.next_steps == ["1 document not yet chunked and embedded — run `gno embed`"]
    assert not st.healthy
    r = cli("status")
    assert "Next: 1 document not yet chunked and embedded — run `gno embed`" in r.stdout, r.stdout
    assert "Healthy" not in r.stdout
    assert cli("status", "--json").json["nextSteps"] == st.next_steps
    embedded.embed()
    assert embedded.status().healthy


def test_identical_content_is_embedded_once_and_shared(build: Build) -> None:
    same = "# Shared\n\nThe same words in two files about gardening.\n"
    e = build({"kb": {"a.md": same, "b.md": same, "c.md": "# Other\n\nSomething else entirely.\n"}}, embed=False)
    r = e.embed()
    assert (r.embedded, r.total_chunks) == (2, 2)
    assert vector_rows(e) == 2
    hits = {h.rel_path for h in e.vsearch("gardening", limit=10).results}
    assert hits == {"a.md", "b.md", "c.md"}

    root = Path(e.config.collection("kb").path)  # type: ignore[union-attr]
    (root / "d.md").write_text(same, encoding="utf-8")
    e.update()
    assert e.embed(dry_run=True).pending == 0
    assert e.embed().embedded == 0
    assert vector_rows(e) == 2
    top = [h.rel_path for h in e.vsearch("gardening", limit=3).results]
    assert sorted(top) == ["a.md", "b.md", "d.md"]


def test_force_re_embeds_everything(embedded: Engine) -> None:
    r = embedded.embed(force=True)
    assert (r.embedded, r.total_chunks) == (5, 5)
    assert vector_rows(embedded) == 5
    assert embedded.embed().embedded == 0


def test_dry_run_counts_and_writes_nothing(fake_engine: Engine) -> None:
    r = fake_engine.embed(dry_run=True)
    assert (r.pending, r.embedded, r.total_chunks, r.dry_run, r.model) == (5, 0, 5, True, "fake-64")
    assert vector_rows(fake_engine) == 0
    st = fake_engine.status().vectors
    assert st is not None and st.embedded_chunks == 0


def test_dry_run_with_force_counts_what_force_would_embed(embedded: Engine) -> None:
    r = embedded.embed(force=True, dry_run=True)
    assert vector_rows(embedded) == 5  # a dry run deletes nothing
    assert r.pending == 5, "--force --dry-run must count the chunks --force would re-embed"


def test_embed_only_some_collections(build: Build) -> None:
    e = build(
        {"kb": {"a.md": "# A\n\nalpha words\n"}, "side": {"b.md": "# B\n\nbeta words\n", "c.md": "# C\n\ngamma\n"}},
        embed=False,
    )
    assert e.embed(["side"], dry_run=True).pending == 2
    r = e.embed(["side"])
    assert (r.embedded, r.total_chunks) == (2, 2)  # kb is neither chunked nor embedded yet
    st = e.status().vectors
    assert st is not None and st.pending_documents == 1
    dry = e.embed(dry_run=True)
    assert (dry.pending, dry.total_chunks) == (1, 3)
    assert {h.collection for h in e.vsearch("words", limit=10).results} == {"side"}


@pytest.mark.parametrize("size", [0, -1, 1025])
def test_batch_size_out_of_range_is_a_validation_error(fake_engine: Engine, size: int) -> None:
    with pytest.raises(GnoError) as ei:
        fake_engine.embed(batch_size=size)
    expect_code(ei.value, ErrorCode.VALIDATION)
    assert "`batchSize`" in ei.value.message  # the wire name: each surface words its own flag
    assert vector_rows(fake_engine) == 0


@pytest.mark.parametrize("size", [1, 1024])
def test_batch_size_bounds_are_accepted(fake_engine: Engine, size: int) -> None:
    assert fake_engine.embed(batch_size=size).embedded == 5


def test_cli_batch_size_validation_and_dry_run(fake_engine: Engine, cli: Cli) -> None:
    cli("embed", "--batch-size", "0", "--json").expect_error(ErrorCode.VALIDATION)
    r = cli("embed", "--dry-run", "--json")
    assert r.exit_code == 0, r.stderr
    assert (r.json["pending"], r.json["embedded"], r.json["dryRun"], r.json["totalChunks"]) == (5, 0, True, 5)
    r = cli("embed")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Embedded 5 chunks with fake-64 in ")
    r = cli("embed", "--json")
    assert r.exit_code == 0 and r.json["embedded"] == 0
    r = cli("embed", "--force", "--batch-size", "2", "--json")
    assert r.exit_code == 0 and r.json["embedded"] == 5


def test_progress_callback_reports_done_and_total_per_batch(fake_engine: Engine) -> None:
    calls: list[tuple[int, int]] = []
    r = fake_engine.embed(batch_size=2, progress=lambda done, total: calls.append((done, total)))
    assert r.embedded == 5
    assert calls == [(2, 5), (4, 5), (5, 5)]


def test_embed_with_an_unknown_collection_is_not_found(fake_engine: Engine) -> None:
    with pytest.raises(GnoError) as ei:
        fake_engine.embed(["nope"])
    expect_code(ei.value, ErrorCode.COLLECTION_NOT_FOUND)


# -- resumability ---------------------------------------------------------------------------


class FlakyEmbedder:
    """The fake embedder, failing on the `fail_on`-th call of embed_documents (1-based)."""

    def __init__(self, fail_on: int) -> None:
        self.inner = FakeEmbedder(64)
        self.fail_on = fail_on
        self.calls = 0
        self.model_id, self.dim, self.fingerprint = self.inner.model_id, self.inner.dim, self.inner.fingerprint

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("model crashed")
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def test_a_failure_mid_run_keeps_committed_batches_and_a_rerun_finishes(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    flaky = FlakyEmbedder(fail_on=2)
    monkeypatch.setattr("gno.embed.load_embedder", lambda spec=None, **kw: flaky)
    with pytest.raises(GnoError) as ei:
        fake_engine.embed(batch_size=2)
    err = expect_code(ei.value, ErrorCode.RUNTIME)
    assert err.details == {"embedded": 2}
    assert "rerun `gno embed` to resume" in err.message
    st = fake_engine.status().vectors
    assert st is not None and (st.embedded_chunks, st.total_chunks) == (2, 5)
    assert vector_rows(fake_engine) == 2

    r = fake_engine.embed(batch_size=2)  # the lease was released; the 3 missing chunks follow
    assert (r.embedded, r.total_chunks) == (3, 5)
    st = fake_engine.status().vectors
    assert st is not None and st.embedded_chunks == 5
    # the resumed vectors are exactly what one clean run produces
    from gno.retrieve.semantic import document_text

    rows = fake_engine.store.conn.execute(
        "SELECT v.mirror_hash, v.seq, d.title, v.embedding FROM content_vectors v "
        "JOIN documents d ON d.mirror_hash = v.mirror_hash"
    ).fetchall()
    assert len(rows) == 5
    texts = chunk_rows(fake_engine.store, [(str(r[0]), int(r[1])) for r in rows])
    clean = FakeEmbedder(64)
    for mirror, seq, title, blob in rows:
        text = texts[(mirror, seq)][0]
        want = clean.embed_documents([document_text(str(title), str(text))])[0]
        np.testing.assert_array_equal(np.frombuffer(bytes(blob), dtype="<f4"), want)


def test_cli_embed_failure_exits_with_a_runtime_error_and_resumes(
    fake_engine: Engine, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    flaky = FlakyEmbedder(fail_on=3)
    monkeypatch.setattr("gno.embed.load_embedder", lambda spec=None, **kw: flaky)
    err = cli("embed", "--batch-size", "1", "--json").expect_error(ErrorCode.RUNTIME)
    assert err["details"] == {"embedded": 2}
    r = cli("embed", "--batch-size", "1", "--json")
    assert r.exit_code == 0 and r.json["embedded"] == 3


# -- model change: stale vectors ------------------------------------------------------------


def test_model_change_reports_stale_vectors_and_vsearch_refuses(embedded: Engine, cli: Cli) -> None:
    set_embed(embedded, "fake:32")  # other model id and dimension
    st = embedded.status().vectors
    assert st is not None
    assert st.model == FakeEmbedder(32).fingerprint
    assert (st.embedded_chunks, st.total_chunks, st.stale_chunks, st.available) == (0, 5, 5, False)
    assert st.reason == "stored vectors belong to another model; run `gno embed`"
    r = cli("status", "--json")
    assert r.exit_code == 0
    assert {k: r.json["vectors"][k] for k in ("embeddedChunks", "totalChunks", "staleChunks", "available")} == {
        "embeddedChunks": 0,
        "totalChunks": 5,
        "staleChunks": 5,
        "available": False,
    }

    with pytest.raises(GnoError) as ei:
        embedded.vsearch("rollback")
    err = expect_code(ei.value, ErrorCode.VECTORS_STALE)
    assert (err.exit_code, err.http_status) == (1, 409)
    assert "gno embed" in err.message and "fake-64" in err.message and "fake-32" in err.message
    assert err.details["configured"] == FakeEmbedder(32).fingerprint
    assert err.details["stored"] == [FakeEmbedder(64).fingerprint]

    cli("vsearch", "rollback", "--json").expect_error(ErrorCode.VECTORS_STALE)
    r = cli("vsearch", "rollback")
    assert r.exit_code == 1 and "VECTORS_STALE" in r.stderr and r.stdout == ""

    # hybrid query degrades to BM25 and says why instead of mixing spaces
    q = embedded.query("rollback")
    assert q.mode == "bm25" and q.meta.mode == "bm25"
    assert q.meta.notes == ["vector leg skipped: vectors were built with another model; run `gno embed`"]
    assert [h.rel_path for h in q.results][0] == "rollback.md"

    # re-embedding with the new model makes vector search work again
    assert embedded.embed().embedded == 5
    text = embedded.get("notes/rollback.md").content
    hits = embedded.vsearch(text, limit=10).results  # the chunk's own text: cosine 1
    assert hits[0].rel_path == "rollback.md" and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert embedded.query("rollback").mode == "hybrid"


def test_vectors_are_keyed_by_model_so_switching_back_needs_no_re_embedding(embedded: Engine) -> None:
    set_embed(embedded, "fake:32")
    assert embedded.embed().embedded == 5
    assert vector_rows(embedded) == 10
    set_embed(embedded, FAKE)
    assert embedded.embed(dry_run=True).pending == 0
    st = embedded.status().vectors
    assert st is not None and (st.embedded_chunks, st.available) == (5, True)
    assert [h.rel_path for h in embedded.vsearch("rollback", limit=1).results] == ["rollback.md"]


# -- no model available -------------------------------------------------------------------


UNLOADABLE = ["no-such-model", "http://127.0.0.1:9/v1#nothing-listens-here"]


@pytest.mark.parametrize("spec", UNLOADABLE)
def test_missing_model_vsearch_is_unavailable_and_query_degrades(fake_engine: Engine, cli: Cli, spec: str) -> None:
    set_embed(fake_engine, spec)
    with pytest.raises(GnoError) as ei:
        fake_engine.vsearch("rollback")
    err = expect_code(ei.value, ErrorCode.VECTORS_UNAVAILABLE)
    assert err.message.startswith("no embedding model available (")
    assert err.message.endswith("); gno runs in lexical mode")
    assert err.details["reason"]
    cli("vsearch", "rollback", "--json").expect_error(ErrorCode.VECTORS_UNAVAILABLE)

    q = fake_engine.query("undo deploy")
    lexical = fake_engine.query("undo deploy", lexical_only=True)
    assert q.mode == "bm25" and q.meta.mode == "bm25"
    assert q.meta.notes is not None and len(q.meta.notes) == 1
    assert q.meta.notes[0] == f"vector leg skipped: {err.details['reason']}"
    assert [h.uri for h in q.results] == [h.uri for h in lexical.results]
    assert q.results and q.results[0].rel_path == "deploy.md"

    r = cli("query", "undo deploy", "--json")
    assert r.exit_code == 0 and r.json["mode"] == "bm25"
    r = cli("query", "undo deploy")
    assert r.exit_code == 0 and "note: vector leg skipped: " in r.stderr

    st = fake_engine.status().vectors
    assert st is not None and st.available is False and st.reason == err.details["reason"]
    with pytest.raises(GnoError) as ei:
        fake_engine.embed()
    expect_code(ei.value, ErrorCode.VECTORS_UNAVAILABLE)


def test_missing_model_after_embedding_also_degrades(embedded: Engine) -> None:
    set_embed(embedded, "no-such-model")
    with pytest.raises(GnoError) as ei:
        embedded.vsearch("rollback")
    expect_code(ei.value, ErrorCode.VECTORS_UNAVAILABLE)
    q = embedded.query("rollback")
    assert q.mode == "bm25" and q.meta.notes and q.meta.notes[0].startswith("vector leg skipped: unknown embedder")


def test_vsearch_before_any_embedding_is_unavailable_not_empty(fake_engine: Engine) -> None:
    with pytest.raises(GnoError) as ei:
        fake_engine.vsearch("rollback")
    err = expect_code(ei.value, ErrorCode.VECTORS_UNAVAILABLE)
    assert err.message == "no vectors in this index yet; run `gno embed`"
    q = fake_engine.query("rollback")
    assert q.mode == "bm25" and q.meta.notes == ["vector leg skipped: no vectors yet; run `gno embed`"]


def test_gno_index_syncs_then_embeds(fake_engine: Engine, corpus: Path, cli: Cli) -> None:
    (corpus / "new.md").write_text("# New\n\nA new note.\n", encoding="utf-8")
    r = cli("index", "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    body = r.json
    assert [(c["name"], c["added"]) for c in body["sync"]["collections"]] == [("notes", 1)]
    assert body["embed"]["embedded"] == 6 and body["embed"]["totalChunks"] == 6
    r = cli("index", "--json")
    assert r.exit_code == 0 and r.json["embed"]["embedded"] == 0
    r = cli("index", "--no-embed", "--json")
    assert r.exit_code == 0 and r.json["embedSkipped"] == "--no-embed" and "embed" not in r.json


def test_gno_index_without_a_model_syncs_and_says_embedding_was_skipped(
    fake_engine: Engine, corpus: Path, cli: Cli
) -> None:
    set_embed(fake_engine, "no-such-model")
    (corpus / "new.md").write_text("# New\n\nA new note.\n", encoding="utf-8")
    r = cli("index", "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.json["sync"]["collections"][0]["added"] == 1
    assert r.json["embedSkipped"].startswith("no embedding model available (")
    r = cli("index")
    assert r.exit_code == 0 and "Embedding skipped: no embedding model available" in r.stdout


# -- the vector index follows the documents ---------------------------------------------------


def test_vsearch_forgets_removed_documents_and_changed_content(embedded: Engine, corpus: Path) -> None:
    assert "rollback.md" in {h.rel_path for h in embedded.vsearch("rollback", limit=10).results}
    (corpus / "rollback.md").unlink()
    (corpus / "deploy.md").write_text("# Deploy process\n\nWe now deploy with a canary.\n", encoding="utf-8")
    embedded.update()
    paths = [h.rel_path for h in embedded.vsearch("rollback", limit=10).results]
    assert "rollback.md" not in paths
    assert "deploy.md" not in paths  # its new content has no vector yet
    st = embedded.status().vectors
    assert st is not None and (st.embedded_chunks, st.total_chunks, st.pending_documents) == (3, 3, 1)
    assert embedded.embed().embedded == 1
    assert "deploy.md" in {h.rel_path for h in embedded.vsearch("canary", limit=10).results}


def test_vsearch_hits_are_ranked_by_cosine_in_0_1_with_vector_sources(embedded: Engine) -> None:
    res = embedded.vsearch("rollback", limit=10)
    assert res.mode == "vector" and res.meta.mode == "vector"
    assert len(res.results) == 5
    scores = [h.score for h in res.results]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert all(h.sources == ["vector"] for h in res.results)
    emb = load_embedder(FAKE)
    q = emb.embed_query("rollback")
    assert res.results[0].rel_path == "rollback.md"
    text = embedded.get("notes/rollback.md").content
    chunk_vec = emb.embed_documents([text])[0]
    assert res.results[0].score == pytest.approx(float(chunk_vec @ q), abs=1e-4)


def test_vsearch_min_score_limit_and_validation(embedded: Engine) -> None:
    all_hits = embedded.vsearch("rollback", limit=10).results
    cut = all_hits[1].score
    kept = embedded.vsearch("rollback", limit=10, min_score=cut).results
    assert [h.uri for h in kept] == [h.uri for h in all_hits if h.score >= cut]
    assert len(embedded.vsearch("rollback", limit=2).results) == 2
    for bad in ({"limit": 0}, {"min_score": 1.5}):
        with pytest.raises(GnoError) as ei:
            embedded.vsearch("rollback", **bad)  # type: ignore[arg-type]
        expect_code(ei.value, ErrorCode.VALIDATION)
    with pytest.raises(GnoError) as ei:
        embedded.vsearch("   ")
    expect_code(ei.value, ErrorCode.INVALID_QUERY)


def test_error_table_maps_vector_errors_to_the_documented_statuses() -> None:
    assert (ERROR_TABLE[ErrorCode.VECTORS_STALE].exit_code, ERROR_TABLE[ErrorCode.VECTORS_STALE].http_status) == (
        1,
        409,
    )
    assert ERROR_TABLE[ErrorCode.VECTORS_UNAVAILABLE].http_status == 503


def test_shared_content_across_collections_respects_the_collection_filter(build: Build) -> None:
    same = "# Shared\n\nIdentical notes about beekeeping.\n"
    e = build({"kb": {"a.md": same}, "side": {"b.md": same, "c.md": "# C\n\nunrelated words\n"}})
    assert vector_rows(e) == 2  # one vector for the shared content, one for c.md
    assert [(h.collection, h.rel_path) for h in e.vsearch("beekeeping", collection="kb").results] == [("kb", "a.md")]
    side = [(h.collection, h.rel_path) for h in e.vsearch("beekeeping", collection="side").results]
    assert side[0] == ("side", "b.md") and ("kb", "a.md") not in side
    q = [(h.collection, h.rel_path) for h in e.query("beekeeping", collection="kb").results]
    assert q == [("kb", "a.md")]
