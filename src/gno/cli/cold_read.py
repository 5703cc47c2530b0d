"""get, multi-get, ls, links, backlinks and changes from a cold process, without click or pydantic.

Each handler parses its command's `Spec`, calls the core function the engine calls
(`gno.doc_reads`, `gno.change_reads`) on the index the config snapshot describes (`gno.cli.cold.ColdIndex`), and
renders through the click command's renderer (`gno.cli.render_docs`) or, with `--json`, the
same wire shape. It returns `(stdout, stderr)` once the output is complete; anything it does
not know exactly raises, and click answers (`gno.cli.entry`).
"""

from __future__ import annotations

import sys

from gno.cli.cold import JSON, ColdIndex, Spec, json_body, parse

TYPE_CHECKING = False  # not typing's: a cold read does not import typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gno.cli.render_docs import Text

#: the request models' bounds (`gno.contract.documents`): MAX_LS, SQLite's largest integer
_LS_MOST, _SQLITE_MAX_INT = 1_000_000, 2**63 - 1
_LINE_NUMBERS = {"--line-numbers": "line_numbers"}

SPECS = {
    "get": Spec(
        values={"--from": "from_line", "-l": "line_count", "--limit": "line_count"},
        flags={**_LINE_NUMBERS, **JSON},
        ints={"from_line": (1, None), "line_count": (1, None)},
        defaults={"from_line": None, "line_count": None},
        words=(1, 1),
    ),
    "multi-get": Spec(
        values={"--max-bytes": "max_bytes"},
        flags={**_LINE_NUMBERS, **JSON},
        ints={"max_bytes": (1, None)},
        defaults={"max_bytes": 10240},
        words=(1, None),
    ),
    "ls": Spec(
        values={"-n": "limit", "--limit": "limit", "--offset": "offset"},
        flags=JSON,
        ints={"limit": (1, _LS_MOST), "offset": (0, _SQLITE_MAX_INT)},
        defaults={"limit": 10000, "offset": 0},
        words=(0, 1),
    ),
    "changes": Spec(
        values={"--since": "since", "-c": "collection", "--collection": "collection", "--limit": "limit"},
        flags=JSON,
        ints={"limit": (1, 1000)},
        defaults={"since": None, "collection": None, "limit": 100},
        words=(0, 0),
    ),
    "links": Spec(values={}, flags=JSON, ints={}, defaults={}, words=(1, 1)),
    "backlinks": Spec(values={}, flags=JSON, ints={}, defaults={}, words=(1, 1)),
}


def cold_read(command: str, glob: dict[str, Any], rest: Sequence[str]) -> Text:
    """The complete `(stdout, stderr)` of `gno GLOBAL COMMAND REST` when plain, or `Unhandled`."""
    from gno import doc_reads
    from gno.cli import render_docs

    opts, words = parse(SPECS[command], rest)
    index = ColdIndex(glob)
    try:
        result: Any
        if command == "get":
            result = doc_reads.read_document(
                index.store, index.root, words[0], from_line=opts["from_line"], line_count=opts["line_count"]
            )
            text = render_docs.get_text(result, line_numbers=bool(opts.get("line_numbers")))
        elif command == "multi-get":
            result = doc_reads.read_documents(index.store, index.root, words, max_bytes=opts["max_bytes"])
            styled = sys.stdout.isatty()
            line_numbers = bool(opts.get("line_numbers"))
            text = render_docs.multi_get_text(
                result, max_bytes=opts["max_bytes"], line_numbers=line_numbers, styled=styled
            )
        elif command == "ls":
            scope = words[0] if words else None
            limit, offset = opts["limit"], opts["offset"]
            result = doc_reads.list_documents(index.store, index.name, scope, limit=limit, offset=offset)
            text = render_docs.ls_text(result)
        elif command == "changes":
            from gno.change_reads import read_changes

            since, collection = opts["since"], opts["collection"]
            result = read_changes(index.store, index.name, since=since, collection=collection, limit=opts["limit"])
            text = render_docs.changes_text(result)
        else:
            result = doc_reads.read_links(index.store, words[0], backlinks=command == "backlinks")
            text = render_docs.links_text(result)
    finally:
        index.close()
    return (json_body(result), "") if opts.get("as_json") else text
