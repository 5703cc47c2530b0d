"""The options of the hit-list commands (search, vsearch, query), declared once.

Plain data on purpose: the cold-start path (`gno.cli.entry`) parses `gno search` from this table
without importing click, and the click commands build their options from it
(`gno.cli.commands_read.hit_options`), so the two parsers cannot drift and the three commands
spell their filters and output flags the same way.
"""

from __future__ import annotations

from gno.retrieve.search import DEFAULTS as SEARCH

#: (option names, destination, kind, help); kind: "int" / "float" / "str" take a value, "multi" a
#: repeatable value (each may also be comma-separated), "flag" none
FILTER_OPTIONS = (
    (("-n", "--limit"), "limit", "int", "Maximum results."),
    (("-c", "--collection"), "collection", "str", "Only this collection."),
    (("--min-score",), "min_score", "float", "Drop hits below this normalised score (0..1)."),
    (("--tags-any",), "tags_any", "multi", "Tags (comma-separated or repeated); a hit has at least one."),
    (("--tags-all",), "tags_all", "multi", "Tags (comma-separated or repeated); a hit has all of them."),
)
OUTPUT_FLAGS = (
    (("--full",), "full", "flag", "Include each hit's full body."),
    (("--line-numbers",), "line_numbers", "flag", "Prefix lines with their line numbers."),
    (("--files",), "files", "flag", "Print only `#docid,score,uri` lines."),
)
#: the values an option takes when not given: the request models' defaults (`gno.contract.retrieve`
#: declares these; a test holds every option's default to its request field's)
DEFAULTS = {"limit": SEARCH.limit, "min_score": SEARCH.min_score}


def tag_list(values: object) -> list[str]:
    """Repeated and comma-separated tag values as one list (`--tags-any a,b --tags-any c`)."""
    items = [values] if isinstance(values, str) else list(values or ())  # type: ignore[call-overload]
    return [t.strip() for v in items for t in str(v).split(",") if t.strip()]
