"""`gno search` from a cold process, without click, pydantic or the engine.

It parses its `Spec` as every cold handler does (`gno.cli.cold`), composes the read-only part of
`Engine.search_page` from the same core calls (`check_query`, the validated config's snapshot,
`Store`, `search_page`) without importing the engine, whose module graph (the error table, the
write paths) would cost more than the query, and renders through the same renderer and JSON
encoding as the click command. Anything it does not know exactly raises `Unhandled`
(`gno.cli.entry`), and click answers.
"""

from __future__ import annotations

import sys

from gno.cli.cold import JSON, Spec, parse
from gno.cli.entry import Unhandled

TYPE_CHECKING = False  # not typing's: a cold search does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def search_spec() -> Spec:
    """`gno search`'s options as a cold handler's `Spec`, from the table click builds them from
    (`gno.cli.hit_flags`), with the request model's bounds on `--limit`."""
    from gno.cli.hit_flags import DEFAULTS, FILTER_OPTIONS, OUTPUT_FLAGS
    from gno.retrieve.search import MAX_LIMIT

    values: dict[str, str] = {}
    flags = dict(JSON)
    for names, dest, kind, _ in (*FILTER_OPTIONS, *OUTPUT_FLAGS):
        (flags if kind == "flag" else values).update(dict.fromkeys(names, dest))
    multi = frozenset(dest for _, dest, kind, _ in FILTER_OPTIONS if kind == "multi")
    return Spec(values, flags, {"limit": (1, MAX_LIMIT)}, dict(DEFAULTS), (1, None), multi)


def cold_search(_command: str, glob: dict[str, Any], rest: Sequence[str]) -> str:
    """The complete output of `gno GLOBAL search REST` when plain, or `Unhandled`."""
    from gno.cli.hit_flags import tag_list

    opts, words = parse(search_spec(), rest)
    try:
        limit, min_score = opts["limit"], float(opts["min_score"])
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
    state = config_snapshot.read_state(settings)  # what `Engine.collection_names` trusts while index.yml is unchanged
    if state is None or (collection and collection.lower() not in state[0]) or state[1]:
        raise Unhandled("config to validate, an unknown collection, or context hints to attach")
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
