"""CLI commands of the semantic rungs: embed, index, vsearch, query, query diagnose, bench."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any

import click

from gno.cli.commands_read import hit_options, render_hits
from gno.cli.contract import depth_options, depth_value, invoke
from gno.cli.main import json_option, lock_wait_option, no_wait_option
from gno.cli.render_hits import shown

if TYPE_CHECKING:
    from gno.models import BenchResult, DiagnoseResult, EmbedResult, IndexResult, QueryExplain, SearchResult


def _embed_progress(as_json: bool) -> tuple[Any, Any]:
    if as_json or not sys.stderr.isatty():
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    prog = Progress(TextColumn("embed"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=True)
    task = prog.add_task("embed", total=None)

    def cb(done: int, total: int) -> None:
        prog.update(task, completed=done, total=total)

    return prog, cb


def _render_embed(r: EmbedResult) -> None:
    if r.first_pass_embedded:
        click.echo(f"First pass: {r.first_pass_embedded} chunks with {r.first_pass_model}; `query` is semantic now")
    if r.dry_run:
        click.echo(f"{r.pending} of {r.total_chunks} chunks need embedding with {r.model} (dry run)")
    elif r.first_pass_embedded and not r.embedded:
        click.echo(f"{r.pending} chunks wait for {r.model}: `gno embed` (or a running `gno daemon`) adds them")
    else:
        click.echo(
            f"Embedded {r.embedded} chunks with {r.model} in {r.duration_ms / 1000:.1f}s "
            f"({r.chunks_per_second:.1f} chunks/s); {r.total_chunks} chunks in the index"
        )


@click.command()
@click.option("-c", "--collection", "collections", multiple=True, help="Only these collections.")
@click.option("--force", is_flag=True, help="Re-embed everything for the configured model.")
@click.option(
    "--batch-size",
    default=8,
    show_default=True,
    type=int,
    help="Chunks per model call. 8 keeps MiniLM under ~500 MB RSS at full speed; 32 peaks at ~1.4 GB.",
)
@click.option("--dry-run", is_flag=True, help="Only count what would be embedded.")
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def embed(
    ctx: click.Context,
    collections: tuple[str, ...],
    force: bool,
    batch_size: int,
    dry_run: bool,
    lock_wait: str | None,
    no_wait: bool,
    as_json: bool,
) -> None:
    """Embed chunks that have no vector yet (incremental and resumable; models ship with gno)."""
    prog, cb = _embed_progress(as_json)
    fields = {"collections": collections, "force": force, "batch_size": batch_size, "dry_run": dry_run}
    with prog or contextlib.nullcontext():
        invoke(ctx, as_json, "embed", fields, _render_embed, lock_wait=lock_wait, no_wait=no_wait, progress=cb)


@click.command()
@click.option("-c", "--collection", "collections", multiple=True, help="Only these collections.")
@click.option("--no-embed", is_flag=True, help="Sync only (same as gno update).")
@click.option(
    "--quick",
    is_flag=True,
    help="Stop after the static first pass (a vector for every chunk in seconds); `gno embed` or a "
    "running `gno daemon` adds the transformer's vectors later.",
)
@lock_wait_option
@no_wait_option
@json_option
@click.pass_context
def index(
    ctx: click.Context,
    collections: tuple[str, ...],
    no_embed: bool,
    quick: bool,
    lock_wait: str | None,
    no_wait: bool,
    as_json: bool,
) -> None:
    """Sync the files, then embed new chunks (= gno update + gno embed)."""

    def render(r: IndexResult) -> None:
        for c in r.sync.collections:
            click.echo(f"{c.name}: {c.scanned} files · {c.added} added · {c.updated} updated · {c.inactivated} removed")
        if r.embed is not None:
            _render_embed(r.embed)
        else:
            click.echo(f"Embedding skipped: {r.embed_skipped}")

    fields = {"collections": collections, "no_embed": no_embed, "quick": quick}
    invoke(ctx, as_json, "index", fields, render, lock_wait=lock_wait, no_wait=no_wait)


def _print_explain(x: QueryExplain | None) -> None:
    if x is None:
        return
    vectors = f" vectors={x.vectors}{' (first pass)' if x.first_pass else ''}" if x.vectors else ""
    click.echo(f"explain: depth={x.depth} candidateLimit={x.candidate_limit}{vectors}", err=True)
    for st in x.stages:
        top = ", ".join(f"#{h.rank} {shown(h.uri.rsplit('/', 1)[-1])} ({h.score:.3f})" for h in st.top[:3])
        why = f" — {st.reason}" if st.reason else ""
        click.echo(f"  {st.name:<9} {st.status:<7} {st.ms:7.1f} ms  n={st.count:<3} {top}{why}", err=True)


@click.command()
@click.argument("query")
@hit_options()
@json_option
@click.pass_context
def vsearch(
    ctx: click.Context, /, query: str, full: bool, line_numbers: bool, files: bool, as_json: bool, **filters: Any
) -> None:
    """Vector-only search (needs `gno embed`)."""
    fields = {"query": query, "full": full, **filters}
    invoke(ctx, as_json, "vsearch", fields, lambda r: render_hits(r, files=files, line_numbers=line_numbers, full=full))


class QueryGroup(click.Group):
    """`gno query "<q>"` runs a hybrid query; `gno query diagnose …` is a subcommand.

    The query's own options are documented at this level: `gno query --help` shows the usage
    and every option of the query itself, then the subcommands.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        run_cmd = self.commands["run"]
        sub = click.Context(run_cmd, info_name=ctx.info_name, parent=ctx.parent)
        run_cmd.format_usage(sub, formatter)
        self.format_help_text(ctx, formatter)
        run_cmd.format_options(sub, formatter)
        self.format_commands(ctx, formatter)


@click.group(cls=QueryGroup)
def query() -> None:
    """Hybrid query (rung 3): BM25 + vectors → RRF → graph → re-scoring.

    \b
      gno query "how do we roll back a deploy" [--fast | --thorough] [--explain]
      gno query diagnose "rollback steps" --target notes/ops/rollback.md
    """


@query.command("run", hidden=True)
@click.argument("query")
@hit_options()
@depth_options
@click.option("--graph/--no-graph", default=True, help="One-hop link expansion (default on).")
@click.option("-C", "--candidate-limit", type=int, default=None, help="Candidates re-scored (20; 40 thorough).")
@click.option("--explain", is_flag=True, help="Stage timings and ranks on stderr.")
@json_option
@click.pass_context
def query_run(
    ctx: click.Context,
    /,
    query: str,
    depth: str | None,
    fast: bool,
    thorough: bool,
    explain: bool,
    full: bool,
    line_numbers: bool,
    files: bool,
    as_json: bool,
    **opts: Any,
) -> None:
    """Run a hybrid query."""

    def render(r: SearchResult) -> None:
        _print_explain(r.explain)
        if r.meta.notes:
            for n in r.meta.notes:
                click.echo(f"note: {n}", err=True)
        render_hits(r, files=files, line_numbers=line_numbers, full=full)

    def fields(_: Any) -> dict[str, Any]:
        return {"query": query, "depth": depth_value(depth, fast, thorough), "full": full, "explain": explain, **opts}

    def explain_json(r: SearchResult) -> None:
        if as_json and explain:
            _print_explain(r.explain)

    invoke(ctx, as_json, "query", fields, render, on_result=explain_json)


@query.command("diagnose")
@click.argument("query")
@click.option("--target", required=True, help="The document you expected (#docid, gno://…, coll/path).")
@hit_options(output=False, without=("min_score",))  # a rank, not a score, decides whether the target made it
@depth_options
@click.option("--graph/--no-graph", default=True, help="One-hop link expansion (default on).")
@click.option("-C", "--candidate-limit", type=int, default=None, help="Candidates re-scored (20; 40 thorough).")
@json_option
@click.pass_context
def query_diagnose(
    ctx: click.Context,
    /,
    query: str,
    target: str,
    depth: str | None,
    fast: bool,
    thorough: bool,
    as_json: bool,
    **opts: Any,
) -> None:
    """Where did TARGET drop out of the results for QUERY? (per-stage presence, rank, drop reason)"""

    def render(r: DiagnoseResult) -> None:
        t = r.target
        click.echo(f"target {shown(t.uri or t.ref)}: {t.status}")
        for s in r.stages:
            rank = "-" if s.rank is None else str(s.rank)
            drop = f"  dropped: {s.drop_reason}" if s.drop_reason else ""
            why = f" ({s.reason})" if s.reason and s.status == "skipped" else ""
            click.echo(f"  {s.name:<8} {s.status:<7} present={str(s.present).lower():<5} rank={rank:<4}{drop}{why}")
        click.echo(r.verdict)

    def fields(_: Any) -> dict[str, Any]:
        return {"query": query, "target": target, "depth": depth_value(depth, fast, thorough), **opts}

    invoke(ctx, as_json, "diagnose", fields, render)


@click.command()
@click.argument("fixture", type=click.Path(dir_okay=False))
@click.option(
    "--mode",
    "modes",
    multiple=True,
    type=click.Choice(["bm25", "vector", "hybrid", "fast"]),
    help="Modes to compare (repeatable; default bm25 and hybrid).",
)
@click.option("--top-k", default=10, show_default=True, type=int, help="k of P@k, R@k and nDCG@k.")
@click.option("-C", "--candidate-limit", type=int, default=None, help="Candidates re-scored by hybrid modes (20).")
@json_option
@click.pass_context
def bench(
    ctx: click.Context,
    fixture: str,
    modes: tuple[str, ...],
    top_k: int,
    candidate_limit: int | None,
    as_json: bool,
) -> None:
    """Score retrieval on a fixture of judged queries: P@k, R@k, MRR, nDCG@k, latency."""

    def render(r: BenchResult) -> None:
        click.echo(
            f"{'mode':<8} {'P@k':>6} {'R@k':>6} {'MRR':>6} {'nDCG@k':>7} {'p50 ms':>8} {'p95 ms':>8}  (k={r.top_k})"
        )
        for m in r.modes:
            click.echo(
                f"{m.mode:<8} {m.precision:6.3f} {m.recall:6.3f} {m.mrr:6.3f} {m.ndcg:7.3f} "
                f"{m.p50_ms:8.1f} {m.p95_ms:8.1f}"
            )

    fields = {"fixture": fixture, "modes": modes or None, "top_k": top_k, "candidate_limit": candidate_limit}
    invoke(ctx, as_json, "bench", fields, render)


COMMANDS = [embed, index, vsearch, query, bench]
