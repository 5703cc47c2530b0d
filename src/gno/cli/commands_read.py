"""CLI read commands: search, get, multi-get, ls."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gno.cli.contract import invoke
from gno.cli.hit_flags import DEFAULTS, FILTER_OPTIONS, OUTPUT_FLAGS, tag_list
from gno.cli.main import echo_text, json_option, run
from gno.cli.render_docs import get_text, ls_text, multi_get_text
from gno.cli.render_hits import render_hits as format_hits

if TYPE_CHECKING:
    from gno.cli.render_hits import Hits
    from gno.models import DocumentResult, LsResult, MultiGetResult


def render_hits(r: Hits, *, files: bool, line_numbers: bool, full: bool) -> None:
    click.echo(format_hits(r, files=files, line_numbers=line_numbers, full=full, styled=True), nl=False)


_TYPES = {"int": int, "float": float, "str": str}
F = TypeVar("F", bound=Callable[..., Any])


def _hit_option(names: tuple[str, ...], dest: str, kind: str, help_: str) -> Any:
    if kind == "flag":
        return click.option(*names, dest, is_flag=True, help=help_)
    if kind == "multi":
        return click.option(*names, dest, multiple=True, help=help_)
    default = DEFAULTS.get(dest)
    return click.option(*names, dest, type=_TYPES[kind], default=default, show_default=default is not None, help=help_)


def hit_options(*, output: bool = True, without: tuple[str, ...] = ()) -> Callable[[F], F]:
    """The filter options and (for a command that prints hits) the output flags of `gno.cli.hit_flags`."""

    def apply(fn: F) -> F:
        for spec in reversed((*FILTER_OPTIONS, *(OUTPUT_FLAGS if output else ()))):
            if spec[1] not in without:
                fn = _hit_option(*spec)(fn)
        return fn

    return apply


class WordsCommand(click.Command):
    """A command whose words may start with `-` (`deploy -legacy` negates a word) and whose unknown
    `--long` options are still refused: `--colection memory` is a typo, not two query words.

    Click alone would either refuse `-legacy` or (with `ignore_unknown_options`) read it as the
    short options `-l -e -g -a -c y`. Here the command's own options are set apart first (with
    their values); every other token is a word, except an unknown `--long` one, which is refused,
    and everything after a bare `--` is words whatever it looks like.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value: dict[str, bool] = {}
        for p in self.get_params(ctx):
            if isinstance(p, click.Option):
                takes_value.update(dict.fromkeys((*p.opts, *p.secondary_opts), not p.is_flag and not p.count))
        opts: list[str] = []
        words: list[str] = []
        i = 0
        while i < len(args):
            tok = args[i]
            name = tok.partition("=")[0] if tok.startswith("--") else tok
            if tok == "--":
                words.extend(args[i + 1 :])
                break
            if name in takes_value:
                opts.append(tok)
                if takes_value[name] and name == tok and i + 1 < len(args):
                    opts.append(args[i + 1])
                    i += 1
            elif tok.startswith("--"):
                longs = sorted(n for n in takes_value if n.startswith("--"))
                raise click.NoSuchOption(name, possibilities=longs, ctx=ctx)
            elif tok[:2] in takes_value and takes_value[tok[:2]] and len(tok) > 2 and tok[2:].isdigit():
                opts.append(tok)  # `-n5`
            else:
                words.append(tok)
            i += 1
        return super().parse_args(ctx, [*opts, "--", *words] if words else opts)


@click.command(cls=WordsCommand)
@click.argument("query", nargs=-1, required=True)
@hit_options()
@json_option
@click.pass_context
def search(
    ctx: click.Context,
    /,
    query: tuple[str, ...],
    full: bool,
    line_numbers: bool,
    files: bool,
    as_json: bool,
    **filters: Any,
) -> None:
    """Exact (BM25) search: terms, "phrases", -negation, gpt-4 style tokens.

    \b
    Examples:
      gno search "deploy staging"
      gno search deploy staging -legacy
      gno search '"release pipeline" -legacy' -c notes --json
    (A query that starts with -word needs `--` first: gno search -- -x y.)
    """
    # the cold-start path: the engine's page of hits, no request or result model built (see cli.contract)
    filters.update(tags_any=tag_list(filters["tags_any"]), tags_all=tag_list(filters["tags_all"]))
    run(
        ctx,
        as_json,
        lambda e: e.search_page(" ".join(query), full=full, **filters),
        lambda r: render_hits(r, files=files, line_numbers=line_numbers, full=full),
    )


@click.command()
@click.argument("ref")
@click.option("--from", "from_line", type=int, default=None, help="First line to return (1-based).")
@click.option("-l", "--limit", "line_count", type=int, default=None, help="Number of lines to return.")
@click.option("--line-numbers", is_flag=True, help="Prefix lines with their line numbers.")
@click.option("--source", is_flag=True, help="Write the original file's bytes (a PDF's, not its markdown mirror).")
@json_option
@click.pass_context
def get(
    ctx: click.Context,
    ref: str,
    from_line: int | None,
    line_count: int | None,
    line_numbers: bool,
    source: bool,
    as_json: bool,
) -> None:
    """Print a document by #docid, gno://collection/path[:line] or collection/path[:line].

    A PDF, Word or other converted file prints as its markdown mirror (what search cites);
    --source writes the original bytes instead (`gno get --source c/report.pdf > report.pdf`).
    """

    def render(d: DocumentResult) -> None:
        if source:
            sys.stdout.flush()
            sys.stdout.buffer.write(d.source_bytes())
            sys.stdout.buffer.flush()
            return
        echo_text(get_text(d, line_numbers=line_numbers))

    fields = {"ref": ref, "from_line": from_line, "line_count": line_count, "source": source}
    invoke(ctx, as_json, "get", fields, render)


@click.command("multi-get")
@click.argument("refs", nargs=-1, required=True)
@click.option("--max-bytes", default=10240, show_default=True, type=int, help="Truncate each document.")
@click.option("--line-numbers", is_flag=True, help="Prefix lines with their line numbers.")
@json_option
@click.pass_context
def multi_get(ctx: click.Context, refs: tuple[str, ...], max_bytes: int, line_numbers: bool, as_json: bool) -> None:
    """Print several documents (refs separated by spaces or commas)."""

    def render(r: MultiGetResult) -> None:
        styled = sys.stdout.isatty()
        echo_text(multi_get_text(r, max_bytes=max_bytes, line_numbers=line_numbers, styled=styled))

    invoke(ctx, as_json, "multi_get", {"refs": refs, "max_bytes": max_bytes}, render)


@click.command()
@click.argument("scope", required=False)
@click.option("-n", "--limit", default=10000, show_default=True, help="Documents to list.")
@click.option("--offset", default=0, show_default=True, help="Documents to skip first (for the next page).")
@json_option
@click.pass_context
def ls(ctx: click.Context, scope: str | None, limit: int, offset: int, as_json: bool) -> None:
    """List indexed documents: all, a collection, or gno://collection/prefix."""

    def render(r: LsResult) -> None:
        echo_text(ls_text(r))

    invoke(ctx, as_json, "ls", {"scope": scope, "limit": limit, "offset": offset}, render)


COMMANDS = [search, get, multi_get, ls]
