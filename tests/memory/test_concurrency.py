"""Concurrency and isolation: the supersede race, the write lease, scope isolation at 10k facts.

The race and lease tests run the real `gno` console script (next to `sys.executable`) in
separate processes, so they exercise the cross-process file lease and SQLite, not threads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from gno.lease import write_lease
from gno.memory.recall import RecallRequest
from gno.memory.records import content_hash, fact_rel_path, record_id_for, serialize_fact

from .conftest import CALLER, SESSION, MemEnv, add, split_fact

GNO = Path(sys.executable).with_name("gno")


def gno_proc(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.Popen[str]:
    assert GNO.exists(), f"console script not found at {GNO}"
    env = dict(os.environ)  # carries the per-test GNO_CONFIG_DIR / GNO_DATA_DIR / GNO_CACHE_DIR
    env.update(env_extra or {})
    return subprocess.Popen([str(GNO), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish(p: subprocess.Popen[str], timeout: float = 180) -> tuple[int, Any, str]:
    out, err = p.communicate(timeout=timeout)
    try:
        body = json.loads(out)
    except json.JSONDecodeError:
        body = None
    return p.returncode, body, err


def leftovers(root: Path) -> list[Path]:
    """Temp or hidden files a crashed or racing writer could leave behind."""
    return [p for p in root.rglob("*") if p.is_file() and (p.name.startswith(".") or ".tmp" in p.name)]


# -- the race ------------------------------------------------------------------------------------


def test_eight_processes_superseding_one_predecessor(mem: MemEnv) -> None:
    pred = add(mem, "The release train leaves on Monday")
    procs = [
        gno_proc(
            "remember",
            f"The release train leaves on day {i}",
            "--scope",
            "project:gno",
            "--supersede",
            pred.uri,
            "--predecessor-hash",
            pred.content_hash,
            "--caller",
            f"racer-{i}",
            "--session",
            f"race-{i}",
            "--json",
        )
        for i in range(8)
    ]
    results = [finish(p) for p in procs]

    winners = [r for r in results if r[0] == 0]
    losers = [r for r in results if r[0] != 0]
    assert len(winners) == 1, results
    assert winners[0][1]["outcome"] == "superseded"
    assert len(losers) == 7, results
    for code, body, err in losers:
        assert code == 4, (code, body, err)
        assert body["error"]["code"] == "MEMORY_SUPERSEDE_CONFLICT", body

    files = mem.fact_files()
    assert len(files) == 2
    succ_uri = winners[0][1]["record"]["uri"]
    successors = []
    for f in files:
        fm, _ = split_fact(f)
        if fm.get("relations"):
            successors.append((f, fm))
    assert len(successors) == 1
    assert successors[0][1]["relations"] == {"supersedes": [pred.uri]}
    assert f"gno://memory/{successors[0][0].relative_to(mem.memory).as_posix()}" == succ_uri
    assert leftovers(mem.memory) == []

    got = mem.engine.recall(
        RecallRequest(query="release train", scopes=["project:gno"], caller=CALLER, session=SESSION)
    )
    assert [f.uri for f in got.facts] == [succ_uri]
    st = mem.engine.status().memory
    assert st is not None and (st.current, st.superseded, st.invalid) == (1, 1, 0)


def test_six_processes_adding_the_same_text_store_it_once(mem: MemEnv) -> None:
    procs = [
        gno_proc(
            "remember",
            "The fire drill is on the first Friday",
            "--scope",
            "office",
            "--add",
            "--caller",
            f"adder-{i}",
            "--session",
            f"add-{i}",
            "--json",
        )
        for i in range(6)
    ]
    results = [finish(p) for p in procs]
    assert all(code == 0 for code, _, _ in results), results
    outcomes = sorted(body["outcome"] for _, body, _ in results)
    assert outcomes == ["added"] + ["existing"] * 5
    assert {body["record"]["uri"] for _, body, _ in results} == {
        next(b for _, b, _ in results if b["outcome"] == "added")["record"]["uri"]
    }
    assert len(mem.fact_files()) == 1
    assert leftovers(mem.memory) == []


# -- the write lease -------------------------------------------------------------------------


def test_lease_busy_after_a_short_wait_window(mem: MemEnv) -> None:
    add(mem, "The van is parked at the depot", scopes=["fleet"])
    before = sorted(p.relative_to(mem.memory) for p in mem.all_files())
    with write_lease(mem.settings.lease_path, 5.0):
        code, body, err = finish(
            gno_proc(
                "remember",
                "The van is parked at the back gate",
                "--scope",
                "fleet",
                "--add",
                "--lock-wait",
                "0.3s",
                "--json",
            )
        )
        assert code == 4, (code, body, err)
        assert body["error"]["code"] == "MEMORY_WRITE_LEASE_BUSY"
        code2, body2, _ = finish(
            gno_proc(
                "remember",
                "The van is parked at the back gate",
                "--scope",
                "fleet",
                "--add",
                "--no-wait",
                "--json",
            )
        )
        assert code2 == 4 and body2["error"]["code"] == "MEMORY_WRITE_LEASE_BUSY"
        # proposals and recall take no lease: readers are never blocked
        code3, body3, _ = finish(
            gno_proc("remember", "The van is parked at the back gate", "--scope", "fleet", "--json")
        )
        assert code3 == 0 and body3["outcome"] == "candidates"
        code4, body4, _ = finish(gno_proc("recall", "van parked", "--scope", "fleet", "--json"))
        assert code4 == 0 and len(body4["facts"]) == 1
    assert sorted(p.relative_to(mem.memory) for p in mem.all_files()) == before
    assert leftovers(mem.memory) == []
    # once the lease is free the same call succeeds
    code5, body5, _ = finish(
        gno_proc(
            "remember",
            "The van is parked at the back gate",
            "--scope",
            "fleet",
            "--add",
            "--lock-wait",
            "0.3s",
            "--json",
        )
    )
    assert code5 == 0 and body5["outcome"] == "added"


# -- scope isolation at 10k facts ------------------------------------------------------------

BUSY = 9_990
RARE = 10


def write_facts_directly(root: Path, facts: list[tuple[str, list[str]]]) -> None:
    """Valid fact files written straight to disk (what remember would write), for scale tests."""
    base = datetime(2024, 1, 1, tzinfo=UTC)
    for i, (text, scopes) in enumerate(facts):
        created = (base + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        h = content_hash(text)
        rid = record_id_for(h, created, "bulk", "load")
        path = root / fact_rel_path(rid, created)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            serialize_fact(
                text=text,
                record_id=rid,
                scopes=scopes,
                caller="bulk",
                session="load",
                created_at=created,
                chash=h,
            ),
            encoding="utf-8",
        )


def test_scope_isolation_at_ten_thousand_facts(mem: MemEnv) -> None:
    facts: list[tuple[str, list[str]]] = [
        # busy facts say "harbor" three times in a short text: they outrank the rare ones in BM25
        (f"harbor harbor harbor crane {i} unloaded container {i * 7 % 1000}", ["busy"])
        for i in range(BUSY)
    ]
    facts += [
        (
            f"The old harbor lighthouse keeper number {i} wrote a long letter about tides, gulls, "
            f"fog horns, rope knots, tar, and the winter storms of year {1900 + i}",
            ["rare"],
        )
        for i in range(RARE)
    ]
    write_facts_directly(mem.memory, facts)
    mem.engine.update()
    st = mem.engine.status().memory
    assert st is not None and (st.facts, st.current, st.invalid) == (BUSY + RARE, BUSY + RARE, 0)

    def recall(scopes: list[str], **kw: Any) -> Any:
        return mem.engine.recall(RecallRequest(query="harbor", scopes=scopes, caller=CALLER, session=SESSION, **kw))

    rare = recall(["rare"], max_facts=50, max_tokens=10_000)
    assert len(rare.facts) == RARE
    assert all(f.scopes == ["rare"] for f in rare.facts)
    assert {f.text for f in rare.facts} == {t for t, s in facts if s == ["rare"]}
    assert rare.budget.omitted == 0

    busy = recall(["busy"], max_facts=32, max_tokens=10_000)
    assert len(busy.facts) == 32
    assert all(f.scopes == ["busy"] for f in busy.facts)
    default_busy = recall(["busy"])
    assert len(default_busy.facts) == 8 and all("lighthouse" not in f.text for f in default_busy.facts)

    # a scope nobody wrote to stays empty, and the hint says so
    nobody = recall(["nobody"])
    assert nobody.facts == [] and nobody.hint

    # a query only the rare facts can answer finds nothing in the busy scope
    assert (
        mem.engine.recall(RecallRequest(query="lighthouse", scopes=["busy"], caller=CALLER, session=SESSION)).facts
        == []
    )
