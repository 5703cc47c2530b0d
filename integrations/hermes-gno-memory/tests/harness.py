"""Shared pieces of the Hermes suite: the test environment and the plugin copier."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "hermes_gno_memory"
PLUGIN_FILES = ("__init__.py", "provider.py", "gnocli.py", "plugin.yaml")


@dataclass
class Env:
    root: Path
    memory_dir: Path
    hermes_home: Path
    env: dict[str, str]
    hermes: str
    gno: str

    def gno_json(self, *args: str) -> dict[str, Any]:
        cp = subprocess.run([self.gno, *args, "--json"], env=self.env, capture_output=True, text=True, timeout=60)
        return json.loads(cp.stdout)

    def write_config(self, base_url: str, **gno: Any) -> None:
        cfg = {
            "model": {"provider": "custom", "base_url": base_url, "default": "fake-model", "api_key": "sk-test"},
            "memory": {"provider": "gno", "gno": {"scopes": ["project:test"], "collection": "memory", **gno}},
        }
        (self.hermes_home / "config.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")

    def hermes_run(self, prompt: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.hermes, "-z", prompt, "-t", "memory"],
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def facts(self) -> list[Path]:
        return sorted(self.memory_dir.rglob("mem-*.md"))


def copy_plugin(hermes_home: Path) -> Path:
    """What `python -m hermes_gno_memory install` does (faster than a git install per test)."""
    target = hermes_home / "plugins" / "gno"
    target.mkdir(parents=True, exist_ok=True)
    for name in PLUGIN_FILES:
        shutil.copy2(PLUGIN_DIR / name, target / name)
    return target
