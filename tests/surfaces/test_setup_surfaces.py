"""The capabilities that set an index up, and the memory audit, on the surfaces the table gives them.

audit answers the same object on the CLI (exit 4 with findings), MCP, REST and both SDKs; init,
collection add/set/remove, index and bench run through the in-process SDK as through the CLI, and
the remote SDK refuses them (no REST route) naming why, as it refuses the CLI-only demo.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import gno

from .conftest import CliRun, McpDriver, SurfaceEnv

BROKEN_FACT = "zebra facts without any front matter\n"


@pytest.fixture
def broken(env: SurfaceEnv) -> SurfaceEnv:
    day = env.memory / "facts" / "2024-03-01"
    day.mkdir(parents=True)
    (day / "mem-000000000000000a.md").write_text(BROKEN_FACT, encoding="utf-8")
    env.engine.update()
    return env


def test_audit_is_the_same_object_on_every_surface(
    broken: SurfaceEnv,
    cli: CliRun,
    mcp_rw: McpDriver,
    rest: Any,
    sdk_local: Any,
    sdk_remote: Any,
) -> None:
    ref = broken.engine.audit().dump()
    assert ref["status"] == "findings"
    assert [f["uri"] for f in ref["findings"]] == ["gno://memory/facts/2024-03-01/mem-000000000000000a.md"]
    r = cli("audit", "--json")
    assert r.exit_code == 4 and r.json == ref
    out = mcp_rw.call("gno_memory_audit", {})
    assert out.is_error is False and out.structured == ref
    resp = rest.get("/api/memory/audit", params={"maxFindings": 5})
    assert resp.status_code == 200 and resp.json() == ref
    assert sdk_local.audit().dump() == ref == sdk_remote.audit(max_findings=5).dump()
    none = rest.get("/api/memory/audit", params={"maxFindings": 0})
    assert resp.status_code == 200 and none.status_code == 400 and none.json()["error"]["code"] == "VALIDATION"
    missing = cli("audit", "-c", "ghost", "--json")
    assert missing.exit_code == 1 and missing.error_code == "COLLECTION_NOT_FOUND"


def test_the_in_process_sdk_sets_an_index_up_as_the_cli_does(env: SurfaceEnv, sdk_local: Any, cli: CliRun) -> None:
    extra = env.tmp / "extra-src"
    extra.mkdir()
    (extra / "zebra.md").write_text("# Zebra\n\nZebras cross at noon.\n", encoding="utf-8")
    assert sdk_local.init().created is False  # the fixture's config exists
    added = sdk_local.collection_add(str(extra), name="extra", include=[".md"])
    assert (added.name, added.path, added.include, added.memory_managed) == ("extra", str(extra), [".md"], False)
    listed = cli("collection", "list", "--json").json
    assert {c["name"] for c in listed["collections"]} == {"notes", "memory", "extra"}
    done = sdk_local.index("extra", no_embed=True)
    assert done.embed_skipped == "--no-embed" and [c.added for c in done.sync.collections] == [1]
    assert [h.uri for h in sdk_local.search("zebras", collection="extra").results] == ["gno://extra/zebra.md"]
    assert sdk_local.collection_set("extra", memory_managed=True).memory_managed is True
    removed = sdk_local.collection_remove("extra")
    assert (removed.name, removed.removed_documents) == ("extra", 1)
    again = cli("collection", "remove", "extra", "--json")
    assert again.exit_code == 1 and again.error_code == "COLLECTION_NOT_FOUND"
    with pytest.raises(gno.GnoError) as ei:
        sdk_local.collection_add(str(env.tmp / "nowhere"))
    assert ei.value.code == "PATH_NOT_FOUND"


def test_bench_through_the_sdk_is_the_cli_bench(env: SurfaceEnv, sdk_local: Any, cli: CliRun) -> None:
    fixture = env.tmp / "bench.json"
    queries = [{"query": "deploy", "expected": ["gno://notes/deploy.md"]}]
    fixture.write_text(json.dumps({"version": 1, "queries": queries}), encoding="utf-8")
    got = sdk_local.bench(str(fixture), modes=["bm25"], top_k=3)
    out = cli("bench", str(fixture), "--mode", "bm25", "--top-k", "3", "--json").json
    assert [m.mode for m in got.modes] == [m["mode"] for m in out["modes"]] == ["bm25"]
    assert got.modes[0].recall == out["modes"][0]["recall"] == 1.0
    with pytest.raises(gno.ValidationError):
        sdk_local.bench(str(fixture), modes=[])
    assert cli("bench", str(fixture), "--top-k", "0", "--json").error_code == "VALIDATION"


@pytest.mark.parametrize("name", ["init", "collection_add", "embed", "index", "bench"])
def test_the_remote_sdk_refuses_what_has_no_rest_route_and_says_why(name: str, sdk_remote: Any) -> None:
    from gno.contract import NO_HTTP, capability

    required = {"path": "/tmp", "fixture": "/tmp/x.json"}
    fields = {f: required[f] for f, info in capability(name).request_model.model_fields.items() if info.is_required()}
    with pytest.raises(gno.ValidationError) as ei:
        sdk_remote.call(name, **fields)
    assert NO_HTTP[name] in ei.value.message and "gno.Client.open()" in ei.value.message


def test_the_demo_is_the_clis_alone(sdk_local: Any) -> None:
    with pytest.raises(gno.ValidationError) as ei:
        sdk_local.call("demo")
    assert "demo" in ei.value.message
