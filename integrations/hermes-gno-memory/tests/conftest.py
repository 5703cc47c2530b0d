"""Fixtures: a real gno home with a memory collection, a real HERMES_HOME, the real `hermes` CLI.

Under CI=true a missing `hermes` (the hermes-agent package) or `gno` fails the run; elsewhere the
suite is skipped with the install command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Env  # noqa: E402


def _require(tool: str, hint: str) -> str:
    found = shutil.which(tool, path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if found:
        return found
    if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
        pytest.fail(f"`{tool}` is required under CI=true: {hint}")
    pytest.skip(f"`{tool}` not installed: {hint}")


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    hermes = _require("hermes", "pip install 'hermes-agent>=0.19'")
    gno = _require("gno", "pip install -e . (the gno repository)")
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    hermes_home = tmp_path / "hermes-home"
    hermes_home.mkdir()
    e = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "HERMES_", "OPENAI_"))}
    e.update(
        GNO_CONFIG_DIR=str(tmp_path / "gno" / "config"),
        GNO_DATA_DIR=str(tmp_path / "gno" / "data"),
        GNO_CACHE_DIR=str(tmp_path / "gno" / "cache"),
        HERMES_HOME=str(hermes_home),
        HOME=str(tmp_path / "home"),
        PATH=os.path.dirname(gno) + os.pathsep + e.get("PATH", ""),
    )
    (tmp_path / "home").mkdir()
    for args in (["init"], ["collection", "add", str(memory_dir), "--name", "memory"]):
        subprocess.run([gno, *args], env=e, check=True, capture_output=True, timeout=60)
    cfg_path = tmp_path / "gno" / "config" / "index.yml"
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["collections"][0]["memoryManaged"] = True
    cfg_path.write_text(yaml.safe_dump(cfg))
    yield Env(tmp_path, memory_dir, hermes_home, e, hermes, gno)

