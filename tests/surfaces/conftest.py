"""Fixtures for the four-surface tests (issue 4): one gno home, every surface over it.

`SurfaceEnv` is an isolated gno home (the root conftest's `gno_home` points every GNO_* path
into tmp_path) with a hand-written `index.yml` (`version: "1.0"`, a memory-managed collection
`memory` and an ordinary collection `notes`), synced. Over it:

- CLI: click's runner on `gno.cli.main.cli` (same code path as the console script);
- MCP: the official SDK's in-memory `Client` over `build_mcp(...)` (read-write and read-only);
- REST: the FastAPI app of `create_app(...)` through starlette's `TestClient` (ASGI, no socket);
- SDK: `gno.Client.open()` in-process, and `gno.Client.connect(url)` against the same app
  served by uvicorn in a thread on a free loopback port (real HTTP);
- `gno_serve(...)`: `gno serve` as a real subprocess with the test's GNO_* environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from click.testing import CliRunner

import gno
from gno.config import Settings
from gno.engine import Engine
from gno.memory.recall import RecallRequest
from gno.memory.remember import RememberRequest
from gno.models.memory_results import MemoryRecord, RecallResult
from servers import announced_port, file_reader, uvicorn_thread

#: identity every in-process surface call uses unless a test says otherwise
CALLER = "surface-test"
SESSION = "surface-session"
MCP_CLIENT_NAME = "contract-test-client"
SCOPE = "project:gno"
DEPLOY_NOTE = "# Deploys\n\nWe deploy on Tuesdays from the main branch.\n"
HANDBOOK_NOTE = "---\ntitle: Handbook\ntags: [team]\n---\n\n# Handbook\n\nOn-call rotates weekly.\n"
SERVE_START_TIMEOUT_S = 180.0


# -- environment -----------------------------------------------------------------------------


@dataclass
class SurfaceEnv:
    """One isolated gno home: `memory` (memoryManaged) and `notes` collections, synced."""

    settings: Settings
    engine: Engine
    home: Path
    memory: Path
    notes: Path
    tmp: Path
    extra: list[dict[str, Any]] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)

    def write_config(self) -> None:
        cfg = {
            "version": "1.0",
            **({"models": self.models} if self.models else {}),
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

    def gno_env(self) -> dict[str, str]:
        """The GNO_* variables of this home (for subprocesses that get a stripped environment)."""
        return {k: v for k, v in os.environ.items() if k.startswith("GNO_")}

    def subprocess_env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(extra)
        return env

    # -- state helpers (in-process engine, not a surface under test) -------------------------
    def add_fact(self, text: str, scopes: list[str] | None = None) -> MemoryRecord:
        with self.engine.lock:
            r = self.engine.remember(
                RememberRequest(text=text, scopes=scopes or [SCOPE], caller=CALLER, session=SESSION, decision="add")
            )
        assert r.outcome == "added" and r.record is not None, r
        return r.record

    def supersede(self, old: MemoryRecord, text: str) -> MemoryRecord:
        with self.engine.lock:
            r = self.engine.remember(
                RememberRequest(
                    text=text,
                    scopes=old.scopes,
                    caller=CALLER,
                    session=SESSION,
                    decision="supersede",
                    predecessor_uri=old.uri,
                    predecessor_hash=old.content_hash,
                )
            )
        assert r.outcome == "superseded" and r.record is not None, r
        return r.record

    def recall(self, query: str, scopes: list[str] | None = None) -> RecallResult:
        with self.engine.lock:
            return self.engine.recall(
                RecallRequest(query=query, scopes=scopes or [SCOPE], caller=CALLER, session=SESSION)
            )

    def files(self) -> dict[str, bytes]:
        """Every file of both collections (what a refused write must leave untouched)."""
        return {
            str(p.relative_to(self.tmp)): p.read_bytes()
            for root in (self.memory, self.notes)
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    def fact_files(self) -> list[Path]:
        root = self.memory / "facts"
        return sorted(root.rglob("mem-*.md")) if root.exists() else []


def read_front_matter(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), text[:80]
    fm, _, _ = text[4:].partition("\n---\n")
    data = yaml.safe_load(fm)
    assert isinstance(data, dict)
    return data


@pytest.fixture
def env(settings: Settings, gno_home: Path, tmp_path: Path) -> Iterator[SurfaceEnv]:
    memory = tmp_path / "memory-src"
    notes = tmp_path / "notes-src"
    memory.mkdir()
    notes.mkdir()
    (notes / "deploy.md").write_text(DEPLOY_NOTE, encoding="utf-8")
    (notes / "handbook.md").write_text(HANDBOOK_NOTE, encoding="utf-8")
    e = SurfaceEnv(settings=settings, engine=Engine(settings), home=gno_home, memory=memory, notes=notes, tmp=tmp_path)
    e.write_config()
    e.engine.update()
    yield e
    e.engine.close()


# -- CLI ---------------------------------------------------------------------------------------


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


CliRun = Callable[..., CliResult]


@pytest.fixture
def cli(env: SurfaceEnv) -> CliRun:
    """Run `gno …` in-process through click's runner on `gno.cli.main.cli`."""
    from gno.cli.main import cli as gno_cli

    def _run(*args: str, input: str | None = None) -> CliResult:
        r = CliRunner().invoke(gno_cli, list(args), input=input, catch_exceptions=False)
        return CliResult(r.exit_code, r.stdout, r.stderr)

    return _run


# -- REST (ASGI) ------------------------------------------------------------------------------


@pytest.fixture
def app(env: SurfaceEnv) -> Any:
    from gno.http.app import create_app

    return create_app(env.engine, enable_write=True)


@pytest.fixture
def rest(app: Any) -> Iterator[Any]:
    """starlette's TestClient over the app: the REST surface without a socket.

    Not entered as a context manager: the app's lifespan (the MCP session manager, which runs
    once per instance) is not needed by `/api/*` and stays free for a real server.
    """
    from starlette.testclient import TestClient

    client = TestClient(app, base_url="http://127.0.0.1")
    yield client
    client.close()


# -- MCP (in-memory) ----------------------------------------------------------------------------


@dataclass
class McpOutcome:
    is_error: bool
    structured: dict[str, Any] | None
    text: str

    @property
    def error_code(self) -> str:
        assert self.structured is not None, self.text
        return str(self.structured["error"]["code"])


class McpDriver:
    """Synchronous facade over the MCP SDK's in-memory client (one connection per call)."""

    def __init__(self, server: Any, client_name: str = MCP_CLIENT_NAME) -> None:
        self.server = server
        self.client_name = client_name

    async def acall(self, tool: str, args: dict[str, Any]) -> McpOutcome:
        from mcp import Client
        from mcp_types import Implementation

        info = Implementation(name=self.client_name, version="1.0")
        async with Client(self.server, client_info=info) as c:
            res = await c.call_tool(tool, args)
        text = " ".join(getattr(x, "text", "") for x in res.content)
        return McpOutcome(bool(res.is_error), res.structured_content, text)

    def call(self, tool: str, args: dict[str, Any]) -> McpOutcome:
        return asyncio.run(self.acall(tool, args))

    async def alist_tools(self) -> list[str]:
        from mcp import Client

        async with Client(self.server) as c:
            return sorted(t.name for t in (await c.list_tools()).tools)

    def list_tools(self) -> list[str]:
        return asyncio.run(self.alist_tools())


@pytest.fixture
def mcp_rw(env: SurfaceEnv) -> McpDriver:
    from gno.mcp.server import build_mcp

    return McpDriver(build_mcp(env.engine, enable_write=True, instance_id="test"))


@pytest.fixture
def mcp_ro(env: SurfaceEnv) -> McpDriver:
    from gno.mcp.server import build_mcp

    return McpDriver(build_mcp(env.engine, enable_write=False, instance_id="test-ro"))


# -- SDK ----------------------------------------------------------------------------------------


@pytest.fixture
def sdk_local(env: SurfaceEnv) -> Iterator[Any]:
    client = gno.Client.open(caller=CALLER, session=SESSION)
    yield client
    client.close()


@pytest.fixture
def live_url(env: SurfaceEnv) -> Iterator[str]:
    """A second app over the test's engine, served over real HTTP (uvicorn in a thread)."""
    from gno.http.app import create_app

    with uvicorn_thread(create_app(env.engine, enable_write=True)) as url:
        yield url


@pytest.fixture
def sdk_remote(live_url: str) -> Iterator[Any]:
    client = gno.Client.connect(live_url, caller=CALLER, session=SESSION)
    yield client
    client.close()


# -- `gno serve` as a real process ------------------------------------------------------------


@dataclass
class ServeProcess:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""


def gno_command(*args: str) -> list[str]:
    """`gno …` as a subprocess command line (this interpreter, so the venv's gno is the one run)."""
    return [sys.executable, "-m", "gno", *args]


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@contextlib.contextmanager
def gno_serve(
    tmp: Path,
    *args: str,
    env: dict[str, str] | None = None,
    health_headers: dict[str, str] | None = None,
) -> Iterator[ServeProcess]:
    """Start `gno serve --port 0 …args`, read the port it announces, wait for /api/health; stop it after."""
    log = Path(tempfile.mkstemp(prefix="serve-", suffix=".log", dir=tmp)[1])
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            gno_command("serve", "--port", "0", *args),
            env=dict(os.environ) if env is None else env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    try:
        port = announced_port(proc, file_reader(log), SERVE_START_TIMEOUT_S)
        sp = ServeProcess(proc, port, log)
        deadline = time.monotonic() + SERVE_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gno serve exited with {proc.returncode}:\n{sp.output()}")
            try:
                r = httpx.get(f"{sp.url}/api/health", headers=health_headers, timeout=2)
                if r.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gno serve did not answer /api/health in time:\n{sp.output()}")
            time.sleep(0.05)
        yield sp
    finally:
        stop_process(proc)
