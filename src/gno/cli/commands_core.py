"""CLI commands that manage the index: init, collection, update, status, demo."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gno.cli.contract import invoke
from gno.cli.main import json_option, lock_wait_option, no_wait_option
from gno.cli.render_hits import shown

if TYPE_CHECKING:
    from gno.models import (
        CollectionInfo,
        CollectionList,
        CollectionRemoved,
        InitResult,
        StatusResult,
        SyncResult,
    )
    from gno.writes.rename import CollectionRenamed


F = TypeVar("F", bound=Callable[..., Any])

memory_option = click.option(
    "--memory",
    "memory_managed",
    is_flag=True,
    help="A memory collection: `gno remember` writes fact files into it and `gno recall` reads them.",
)


def new_collection_options(name: tuple[str, ...], helps: tuple[str, str, str]) -> Callable[[F], F]:
    """What a new collection takes besides its folder (`init PATH`, `collection add`): `--name`
    (spelled `name`), `--pattern`, `--include`, `--exclude` (helped by `helps`) and `--memory`."""
    name_help, include_help, exclude_help = helps

    def apply(fn: F) -> F:
        for option in (
            memory_option,
            click.option("--exclude", multiple=True, help=exclude_help),
            click.option("--include", multiple=True, help=include_help),
            click.option("--pattern", default=None, help='Glob of files to index (default "**/*.md").'),
            click.option(*name, default=None, help=name_help),
        ):
            fn = option(fn)
        return fn

    return apply


@click.command()
@click.argument("path", required=False)
@new_collection_options(
    ("--name",),
    (
        "Collection name for PATH (default: the folder name).",
        "Extension allowlist, e.g. --include .md (repeatable).",
        "Folder names to skip (repeatable).",
    ),
)
@json_option
@click.pass_context
def init(ctx: click.Context, /, path: str | None, as_json: bool, **new: Any) -> None:
    """Create the config and the index; optionally add PATH as a first collection."""

    def render(r: InitResult) -> None:
        click.echo(("Created " if r.created else "Found ") + f"config {r.config_path}")
        click.echo(f"Index   {r.db_path}")
        if r.collection:
            click.echo(f"Added collection {r.collection.name} → {r.collection.path}. Next: gno update")
        elif r.created:
            click.echo("Next: gno collection add <folder> --name <name>, then gno update")

    invoke(ctx, as_json, "init", {"path": path, **new}, render)


@click.group()
def collection() -> None:
    """Add, list, change and remove collections (folders of markdown)."""


def _render_coll(c: CollectionInfo) -> None:
    flags = " [memory]" if c.memory_managed else ""
    docs = "" if c.documents is None else f"  {c.documents} docs"
    click.echo(f"{c.name}{flags}  {c.path}  ({c.pattern}){docs}")


@collection.command("add")
@click.argument("path")
@new_collection_options(
    ("-n", "--name"),
    (
        "Collection name (default: the folder name).",
        "Extension allowlist (repeatable).",
        "Folder names to skip (repeatable; replaces the defaults).",
    ),
)
@json_option
@click.pass_context
def collection_add(ctx: click.Context, /, path: str, as_json: bool, **new: Any) -> None:
    """Add the folder PATH as a collection. Run `gno update` to index it.

    With --memory the collection holds agent memory: `gno remember` writes fact files into it
    and `gno recall` reads them.
    """

    def render(c: CollectionInfo) -> None:
        kind = "memory collection" if c.memory_managed else "collection"
        click.echo(f"Added {kind} {c.name} → {c.path}. Next: gno update")

    invoke(ctx, as_json, "collection_add", {"path": path, **new}, render)


@collection.command("set")
@click.argument("name")
@click.option(
    "--memory/--no-memory",
    "memory_managed",
    default=None,
    help="Make NAME a memory collection (accepts `gno remember`, read by `gno recall`), or a plain one.",
)
@json_option
@click.pass_context
def collection_set(ctx: click.Context, name: str, memory_managed: bool | None, as_json: bool) -> None:
    """Change the settings of collection NAME in the config; `gno update` applies them to the index."""

    def render(c: CollectionInfo) -> None:
        kind = "a memory collection" if c.memory_managed else "a plain collection (no memory records)"
        click.echo(f"Collection {c.name} is now {kind}. Next: gno update")

    invoke(ctx, as_json, "collection_set", {"name": name, "memory_managed": memory_managed}, render)


@collection.command("list")
@json_option
@click.pass_context
def collection_list(ctx: click.Context, as_json: bool) -> None:
    """List the configured collections."""

    def render(r: CollectionList) -> None:
        if not r.collections:
            click.echo("No collections yet: gno collection add <folder> --name <name>")
        for c in r.collections:
            _render_coll(c)

    invoke(ctx, as_json, "collections", {}, render)


@collection.command("rename")
@click.argument("collection", metavar="NAME")
@click.argument("new_name", metavar="NEW_NAME")
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def collection_rename(
    ctx: click.Context, collection: str, new_name: str, lock_wait: str | None, no_wait: bool, as_json: bool
) -> None:
    """Rename collection NAME to NEW_NAME without re-reading its files.

    Its gno:// URIs, the change journal, memory facts' references and the request-ID ledger follow
    (a retry replays the new URIs); notes whose front matter still names the old URIs are listed
    (gno does not edit them).
    """

    def render(r: CollectionRenamed) -> None:
        click.echo(f"Renamed collection {r.old_name} → {r.new_name}: {r.documents} documents, no file re-read")
        if r.rewritten_facts:
            click.echo(f"  {len(r.rewritten_facts)} memory facts now reference gno://{r.new_name}/")
        if r.request_outcomes:
            click.echo(f"  {r.request_outcomes} request-ID outcomes now replay gno://{r.new_name}/ URIs")
        for uri in r.stale_references:
            click.echo(f"  still names gno://{r.old_name}/: {shown(uri)}")
        for warning in r.warnings:
            click.echo(f"warning: {warning}", err=True)

    fields = {"collection": collection, "new_name": new_name}
    invoke(ctx, as_json, "collection_rename", fields, render, lock_wait=lock_wait, no_wait=no_wait)


@collection.command("remove")
@click.argument("name")
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def collection_remove(ctx: click.Context, name: str, lock_wait: str | None, no_wait: bool, as_json: bool) -> None:
    """Remove collection NAME from the config and its documents from search (files are untouched).

    Its rows and vectors stay in the index, so adding the folder back needs no re-embedding;
    `gno update --prune` drops them.
    """

    def render(r: CollectionRemoved) -> None:
        click.echo(
            f"Removed collection {r.name}: {r.removed_documents} documents left search; their rows and "
            "vectors stay until `gno update --prune`"
        )

    invoke(ctx, as_json, "collection_remove", {"name": name}, render, lock_wait=lock_wait, no_wait=no_wait)


def _progress_factory(as_json: bool):  # type: ignore[no-untyped-def]
    """A rich progress bar on a terminal; nothing when piped or with --json."""
    if as_json or not sys.stderr.isatty():
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    prog = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
    )
    tasks: dict[str, int] = {}

    def update(coll: str, done: int, total: int) -> None:
        if coll not in tasks:
            tasks[coll] = int(prog.add_task(f"sync {coll}", total=total))
        prog.update(tasks[coll], completed=done)  # type: ignore[arg-type]

    return prog, update


@click.command()
@click.option("-c", "--collection", "collections", multiple=True, help="Only these collections (repeatable).")
@click.option("--force", is_flag=True, help="Re-read and re-parse every file, even unchanged ones.")
@click.option(
    "--prune",
    is_flag=True,
    help="Also drop the rows and vectors of collections no longer in the config (and allow emptying the index).",
)
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def update(
    ctx: click.Context,
    collections: tuple[str, ...],
    force: bool,
    prune: bool,
    lock_wait: str | None,
    no_wait: bool,
    as_json: bool,
) -> None:
    """Sync the index with the files (lexical index; no models)."""
    prog, cb = _progress_factory(as_json)

    fields: dict[str, Any] = {"collections": collections, "force": force, "prune": prune}

    def render(r: SyncResult) -> None:
        from gno.cli.render_sync import sync_lines

        for line in sync_lines(r.collections, r.detached_collections, r.duration_ms, pruned=r.pruned):
            click.echo(line)

    with prog or contextlib.nullcontext():
        invoke(ctx, as_json, "update", fields, render, lock_wait=lock_wait, no_wait=no_wait, progress=cb)


@click.command()
@json_option
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Index health: collections, document counts, ingest errors, memory records."""

    def render(r: StatusResult) -> None:
        from gno.cli.main import echo_text
        from gno.cli.render_docs import status_text

        echo_text(status_text(r))

    invoke(ctx, as_json, "status", {}, render)


@click.command()
@click.option("--home", default=None, help="Folder for the demo's config and index (default: a temp folder).")
@click.option("--query", default="retrieval ladder", show_default=True, help="What to search for.")
@json_option
@click.pass_context
def demo(ctx: click.Context, home: str | None, query: str, as_json: bool) -> None:
    """Index the sample notes shipped with gno in a scratch home and search them."""
    from gno.cli.render_demo import render_demo

    invoke(ctx, as_json, "demo", {"home": home, "query": query}, render_demo)


COMMANDS = [init, collection, update, status, demo]
