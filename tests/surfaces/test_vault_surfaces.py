"""similar, tags, doctor and collection rename answer the same on the CLI, MCP, REST and both SDKs.

Each capability runs on every surface against one real index (real SQLite, the MCP SDK's client,
the ASGI app, uvicorn over real HTTP for the remote SDK) and the results are compared as whole
objects; the writes (tags add/rm, rename) run once per surface and each is checked on the files.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import CliRun, McpDriver, SurfaceEnv

SURFACES = ("cli", "mcp", "rest", "sdk_local", "sdk_remote")
NOTES = {
    "deploy.md": None,  # the fixture's own
    "release.md": "# Release\n\nWe deploy the release on Tuesdays from the main branch after review.\n",
    "lunch.md": "# Lunch\n\nThe canteen serves soup and bread at noon.\n",
}


def _call(surface: str, cap: str, args: dict[str, Any], cli_words: list[str], request: pytest.FixtureRequest) -> Any:
    """One capability call on one surface; the result as its JSON object."""
    from pydantic.alias_generators import to_camel

    from gno.contract import BY_NAME

    c = BY_NAME[cap]
    if surface == "cli":
        cli: CliRun = request.getfixturevalue("cli")
        r = cli(*cli_words, "--json")
        assert r.exit_code in (0, 1), (r.exit_code, r.stdout, r.stderr)
        body = r.json
        assert "error" not in body, body
        return body
    if surface == "mcp":
        mcp: McpDriver = request.getfixturevalue("mcp_rw")
        assert c.tool_name is not None
        out = mcp.call(c.tool_name, {to_camel(k): v for k, v in args.items()})
        assert out.is_error is False, out
        return out.structured
    if surface == "rest":
        rest = request.getfixturevalue("rest")
        method, path = c.http
        params = dict(args)
        for name in [n for n in params if "{" + n + "}" in path]:
            path = path.replace("{" + name + "}", str(params.pop(name)))
        wire = {to_camel(k): v for k, v in params.items()}
        resp = rest.request(method, path, params=wire) if method == "GET" else rest.request(method, path, json=wire)
        assert resp.status_code == 200, resp.text
        return resp.json()
    client = request.getfixturevalue(surface)
    return client.call(cap, **args).dump()


@pytest.fixture
def vault(env: SurfaceEnv) -> SurfaceEnv:
    for name, text in NOTES.items():
        if text is not None:
            (env.notes / name).write_text(text, encoding="utf-8")
    (env.memory / "canteen.md").write_text("# Canteen\n\nSoup and bread are served at noon.\n", encoding="utf-8")
    env.models = {"embed": "fake:64"}
    env.write_config()
    env.engine.update()
    env.engine.embed()
    return env


@pytest.mark.parametrize("surface", SURFACES)
def test_similar_is_the_same_object_everywhere(surface: str, vault: SurfaceEnv, request: pytest.FixtureRequest) -> None:
    ref = vault.engine.similar("notes/deploy.md").dump()
    uris = [h["uri"] for h in ref["results"]]
    assert "gno://notes/deploy.md" not in uris  # never the document itself
    assert uris and all(u.startswith("gno://notes/") for u in uris)  # its own collection by default
    assert uris[0] == "gno://notes/release.md"  # the note about the same thing comes first
    got = _call(surface, "similar", {"ref": "notes/deploy.md"}, ["similar", "notes/deploy.md"], request)
    assert got == ref
    wide = _call(
        surface,
        "similar",
        {"ref": "notes/lunch.md", "cross_collection": True, "limit": 1},
        ["similar", "notes/lunch.md", "--cross-collection", "-n", "1"],
        request,
    )
    assert [h["uri"] for h in wide["results"]] == ["gno://memory/canteen.md"]


@pytest.mark.parametrize("surface", SURFACES)
def test_tags_list_add_and_rm_on_every_surface(surface: str, vault: SurfaceEnv, request: pytest.FixtureRequest) -> None:
    listed = _call(surface, "tags", {}, ["tags"], request)
    assert listed == vault.engine.tags().dump()
    assert {t["tag"]: t["count"] for t in listed["tags"]} == {"team": 1}
    path = vault.notes / "handbook.md"
    body = path.read_bytes().split(b"\n---\n", 1)[1]
    added = _call(
        surface,
        "tags_add",
        {"ref": "notes/handbook.md", "tags": ["ops", "#Team"]},
        ["tags", "add", "notes/handbook.md", "ops", "#Team"],
        request,
    )
    assert (added["changed"], added["added"], added["tags"]) == (True, ["ops"], ["ops", "team"])
    assert path.read_bytes().split(b"\n---\n", 1)[1] == body  # the body is untouched
    assert added["sourceHash"] == vault.engine.get("notes/handbook.md").source_hash  # re-indexed
    removed = _call(
        surface,
        "tags_rm",
        {"ref": "notes/handbook.md", "tags": ["team"]},
        ["tags", "rm", "notes/handbook.md", "team"],
        request,
    )
    assert (removed["removed"], removed["tags"]) == (["team"], ["ops"])
    assert path.read_bytes().split(b"\n---\n", 1)[1] == body
    assert 'tags: ["ops"]' in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("surface", SURFACES)
def test_doctor_reports_the_same_on_every_surface(
    surface: str, vault: SurfaceEnv, request: pytest.FixtureRequest
) -> None:
    ref = vault.engine.doctor().dump()
    assert ref["healthy"] is True, ref["findings"]
    got = _call(surface, "doctor", {}, ["doctor"], request)
    assert got == ref


def test_doctor_exits_1_with_findings_and_0_when_healthy(vault: SurfaceEnv, cli: CliRun) -> None:
    assert cli("doctor").exit_code == 0
    (vault.notes / "new.md").write_text("# New\n\nNot embedded yet.\n", encoding="utf-8")
    vault.engine.update()
    r = cli("doctor", "--json")
    assert r.exit_code == 1, r.stdout
    assert [f["code"] for f in r.json["findings"]] == ["VECTORS_MISSING"]
    assert r.json["findings"][0]["fix"] == "gno embed"
    text = cli("doctor")
    assert text.exit_code == 1 and "fix: gno embed" in text.stdout


@pytest.mark.parametrize("surface", SURFACES)
def test_collection_rename_on_every_surface(surface: str, vault: SurfaceEnv, request: pytest.FixtureRequest) -> None:
    before = {r.rel_path: r for r in _rows(vault)}
    got = _call(
        surface,
        "collection_rename",
        {"collection": "notes", "new_name": "kb"},
        ["collection", "rename", "notes", "kb"],
        request,
    )
    assert (got["oldName"], got["newName"], got["documents"]) == ("notes", "kb", len(before))
    assert vault.engine.collection_names() == ["memory", "kb"]
    after = {r.rel_path: r for r in _rows(vault)}
    for rel, row in after.items():
        assert row.uri == f"gno://kb/{rel}" and row.collection == "kb"
        # the same row, not re-read: docid, hashes, mtime and the time it was indexed are the old ones
        old = before[rel]
        assert (row.id, row.docid, row.source_hash, row.source_mtime_ns, row.indexed_at) == (
            old.id,
            old.docid,
            old.source_hash,
            old.source_mtime_ns,
            old.indexed_at,
        )
    assert vault.engine.get("gno://kb/deploy.md").docid == before["deploy.md"].docid
    assert vault.engine.similar("kb/deploy.md").results[0].uri == "gno://kb/release.md"  # vectors kept


def _rows(env: SurfaceEnv) -> list[Any]:
    from gno.store import documents as docs

    return [r for r in (docs.doc_by_path(env.engine.store, c, p) for c, p in _paths(env)) if r is not None]


def _paths(env: SurfaceEnv) -> list[tuple[str, str]]:
    rows = env.engine.store.conn.execute("SELECT collection, rel_path FROM documents WHERE collection != 'memory'")
    return [(str(r[0]), str(r[1])) for r in rows]
