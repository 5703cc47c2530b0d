"""`remember`: every outcome, the similarity modes, every error code with its CLI exit code.

Binding spec: seed 000 (memory contract) and reference §3 (constants, algorithm, error table).
CLI cases go through click's runner on `gno.cli.main.cli` with `--json`; the error envelope is
`{"error": {"code": <MEMORY_*>, "message", "details"}}` and the exit code comes from the table.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gno.errors import ERROR_TABLE, ErrorCode, GnoError
from gno.memory.recall import RecallRequest
from gno.memory.records import MEMORY_CANDIDATE_POOL
from gno.memory.remember import RememberRequest

from .conftest import (
    CALLER,
    SESSION,
    Cli,
    MemEnv,
    add,
    cli_recall,
    cli_remember,
    expect_error,
    remember,
    sha,
    snapshot,
    split_fact,
)

FACT_PATH_RE = re.compile(r"^facts/(\d{4}-\d{2}-\d{2})/(mem-[0-9a-f]{16})\.md$")
ISO_MS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


# -- outcomes -------------------------------------------------------------------------------


def test_exit_codes_in_the_error_table_match_the_reference() -> None:
    expected = {
        "MEMORY_TEXT_REQUIRED": (1, 400),
        "MEMORY_TEXT_TOO_LARGE": (1, 400),
        "MEMORY_QUERY_REQUIRED": (1, 400),
        "MEMORY_BUDGET_INVALID": (1, 400),
        "MEMORY_COLLECTION_REQUIRED": (1, 400),
        "MEMORY_COLLECTION_UNMANAGED": (1, 400),
        "MEMORY_COLLECTION_NOT_FOUND": (1, 404),
        "MEMORY_SCOPES_REQUIRED": (1, 400),
        "MEMORY_SCOPES_INVALID": (1, 400),
        "MEMORY_IDENTITY_REQUIRED": (1, 400),
        "MEMORY_DECISION_INVALID": (1, 400),
        "MEMORY_PREDECESSOR_REQUIRED": (1, 400),
        "MEMORY_PREDECESSOR_NOT_FOUND": (1, 404),
        "MEMORY_PREDECESSOR_HASH_MISMATCH": (1, 409),
        "MEMORY_SUPERSEDE_CONFLICT": (4, 409),
        "MEMORY_FENCED_REPLAY": (1, 400),
        "MEMORY_FENCED_DERIVED": (1, 400),
        "MEMORY_WRITE_LEASE_BUSY": (4, 409),
        "MEMORY_SYNC_FAILED": (2, 500),
        "MEMORY_QUERY_FAILED": (2, 500),
        "MEMORY_SUPERSEDE_PROJECTION_FAILED": (2, 500),
    }
    memory_codes = {c.value for c in ErrorCode if c.value.startswith("MEMORY_")}
    assert memory_codes == set(expected)
    for name, (exit_code, http) in expected.items():
        m = ERROR_TABLE[ErrorCode(name)]
        assert (m.exit_code, m.http_status) == (exit_code, http), name


def test_proposal_without_decision_returns_candidates_and_writes_nothing(mem: MemEnv, cli: Cli) -> None:
    add(mem, "Prod deploys from main only")
    before = snapshot(mem.memory)
    r = cli_remember(cli, "Prod deploys from the main branch only")
    assert r.exit_code == 0, r.stdout
    out = r.json
    assert out["outcome"] == "candidates"
    assert "record" not in out and "sync" not in out and "absPath" not in out
    assert [c["record"]["text"] for c in out["candidates"]] == ["Prod deploys from main only"]
    assert snapshot(mem.memory) == before


def test_proposal_with_nothing_similar_has_empty_candidates(mem: MemEnv, cli: Cli) -> None:
    r = cli_remember(cli, "The kettle is in the left cupboard")
    assert r.exit_code == 0
    assert r.json["outcome"] == "candidates"
    assert r.json["candidates"] == []
    assert r.json["matching"]["poolSize"] == 0
    assert mem.all_files() == []


def test_add_writes_exactly_one_fact_file_with_the_contract_front_matter(mem: MemEnv, cli: Cli) -> None:
    text = "Prod deploys from main only"
    r = cli_remember(cli, text, "--add", "--source", "standup 2024-05-02")
    assert r.exit_code == 0, r.stdout
    out = r.json
    assert out["outcome"] == "added"
    assert out["sync"] == {"status": "completed"}
    files = mem.all_files()
    assert len(files) == 1
    path = files[0]
    rel = path.relative_to(mem.memory).as_posix()
    m = FACT_PATH_RE.match(rel)
    assert m, rel
    assert Path(out["absPath"]) == path
    fm, body = split_fact(path)
    memory = fm["memory"]
    assert list(memory) == ["recordId", "scopes", "caller", "session", "createdAt", "contentHash", "source"]
    assert "relations" not in fm
    assert fm["title"] == text
    created = memory["createdAt"]
    assert ISO_MS_RE.match(created), created
    assert m.group(1) == created[:10]
    assert memory["contentHash"] == sha(text)
    assert memory["recordId"] == m.group(2)
    assert memory["recordId"] == "mem-" + sha(f"{sha(text)}\n{created}\n{CALLER}\n{SESSION}")[:16]
    assert memory["scopes"] == ["project:gno"]
    assert memory["caller"] == CALLER and memory["session"] == SESSION
    assert memory["source"] == "standup 2024-05-02"
    assert body == "\n" + text + "\n"
    rec = out["record"]
    assert rec["uri"] == f"gno://memory/{rel}"
    assert rec["recordId"] == memory["recordId"]
    assert rec["contentHash"] == memory["contentHash"]
    assert rec["createdAt"] == created
    assert rec["text"] == text
    assert rec["source"] == "standup 2024-05-02"
    assert rec["supersedes"] == []


def test_added_fact_without_source_has_no_source_key_and_is_retrievable_at_once(mem: MemEnv) -> None:
    rec = add(mem, "The cat is fed at seven")
    (path,) = mem.fact_files()
    fm, _ = split_fact(path)
    assert "source" not in fm["memory"]
    assert rec.source is None
    # write + lexical sync complete before remember returns: recall sees it with no update
    got = mem.engine.recall(RecallRequest(query="cat fed", scopes=["project:gno"], caller=CALLER, session=SESSION))
    assert [f.uri for f in got.facts] == [rec.uri]


def test_multiline_text_body_keeps_the_text_and_hash_is_of_the_normalised_text(mem: MemEnv) -> None:
    text = "Standup is at 9:30.\nIt moves to 10:00 on Fridays."
    rec = add(mem, "  " + text + "\n\n")
    (path,) = mem.fact_files()
    fm, body = split_fact(path)
    assert body.strip() == text
    assert fm["memory"]["contentHash"] == sha("Standup is at 9:30. It moves to 10:00 on Fridays.")
    assert rec.content_hash == fm["memory"]["contentHash"]


@pytest.mark.parametrize(
    "variant",
    [
        "Prod deploys from main only",
        "  Prod   deploys\tfrom\nmain only  ",
        "Prod deploys from main only\n",
    ],
)
@pytest.mark.parametrize("decision", [None, "add"])
def test_same_normalised_text_is_existing_and_writes_nothing(mem: MemEnv, variant: str, decision: str | None) -> None:
    first = add(mem, "Prod deploys from main only")
    before = snapshot(mem.memory)
    r = remember(mem, variant, decision=decision)
    assert r.outcome == "existing"
    assert r.record is not None and r.record.uri == first.uri
    assert r.record.content_hash == first.content_hash
    assert r.candidates is None and r.sync is None and r.abs_path is None
    assert snapshot(mem.memory) == before


@pytest.mark.parametrize(
    ("stored", "submitted"),
    [
        ("Cafe\u0301 Olé opens at nine", "Caf\u00e9 Ol\u00e9 opens at nine"),  # NFD stored, NFC submitted
        (
            "Caf\u00e9 Ol\u00e9 opens at nine",
            "Cafe\u0301 Ole\u0301 opens at nine",
        ),  # NFC stored, NFD submitted
    ],
)
def test_nfc_equivalent_text_is_existing(mem: MemEnv, stored: str, submitted: str) -> None:
    first = add(mem, stored)
    assert first.content_hash == sha(unicodedata.normalize("NFC", stored))
    before = snapshot(mem.memory)
    r = remember(mem, submitted, decision="add")
    assert r.outcome == "existing"
    assert r.record is not None and r.record.uri == first.uri
    assert snapshot(mem.memory) == before


def test_existing_is_per_scope_same_text_in_another_scope_is_added(mem: MemEnv) -> None:
    a = add(mem, "The wifi password is on the fridge", scopes=["family"])
    r = remember(mem, "The wifi password is on the fridge", scopes=["office"], decision="add")
    assert r.outcome == "added"
    assert r.record.uri != a.uri
    assert len(mem.fact_files()) == 2
    # a call naming both scopes sees the fact as existing
    r2 = remember(mem, "The wifi password is on the fridge", scopes=["office", "family"])
    assert r2.outcome == "existing"


def test_exact_text_with_supersede_decision_is_not_existing(mem: MemEnv) -> None:
    a = add(mem, "Standup is at 9:30")
    r = remember(
        mem,
        "Standup is at 9:30",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    )
    assert r.outcome == "superseded"
    assert r.record.supersedes == [a.uri]


def test_supersede_writes_a_successor_with_relations_supersedes(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    pred_path = mem.fact_files()[0]
    pred_bytes = pred_path.read_bytes()
    r = cli_remember(
        cli,
        "Prod deploys from release branches",
        "--supersede",
        a.uri,
        "--predecessor-hash",
        a.content_hash,
    )
    assert r.exit_code == 0, r.stdout
    out = r.json
    assert out["outcome"] == "superseded"
    assert out["sync"] == {"status": "completed"}
    assert out["record"]["supersedes"] == [a.uri]
    files = mem.fact_files()
    assert len(files) == 2
    succ = Path(out["absPath"])
    assert succ in files and succ != pred_path
    fm, body = split_fact(succ)
    assert fm["relations"] == {"supersedes": [a.uri]}
    assert list(fm) == ["title", "memory", "relations"]
    assert body == "\nProd deploys from release branches\n"
    # the predecessor is never edited or removed
    assert pred_path.read_bytes() == pred_bytes
    got = mem.engine.recall(RecallRequest(query="prod deploys", scopes=["project:gno"], caller=CALLER, session=SESSION))
    assert [f.uri for f in got.facts] == [out["record"]["uri"]]
    st = mem.engine.status().memory
    assert st is not None
    assert (st.facts, st.current, st.superseded, st.invalid) == (2, 1, 1, 0)


def test_decision_supersede_with_predecessor_flag(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "The boiler is serviced in May")
    r = cli_remember(
        cli,
        "The boiler is serviced in June",
        "--decision",
        "supersede",
        "--predecessor",
        a.uri,
        "--predecessor-hash",
        a.content_hash,
    )
    assert r.exit_code == 0, r.stdout
    assert r.json["outcome"] == "superseded"
    assert r.json["record"]["supersedes"] == [a.uri]


def test_supersede_chain_only_the_newest_is_current(mem: MemEnv) -> None:
    a = add(mem, "Team lunch is on Monday")
    b = remember(
        mem,
        "Team lunch is on Tuesday",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    ).record
    c = remember(
        mem,
        "Team lunch is on Wednesday",
        decision="supersede",
        predecessor_uri=b.uri,
        predecessor_hash=b.content_hash,
    ).record
    got = mem.engine.recall(RecallRequest(query="team lunch", scopes=["project:gno"], caller=CALLER, session=SESSION))
    assert [f.uri for f in got.facts] == [c.uri]
    assert c.supersedes == [b.uri]


# -- candidate matching -----------------------------------------------------------------------


def test_lexical_matching_likely_and_weak(mem: MemEnv) -> None:
    likely = add(mem, "Prod deploys from main only")  # 5/6 shared tokens with the proposal
    boundary = add(mem, "alpha beta gamma deploys")  # exactly 0.5 with the second proposal
    weak = add(mem, "Staging deploys happen nightly")  # 1/8
    r = remember(mem, "Prod deploys from main branch only")
    assert r.outcome == "candidates"
    assert r.matching.mode == "lexical"
    assert r.matching.threshold == 0.5
    assert isinstance(r.matching.semantic_unavailable, str) and r.matching.semantic_unavailable.strip()
    by_uri = {c.record.uri: c for c in r.candidates}
    assert by_uri[likely.uri].match == "likely"
    assert by_uri[likely.uri].similarity == pytest.approx(5 / 6, abs=1e-6)
    assert by_uri[weak.uri].match == "weak"
    assert by_uri[weak.uri].similarity == pytest.approx(1 / 9, abs=1e-6)
    assert by_uri[boundary.uri].match == "weak"
    # sorted by similarity, descending
    sims = [c.similarity for c in r.candidates]
    assert sims == sorted(sims, reverse=True)
    r2 = remember(mem, "alpha beta delta deploys now")
    # {alpha, beta, deploys} shared; union {alpha, beta, gamma, deploys, delta, now} → 3/6 = 0.5
    c2 = {c.record.uri: c for c in r2.candidates}
    assert c2[boundary.uri].similarity == pytest.approx(0.5, abs=1e-9)
    assert c2[boundary.uri].match == "likely"


def test_jaccard_tokens_are_case_and_punctuation_insensitive(mem: MemEnv) -> None:
    a = add(mem, "Deploys: from MAIN, only!")
    r = remember(mem, "deploys from main only")
    (c,) = r.candidates
    assert c.record.uri == a.uri
    assert c.similarity == pytest.approx(1.0)
    assert c.match == "likely"  # different normalised text, so not exact


def test_candidates_are_current_facts_in_the_same_scopes_only(mem: MemEnv) -> None:
    add(mem, "Prod deploys from main only", scopes=["other-project"])
    old = add(mem, "Prod deploys happen on Fridays")
    new = remember(
        mem,
        "Prod deploys happen on Thursdays",
        decision="supersede",
        predecessor_uri=old.uri,
        predecessor_hash=old.content_hash,
    ).record
    r = remember(mem, "Prod deploys from main")
    assert [c.record.uri for c in r.candidates] == [new.uri]


def test_candidate_pool_is_sixteen(mem: MemEnv) -> None:
    for i in range(MEMORY_CANDIDATE_POOL + 4):
        add(mem, f"Server number {i} runs the backup job")
    r = remember(mem, "backup job")
    assert MEMORY_CANDIDATE_POOL == 16
    assert r.matching.pool_size == 16
    assert len(r.candidates) == 16


# -- scopes and identity ----------------------------------------------------------------------


def test_scopes_are_trimmed_lowercased_nfc_and_deduplicated(mem: MemEnv, cli: Cli) -> None:
    r = cli_remember(
        cli,
        "The printer is on floor two",
        "--add",
        scopes=(" Project:GNO ", "project:gno", "FAMILY", "Cafe\u0301", "caf\u00e9", "  "),
    )
    assert r.exit_code == 0, r.stdout
    want = ["project:gno", "family", "caf\u00e9"]
    assert r.json["record"]["scopes"] == want
    fm, _ = split_fact(mem.fact_files()[0])
    assert fm["memory"]["scopes"] == want
    # visible to any intersecting scope, written any way
    got = mem.engine.recall(RecallRequest(query="printer", scopes=["CAFE\u0301"], caller=CALLER, session=SESSION))
    assert len(got.facts) == 1


def test_nine_duplicate_scopes_that_dedupe_to_eight_are_accepted(mem: MemEnv) -> None:
    scopes = [f"s{i}" for i in range(8)] + ["S0"]
    rec = add(mem, "Eight scopes is the limit", scopes=scopes)
    assert rec.scopes == [f"s{i}" for i in range(8)]


@pytest.mark.parametrize(
    "scopes",
    [
        [f"s{i}" for i in range(9)],
        ["a b"],
        ["proj#x"],
        ["-leading"],
        ["_leading"],
        ["a,b"],
        ["ok", "emoji\U0001f600"],
        ["x" * 65],
    ],
    ids=["nine", "space", "hash", "dash-first", "underscore-first", "comma", "emoji", "65-chars"],
)
def test_invalid_scopes(mem: MemEnv, cli: Cli, scopes: list[str]) -> None:
    r = cli_remember(cli, "Some fact worth keeping", "--add", scopes=tuple(scopes))
    expect_error(r, ErrorCode.MEMORY_SCOPES_INVALID)
    assert mem.all_files() == []


@pytest.mark.parametrize("scope", ["x" * 64, "a.b_c:d/e@f-g", "ü-straße", "7", "project:gno"], ids=str)
def test_valid_scope_shapes(mem: MemEnv, scope: str) -> None:
    rec = add(mem, f"A fact in scope {len(scope)}", scopes=[scope])
    assert rec.scopes == [scope]


@pytest.mark.parametrize("scopes", [(), ("   ",), ("", " ")], ids=["none", "blank", "empties"])
def test_scopes_required(mem: MemEnv, cli: Cli, scopes: tuple[str, ...]) -> None:
    r = cli_remember(cli, "Some fact worth keeping", "--add", scopes=scopes)
    expect_error(r, ErrorCode.MEMORY_SCOPES_REQUIRED)
    assert mem.all_files() == []


def test_scopes_required_on_the_engine_too(mem: MemEnv) -> None:
    for scopes in (None, [], "  "):
        with pytest.raises(GnoError) as ei:
            mem.engine.remember(
                RememberRequest(text="x y", scopes=scopes, caller=CALLER, session=SESSION, decision="add")
            )
        assert ei.value.code == ErrorCode.MEMORY_SCOPES_REQUIRED


def test_identity_from_environment(mem: MemEnv, cli: Cli) -> None:
    r = cli(
        "remember",
        "The dog walker comes at noon",
        "--scope",
        "family",
        "--add",
        "--json",
        env={"GNO_MEMORY_CALLER": "agent:hermes", "GNO_MEMORY_SESSION": "sess-42"},
    )
    assert r.exit_code == 0, r.stdout
    assert (r.json["record"]["caller"], r.json["record"]["session"]) == ("agent:hermes", "sess-42")
    fm, _ = split_fact(Path(r.json["absPath"]))
    assert (fm["memory"]["caller"], fm["memory"]["session"]) == ("agent:hermes", "sess-42")
    # flags beat the environment
    r2 = cli(
        "recall",
        "dog walker",
        "--scope",
        "family",
        "--caller",
        "flag:c",
        "--session",
        "flag:s",
        "--json",
        env={"GNO_MEMORY_CALLER": "agent:hermes", "GNO_MEMORY_SESSION": "sess-42"},
    )
    assert (r2.json["receipt"]["caller"], r2.json["receipt"]["session"]) == ("flag:c", "flag:s")


def test_identity_defaults_to_cli_user_and_parent_pid(mem: MemEnv, cli: Cli) -> None:
    r = cli(
        "remember",
        "The plants need water on Sundays",
        "--scope",
        "family",
        "--add",
        "--json",
        env={"USER": "tester", "USERNAME": None},
    )
    assert r.exit_code == 0, r.stdout
    rec = r.json["record"]
    assert rec["caller"] == "cli:tester"
    # the runner executes in this process, so the "parent" is this process's parent
    assert rec["session"] == f"ppid:{os.getppid()}"


def test_identity_required_on_the_engine(mem: MemEnv) -> None:
    for caller, session in (("  ", SESSION), (CALLER, ""), (None, SESSION), (CALLER, None)):
        with pytest.raises(GnoError) as ei:
            mem.engine.remember(
                RememberRequest(text="A fact", scopes=["x"], caller=caller, session=session, decision="add")
            )
        assert ei.value.code == ErrorCode.MEMORY_IDENTITY_REQUIRED
        assert ei.value.exit_code == 1
    assert mem.all_files() == []


def test_identity_required_via_cli_blank_caller(mem: MemEnv, cli: Cli) -> None:
    r = cli("remember", "A fact", "--scope", "x", "--add", "--caller", "   ", "--json")
    expect_error(r, ErrorCode.MEMORY_IDENTITY_REQUIRED)


# -- error codes --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   \n\t  "], ids=["empty", "blank"])
def test_text_required(mem: MemEnv, cli: Cli, text: str) -> None:
    expect_error(cli_remember(cli, text, "--add"), ErrorCode.MEMORY_TEXT_REQUIRED)
    assert mem.all_files() == []


def test_text_with_nul_is_refused(mem: MemEnv, cli: Cli) -> None:
    expect_error(cli_remember(cli, "a\x00b", "--add"), ErrorCode.MEMORY_TEXT_REQUIRED)
    with pytest.raises(GnoError) as ei:
        remember(mem, 42, decision="add")
    assert ei.value.code == ErrorCode.MEMORY_TEXT_REQUIRED
    assert mem.all_files() == []


@pytest.mark.parametrize(
    "text", ["a" * 4097, "\u00e9" * 2049, "word " * 1000], ids=["4097-ascii", "4098-bytes-2049-chars", "5000"]
)
def test_text_too_large_names_capture(mem: MemEnv, cli: Cli, text: str) -> None:
    err = expect_error(cli_remember(cli, text, "--add"), ErrorCode.MEMORY_TEXT_TOO_LARGE)
    assert "gno capture" in err["message"]
    assert mem.all_files() == []


def test_text_of_exactly_4096_bytes_is_accepted(mem: MemEnv) -> None:
    text = "\u00e9" * 2048  # 4096 UTF-8 bytes
    rec = add(mem, text)
    assert rec.text == text


def test_collection_required_with_two_managed_collections(mem: MemEnv, cli: Cli) -> None:
    second = mem.tmp / "memory2-src"
    second.mkdir()
    mem.write_config([{"name": "memory2", "path": str(second), "memoryManaged": True}])
    err = expect_error(cli_remember(cli, "A fact", "--add"), ErrorCode.MEMORY_COLLECTION_REQUIRED)
    assert err["message"]
    assert mem.all_files() == []
    ok = cli_remember(cli, "A fact", "--add", "--collection", "memory2")
    assert ok.exit_code == 0, ok.stdout
    assert ok.json["record"]["uri"].startswith("gno://memory2/facts/")
    assert len(list(second.rglob("mem-*.md"))) == 1
    # recall needs the collection as well
    expect_error(cli_recall(cli, "fact"), ErrorCode.MEMORY_COLLECTION_REQUIRED)


def test_collection_required_with_no_managed_collection(mem: MemEnv, cli: Cli) -> None:
    cfg = yaml.safe_load(mem.settings.config_path.read_text())
    cfg["collections"] = [c for c in cfg["collections"] if c["name"] != "memory"]
    mem.settings.config_path.write_text(yaml.safe_dump(cfg))
    mem.engine._config = None
    expect_error(cli_remember(cli, "A fact", "--add"), ErrorCode.MEMORY_COLLECTION_REQUIRED)


def test_single_managed_collection_is_the_default_and_names_are_case_insensitive(mem: MemEnv, cli: Cli) -> None:
    r = cli_remember(cli, "Defaults to memory", "--add")
    assert r.json["record"]["uri"].startswith("gno://memory/")
    r2 = cli_remember(cli, "Named in capitals", "--add", "--collection", "MEMORY")
    assert r2.exit_code == 0, r2.stdout
    assert r2.json["record"]["uri"].startswith("gno://memory/")


def test_collection_not_found(mem: MemEnv, cli: Cli) -> None:
    expect_error(cli_remember(cli, "A fact", "--add", "--collection", "nope"), ErrorCode.MEMORY_COLLECTION_NOT_FOUND)
    assert mem.all_files() == []


def test_collection_unmanaged(mem: MemEnv, cli: Cli) -> None:
    before = snapshot(mem.notes)
    expect_error(cli_remember(cli, "A fact", "--add", "--collection", "notes"), ErrorCode.MEMORY_COLLECTION_UNMANAGED)
    assert snapshot(mem.notes) == before
    expect_error(cli_recall(cli, "deploy", "--collection", "notes"), ErrorCode.MEMORY_COLLECTION_UNMANAGED)


def test_decision_invalid_on_the_engine(mem: MemEnv) -> None:
    for bad in ("merge", "replace", "adds"):
        with pytest.raises(GnoError) as ei:
            remember(mem, "A fact", decision=bad)
        assert ei.value.code == ErrorCode.MEMORY_DECISION_INVALID
        assert ei.value.exit_code == 1
    assert mem.all_files() == []


def test_decision_invalid_via_cli_exits_1(mem: MemEnv, capsys: pytest.CaptureFixture[str]) -> None:
    from gno.cli.main import main

    with pytest.raises(SystemExit) as ei:
        main(["remember", "A fact", "--scope", "x", "--decision", "merge", "--json"])
    assert ei.value.code == 1
    body = json.loads(capsys.readouterr().out)
    assert body["error"]["code"] in ("VALIDATION", "MEMORY_DECISION_INVALID")
    assert mem.all_files() == []


@pytest.mark.parametrize(
    "args",
    [
        ("--supersede", "gno://memory/facts/2024-01-01/mem-0123456789abcdef.md"),
        ("--decision", "supersede"),
        ("--decision", "supersede", "--predecessor-hash", "0" * 64),
    ],
    ids=["uri-no-hash", "nothing", "hash-no-uri"],
)
def test_predecessor_required(mem: MemEnv, cli: Cli, args: tuple[str, ...]) -> None:
    expect_error(cli_remember(cli, "A new fact", *args), ErrorCode.MEMORY_PREDECESSOR_REQUIRED)
    assert mem.all_files() == []


def test_predecessor_not_found(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    mem.engine.update()
    notes_uri = "gno://notes/deploy.md"
    assert mem.engine.resolve(notes_uri).uri == notes_uri
    before = snapshot(mem.memory)
    for uri in (
        "gno://memory/facts/2024-01-01/mem-0123456789abcdef.md",  # no such fact
        notes_uri,  # exists, but in another (unmanaged) collection
        "https://example.com/fact",  # not a gno:// URI
        a.uri.replace("gno://memory/", "gno://notes/"),  # right path, wrong collection
    ):
        r = cli_remember(cli, "A new fact", "--supersede", uri, "--predecessor-hash", a.content_hash)
        expect_error(r, ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND)
    assert snapshot(mem.memory) == before


def test_predecessor_that_is_an_invalid_record_is_not_found(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    (path,) = mem.fact_files()
    path.write_text(path.read_text().replace("main only", "main mostly"))
    mem.engine.update()
    r = cli_remember(cli, "A new fact", "--supersede", a.uri, "--predecessor-hash", a.content_hash)
    expect_error(r, ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND)
    assert len(mem.fact_files()) == 1


def test_predecessor_that_was_deleted_is_not_found(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    mem.fact_files()[0].unlink()
    mem.engine.update()
    r = cli_remember(cli, "A new fact", "--supersede", a.uri, "--predecessor-hash", a.content_hash)
    expect_error(r, ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND)
    assert mem.fact_files() == []


def test_predecessor_hash_mismatch(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    before = snapshot(mem.memory)
    r = cli_remember(cli, "A new fact", "--supersede", a.uri, "--predecessor-hash", sha("something else"))
    expect_error(r, ErrorCode.MEMORY_PREDECESSOR_HASH_MISMATCH)
    assert snapshot(mem.memory) == before


def test_supersede_conflict_exit_4_names_the_successor(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    first = cli_remember(cli, "Prod deploys from release", "--supersede", a.uri, "--predecessor-hash", a.content_hash)
    assert first.exit_code == 0, first.stdout
    before = snapshot(mem.memory)
    r = cli_remember(cli, "Prod deploys from trunk", "--supersede", a.uri, "--predecessor-hash", a.content_hash)
    err = expect_error(r, ErrorCode.MEMORY_SUPERSEDE_CONFLICT)
    assert r.exit_code == 4
    assert first.json["record"]["uri"] in err["message"]
    assert snapshot(mem.memory) == before


def test_successor_deleted_by_hand_makes_the_predecessor_current_again(mem: MemEnv) -> None:
    a = add(mem, "Prod deploys from main only")
    b = remember(
        mem,
        "Prod deploys from release",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    )
    Path(b.abs_path).unlink()
    mem.engine.update()
    got = mem.engine.recall(RecallRequest(query="prod deploys", scopes=["project:gno"], caller=CALLER, session=SESSION))
    assert [f.uri for f in got.facts] == [a.uri]
    again = remember(
        mem,
        "Prod deploys from trunk",
        decision="supersede",
        predecessor_uri=a.uri,
        predecessor_hash=a.content_hash,
    )
    assert again.outcome == "superseded"


# -- the fence --------------------------------------------------------------------------------


def _saved_recall(mem: MemEnv, cli: Cli, query: str) -> tuple[Path, dict[str, Any]]:
    r = cli_recall(cli, query)
    assert r.exit_code == 0, r.stdout
    assert r.json["facts"], r.stdout
    path = mem.tmp / "recall.json"
    path.write_text(r.stdout, encoding="utf-8")
    return path, r.json


@pytest.mark.parametrize("decision", [(), ("--add",)], ids=["proposal", "add"])
def test_fenced_replay_with_a_saved_recall_output(mem: MemEnv, cli: Cli, decision: tuple[str, ...]) -> None:
    add(mem, "Prod deploys from main only")
    path, _ = _saved_recall(mem, cli, "prod deploys")
    before = snapshot(mem.memory)
    r = cli_remember(cli, "Prod deploys from main only", *decision, "--receipt", str(path))
    expect_error(r, ErrorCode.MEMORY_FENCED_REPLAY)
    # the normalised hash is what is fenced: whitespace games do not get through
    r2 = cli_remember(cli, "  Prod  deploys from\nmain only ", *decision, "--receipt", str(path))
    expect_error(r2, ErrorCode.MEMORY_FENCED_REPLAY)
    assert snapshot(mem.memory) == before


def test_fenced_replay_with_just_the_receipt_object(mem: MemEnv, cli: Cli) -> None:
    add(mem, "Prod deploys from main only")
    _, out = _saved_recall(mem, cli, "prod deploys")
    path = mem.tmp / "receipt.json"
    path.write_text(json.dumps(out["receipt"]), encoding="utf-8")
    before = snapshot(mem.memory)
    expect_error(
        cli_remember(cli, "Prod deploys from main only", "--add", "--receipt", str(path)),
        ErrorCode.MEMORY_FENCED_REPLAY,
    )
    assert snapshot(mem.memory) == before


def test_fence_applies_before_the_supersede_checks(mem: MemEnv, cli: Cli) -> None:
    a = add(mem, "Prod deploys from main only")
    path, _ = _saved_recall(mem, cli, "prod deploys")
    r = cli_remember(
        cli,
        "Prod deploys from main only",
        "--supersede",
        a.uri,
        "--predecessor-hash",
        a.content_hash,
        "--receipt",
        str(path),
    )
    expect_error(r, ErrorCode.MEMORY_FENCED_REPLAY)
    assert len(mem.fact_files()) == 1


def test_engine_receipt_fences_the_cli_and_other_text_passes(mem: MemEnv, cli: Cli) -> None:
    add(mem, "Prod deploys from main only")
    res = mem.engine.recall(RecallRequest(query="prod deploys", scopes=["project:gno"], caller="mcp:x", session="s"))
    path = mem.tmp / "engine-receipt.json"
    path.write_text(json.dumps(res.receipt.dump()), encoding="utf-8")
    expect_error(
        cli_remember(cli, "Prod deploys from main only", "--add", "--receipt", str(path)),
        ErrorCode.MEMORY_FENCED_REPLAY,
    )
    ok = cli_remember(cli, "Prod deploys need two approvals", "--add", "--receipt", str(path))
    assert ok.exit_code == 0, ok.stdout
    assert ok.json["outcome"] == "added"
    # the receipt object itself (not a file) works on the engine
    with pytest.raises(GnoError) as ei:
        remember(mem, "Prod deploys from main only", decision="add", receipt=res.receipt.dump())
    assert ei.value.code == ErrorCode.MEMORY_FENCED_REPLAY


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.update(spanHashes=[]),
        lambda r: r.update(memoryIds=[*r["memoryIds"], "#deadbeef"]),
        lambda r: r.update(caller="someone-else"),
        lambda r: r.update(issuedAt="2020-01-01T00:00:00.000Z"),
        lambda r: r.update(digest="0" * 64),
    ],
    ids=["spans-dropped", "ids-added", "caller", "issued-at", "digest"],
)
def test_tampered_receipt_is_a_validation_error(
    mem: MemEnv, cli: Cli, mutate: Callable[[dict[str, Any]], None]
) -> None:
    add(mem, "Prod deploys from main only")
    _, out = _saved_recall(mem, cli, "prod deploys")
    receipt = dict(out["receipt"])
    mutate(receipt)
    path = mem.tmp / "tampered.json"
    path.write_text(json.dumps({**out, "receipt": receipt}), encoding="utf-8")
    before = snapshot(mem.memory)
    r = cli_remember(cli, "Some brand new fact", "--add", "--receipt", str(path))
    expect_error(r, ErrorCode.VALIDATION)
    assert snapshot(mem.memory) == before


def test_unreadable_receipt_file_is_a_validation_error(mem: MemEnv, cli: Cli) -> None:
    bad = mem.tmp / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    expect_error(cli_remember(cli, "A fact", "--add", "--receipt", str(bad)), ErrorCode.VALIDATION)
    expect_error(cli_remember(cli, "A fact", "--add", "--receipt", str(mem.tmp / "missing.json")), ErrorCode.VALIDATION)
    assert mem.all_files() == []


@pytest.mark.parametrize(
    "origins",
    [
        ("gno://memory/facts/2024-01-01/mem-0123456789abcdef.md",),
        ("  gno://notes/deploy.md",),
        ("https://example.com/a", "gno://notes/deploy.md"),
    ],
    ids=["fact", "padded", "second"],
)
def test_fenced_derived(mem: MemEnv, cli: Cli, origins: tuple[str, ...]) -> None:
    args = [a for o in origins for a in ("--derived-from", o)]
    expect_error(cli_remember(cli, "A derived fact", "--add", *args), ErrorCode.MEMORY_FENCED_DERIVED)
    expect_error(cli_remember(cli, "A derived fact", *args), ErrorCode.MEMORY_FENCED_DERIVED)
    assert mem.all_files() == []


def test_non_gno_origins_are_allowed(mem: MemEnv, cli: Cli) -> None:
    r = cli_remember(
        cli,
        "The vendor changed the API key",
        "--add",
        "--derived-from",
        "https://example.com/email/12",
        "--derived-from",
        "slack:#ops",
    )
    assert r.exit_code == 0, r.stdout
    assert r.json["outcome"] == "added"
    assert len(mem.fact_files()) == 1


def test_validation_order_identity_before_text_before_collection_before_scopes(mem: MemEnv) -> None:
    def code(**kw: Any) -> ErrorCode:
        base: dict[str, Any] = {
            "text": "A fact",
            "scopes": ["x"],
            "caller": CALLER,
            "session": SESSION,
            "decision": "add",
        }
        base.update(kw)
        with pytest.raises(GnoError) as ei:
            mem.engine.remember(RememberRequest(**base))
        return ei.value.code

    assert code(caller="", text="", collection="nope", scopes=[]) == ErrorCode.MEMORY_IDENTITY_REQUIRED
    assert code(text="", collection="nope", scopes=[]) == ErrorCode.MEMORY_TEXT_REQUIRED
    assert code(collection="nope", scopes=[]) == ErrorCode.MEMORY_COLLECTION_NOT_FOUND
    assert code(scopes=[], decision="merge") == ErrorCode.MEMORY_SCOPES_REQUIRED
    assert code(decision="merge") == ErrorCode.MEMORY_DECISION_INVALID


def test_identity_is_trimmed(mem: MemEnv) -> None:
    rec = add(mem, "The shed key is on the hook", caller="  agent:x  ", session="\tsess-1 ")
    assert (rec.caller, rec.session) == ("agent:x", "sess-1")
    fm, _ = split_fact(mem.fact_files()[0])
    assert (fm["memory"]["caller"], fm["memory"]["session"]) == ("agent:x", "sess-1")


def test_text_that_looks_like_front_matter_is_stored_verbatim(mem: MemEnv) -> None:
    for text in ("---", "---\nfoo: bar\n---", "--- dashes lead this fact"):
        rec = add(mem, text)
        assert rec.text == text
    st = mem.engine.status().memory
    assert st is not None and st.invalid == 0 and st.current == 3


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("Price is 5\x7f euros", None),
        ("Control \x80 char in a fact", None),
        ("Noncharacter \ufffe in a fact", None),
        ("A plain fact with odd evidence", "pasted \x7f from a terminal"),
    ],
    ids=["del", "c1", "ufffe", "source-del"],
)
def test_any_non_nul_text_is_storable(mem: MemEnv, text: str, source: str | None) -> None:
    r = remember(mem, text, decision="add", source=source)
    assert r.outcome == "added"
    st = mem.engine.status().memory
    assert st is not None and st.invalid == 0


def test_existing_is_found_even_behind_sixteen_higher_ranked_facts(mem: MemEnv) -> None:
    same = add(mem, "zeta omega")
    for i in range(20):
        add(mem, f"zeta zeta omega omega {i}")
    before = snapshot(mem.memory)
    r = remember(mem, "zeta omega", decision="add")
    assert snapshot(mem.memory) == before
    assert r.outcome == "existing"
    assert r.record.uri == same.uri


def test_receipt_from_stdin(mem: MemEnv, cli: Cli) -> None:
    add(mem, "Prod deploys from main only")
    saved = cli_recall(cli, "prod deploys")
    r = cli(
        "remember",
        "Prod deploys from main only",
        "--scope",
        "project:gno",
        "--add",
        "--receipt",
        "-",
        "--json",
        input=saved.stdout,
    )
    expect_error(r, ErrorCode.MEMORY_FENCED_REPLAY)


def test_sync_failure_is_reported_and_the_file_is_kept(mem: MemEnv, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from gno.engine import Engine

    def boom(self: Engine, coll: Any, rel_paths: set[str]) -> Any:
        raise OSError("disk on fire")

    monkeypatch.setattr(Engine, "sync_paths", boom)
    r = cli_remember(cli, "The fuse box is in the cellar", "--add")
    err = expect_error(r, ErrorCode.MEMORY_SYNC_FAILED)
    assert r.exit_code == 2
    (path,) = mem.fact_files()
    assert err["details"]["absPath"] == str(path)
    monkeypatch.undo()
    mem.engine.update()  # the documented repair: rerun `gno update`
    got = mem.engine.recall(RecallRequest(query="fuse box", scopes=["project:gno"], caller=CALLER, session=SESSION))
    assert [f.text for f in got.facts] == ["The fuse box is in the cellar"]
