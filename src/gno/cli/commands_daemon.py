"""CLI: `gno daemon`, the headless resident owner (watcher, reconciliation, background embedding).

The resident options (`--detach`, `--status`, `--stop`, `--pid-file`, `--log-file`) are shared
with `gno serve`, which is the other resident owner of a data directory.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from gno.cli.main import AppContext, json_option, run

if TYPE_CHECKING:
    from gno.daemon import ResidentStatus
    from gno.daemon.autostart import ServiceFile
    from gno.daemon.resident import Kind

F = Callable[..., Any]


def resident_options(fn: F) -> F:
    """The lifecycle flags every resident owner takes."""
    for opt in reversed(
        [
            click.option("--detach", is_flag=True, help="Start in the background (output to the log file) and return."),
            click.option("--status", "show_status", is_flag=True, help="Report the running owner; exit 3 if none."),
            click.option("--stop", is_flag=True, help="Stop the running owner (SIGTERM) and wait; exit 3 if none."),
            click.option("--pid-file", default=None, metavar="PATH", help="Pid file (default <data>/<cmd>.pid)."),
            click.option("--log-file", default=None, metavar="PATH", help="Log file (default <data>/<cmd>.log)."),
            click.option("--no-sync-on-start", is_flag=True, help="Skip the reconciliation pass at start."),
            click.option(
                "--reconcile-interval",
                default="5m",
                show_default=True,
                metavar="DURATION",
                help="How often a full reconciliation pass catches what the watcher missed.",
            ),
            click.option("--no-embed", is_flag=True, help="Never embed new chunks in the background."),
        ]
    ):
        fn = opt(fn)
    return fn


def render_status(r: ResidentStatus) -> None:
    if r.stopped:
        click.echo(f"Stopped {r.kind} (pid {r.pid})")
    elif r.running:
        where = f" at {r.url}" if r.url else ""
        click.echo(f"{r.kind} running{where} (pid {r.pid}, index {r.index}, since {r.started_at})\n  log {r.log_file}")
    else:
        click.echo("not running")


def resident_lifecycle(ctx: click.Context, kind: Kind, argv: list[str], as_json: bool, opts: dict[str, Any]) -> bool:
    """Handle --status/--stop/--detach; True when one of them ran (the command is then done).

    `argv` is the command and its own flags; the resident flags in `opts` are forwarded to a
    detached child (all but --detach itself)."""
    from gno.daemon import current_owner, resident_paths, stop_owner
    from gno.daemon import detach as start_detached
    from gno.daemon.resident import not_running

    app: AppContext = ctx.obj
    detach, show_status, stop = opts["detach"], opts["show_status"], opts["stop"]
    pid_file, log_file = opts["pid_file"], opts["log_file"]
    if sum((detach, show_status, stop)) > 1:
        raise click.UsageError("--detach, --status and --stop exclude each other")
    if show_status:

        def status(e: Any) -> ResidentStatus:
            r = current_owner(e.settings, pid_file)
            if not r.running:
                raise not_running(e.settings)
            return r

        run(ctx, as_json, status, render_status)
        return True
    if stop:
        run(ctx, as_json, lambda e: stop_owner(e.settings, pid_file), render_status)
        return True
    if detach:
        prefix = [*(["--index", app.index] if app.index else []), *(["--config", app.config] if app.config else [])]
        child = [*prefix, *argv, *(["--pid-file", pid_file] if pid_file else [])]
        child += [*(["--log-file", log_file] if log_file else []), "--reconcile-interval", opts["reconcile_interval"]]
        child += [f for f in ("--no-sync-on-start", "--no-embed") if opts[f[2:].replace("-", "_")]]

        def start(e: Any) -> ResidentStatus:
            _ = e.config  # NOT_INITIALIZED before forking
            return start_detached(e.settings, resident_paths(e.settings, kind, pid_file, log_file), child)

        run(ctx, as_json, start, render_status)
        return True
    return False


def run_resident(
    ctx: click.Context,
    kind: Kind,
    opts: dict[str, Any],
    serve: Callable[[], None] | None = None,
    watch: bool = True,
    url: str | None = None,
    as_json: bool = False,
) -> None:
    """Own the data directory in the foreground (and run `serve` in it, for `gno serve`)."""
    from gno.daemon import ResidentStatus, RuntimeOptions, resident_paths, run_foreground
    from gno.errors import ValidationError
    from gno.lease import parse_duration

    def foreground(e: Any) -> ResidentStatus:
        secs = parse_duration(opts["reconcile_interval"])
        if secs < 1:
            raise ValidationError("--reconcile-interval must be at least 1s")
        runtime = RuntimeOptions(
            reconcile_interval=secs, sync_on_start=not opts["no_sync_on_start"], embed=not opts["no_embed"]
        )
        if serve is None:
            _ = e.config  # NOT_INITIALIZED names `gno init` (a server may start first and be set up later)
        paths = resident_paths(e.settings, kind, opts["pid_file"], opts["log_file"])
        run_foreground(e.settings, kind, paths, runtime, watch=watch, serve=serve, url=url)
        return ResidentStatus(running=False, stopped=True, kind=kind, pid=os.getpid(), index=e.settings.index_name)

    run(ctx, as_json, foreground, lambda _: None)


@click.group(invoke_without_command=True)
@resident_options
@json_option
@click.pass_context
def daemon(ctx: click.Context, /, as_json: bool, **opts: Any) -> None:
    """Keep the index current without a server: watch the collections, reconcile, embed.

    \b
    While it runs, every save, atomic save, rename and delete in a collection reaches the index
    within about 2 s, so `gno update` is not needed, and every `gno` command for this data
    directory is answered by it (warm: no model or import cost per call; GNO_NO_DAEMON=1 or
    --no-daemon runs one in its own process). One resident owner (daemon or serve) per data
    directory; a second one exits with ALREADY_RUNNING (exit 4).
    `gno daemon install` starts it at login (systemd user unit / launchd agent).
    """
    if ctx.invoked_subcommand is not None:
        return
    if not resident_lifecycle(ctx, "daemon", ["daemon"], as_json, opts):
        run_resident(ctx, "daemon", opts, as_json=as_json)


manager_option = click.option(
    "--manager",
    type=click.Choice(["systemd", "launchd"]),
    default=None,
    help="Service manager (default: launchd on macOS, systemd elsewhere).",
)


def render_service(r: ServiceFile) -> None:
    what = {"installed": "Wrote", "removed": "Removed", "absent": "No service file at"}[r.action]
    click.echo(f"{what} {r.path}")
    if r.action == "installed":
        click.echo(f"  start now and at login: {r.start}\n  check:                  {r.check}")
    else:
        click.echo(f"  if it still runs, stop it: {r.stop}")


@daemon.command("install")
@manager_option
@json_option
@click.pass_context
def daemon_install(ctx: click.Context, manager: str | None, as_json: bool) -> None:
    """Write a user service that runs `gno daemon` for this data directory at login.

    \b
    Linux: a systemd user unit in ~/.config/systemd/user; macOS: a launchd agent in
    ~/Library/LaunchAgents. It is written, not started: the output says how to start and check it.
    """
    from gno.daemon.autostart import default_manager, install

    app: AppContext = ctx.obj

    def write(e: Any) -> ServiceFile:
        _ = e.config  # NOT_INITIALIZED before writing a service that could only fail
        return install(e.settings, app.index, app.config, manager or default_manager())  # type: ignore[arg-type]

    run(ctx, as_json, write, render_service)


@daemon.command("uninstall")
@manager_option
@json_option
@click.pass_context
def daemon_uninstall(ctx: click.Context, manager: str | None, as_json: bool) -> None:
    """Remove the user service `gno daemon install` wrote (it says how to stop a running one)."""
    from gno.daemon.autostart import default_manager, uninstall

    run(ctx, as_json, lambda e: uninstall(e.settings, manager or default_manager()), render_service)  # type: ignore[arg-type]


COMMANDS = [daemon]
