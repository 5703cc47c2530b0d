"""The README documents every command and every error code (a drift test)."""

from __future__ import annotations

from pathlib import Path

import click

from gno.cli.main import cli
from gno.errors import ERROR_TABLE, ErrorCode

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _commands(group: click.Group, prefix: str = "gno") -> list[str]:
    out: list[str] = []
    for name, cmd in sorted(group.commands.items()):
        if cmd.hidden or name == "run":
            continue
        full = f"{prefix} {name}"
        out.append(full)
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, full))
    return out


def test_every_command_is_documented() -> None:
    missing = [c for c in _commands(cli) if f"`{c}" not in README]
    assert not missing, f"README lacks: {missing}"


def test_every_error_code_is_documented_with_its_mapping() -> None:
    for code in ErrorCode:
        m = ERROR_TABLE[code]
        row = f"| `{code.value}` | {m.exit_code} | {m.http_status} |"
        assert row in README, f"README error table lacks or misstates {code.value}: expected {row!r}"


def test_quick_start_has_two_commands_and_ci_calls_the_test_command() -> None:
    root = Path(__file__).resolve().parents[1]
    section = README.split("## Quick start", 1)[1].split("```", 2)[1]
    lines = [ln for ln in section.splitlines()[1:] if ln.strip()]
    assert len(lines) == 2
    assert "bash scripts/test.sh" in lines[1]
    assert "scripts/test.sh" in (root / ".ci" / "run").read_text(encoding="utf-8")


def test_what_enable_write_gates_on_gno_serve_is_written_down() -> None:
    """`--enable-write` gates MCP's write tools; REST writes stay on (the Web UI edits through them):
    a user reading either the README or `gno serve --help` learns both halves."""
    row = next(ln for ln in README.splitlines() if ln.startswith("| `gno serve "))
    assert "`--enable-write` gates the MCP write tools only" in row and "REST writes" in row
    from click.testing import CliRunner

    from gno.cli.main import cli

    help_text = " ".join(CliRunner().invoke(cli, ["serve", "--help"]).output.split())
    assert "REST writes are always on" in help_text
