"""Concurrent reads: one SQLite connection per thread, no engine-wide lock on any surface.

The property is tested without wall-clock assertions: a request is parked *inside* the engine,
holding a read transaction on its own connection, until the test releases it; meanwhile other
requests (REST and MCP) must complete. With a global lock, or one shared connection, they would
wait for the release that never comes before they finish (the timeouts are only a safety net).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from gno.engine import Engine
from gno.store.db import Store

from .conftest import SurfaceEnv, uvicorn_thread

SAFETY_S = 60.0


class ParkedQuery:
    """Replaces `engine.query` on one engine: the call holds a read snapshot until released."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.entered = threading.Event()
        self.release = threading.Event()
        self.real = engine.query

    def __call__(self, *args: Any, **kw: Any) -> Any:
        with self.engine.store.read():
            self.engine.store.execute("SELECT count(*) FROM documents")
            self.entered.set()
            self.release.wait(SAFETY_S)
        return self.real(*args, **kw)


@pytest.fixture
def parked(env: SurfaceEnv, monkeypatch: pytest.MonkeyPatch) -> Iterator[ParkedQuery]:
    p = ParkedQuery(env.engine)
    monkeypatch.setattr(env.engine, "query", p)
    yield p
    p.release.set()


def test_store_gives_each_thread_its_own_connection(env: SurfaceEnv) -> None:
    store = env.engine.store
    seen: list[Any] = []
    t = threading.Thread(target=lambda: seen.append(store.conn))
    t.start()
    t.join(SAFETY_S)
    assert seen and seen[0] is not store.conn


def test_a_read_snapshot_does_not_block_a_write_or_other_readers(env: SurfaceEnv) -> None:
    store = env.engine.store
    count = "SELECT count(*) FROM documents"
    with store.read():  # this thread's long read
        before = store.execute(count)[0][0]
        (env.notes / "new.md").write_text("# New\n\nA new note.\n", encoding="utf-8")
        done: list[int] = []

        def write_then_read() -> None:
            env.engine.update()  # takes the lease and writes on its own connection
            done.append(int(store.execute(count)[0][0]))

        t = threading.Thread(target=write_then_read)
        t.start()
        t.join(SAFETY_S)
        assert done == [before + 1]  # the writer committed and another reader saw it
        assert store.execute(count)[0][0] == before  # this snapshot is unchanged
    assert store.execute(count)[0][0] == before + 1


def test_rest_search_completes_while_a_query_holds_a_long_read(env: SurfaceEnv, parked: ParkedQuery) -> None:
    from gno.http.app import create_app

    with uvicorn_thread(create_app(env.engine, mcp=False, web=False)) as url:
        slow: list[httpx.Response] = []
        t = threading.Thread(
            target=lambda: slow.append(httpx.post(f"{url}/api/query", json={"query": "deploy"}, timeout=SAFETY_S))
        )
        t.start()
        assert parked.entered.wait(SAFETY_S)
        for path, body in (("/api/search", {"query": "deploy"}), ("/api/status", None)):
            r = httpx.request("POST" if body else "GET", url + path, json=body, timeout=SAFETY_S)
            assert r.status_code == 200, r.text
        assert t.is_alive() and not parked.release.is_set()  # the long read is still open
        parked.release.set()
        t.join(SAFETY_S)
        assert slow and slow[0].status_code == 200, slow


def test_mcp_search_completes_while_a_query_holds_a_long_read(env: SurfaceEnv, parked: ParkedQuery) -> None:
    from mcp import Client

    from gno.mcp.server import build_mcp

    server = build_mcp(env.engine, enable_write=False, instance_id="concurrency")
    out: dict[str, Any] = {}

    async def main() -> None:
        async with Client(server) as c, anyio.create_task_group() as tg:

            async def slow() -> None:
                out["slow"] = await c.call_tool("gno_query", {"query": "deploy"})

            tg.start_soon(slow)
            with anyio.fail_after(SAFETY_S):
                while not parked.entered.is_set():
                    await anyio.sleep(0.01)
                fast = await c.call_tool("gno_search", {"query": "deploy"})
            out["fast"] = fast
            out["open"] = not parked.release.is_set() and "slow" not in out
            parked.release.set()

    anyio.run(main)
    assert out["fast"].is_error is False and out["open"] is True
    assert out["slow"].is_error is False


def test_closing_a_store_closes_every_thread_connection(tmp_path: Any) -> None:
    store = Store(tmp_path / "x.sqlite")
    conns = [store.conn]
    t = threading.Thread(target=lambda: conns.append(store.conn))
    t.start()
    t.join(SAFETY_S)
    store.close()
    for c in conns:
        with pytest.raises(Exception, match="closed"):
            c.execute("SELECT 1")


