"""Embedder plugins: the example plugin of docs/embedders.md, installed as a third-party package is
(a module and a `.dist-info` with a `gno.embedders` entry point on sys.path), embeds and ranks a
vault end to end; gno's own embedders come through the same group and keep their names."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.config import build_settings
from gno.embed import load_embedder
from gno.embed.base import EmbedderUnavailable
from gno.embed.plugins import GROUP, plugins
from gno.embed.registry import available_embedders
from gno.engine import Engine

DOC = Path(__file__).resolve().parents[2] / "docs" / "embedders.md"


def _example() -> tuple[str, str]:
    """The plugin's entry point (from the toml block) and its module (the python block), as printed."""
    text = DOC.read_text(encoding="utf-8")
    toml = re.search(r"```toml\n(.*?)```", text, re.S)
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert toml and code, "docs/embedders.md shows a pyproject.toml and a module"
    entry = re.search(r'^\[project\.entry-points\."gno\.embedders"\]\n(\w+ = "[\w:.]+")', toml.group(1), re.M)
    assert entry, "the toml block registers a gno.embedders entry point"
    return entry.group(1), code.group(1)


@pytest.fixture
def bigram_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    entry, module = _example()
    site = tmp_path / "site"
    dist = site / "gno_bigram-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gno-bigram\nVersion: 1.0\n")
    line = entry.replace('"', "")
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\n{line}\n")
    (site / "gno_bigram.py").write_text(module)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    plugins.cache_clear()
    yield
    sys.modules.pop("gno_bigram", None)
    plugins.cache_clear()


def test_gno_own_embedders_come_through_the_entry_point_group() -> None:
    names = [p.name for p in plugins()]
    assert names[:5] == ["minilm", "mpnet", "wordllama", "fake", "remote"]
    assert load_embedder("FAKE:16").model_id == "fake-16"  # specs stay case-insensitive
    with pytest.raises(EmbedderUnavailable, match="unknown embedder 'nope'"):
        load_embedder("nope")


def test_the_documented_plugin_embeds_and_ranks_a_vault(
    bigram_plugin: None, tmp_path: Path, corpus: Path
) -> None:
    assert [p.name for p in plugins()][-1] == "bigram"
    assert {r["name"]: r["available"] for r in available_embedders()}["bigram"] is True
    e = Engine(build_settings())
    try:
        e.init()
        e.collection_add(str(corpus), name="notes")
        cfg = e.settings.config_path
        cfg.write_text(cfg.read_text() + 'models:\n  embed: "bigram:256"\n')
        e.update()
        e.embed()
        vectors = e.status().vectors
        assert vectors is not None and (vectors.model or "").startswith("bigram-256:"), vectors
        assert vectors.embedded_chunks == vectors.total_chunks > 0
        hits = e.vsearch("rollback release pipeline", limit=3).results
        assert hits, "the plugin's vectors rank documents"
    finally:
        e.close()
    cfg.write_text(cfg.read_text().replace("bigram:256", "bigram:128"))
    e = Engine(build_settings())
    try:
        vectors = e.status().vectors
        assert vectors is not None and vectors.stale_chunks > 0, "another spec shows the stored vectors stale"
    finally:
        e.close()


def test_a_plugin_cannot_take_a_builtin_name(bigram_plugin: None) -> None:
    """gno's own plugins are asked first: `minilm` stays MiniLM whatever is installed."""
    assert load_embedder("bigram:8").model_id == "bigram-8"
    assert load_embedder("fake").model_id == "fake-64"
