"""CLI commands that look after the vault: similar, tags (list, add, rm), doctor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gno.cli.contract import invoke
from gno.cli.main import json_option, lock_wait_option, no_wait_option, request_id_option
from gno.cli.render_hits import shown

if TYPE_CHECKING:
    from gno.doctor import DoctorResult
    from gno.retrieve.similar import SimilarResult
    from gno.writes.tags import TagsEditResult, TagsResult


@click.command()
@click.argument("ref")
@click.option("-n", "--limit", default=5, show_default=True, type=int, help="Neighbours to list (1..50).")
@click.option("--threshold", default=None, type=float, help="Lowest score to list (default: no cut).")
@click.option("--cross-collection", is_flag=True, help="Look in every collection (default: REF's own).")
@json_option
@click.pass_context
def similar(
    ctx: click.Context, ref: str, limit: int, threshold: float | None, cross_collection: bool, as_json: bool
) -> None:
    """Documents nearest to REF by its stored vectors (needs `gno embed`)."""

    def render(r: SimilarResult) -> None:
        for h in r.results:
            click.echo(f"{h.score:.3f}  {shown(h.uri)}  {h.title}")
        if not r.results:
            where = "any collection" if r.cross_collection else f"collection {r.collection}"
            click.echo(
                f"No similar documents in {where}"
                + (f" scoring >= {r.threshold}" if r.threshold is not None else ".")
            )

    fields = {"ref": ref, "limit": limit, "threshold": threshold, "cross_collection": cross_collection}
    invoke(ctx, as_json, "similar", fields, render)


def _render_tags(r: TagsResult) -> None:
    for t in r.tags:
        inline = f" ({t.inline} inline)" if t.inline else ""
        click.echo(f"{t.count:>5}  {t.tag}{inline}")
    if not r.tags:
        click.echo("No tags.")


@click.group(invoke_without_command=True)
@click.option("-c", "--collection", default=None, help="Only this collection.")
@json_option
@click.pass_context
def tags(ctx: click.Context, collection: str | None, as_json: bool) -> None:
    """Tags with their document counts (`gno tags` is `gno tags list`); add or remove a note's tags."""
    if ctx.invoked_subcommand is None:
        invoke(ctx, as_json, "tags", {"collection": collection}, _render_tags)


@tags.command("list")
@click.option("-c", "--collection", default=None, help="Only this collection.")
@json_option
@click.pass_context
def tags_list(ctx: click.Context, collection: str | None, as_json: bool) -> None:
    """Tags with the number of documents carrying each (front matter and inline #tags)."""
    invoke(ctx, as_json, "tags", {"collection": collection}, _render_tags)


def _edit_command(name: str, capability: str, doc: str) -> click.Command:
    @click.argument("ref")
    @click.argument("tags", nargs=-1, required=True)
    @request_id_option
    @lock_wait_option
    @no_wait_option
    @json_option
    @click.pass_context
    def command(ctx: click.Context, /, ref: str, tags: tuple[str, ...], request_id: str | None, **flags: Any) -> None:
        def render(r: TagsEditResult) -> None:
            if not r.changed:
                click.echo(f"{shown(r.uri)}: tags unchanged ({', '.join(r.tags) or 'none'})")
            else:
                change = [*(f"+{t}" for t in r.added), *(f"-{t}" for t in r.removed)]
                click.echo(f"{shown(r.uri)}: {' '.join(change)} → {', '.join(r.tags) or 'no tags'}")
            for t in r.kept_inline:
                click.echo(f"  #{t} stays: it is written in the body (gno edits only the front matter)", err=True)

        fields = {"ref": ref, "tags": list(tags), "request_id": request_id}
        invoke(
            ctx, flags["as_json"], capability, fields, render, lock_wait=flags["lock_wait"], no_wait=flags["no_wait"]
        )

    command.__doc__ = doc
    return tags.command(name)(command)


tags_add = _edit_command("add", "tags_add", "Add TAGS to REF's front matter (an edit; the body is untouched).")
tags_rm = _edit_command(
    "rm", "tags_rm", "Remove TAGS from REF's front matter (an edit; inline #tags in the body stay and are named)."
)


@click.command()
@json_option
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check extras, model files and hashes, the index and its full-text table, vectors, the resident
    owner and the config. Exit 0 healthy, 1 with findings (each with the command that fixes it)."""
    found: list[bool] = []

    def render(r: DoctorResult) -> None:
        for c in r.checks:
            click.echo(f"{'ok ' if c.ok else '!! '} {c.name:<8} {c.detail}")
        for f in r.findings:
            click.echo(f"[{f.severity}] {f.code}: {f.message}\n    fix: {f.fix}")
        click.echo("healthy" if r.healthy else f"{len(r.findings)} findings")

    invoke(ctx, as_json, "doctor", {}, render, on_result=lambda r: found.append(not r.healthy))
    if any(found):
        ctx.exit(1)


COMMANDS = [similar, tags, doctor]
