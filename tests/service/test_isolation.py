"""Tenant isolation matrix: project A writes; B (same tenant) and C (other tenant) read, search,
forget, validate and reference — they see nothing and change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Http

OUTSIDERS = ["beta", "gamma"]  # beta: same tenant as alpha; gamma: another tenant


def snapshot(http: Http) -> list[Any]:
    project_id = http.team.who("alpha").project_id
    with http.team.runtime.db.backend.read() as tx:
        return tx.execute(
            "SELECT id, content, stale, conflict, forgotten_at, source_hash FROM memories WHERE project_id = ? "
            "ORDER BY seq",
            (project_id,),
        )


@pytest.fixture
def alpha_data(http: Http) -> dict[str, str]:
    ids = {}
    for name, body in {
        "deploy": {"content": "staging is deployed with app-staging", "source_id": "docs/deploy.md",
                   "source_hash": "h1", "fact_key": "deploy"},
        "deploy2": {"content": "staging is deployed with app-stage-v2", "fact_key": "deploy"},
        "infra": {"content": "kafka retention is seven days", "workspace": "infra", "source_id": "docs/deploy.md",
                  "source_hash": "h1"},
    }.items():  # fmt: skip
        status, doc = http.call("remember", body, "alpha")
        assert status == 200
        ids[name] = doc["id"]
    return ids


@pytest.mark.parametrize("outsider", OUTSIDERS)
def test_search_sees_nothing(http: Http, alpha_data: dict[str, str], outsider: str) -> None:
    for query in ("staging deployed", "app-staging", "kafka retention"):
        status, doc = http.call("search", {"query": query}, outsider)
        assert status == 200 and doc["hits"] == []
        assert not any(i in str(doc) for i in alpha_data.values())


def test_named_workspace_of_another_project(http: Http, alpha_data: dict[str, str]) -> None:
    forbidden = "403 Forbidden: workspace access denied for project"
    for op, body in [
        ("search", {"query": "kafka", "workspace": "infra"}),
        ("remember", {"content": "sneaky", "workspace": "infra"}),
        ("forget", {"source_id": "docs/deploy.md", "workspace": "infra"}),
        ("validate_memory", {"source_id": "docs/deploy.md", "current_source_hash": "x", "workspace": "infra"}),
    ]:
        status, doc = http.call(op, body, "beta")
        assert (status, doc["error"]["message"]) == (403, forbidden), op
    # another tenant has its own namespace: "infra" is simply unused (and then its own) there
    status, doc = http.call("search", {"query": "kafka", "workspace": "infra"}, "gamma")
    assert status == 200 and doc["hits"] == []


@pytest.mark.parametrize("outsider", OUTSIDERS)
def test_writes_of_outsiders_change_nothing(http: Http, alpha_data: dict[str, str], outsider: str) -> None:
    before = snapshot(http)
    for rid in alpha_data.values():
        status, doc = http.call("forget", {"memory_id": rid}, outsider)
        assert (status, doc["error"]["message"]) == (404, "memory not found")
    status, doc = http.call("forget", {"source_id": "docs/deploy.md"}, outsider)
    assert status == 200 and doc["forgotten"] == []
    status, doc = http.call("validate_memory", {"source_id": "docs/deploy.md", "current_source_hash": "zz"}, outsider)
    assert status == 200 and doc["checked"] == 0 and doc["stale"] == [] and doc["conflicts"] == []
    status, doc = http.call("remember", {"content": "summary", "derived_from": [alpha_data["deploy"]]}, outsider)
    assert (status, doc["error"]["message"]) == (400, "derived_from contains unknown memory ids")
    status, doc = http.call("remember", {"content": "same fact key", "fact_key": "deploy"}, outsider)
    assert status == 200  # its own fact: alpha's records do not become conflicts
    assert snapshot(http) == before
    status, doc = http.call("search", {"query": "staging deployed"}, "alpha")
    assert {h["id"] for h in doc["hits"]} == {alpha_data["deploy2"]}


def test_idempotency_keys_do_not_cross_projects(http: Http) -> None:
    a = http.call("remember", {"content": "shared retry key"}, "alpha", idem="k-1")
    b = http.call("remember", {"content": "shared retry key"}, "beta", idem="k-1")
    assert a[0] == b[0] == 200 and a[1]["id"] != b[1]["id"]
    assert a[1]["project_id"] != b[1]["project_id"]


def test_default_workspace_is_per_project(http: Http) -> None:
    a = http.call("remember", {"content": "alpha default"}, "alpha")[1]
    b = http.call("remember", {"content": "beta default"}, "beta")[1]
    assert a["workspace"] == b["workspace"] == "default"
    assert http.call("search", {"query": "default"}, "alpha")[1]["hits"][0]["id"] == a["id"]
    assert http.call("search", {"query": "default"}, "beta")[1]["hits"][0]["id"] == b["id"]
