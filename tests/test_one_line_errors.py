"""Every error a user can cause is one line: `error [CODE]: what went wrong and the fix`, with the
exit code from the table; never pydantic's multi-line dump with a URL, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from pydantic import BaseModel, field_validator

from gno.cli.main import cli, main
from gno.config import Settings
from gno.errors import ErrorCode, RuntimeFailure, ValidationError, from_exception, one_line


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ei:
        main(list(args))
    out = capsys.readouterr()
    code = ei.value.code
    return int(code if isinstance(code, int) else 1), out.out, out.err


def test_a_collection_name_with_a_space_is_one_line_naming_a_valid_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, settings: Settings
) -> None:
    (tmp_path / "My Notes").mkdir()
    assert _run(capsys, "init")[0] == 0
    cfg = settings.config_path
    before = cfg.read_bytes()
    code, out, err = _run(capsys, "collection", "add", str(tmp_path / "My Notes"), "--name", "My Notes")
    assert code == 1
    assert err == (
        "error [VALIDATION]: invalid collection name 'My Notes': use lowercase letters, digits, '_' and '-' "
        "(at most 64, starting with a letter or digit), e.g. --name my-notes\n"
    )
    code, out, _ = _run(capsys, "collection", "add", str(tmp_path / "My Notes"), "--name", "My Notes", "--json")
    body = json.loads(out)["error"]
    assert (code, body["code"], body["details"]["suggestion"]) == (1, "VALIDATION", "my-notes")
    assert "pydantic" not in body["message"] and "\n" not in body["message"]
    assert cfg.read_bytes() == before  # nothing written
    # without --name the folder's name is turned into a valid one
    code, out, _ = _run(capsys, "collection", "add", str(tmp_path / "My Notes"), "--json")
    assert (code, json.loads(out)["name"]) == (0, "my-notes")


def _leaf_commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        sub = group.get_command(ctx, name)
        if isinstance(sub, click.Group):
            out.extend(_leaf_commands(sub, (*path, name)))
        elif sub is not None and not sub.hidden:
            out.append((*path, name))
    return out


def test_every_usage_error_is_one_line_with_its_code_and_the_help_to_read(capsys: pytest.CaptureFixture[str]) -> None:
    leaves = _leaf_commands(cli)
    assert len(leaves) > 40
    for path in leaves:
        code, out, err = _run(capsys, *path, "--no-such-option")
        assert code == 1, path
        assert out == ""
        assert err == f"error [VALIDATION]: No such option '--no-such-option'; see `gno {' '.join(path)} --help`\n", err
    code, _, err = _run(capsys, "serch", "x")
    assert code == 1 and err.count("\n") == 1 and err.startswith("error [VALIDATION]: No such command 'serch'")
    code, out, _ = _run(capsys, "search", "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "VALIDATION"


class _Model(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def _check(cls, v: str) -> str:
        if " " in v:
            raise ValueError("no spaces allowed")
        return v


def test_an_escaped_pydantic_error_becomes_one_validation_line() -> None:
    with pytest.raises(Exception) as ei:
        _Model.model_validate({"name": "a b"})
    err = from_exception(ei.value)
    assert isinstance(err, ValidationError) and err.code == ErrorCode.VALIDATION
    assert err.message == "invalid input: name: no spaces allowed"
    other = from_exception(OSError("disk\nfull"))
    assert isinstance(other, RuntimeFailure) and other.message == "OSError: disk full"
    assert one_line("a\n\n  b  \n") == "a b"
