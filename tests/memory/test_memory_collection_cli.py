"""A memory collection is made and changed from the CLI (`collection add --memory`, `collection
set --memory/--no-memory`), never by editing YAML; errors and the empty-recall hint name those
commands."""

from __future__ import annotations

from pathlib import Path

import yaml

from gno.config import Settings
from gno.errors import ErrorCode
from gno.memory.records import MEMORY_EMPTY_RECALL_HINT

from .conftest import CALLER, SESSION, Cli, expect_error
from .test_recall import write_fact_file


def _collections(settings: Settings) -> dict[str, dict[str, object]]:
    cfg = yaml.safe_load(settings.config_path.read_text(encoding="utf-8"))
    return {c["name"]: c for c in cfg["collections"]}


def _ident() -> tuple[str, ...]:
    return ("--caller", CALLER, "--session", SESSION)


def test_collection_add_memory_then_remember_and_recall_without_naming_it(
    cli: Cli, settings: Settings, tmp_path: Path
) -> None:
    (tmp_path / "facts-dir").mkdir()
    assert cli("init").exit_code == 0
    r = cli("collection", "add", str(tmp_path / "facts-dir"), "--name", "memory", "--memory")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Added memory collection memory")
    assert _collections(settings)["memory"]["memoryManaged"] is True
    assert cli("update").exit_code == 0
    added = cli("remember", "Staging deploys on Fridays", "--scope", "team", "--add", *_ident(), "--json")
    assert added.exit_code == 0 and added.json["outcome"] == "added", added.stdout + added.stderr
    got = cli("recall", "staging deploys", "--scope", "team", *_ident(), "--json")
    assert [f["text"] for f in got.json["facts"]] == ["Staging deploys on Fridays"]
    listed = cli("collection", "list", "--json").json["collections"]
    assert [(c["name"], c["memoryManaged"]) for c in listed] == [("memory", True)]


def test_init_with_memory_makes_the_first_collection_a_memory_collection(
    cli: Cli, settings: Settings, tmp_path: Path
) -> None:
    (tmp_path / "m").mkdir()
    r = cli("init", str(tmp_path / "m"), "--name", "mem", "--memory", "--json")
    assert r.exit_code == 0, r.stderr
    assert r.json["collection"]["memoryManaged"] is True
    assert _collections(settings)["mem"]["memoryManaged"] is True


def test_collection_set_turns_existing_fact_files_into_recallable_memory_and_back(
    cli: Cli, settings: Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    write_fact_file(folder, "Quarterly taxes are due in April", ["finance"])
    assert cli("init", str(folder), "--name", "plain").exit_code == 0
    assert cli("update").exit_code == 0
    refused = cli("recall", "quarterly taxes", "--scope", "finance", *_ident(), "--json")
    err = expect_error(refused, ErrorCode.MEMORY_COLLECTION_REQUIRED)
    assert "gno collection add <dir> --memory" in err["message"]
    assert "gno collection set <name> --memory" in err["message"]

    on = cli("collection", "set", "plain", "--memory")
    assert on.exit_code == 0, on.stderr
    assert on.stdout.strip() == "Collection plain is now a memory collection. Next: gno update"
    assert _collections(settings)["plain"]["memoryManaged"] is True
    assert cli("update").exit_code == 0
    got = cli("recall", "quarterly taxes", "--scope", "finance", *_ident(), "--json")
    assert [f["text"] for f in got.json["facts"]] == ["Quarterly taxes are due in April"]
    assert cli("status", "--json").json["memory"]["facts"] == 1

    off = cli("collection", "set", "plain", "--no-memory", "--json")
    assert off.exit_code == 0 and off.json["memoryManaged"] is False
    assert "memoryManaged" not in _collections(settings)["plain"]
    assert cli("update").exit_code == 0
    expect_error(cli("recall", "quarterly taxes", "--scope", "finance", *_ident(), "--json"),
                 ErrorCode.MEMORY_COLLECTION_REQUIRED)
    unmanaged = cli("remember", "x y z", "--scope", "finance", "-c", "plain", "--add", *_ident(), "--json")
    assert "gno collection set plain --memory" in expect_error(unmanaged, ErrorCode.MEMORY_COLLECTION_UNMANAGED)[
        "message"
    ]


def test_collection_set_errors_are_one_line_and_change_nothing(cli: Cli, settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "n").mkdir()
    assert cli("init", str(tmp_path / "n"), "--name", "n").exit_code == 0
    before = settings.config_path.read_bytes()
    nothing = cli("collection", "set", "n")
    assert nothing.exit_code == 1
    assert nothing.stderr == "error [VALIDATION]: nothing to change for collection 'n': pass --memory or --no-memory\n"
    expect_error(cli("collection", "set", "nope", "--memory", "--json"), ErrorCode.COLLECTION_NOT_FOUND)
    assert settings.config_path.read_bytes() == before


def test_empty_recall_hint_names_the_write_path_and_the_memory_collection_command(mem: object, cli: Cli) -> None:
    assert "gno remember" in MEMORY_EMPTY_RECALL_HINT
    assert "gno collection add <dir> --memory" in MEMORY_EMPTY_RECALL_HINT
    assert "\n" not in MEMORY_EMPTY_RECALL_HINT
    text = cli("recall", "nothing stored yet", "--scope", "project:none", *_ident())
    assert text.exit_code == 0
    assert text.stdout.splitlines()[0] == MEMORY_EMPTY_RECALL_HINT
