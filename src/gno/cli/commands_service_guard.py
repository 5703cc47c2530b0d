"""`gno service guard check`: what the Memory Guard would do to a text, nothing stored.

Thin: read the text (argument, ``--file`` or standard input), one call into ``gno.guard.report``, render
the verdict (or ``--json``). The exit code is 0 whatever the verdict: the command reports, it does not refuse.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gno.cli.main import AppContext, emit_error, emit_json, json_option


@click.group("guard")
def guard() -> None:
    """Memory Guard: see what it would reject or redact."""


@guard.command("check")
@click.argument("text", required=False)
@click.option("--file", "file", type=click.Path(path_type=Path), default=None, help="Read the text from a file.")
@json_option
@click.pass_context
def check(ctx: click.Context, text: str | None, file: Path | None, as_json: bool) -> None:
    """Show what the guard would do to TEXT (or --file, or standard input with '-' or no argument)."""
    from gno.errors import ErrorCode, GnoError, from_exception, make_error
    from gno.guard.report import check_report, render_report

    try:
        if text is not None and file is not None:
            raise make_error(ErrorCode.INVALID_ARGUMENT, "give TEXT or --file, not both")
        if file is not None:
            if not file.is_file():
                raise make_error(ErrorCode.PATH_NOT_FOUND, f"no such file: {file}")
            text = file.read_text(encoding="utf-8", errors="replace")
        elif text is None or text == "-":
            if sys.stdin is None or sys.stdin.isatty():
                raise make_error(
                    ErrorCode.INVALID_ARGUMENT, "give TEXT, --file PATH, or pipe the text on standard input"
                )
            text = sys.stdin.read()
        report = check_report(text)
    except GnoError as err:
        emit_error(err, as_json)
        ctx.exit(err.exit_code)
    except Exception as exc:  # noqa: BLE001 - a message, never a traceback
        app: AppContext = ctx.obj
        if app is not None and app.verbose:
            raise
        failure = from_exception(exc)
        emit_error(failure, as_json)
        ctx.exit(failure.exit_code)
    else:
        if as_json:
            emit_json(report)
        else:
            for line in render_report(report):
                click.echo(line)
