"""Text rendering of search hits, shared by search, vsearch and query.

Free of click and pydantic on purpose: the cold-start path (`gno.cli.entry`) prints plain-data
pages (`gno.retrieve.search.SearchPage`) and the click commands print pydantic results, and
both must look the same. The renderer only reads attributes the two have in common.
"""

from __future__ import annotations

_BOLD, _RESET = "\x1b[1m", "\x1b[0m"  # what click.style(bold=True) emits

TYPE_CHECKING = False  # not typing's: the protocols only type the renderer, a cold search skips them
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class _Span(Protocol):
        @property
        def start_line(self) -> int: ...

    class _Hit(Protocol):
        @property
        def docid(self) -> str: ...
        @property
        def uri(self) -> str: ...
        @property
        def title(self) -> str: ...
        @property
        def score(self) -> float: ...
        @property
        def line(self) -> int: ...
        @property
        def snippet(self) -> str: ...
        @property
        def snippet_range(self) -> _Span: ...
        @property
        def body(self) -> str | None: ...
        @property
        def body_start_line(self) -> int | None: ...
        @property
        def match(self) -> str | None: ...
        @property
        def superseded_by(self) -> str | None: ...
        @property
        def context(self) -> list[str] | None: ...

    class _Meta(Protocol):
        @property
        def total_results(self) -> int: ...

    class Hits(Protocol):
        @property
        def query(self) -> str: ...
        @property
        def results(self) -> Sequence[_Hit]: ...
        @property
        def meta(self) -> _Meta: ...


def shown(uri: str) -> str:
    """A `gno://` URI as people read it: `gno://notes/Linking notes.md`, not `Linking%20notes.md`.

    Human output only; `--json` (and `--files`, made for scripts) keep the exact URI. Every ref
    argument accepts both spellings."""
    if "%" not in uri:
        return uri
    from urllib.parse import unquote

    return unquote(uri)


def numbered(text: str, start: int) -> str:
    return "\n".join(f"{start + i:>5}  {line}" for i, line in enumerate(text.split("\n")))


def render_hits(r: Hits, *, files: bool, line_numbers: bool, full: bool, styled: bool) -> str:
    """The whole text output, each line ending in a newline; `styled` makes titles bold."""
    if files:
        return "".join(f"{h.docid},{h.score:.4f},{h.uri}\n" for h in r.results)
    if not r.results:
        return f"No results for {r.query!r}.\n"
    lines: list[str] = []
    for i, h in enumerate(r.results, 1):
        title = f"{i}. {h.title}"
        partial = "  [partial match]" if h.match == "partial" else ""
        lines.append((f"{_BOLD}{title}{_RESET}" if styled else title) + f"  ({h.score:.2f})  {h.docid}{partial}")
        lines.append(f"   {shown(h.uri)}:{h.line}")
        if h.superseded_by:
            lines.append(f"   [superseded by {shown(h.superseded_by)}]")
        if h.context:
            lines.append("   [context: " + " · ".join(h.context) + "]")
        body = h.body if full and h.body is not None else h.snippet
        start = (h.body_start_line or 1) if full and h.body is not None else h.snippet_range.start_line
        text = numbered(body, start) if line_numbers else body
        lines.extend("   " + ln for ln in text.split("\n"))
        lines.append("")
    count = len(r.results)
    if r.meta.total_results > count:
        lines.append(f"{count} of {r.meta.total_results} matches (raise -n to see more)")
    return "".join(line + "\n" for line in lines)
