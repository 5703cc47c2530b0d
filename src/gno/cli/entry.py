"""The console script's entry point: `gno --version`, plain searches and updates start cold.

Importing click, pydantic and YAML costs several times a whole BM25 search, so the two commands
people (and agents) run most often in a fresh process are answered here first: `gno --version`,
and `gno [--index N] [--config F] search WORDS [search options]`. This path prints only
successful results. It composes the read-only part of `Engine.search_page` from the same core
calls (`check_query`, the validated config's snapshot, `Store`, `search_page`) without importing
the engine, whose module graph (the error table, the write paths) would cost more than the
query, and renders through the same renderer and JSON encoding as the click command.
Everything else -- help, an option it does not know exactly, a value that does not parse, a
config to validate again, any error at all -- goes to the click CLI (`gno.cli.main`), which
parses the same arguments again and answers or reports as usual. A plain `gno update` has a
cold path of its own (`gno.cli.cold_update`), on the same terms. Nothing is printed before the
result is complete, so handing over never duplicates output.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: `gno --version` imports nothing beyond this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

#: `gno` options before the command that take a value / are flags (as in `gno.cli.main.cli`)
GLOBAL_VALUES = {"--index": "index", "--config": "config"}
GLOBAL_FLAGS = {"--verbose": "verbose"}


class Unhandled(Exception):
    """The arguments are not a plain search or update: let click parse them."""


def _search_options() -> tuple[dict[str, str], dict[str, str], set[str]]:
    """`gno search`'s options by name (values, flags, repeatable), from the table click builds them from."""
    from gno.cli.hit_flags import FILTER_OPTIONS, OUTPUT_FLAGS

    values: dict[str, str] = {}
    flags = {"--json": "as_json"}
    for names, dest, kind, _ in (*FILTER_OPTIONS, *OUTPUT_FLAGS):
        (flags if kind == "flag" else values).update(dict.fromkeys(names, dest))
    return values, flags, {dest for _, dest, kind, _ in FILTER_OPTIONS if kind == "multi"}


def options(
    args: Sequence[str],
    values: dict[str, str],
    flags: dict[str, str],
    *,
    stop_at_word: bool,
    multi: set[str] | frozenset[str] = frozenset(),
) -> tuple[dict[str, Any], list[str], int]:
    """Options (by destination; a repeatable one as a list), positional words and where parsing stopped."""
    opts: dict[str, Any] = {}
    words: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        if tok == "--" and not stop_at_word:
            words.extend(args[i + 1 :])
            return opts, words, len(args)
        name, eq, inline = tok.partition("=")
        if (name in values and tok.startswith("--") and eq) or tok in values:
            if not eq and (i + 1 >= len(args) or args[i + 1].startswith("-")):
                raise Unhandled(tok)
            dest, value = (values[name], inline) if eq else (values[tok], args[i + 1])
            i += 0 if eq else 1
            if dest in multi:
                opts.setdefault(dest, []).append(value)
            else:
                opts[dest] = value
        elif tok in flags:
            opts[flags[tok]] = True
        elif tok.startswith("-") and tok != "-":
            raise Unhandled(tok)  # -h, unknown options, `-legacy` negations: click decides
        elif stop_at_word:
            return opts, words, i
        else:
            words.append(tok)
        i += 1
    return opts, words, i


def _search(glob: dict[str, Any], rest: Sequence[str]) -> str:
    """The complete output of `gno GLOBAL search REST` when plain, or `Unhandled`."""
    from gno.cli.hit_flags import DEFAULTS, tag_list

    values, flags, multi = _search_options()
    opts, words, _ = options(rest, values, flags, stop_at_word=False, multi=multi)
    if not words:
        raise Unhandled("no query")
    try:
        limit = int(opts.get("limit", DEFAULTS["limit"]))
        min_score = float(opts.get("min_score", DEFAULTS["min_score"]))
    except ValueError:
        raise Unhandled("bad number") from None

    from gno import config_snapshot
    from gno.retrieve.search import SearchOptions, check_query, search_page
    from gno.settings import build_settings
    from gno.store.db import Store
    from gno.store.fts import DocFilter

    query, collection, full = " ".join(words), opts.get("collection"), bool(opts.get("full"))
    check_query(query, limit, min_score)
    settings = build_settings(index_name=glob.get("index"), config_file=glob.get("config"))
    names = config_snapshot.read(settings)  # what `Engine.collection_names` trusts while index.yml is unchanged
    if names is None or (collection and collection.lower() not in names):
        raise Unhandled("config to validate, or an unknown collection")
    f = DocFilter(
        collections=[collection.lower()] if collection else [],
        tags_any=tag_list(opts.get("tags_any")),
        tags_all=tag_list(opts.get("tags_all")),
    )
    store = Store(settings.db_location)
    try:
        page = search_page(store, query, f, SearchOptions(limit=limit, min_score=min_score, full=full))
    finally:
        store.close()
    if opts.get("as_json"):
        import json

        return json.dumps(page.wire(), ensure_ascii=False, indent=2) + "\n"
    from gno.cli.render_hits import render_hits

    return render_hits(
        page,
        files=bool(opts.get("files")),
        line_numbers=bool(opts.get("line_numbers")),
        full=full,
        styled=sys.stdout.isatty(),
    )


def fast_output(args: Sequence[str]) -> str | None:
    """What this path prints for `args`, or None when the click CLI must handle them."""
    if list(args) == ["--version"]:
        from gno import __version__

        return f"gno, version {__version__}\n"
    try:
        glob, _, at = options(args, GLOBAL_VALUES, GLOBAL_FLAGS, stop_at_word=True)
        command, rest = (args[at], args[at + 1 :]) if at < len(args) else (None, [])
        if command == "search":
            return _search(glob, rest)
        if command == "update":
            from gno.cli.cold_update import cold_update

            return cold_update(glob, rest)
        return None
    except Exception:  # noqa: BLE001 - any error is the click CLI's to report, the same way as always
        return None


def main() -> None:
    args = sys.argv[1:]
    try:
        out = fast_output(args)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    if out is None:
        from gno.cli.main import main as click_main

        click_main(args)
        return
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:  # `gno search x | head`: the reader left, nothing else to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    # Everything is written and the index is closed: skip the interpreter's teardown (freeing every
    # module and object one by one), which costs a third of a bare `python -c pass`.
    sys.stderr.flush()
    os._exit(0)
