"""CLI end-to-end: click's CliRunner on `gno.cli.main.cli`, plus the real `gno` executable."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gno.cli.main import cli, main
from gno.config import Settings
from gno.lease import write_lease

GNO_EXE = Path(sys.executable).parent / "gno"
URIS = [
    "gno://notes/archive/old.md",
    "gno://notes/deploy.md",
    "gno://notes/projects/languages.md",
    "gno://notes/projects/runbook.md",
    "gno://notes/rollback.md",
]


def docid(path: Path) -> str:
    return "#" + hashlib.sha256(path.read_bytes()).hexdigest()[:8]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str, code: int = 0) -> Result:
    res = runner.invoke(cli, list(args))
    assert res.exit_code == code, (args, res.exit_code, res.output, res.exception)
    assert "Traceback" not in res.output
    return res


def jinvoke(runner: CliRunner, *args: str, code: int = 0) -> Any:
    res = invoke(runner, *args, "--json", code=code)
    return json.loads(res.stdout)


@pytest.fixture
def indexed(runner: CliRunner, corpus: Path) -> Path:
    """init → collection add → update through the CLI."""
    jinvoke(runner, "init")
    jinvoke(runner, "collection", "add", str(corpus), "--name", "notes")
    jinvoke(runner, "update")
    return corpus


def run_exe(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GNO_EXE), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env or dict(os.environ),
        check=False,
    )


# -- the happy path --------------------------------------------------------------------------


def test_init_add_update(runner: CliRunner, corpus: Path, settings: Settings) -> None:
    body = jinvoke(runner, "init")
    assert body == {"configPath": str(settings.config_path), "dbPath": str(settings.db_path), "created": True}
    assert settings.config_path.is_file() and settings.db_path.is_file()
    assert jinvoke(runner, "init")["created"] is False
    coll = jinvoke(runner, "collection", "add", str(corpus), "--name", "notes")
    assert coll == {
        "name": "notes",
        "path": str(corpus.resolve()),
        "pattern": "**/*.md",
        "include": [],
        "exclude": [
            ".git",
            "node_modules",
            ".venv",
            ".idea",
            "dist",
            "build",
            "__pycache__",
            ".DS_Store",
            "Thumbs.db",
        ],
        "memoryManaged": False,
        "egressPolicy": "local_only",
    }
    sync = jinvoke(runner, "update")
    assert sync["status"] == "completed"
    assert sync["collections"] == [
        {
            "name": "notes",
            "scanned": 5,
            "added": 5,
            "updated": 0,
            "unchanged": 0,
            "renamed": 0,
            "inactivated": 0,
            "reactivated": 0,
            "errors": 0,
            "warnings": 0,
            "errorPaths": [],
        }
    ]
    res = invoke(runner, "update")
    assert res.stdout.splitlines()[0] == (
        "notes: 5 files · 0 added · 0 updated · 0 renamed · 0 removed · 0 restored · 5 unchanged"
    )
    assert res.stdout.splitlines()[1].startswith("Done in ")


def test_init_with_path_adds_a_collection(runner: CliRunner, corpus: Path) -> None:
    body = jinvoke(runner, "init", str(corpus), "--name", "notes", "--pattern", "projects/**")
    assert body["collection"]["name"] == "notes"
    assert body["collection"]["pattern"] == "projects/**"
    jinvoke(runner, "update")
    assert [e["relPath"] for e in jinvoke(runner, "ls")["entries"]] == [
        "projects/languages.md",
        "projects/runbook.md",
    ]


def test_init_with_a_bad_folder_or_name_writes_nothing(runner: CliRunner, tmp_path: Path, settings: Settings) -> None:
    missing = jinvoke(runner, "init", str(tmp_path / "nowhere"), "--name", "notes", code=1)
    assert missing["error"]["code"] == "PATH_NOT_FOUND"
    bad = jinvoke(runner, "init", str(tmp_path), "--name", "Bad/Name", code=1)
    assert bad["error"]["code"] == "VALIDATION"
    assert not settings.config_path.exists()
    assert not settings.db_path.exists()
    body = jinvoke(runner, "init", str(tmp_path), "--name", "notes")
    assert body["created"] is True and body["collection"]["name"] == "notes"


def test_search_json(runner: CliRunner, indexed: Path) -> None:
    body = jinvoke(runner, "search", "deploy")
    assert body["query"] == "deploy"
    assert body["mode"] == "bm25"
    assert [h["uri"] for h in body["results"]] == [
        "gno://notes/deploy.md",
        "gno://notes/archive/old.md",
        "gno://notes/projects/runbook.md",
    ]
    top = body["results"][0]
    assert top == {
        "docid": docid(indexed / "deploy.md"),
        "uri": "gno://notes/deploy.md",
        "title": "Deploy process",
        "collection": "notes",
        "relPath": "deploy.md",
        "score": 1.0,
        "line": 7,
        "snippet": "# Deploy process",
        "snippetRange": {"startLine": 7, "endLine": 7},
        "tags": ["ops", "release"],
        "match": "all",
    }
    assert body["meta"]["totalResults"] == 3
    assert isinstance(body["meta"]["elapsedMs"], float)
    assert jinvoke(runner, "search", "xylophone")["results"] == []


def test_search_text(runner: CliRunner, indexed: Path) -> None:
    out = invoke(runner, "search", "tuesday").stdout
    assert out == (
        f"1. Deploy process  (1.00)  {docid(indexed / 'deploy.md')}\n"
        "   gno://notes/deploy.md:11\n"
        "   Production deploys happen from the main branch only, every Tuesday.\n"
        "\n"
    )
    assert invoke(runner, "search", "xylophone").stdout == "No results for 'xylophone'.\n"
    out = invoke(runner, "search", "deploy", "-n", "1").stdout
    assert out.endswith("1 of 3 matches (raise -n to see more)\n")


def test_search_files(runner: CliRunner, indexed: Path) -> None:
    out = invoke(runner, "search", "deploy", "--files").stdout
    lines = out.splitlines()
    assert [ln.split(",")[2] for ln in lines] == [
        "gno://notes/deploy.md",
        "gno://notes/archive/old.md",
        "gno://notes/projects/runbook.md",
    ]
    assert lines[0] == f"{docid(indexed / 'deploy.md')},1.0000,gno://notes/deploy.md"
    assert lines[1] == f"{docid(indexed / 'archive' / 'old.md')},0.6221,gno://notes/archive/old.md"


def test_search_line_numbers_and_full(runner: CliRunner, indexed: Path) -> None:
    out = invoke(runner, "search", "latency", "--line-numbers").stdout
    assert out.splitlines()[2:5] == [
        "      10  1. Page the on-call lead.",
        "      11  2. Check the gpt-4 gateway latency dashboard.",
        "      12  3. Follow [[deploy#Rollback|the rollback section]].",
    ]
    out = invoke(runner, "search", "tuesday", "--full", "--line-numbers").stdout
    body_lines = out.splitlines()[2:]
    file_lines = (indexed / "deploy.md").read_text(encoding="utf-8").split("\n")
    assert body_lines[0] == "       6  "
    assert body_lines[5] == "      11  " + file_lines[10]
    assert body_lines[9] == "      15  " + file_lines[14]
    full = jinvoke(runner, "search", "tuesday", "--full")["results"][0]
    assert full["bodyStartLine"] == 6
    assert full["body"] == "\n".join(file_lines[5:])


def test_search_filters(runner: CliRunner, indexed: Path) -> None:
    assert [
        h["uri"] for h in jinvoke(runner, "search", "deploy", "--tags-all", "ops,release")["results"]
    ] == [
        "gno://notes/deploy.md",
    ]
    assert [
        h["uri"] for h in jinvoke(runner, "search", "deploy", "--tags-any", "release, ops")["results"]
    ] == [
        "gno://notes/deploy.md",
        "gno://notes/projects/runbook.md",
    ]
    assert [h["uri"] for h in jinvoke(runner, "search", "deploy", "--min-score", "0.6")["results"]] == [
        "gno://notes/deploy.md",
        "gno://notes/archive/old.md",
    ]
    assert len(jinvoke(runner, "search", "deploy", "-c", "notes", "-n", "2")["results"]) == 2
    err = jinvoke(runner, "search", "deploy", "-c", "nope", code=1)
    assert err["error"]["code"] == "COLLECTION_NOT_FOUND"
    assert err["error"]["details"] == {"collection": "nope"}


def test_get(runner: CliRunner, indexed: Path) -> None:
    file_lines = (indexed / "deploy.md").read_text(encoding="utf-8").split("\n")
    out = invoke(runner, "get", "notes/deploy.md").stdout
    assert out == "\n".join(file_lines[:-1]) + "\n"
    out = invoke(
        runner, "get", docid(indexed / "deploy.md"), "--from", "9", "-l", "3", "--line-numbers"
    ).stdout
    assert out.splitlines() == [f"{n:>5}  {file_lines[n - 1]}" for n in (9, 10, 11)]
    out = invoke(runner, "get", "gno://notes/deploy.md:11", "-l", "1").stdout
    assert out == file_lines[10] + "\n"
    body = jinvoke(runner, "get", "notes/projects/runbook.md:6", "-l", "2")
    assert body["content"] == "# Runbook\n"
    assert body["returnedLines"] == {"start": 6, "end": 7}
    assert body["totalLines"] == 12
    assert body["absPath"] == str((indexed / "projects" / "runbook.md").resolve())


def test_multi_get(runner: CliRunner, indexed: Path) -> None:
    body = jinvoke(
        runner, "multi-get", "notes/deploy.md,notes/nope.md", "#00000000", "gno://notes/rollback.md"
    )
    assert [d["uri"] for d in body["documents"]] == ["gno://notes/deploy.md", "gno://notes/rollback.md"]
    assert [(e["ref"], e["code"]) for e in body["errors"]] == [
        ("notes/nope.md", "NOT_FOUND"),
        ("#00000000", "NOT_FOUND"),
    ]
    assert body["truncated"] is False
    res = invoke(runner, "multi-get", "notes/archive/old.md,notes/nope.md")
    assert res.stdout.startswith("==> gno://notes/archive/old.md (")
    assert "The legacy deploy used a cron job on the build host." in res.stdout
    assert res.stderr.startswith("error [NOT_FOUND]: notes/nope.md: ")
    body = jinvoke(runner, "multi-get", "notes/deploy.md", "--max-bytes", "10")
    assert body["truncated"] is True
    doc = body["documents"][0]  # cut after the last whole line that fits, and says which lines came back
    assert (doc["content"], doc["returnedLines"]) == ("---", {"start": 1, "end": 1})


def test_ls(runner: CliRunner, indexed: Path) -> None:
    assert [e["uri"] for e in jinvoke(runner, "ls")["entries"]] == URIS
    assert jinvoke(runner, "ls", "gno://notes/projects/")["total"] == 2
    out = invoke(runner, "ls", "notes/archive/").stdout
    assert out == f"{docid(indexed / 'archive' / 'old.md')}  gno://notes/archive/old.md  Old notes\n"
    err = jinvoke(runner, "ls", "nope", code=1)
    assert err["error"]["code"] == "COLLECTION_NOT_FOUND"


def test_status(runner: CliRunner, indexed: Path, settings: Settings) -> None:
    body = jinvoke(runner, "status")
    assert body["indexName"] == "default"
    assert body["dbPath"] == str(settings.db_path)
    assert body["dbExists"] is True
    assert body["documents"] == 5
    assert body["chunks"] == 0  # chunks are cut by `gno embed`, not by `gno update`
    assert body["vectors"]["pendingDocuments"] == 5
    # indexed but not embedded: not "healthy", and the next step is named
    assert body["healthy"] is False
    assert body["nextSteps"] == ["5 documents not yet chunked and embedded — run `gno embed`"]
    assert body["ingestErrors"] == []
    assert body["sizeBytes"] > 0
    assert body["collections"] == [
        {
            "name": "notes",
            "path": str(indexed.resolve()),
            "pathExists": True,
            "memoryManaged": False,
            "active": 5,
            "inactive": 0,
            "chunks": 0,
            "errors": 0,
            "warnings": 0,
        }
    ]
    out = invoke(runner, "status").stdout
    assert "Documents 5 · chunks 0" in out
    assert "  notes: 5 active, 0 inactive, 0 errors, 0 warnings" in out
    assert "Next: 5 documents not yet chunked and embedded — run `gno embed`" in out and "Healthy" not in out


def test_status_lists_ingest_errors(runner: CliRunner, indexed: Path) -> None:
    (indexed / "broken.md").write_text("---\ntitle: [x\n---\nbody\n", encoding="utf-8")
    sync = jinvoke(runner, "update")["collections"][0]
    body = jinvoke(runner, "status")
    assert [(e["relPath"], e["code"], e["severity"]) for e in body["ingestErrors"]] == [
        ("broken.md", "FRONTMATTER_INVALID", "warning")
    ]
    # `update` and `status` count the same rows the same way
    assert (body["collections"][0]["errors"], body["collections"][0]["warnings"]) == (0, 1)
    assert (sync["errors"], sync["warnings"]) == (0, 1)
    again = jinvoke(runner, "update")["collections"][0]  # unchanged file: the warning still stands
    assert (again["errors"], again["warnings"], again["errorPaths"]) == (0, 1, ["broken.md"])
    out = invoke(runner, "status").stdout
    assert "Ingest errors and warnings:" in out
    assert "  notes/broken.md: warning [FRONTMATTER_INVALID] invalid YAML front matter" in out


def test_collection_list_and_remove(runner: CliRunner, indexed: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# X\n\nquokka\n", encoding="utf-8")
    jinvoke(runner, "collection", "add", str(other))  # name defaults to the folder name
    jinvoke(runner, "update")
    listed = jinvoke(runner, "collection", "list")["collections"]
    assert [(c["name"], c["documents"]) for c in listed] == [("notes", 5), ("other", 1)]
    out = invoke(runner, "collection", "list").stdout
    assert out.splitlines()[0] == f"notes  {indexed.resolve()}  (**/*.md)  5 docs"
    dup = jinvoke(runner, "collection", "add", str(other), code=1)
    assert dup["error"]["code"] == "COLLECTION_EXISTS"
    missing = jinvoke(runner, "collection", "add", str(tmp_path / "nowhere"), "--name", "x", code=1)
    assert missing["error"]["code"] == "PATH_NOT_FOUND"
    removed = jinvoke(runner, "collection", "remove", "notes")
    assert removed == {"name": "notes", "removedDocuments": 5}
    assert [c["name"] for c in jinvoke(runner, "collection", "list")["collections"]] == ["other"]
    assert [e["uri"] for e in jinvoke(runner, "ls")["entries"]] == ["gno://other/x.md"]
    assert jinvoke(runner, "search", "deploy")["results"] == []
    assert jinvoke(runner, "get", "notes/deploy.md", code=1)["error"]["code"] == "NOT_FOUND"
    assert jinvoke(runner, "collection", "remove", "notes", code=1)["error"]["code"] == "COLLECTION_NOT_FOUND"
    assert (indexed / "deploy.md").is_file()  # files are untouched


# -- errors -----------------------------------------------------------------------------------


def test_json_errors_envelope(runner: CliRunner, indexed: Path) -> None:
    cases = [
        (("get", "notes/nope.md"), 1, "NOT_FOUND"),
        (("get", "nope"), 1, "INVALID_REF"),
        (("search", "--", "-lonely"), 1, "INVALID_QUERY"),
        (("search", "AND OR NOT *"), 1, "INVALID_QUERY"),
        (("search", "x", "-n", "0"), 1, "VALIDATION"),
        (("update", "-c", "nope"), 1, "COLLECTION_NOT_FOUND"),
        (("update", "--lock-wait", "soon"), 1, "VALIDATION"),
    ]
    for args, code, err_code in cases:
        res = invoke(runner, args[0], "--json", *args[1:], code=code)
        body = json.loads(res.stdout)
        assert set(body) == {"error"}, args
        assert set(body["error"]) == {"code", "message", "details"}, args
        assert body["error"]["code"] == err_code, args
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]
        assert isinstance(body["error"]["details"], dict)
        plain = invoke(runner, *args, code=code)
        assert plain.stdout == ""
        assert plain.stderr.startswith(f"error [{err_code}]: ")


def test_hostile_queries_through_the_cli(runner: CliRunner, indexed: Path) -> None:
    assert jinvoke(runner, "search", 'C++ "unbalanced')["results"] == []
    assert jinvoke(runner, "search", "NEAR(")["results"] == []
    assert [h["uri"] for h in jinvoke(runner, "search", "gpt-4")["results"]] == [
        "gno://notes/projects/runbook.md"
    ]


def test_runtime_error_exits_2(corpus: Path, settings: Settings) -> None:
    # a fresh process (an in-process connection could still see the old WAL)
    assert run_exe("init", str(corpus), "--name", "notes", "--json").returncode == 0
    assert run_exe("update", "--json").returncode == 0
    for suffix in ("-wal", "-shm"):
        Path(str(settings.db_path) + suffix).unlink(missing_ok=True)
    settings.db_path.write_bytes(b"this is not a sqlite database" * 100)
    r = run_exe("search", "deploy", "--json")
    assert r.returncode == 2, (r.stdout, r.stderr)
    body = json.loads(r.stdout)
    assert body["error"]["code"] == "RUNTIME"
    assert "delete it and run `gno update`" in body["error"]["message"]
    assert "Traceback" not in r.stderr


def test_usage_error_exits_1_not_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ei:
        main(["search"])
    assert ei.value.code == 1
    assert "Missing argument 'QUERY" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ei:
        main(["search", "--json"])
    assert ei.value.code == 1
    body = json.loads(capsys.readouterr().out)
    message = "Missing argument 'QUERY...'; see `gno search --help`"
    assert body == {"error": {"code": "VALIDATION", "message": message, "details": {}}}
    with pytest.raises(SystemExit) as ei:
        main(["no-such-command"])
    assert ei.value.code == 1
    with pytest.raises(SystemExit) as ei:
        main(["search", "x", "--no-such-flag"])
    assert ei.value.code == 1
    with pytest.raises(SystemExit) as ei:
        main(["--help"])
    assert ei.value.code == 0


def test_not_initialized(runner: CliRunner) -> None:
    body = jinvoke(runner, "status", code=1)
    assert body["error"]["code"] == "NOT_INITIALIZED"
    assert "gno init" in body["error"]["message"]
    assert jinvoke(runner, "update", code=1)["error"]["code"] == "NOT_INITIALIZED"


def test_demo_json(runner: CliRunner, tmp_path: Path) -> None:
    home = tmp_path / "demo-home"
    body = jinvoke(runner, "demo", "--home", str(home))
    assert body["home"] == str(home)
    c = body["sync"]["collections"][0]
    assert (c["name"], c["scanned"], c["added"], c["errors"]) == ("sample", 6, 6, 0)
    hits = body["search"]["results"]
    assert hits[0]["uri"] == "gno://sample/retrieval-ladder.md"
    assert hits[0]["score"] == 1.0
    # the memory face: one fact remembered into the scratch memory collection, then recalled
    mem = next(x for x in body["sync"]["collections"] if x["name"] == "memory")
    assert mem["scanned"] == 0
    added = body["remember"]
    assert added["outcome"] == "added" and added["record"]["uri"].startswith("gno://memory/facts/")
    assert (home / "memory" / added["record"]["uri"].removeprefix("gno://memory/")).is_file()
    facts = body["recall"]["facts"]
    assert [f["uri"] for f in facts] == [added["record"]["uri"]]
    assert body["recall"]["retrieval"]["mode"] == "lexical"  # no model loaded: fast and offline
    # a second run reuses the home: nothing to add, the fact is already known
    body = jinvoke(runner, "demo", "--home", str(home))
    assert body["sync"]["collections"][0]["unchanged"] == 6
    assert body["remember"]["outcome"] == "existing"
    assert len(body["recall"]["facts"]) == 1


def test_demo_text_shows_search_remember_and_recall(runner: CliRunner, tmp_path: Path) -> None:
    out = invoke(runner, "demo", "--home", str(tmp_path / "d")).stdout
    for line in ("$ gno search 'retrieval ladder'", "$ gno remember ", "Added: ", "$ gno recall ", "(1 facts, "):
        assert line in out, out
    assert "gno collection add ~/notes/memory --name memory --memory" in out


def test_demo_does_not_touch_the_user_config(runner: CliRunner, tmp_path: Path, settings: Settings) -> None:
    invoke(runner, "demo", "--home", str(tmp_path / "d"))
    assert not settings.config_path.exists()
    assert not settings.db_path.exists()


# -- the real executable ------------------------------------------------------------------------


def test_real_executable_end_to_end(corpus: Path, settings: Settings) -> None:
    assert GNO_EXE.is_file()
    r = run_exe("init", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["created"] is True
    r = run_exe("collection", "add", str(corpus), "--name", "notes", "--json")
    assert r.returncode == 0, r.stderr
    r = run_exe("update")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("notes: 5 files · 5 added")
    assert "Traceback" not in r.stderr
    r = run_exe("search", "DEC-0054", "--json")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["results"]
    assert [(h["uri"], h["line"]) for h in hits] == [("gno://notes/rollback.md", 5)]
    r = run_exe("search", "gpt-4", "--files")
    assert r.stdout == f"{docid(corpus / 'projects' / 'runbook.md')},1.0000,gno://notes/projects/runbook.md\n"
    r = run_exe("get", hits[0]["docid"], "--from", "5", "-l", "1")
    assert r.stdout == "Incident DEC-0054 showed that rollbacks must be rehearsed. #ops #incident\n"
    r = run_exe("search")
    assert r.returncode == 1
    assert "Missing argument 'QUERY" in r.stderr
    r = run_exe("get", "notes/nope.md", "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"]["code"] == "NOT_FOUND"
    assert r.stderr == ""
    r = run_exe("search", 'C++ "unbalanced', "--json")
    assert (r.returncode, json.loads(r.stdout)["results"]) == (0, [])


def test_python_dash_m(settings: Settings) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "gno", "status", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"]["code"] == "NOT_INITIALIZED"


def test_update_busy_lease_exits_4(corpus: Path, settings: Settings) -> None:
    assert run_exe("init", str(corpus), "--name", "notes", "--json").returncode == 0
    with write_lease(settings.lease_path, 0):
        r = run_exe("update", "--lock-wait", "0.2s", "--json")
        assert r.returncode == 4, (r.stdout, r.stderr)
        body = json.loads(r.stdout)
        assert body["error"]["code"] == "LOCKED"
        assert body["error"]["details"] == {"lease": str(settings.lease_path), "waitSeconds": 0.2}
        assert "--lock-wait" in body["error"]["message"]
        r = run_exe("update", "--no-wait")
        assert r.returncode == 4
        assert r.stderr.startswith("error [LOCKED]: ")
        # readers are never blocked by the write lease
        r = run_exe("status", "--json")
        assert r.returncode == 0, r.stderr
    r = run_exe("update", "--lock-wait", "0.2s", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["collections"][0]["added"] == 5
