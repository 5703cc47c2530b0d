"""`recall`: current facts only, scopes, budget, receipts, the empty hint, invalid records, restoration.

Binding spec: seed 000 (memory contract) and reference §3.6 (recall algorithm), §3.4 (validator).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gno.errors import ErrorCode, GnoError
from gno.memory.recall import RecallRequest
from gno.memory.records import (
    MEMORY_EMPTY_RECALL_HINT,
    content_hash,
    fact_rel_path,
    record_id_for,
    serialize_fact,
)
from gno.store import documents as docs

from .conftest import (
    CALLER,
    SESSION,
    Cli,
    MemEnv,
    add,
    cli_recall,
    expect_error,
    remember,
)

FACT_FIELDS = {
    "uri",
    "docid",
    "recordId",
    "text",
    "scopes",
    "caller",
    "session",
    "createdAt",
    "contentHash",
    "spanHash",
    "supersedes",
    "source",
    "score",
    "egressLineage",
}
ISO_MS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def recall(mem: MemEnv, query: Any, scopes: Any = ("project:gno",), **kw: Any) -> Any:
    kw.setdefault("caller", CALLER)
    kw.setdefault("session", SESSION)
    return mem.engine.recall(RecallRequest(query=query, scopes=list(scopes), **kw))


def tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


def digest_of(receipt: dict[str, Any]) -> str:
    """The reference digest, computed independently: sha256 of compact JSON in that key order."""
    payload = {
        "caller": receipt["caller"],
        "session": receipt["session"],
        "issuedAt": receipt["issuedAt"],
        "memoryIds": receipt["memoryIds"],
        "spanHashes": receipt["spanHashes"],
    }
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def write_fact_file(
    root: Path,
    text: str,
    scopes: list[str],
    *,
    created: str = "2024-03-01T10:00:00.000Z",
    caller: str = "hand",
    session: str = "edit",
) -> Path:
    h = content_hash(text)
    rid = record_id_for(h, created, caller, session)
    path = root / fact_rel_path(rid, created)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        serialize_fact(
            text=text,
            record_id=rid,
            scopes=scopes,
            caller=caller,
            session=session,
            created_at=created,
            chash=h,
        ),
        encoding="utf-8",
    )
    return path


# -- current facts, scopes, retrieval -----------------------------------------------------------


def test_recall_returns_current_facts_only(mem: MemEnv) -> None:
    a = add(mem, "The office closes at six")
    b = remember(
        mem,
        "The office closes at seven",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    ).record
    got = recall(mem, "office closes")
    assert [f.uri for f in got.facts] == [b.uri]
    assert got.budget.omitted == 0
    # the superseded fact stays on disk and in ordinary search
    hits = mem.engine.search("office closes", collection="memory", limit=10)
    assert {h.uri for h in hits.results} == {a.uri, b.uri}


def test_scope_visibility_is_any_intersection(mem: MemEnv) -> None:
    both = add(mem, "Grandma visits in August", scopes=["family", "calendar"])
    only_family = add(mem, "Grandma likes tulips", scopes=["family"])
    assert {f.uri for f in recall(mem, "grandma", scopes=["calendar", "work"]).facts} == {both.uri}
    assert {f.uri for f in recall(mem, "grandma", scopes=["family"]).facts} == {both.uri, only_family.uri}
    assert recall(mem, "grandma", scopes=["work"]).facts == []
    # recall scopes are normalised like remember's
    assert {f.uri for f in recall(mem, "grandma", scopes=["  CALENDAR "]).facts} == {both.uri}


def test_lexical_recall_ranks_conjunctive_matches_first(mem: MemEnv) -> None:
    add(mem, "Prod deploys from main only")
    add(mem, "Kubernetes clusters run in the main region")
    add(mem, "Staging deploys every hour")
    # all terms match one fact: conjunctive, only that one
    assert [f.text for f in recall(mem, "deploys main").facts] == ["Prod deploys from main only"]
    # no fact has all terms: any-term matches, best first
    got = [f.text for f in recall(mem, "deploys kubernetes").facts]
    assert set(got) == {"Prod deploys from main only", "Kubernetes clusters run in the main region",
                        "Staging deploys every hour"}
    assert recall(mem, "zebra").facts == []
    # question words and possessives do not have to occur in the fact
    assert [f.text for f in recall(mem, "What is Prod's deploy branch?").facts][0] == "Prod deploys from main only"


def test_retrieval_mode_is_lexical_with_a_reason(mem: MemEnv, cli: Cli) -> None:
    add(mem, "Prod deploys from main only")
    r = cli_recall(cli, "deploys")
    assert r.exit_code == 0
    retrieval = r.json["retrieval"]
    assert retrieval["mode"] == "lexical"
    assert isinstance(retrieval["semanticUnavailable"], str) and retrieval["semanticUnavailable"].strip()


def test_recall_reads_only_managed_collections(mem: MemEnv) -> None:
    # a perfectly valid fact file inside an ordinary collection is just a document
    write_fact_file(mem.notes, "Quarterly taxes are due in April", ["finance"])
    add(mem, "Invoices go out on the first", scopes=["finance"])
    mem.engine.update()
    got = recall(mem, "quarterly taxes", scopes=["finance"])
    assert got.facts == []
    assert [h.collection for h in mem.engine.search("quarterly taxes", limit=10).results] == ["notes"]


def test_fact_fields(mem: MemEnv, cli: Cli) -> None:
    rec = add(mem, "The spare key is under the blue pot", scopes=["family", "house"], source="told by Sam")
    r = cli_recall(cli, "spare key", scopes=("house",))
    assert r.exit_code == 0, r.stdout
    out = r.json
    (fact,) = out["facts"]
    assert set(fact) == FACT_FIELDS
    assert fact["uri"] == rec.uri and fact["uri"].startswith("gno://memory/facts/")
    assert re.fullmatch(r"#[0-9a-f]{6,}", fact["docid"])
    assert fact["recordId"] == rec.record_id
    assert fact["text"] == "The spare key is under the blue pot"
    assert fact["scopes"] == ["family", "house"]
    assert (fact["caller"], fact["session"]) == (CALLER, SESSION)
    assert fact["createdAt"] == rec.created_at and ISO_MS_RE.match(fact["createdAt"])
    assert fact["contentHash"] == hashlib.sha256(b"The spare key is under the blue pot").hexdigest()
    assert fact["spanHash"] == fact["contentHash"]
    assert fact["supersedes"] == []
    assert fact["source"] == "told by Sam"
    assert isinstance(fact["score"], float) and fact["score"] > 0
    assert fact["egressLineage"]["effectivePolicy"] == "local_only"
    assert out["egressLineage"]["effectivePolicy"] == "local_only"
    assert "hint" not in out


def test_fact_fields_of_a_successor_carry_supersedes(mem: MemEnv) -> None:
    a = add(mem, "The bins go out on Monday")
    remember(
        mem,
        "The bins go out on Tuesday",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    )
    (fact,) = recall(mem, "bins").facts
    assert fact.supersedes == [a.uri]


# -- budget ------------------------------------------------------------------------------------


def _five_forty_byte_facts(mem: MemEnv) -> list[str]:
    texts = [f"kiwi fact number {i} padded to forty".ljust(40, ".") for i in range(5)]
    assert all(len(t.encode()) == 40 for t in texts)
    for t in texts:
        add(mem, t)
    return texts


def test_default_budget_is_eight_facts_and_512_tokens(mem: MemEnv) -> None:
    for i in range(10):
        add(mem, f"Lemon tree number {i} was planted in spring")
    got = recall(mem, "lemon tree")
    assert len(got.facts) == 8
    assert (got.budget.max_facts, got.budget.max_tokens) == (8, 512)
    assert got.budget.omitted == 2
    assert got.budget.used_tokens == sum(tokens(f.text) for f in got.facts)


def test_max_facts(mem: MemEnv, cli: Cli) -> None:
    _five_forty_byte_facts(mem)
    r = cli_recall(cli, "kiwi", "--max-facts", "2")
    assert r.exit_code == 0, r.stdout
    b = r.json["budget"]
    assert len(r.json["facts"]) == 2
    assert b == {"maxFacts": 2, "maxTokens": 512, "usedTokens": 20, "omitted": 3}


def test_max_tokens(mem: MemEnv, cli: Cli) -> None:
    _five_forty_byte_facts(mem)  # 10 tokens each
    r = cli_recall(cli, "kiwi", "--max-tokens", "25")
    assert r.exit_code == 0, r.stdout
    assert len(r.json["facts"]) == 2
    assert r.json["budget"] == {"maxFacts": 8, "maxTokens": 25, "usedTokens": 20, "omitted": 3}
    r2 = cli_recall(cli, "kiwi", "--max-tokens", "30")
    assert len(r2.json["facts"]) == 3
    assert r2.json["budget"]["usedTokens"] == 30
    assert r2.json["budget"]["omitted"] == 2


def test_token_estimate_is_ceil_utf8_bytes_over_four(mem: MemEnv) -> None:
    texts = [
        "melon a",  # 7 bytes → 2
        "melon bb",  # 8 bytes → 2
        "melon ccc",  # 9 bytes → 3
        "melon \u00e9\u00e9\u00e9",  # 12 bytes → 3
        "melon \u20ac",  # 9 bytes → 3
    ]
    for t in texts:
        add(mem, t)
    got = recall(mem, "melon", max_tokens=512)
    assert sorted(f.text for f in got.facts) == sorted(texts)
    assert got.budget.used_tokens == 2 + 2 + 3 + 3 + 3
    # a budget below every fact's estimate returns nothing and counts all as omitted
    none = recall(mem, "melon", max_tokens=1)
    assert none.facts == [] and none.budget.omitted == 5 and none.budget.used_tokens == 0


def test_budget_omitted_is_matched_minus_returned(mem: MemEnv) -> None:
    for i in range(12):
        add(mem, f"Olive jar {i} is in the pantry")
    add(mem, "Olive oil is elsewhere", scopes=["other"])  # matches the words, not the scope
    for max_facts, returned in ((1, 1), (5, 5), (12, 12), (20, 12)):
        got = recall(mem, "olive", max_facts=max_facts)
        assert len(got.facts) == returned
        assert got.budget.omitted == 12 - returned


# -- receipts ----------------------------------------------------------------------------------


def test_receipt_fields_and_digest(mem: MemEnv, cli: Cli) -> None:
    add(mem, "Plum jam is on the top shelf")
    add(mem, "Plum tree needs pruning in winter")
    r = cli(
        "recall",
        "plum",
        "--scope",
        "project:gno",
        "--caller",
        "agent:caf\u00e9",
        "--session",
        "s-1",
        "--json",
    )
    assert r.exit_code == 0, r.stdout
    out = r.json
    receipt = out["receipt"]
    assert list(receipt) == ["caller", "session", "issuedAt", "memoryIds", "spanHashes", "digest"]
    assert (receipt["caller"], receipt["session"]) == ("agent:caf\u00e9", "s-1")
    assert ISO_MS_RE.match(receipt["issuedAt"])
    assert receipt["memoryIds"] == [f["docid"] for f in out["facts"]]
    assert receipt["spanHashes"] == sorted({f["contentHash"] for f in out["facts"]})
    assert len(receipt["spanHashes"]) == 2
    assert receipt["digest"] == digest_of(receipt)
    # content-free: no fact text anywhere in the receipt
    flat = json.dumps(receipt)
    assert "jam" not in flat and "pruning" not in flat


def test_receipt_span_hashes_are_unique_and_sorted(mem: MemEnv) -> None:
    add(mem, "Pear cider is in the garage", scopes=["a"])
    add(mem, "Pear cider is in the garage", scopes=["b"])  # same text, another scope: a second fact
    add(mem, "Pear tree is by the gate", scopes=["a"])
    got = recall(mem, "pear", scopes=["a", "b"])
    assert len(got.facts) == 3
    rc = got.receipt.dump()
    assert rc["memoryIds"] == [f.docid for f in got.facts]
    assert len(set(rc["memoryIds"])) == 3
    assert rc["spanHashes"] == sorted({f.content_hash for f in got.facts})
    assert len(rc["spanHashes"]) == 2
    assert rc["digest"] == digest_of(rc)


def test_empty_result_has_empty_facts_and_the_fixed_hint(mem: MemEnv, cli: Cli) -> None:
    assert "gno remember" in MEMORY_EMPTY_RECALL_HINT
    r = cli_recall(cli, "anything at all")
    assert r.exit_code == 0, r.stdout
    out = r.json
    assert out["facts"] == []
    assert out["hint"] == MEMORY_EMPTY_RECALL_HINT
    assert "egressLineage" not in out
    assert out["budget"]["usedTokens"] == 0 and out["budget"]["omitted"] == 0
    assert out["receipt"]["memoryIds"] == [] and out["receipt"]["spanHashes"] == []
    assert out["receipt"]["digest"] == digest_of(out["receipt"])
    # facts in another scope do not change that, and the text output prints the hint verbatim
    add(mem, "Anything at all is stored here", scopes=["elsewhere"])
    text = cli("recall", "anything", "--scope", "project:gno")
    assert text.exit_code == 0
    assert MEMORY_EMPTY_RECALL_HINT in text.stdout
    assert recall(mem, "anything").hint == MEMORY_EMPTY_RECALL_HINT


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\n\t"], ids=["empty", "spaces", "ws"])
def test_query_required(mem: MemEnv, cli: Cli, query: str) -> None:
    expect_error(cli_recall(cli, query), ErrorCode.MEMORY_QUERY_REQUIRED)


def test_query_required_on_the_engine(mem: MemEnv) -> None:
    for q in (None, "", 5):
        with pytest.raises(GnoError) as ei:
            recall(mem, q)
        assert ei.value.code == ErrorCode.MEMORY_QUERY_REQUIRED


@pytest.mark.parametrize(
    "args",
    [("--max-facts", "0"), ("--max-facts", "-1"), ("--max-tokens", "0"), ("--max-tokens", "-1")],
    ids=["facts-0", "facts-neg", "tokens-0", "tokens-neg"],
)
def test_budget_invalid_via_cli(mem: MemEnv, cli: Cli, args: tuple[str, str]) -> None:
    expect_error(cli_recall(cli, "anything", *args), ErrorCode.MEMORY_BUDGET_INVALID)


@pytest.mark.parametrize("value", [0, -1, True, False, 1.5, "8", None, 2**53])
@pytest.mark.parametrize("field", ["max_facts", "max_tokens"])
def test_budget_invalid_on_the_engine(mem: MemEnv, field: str, value: Any) -> None:
    with pytest.raises(GnoError) as ei:
        recall(mem, "anything", **{field: value})
    assert ei.value.code == ErrorCode.MEMORY_BUDGET_INVALID
    assert ei.value.exit_code == 1


def test_recall_scopes_and_identity_are_required(mem: MemEnv, cli: Cli) -> None:
    expect_error(cli_recall(cli, "anything", scopes=()), ErrorCode.MEMORY_SCOPES_REQUIRED)
    expect_error(cli_recall(cli, "anything", scopes=("bad scope",)), ErrorCode.MEMORY_SCOPES_INVALID)
    with pytest.raises(GnoError) as ei:
        recall(mem, "anything", caller=" ")
    assert ei.value.code == ErrorCode.MEMORY_IDENTITY_REQUIRED
    expect_error(cli_recall(cli, "anything", "--collection", "nope"), ErrorCode.MEMORY_COLLECTION_NOT_FOUND)


# -- hand-edited invalid records ---------------------------------------------------------------

VALID_CREATED = "2024-03-01T10:00:00.000Z"


def _hand_edited(mem: MemEnv) -> dict[str, list[str]]:
    """Write one broken fact file per diagnostic; every one mentions 'zebra'. uri → codes."""
    day = mem.memory / "facts" / "2024-03-01"
    day.mkdir(parents=True, exist_ok=True)
    expected: dict[str, list[str]] = {}

    def put(name: str, content: str, codes: list[str]) -> None:
        (day / name).write_text(content, encoding="utf-8")
        expected[f"gno://memory/facts/2024-03-01/{name}"] = codes

    def valid(text: str, scopes: list[str] | None = None, **kw: Any) -> str:
        h = content_hash(text)
        return serialize_fact(
            text=text,
            record_id=record_id_for(h, VALID_CREATED, "hand", "edit"),
            scopes=scopes or ["project:gno"],
            caller="hand",
            session="edit",
            created_at=VALID_CREATED,
            chash=h,
            **kw,
        )

    put("mem-000000000000000a.md", "zebra facts without any front matter\n", ["MEMORY_FRONTMATTER_MISSING"])
    put(
        "mem-000000000000000b.md",
        valid("zebra stripes are unique").replace("are unique", "are unique per animal"),
        ["MEMORY_CONTENT_HASH_MISMATCH"],
    )
    empty = valid("zebra empty body")
    put(
        "mem-000000000000000c.md",
        empty[: empty.index("\n---\n") + 5],
        ["MEMORY_BODY_EMPTY"],
    )
    put("mem-000000000000000d.md", valid("zebra scope test", ["bad scope!"]), ["MEMORY_SCOPES_INVALID"])
    put(
        "mem-000000000000000e.md",
        valid("zebra supersedes test", supersedes=["https://example.com/not-a-gno-uri"]),
        ["MEMORY_SUPERSEDES_INVALID"],
    )
    put(
        "mem-000000000000000f.md",
        "---\ntitle: zebra no memory block\n---\n\nzebra without a memory block\n",
        ["MEMORY_FRONTMATTER_MISSING"],
    )
    return expected


def test_invalid_records_are_excluded_from_recall_but_searchable_and_reported(mem: MemEnv, cli: Cli) -> None:
    good = add(mem, "zebra crossings are near the school")
    expected = _hand_edited(mem)
    # an ordinary note in the managed collection (not a fact) is not a finding
    (mem.memory / "README.md").write_text("# About\n\nzebra notes live here.\n", encoding="utf-8")
    mem.engine.update()

    got = recall(mem, "zebra")
    assert [f.uri for f in got.facts] == [good.uri]
    assert got.budget.omitted == 0

    found = {h.uri for h in mem.engine.search("zebra", collection="memory", limit=50).results}
    assert set(expected) <= found
    assert good.uri in found and "gno://memory/README.md" in found

    st = mem.engine.status().memory
    assert st is not None
    assert {d.uri: d.codes for d in st.diagnostics} == expected
    assert st.invalid == len(expected)
    assert st.current == 1 and st.superseded == 0

    r = cli("audit", "--json")
    assert r.exit_code == 4, r.stdout
    audit = r.json
    assert {f["uri"]: f["codes"] for f in audit["findings"]} == expected
    assert {f["rule"] for f in audit["findings"]} == {"provenance.memory-record"}
    s = cli("status", "--json")
    assert s.exit_code == 0
    assert {d["uri"]: d["codes"] for d in s.json["memory"]["diagnostics"]} == expected


def test_every_diagnostic_of_a_file_is_reported(mem: MemEnv) -> None:
    day = mem.memory / "facts" / "2024-03-02"
    day.mkdir(parents=True)
    (day / "mem-1111111111111111.md").write_text(
        '---\nmemory:\n  recordId: "nope"\n  scopes: []\n  caller: ""\n  session: "s"\n'
        '  createdAt: "yesterday"\n  contentHash: "abc"\nrelations: "x"\n---\n\n',
        encoding="utf-8",
    )
    mem.engine.update()
    st = mem.engine.status().memory
    assert st is not None
    (diag,) = st.diagnostics
    assert set(diag.codes) == {
        "MEMORY_RECORD_ID_INVALID",
        "MEMORY_SCOPES_EMPTY",
        "MEMORY_IDENTITY_MISSING",
        "MEMORY_CREATED_AT_INVALID",
        "MEMORY_BODY_EMPTY",
        "MEMORY_CONTENT_HASH_INVALID",
        "MEMORY_SUPERSEDES_INVALID",
    }


def test_invalid_yaml_front_matter_is_reported(mem: MemEnv) -> None:
    day = mem.memory / "facts" / "2024-03-03"
    day.mkdir(parents=True)
    (day / "mem-2222222222222222.md").write_text("---\nmemory: [unclosed\n---\n\nyak facts\n", encoding="utf-8")
    mem.engine.update()
    st = mem.engine.status().memory
    assert st is not None
    assert [(d.uri, d.codes) for d in st.diagnostics] == [
        ("gno://memory/facts/2024-03-03/mem-2222222222222222.md", ["MEMORY_FRONTMATTER_INVALID"])
    ]
    assert recall(mem, "yak").facts == []


def test_audit_is_clean_with_valid_facts(mem: MemEnv, cli: Cli) -> None:
    add(mem, "The car is serviced in October")
    r = cli("audit", "--json")
    assert r.exit_code == 0, r.stdout
    assert r.json["findings"] == []
    assert r.json["checked"] == 1


def test_repairing_a_hand_edit_brings_the_fact_back(mem: MemEnv) -> None:
    rec = add(mem, "The gate code is 1234")
    (path,) = mem.fact_files()
    original = path.read_bytes()
    path.write_bytes(original.replace(b"1234", b"9999"))
    mem.engine.update()
    assert recall(mem, "gate code").facts == []
    path.write_bytes(original)
    mem.engine.update()
    assert [f.uri for f in recall(mem, "gate code").facts] == [rec.uri]
    st = mem.engine.status().memory
    assert st is not None and st.diagnostics == []


# -- restoration -------------------------------------------------------------------------------


def _change_rows(mem: MemEnv, doc_id: int, kind: str) -> list[dict[str, Any]]:
    return [c for c in docs.changes(mem.engine.store, 0, 100000) if c["doc_id"] == doc_id and c["kind"] == kind]


def test_deleted_fact_restored_with_identical_bytes_reactivates_once(mem: MemEnv) -> None:
    rec = add(mem, "The router is in the hall cupboard")
    (path,) = mem.fact_files()
    data = path.read_bytes()
    rel = path.relative_to(mem.memory).as_posix()
    row = docs.doc_by_path(mem.engine.store, "memory", rel)
    assert row is not None
    doc_id = row.id

    path.unlink()
    mem.engine.update()
    assert recall(mem, "router").facts == []
    assert len(_change_rows(mem, doc_id, "inactivate")) == 1
    assert _change_rows(mem, doc_id, "reactivate") == []

    path.write_bytes(data)
    mem.engine.update()
    facts = recall(mem, "router").facts
    assert [f.uri for f in facts] == [rec.uri]
    assert facts[0].record_id == rec.record_id and facts[0].content_hash == rec.content_hash
    assert len(_change_rows(mem, doc_id, "reactivate")) == 1
    restored = docs.doc_by_path(mem.engine.store, "memory", rel)
    assert restored is not None and restored.id == doc_id and restored.active

    # unchanged repeat syncs add no events, even when only the mtime moves
    n = docs.change_count(mem.engine.store)
    mem.engine.update()
    mem.engine.update()
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    mem.engine.update()
    assert docs.change_count(mem.engine.store) == n
    assert len(_change_rows(mem, doc_id, "reactivate")) == 1
    assert [f.uri for f in recall(mem, "router").facts] == [rec.uri]


def test_restored_predecessor_stays_superseded(mem: MemEnv) -> None:
    a = add(mem, "The meeting room is B12")
    b = remember(
        mem,
        "The meeting room is C3",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    ).record
    pred = mem.memory / a.uri.removeprefix("gno://memory/")
    data = pred.read_bytes()
    pred.unlink()
    mem.engine.update()
    pred.write_bytes(data)
    mem.engine.update()
    assert [f.uri for f in recall(mem, "meeting room").facts] == [b.uri]


def test_turning_memory_managed_on_makes_existing_fact_files_recallable(mem: MemEnv) -> None:
    cfg = yaml.safe_load(mem.settings.config_path.read_text(encoding="utf-8"))
    cfg["collections"][0]["memoryManaged"] = False
    mem.settings.config_path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    mem.engine._config = None
    path = write_fact_file(mem.memory, "Quarterly taxes are due in April", ["finance"])
    mem.engine.update()
    mem.write_config()  # memoryManaged: true again, as a user would edit index.yml
    mem.engine.update()
    uri = f"gno://memory/{path.relative_to(mem.memory).as_posix()}"
    assert [f.uri for f in recall(mem, "quarterly taxes", scopes=["finance"]).facts] == [uri]
    st = mem.engine.status().memory
    assert st is not None and st.facts == 1


def test_query_failure_is_memory_query_failed(mem: MemEnv, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from gno.memory import recall as recall_mod
    from gno.store.fts import FtsQueryError

    add(mem, "The fuse box is in the cellar")

    def broken(*a: Any, **k: Any) -> Any:
        raise FtsQueryError("database disk image is malformed")

    monkeypatch.setattr(recall_mod, "bm25_search", broken)
    r = cli_recall(cli, "fuse box")
    expect_error(r, ErrorCode.MEMORY_QUERY_FAILED)
    assert r.exit_code == 2
