"""The archivist: relations after a write, visible in search; a crashing worker loses nothing."""

from __future__ import annotations

from typing import Any

import pytest

from gno.service.archivist import Archivist

from .conftest import Http, Team


def remember(http: Http, **body: Any) -> str:
    status, doc = http.call("remember", body)
    assert status == 200, doc
    return str(doc["id"])


def edges(team: Team) -> set[tuple[str, str, str]]:
    with team.runtime.db.backend.read() as tx:
        return {(str(a), str(b), str(k)) for a, b, k in tx.execute("SELECT src_id, dst_id, kind FROM graph_relations")}


def relations_of(http: Http, query: str, rid: str) -> list[dict[str, Any]]:
    _, doc = http.call("search", {"query": query})
    hit = next(h for h in doc["hits"] if h["id"] == rid)
    return list(hit["graph_relations"])


def test_same_fact_derived_and_similar_relations(http: Http) -> None:
    a = remember(http, content="the staging cluster runs kubernetes 1.29 on six nodes", fact_key="staging")
    b = remember(http, content="the staging cluster runs kubernetes 1.30 on six nodes", fact_key="staging")
    c = remember(http, content="cluster summary", derived_from=[a, b])
    rels = relations_of(http, "staging cluster kubernetes", b)
    assert {"id": a, "relation": "same_fact", "score": 1.0} in rels
    assert any(r["id"] == a and r["relation"] == "similar" and r["score"] >= 0.85 for r in rels)
    assert {"id": c, "relation": "summarized_by", "score": 1.0} in rels
    summary = relations_of(http, "cluster summary", c)
    assert sorted((r["id"], r["relation"]) for r in summary) == sorted([(a, "derived_from"), (b, "derived_from")])


def test_unrelated_records_are_not_linked(http: Http) -> None:
    remember(http, content="the espresso machine is descaled on fridays")
    remember(http, content="quarterly tax filing is due in april")
    assert edges(http.team) == set()


def test_crash_of_the_worker_never_loses_the_record(http: Http, team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    a = remember(http, content="the billing service owns invoices", fact_key="billing")

    def boom(*_: object, **__: object) -> list[tuple[str, str, str, float]]:
        raise RuntimeError("archivist crashed")

    monkeypatch.setattr(Archivist, "_edges", boom)
    b = remember(http, content="the billing service owns invoices and refunds", fact_key="billing")
    archivist = team.svc.archivist
    assert archivist.failures == 1
    _, doc = http.call("search", {"query": "billing invoices"})
    assert doc["hits"][0]["id"] == b  # saved, searchable, versions linked without the archivist
    assert [v["id"] for v in doc["hits"][0]["versions"]] == [a]
    assert len(archivist.pending()) == 1
    monkeypatch.undo()
    assert archivist.run_pending() == 1 and archivist.pending() == []
    assert (min(a, b), max(a, b), "same_fact") in edges(team)


def test_rebuild_recomputes_the_same_graph(http: Http, team: Team) -> None:
    a = remember(http, content="redis runs on port 6379 in staging", fact_key="redis")
    remember(http, content="redis runs on port 6380 in staging", fact_key="redis")
    remember(http, content="summary of redis", derived_from=[a])
    before = edges(team)
    assert before
    assert team.svc.archivist.rebuild() == 3
    assert edges(team) == before


def test_thread_mode_and_resume_after_restart(http: Http, team: Team) -> None:
    svc = team.svc
    backend = team.runtime.db.backend
    svc.archivist = Archivist(backend, fingerprint=svc.fingerprint, mode="off")  # a worker that never ran
    a = remember(http, content="the vpn gateway is vpn.internal", fact_key="vpn")
    b = remember(http, content="the vpn gateway is vpn2.internal", fact_key="vpn")
    assert edges(team) == set() and len(svc.archivist.pending()) == 2
    worker = Archivist(backend, fingerprint=svc.fingerprint, mode="thread")
    worker.start()  # picks up what the previous run left pending
    try:
        assert worker.wait_idle(30)
        c = remember(http, content="vpn summary", derived_from=[a])
        worker.submit(_seq(team, c))
        assert worker.wait_idle(30)
    finally:
        worker.stop()
    assert {(min(a, b), max(a, b), "same_fact"), (c, a, "derived_from")} <= edges(team)
    assert worker.pending() == []


def test_forget_removes_edges_and_archivist_skips_forgotten(http: Http, team: Team) -> None:
    a = remember(http, content="dns is managed in route53", fact_key="dns")
    b = remember(http, content="dns is managed in cloudflare", fact_key="dns")
    assert edges(team)
    http.call("forget", {"memory_id": a})
    assert edges(team) == set()
    assert team.svc.archivist.process(_seq(team, a)) == 0
    assert relations_of(http, "dns managed", b) == []


def _seq(team: Team, rid: str) -> int:
    with team.runtime.db.backend.read() as tx:
        return int(tx.execute("SELECT seq FROM memories WHERE id = ?", (rid,))[0][0])
