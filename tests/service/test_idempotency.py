"""`X-Idempotency-Key`: replay, conflict, scope, validation, restarts and concurrent retries."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from gno.embed import load_embedder
from gno.service.compose import open_service
from gno.service.tenancy import create_key, set_account_state

from .conftest import Http, Team, make_settings

CONFLICT = "409 Conflict: idempotency key was used with different input"


def count(team: Team) -> int:
    with team.runtime.db.backend.read() as tx:
        return int(tx.execute("SELECT COUNT(*) FROM memories")[0][0])


def test_retry_returns_the_same_response(http: Http) -> None:
    body = {"content": "the on-call rotation changes every monday", "fact_key": "oncall"}
    first = http.call("remember", body, idem="retry-1")
    again = http.call("remember", body, idem="retry-1")
    assert first == again and first[0] == 200
    assert count(http.team) == 1


def test_defaults_spelled_out_are_the_same_input(http: Http) -> None:
    a = http.call("remember", {"content": "x1"}, idem="k")
    b = http.call("remember", {"content": "x1", "workspace": "default", "scope": "shared", "confidence": 0.5}, idem="k")
    assert a == b and count(http.team) == 1


@pytest.mark.parametrize(
    "other", [{"content": "different"}, {"content": "same", "confidence": 0.9}, {"content": "same", "fact_key": "f"}]
)
def test_other_input_is_a_conflict(http: Http, other: dict[str, Any]) -> None:
    assert http.call("remember", {"content": "same"}, idem="k-409")[0] == 200
    status, doc = http.call("remember", other, idem="k-409")
    assert (status, doc["error"]["message"], doc["error"]["code"]) == (409, CONFLICT, "IDEMPOTENCY_CONFLICT")
    assert count(http.team) == 1


def test_scope_is_key_project_and_workspace(http: Http, team: Team) -> None:
    second_key = create_key(team.runtime.db.backend, "alpha", "acme").key
    a = http.call("remember", {"content": "c"}, idem="scoped")
    b = http.call("remember", {"content": "c", "workspace": "other"}, idem="scoped")
    c = http.call("remember", {"content": "c"}, idem="scoped", key=second_key)
    assert len({a[1]["id"], b[1]["id"], c[1]["id"]}) == 3 and count(team) == 3


@pytest.mark.parametrize("bad", ["", "x" * 257, "tab\there", "new\x7fline", "caf\xe9"])
def test_invalid_keys(http: Http, bad: str) -> None:
    headers = {"Authorization": f"Bearer {http.team.keys['alpha']}", "X-Idempotency-Key": bad.encode("latin-1")}
    resp = http.client.post("/v1/memory/remember", json={"content": "ok"}, headers=headers)
    assert (resp.status_code, resp.json()["error"]["message"]) == (400, "invalid X-Idempotency-Key")
    assert count(http.team) == 0


@pytest.mark.parametrize("good", ["x" * 256, "a", "~!@#$%^&*()_+{}|:<>?", "order 42/retry"])
def test_valid_keys(http: Http, good: str) -> None:
    assert http.call("remember", {"content": "ok"}, idem=good)[0] == 200


def test_a_failed_request_is_not_replayed(http: Http, team: Team) -> None:
    set_account_state(team.runtime.db.backend, "acme", "read_only")
    status, doc = http.call("remember", {"content": "later"}, idem="after-grace")
    assert status == 423 and doc["error"]["message"].startswith("[MMW Notice]: ")
    set_account_state(team.runtime.db.backend, "acme", "active")
    status, doc = http.call("remember", {"content": "later"}, idem="after-grace")
    assert status == 200 and count(team) == 1


def test_survives_a_restart(backend_url: str, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from gno.service.http import create_service_app

    def post(rt: Any, key: str, body: dict[str, Any]) -> tuple[int, Any]:
        client = TestClient(create_service_app(rt.service, mcp=False), base_url="http://127.0.0.1")
        headers = {"Authorization": f"Bearer {key}", "X-Idempotency-Key": "restart-1"}
        resp = client.post("/v1/memory/remember", json=body, headers=headers)
        client.close()
        return resp.status_code, resp.json()

    rt = open_service(make_settings(backend_url, tmp_path), embedder=load_embedder("fake:64"))
    key = create_key(rt.db.backend, "alpha").key
    first = post(rt, key, {"content": "persisted"})
    rt.close()
    rt = open_service(make_settings(backend_url, tmp_path), embedder=load_embedder("fake:64"))
    try:
        assert post(rt, key, {"content": "persisted"}) == first
        assert post(rt, key, {"content": "changed"})[0] == 409
        with rt.db.backend.read() as tx:
            assert tx.execute("SELECT COUNT(*) FROM memories")[0][0] == 1
    finally:
        rt.close()


def test_ten_parallel_identical_requests_make_one_record(live: str, team: Team) -> None:
    body = {"content": "exactly once, please", "fact_key": "once", "source_id": "s", "source_hash": "h"}
    headers = {"Authorization": f"Bearer {team.keys['alpha']}", "X-Idempotency-Key": "parallel-1"}

    def post(_: int) -> tuple[int, Any]:
        with httpx.Client(base_url=live, timeout=60) as c:
            r = c.post("/v1/memory/remember", json=body, headers=headers)
            return r.status_code, r.json()

    with ThreadPoolExecutor(10) as pool:
        results = list(pool.map(post, range(10)))
    assert {s for s, _ in results} == {200}
    assert len({d["id"] for _, d in results}) == 1
    assert all(d == results[0][1] for _, d in results)
    assert count(team) == 1
    with team.runtime.db.backend.read() as tx:
        assert tx.execute("SELECT COUNT(*) FROM idempotency")[0][0] == 1
