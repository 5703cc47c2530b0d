"""`gno service guard check`: what the Memory Guard would do to a text, nothing stored.

Thin: read the text (argument, ``--file`` or standard input), one call into ``gno.guard.report``, render
the verdict (or ``--json``). The exit code is 0 whatever the verdict: the command reports, it does not refuse.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gno.cli.main import json_option, run


@click.group("guard")
def guard() -> None:
    """Memory Guard: see what it would reject or redact."""


def _read(text: str | None, file: Path | None) -> str:
    from gno.errors import ErrorCode, make_error

    if text is not None and file is not None:
        raise make_error(ErrorCode.INVALID_ARGUMENT, "give TEXT or --file, not both")
    if file is not None:
        if not file.is_file():
            raise make_error(ErrorCode.PATH_NOT_FOUND, f"no such file: {file}")
        return file.read_text(encoding="utf-8", errors="replace")
    if text is not None and text != "-":
        return text
    if sys.stdin is None or sys.stdin.isatty():
        raise make_error(ErrorCode.INVALID_ARGUMENT, "give TEXT, --file PATH, or pipe the text on standard input")
    return sys.stdin.read()


@guard.command("check")
@click.argument("text", required=False)
@click.option("--file", "file", type=click.Path(path_type=Path), default=None, help="Read the text from a file.")
@json_option
@click.pass_context
def check(ctx: click.Context, text: str | None, file: Path | None, as_json: bool) -> None:
    """Show what the guard would do to TEXT (or --file, or standard input with '-' or no argument)."""
    from gno.guard.report import check_report, render_report

    def render(report: dict[str, object]) -> None:
        for line in render_report(report):
            click.echo(line)

    run(ctx, as_json, lambda _engine: check_report(_read(text, file)), render)
