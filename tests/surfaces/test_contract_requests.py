"""Retry-safe writes on every surface: a retried request replays, and every REQUEST_* code end to end.

Positive: a capture, a remember and (REST/SDK) an edit made twice with one request ID write once,
the second answer is the first one marked `replayed`, and `request_status` reports it committed
on every surface. Negative: each REQUEST_* code is driven through the CLI, MCP, REST and both SDK
transports from a real ledger state (a committed row aged past retention, a pending row whose
writer still holds the lease, a pending row whose planned file now holds other bytes, a full
ledger, a damaged ledger file); a refused write leaves every file as it was.
"""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

import pytest

from gno.errors import ErrorCode as E
from gno.writes.capture import CaptureRequest

from .code_table import LOCAL
from .conftest import CALLER, SCOPE, SESSION, CliRun, McpDriver, SurfaceEnv
from .drive import DRIVEN, Call
from .test_contract_codes import Case
from .test_contract_codes import test_state_error_contract as state_error_contract

RID = "retry-1"
NOTE = "A note captured once"
CAPTURE = Call(
    "capture",
    {"content": NOTE, "collection": "notes", "request_id": RID},
    ("capture", "--json", "-c", "notes", "--request-id", RID, "--", NOTE),
)
ID = ("--caller", CALLER, "--session", SESSION)


def _captured(env: SurfaceEnv) -> None:
    env.engine.capture(CaptureRequest(content=NOTE, collection="notes", request_id=RID))


def _ledger(env: SurfaceEnv, sql: str, *args: Any) -> None:
    with contextlib.closing(sqlite3.connect(env.settings.requests_path)) as db:
        db.execute(sql, args)
        db.commit()


def _expired(env: SurfaceEnv) -> None:
    _captured(env)
    _ledger(env, "UPDATE requests SET committed_at = '2000-01-01T00:00:00.000Z'")


def _pending(env: SurfaceEnv) -> None:
    """The first attempt recorded its plan and still writes (its lease is held: see `hold`)."""
    _captured(env)
    _ledger(env, "UPDATE requests SET status = 'pending', result_json = NULL, committed_at = NULL")


def _planned_file_changed(env: SurfaceEnv) -> None:
    """A pending attempt's planned note was changed by someone else before the retry came."""
    _pending(env)
    for p in (env.notes / "inbox").rglob("*.md"):
        p.write_text("# Someone else's words\n", encoding="utf-8")


def _full(env: SurfaceEnv) -> None:
    """100,000 outcomes of the last 30 days (none may be dropped): a new ID finds no room."""
    env.engine.request_status("r0")  # creates the ledger file
    at = "2999-01-01T00:00:00.000Z"
    rows = [(f"r{i}", "capture", "x", "committed", at, at) for i in range(100_000)]
    with contextlib.closing(sqlite3.connect(env.settings.requests_path)) as db:
        db.executemany(
            "INSERT INTO requests (request_id, operation, intent, status, created_at, committed_at, result_json) "
            "VALUES (?, ?, ?, ?, ?, ?, '{}')",
            rows,
        )
        db.commit()


def _damaged(env: SurfaceEnv) -> None:
    env.settings.requests_path.parent.mkdir(parents=True, exist_ok=True)
    env.settings.requests_path.write_bytes(b"not a database, just bytes " * 200)


OTHER = Call(
    "capture",
    {"content": "Other words", "collection": "notes", "request_id": RID},
    ("capture", "--json", "-c", "notes", "--request-id", RID, "--", "Other words"),
)
BAD_ID = Call(
    "capture",
    {"content": NOTE, "collection": "notes", "request_id": "no spaces allowed"},
    ("capture", "--json", "-c", "notes", "--request-id", "no spaces allowed", "--", NOTE),
)
PROPOSAL_ID = Call(
    "remember",
    {"text": "Deploys freeze on Fridays", "scopes": [SCOPE], "request_id": RID},
    ("remember", "--json", *ID, "-s", SCOPE, "--request-id", RID, "--", "Deploys freeze on Fridays"),
)
CASES = [
    Case(E.REQUEST_ID_INVALID, BAD_ID),
    Case(E.REQUEST_ID_INVALID, PROPOSAL_ID),
    Case(E.REQUEST_ID_CONFLICT, OTHER, _captured),
    Case(E.REQUEST_EXPIRED, CAPTURE, _expired),
    Case(E.REQUEST_PENDING, CAPTURE, _pending, hold=lambda env: env.engine.lease(0), environ={"GNO_LOCK_WAIT": "0.2s"}),
    Case(E.REQUEST_RECOVERY_CONFLICT, CAPTURE, _planned_file_changed),
    Case(E.REQUEST_CAPACITY_EXHAUSTED, CAPTURE, _full),
    Case(E.REQUEST_LEDGER_UNAVAILABLE, CAPTURE, _damaged),
]
DRIVEN.update((c.code, s) for c in CASES for s in LOCAL)


@pytest.mark.parametrize(
    ("case", "surface"), [pytest.param(c, s, id=f"{c.code}-{c.call.capability}-{s}") for c in CASES for s in LOCAL]
)
def test_request_error_contract(
    case: Case, surface: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state cases' own test (setup, the held lease, every file unchanged after the refusal)."""
    state_error_contract(case, surface, request, monkeypatch)


# -- a retried request replays on every surface ----------------------------------------------------


def _capture_on(surface: str, request: pytest.FixtureRequest, rid: str) -> dict[str, Any]:
    content = f"Captured once through {surface}"
    if surface == "cli":
        cli: CliRun = request.getfixturevalue("cli")
        r = cli("capture", "--json", "-c", "notes", "--request-id", rid, "--", content)
        assert r.exit_code == 0, r.stdout
        return dict(r.json)
    if surface == "mcp":
        mcp: McpDriver = request.getfixturevalue("mcp_rw")
        out = mcp.call("gno_capture", {"content": content, "collection": "notes", "requestId": rid})
        assert not out.is_error and out.structured is not None, out
        return out.structured
    if surface == "rest":
        resp = request.getfixturevalue("rest").post(
            "/api/capture", json={"content": content, "collection": "notes", "requestId": rid}
        )
        assert resp.status_code in (200, 201), resp.text
        return dict(resp.json())
    return dict(request.getfixturevalue(surface).capture(content, collection="notes", request_id=rid).dump())


def _status_on(surface: str, request: pytest.FixtureRequest, rid: str) -> dict[str, Any]:
    if surface == "cli":
        r = request.getfixturevalue("cli")("request-status", "--json", rid)
        assert r.exit_code == 0, r.stdout
        return dict(r.json)
    if surface == "mcp":
        out = request.getfixturevalue("mcp_rw").call("gno_request_status", {"requestId": rid})
        assert not out.is_error and out.structured is not None, out
        return out.structured
    if surface == "rest":
        resp = request.getfixturevalue("rest").get(f"/api/requests/{rid}")
        assert resp.status_code == 200, resp.text
        return dict(resp.json())
    return dict(request.getfixturevalue(surface).request_status(rid).dump())


@pytest.mark.parametrize("surface", LOCAL)
def test_a_retried_capture_replays_on_every_surface(
    surface: str, env: SurfaceEnv, request: pytest.FixtureRequest
) -> None:
    rid = f"cap:{surface}"
    assert _status_on(surface, request, rid) == {"requestId": rid, "status": "not_found"}
    before = set(env.files())
    first = _capture_on(surface, request, rid)
    assert first["request"]["replayed"] is False and first["outcome"] == "created"
    second = _capture_on(surface, request, rid)
    assert second["request"]["replayed"] is True
    assert {k: v for k, v in second.items() if k != "request"} == {k: v for k, v in first.items() if k != "request"}
    assert second["request"]["committedAt"] == first["request"]["committedAt"]
    assert len(set(env.files()) - before) == 1
    status = _status_on(surface, request, rid)
    assert status["status"] == "committed" and status["operation"] == "capture"
    assert status["result"] == {"uri": first["uri"], "docid": first["docid"], "sourceHash": first["sourceHash"]}


def test_a_retried_supersede_replays_instead_of_conflicting(env: SurfaceEnv, sdk_remote: Any) -> None:
    old = env.add_fact("Staging deploys happen on Mondays")
    args = {"scopes": [SCOPE], "decision": "supersede", "predecessor_uri": old.uri}
    args.update(predecessor_hash=old.content_hash, request_id="sup-1")
    first = sdk_remote.remember("Staging deploys happen on Fridays", **args)
    again = sdk_remote.remember("Staging deploys happen on Fridays", **args)
    assert (first.outcome, again.outcome) == ("superseded", "superseded")
    assert again.record == first.record and again.request.replayed is True
    assert len(env.fact_files()) == 2


def test_a_retried_edit_replays_on_rest(env: SurfaceEnv, rest: Any) -> None:
    doc = env.engine.get("notes/deploy.md")
    body = {"content": "# Deploys\n\nThursdays now.\n", "expectedSourceHash": doc.source_hash, "requestId": "e-1"}
    first = rest.put(f"/api/docs/{doc.docid.removeprefix('#')}", json=body)
    assert first.status_code == 200, first.text
    again = rest.put(f"/api/docs/{doc.docid.removeprefix('#')}", json=body)  # the old docid: replayed, no CONFLICT
    assert again.status_code == 200, again.text
    assert again.json()["request"]["replayed"] is True and again.json()["sourceHash"] == first.json()["sourceHash"]


def test_outcomes_expire_to_tombstones_and_the_oldest_tombstones_make_room(env: SurfaceEnv) -> None:
    from datetime import timedelta

    from gno.ledger import Ledger

    ledger = Ledger(env.settings.requests_path, max_rows=3, retention=timedelta(days=30))
    env.engine.capture(CaptureRequest(content="one", collection="notes", request_id="a"))
    env.engine.capture(CaptureRequest(content="two", collection="notes", request_id="b"))
    _ledger(env, "UPDATE requests SET committed_at = '2000-01-01T00:00:00.000Z' WHERE request_id = 'a'")
    assert ledger.status("a").status == "expired" and ledger.status("a").result is None
    env.engine.capture(CaptureRequest(content="three", collection="notes", request_id="c"))
    tomb = ledger.db.get("a")
    assert tomb is not None and tomb.status == "expired" and tomb.result is None  # a tombstone: the result is gone
    tracked = ledger.track("d", "capture", {"x": 1})
    tracked.plan(None)  # the fourth row: the tombstone makes room
    assert ledger.status("a").status == "not_found" and ledger.db.count() == 3
    with pytest.raises(Exception) as ei:
        ledger.track("e", "capture", {"x": 2}).plan(None)
    assert getattr(ei.value, "code", None) == E.REQUEST_CAPACITY_EXHAUSTED
