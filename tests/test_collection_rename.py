"""`collection rename OLD NEW`: rows, URIs, the journal, the config and memory references follow
without a file being read again (no parse, mtimes and `indexedAt` untouched); a rebuild from the
files afterwards gives the same answers; refusals change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gno.ingest.sync
from gno.config import load_config
from gno.engine import Engine
from gno.errors import ErrorCode, GnoError
from gno.memory.recall import RecallRequest
from gno.memory.remember import RememberRequest
from gno.settings import Settings
from gno.store import documents as docs

SCOPE = "project:gno"


def _rows(e: Engine, collection: str) -> dict[str, docs.DocRow]:
    return {r.rel_path: r for r in docs.list_docs(e.store, collection, "", 1000, 0)}


def _full_rows(e: Engine, collection: str) -> dict[str, docs.DocRow]:
    out = {}
    for rel in _rows(e, collection):
        row = docs.doc_by_path(e.store, collection, rel)
        assert row is not None
        out[rel] = row
    return out


def test_rename_moves_rows_without_reading_a_file(
    engine: Engine, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _full_rows(engine, "notes")
    mtimes = {p: p.stat().st_mtime_ns for p in corpus.rglob("*.md")}
    parsed: list[str] = []
    real = gno.ingest.sync.parse_markdown
    monkeypatch.setattr(gno.ingest.sync, "parse_markdown", lambda *a, **k: parsed.append("x") or real(*a, **k))
    r = engine.collection_rename("Notes", "kb")
    assert (r.old_name, r.new_name, r.documents, r.memory_managed) == ("notes", "kb", len(before), False)
    assert parsed == []  # nothing parsed
    assert {p: p.stat().st_mtime_ns for p in corpus.rglob("*.md")} == mtimes
    after = _full_rows(engine, "kb")
    assert set(after) == set(before) and _rows(engine, "notes") == {}
    for rel, row in after.items():
        old = before[rel]
        assert row.uri == old.uri.replace("gno://notes/", "gno://kb/", 1)
        assert (row.id, row.docid, row.source_hash, row.mirror_hash, row.indexed_at) == (
            old.id,
            old.docid,
            old.source_hash,
            old.mirror_hash,
            old.indexed_at,
        )
    assert engine.get("gno://kb/deploy.md").title == "Deploy process"
    assert [h.uri for h in engine.search("rollback", collection="kb").results][0].startswith("gno://kb/")
    with pytest.raises(GnoError) as ei:
        engine.get("gno://notes/deploy.md")
    assert ei.value.code == ErrorCode.NOT_FOUND
    cfg = load_config(engine.settings)
    assert [(c.name, c.path) for c in cfg.collections] == [("kb", str(corpus))]
    again = engine.update()  # the next sync finds every file as it was: nothing to read again
    assert parsed == [] and again.collections[0].name == "kb"


def test_context_hints_follow_the_collection(engine: Engine) -> None:
    engine.context_add("notes:", "The team's notes")
    engine.context_add("gno://notes/projects", "Project pages")
    engine.context_add("/", "Everything")
    r = engine.collection_rename("notes", "kb")
    assert r.contexts == 2
    scopes = sorted(h.scope_key for h in load_config(engine.settings).contexts)
    assert scopes == ["/", "gno://kb/projects", "kb:"]
    hit = engine.search("runbook").results[0]
    assert hit.uri == "gno://kb/projects/runbook.md"
    assert list(hit.context or []) == ["Everything", "The team's notes", "Project pages"]


def test_the_journal_follows_and_records_the_move(engine: Engine) -> None:
    first = engine.changes(limit=1000)
    engine.collection_rename("notes", "kb")
    ch = engine.changes(collection="kb", limit=1000)
    old = [c for c in ch.changes if c.kind != "rename"]
    assert [c.id for c in old] == [c.id for c in first.changes]  # cursors keep their meaning
    assert all(c.current is None or c.current["uri"].startswith("gno://kb/") for c in old)
    moves = [c for c in ch.changes if c.kind == "rename"]
    assert len(moves) == len(_rows(engine, "kb"))
    assert all(
        m.previous is not None
        and m.current is not None
        and m.previous["uri"].replace("gno://notes/", "gno://kb/") == m.current["uri"]
        for m in moves
    )


def _memory_engine(settings: Settings, tmp_path: Path) -> tuple[Engine, Path, Path]:
    mem, notes = tmp_path / "mem", tmp_path / "notes"
    notes.mkdir()
    e = Engine(settings)
    e.init()
    e.collection_add(str(mem), name="memory", memory_managed=True)
    e.collection_add(str(notes), name="notes")
    e.update()
    return e, mem, notes


def _remember(e: Engine, text: str, **kw: str) -> str:
    r = e.remember(RememberRequest(text=text, scopes=[SCOPE], caller="t", session="s", **kw), semantic=False)
    assert r.record is not None, r
    return r.record.uri


def test_renaming_the_memory_collection_keeps_chains_flags_and_a_rebuild(settings: Settings, tmp_path: Path) -> None:
    e, mem, notes = _memory_engine(settings, tmp_path)
    old = _remember(e, "Staging deploys happen on Mondays", decision="add")
    old_hash = e.recall(RecallRequest(query="staging", scopes=[SCOPE], caller="t", session="s"), semantic=False)
    pred = old_hash.facts[0]
    new = _remember(
        e,
        "Staging deploys happen on Wednesdays",
        decision="supersede",
        predecessor_uri=pred.uri,
        predecessor_hash=pred.content_hash,
    )
    (notes / "link.md").write_text(f"---\nrelations:\n  related: {old}\n---\nSee the fact.\n", encoding="utf-8")
    e.update()
    successor = next(p for p in mem.rglob("*.md") if new.rsplit("/", 1)[1] in p.name)
    body = successor.read_bytes().split(b"\n---\n", 1)[1]
    link_before = (notes / "link.md").read_bytes()

    r = e.collection_rename("memory", "facts")
    assert r.memory_managed is True and load_config(e.settings).require("facts").memory_managed
    new_uri = new.replace("gno://memory/", "gno://facts/")
    assert r.rewritten_facts == [new_uri]
    assert r.stale_references == ["gno://notes/link.md"]  # the user's note: listed, never edited
    assert (notes / "link.md").read_bytes() == link_before
    assert successor.read_bytes().split(b"\n---\n", 1)[1] == body  # the fact's body (its contentHash) stays
    assert old.replace("gno://memory/", "gno://facts/") in successor.read_text(encoding="utf-8")
    assert e.audit().findings == []

    def chain(e: Engine) -> list[str]:
        return [(h.record.uri, h.superseded_by or "") for h in e.memory_history(new_uri).chain]

    assert chain(e) == [(old.replace("gno://memory/", "gno://facts/"), new_uri), (new_uri, "")]
    got = e.recall(RecallRequest(query="staging", scopes=[SCOPE], caller="t", session="s"), semantic=False)
    assert [f.uri for f in got.facts] == [new_uri]
    assert _remember(e, "Lunch is at noon", decision="add").startswith("gno://facts/")  # remember follows
    history = chain(e)
    e.close()
    e.settings.db_path.unlink()  # rebuilt from the files alone: the same chain
    e.update()
    assert chain(e) == history
    e.close()


def test_refusals_change_nothing(settings: Settings, tmp_path: Path) -> None:
    e, _, _ = _memory_engine(settings, tmp_path)
    cfg = e.settings.config_path.read_bytes()
    rows = _rows(e, "notes")
    cases = [
        (("notes", "memory"), ErrorCode.COLLECTION_EXISTS),
        (("nope", "fresh"), ErrorCode.COLLECTION_NOT_FOUND),
        (("notes", "Not A Name"), ErrorCode.VALIDATION),
        (("notes", "notes"), ErrorCode.VALIDATION),
    ]
    for (old, new), code in cases:
        with pytest.raises(GnoError) as ei:
            e.collection_rename(old, new)
        assert ei.value.code == code, (old, new, ei.value.message)
    with e.lease(), pytest.raises(GnoError) as busy:
        e.collection_rename("notes", "kb", lock_wait=0)
    assert busy.value.code == ErrorCode.LOCKED
    assert e.settings.config_path.read_bytes() == cfg and _rows(e, "notes") == rows
    _remember(e, "Staging deploys happen on Mondays", decision="add")
    e.collection_remove("memory")  # its rows stay until `update --prune`
    with pytest.raises(GnoError) as ei:
        e.collection_rename("notes", "memory")
    assert ei.value.code == ErrorCode.COLLECTION_EXISTS and "--prune" in ei.value.message
    e.close()


def test_a_failed_config_write_rolls_the_rows_back(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    import gno.writes.rename

    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(gno.writes.rename, "save_config", broken)
    rows = _full_rows(engine, "notes")
    with pytest.raises(OSError):
        engine.collection_rename("notes", "kb")
    assert _full_rows(engine, "notes") == rows and _rows(engine, "kb") == {}
    assert json.dumps(engine.collection_names()) == '["notes"]'


def test_a_retried_request_id_replays_the_new_uris(settings: Settings, tmp_path: Path) -> None:
    e, _mem, _notes = _memory_engine(settings, tmp_path)
    first = e.remember(
        RememberRequest(
            text="Backups run nightly at two", scopes=[SCOPE], caller="t", session="s", decision="add", request_id="r-1"
        ),
        semantic=False,
    )
    assert first.record is not None and first.record.uri.startswith("gno://memory/")
    r = e.collection_rename("memory", "facts")
    assert r.request_outcomes == 1
    again = e.remember(
        RememberRequest(
            text="Backups run nightly at two", scopes=[SCOPE], caller="t", session="s", decision="add", request_id="r-1"
        ),
        semantic=False,
    )
    assert again.request is not None and again.request.replayed
    assert again.record is not None and again.record.uri == first.record.uri.replace("gno://memory/", "gno://facts/")
    assert e.get(again.record.uri).docid == first.record.docid  # the replayed URI resolves
    status = e.request_status("r-1")
    assert status.result is not None and status.result.uri == again.record.uri
    with pytest.raises(GnoError) as ei:  # another intent under the same ID is still a conflict
        e.remember(
            RememberRequest(
                text="Backups run weekly", scopes=[SCOPE], caller="t", session="s", decision="add", request_id="r-1"
            ),
            semantic=False,
        )
    assert ei.value.code == ErrorCode.REQUEST_ID_CONFLICT
    assert e.collection_rename("notes", "kb").request_outcomes == 0  # outcomes of other collections stay


def test_a_rename_creates_no_request_ledger(engine: Engine) -> None:
    engine.collection_rename("notes", "kb")
    assert not engine.settings.requests_path.exists()


def test_an_unusable_request_ledger_is_a_warning_of_a_rename_that_is_done(engine: Engine) -> None:
    ledger = engine.settings.requests_path
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(b"not a database, " * 512)
    out = engine.collection_rename("notes", "kb")
    assert out.new_name == "kb" and out.documents > 0 and out.request_outcomes == 0
    [warning] = out.warnings
    assert str(ledger) in warning and "gno://notes/" in warning and "move the ledger aside" in warning
    assert [c.name for c in load_config(engine.settings).collections] == ["kb"]
    assert _rows(engine, "kb") and not _rows(engine, "notes")
    assert ledger.read_bytes() == b"not a database, " * 512  # left as it was, for the user to move


def test_a_rename_prints_its_warnings_on_stderr(engine: Engine, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    ledger = engine.settings.requests_path
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(b"not a database, " * 512)
    env = {**os.environ, "GNO_NO_DAEMON": "1"}
    env.update(
        GNO_CONFIG_DIR=str(engine.settings.config_dir),
        GNO_DATA_DIR=str(engine.settings.data_dir),
        GNO_CACHE_DIR=str(engine.settings.cache_dir),
    )
    engine.close()
    proc = subprocess.run(
        [sys.executable, "-m", "gno", "collection", "rename", "notes", "kb"], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Renamed collection notes → kb")
    assert proc.stderr.startswith("warning: request ledger ") and "move the ledger aside" in proc.stderr
