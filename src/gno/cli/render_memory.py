"""Text rendering of the memory commands (recall, remember), shared by the click commands and a cold process.

Free of click and pydantic, like `gno.cli.render_docs`: the click commands print the pydantic
`RecallResult` / `RememberResult` and a cold process (`gno.cli.cold_memory`) the plain `Recalled`
of `gno.memory.recall` / `Proposal` of `gno.memory.propose`, through these same functions.
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


def remember_text(r: Any) -> Text:
    """`gno remember`: the candidates of a proposal, or the fact stored (or already known)."""
    out: list[str] = []
    if r.outcome == "candidates":
        out.append("Nothing written. Decide with --add, or --supersede <uri> --predecessor-hash <hash>.")
        for cand in r.candidates or []:
            out.append(f"  [{cand.match} {cand.similarity:.2f}] {cand.record.text}")
            out.append(f"      {shown(cand.record.uri)}  contentHash {cand.record.content_hash}")
        if not r.candidates:
            out.append("  No similar facts in these scopes.")
        out.append(f"(matching: {r.matching.mode}, threshold {r.matching.threshold})")
    elif r.record is not None:
        verb = {"existing": "Already known", "added": "Added", "superseded": "Superseded"}[r.outcome]
        request = getattr(r, "request", None)
        if request is not None and request.replayed:
            verb += f" (replayed: request {request.request_id}, {request.committed_at})"
        out.append(f"{verb}: {r.record.text}")
        out.append(f"  {shown(r.record.uri)}  contentHash {r.record.content_hash}")
    return "".join(line + "\n" for line in out), ""
