"""The `gno` command line: a thin click surface over the engine.

Each command parses its flags, makes one engine call and renders the result: text for people,
`--json` (the same pydantic model every surface uses) for programs. Errors are translated
exactly once, here: `{"error": {...}}` on stdout with `--json`, a one-line message on stderr
otherwise, and the exit code from the one error table. Each command's module is imported only
when that command runs (`LazyGroup`), and heavy imports stay inside commands; the console
script enters through `gno.cli.entry`, which answers `--version` and plain searches before
click is even imported.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gno import __version__

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.errors import GnoError
    from gno.models import GnoModel
    from gno.settings import Settings

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
        from gno.settings import build_settings

        return build_settings(
            index_name=self.index, config_file=self.config, inherit_parent_env=self.inherit_parent_env
        )

    def engine(self) -> Engine:
        if self._engine is None:
            from gno.engine import Engine

            self._engine = Engine(self.settings())
        return self._engine


#: the request parameters that error messages name (as every surface's wire does), worded as this
#: surface's flags: `gno recall` without a scope says `--scope`, MCP's gno_recall says `scopes`
CLI_PARAMETERS = {
    "`scopes`": "--scope",
    "`collection`": "-c/--collection",
    "`collections`": "-c/--collection",
    "`predecessorUri`": "--supersede",
    "`predecessorHash`": "--predecessor-hash",
    "`budget`": "--budget",
    "`fromLine`": "--from",
    "`lineCount`": "-l/--limit",
    "`limit`": "--limit",
    "`offset`": "--offset",
    "`since`": "--since",
    "`maxDepth`": "--max-depth",
    "`maxNodes`": "--max-nodes",
    "`maxEdges`": "--max-edges",
    "`batchSize`": "--batch-size",
    "`minScore`": "--min-score",
    "`content`: the note's text": "content: text arguments, --stdin or --file",
}


def cli_wording(message: str) -> str:
    for wire, flag in CLI_PARAMETERS.items():
        message = message.replace(wire, flag)
    return message


def emit_error(err: GnoError, as_json: bool) -> None:
    from gno.errors import one_line

    err.message = cli_wording(err.message)
    if as_json:
        click.echo(json.dumps(err.to_body(), ensure_ascii=False, indent=2))
    else:
        click.echo(f"error [{err.code}]: {one_line(err.message)}", err=True)


def emit_json(model: GnoModel | dict[str, Any]) -> None:
    data = model if isinstance(model, dict) else model.dump()
    click.echo(json_text(data))


def echo_text(text: tuple[str, str]) -> None:
    """Print a renderer's `(stdout, stderr)` (`gno.cli.render_docs`): what a cold process writes too."""
    out, err = text
    if out:
        click.echo(out, nl=False)
    if err:
        click.echo(err, nl=False, err=True)


def json_text(data: Any) -> str:
    """The one JSON rendering of a result (also used by the cold-start path in `gno.cli.entry`)."""
    return json.dumps(data, ensure_ascii=False, indent=2)


def run(
    ctx: click.Context,
    as_json: bool,
    fn: Callable[[Engine], T],
    render: Callable[[T], None],
    *,
    canonical: bool = False,
) -> None:
    """Run one engine call and render it; every failure ends here with the right exit code.

    `canonical`: `--json` prints the result's canonical JSON bytes (a Capsule is budgeted as those).
    """
    from gno.errors import GnoError, from_exception

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
        failure = missing_extra_error(exc, f"`{ctx.command_path}`") or from_exception(exc)
        emit_error(failure, as_json)
        ctx.exit(failure.exit_code)
    else:
        if as_json and canonical:
            from gno.evidence.canonical import canonical_json

            click.echo(canonical_json(result.dump()))  # type: ignore[attr-defined]
        elif as_json:
            from gno.models import GnoModel

            wire = getattr(result, "wire", None)  # plain-data results (SearchPage) know their wire shape
            if callable(wire):
                emit_json(wire())
            else:
                emit_json(result if isinstance(result, GnoModel | dict) else {"result": result})
        else:
            render(result)


def missing_extra_error(exc: BaseException, needed_for: str) -> GnoError | None:
    """EXTRA_MISSING when `exc` is an optional dependency that is not installed."""
    if not isinstance(exc, ImportError):
        return None
    from gno.extras import from_import_error

    return from_import_error(exc, needed_for)


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
lock_wait_option = click.option(
    "--lock-wait",
    default=None,
    metavar="DURATION",
    help="How long to wait for the write lease (e.g. 120s, 2m). Default 120s.",
)
no_wait_option = click.option("--no-wait", is_flag=True, help="Fail at once if another writer holds the lease.")
request_id_option = click.option(
    "--request-id",
    default=None,
    metavar="ID",
    help="Retry-safe write: a retry with the same ID replays the first result and writes nothing.",
)


def lock_wait_seconds(lock_wait: str | None, no_wait: bool) -> float | None:
    from gno.lease import parse_duration

    if no_wait:
        return 0.0
    return None if lock_wait is None else parse_duration(lock_wait)


#: command name → module of `gno.cli` defining it; a command missing here is still found (slowly).
COMMAND_MODULES: dict[str, str] = {
    **dict.fromkeys(("init", "collection", "update", "status", "demo"), "commands_core"),
    **dict.fromkeys(("search", "get", "multi-get", "ls"), "commands_read"),
    **dict.fromkeys(("embed", "index", "vsearch", "query", "bench"), "commands_retrieve"),
    **dict.fromkeys(("remember", "recall", "audit", "memory"), "commands_memory"),
    **dict.fromkeys(("context", "changes", "diff", "impact", "links", "backlinks", "ask"), "commands_evidence"),
    **dict.fromkeys(("serve", "mcp", "capture", "request-status"), "commands_serve"),
    **dict.fromkeys(("agents", "skill"), "commands_agents"),
    "service": "commands_service",
    "daemon": "commands_daemon",
    "completion": "commands_completion",
    "graph": "commands_graph",
    **dict.fromkeys(("similar", "tags", "doctor"), "commands_vault"),
}


class LazyGroup(click.Group):
    """Imports a command's module when the command is looked up, so `gno recall` loads no
    REST, MCP or vector code; listing the commands (`gno --help`) imports them all."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            _load(module)
        found = super().get_command(ctx, cmd_name)
        if found is None and not _ALL_LOADED:
            _load_all()
            found = super().get_command(ctx, cmd_name)
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        _load_all()
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            quiet_closed_stdout()
            raise click.exceptions.Exit(0) from None


def quiet_closed_stdout() -> None:
    """`gno status | head -1`: the reader left, which is no error (exit 0, nothing on stderr).

    stdout now points at /dev/null, so the interpreter's final flush has nowhere to fail."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


_LOADED: set[str] = set()
_ALL_LOADED = False


def _load(module: str) -> None:
    if module in _LOADED:
        return
    import importlib

    _LOADED.add(module)
    for cmd in importlib.import_module(f"gno.cli.{module}").COMMANDS:
        cli.add_command(cmd)


def _load_all() -> None:
    global _ALL_LOADED
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        _load(module)
    _ALL_LOADED = True


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--index", "index", default=None, metavar="NAME", help="Index name (default: default).")
@click.option(
    "--config",
    "config",
    default=None,
    metavar="PATH",
    help="Config file (default: $GNO_CONFIG_DIR/index.yml).",
)
@click.option("--verbose", is_flag=True, help="Show tracebacks for unexpected errors.")
@click.option(
    "--no-daemon",
    is_flag=True,
    help="Run in this process even when a resident owner (gno daemon/serve) answers (or GNO_NO_DAEMON=1).",
)
@click.version_option(__version__, prog_name="gno")
@click.pass_context
def cli(ctx: click.Context, index: str | None, config: str | None, verbose: bool, no_daemon: bool) -> None:
    """gno: a local-first knowledge engine and agent memory over folders of markdown.

    \b
    Retrieval ladder:  search → recall → query → context build → changes/diff/impact → ask → diagnose
    Writes:            edit a note · capture a new note · remember one fact
    """
    ctx.obj = AppContext(index, config, verbose)


def usage_error(e: click.ClickException, as_json: bool) -> None:
    """A click usage error as one VALIDATION line that names the command's --help (the fix)."""
    from gno.errors import ValidationError

    ctx = getattr(e, "ctx", None)
    while ctx is not None and ctx.command.hidden and ctx.parent is not None:
        ctx = ctx.parent  # `gno query x` runs the hidden `gno query run`: its help is `gno query --help`
    where = f"; see `{ctx.command_path} --help`" if ctx is not None else ""
    emit_error(ValidationError(e.format_message().removesuffix(".") + where), as_json)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: click usage errors exit 1 (validation), never 2 (runtime)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        rv = cli.main(args=args, prog_name="gno", standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        usage_error(e, "--json" in args)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except ImportError as exc:  # a command that imports an optional extra outside `run`
        words = [a for a in args if not a.startswith("-")]
        err = missing_extra_error(exc, f"`gno {words[0]}`" if words else "`gno`")
        if err is None:
            raise
        emit_error(err, "--json" in args)
        sys.exit(err.exit_code)
    sys.exit(rv if isinstance(rv, int) else 0)
