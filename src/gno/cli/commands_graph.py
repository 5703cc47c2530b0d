"""`gno graph`: the vault as nodes and edges (JSON for tools, a summary for people)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gno.cli.contract import invoke
from gno.cli.main import json_option
from gno.cli.render_hits import shown

if TYPE_CHECKING:
    from gno.evidence.graph_models import GraphResult

#: nodes the text rendering lists (the most linked); --json has them all
SHOWN_NODES = 15


def render_graph(r: GraphResult) -> None:
    m = r.meta
    where = f" in {m.collection}" if m.collection else ""
    kinds = ", ".join(f"{n} {t}" for t, n in m.edge_types.items()) or "none"
    click.echo(f"{m.returned_nodes} documents, {m.returned_edges} edges{where} ({kinds})")
    if m.truncated:
        click.echo(f"  of {m.total_nodes} documents and {m.total_edges} edges: raise --limit / --edge-limit for more")
    by_uri = {n.uri: n for n in r.nodes}
    out_links: dict[str, list[str]] = {}
    for e in r.edges:
        out_links.setdefault(e.source, []).append(by_uri[e.target].title or by_uri[e.target].rel_path)
    if r.nodes:
        click.echo("most linked:")
    for n in r.nodes[:SHOWN_NODES]:
        tags = " " + " ".join("#" + t for t in n.tags) if n.tags else ""
        click.echo(f"  {n.degree:>4}  {n.title or n.rel_path}  {shown(n.uri)}{tags}")
        targets = list(dict.fromkeys(out_links.get(n.uri, [])))  # a link and a `similar` edge: named once
        if targets:
            more = f" (+{len(targets) - 3})" if len(targets) > 3 else ""
            click.echo(f"        → {', '.join(targets[:3])}{more}")
    if len(r.nodes) > SHOWN_NODES:
        click.echo(f"  … {len(r.nodes) - SHOWN_NODES} more (--json lists every node and edge)")
    if not r.nodes:
        click.echo("No linked documents." + ("" if m.linked_only is False else " (--include-isolated lists them all)"))
    for w in m.warnings:
        click.echo(f"note: {w}", err=True)


@click.command()
@click.option("-c", "--collection", default=None, help="Only this collection (edges inside it).")
@click.option("--limit", default=2000, show_default=True, type=int, help="Most documents (the most linked first).")
@click.option("--edge-limit", default=10000, show_default=True, type=int, help="Most edges (between those documents).")
@click.option("--include-isolated", is_flag=True, help="Also documents without any link or relation.")
@click.option("--include-similar", is_flag=True, help="Add `similar` edges between documents with close vectors.")
@click.option("--threshold", default=0.7, show_default=True, type=float, help="Least cosine of a similar edge.")
@click.option("--similar-top-k", default=5, show_default=True, type=int, help="Similar edges per document at most.")
@json_option
@click.pass_context
def graph(
    ctx: click.Context,
    collection: str | None,
    limit: int,
    edge_limit: int,
    include_isolated: bool,
    include_similar: bool,
    threshold: float,
    similar_top_k: int,
    as_json: bool,
) -> None:
    """The vault as a graph: documents as nodes (title, collection, tags), links and typed relations as edges.

    \b
    gno graph                        most linked documents and what they link to
    gno graph -c notes --json        every node and edge of one collection, for tools
    gno graph --include-similar      plus edges between documents whose vectors are close
    """
    fields = {
        "collection": collection,
        "limit": limit,
        "edge_limit": edge_limit,
        "include_isolated": include_isolated,
        "include_similar": include_similar,
        "threshold": threshold,
        "similar_top_k": similar_top_k,
    }
    invoke(ctx, as_json, "graph", fields, render_graph)


COMMANDS = [graph]
