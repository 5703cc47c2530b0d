"""The `gno` command line: a thin click surface over the engine.

Each command parses its flags, makes one engine call and renders the result: text for people,
`--json` (the same pydantic model every surface uses) for programs. Errors are translated
exactly once, here: `{"error": {...}}` on stdout with `--json`, a one-line message on stderr
otherwise, and the exit code from the one error table. Heavy imports stay inside commands so
`gno search` starts fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from gno.config import Settings
    from gno.engine import Engine
    from gno.errors import GnoError
    from gno.models import GnoModel

T = TypeVar("T")


class AppContext:
    """Per-invocation state: global flags, then lazily the settings and the engine."""

    def __init__(self, index: str | None, config: str | None, verbose: bool) -> None:
        self.index = index
        self.config = config
        self.verbose = verbose
        self.inherit_parent_env = False  # set by `gno mcp` (stdio clients strip the environment)
        self._engine: Engine | None = None

    def settings(self) -> Settings:
        from gno.config import build_settings

        return build_settings(
            index_name=self.index, config_file=self.config, inherit_parent_env=self.inherit_parent_env
        )

    def engine(self) -> Engine:
        if self._engine is None:
            from gno.engine import Engine

            self._engine = Engine(self.settings())
        return self._engine


def emit_error(err: GnoError, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(err.to_body(), ensure_ascii=False, indent=2))
    else:
        click.echo(f"error [{err.code}]: {err.message}", err=True)


def emit_json(model: GnoModel | dict[str, Any]) -> None:
    data = model if isinstance(model, dict) else model.dump()
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def run(ctx: click.Context, as_json: bool, fn: Callable[[Engine], T], render: Callable[[T], None]) -> None:
    """Run one engine call and render it; every failure ends here with the right exit code."""
    from gno.errors import ErrorCode, GnoError, RuntimeFailure

    app: AppContext = ctx.obj
    try:
        result = fn(app.engine())
    except GnoError as err:
        emit_error(err, as_json)
        ctx.exit(err.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        ctx.exit(130)
    except click.exceptions.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - surface as RUNTIME, never a traceback
        if app.verbose or os.environ.get("GNO_DEBUG"):
            raise
        failure = RuntimeFailure(f"{type(exc).__name__}: {exc}", code=ErrorCode.RUNTIME)
        emit_error(failure, as_json)
        ctx.exit(failure.exit_code)
    else:
        if as_json:
            from gno.models import GnoModel

            emit_json(result if isinstance(result, GnoModel | dict) else {"result": result})
        else:
            render(result)


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
lock_wait_option = click.option(
    "--lock-wait",
    default=None,
    metavar="DURATION",
    help="How long to wait for the write lease (e.g. 120s, 2m). Default 120s.",
)
no_wait_option = click.option("--no-wait", is_flag=True, help="Fail at once if another writer holds the lease.")


def lock_wait_seconds(lock_wait: str | None, no_wait: bool) -> float | None:
    from gno.lease import parse_duration

    if no_wait:
        return 0.0
    return None if lock_wait is None else parse_duration(lock_wait)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--index", "index", default=None, metavar="NAME", help="Index name (default: default).")
@click.option(
    "--config",
    "config",
    default=None,
    metavar="PATH",
    help="Config file (default: $GNO_CONFIG_DIR/index.yml).",
)
@click.option("--verbose", is_flag=True, help="Show tracebacks for unexpected errors.")
@click.version_option(package_name="gno", prog_name="gno")
@click.pass_context
def cli(ctx: click.Context, index: str | None, config: str | None, verbose: bool) -> None:
    """gno: a local-first knowledge engine and agent memory over folders of markdown.

    \b
    Retrieval ladder:  search → recall → query → context build → changes/diff/impact → ask → diagnose
    Writes:            edit a note · capture a new note · remember one fact
    """
    ctx.obj = AppContext(index, config, verbose)


def _register() -> None:
    from gno.cli import (
        commands_agents,
        commands_core,
        commands_evidence,
        commands_memory,
        commands_read,
        commands_retrieve,
        commands_serve,
        commands_service,
    )

    for mod in (
        commands_core,
        commands_read,
        commands_retrieve,
        commands_memory,
        commands_evidence,
        commands_serve,
        commands_agents,
        commands_service,
    ):
        for cmd in mod.COMMANDS:
            cli.add_command(cmd)


_register()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: click usage errors exit 1 (validation), never 2 (runtime)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        rv = cli.main(args=args, prog_name="gno", standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        if "--json" in args:
            body = {"error": {"code": "VALIDATION", "message": e.format_message(), "details": {}}}
            click.echo(json.dumps(body, indent=2))
        else:
            e.show()
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    sys.exit(rv if isinstance(rv, int) else 0)
