"""Shared fixtures: every test gets its own gno home (config, data, cache) in tmp_path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.config import Settings, build_settings
from gno.engine import Engine

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def gno_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolate every GNO_* path so no test touches the user's real config or index."""
    home = tmp_path / "gno-home"
    for key in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION", "GNO_MCP_ENABLE_WRITE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GNO_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("GNO_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("GNO_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    return home


@pytest.fixture
def settings(gno_home: Path) -> Settings:
    return build_settings()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of tests/fixtures/corpus."""
    dst = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", dst)
    return dst


@pytest.fixture
def engine(settings: Settings, corpus: Path) -> Iterator[Engine]:
    """An initialised engine with the fixture corpus added as collection `notes` and synced."""
    e = Engine(settings)
    e.init()
    e.collection_add(str(corpus), name="notes")
    e.update()
    yield e
    e.close()
