"""Fixtures and helpers for the memory contract tests.

`mem` builds one isolated gno home with a memory-managed collection `memory` and an ordinary
collection `notes`. The config is written by hand (`version: "1.0"` + collections,
`memoryManaged: true` on `memory`), as a user who edits index.yml would; the CLI way
(`gno collection add DIR --memory`) is tested in test_memory_collection_cli.py. `cli` runs
`gno …` in-process through click's runner.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gno.config import Settings
from gno.engine import Engine
from gno.errors import ERROR_TABLE, ErrorCode
from gno.memory.remember import RememberRequest

CALLER = "test:caller"
SESSION = "test:session"


@dataclass
class MemEnv:
    """One isolated gno home with a managed `memory` collection and an ordinary `notes` one."""

    settings: Settings
    engine: Engine
    memory: Path
    notes: Path
    tmp: Path
    extra: list[dict[str, Any]] = field(default_factory=list)

    def write_config(self, extra: Sequence[dict[str, Any]] = ()) -> None:
        """(Re)write index.yml; `extra` appends more collections (dicts in config syntax)."""
        self.extra = list(extra)
        cfg = {
            "version": "1.0",
            "collections": [
                {"name": "memory", "path": str(self.memory), "pattern": "**/*.md", "memoryManaged": True},
                {"name": "notes", "path": str(self.notes), "pattern": "**/*.md"},
                *self.extra,
            ],
        }
        path = self.settings.config_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
        self.engine._config = None  # never rely on mtime granularity between rewrites

    def fact_files(self) -> list[Path]:
        facts = self.memory / "facts"
        return sorted(facts.rglob("mem-*.md")) if facts.exists() else []

    def all_files(self) -> list[Path]:
        return sorted(p for p in self.memory.rglob("*") if p.is_file())


@pytest.fixture
def mem(settings: Settings, tmp_path: Path) -> Iterator[MemEnv]:
    memory = tmp_path / "memory-src"
    notes = tmp_path / "notes-src"
    memory.mkdir()
    notes.mkdir()
    (notes / "deploy.md").write_text("# Deploys\n\nWe deploy on Tuesdays.\n", encoding="utf-8")
    env = MemEnv(settings=settings, engine=Engine(settings), memory=memory, notes=notes, tmp=tmp_path)
    env.write_config()
    env.engine.update()
    yield env
    env.engine.close()


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    @property
    def error_code(self) -> str:
        return str(self.json["error"]["code"])


Cli = Callable[..., CliResult]


@pytest.fixture
def cli() -> Cli:
    """Run `gno …` in-process through click's runner (same code path as the console script)."""
    from gno.cli.main import cli as gno_cli

    def _run(*args: str, env: dict[str, str | None] | None = None, input: str | None = None) -> CliResult:
        r = CliRunner().invoke(gno_cli, list(args), env=env, input=input, catch_exceptions=False)
        return CliResult(r.exit_code, r.stdout, r.stderr)

    return _run


# -- helpers shared by the memory tests -------------------------------------------------------


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def remember(mem: MemEnv, text: Any, scopes: Any = ("project:gno",), decision: str | None = None, **kw: Any) -> Any:
    kw.setdefault("caller", CALLER)
    kw.setdefault("session", SESSION)
    return mem.engine.remember(RememberRequest(text=text, scopes=list(scopes), decision=decision, **kw))


def add(mem: MemEnv, text: str, scopes: Any = ("project:gno",), **kw: Any) -> Any:
    r = remember(mem, text, scopes, "add", **kw)
    assert r.outcome == "added", r
    return r.record


def split_fact(path: Path) -> tuple[dict[str, Any], str]:
    raw = path.read_text(encoding="utf-8")
    assert raw.startswith("---\n")
    head, sep, body = raw[4:].partition("\n---\n")
    assert sep, "front matter not closed"
    return yaml.safe_load(head), body


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def expect_error(r: CliResult, code: ErrorCode) -> dict[str, Any]:
    assert r.exit_code == ERROR_TABLE[code].exit_code, (r.exit_code, r.stdout, r.stderr)
    body = r.json
    assert body["error"]["code"] == code.value, body
    return dict(body["error"])


def cli_remember(cli: Cli, text: str, *args: str, scopes: tuple[str, ...] = ("project:gno",)) -> CliResult:
    scope_args = [a for s in scopes for a in ("--scope", s)]
    return cli("remember", text, *scope_args, "--caller", CALLER, "--session", SESSION, *args, "--json")


def cli_recall(cli: Cli, query: str, *args: str, scopes: tuple[str, ...] = ("project:gno",)) -> CliResult:
    scope_args = [a for s in scopes for a in ("--scope", s)]
    return cli("recall", query, *scope_args, "--caller", CALLER, "--session", SESSION, *args, "--json")
