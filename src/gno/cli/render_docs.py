"""Text rendering of document reads: get, multi-get, ls, links, backlinks and changes.

Free of click and pydantic on purpose, like `gno.cli.render_hits`: the click commands print the
pydantic results and a cold process (`gno.cli.cold_read`) prints the plain records of
`gno.doc_reads` and `gno.change_reads`, through these same functions. Each returns the whole
output as `(stdout, stderr)`, every line ending in a newline; `styled` is whether stdout is a
terminal (click keeps the ANSI styles only then).
"""

from __future__ import annotations

from gno.cli.render_hits import _BOLD, _RESET, numbered, shown

TYPE_CHECKING = False  # not typing's: a cold read does not import typing
if TYPE_CHECKING:
    from typing import Any

#: (stdout, stderr) of a command's text output
Text = tuple[str, str]


def get_text(d: Any, *, line_numbers: bool) -> Text:
    """`gno get`: the content (numbered from its first returned line with `--line-numbers`)."""
    text = numbered(d.content, d.returned_lines.start) if line_numbers else d.content
    return text + "\n", ""


def multi_get_text(r: Any, *, max_bytes: int, line_numbers: bool, styled: bool) -> Text:
    """`gno multi-get`: each document under a header, a cut one with where the rest is; failed refs on stderr."""
    out: list[str] = []
    for d in r.documents:
        header = f"==> {shown(d.uri)} ({d.docid}) <=="
        out.append(f"{_BOLD}{header}{_RESET}" if styled else header)
        out.append(numbered(d.content, d.returned_lines.start) if line_numbers else d.content)
        lines = d.returned_lines
        if r.truncated and lines.end < d.total_lines:
            out.append(
                f"[… cut at --max-bytes {max_bytes}: lines {lines.start}-{lines.end} "
                f"of {d.total_lines}; the rest: gno get '{shown(d.uri)}' --from {lines.end + 1}]"
            )
        out.append("")
    err = [f"error [{e.code}]: {e.ref}: {e.message}" for e in r.errors]
    return _lines(out), _lines(err)


def ls_text(r: Any) -> Text:
    """`gno ls`: one line per document; where the page sits in the whole on stderr."""
    out = [f"{e.docid}  {shown(e.uri)}  {e.title}" for e in r.entries]
    err: list[str] = []
    if not r.entries:
        out.append("No documents." if not r.total else f"No documents at offset {r.offset} of {r.total}.")
    elif r.offset or len(r.entries) < r.total:
        end = r.offset + len(r.entries)
        more = f"; next page: --offset {end}" if end < r.total else ""
        err.append(f"{len(r.entries)} of {r.total} documents shown ({r.offset + 1}-{end}){more}")
    return _lines(out), _lines(err)


def links_text(r: Any) -> Text:
    """`gno links` / `gno backlinks`: one line per linked document."""
    arrow = "→" if r.direction == "out" else "←"
    out = [f"{arrow} {shown(lk.uri)}  [{lk.edge_type}]" + (f" line {lk.line}" if lk.line else "") for lk in r.links]
    if not r.links:
        out.append("No links." if r.direction == "out" else "No backlinks.")
    return _lines(out), ""


def changes_text(r: Any) -> Text:
    """`gno changes`: one line per event, then the cursor of the next page."""
    out: list[str] = []
    for ch in r.changes:
        snap = ch.current or ch.previous or {}
        out.append(f"{ch.id:<8} {ch.observed_at}  {ch.kind:<10} {shown(snap.get('uri', ''))}")
    if not r.changes:
        out.append("No changes.")
    if r.page.next_cursor:
        out.append(f"(next: gno changes --since {r.page.next_cursor})")
    return _lines(out), ""


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def status_text(r: Any) -> Text:
    """`gno status`: the index, its collections, ingest problems, memory, vectors and what to do next."""
    out = [
        f"Index   {r.index_name}  {r.db_path}  ({r.size_bytes / 1e6:.1f} MB)",
        f"Config  {r.config_path}",
        f"Documents {r.documents} · chunks {r.chunks}",
    ]
    for c in r.collections:
        warn = "" if c.path_exists else "  (folder missing!)"
        mem = " [memory]" if c.memory_managed else ""
        out.append(
            f"  {c.name}{mem}: {c.active} active, {c.inactive} inactive, {c.errors} errors, {c.warnings} warnings{warn}"
        )
    if r.ingest_errors:
        out.append("Ingest errors and warnings:")
        out.extend(f"  {e.collection}/{e.rel_path}: {e.severity} [{e.code}] {e.message}" for e in r.ingest_errors[:20])
    if r.memory:
        m = r.memory
        out.append(f"Memory: {m.facts} facts · {m.current} current · {m.superseded} superseded · {m.invalid} invalid")
        out.extend(f"  {shown(d.uri)}: {', '.join(d.codes)}" for d in m.diagnostics[:20])
    if r.vectors:
        v = r.vectors
        out.append(
            f"Vectors: {v.embedded_chunks}/{v.total_chunks} chunks embedded"
            + (f" with {v.model}" if v.model else "")
            + (f" ({v.reason})" if v.reason else "")
        )
        if v.first_pass_model and v.first_pass_chunks:
            ranks = " (ranks queries now)" if v.ranked_by == v.first_pass_model else ""
            out.append(f"First pass: {v.first_pass_chunks}/{v.total_chunks} chunks with {v.first_pass_model}{ranks}")
    out.extend(f"Next: {step}" for step in r.next_steps)
    if r.healthy:
        embedded = ", every chunk embedded" if r.vectors and r.vectors.model else ""
        out.append(f"Healthy: every folder present{embedded}")
    return "".join(line + "\n" for line in out), ""
