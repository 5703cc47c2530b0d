"""Text rendering of the memory commands (recall), shared by the click command and a cold process.

Free of click and pydantic, like `gno.cli.render_docs`: the click command prints the pydantic
`RecallResult` and a cold `gno recall` (`gno.cli.cold_memory`) the plain `Recalled` of
`gno.memory.recall`, through this same function.
"""

from __future__ import annotations

from gno.cli.render_hits import shown

TYPE_CHECKING = False  # not typing's: a cold recall does not import typing
if TYPE_CHECKING:
    from typing import Any

    from gno.cli.render_docs import Text


def recall_text(r: Any) -> Text:
    """`gno recall`: each fact with where it lives, then the budget, the retrieval mode and the receipt."""
    out: list[str] = []
    if not r.facts:
        out.append(r.hint or "No facts.")
    for f in r.facts:
        out.append(f"- {f.text}")
        since = f" (valid from {f.valid_from})" if f.valid_from else ""
        out.append(f"    {shown(f.uri)}  [{', '.join(f.scopes)}]  {f.created_at}{since}")
    b = r.budget
    out.append(
        f"({len(r.facts)} facts, {b.used_tokens}/{b.max_tokens} tokens, {b.omitted} omitted; "
        f"{r.retrieval.mode} retrieval; receipt {r.receipt.digest[:12]})"
    )
    return "".join(line + "\n" for line in out), ""
