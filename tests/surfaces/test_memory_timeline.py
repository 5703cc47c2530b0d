"""Memory over time: `recall --as-of` against a brute-force replay of the fact files, and the history.

A scripted history of 200 facts (60 of them superseding an earlier one, a third with an event
time `validFrom` before their record time) is written as fact files, spread over two years and
20 scopes, and indexed. At each of 20 instants (15 date-times, 5 bare dates meaning their end of
day) the facts `recall --as-of` returns in each scope must be exactly those a brute-force replay
of the files finds current: started (validFrom, else createdAt) by then, and no successor started
by then. Then the same through every surface, with `memory history`.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gno.memory.recall import RecallRequest
from gno.memory.records import content_hash, fact_rel_path, record_id_for, serialize_fact

from .conftest import CALLER, SCOPE, SESSION, CliRun, McpDriver, SurfaceEnv, read_front_matter

T0 = datetime(2025, 1, 1, tzinfo=UTC)
WHO = ("--caller", CALLER, "--session", SESSION)


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _script(env: SurfaceEnv, seed: int = 11) -> None:
    """200 fact files: 140 first facts, 60 successors of a fact not yet superseded (same scope)."""
    rng = random.Random(seed)
    times = sorted(T0 + timedelta(seconds=rng.randrange(0, 730 * 86400)) for _ in range(200))
    kinds = ["new"] * 140 + ["supersede"] * 60
    rng.shuffle(kinds)
    first_new = kinds.index("new")
    kinds[0], kinds[first_new] = kinds[first_new], kinds[0]  # the first fact has nothing to supersede
    open_facts: list[tuple[str, str]] = []  # (uri, scope) of facts with no successor yet
    for i, (created, kind) in enumerate(zip(times, kinds, strict=True)):
        pred = None
        if kind == "supersede":
            pred = open_facts.pop(rng.randrange(len(open_facts)))
        scope = pred[1] if pred else f"topic:{rng.randrange(20)}"
        text = f"Fact {i} of {scope} holds value {rng.randrange(1000)}."
        valid_from = _iso(created - timedelta(days=rng.randrange(1, 40))) if rng.random() < 0.33 else None
        at = _iso(created)
        chash = content_hash(text)
        rid = record_id_for(chash, at, CALLER, SESSION)
        rel = fact_rel_path(rid, at)
        body = serialize_fact(
            text=text,
            record_id=rid,
            scopes=[scope],
            caller=CALLER,
            session=SESSION,
            created_at=at,
            chash=chash,
            supersedes=[pred[0]] if pred else [],
            valid_from=valid_from,
        )
        path = env.memory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        open_facts.append((f"gno://memory/{rel}", scope))
    env.engine.update()


def _replay(env: SurfaceEnv) -> list[dict[str, Any]]:
    """Every fact file, read back independently of the index."""
    facts = []
    for p in env.fact_files():
        fm = read_front_matter(p)
        mem = fm["memory"]
        start = mem.get("validFrom") or mem["createdAt"]
        facts.append(
            {
                "uri": f"gno://memory/{p.relative_to(env.memory).as_posix()}",
                "scope": mem["scopes"][0],
                "start": datetime.fromisoformat(str(start).replace("Z", "+00:00")),
                "supersedes": (fm.get("relations") or {}).get("supersedes") or [],
            }
        )
    return facts


def _current(facts: list[dict[str, Any]], t: datetime, scope: str) -> set[str]:
    return {
        f["uri"]
        for f in facts
        if f["scope"] == scope
        and f["start"] <= t
        and not any(f["uri"] in s["supersedes"] and s["start"] <= t for s in facts)
    }


def test_as_of_matches_a_brute_force_replay_of_the_files(env: SurfaceEnv) -> None:
    _script(env)
    facts = _replay(env)
    assert len(facts) == 200 and sum(1 for f in facts if f["supersedes"]) == 60
    rng = random.Random(5)
    instants = [T0 + timedelta(seconds=rng.randrange(-30 * 86400, 760 * 86400)) for _ in range(15)]
    days = [(T0 + timedelta(days=rng.randrange(0, 740))).date() for _ in range(5)]
    asked: list[tuple[str, datetime]] = [(_iso(t), t) for t in instants]
    asked += [(d.isoformat(), datetime(d.year, d.month, d.day, 23, 59, 59, 999000, tzinfo=UTC)) for d in days]
    scopes = sorted({f["scope"] for f in facts})
    checked = superseded_later = 0
    for as_of, t in asked:
        for scope in scopes:
            got = env.engine.recall(
                RecallRequest(
                    query="fact",
                    scopes=[scope],
                    caller=CALLER,
                    session=SESSION,
                    max_facts=1000,
                    max_tokens=10**6,
                    as_of=as_of,
                )
            )
            want = _current(facts, t, scope)
            assert {f.uri for f in got.facts} == want, (as_of, scope)
            assert got.budget.omitted == 0
            checked += len(want)
            replaced = {u for s in facts for u in s["supersedes"]}
            superseded_later += len(want & replaced)
    assert checked > 500 and superseded_later > 50  # the dates see many facts, many of them replaced later
    # the default recall is unchanged: every fact with no successor, whatever its times
    now = datetime(9999, 1, 1, tzinfo=UTC)
    for scope in scopes:
        got = env.engine.recall(
            RecallRequest(
                query="fact", scopes=[scope], caller=CALLER, session=SESSION, max_facts=1000, max_tokens=10**6
            )
        )
        assert {f.uri for f in got.facts} == _current(facts, now, scope)


def _chain(env: SurfaceEnv) -> tuple[Any, Any, Any]:
    a = env.add_fact("The standup is at nine")
    from gno.memory.remember import RememberRequest

    def sup(old: Any, text: str, valid_from: str) -> Any:
        r = env.engine.remember(
            RememberRequest(
                text=text,
                scopes=[SCOPE],
                caller=CALLER,
                session=SESSION,
                decision="supersede",
                predecessor_uri=old.uri,
                predecessor_hash=old.content_hash,
                valid_from=valid_from,
            )
        )
        assert r.record is not None
        return r.record

    b = sup(a, "The standup is at ten", "2030-01-01")
    c = sup(b, "The standup is at eleven", "2031-06-01T09:00:00+02:00")
    return a, b, c


@pytest.mark.parametrize("surface", ("cli", "mcp", "rest", "sdk_local", "sdk_remote"))
def test_history_and_as_of_on_every_surface(surface: str, env: SurfaceEnv, request: pytest.FixtureRequest) -> None:
    a, b, c = _chain(env)
    assert c.valid_from == "2031-06-01T07:00:00.000Z"  # stored as a UTC instant
    hist: dict[str, Any]
    past: dict[str, Any]
    if surface == "cli":
        cli: CliRun = request.getfixturevalue("cli")
        r = cli("memory", "history", "--json", b.uri)
        assert r.exit_code == 0, r.stdout
        hist = r.json
        r = cli("recall", "--json", *WHO, "-s", SCOPE, "--as-of", "2030-06-01", "--", "standup")
        assert r.exit_code == 0, r.stdout
        past = r.json
    elif surface == "mcp":
        mcp: McpDriver = request.getfixturevalue("mcp_rw")
        hist = mcp.call("gno_memory_history", {"uri": b.uri}).structured or {}
        past = mcp.call("gno_recall", {"query": "standup", "scopes": [SCOPE], "asOf": "2030-06-01"}).structured or {}
    elif surface == "rest":
        rest = request.getfixturevalue("rest")
        hist = rest.get("/api/memory/history", params={"uri": b.uri}).json()
        past = rest.post(
            "/api/memory/recall",
            json={"query": "standup", "scopes": [SCOPE], "asOf": "2030-06-01", "caller": CALLER, "session": SESSION},
        ).json()
    else:
        client = request.getfixturevalue(surface)
        hist = client.memory_history(b.uri).dump()
        past = client.recall("standup", scopes=[SCOPE], as_of="2030-06-01").dump()
    assert [e["record"]["uri"] for e in hist["chain"]] == [a.uri, b.uri, c.uri]
    assert hist["uri"] == b.uri and hist["current"] == c.uri
    assert [e.get("supersededAt") for e in hist["chain"]] == [
        "2030-01-01T00:00:00.000Z",
        "2031-06-01T07:00:00.000Z",
        None,
    ]
    assert hist["chain"][0]["currentFrom"] == a.created_at
    assert [f["uri"] for f in past["facts"]] == [b.uri]


def test_a_bad_as_of_or_valid_from_is_validation(env: SurfaceEnv, cli: CliRun) -> None:
    r = cli("recall", "--json", *WHO, "-s", SCOPE, "--as-of", "soon", "--", "x")
    assert r.exit_code == 1 and r.error_code == "VALIDATION"
    r = cli("remember", "--json", *WHO, "-s", SCOPE, "--add", "--valid-from", "13/2026", "--", "A fact")
    assert r.exit_code == 1 and r.error_code == "VALIDATION"
    assert env.fact_files() == []
    r = cli("memory", "history", "--json", "gno://notes/deploy.md")
    assert r.exit_code == 1 and r.error_code == "NOT_FOUND"
