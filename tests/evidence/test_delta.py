"""Knowledge Delta (rung 5): the change journal (`changes`, cursors, `--follow --jsonl`), `diff`,
`impact`, `links` and `backlinks`, on the CLI and the engine, with REST/MCP/SDK spot checks."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

import pytest

from gno.errors import ErrorCode, GnoError, NotFoundError, ValidationError
from gno.models import ChangeEvent

from .conftest import KB, Cli, MakeKB, mcp_call

SECRET_WORD = "quokkabody"  # occurs only in note bodies: the journal must never retain it


def sha(path: Any) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kinds(events: list[ChangeEvent]) -> list[tuple[str, str]]:
    return [(e.kind, (e.current or e.previous or {}).get("relPath", "")) for e in events]


def delete_journal_rows(kb: KB, up_to: int) -> None:
    """Simulate retention: drop the journal's oldest rows directly in the database."""
    conn = sqlite3.connect(kb.settings.db_path)
    try:
        conn.execute("DELETE FROM document_changes WHERE id <= ?", (up_to,))
        conn.commit()
    finally:
        conn.close()


# -- the lifecycle ---------------------------------------------------------------------------


@pytest.fixture
def lifecycle(make_kb: MakeKB) -> KB:
    """c1 create a.md · c2 create b.md · c3 update a.md · c4 rename b.md→moved/b2.md ·
    c5 inactivate a.md · c6 reactivate a.md (its last bytes restored)."""
    kb = make_kb({"a.md": f"# Alpha\n\nFirst {SECRET_WORD} version.\n"})
    kb.write("b.md", f"# Beta\n\nBeta {SECRET_WORD} body.\n")
    kb.sync()
    kb.write("a.md", f"# Alpha\n\nSecond {SECRET_WORD} version.\n\n## Added later\n\nMore.\n")
    kb.sync()
    kb.path("moved").mkdir()
    kb.path("b.md").rename(kb.path("moved/b2.md"))
    kb.sync()
    saved = kb.path("a.md").read_bytes()
    kb.path("a.md").unlink()
    kb.sync()
    kb.path("a.md").write_bytes(saved)
    kb.sync()
    return kb


LIFECYCLE = [
    ("create", "a.md"),
    ("create", "b.md"),
    ("update", "a.md"),
    ("rename", "moved/b2.md"),
    ("inactivate", "a.md"),
    ("reactivate", "a.md"),
]


def test_changes_across_create_edit_rename_delete_restore(lifecycle: KB) -> None:
    kb = lifecycle
    r = kb.engine.changes()
    assert r.schema_version == "1.0"
    assert kinds(r.changes) == LIFECYCLE
    assert [e.id for e in r.changes] == [f"c{i}" for i in range(1, 7)]
    assert all(e.collection == "kb" for e in r.changes)
    assert [e.observed_at for e in r.changes] == sorted(e.observed_at for e in r.changes)
    create_a, create_b, upd, ren, inact, react = r.changes

    assert create_a.previous is None
    assert create_a.current is not None and create_a.current["uri"] == "gno://kb/a.md"
    assert create_a.current["active"] is True

    assert upd.previous is not None and upd.current is not None
    assert upd.previous["sourceHash"] == create_a.current["sourceHash"]
    assert upd.current["sourceHash"] == sha(kb.path("a.md"))
    assert upd.current["docid"] == "#" + upd.current["sourceHash"][:8]

    assert ren.previous is not None and ren.current is not None
    assert (ren.previous["relPath"], ren.current["relPath"]) == ("b.md", "moved/b2.md")
    assert (ren.previous["uri"], ren.current["uri"]) == ("gno://kb/b.md", "gno://kb/moved/b2.md")
    assert ren.previous["sourceHash"] == ren.current["sourceHash"] == create_b.current["sourceHash"]  # type: ignore[index]

    assert inact.previous is not None and inact.current is not None
    assert inact.previous["active"] is True and inact.current["active"] is False
    assert react.current is not None and react.current["active"] is True
    assert react.current["sourceHash"] == upd.current["sourceHash"]

    for e in r.changes:
        snap = e.current or {}
        assert set(snap) == {"relPath", "docid", "uri", "sourceHash", "mirrorHash", "active"}
    assert r.page.earliest_cursor == "c1" and r.page.latest_cursor == "c6"
    assert r.page.next_cursor == "c6" and r.page.truncated is False
    # metadata only: no body text anywhere in the journal
    assert SECRET_WORD not in json.dumps(r.dump())


def test_cli_changes_text_and_json(lifecycle: KB, cli: Cli) -> None:
    r = cli("changes", "--json")
    assert r.exit_code == 0
    assert [(c["kind"], c["id"]) for c in r.json["changes"]] == [(k, f"c{i}") for i, (k, _) in enumerate(LIFECYCLE, 1)]
    assert r.json["page"]["nextCursor"] == "c6"
    r = cli("changes", "--limit", "2")
    assert r.exit_code == 0
    lines = r.stdout.strip().split("\n")
    assert lines[0].split()[0] == "c1" and "create" in lines[0] and "gno://kb/a.md" in lines[0]
    assert lines[-1] == "(next: gno changes --since c2)"


def test_cursor_pages_forward(lifecycle: KB, cli: Cli) -> None:
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        r = kb_changes(lifecycle, since=cursor, limit=4)
        pages += 1
        seen += [e.id for e in r.changes]
        if not r.page.truncated:
            break
        cursor = r.page.next_cursor
    assert pages == 2
    assert seen == [f"c{i}" for i in range(1, 7)]
    r = lifecycle.engine.changes(since="c2", limit=2)
    assert [e.id for e in r.changes] == ["c3", "c4"]
    assert r.page.next_cursor == "c4" and r.page.truncated is True
    r = lifecycle.engine.changes(since="c4", limit=2)
    assert [e.id for e in r.changes] == ["c5", "c6"]
    assert r.page.truncated is False
    # at the head: an empty page that keeps the cursor
    r = lifecycle.engine.changes(since="c6")
    assert r.changes == [] and r.page.next_cursor == "c6"
    # a new change shows up after the saved cursor
    lifecycle.write("c.md", "# Gamma\n\nNew.\n")
    lifecycle.sync()
    r = lifecycle.engine.changes(since="c6")
    assert kinds(r.changes) == [("create", "c.md")] and r.changes[0].id == "c7"
    out = cli("changes", "--since", "c4", "--limit", "1", "--json")
    assert out.exit_code == 0
    assert [c["id"] for c in out.json["changes"]] == ["c5"]
    assert out.json["page"]["nextCursor"] == "c5" and out.json["page"]["truncated"] is True


def kb_changes(kb: KB, **kw: Any) -> Any:
    return kb.engine.changes(**kw)


def test_changes_since_iso(lifecycle: KB, cli: Cli) -> None:
    all_events = lifecycle.engine.changes().changes
    pivot = all_events[3].observed_at  # the rename's sync
    r = lifecycle.engine.changes(since=pivot)
    assert [e.id for e in r.changes] == [e.id for e in all_events if e.observed_at >= pivot]
    # c4 and everything after it; an earlier event only when it shares c4's timestamp (same millisecond)
    assert "c4" in [e.id for e in r.changes]
    assert all(e.observed_at == pivot for e in r.changes[: [e.id for e in r.changes].index("c4")])
    assert lifecycle.engine.changes(since="2000-01-01T00:00:00Z").changes == all_events
    assert lifecycle.engine.changes(since="2999-01-01T00:00:00Z").changes == []
    r = lifecycle.engine.changes(since="2000-01-01", limit=2)
    assert [e.id for e in r.changes] == ["c1", "c2"] and r.page.truncated is True
    out = cli("changes", "--since", pivot, "--json")
    assert out.exit_code == 0
    assert [c["id"] for c in out.json["changes"]] == [e.id for e in all_events if e.observed_at >= pivot]


def test_changes_rejects_a_malformed_since(lifecycle: KB) -> None:
    for bad in ("c12x", "yesterday"):
        with pytest.raises(ValidationError):
            lifecycle.engine.changes(since=bad)


def test_changes_collection_filter(make_kb: MakeKB, cli: Cli) -> None:
    kb = make_kb({"a.md": "# A\n\nA.\n"}, more={"side": {"s.md": "# S\n\nS.\n"}})
    kb.write("a2.md", "# A2\n\nA2.\n")
    (kb.extra_collections["side"] / "s.md").unlink()
    kb.sync()
    everything = kb.engine.changes()
    assert sorted(e.collection for e in everything.changes) == ["kb", "kb", "side", "side"]
    side = kb.engine.changes(collection="side")
    assert [(e.kind, e.collection) for e in side.changes] == [("create", "side"), ("inactivate", "side")]
    page = kb.engine.changes(collection="kb", limit=1)
    assert [e.collection for e in page.changes] == ["kb"] and page.page.truncated is True
    nxt = kb.engine.changes(collection="kb", since=page.page.next_cursor, limit=5)
    assert [(e.kind, (e.current or {}).get("relPath")) for e in nxt.changes] == [("create", "a2.md")]
    r = cli("changes", "-c", "side", "--json")
    assert r.exit_code == 0 and {c["collection"] for c in r.json["changes"]} == {"side"}
    r = cli("changes", "-c", "nope", "--json")
    assert r.exit_code == 1 and r.json["error"]["code"] == "COLLECTION_NOT_FOUND"


def test_changes_limit_bounds(lifecycle: KB, cli: Cli) -> None:
    for bad in (0, 1001):
        with pytest.raises(ValidationError):
            lifecycle.engine.changes(limit=bad)
    assert cli("changes", "--limit", "0", "--json").exit_code == 1


# -- expired cursors ---------------------------------------------------------------------------


def test_expired_cursor(lifecycle: KB, cli: Cli, rest: Any) -> None:
    delete_journal_rows(lifecycle, 3)  # c1..c3 fell out of retention
    with pytest.raises(GnoError) as exc:
        lifecycle.engine.changes(since="c1")
    err = exc.value
    assert err.code == ErrorCode.CURSOR_EXPIRED
    assert err.details == {"error": "cursor_expired", "earliestCursor": "c4", "latestCursor": "c6"}
    with pytest.raises(GnoError):
        lifecycle.engine.changes(since="c2")
    # c3 is the position just before the earliest retained change: still resumable
    assert [e.id for e in lifecycle.engine.changes(since="c3").changes] == ["c4", "c5", "c6"]
    head = lifecycle.engine.changes()
    assert [e.id for e in head.changes] == ["c4", "c5", "c6"] and head.page.earliest_cursor == "c4"

    r = cli("changes", "--since", "c1", "--json")
    assert r.exit_code == 2
    assert r.json["error"]["code"] == "CURSOR_EXPIRED"
    assert r.json["error"]["details"]["earliestCursor"] == "c4"
    resp = rest(lifecycle.engine).get("/api/changes", params={"since": "c1"})
    assert resp.status_code == 410 and resp.json()["error"]["code"] == "CURSOR_EXPIRED"
    out = mcp_call(lifecycle.engine, "gno_changes", {"since": "c1"})
    assert out.is_error and out.structured is not None
    assert out.structured["error"]["code"] == "CURSOR_EXPIRED"


def test_the_journal_keeps_its_retention_and_expires_older_cursors(
    make_kb: MakeKB, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("gno.store.documents.JOURNAL_RETENTION", 3)
    kb = make_kb({f"n{i}.md": f"# Note {i}\n\nBody {i}.\n" for i in range(5)})  # c1..c5 in one sync
    head = kb.engine.changes()
    assert [e.id for e in head.changes] == ["c3", "c4", "c5"] and head.page.earliest_cursor == "c3"
    kb.write("n0.md", "# Note 0\n\nEdited, and longer now.\n")
    kb.sync()  # c6: the oldest event goes
    assert [e.id for e in kb.engine.changes().changes] == ["c4", "c5", "c6"]
    with pytest.raises(GnoError) as exc:
        kb.engine.changes(since="c2")
    assert exc.value.code == ErrorCode.CURSOR_EXPIRED and exc.value.details["earliestCursor"] == "c4"
    assert [e.id for e in kb.engine.changes(since="c3").changes] == ["c4", "c5", "c6"]


# -- --follow --jsonl ---------------------------------------------------------------------------


def test_follow_jsonl_prints_events_with_post_cursors(lifecycle: KB, cli: Cli) -> None:
    r = cli("changes", "--follow", "--jsonl", "--idle-exit", "1")
    assert r.exit_code == 0, r.stdout
    lines = r.jsonl()
    assert [set(x) for x in lines] == [{"event", "postCursor"}] * 6
    assert [x["postCursor"] for x in lines] == [f"c{i}" for i in range(1, 7)]
    assert [x["event"]["id"] for x in lines] == [x["postCursor"] for x in lines]
    assert [(x["event"]["kind"], (x["event"].get("current") or {}).get("relPath")) for x in lines] == LIFECYCLE
    # small pages: --follow keeps paging until the head
    r = cli("changes", "--follow", "--jsonl", "--idle-exit", "1", "--limit", "2")
    assert [x["postCursor"] for x in r.jsonl()] == [f"c{i}" for i in range(1, 7)]
    # resume from a saved post-cursor
    r = cli("changes", "--follow", "--jsonl", "--idle-exit", "1", "--cursor", "c4")
    assert r.exit_code == 0
    assert [x["postCursor"] for x in r.jsonl()] == ["c5", "c6"]
    r = cli("changes", "--follow", "--jsonl", "--idle-exit", "1", "--cursor", "c6")
    assert r.exit_code == 0 and r.stdout.strip() == ""


def test_follow_expired_cursor_prints_one_error_line_and_exits_2(lifecycle: KB, cli: Cli) -> None:
    delete_journal_rows(lifecycle, 3)
    r = cli("changes", "--follow", "--jsonl", "--idle-exit", "1", "--cursor", "c1")
    assert r.exit_code == 2
    lines = r.stdout.strip().split("\n")
    assert len(lines) == 1
    assert json.loads(lines[0]) == {"error": "cursor_expired", "earliestCursor": "c4", "latestCursor": "c6"}


# -- structural delta and diff -------------------------------------------------------------------

BEFORE = (
    "---\ndate: 2024-01-01\nrelations:\n  depends_on: [gno://kb/base.md]\n---\n# Service\n\n"
    f"Links to [[base]] and [the guide](guide.md). {SECRET_WORD}\n"
)
AFTER = (
    "---\ndate: 2024-02-01\nrelations:\n  depends_on: [gno://kb/base.md]\n  owned_by: [gno://kb/team.md]\n---\n"
    f"# Service\n\nLinks to [the guide](guide.md) only. {SECRET_WORD}\n\n## Runbook\n\nSteps.\n"
)


@pytest.fixture
def edited(make_kb: MakeKB) -> KB:
    kb = make_kb(
        {
            "svc.md": BEFORE,
            "base.md": "# Base\n\nBase.\n",
            "guide.md": "# Guide\n\nGuide.\n",
            "team.md": "# Team\n\nTeam.\n",
        }
    )
    kb.write("svc.md", AFTER)
    kb.sync()
    return kb


def test_structural_delta_of_an_edit(edited: KB) -> None:
    ev = edited.engine.changes().changes
    create = next(e for e in ev if e.kind == "create" and (e.current or {}).get("relPath") == "svc.md")
    assert create.structure_delta is None  # everything in a new document is new: no delta to record

    upd = ev[-1]
    assert upd.kind == "update" and (upd.current or {}).get("relPath") == "svc.md"
    d = upd.structure_delta
    assert d is not None
    assert d["headings"] == {"added": ["Runbook"], "removed": []}
    assert d["links"] == {"added": [], "removed": ["wiki:base"]}
    assert d["typedEdges"] == {"added": ["owned_by:gno://kb/team.md"], "removed": []}
    assert d["dates"] == {"added": [], "removed": [],
                          "changed": [{"field": "date", "from": "2024-01-01", "to": "2024-02-01"}]}
    assert d["truncated"] is False
    assert SECRET_WORD not in json.dumps([e.dump() for e in ev])


def test_structural_delta_reports_changed_dates(edited: KB) -> None:
    d = edited.engine.changes().changes[-1].structure_delta
    assert d is not None and "changed" in d["dates"]
    assert any("date" in json.dumps(x) for x in d["dates"]["changed"])


def test_structural_delta_marks_cut_lists_truncated(make_kb: MakeKB) -> None:
    body = "\n\n".join(f"## Section {i:03d}\n\nText {i}." for i in range(60))
    kb = make_kb({"big.md": "# Big\n\nSmall.\n"})
    kb.write("big.md", "# Big\n\n" + body + "\n")
    kb.sync()
    d = kb.engine.changes().changes[-1].structure_delta
    assert d is not None
    assert len(d["headings"]["added"]) == 50  # bounded
    assert d["truncated"] is True


def test_diff_of_an_edited_document(edited: KB, cli: Cli, rest: Any) -> None:
    r = edited.engine.diff("kb/svc.md")
    assert r.status == "available"
    assert r.document["uri"] == "gno://kb/svc.md"
    assert r.document["relPath"] == "svc.md" and r.document["active"] is True
    assert r.document["docid"] == "#" + sha(edited.path("svc.md"))[:8]
    assert r.change is not None and r.change.kind == "update"
    assert r.change.structure_delta is not None
    assert r.change.structure_delta["headings"]["added"] == ["Runbook"]
    assert r.content["status"] == "structural_only"
    latest = r.change.id
    # an older change of the same document, by id
    first = edited.engine.changes().changes[0]
    assert (first.current or {}).get("relPath") in {"svc.md", "base.md", "guide.md", "team.md"}
    creates = [e for e in edited.engine.changes().changes if e.kind == "create"]
    svc_create = next(e for e in creates if (e.current or {})["relPath"] == "svc.md")
    old = edited.engine.diff("gno://kb/svc.md", svc_create.id)
    assert old.change is not None and old.change.id == svc_create.id and old.change.kind == "create"
    other = next(e for e in creates if (e.current or {})["relPath"] == "base.md")
    with pytest.raises(NotFoundError):
        edited.engine.diff("kb/svc.md", other.id)
    out = cli("diff", "kb/svc.md", "--json")
    assert out.exit_code == 0 and out.json["change"]["id"] == latest
    out = cli("diff", "kb/svc.md")
    assert out.exit_code == 0
    assert "gno://kb/svc.md: available" in out.stdout
    assert "headings: +['Runbook']" in out.stdout and "links: +[] -['wiki:base']" in out.stdout
    resp = rest(edited.engine).get("/api/diff", params={"ref": "kb/svc.md"})
    assert resp.status_code == 200 and resp.json()["change"]["id"] == latest
    m = mcp_call(edited.engine, "gno_diff", {"ref": "kb/svc.md"})
    assert not m.is_error and m.structured is not None and m.structured["change"]["id"] == latest


def test_diff_of_a_renamed_document(lifecycle: KB) -> None:
    r = lifecycle.engine.diff("kb/moved/b2.md")
    assert r.change is not None and r.change.kind == "rename"
    assert r.document["relPath"] == "moved/b2.md"


def test_diff_of_a_deleted_document(make_kb: MakeKB) -> None:
    kb = make_kb({"gone.md": "# Gone\n\nSoon deleted.\n", "keep.md": "# Keep\n\nStays.\n"})
    kb.path("gone.md").unlink()
    kb.sync()
    r = kb.engine.diff("kb/gone.md")
    assert r.document["active"] is False
    assert r.change is not None and r.change.kind == "inactivate"


def test_diff_unknown_document(lifecycle: KB, cli: Cli) -> None:
    with pytest.raises(NotFoundError):
        lifecycle.engine.diff("kb/nope.md")
    r = cli("diff", "kb/nope.md", "--json")
    assert r.exit_code == 1 and r.json["error"]["code"] == "NOT_FOUND"


# -- impact ---------------------------------------------------------------------------------------

GRAPH = {
    "a.md": "# Alpha\n\nThe base service.\n",
    "b.md": "# Beta\n\nBeta builds on [[a]].\n",
    "c.md": "# Gamma\n\nGamma calls [beta](b.md).\n",
    "d.md": "---\nrelations:\n  depends_on: [gno://kb/a.md]\n---\n# Delta\n\nDeclares a typed dependency.\n",
    "e.md": "# Epsilon\n\nEpsilon wraps [[c|Gamma]] for clients.\n",
    "lone.md": "# Lone\n\nNo links at all; see https://example.com/a.md for nothing.\n",
}


@pytest.fixture
def graph(make_kb: MakeKB) -> KB:
    return make_kb(GRAPH)


def path_of(node: Any) -> list[tuple[str, str, str, str]]:
    return [(s.source, s.target, s.edge_type, s.confidence) for s in node.evidence_path]


def test_impact_walks_the_dependency_chain(graph: KB) -> None:
    r = graph.engine.impact("kb/a.md")
    assert r.root == "gno://kb/a.md"
    got = {n.uri: n for n in r.impacted}
    assert set(got) == {"gno://kb/b.md", "gno://kb/c.md", "gno://kb/d.md", "gno://kb/e.md"}
    assert {u: n.depth for u, n in got.items()} == {
        "gno://kb/b.md": 1,
        "gno://kb/d.md": 1,
        "gno://kb/c.md": 2,
        "gno://kb/e.md": 3,
    }
    assert [n.depth for n in r.impacted] == sorted(n.depth for n in r.impacted)
    assert path_of(got["gno://kb/b.md"]) == [("gno://kb/b.md", "gno://kb/a.md", "wiki", "parsed")]
    assert path_of(got["gno://kb/d.md"]) == [("gno://kb/d.md", "gno://kb/a.md", "depends_on", "explicit")]
    assert path_of(got["gno://kb/c.md"]) == [
        ("gno://kb/c.md", "gno://kb/b.md", "markdown", "parsed"),
        ("gno://kb/b.md", "gno://kb/a.md", "wiki", "parsed"),
    ]
    assert path_of(got["gno://kb/e.md"]) == [
        ("gno://kb/e.md", "gno://kb/c.md", "wiki", "parsed"),
        ("gno://kb/c.md", "gno://kb/b.md", "markdown", "parsed"),
        ("gno://kb/b.md", "gno://kb/a.md", "wiki", "parsed"),
    ]
    assert [s.line for s in got["gno://kb/c.md"].evidence_path] == [3, 3]
    assert got["gno://kb/b.md"].title == "Beta"
    assert r.meta["returnedNodes"] == 4 and r.meta["truncated"] is False
    assert (r.meta["maxDepth"], r.meta["maxNodes"], r.meta["maxEdges"]) == (3, 100, 250)
    # the middle of the chain: only what depends on it
    mid = graph.engine.impact("kb/b.md")
    assert {(n.uri, n.depth) for n in mid.impacted} == {("gno://kb/c.md", 1), ("gno://kb/e.md", 2)}
    assert graph.engine.impact("kb/e.md").impacted == []
    assert graph.engine.impact("kb/lone.md").impacted == []


def test_impact_bounds(graph: KB) -> None:
    r = graph.engine.impact("kb/a.md", max_depth=1)
    assert {(n.uri, n.depth) for n in r.impacted} == {("gno://kb/b.md", 1), ("gno://kb/d.md", 1)}
    r = graph.engine.impact("kb/a.md", max_depth=2)
    assert {n.uri for n in r.impacted} == {"gno://kb/b.md", "gno://kb/c.md", "gno://kb/d.md"}
    r = graph.engine.impact("kb/a.md", max_nodes=1)
    assert len(r.impacted) == 1 and r.meta["truncated"] is True and r.meta["returnedNodes"] == 1
    assert r.impacted[0].depth == 1
    r = graph.engine.impact("kb/a.md", max_edges=1)
    assert len(r.impacted) == 1 and r.meta["truncated"] is True
    assert r.meta["returnedEdges"] <= 1
    for kw in ({"max_depth": 0}, {"max_depth": 7}, {"max_nodes": 0}, {"max_edges": 0}):
        with pytest.raises(ValidationError):
            graph.engine.impact("kb/a.md", **kw)
    with pytest.raises(NotFoundError):
        graph.engine.impact("kb/zzz.md")


def test_impact_survives_cycles(graph: KB) -> None:
    graph.write("a.md", "# Alpha\n\nThe base service, wrapped by [[e]].\n")
    graph.sync()
    r = graph.engine.impact("kb/a.md", max_depth=6)
    uris = [n.uri for n in r.impacted]
    assert len(uris) == len(set(uris)) == 4
    assert "gno://kb/a.md" not in uris


def test_impact_follows_renames_and_deletions(graph: KB) -> None:
    graph.path("b.md").unlink()
    graph.sync()
    r = graph.engine.impact("kb/a.md")
    assert {n.uri for n in r.impacted} == {"gno://kb/d.md"}


def test_cli_impact(graph: KB, cli: Cli, rest: Any) -> None:
    r = cli("impact", "kb/a.md", "--max-depth", "1", "--json")
    assert r.exit_code == 0
    assert sorted(n["uri"] for n in r.json["impacted"]) == ["gno://kb/b.md", "gno://kb/d.md"]
    assert r.json["meta"]["maxDepth"] == 1
    r = cli("impact", "kb/a.md", "--max-nodes", "1", "--json")
    assert r.exit_code == 0 and r.json["meta"]["truncated"] is True and len(r.json["impacted"]) == 1
    r = cli("impact", "kb/a.md")
    assert r.exit_code == 0
    assert r.stdout.startswith("impact of gno://kb/a.md: 4 documents\n")
    assert "depth 2  gno://kb/c.md  via c.md → b.md → a.md" in r.stdout
    r = cli("impact", "kb/a.md", "--max-depth", "9", "--json")
    assert r.exit_code == 1 and r.json["error"]["code"] == "VALIDATION"
    resp = rest(graph.engine).get("/api/impact", params={"ref": "kb/a.md", "maxDepth": 2})
    assert resp.status_code == 200
    assert {n["uri"] for n in resp.json()["impacted"]} == {"gno://kb/b.md", "gno://kb/c.md", "gno://kb/d.md"}
    m = mcp_call(graph.engine, "gno_impact", {"ref": "gno://kb/a.md", "maxNodes": 2})
    assert not m.is_error and m.structured is not None
    assert len(m.structured["impacted"]) == 2 and m.structured["meta"]["truncated"] is True


# -- links and backlinks -----------------------------------------------------------------------------

LINKS = {
    "target.md": "# Target\n\n## Setup\n\nThe target note.\n",
    "wiki.md": "# Wiki\n\nSee [[target]].\n\nAgain [[Target|the target]] and [[target#Setup]].\n",
    "md.md": "# Markdown\n\nRead [the note](target.md) and [external](https://example.com/target.md).\n",
    "typed.md": "---\nrelations:\n  implements: [gno://kb/target.md]\n---\n# Typed\n\nNo body links.\n",
    "dangling.md": "# Dangling\n\nPoints at [[nowhere]].\n",
}


@pytest.fixture
def linked(make_kb: MakeKB) -> KB:
    return make_kb(LINKS)


def test_links_outgoing(linked: KB) -> None:
    r = linked.engine.links("kb/wiki.md")
    assert r.uri == "gno://kb/wiki.md" and r.direction == "out"
    assert [(x.uri, x.edge_type, x.line, x.target_ref) for x in r.links] == [
        ("gno://kb/target.md", "wiki", 3, "target"),
        ("gno://kb/target.md", "wiki", 5, "Target"),
    ]
    r = linked.engine.links("kb/md.md")
    assert [(x.uri, x.edge_type, x.confidence, x.line) for x in r.links] == [
        ("gno://kb/target.md", "markdown", "parsed", 3)
    ]
    r = linked.engine.links("kb/typed.md")
    assert [(x.uri, x.edge_type, x.confidence, x.target_ref) for x in r.links] == [
        ("gno://kb/target.md", "implements", "explicit", "gno://kb/target.md")
    ]
    assert linked.engine.links("kb/dangling.md").links == []
    assert linked.engine.links("kb/target.md").links == []


def test_backlinks(linked: KB, cli: Cli, rest: Any) -> None:
    r = linked.engine.backlinks("kb/target.md")
    assert r.direction == "in"
    got = sorted((x.uri, x.edge_type) for x in r.links)
    assert ("gno://kb/md.md", "markdown") in got
    assert ("gno://kb/typed.md", "implements") in got
    assert ("gno://kb/wiki.md", "wiki") in got
    assert {u for u, _ in got} == {"gno://kb/md.md", "gno://kb/typed.md", "gno://kb/wiki.md"}
    assert all(x.title for x in r.links)
    out = cli("backlinks", "kb/target.md")
    assert out.exit_code == 0
    assert "← gno://kb/typed.md  [implements]" in out.stdout
    assert "← gno://kb/md.md  [markdown] line 3" in out.stdout
    out = cli("links", "kb/md.md", "--json")
    assert out.exit_code == 0 and [x["edgeType"] for x in out.json["links"]] == ["markdown"]
    assert cli("links", "kb/dangling.md").stdout.strip() == "No links."
    assert cli("backlinks", "kb/dangling.md").stdout.strip() == "No backlinks."
    resp = rest(linked.engine).get("/api/backlinks", params={"ref": "kb/target.md"})
    assert resp.status_code == 200 and len(resp.json()["links"]) == len(r.links)
    m = mcp_call(linked.engine, "gno_links", {"ref": "kb/typed.md"})
    assert not m.is_error and m.structured is not None
    assert m.structured["links"][0]["edgeType"] == "implements"
    m = mcp_call(linked.engine, "gno_backlinks", {"ref": "kb/target.md"})
    assert not m.is_error and m.structured is not None and len(m.structured["links"]) == len(r.links)


def test_backlinks_follow_the_index(linked: KB) -> None:
    linked.path("wiki.md").unlink()
    linked.write("dangling.md", "# Dangling\n\nNow points at [[target]].\n")
    linked.sync()
    uris = {x.uri for x in linked.engine.backlinks("kb/target.md").links}
    assert "gno://kb/wiki.md" not in uris
    assert "gno://kb/dangling.md" in uris


def test_sdk_delta_methods(graph: KB) -> None:
    import gno

    client = gno.Client.open()
    try:
        assert [c.kind for c in client.changes().changes] == ["create"] * len(GRAPH)
        assert {n.uri for n in client.impact("kb/a.md", max_depth=1).impacted} == {
            "gno://kb/b.md",
            "gno://kb/d.md",
        }
        assert [x.uri for x in client.links("kb/b.md").links] == ["gno://kb/a.md"]
        assert {x.uri for x in client.backlinks("kb/a.md").links} == {"gno://kb/b.md", "gno://kb/d.md"}
        assert client.diff("kb/a.md").change is not None
    finally:
        client.close()
