"""Fixtures for the evidence-rung tests (issue 6): Context Capsules, Knowledge Delta, verified ask.

Every test runs in the isolated gno home of the root conftest (GNO_CONFIG/DATA/CACHE_DIR point
into tmp_path). `make_kb(files)` writes a hand-made collection, configures `models.embed:
fake:64` (never a real model; the tests run lexically unless `embed=True`) and syncs it.

Surfaces:
- `cli(*args)`: `gno …` in-process through click's runner on `gno.cli.main.cli`;
- `rest(engine)`: starlette's TestClient on `create_app(engine, mcp=False, web=False)`;
- `mcp_call(engine, tool, args)`: the MCP SDK's in-memory `Client` over `build_mcp(...)`.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from gno.config import Settings
from gno.engine import Engine
from gno.evidence.canonical import ByteCounter, canonical_json, token_counter

FAKE_EMBED = "fake:64"
#: a fixed mtime for every written file (2024-01-02T03:04:05Z), so `modifiedAt` never depends on the clock
FIXED_MTIME_NS = 1_704_164_645_000_000_000


def write_file(path: Path, text: str, *, newline: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.replace("\n", newline) if newline != "\n" else text
    path.write_bytes(data.encode("utf-8"))
    os.utime(path, ns=(FIXED_MTIME_NS, FIXED_MTIME_NS))


@dataclass
class KB:
    """One synced collection over a folder of hand-written notes."""

    engine: Engine
    settings: Settings
    root: Path
    name: str
    extra_collections: dict[str, Path] = field(default_factory=dict)

    def path(self, rel: str) -> Path:
        return self.root / rel

    def write(self, rel: str, text: str, *, newline: str = "\n") -> None:
        write_file(self.root / rel, text, newline=newline)

    def lines(self, rel: str) -> list[str]:
        """The file's lines as `context build` cites them (CRLF → LF; 1-based when indexed with -1)."""
        raw = self.path(rel).read_bytes().decode("utf-8")
        return raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def sync(self) -> None:
        self.engine.update()

    def set_models(self, **models: str) -> None:
        cfg_path = self.settings.config_path
        data = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
        data.setdefault("models", {}).update(models)
        cfg_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        self.engine._config = None  # never rely on mtime granularity between rewrites

    def relativize_paths(self, base: Path) -> None:
        cfg_path = self.settings.config_path
        data = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
        for c in data["collections"]:
            c["path"] = str(Path(c["path"]).relative_to(base))
        cfg_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        self.engine._config = None

    def uri(self, rel: str) -> str:
        return f"gno://{self.name}/{rel}"


MakeKB = Callable[..., KB]


def assert_asked(
    make_kb: MakeKB, notes: dict[str, str], question: str, holds: tuple[str, ...], never: tuple[str, ...] = ()
) -> None:
    """`ask --verify` over `notes`: released holding every one of `holds` (and none of `never`), or,
    when nothing is to be held, abstained."""
    r = make_kb(notes).engine.ask(question, verify=True)
    assert r.answer_status == ("verified" if holds else "abstained"), r.dump()
    if holds:
        assert r.answer is not None and all(h in r.answer for h in holds), r.dump()
        assert not any(n in r.answer for n in never), r.dump()


FIXED_NOW = "2024-01-02T03:04:05.000Z"


@pytest.fixture
def make_kb(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeKB]:
    made: list[Engine] = []

    def _make(
        files: Mapping[str, str],
        *,
        name: str = "kb",
        embed: bool = False,
        crlf: tuple[str, ...] = (),
        more: Mapping[str, Mapping[str, str]] | None = None,
        pin: bool = False,
    ) -> KB:
        """`pin=True` makes every Capsule byte-identical across test runs: the sync clock is fixed
        and collection paths are written relative to tmp_path (the cwd), so no run-specific
        string reaches the config fingerprint."""
        if pin:
            monkeypatch.setattr("gno.ingest.sync.now_iso", lambda: FIXED_NOW)
            monkeypatch.chdir(tmp_path)
        e = Engine(settings)
        e.init()
        root = tmp_path / "src" / name
        root.mkdir(parents=True)
        for rel, text in files.items():
            write_file(root / rel, text, newline="\r\n" if rel in crlf else "\n")
        e.collection_add(str(root), name=name)
        kb = KB(e, settings, root, name)
        for cname, cfiles in (more or {}).items():
            croot = tmp_path / "src" / cname
            croot.mkdir(parents=True)
            for rel, text in cfiles.items():
                write_file(croot / rel, text)
            e.collection_add(str(croot), name=cname)
            kb.extra_collections[cname] = croot
        kb.set_models(embed=FAKE_EMBED)
        if pin:
            kb.relativize_paths(tmp_path)
        e.update()
        if embed:
            e.embed()
        made.append(e)
        return kb

    yield _make
    for e in made:
        e.close()


# -- measuring a Capsule -------------------------------------------------------------------


def counter_for(obj: Mapping[str, Any]) -> Any:
    """The token counter a Capsule names in `budget.estimator`."""
    est = obj["budget"]["estimator"]
    if est == "active_tokenizer":
        return token_counter()
    assert est == "unicode_conservative", est
    return ByteCounter()


def measure(obj: Mapping[str, Any], counter: Any = None) -> tuple[str, int, int]:
    """(canonical JSON, UTF-8 bytes, tokens) of a Capsule dump, counted as the budget counts them."""
    text = canonical_json(dict(obj))
    return text, len(text.encode("utf-8")), (counter or counter_for(obj)).count(text)


# -- surfaces -------------------------------------------------------------------------------


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    def jsonl(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


Cli = Callable[..., CliResult]


@pytest.fixture
def cli() -> Cli:
    from gno.cli.main import cli as gno_cli

    def _run(*args: str, input: str | None = None) -> CliResult:
        r = CliRunner().invoke(gno_cli, list(args), input=input, catch_exceptions=False)
        return CliResult(r.exit_code, r.stdout, r.stderr)

    return _run


@pytest.fixture
def rest() -> Iterator[Callable[[Engine], Any]]:
    from starlette.testclient import TestClient

    from gno.http.app import create_app

    clients: list[Any] = []

    def _client(engine: Engine) -> Any:
        c = TestClient(create_app(engine, mcp=False, web=False), base_url="http://127.0.0.1")
        clients.append(c)
        return c

    yield _client
    for c in clients:
        c.close()


@dataclass
class McpOutcome:
    is_error: bool
    structured: dict[str, Any] | None
    text: str


async def _mcp_call(engine: Engine, tool: str, args: dict[str, Any]) -> McpOutcome:
    from mcp import Client

    from gno.mcp.server import build_mcp

    async with Client(build_mcp(engine, enable_write=False, instance_id="evidence-test")) as c:
        res = await c.call_tool(tool, args)
    text = " ".join(getattr(x, "text", "") for x in res.content)
    return McpOutcome(bool(res.is_error), res.structured_content, text)


def mcp_call(engine: Engine, tool: str, args: dict[str, Any]) -> McpOutcome:
    return asyncio.run(_mcp_call(engine, tool, args))


async def _mcp_tools(engine: Engine) -> list[Any]:
    from mcp import Client

    from gno.mcp.server import build_mcp

    async with Client(build_mcp(engine, enable_write=False, instance_id="evidence-test")) as c:
        return list((await c.list_tools()).tools)


def mcp_tools(engine: Engine) -> list[Any]:
    return asyncio.run(_mcp_tools(engine))
