"""`gno service …`: the multi-tenant team memory service — keys, accounts, workspaces, serve.

Thin like every surface: each command opens the service database (`--database`, else
`GNO_SERVICE_DATABASE`, else `<data dir>/service/service.sqlite`), makes one call into
`gno.service` and renders the result (text, or `--json`: the same pydantic model as everywhere).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gno.cli.commands_serve import guard_options
from gno.cli.main import AppContext, emit_error, emit_json, json_option

if TYPE_CHECKING:
    from gno.service.backend import Backend
    from gno.service.service_settings import ServiceSettings

T = TypeVar("T")
_DB = "gno.service.compose"
database_option = click.option(
    "--database",
    default=None,
    metavar="URL",
    help="sqlite:///path (default <data dir>/service/service.sqlite), postgresql://… or embedded-postgres:<dir>.",
)


def _settings(ctx: click.Context, database: str | None = None, embedder: str | None = None) -> ServiceSettings:
    from gno.service.service_settings import service_settings

    app: AppContext = ctx.obj
    return service_settings(app.settings(), database=database or ctx.meta.get(_DB), embedder=embedder)


def _invoke(ctx: click.Context, as_json: bool, fn: Callable[[Backend], T], render: Callable[[T], None]) -> None:
    """Open the database, run `fn`, close; every failure ends with the error table's exit code."""
    from gno.errors import GnoError, from_exception
    from gno.service.compose import open_database

    try:
        db = open_database(_settings(ctx).database)
        try:
            result = fn(db.backend)
        finally:
            db.close()
    except GnoError as err:
        emit_error(err, as_json)
        ctx.exit(err.exit_code)
    except Exception as exc:  # noqa: BLE001 - a message, never a traceback
        app: AppContext = ctx.obj
        if app.verbose:
            raise
        failure = from_exception(exc)
        emit_error(failure, as_json)
        ctx.exit(failure.exit_code)
    else:
        if as_json:
            emit_json(result.model_dump(mode="json") if hasattr(result, "model_dump") else {"result": result})
        else:
            render(result)


@click.group("service")
@database_option
@click.pass_context
def service(ctx: click.Context, database: str | None) -> None:
    """Team memory service: access keys, accounts, workspaces and the HTTP + MCP server."""
    ctx.meta[_DB] = database


@service.group("key")
def key() -> None:
    """Create, revoke and list access keys (a key belongs to one project)."""


def tenant_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--tenant NAME` (by name only) or `--tenant-id ID` (an existing account, by its id)."""
    fn = click.option(
        "--tenant-id", default=None, help="Account by its id (t-…), which must exist; never matched against names."
    )(fn)
    return click.option("--tenant", default=None, help="Account by name [default: default].")(fn)


@key.command("create")
@click.option("--project", required=True, help="Project the key belongs to (created if new).")
@tenant_options
@json_option
@click.pass_context
def key_create(ctx: click.Context, project: str, tenant: str | None, tenant_id: str | None, as_json: bool) -> None:
    """Create an access key; it is printed once and stored only as a hash."""
    from gno.service.tenancy import create_key

    def render(k: Any) -> None:
        click.echo(f"key {k.key}")
        click.echo(f"id {k.key_id}  project {k.project} ({k.project_id})  tenant {k.tenant} ({k.tenant_id})")
        click.echo("Store the key now: it is shown only once.", err=True)

    _invoke(ctx, as_json, lambda b: create_key(b, project, _name(tenant, tenant_id), tenant_id=tenant_id), render)


@key.command("revoke")
@click.argument("ref", metavar="KEY_ID_OR_KEY")
@json_option
@click.pass_context
def key_revoke(ctx: click.Context, ref: str, as_json: bool) -> None:
    """Revoke a key by its id (key_…) or by the key itself."""
    from gno.service.tenancy import revoke_key

    _invoke(ctx, as_json, lambda b: revoke_key(b, ref), lambda k: click.echo(f"revoked {k.key_id} ({k.revoked_at})"))


@key.command("list")
@json_option
@click.pass_context
def key_list(ctx: click.Context, as_json: bool) -> None:
    """List keys (ids and prefixes only; keys themselves are never stored)."""
    from gno.service.tenancy import list_keys

    def render(result: Any) -> None:
        for k in result.keys:
            state = f"revoked {k.revoked_at}" if k.revoked_at else "active"
            click.echo(f"{k.key_id}  {k.prefix}…  {k.tenant}/{k.project}  created {k.created_at}  {state}")

    _invoke(ctx, as_json, list_keys, render)


@service.group("account")
def account() -> None:
    """Account (tenant) administration."""


@account.command("set-state")
@click.argument("args", nargs=-1, metavar="[TENANT] STATE")
@click.option("--tenant-id", default=None, help="Name the account by its id (t-…) instead of TENANT.")
@json_option
@click.pass_context
def account_set_state(ctx: click.Context, args: tuple[str, ...], tenant_id: str | None, as_json: bool) -> None:
    """Set an account's state: active, read_only (grace period) or suspended (TENANT is a name)."""
    from gno.service.tenancy import STATES, set_account_state

    if len(args) != (1 if tenant_id else 2) or args[-1] not in STATES:
        states = ", ".join(STATES)
        raise click.UsageError(f"set-state TENANT STATE, or set-state STATE --tenant-id ID (STATE: {states})")
    tenant = args[0] if len(args) == 2 else None
    _invoke(
        ctx,
        as_json,
        lambda b: set_account_state(b, tenant, args[-1], tenant_id=tenant_id),
        lambda t: click.echo(f"{t.tenant} {t.state}"),
    )


@service.group("workspace")
def workspace() -> None:
    """Workspace administration."""


@workspace.command("delete")
@click.argument("name")
@click.option("--project", required=True, help="Project that owns the workspace.")
@tenant_options
@json_option
@click.pass_context
def workspace_delete(
    ctx: click.Context, name: str, project: str, tenant: str | None, tenant_id: str | None, as_json: bool
) -> None:
    """Delete a workspace: its records are forgotten and the name can never be reused."""
    from gno.service.tenancy import delete_workspace

    _invoke(
        ctx,
        as_json,
        lambda b: delete_workspace(b, name, project, _name(tenant, tenant_id), tenant_id=tenant_id),
        lambda w: click.echo(f"deleted workspace {w.workspace} of {w.project} ({w.forgotten} records forgotten)"),
    )


def _name(tenant: str | None, tenant_id: str | None) -> str | None:
    """The account name to resolve: the given one, `default` when neither name nor id is given."""
    return tenant if tenant is not None or tenant_id is not None else "default"


@service.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8700, show_default=True, type=int, help="Port to bind (0: any free port).")
@guard_options
@database_option
@click.option("--embedder", default=None, metavar="SPEC", help="Embedder (default MiniLM; 'none' for lexical only).")
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    allowed_hosts: tuple[str, ...],
    allowed_origins: tuple[str, ...],
    database: str | None,
    embedder: str | None,
) -> None:
    """Serve POST /v1/memory/remember|search|forget|validate_memory and MCP at /mcp (bearer keys).

    Like `gno serve`, it answers only to loopback Host names, the bind address and --allowed-host
    (421 HOST_NOT_ALLOWED otherwise), and refuses writes from a foreign Origin.
    """
    from gno.cli.commands_serve import warn_exposed
    from gno.errors import GnoError
    from gno.service.compose import serve as run_server

    warn_exposed(host, allowed_hosts)
    try:
        settings = _settings(ctx, database, embedder)
        run_server(
            settings,
            host=host,
            port=port,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            announce=lambda line: click.echo(line, err=True),
        )
    except GnoError as err:
        emit_error(err, False)
        ctx.exit(err.exit_code)


def _add_guard() -> None:
    from gno.cli.commands_service_guard import guard

    service.add_command(guard)


_add_guard()
COMMANDS: list[click.Command] = [service]
