"""CLI surface commands: serve (REST + MCP + Web UI), mcp (stdio), mcp config, capture."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gno.cli.commands_daemon import resident_lifecycle, resident_options, run_resident
from gno.cli.contract import invoke
from gno.cli.main import (
    AppContext,
    emit_error,
    emit_json,
    json_option,
    lock_wait_option,
    no_wait_option,
    request_id_option,
    run,
)
from gno.cli.render_hits import shown

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.ledger import RequestStatusResult
    from gno.models import CaptureResult


def is_loopback(host: str) -> bool:
    from gno.serving.host_origin import is_loopback_name

    return is_loopback_name(host.strip("[]").lower())


def warn_plain_http(host: str) -> None:
    """Off loopback a server speaks plain HTTP: keys and content cross the network in clear."""
    if not is_loopback(host):
        click.echo(
            f"warning: serving plain HTTP on {host}: bearer tokens and content travel unencrypted; "
            "put a TLS-terminating proxy in front for anything but a trusted network",
            err=True,
        )


def guard_options(fn: Any) -> Any:
    """`--allowed-origin` and `--allowed-host`: the Host/Origin rules of both servers (`gno.serving.host_origin`)."""
    fn = click.option(
        "--allowed-host",
        "allowed_hosts",
        multiple=True,
        help="Extra Host header name accepted (loopback names always are); NAME, NAME:PORT, .DOMAIN or '*'.",
    )(fn)
    return click.option(
        "--allowed-origin", "allowed_origins", multiple=True, help="Extra origin allowed to make writes."
    )(fn)


tool_profile_option = click.option(
    "--tool-profile",
    type=click.Choice(["core", "full"]),
    default="full",
    show_default=True,
    help="MCP tools: core (query, search, get, multi_get, context, changes, recall; capture and remember "
    "with writes) or full (every tool).",
)


def warn_exposed(host: str, allowed_hosts: tuple[str, ...]) -> None:
    """Plain HTTP off loopback, and a non-loopback bind that names no Host clients could use."""
    warn_plain_http(host)
    if not is_loopback(host) and not allowed_hosts:
        click.echo("note: only loopback Host names are accepted; add the names clients use: --allowed-host", err=True)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("-p", "--port", default=3000, show_default=True, type=int, help="Port to bind (0: any free port).")
@click.option(
    "--token-file",
    default=None,
    type=click.Path(dir_okay=False),
    help="Bearer token file (required off loopback).",
)
@guard_options
@click.option(
    "--enable-write",
    is_flag=True,
    help="Enable the MCP write tools at /mcp (or GNO_MCP_ENABLE_WRITE=1). REST writes are always on: "
    "the Web UI edits and captures through them.",
)
@tool_profile_option
@click.option("--no-watch", is_flag=True, help="Do not watch the collections (the index then needs `gno update`).")
@resident_options
@json_option
@click.pass_context
def serve(
    ctx: click.Context,
    /,
    host: str,
    port: int,
    token_file: str | None,
    allowed_origins: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    enable_write: bool,
    tool_profile: str,
    no_watch: bool,
    as_json: bool,
    **resident: Any,
) -> None:
    """Serve the REST API (/api), MCP over Streamable HTTP (/mcp) and the Web UI (/).

    While it runs it is the data directory's resident owner: it watches the collections (saves
    reach the index within about 2 s, no `gno update` needed) unless --no-watch.
    """
    from gno.errors import GnoError, ValidationError

    argv = ["serve", "--host", host, "--port", str(port), *(["--token-file", token_file] if token_file else [])]
    argv += [a for o in allowed_origins for a in ("--allowed-origin", o)]
    argv += [a for h in allowed_hosts for a in ("--allowed-host", h)]
    argv += [f for f, on in (("--enable-write", enable_write), ("--no-watch", no_watch)) if on]
    argv += ["--tool-profile", tool_profile] if tool_profile != "full" else []
    if resident_lifecycle(ctx, "serve", argv, as_json, resident):
        return

    token = None
    try:
        if token_file:
            token = Path(token_file).read_text(encoding="utf-8").strip()
            if not token:
                raise ValidationError(f"token file {token_file} is empty")
        if not is_loopback(host) and not token:
            raise ValidationError(f"binding to {host} (not loopback) requires --token-file")
    except (OSError, ValidationError) as exc:
        err = exc if isinstance(exc, ValidationError) else ValidationError(f"cannot read token file: {exc}")
        emit_error(err, False)
        ctx.exit(err.exit_code)
    from gno.http.app import create_app
    from gno.serving.listen import bind_listener, bound_port, serve_on

    try:
        sock = bind_listener(host, port)  # a busy port fails here, before anything says "serving"
    except GnoError as err:
        emit_error(err, as_json)
        ctx.exit(err.exit_code)
    app_ctx: AppContext = ctx.obj
    engine = app_ctx.engine()
    app = create_app(
        engine,
        host=host,
        token=token,
        allowed_origins=allowed_origins,
        allowed_hosts=allowed_hosts,
        enable_write=enable_write or engine.settings.flag("GNO_MCP_ENABLE_WRITE"),
        tool_profile=tool_profile,
    )
    warn_exposed(host, allowed_hosts)
    url = f"http://{host}:{bound_port(sock)}/"

    def serve_http() -> None:  # runs once this process owns the data directory: only then "serving"
        click.echo(f"gno serving {url}  (API /api, MCP /mcp, OpenAPI /openapi.json)", err=True)
        serve_on(app, sock)

    run_resident(ctx, "serve", resident, serve_http, not no_watch, url, as_json)


@click.group(invoke_without_command=True)
@click.option("--enable-write", is_flag=True, help="Enable the write tools (or GNO_MCP_ENABLE_WRITE=1).")
@tool_profile_option
@click.pass_context
def mcp(ctx: click.Context, enable_write: bool, tool_profile: str) -> None:
    """Run the MCP server over stdio (read tools; writes with --enable-write)."""
    if ctx.invoked_subcommand is not None:
        return
    from gno.mcp.server import build_mcp

    app_ctx: AppContext = ctx.obj
    app_ctx.inherit_parent_env = True
    engine = app_ctx.engine()
    srv = build_mcp(
        engine,
        enable_write=enable_write or engine.settings.flag("GNO_MCP_ENABLE_WRITE"),
        instance_id=f"stdio:{uuid.uuid4().hex[:12]}",
        tool_profile=tool_profile,
    )
    srv.run("stdio")


@mcp.command("config")
@click.option(
    "--target",
    type=click.Choice(["claude-desktop", "claude-code", "cursor"]),
    default="claude-desktop",
    show_default=True,
    help="MCP client to configure.",
)
@click.option("--enable-write", is_flag=True, help="Configure the server with write tools.")
@click.option("--write", "install", is_flag=True, help="Install into the client's config file (backup first).")
@json_option
@click.pass_context
def mcp_config(ctx: click.Context, target: str, enable_write: bool, install: bool, as_json: bool) -> None:
    """Print (or with --write install) the MCP client configuration for gno."""
    from gno.agents.mcp_config import client_config

    run(
        ctx,
        as_json,
        lambda e: client_config(e.settings, target, enable_write=enable_write, install=install),
        lambda r: click.echo(r.snippet if not install else f"Installed into {r.path}"),
    )


@click.command()
@click.argument("content", nargs=-1)
@click.option("--stdin", "from_stdin", is_flag=True, help="Read the content from standard input.")
@click.option("--file", "from_file", type=click.Path(exists=True, dir_okay=False), help="Read the content from a file.")
@click.option("-c", "--collection", default=None, help="Collection to capture into.")
@click.option("--title", default=None, help="Note title (also names the file).")
@click.option("--path", default=None, help="Exact path inside the collection.")
@click.option("--folder", "folder_path", default=None, help="Folder inside the collection (default inbox/<date>).")
@click.option("--tags", multiple=True, help="Tags (comma-separated or repeated).")
@click.option(
    "--source-kind",
    type=click.Choice(["direct", "web", "email", "meeting", "chat", "file", "api", "unknown"]),
    default="direct",
    show_default=True,
    help="Where the content came from (recorded in the note's provenance).",
)
@click.option("--source-url", default=None, help="URL of the source (provenance).")
@click.option("--source-title", default=None, help="Title of the source (provenance).")
@click.option("--source-author", default=None, help="Author of the source (provenance).")
@click.option("--source-date", default=None, help="Date of the source, ISO 8601 (provenance).")
@click.option(
    "--collision-policy",
    type=click.Choice(["error", "open_existing", "create_with_suffix"]),
    default="error",
    show_default=True,
    help="When the path exists: fail, return the existing note, or add a numeric suffix.",
)
@request_id_option
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def capture(
    ctx: click.Context,
    content: tuple[str, ...],
    from_stdin: bool,
    from_file: str | None,
    collection: str | None,
    title: str | None,
    path: str | None,
    folder_path: str | None,
    tags: tuple[str, ...],
    source_kind: str,
    source_url: str | None,
    source_title: str | None,
    source_author: str | None,
    source_date: str | None,
    collision_policy: str,
    request_id: str | None,
    lock_wait: str | None,
    no_wait: bool,
    as_json: bool,
) -> None:
    """Create a new note with provenance (a capture is creation, never an update)."""
    text = " ".join(content)
    if from_stdin:
        text = sys.stdin.read()
    elif from_file:
        text = Path(from_file).read_text(encoding="utf-8", errors="replace")
    src: dict[str, Any] = {"kind": source_kind, "url": source_url, "title": source_title, "author": source_author}
    src["date"] = source_date

    def fields(e: Engine) -> dict[str, Any]:
        opts: dict[str, Any] = {"collection": collection, "title": title, "path": path, "folder_path": folder_path}
        opts.update(source={k: v for k, v in src.items() if v is not None}, collision_policy=collision_policy)
        opts["request_id"] = request_id
        tag_list = [t.strip() for item in tags for t in item.split(",") if t.strip()]
        return {"content": text, "tags": tag_list, "caller": e.settings.default_caller(), **opts}

    def render(r: CaptureResult) -> None:
        verb = "Captured" if r.outcome == "created" else "Exists"
        if r.request is not None and r.request.replayed:
            verb = f"Already captured (request {r.request.request_id}, {r.request.committed_at})"
        click.echo(f"{verb} {shown(r.uri)} ({r.docid})\n  {r.abs_path}")

    invoke(ctx, as_json, "capture", fields, render, lock_wait=lock_wait, no_wait=no_wait)


@click.command("request-status")
@click.argument("request_id")
@json_option
@click.pass_context
def request_status(ctx: click.Context, request_id: str, as_json: bool) -> None:
    """What became of a write made with --request-id: committed, pending, expired or not_found."""

    def render(r: RequestStatusResult) -> None:
        click.echo(f"{r.request_id}: {r.status}" + (f" ({r.operation})" if r.operation else ""))
        if r.result is not None:
            click.echo(f"  {r.result.uri} ({r.result.docid})  committed {r.committed_at}")

    invoke(ctx, as_json, "request_status", {"request_id": request_id}, render)


COMMANDS = [serve, mcp, capture, request_status]
_ = emit_json
