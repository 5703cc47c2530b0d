"""The ANN index: built by `embed` above the threshold, same answers as exact search, never stale."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from components import missing_component
from gno.config import build_settings
from gno.engine import Engine

if importlib.util.find_spec("faiss") is None:
    missing_component("the ANN tests need `pip install faiss-cpu` (the dev extra has it)", module_level=True)


def _engine(tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch, threshold: int) -> Engine:
    monkeypatch.setenv("GNO_ANN_THRESHOLD", str(threshold))
    e = Engine(build_settings())
    e.init()
    e.collection_add(str(corpus), name="notes")
    cfg = e.settings.config_path
    cfg.write_text(cfg.read_text() + 'models:\n  embed: "fake:64"\n')
    e.update()
    e.embed()
    return e


def test_ann_built_above_threshold_matches_exact(tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ann_engine = _engine(tmp_path, corpus, monkeypatch, threshold=3)
    files = list((ann_engine.settings.cache_dir / "ann").glob("*.faiss"))
    assert len(files) == 1
    idx = ann_engine.semantic.index()
    assert idx.ann is not None
    with_ann = [(h.uri, h.score) for h in ann_engine.vsearch("rollback release pipeline", limit=5).results]
    monkeypatch.setenv("GNO_ANN_THRESHOLD", "1000000")
    exact_engine = Engine(build_settings())
    assert exact_engine.semantic.index().ann is None
    exact = [(h.uri, h.score) for h in exact_engine.vsearch("rollback release pipeline", limit=5).results]
    assert [u for u, _ in with_ann] == [u for u, _ in exact]
    assert [round(s, 4) for _, s in with_ann] == [round(s, 4) for _, s in exact]


def test_stale_ann_file_is_never_used(tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    e = _engine(tmp_path, corpus, monkeypatch, threshold=3)
    (corpus / "new.md").write_text("# New\n\nrollback drills every quarter\n")
    e.update()  # a new generation: the saved HNSW file no longer matches the rows
    idx = e.semantic.index()
    assert idx.ann is None
    assert any(h.uri.endswith("rollback.md") for h in e.vsearch("rollback", limit=5).results)


def test_below_threshold_stays_exact(tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    e = _engine(tmp_path, corpus, monkeypatch, threshold=10_000)
    assert not (e.settings.cache_dir / "ann").exists()
    assert e.semantic.index().ann is None
