"""CLI commands of the context hints: `gno context add | list | rm | check` (beside build/verify)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gno.cli.contract import invoke
from gno.cli.main import json_option

if TYPE_CHECKING:
    from gno.hints import ContextAddResult, ContextCheckResult, ContextList, ContextRemoved

SCOPE_HELP = "SCOPE is `/` (everything), `NAME:` (a collection) or `gno://NAME/path` (a folder or file prefix)."


@click.command("add")
@click.argument("scope")
@click.argument("text", nargs=-1, required=True)
@json_option
@click.pass_context
def context_add(ctx: click.Context, scope: str, text: tuple[str, ...], as_json: bool) -> None:
    """Attach the hint TEXT to SCOPE: what the notes there are (results carry it; never evidence).

    SCOPE is `/` (everything), `NAME:` (a collection) or `gno://NAME/path` (a folder or file prefix).
    """

    def render(r: ContextAddResult) -> None:
        what = "added" if r.added else "already there"
        click.echo(f"{what}: {r.context.scope_key}  {r.context.text}")

    invoke(ctx, as_json, "context_add", {"scope": scope, "text": " ".join(text)}, render)


@click.command("list")
@json_option
@click.pass_context
def context_list(ctx: click.Context, as_json: bool) -> None:
    """List the configured context hints."""

    def render(r: ContextList) -> None:
        if not r.contexts:
            click.echo("no context hints; add one with `gno context add SCOPE TEXT`")
        for h in r.contexts:
            click.echo(f"{h.scope_key}  {h.text}")

    invoke(ctx, as_json, "context_list", {}, render)


@click.command("rm")
@click.argument("scope")
@click.argument("text", nargs=-1)
@json_option
@click.pass_context
def context_rm(ctx: click.Context, scope: str, text: tuple[str, ...], as_json: bool) -> None:
    """Remove the context hints of SCOPE (only the one saying TEXT when given)."""

    def render(r: ContextRemoved) -> None:
        for h in r.removed:
            click.echo(f"removed: {h.scope_key}  {h.text}")

    fields: dict[str, Any] = {"scope": scope, "text": " ".join(text) if text else None}
    invoke(ctx, as_json, "context_rm", fields, render)


@click.command("check")
@json_option
@click.pass_context
def context_check(ctx: click.Context, as_json: bool) -> None:
    """Check the context hints: a scope whose collection is gone, a prefix with no document."""

    def render(r: ContextCheckResult) -> None:
        for w in r.warnings:
            click.echo(f"warning: {w.scope_key}: {w.message}")
        click.echo(f"{r.contexts} context hints, {len(r.warnings)} with warnings")

    invoke(ctx, as_json, "context_check", {}, render)


HINT_COMMANDS = (context_add, context_list, context_rm, context_check)
