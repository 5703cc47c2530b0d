"""What a new user trips on at the command line: every option, message and path right the first time.

Each test holds one thing a first walk through the CLI got wrong: a typo'd option searched for as
words, a hidden command's help, pydantic dumps for a wrong file, a Python dict as a summary, a cut
with no marker, a line past the end answered with nothing, two memory decisions at once, a
malformed hash or an empty scope value accepted, percent-encoded paths in human output, a closed
pipe reported as a failure, a demo folder left behind, a memory folder inside the vault refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gno.cli.main import main
from gno.config import Settings

GNO_EXE = Path(sys.executable).parent / "gno"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ei:
        main(list(args))
    out = capsys.readouterr()
    code = ei.value.code
    return (code if isinstance(code, int) else 1), out.out, out.err


def ok(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 0, (args, out, err)
    return out


@pytest.fixture
def vault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A small vault whose paths have spaces, indexed as collection `notes`."""
    root = tmp_path / "vault"
    (root / "Linking notes").mkdir(parents=True)
    (root / "Linking notes" / "Internal links.md").write_text(
        "# Internal links\n\nLink with [[Views and editing]] to embed pdf files.\n", encoding="utf-8"
    )
    (root / "Views and editing.md").write_text(
        "# Views and editing\n\n" + "".join(f"Line {i} about editing views and embed pdf.\n" for i in range(1, 41)),
        encoding="utf-8",
    )
    ok(capsys, "init")
    ok(capsys, "collection", "add", str(root), "--name", "notes")
    ok(capsys, "update")
    return root


# -- 1. options ---------------------------------------------------------------------------------


def test_search_refuses_an_unknown_long_option_instead_of_searching_for_it(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "embed pdf", "--colection", "memory", "--json")
    body = json.loads(out)["error"]
    assert (code, body["code"]) == (1, "VALIDATION")
    assert "--colection" in body["message"] and "--collection" in body["message"]  # names the typo and the fix
    code, _, err = run(capsys, "search", "embed", "--bogus")
    assert code == 1 and err.startswith("error [VALIDATION]: No such option '--bogus'") and "gno search --help" in err


def test_search_keeps_negations_options_and_words_after_a_double_dash(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `-legacy` is a negated word (click alone read it as `-l -e -g -a -c y`: collection 'y')
    body = json.loads(ok(capsys, "search", "embed", "-editing", "--json"))
    assert body["query"] == "embed -editing"
    body = json.loads(ok(capsys, "search", "embed", "-n1", "-c", "notes", "--limit=1", "--json"))
    assert body["query"] == "embed" and len(body["results"]) == 1
    body = json.loads(ok(capsys, "search", "--json", "--", "--x", "embed"))
    assert body["query"] == "--x embed"


def test_query_usage_errors_point_at_the_help_people_can_see(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "query", "x", "--bogus")
    assert code == 1
    assert "see `gno query --help`" in err and "query run" not in err


# -- 3, 4. capsule and receipt files ----------------------------------------------------------------


def test_a_malformed_capsule_or_receipt_is_one_line_naming_what_the_file_should_be(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "g2.json"
    bad.write_text('{"a": 1}', encoding="utf-8")
    code, _, err = run(capsys, "context", "verify", str(bad))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("error [VALIDATION]: not a Context Capsule: ") and "context build" in err
    assert "pydantic" not in err and "validation errors" not in err
    mem = tmp_path / "memory"
    mem.mkdir()
    ok(capsys, "collection", "add", str(mem), "--name", "memory", "--memory")
    receipt = tmp_path / "cap.json"
    receipt.write_text('{"caller": "x"}', encoding="utf-8")
    code, _, err = run(capsys, "remember", "a fact", "--scope", "p:x", "--receipt", str(receipt))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("error [VALIDATION]: not a recall receipt: ") and "recall" in err.split("expected", 1)[1]
    assert "pydantic" not in err and "validation errors" not in err


def test_context_verify_prints_a_readable_summary(
    vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cap = tmp_path / "cap.json"
    cap.write_text(ok(capsys, "context", "build", "embed pdf", "--json"), encoding="utf-8")
    last = ok(capsys, "context", "verify", str(cap)).splitlines()[-1]
    assert "{" not in last and "'" not in last
    assert last.endswith("unchanged, 0 stale, 0 missing") and "integrity intact" in last


# -- 5. cuts and line numbers -----------------------------------------------------------------------


def test_multi_get_marks_its_cut_and_says_which_lines_came_back(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.loads(ok(capsys, "multi-get", "notes/Views and editing.md", "--max-bytes", "300", "--json"))
    doc = body["documents"][0]
    assert body["truncated"] and len(doc["content"].encode()) <= 300
    assert doc["returnedLines"]["end"] - doc["returnedLines"]["start"] + 1 == len(doc["content"].split("\n"))
    out = ok(capsys, "multi-get", "notes/Views and editing.md", "--max-bytes", "300")
    end = doc["returnedLines"]["end"]
    assert f"[… cut at --max-bytes 300: lines 1-{end} of {doc['totalLines']}" in out
    assert f"--from {end + 1}]" in out


def test_get_past_the_last_line_is_an_error_not_silence(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "get", "notes/Views and editing.md:999")
    assert (code, out) == (1, "")
    assert err.startswith("error [VALIDATION]: line 999 is past the end of") and "(42 lines)" in err
    assert ok(capsys, "get", "notes/Views and editing.md:42").strip() == "Line 40 about editing views and embed pdf."


# -- 6. remember ------------------------------------------------------------------------------------


@pytest.fixture
def memory(vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    mem = tmp_path / "memory"
    mem.mkdir()
    ok(capsys, "collection", "add", str(mem), "--name", "memory", "--memory")
    return mem


def test_remember_refuses_add_with_supersede(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    added = json.loads(ok(capsys, "remember", "Prod deploys from main", "--scope", "project:x", "--add", "--json"))
    rec = added["record"]
    code, _, err = run(
        capsys, "remember", "Prod deploys from release", "--scope", "project:x", "--add",
        "--supersede", rec["uri"], "--predecessor-hash", rec["contentHash"],
    )  # fmt: skip
    assert code == 1 and err.startswith("error [MEMORY_DECISION_INVALID]: pick one decision")
    assert not list((memory / "facts").rglob("*.md"))[1:]  # still the one fact


def test_remember_reports_a_malformed_hash_as_malformed(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    added = json.loads(ok(capsys, "remember", "Prod deploys from main", "--scope", "project:x", "--add", "--json"))
    code, _, err = run(
        capsys, "remember", "Prod deploys from release", "--scope", "project:x",
        "--supersede", added["record"]["uri"], "--predecessor-hash", "deadbeef",
    )  # fmt: skip
    assert code == 1
    assert err.startswith("error [VALIDATION]: --predecessor-hash 'deadbeef' is not a contentHash")
    assert "changed since" not in err


def test_remember_refuses_a_scope_without_a_value(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "remember", "Prod deploys from main", "--scope", "project:", "--add")
    assert code == 1 and err.startswith("error [MEMORY_SCOPES_INVALID]: invalid scope 'project:'")
    assert not (memory / "facts").exists()


def test_cli_errors_word_the_cli_flags(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "recall", "deploys")
    assert code == 1 and "(--scope)" in err and "`scopes`" not in err


# -- 8. readable paths ------------------------------------------------------------------------------


def test_human_output_shows_readable_paths_and_json_keeps_exact_uris(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ("search", "embed pdf"),
        ("ls",),
        ("backlinks", "notes/Views and editing.md"),
        ("impact", "notes/Views and editing.md"),
        ("multi-get", "notes/Linking notes/Internal links.md"),
    ):
        out = ok(capsys, *args)
        assert "%20" not in out, (args, out)
        assert "Linking notes/Internal links.md" in out, (args, out)
    body = json.loads(ok(capsys, "search", "embed pdf", "--json"))
    assert "gno://notes/Linking%20notes/Internal%20links.md" in [h["uri"] for h in body["results"]]
    # the readable spelling is a ref like the exact one
    assert "Internal links" in ok(capsys, "get", "gno://notes/Linking notes/Internal links.md")


# -- 9. a closed pipe --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["status"], ["changes"], ["ls"], ["search", "embed"], ["search", "embed", "-c", "x"]])
def test_a_closed_pipe_is_no_error(vault: Path, args: list[str]) -> None:
    """`gno status | head -1`: the reader is gone before gno writes (its end closed first), so
    every write fails with EPIPE; gno exits 0 and says nothing."""
    r, w = os.pipe()
    os.close(r)
    try:
        res = subprocess.run(
            [str(GNO_EXE), *args], stdout=w, stderr=subprocess.PIPE, text=True, timeout=60, check=False
        )
    finally:
        os.close(w)
    if args[-1] == "x":  # an error is still an error (on stderr, which is open)
        assert res.returncode == 1 and "COLLECTION_NOT_FOUND" in res.stderr
        return
    assert (res.returncode, res.stderr) == (0, "")


# -- 10. demo --------------------------------------------------------------------------------------


def test_demo_without_home_leaves_no_folder_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    out = ok(capsys, "demo")
    assert "Added: " in out and "removed at the end" in out
    body = json.loads(ok(capsys, "demo", "--json"))
    assert body["homeKept"] is False and body["recall"]["facts"]
    assert list(scratch.iterdir()) == []


# -- 2. memory inside the vault ------------------------------------------------------------------------


def test_memory_inside_the_vault_as_the_readme_prints_it(
    vault: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gno collection add ~/notes/memory --name memory --memory` after `~/notes` is the vault:
    the folder is made, the vault leaves it to memory, and a fact is indexed once."""
    mem = vault / "memory"
    assert not mem.exists()
    out = ok(capsys, "collection", "add", str(mem), "--name", "memory", "--memory")
    assert mem.is_dir() and "memory" in out
    ok(capsys, "update")
    added = json.loads(
        ok(capsys, "remember", "Prod deploys from main only", "--scope", "project:gno", "--add", "--json")
    )
    assert added["outcome"] == "added"
    ok(capsys, "update")
    hits = json.loads(ok(capsys, "search", "prod deploys main", "--json"))["results"]
    assert [h["uri"] for h in hits if "mem-" in h["uri"]] == [added["record"]["uri"]]  # not also gno://notes/memory/…
    recalled = json.loads(ok(capsys, "recall", "deploy", "--scope", "project:gno", "--json"))
    assert [f["uri"] for f in recalled["facts"]] == [added["record"]["uri"]]
    # removing the memory collection gives its folder back to the vault
    ok(capsys, "collection", "remove", "memory")
    ok(capsys, "update")
    hits = json.loads(ok(capsys, "search", "prod deploys main", "--json"))["results"]
    assert [h["uri"] for h in hits if "mem-" in h["uri"]] == [
        "gno://notes/memory/" + added["record"]["uri"].split("/", 3)[3]
    ]


def test_a_vault_added_around_an_existing_memory_folder_leaves_it_to_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nembed pdf\n", encoding="utf-8")
    ok(capsys, "init")
    ok(capsys, "collection", "add", str(root / "memory"), "--name", "memory", "--memory")
    ok(capsys, "remember", "Prod deploys from main only", "--scope", "project:gno", "--add")
    ok(capsys, "collection", "add", str(root), "--name", "notes")
    ok(capsys, "update")
    hits = json.loads(ok(capsys, "search", "prod deploys", "--json"))["results"]
    assert [h["collection"] for h in hits] == ["memory"]


def test_nesting_that_would_index_files_twice_is_still_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    ok(capsys, "init")
    ok(capsys, "collection", "add", str(root), "--name", "notes")
    code, _, err = run(capsys, "collection", "add", str(root / "sub"), "--name", "sub")  # not memory
    assert code == 1 and "COLLECTION_OVERLAP" in err
    code, _, err = run(capsys, "collection", "add", str(tmp_path / "nowhere" / "x"), "--name", "x")
    assert code == 1 and "PATH_NOT_FOUND" in err
