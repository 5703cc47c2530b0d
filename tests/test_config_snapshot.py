"""The validated config's snapshot: trusted only while index.yml keeps its identity, never a guess."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from gno import config_snapshot
from gno.settings import Settings


def _config(settings: Settings, text: str = "version: '1.0'\ncollections: []\n") -> config_snapshot.Identity:
    Path(settings.config_location).parent.mkdir(parents=True, exist_ok=True)
    Path(settings.config_location).write_text(text, encoding="utf-8")
    Path(settings.cache_root).mkdir(parents=True, exist_ok=True)
    ident = config_snapshot.identity(settings.config_location)
    assert ident is not None
    return ident


def test_names_round_trip_while_the_file_is_unchanged(settings: Settings) -> None:
    ident = _config(settings)
    assert config_snapshot.read(settings) is None
    config_snapshot.record(settings, ident, ["notes", "memory"])
    assert config_snapshot.read(settings) == ["notes", "memory"]
    config_snapshot.record(settings, ident, [])
    assert config_snapshot.read(settings) == []


def test_an_edit_a_replace_or_a_deletion_makes_it_stale(settings: Settings) -> None:
    config_snapshot.record(settings, _config(settings), ["notes"])
    _config(settings, "version: '1.0'\ncollections: [] # edited\n")
    assert config_snapshot.read(settings) is None
    config_snapshot.record(settings, _config(settings), ["notes"])
    os.unlink(settings.config_location)
    assert config_snapshot.read(settings) is None


def test_a_record_of_another_config_or_format_is_ignored(settings: Settings, tmp_path: Path) -> None:
    ident = _config(settings)
    config_snapshot.record(settings, ident, ["notes"])
    other = settings._replace(config_override=str(tmp_path / "other.yml"))
    Path(other.config_location).write_text("version: '1.0'\n", encoding="utf-8")
    assert config_snapshot.read(other) is None
    record = Path(settings.cache_root) / "config-snapshot.txt"
    for body in ("", "{}", record.read_text(encoding="utf-8").replace("snapshot 2", "snapshot 0")):
        record.write_text(body, encoding="utf-8")
        assert config_snapshot.read(settings) is None


def test_a_path_with_a_line_break_is_never_recorded(settings: Settings, tmp_path: Path) -> None:
    odd = settings._replace(config_override=str(tmp_path / "a\nb.yml"))
    ident = _config(odd)
    config_snapshot.record(odd, ident, ["notes"])
    assert config_snapshot.read(odd) is None
    assert not (Path(settings.cache_root) / "config-snapshot.txt").exists()


ROW = {
    "name": "notes", "path": "/n", "pattern": "**/*.md", "include": [], "exclude": [".git"], "memory_managed": False,
    "file_cap": 1024, "egress_policy": "lan", "egress_explicit": True,
}  # fmt: skip
COLL = SimpleNamespace(**ROW, max_file_bytes=None)  # a validated collection: more fields than recorded


def test_collections_round_trip_and_go_stale_with_the_file(settings: Settings) -> None:
    ident = _config(settings)
    assert config_snapshot.read_collections(settings) is None
    config_snapshot.record_collections(settings, ident, [COLL])
    assert config_snapshot.read_collections(settings) == [ROW]
    _config(settings, "version: '1.0'\ncollections: [] # edited\n")
    assert config_snapshot.read_collections(settings) is None


def test_a_collections_record_missing_a_field_or_of_another_format_is_ignored(settings: Settings) -> None:
    ident = _config(settings)
    record = Path(settings.cache_root) / "config-collections.json"
    config_snapshot.record_collections(settings, ident, [COLL])
    good = record.read_text(encoding="utf-8")
    odd = [
        good.replace('"exclude": [".git"], ', ""),  # a field missing
        good.replace('"include": []', '"include": "md"'),
        good.replace('"memory_managed": false', '"memory_managed": 0'),
        good.replace('"file_cap": 1024', '"file_cap": 0'),
        good.replace('"file_cap": 1024', '"file_cap": true'),
        good.replace('"egress_explicit": true', '"egress_explicit": "yes"'),
        good.replace('"memoryGuard": false', '"memoryGuard": 0'),
    ]
    assert all(o != good for o in odd)
    for body in ("", "[]", "{}", good.replace("collections 3", "collections 2"), good[:-5], *odd):
        record.write_text(body, encoding="utf-8")
        assert config_snapshot.read_collections(settings) is None
