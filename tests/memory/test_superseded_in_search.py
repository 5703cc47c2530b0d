"""A superseded fact stays searchable but is marked, everywhere hits are shown.

The decision: mark, not hide. Fact files are documents like any other and ordinary search finds
every file; hiding would make `search` disagree with the folder. So `search`, `vsearch` and
`query` hits of a replaced fact carry `supersededBy` (the newer fact's uri), the CLI prints
`[superseded by …]`, the Web UI a "superseded" badge (tests/web), and `recall` keeps returning
only the current fact.
"""

from __future__ import annotations

from typing import Any

from gno.config import load_config, save_config

from .conftest import Cli, MemEnv, add, remember

OLD = "The standup meets in room four"
NEW = "The standup meets in room seven"


def _supersede(mem: MemEnv) -> tuple[str, str]:
    old = add(mem, OLD, scopes=["team"])
    new = remember(
        mem, NEW, ["team"], "supersede", predecessor_uri=old.uri, predecessor_hash=old.content_hash
    ).record
    return old.uri, new.uri


def _marks(hits: list[Any]) -> dict[str, str | None]:
    return {h.uri: h.superseded_by for h in hits}


def test_search_marks_the_superseded_fact_and_not_the_current_one(mem: MemEnv, cli: Cli) -> None:
    old, new = _supersede(mem)
    unrelated = add(mem, "Lunch is at noon", scopes=["team"]).uri
    hits = mem.engine.search("standup room").results
    assert _marks(hits) == {old: new, new: None}
    assert mem.engine.search("lunch").results[0].superseded_by is None and unrelated
    body = cli("search", "standup", "room", "--json").json
    assert {h["uri"]: h.get("supersededBy") for h in body["results"]} == {old: new, new: None}
    text = cli("search", "standup", "room").stdout
    assert f"   {old}:" in text and f"   [superseded by {new}]" in text
    assert text.count("[superseded by") == 1
    # recall is unchanged: only the current fact
    got = cli("recall", "standup room", "--scope", "team", "--caller", "c", "--session", "s", "--json").json
    assert [f["uri"] for f in got["facts"]] == [new]


def test_query_and_vsearch_mark_it_too(mem: MemEnv, cli: Cli) -> None:
    cfg = load_config(mem.settings)
    cfg.models.embed = "fake:64"  # an offline model for the vector rungs
    save_config(mem.settings, cfg)
    mem.engine._config = None
    old, new = _supersede(mem)
    mem.engine.embed()
    for hits in (mem.engine.query("standup room", depth="fast").results, mem.engine.vsearch("standup room").results):
        marks = _marks(hits)  # the vector leg adds other notes: only the replaced fact is marked
        assert marks[old] == new and marks[new] is None
        assert {u for u, m in marks.items() if m} == {old}
    text = cli("query", "standup room", "--fast").stdout
    assert f"[superseded by {new}]" in text


def test_a_successor_that_is_deleted_unmarks_the_old_fact(mem: MemEnv) -> None:
    old, new = _supersede(mem)
    (mem.memory / new.removeprefix("gno://memory/")).unlink()
    mem.engine.update()
    assert _marks(mem.engine.search("standup room").results) == {old: None}


def test_rest_and_mcp_hits_carry_the_mark(mem: MemEnv) -> None:
    import asyncio

    from mcp import Client
    from starlette.testclient import TestClient

    from gno.http.app import create_app
    from gno.mcp.server import build_mcp

    old, new = _supersede(mem)
    with TestClient(create_app(mem.engine), base_url="http://127.0.0.1") as http:
        r = http.post("/api/search", json={"query": "standup room"})
    assert {h["uri"]: h.get("supersededBy") for h in r.json()["results"]} == {old: new, new: None}

    async def mcp_search() -> Any:
        async with Client(build_mcp(mem.engine, enable_write=False, instance_id="t")) as c:
            return (await c.call_tool("gno_search", {"query": "standup room"})).structured_content

    res = asyncio.run(mcp_search())
    assert {h["uri"]: h.get("supersededBy") for h in res["results"]} == {old: new, new: None}
