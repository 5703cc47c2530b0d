"""Memory over time: when a fact starts, when it stops being current, and its supersession chain.

Every fact has its record time (`createdAt`, set when it is written) and, when the caller knows
it, an event time (`validFrom`: "the meeting on 2026-03-02 decided …"). A fact *starts* at its
`validFrom`, else at its `createdAt`; it stops being current when a successor that supersedes it
starts. So the facts current at an instant T are the valid facts that started at or before T and
have no successor started at or before T: a fact superseded after T still counts, one that
started after T does not. Times are compared as UTC instants, written `YYYY-MM-DDTHH:MM:SS.mmmZ`;
a bare date given as `--as-of` means the end of that day (UTC), as `--valid-from` its start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.errors import ErrorCode, NotFoundError, ValidationError
from gno.memory.inputs import materialize
from gno.memory.instants import parse_instant
from gno.models.memory_results import HistoryEntry, MemoryHistoryResult
from gno.refs import parse_uri
from gno.store import documents as docs
from gno.store import memory as mstore

if TYPE_CHECKING:
    from gno.index import IndexReader


def history(index: IndexReader, uri: str) -> MemoryHistoryResult:
    """The supersession chain through the fact at `uri`, oldest first, each with when it was current."""
    store = index.store
    try:
        coll, rel = parse_uri(uri.strip())
    except ValidationError as exc:
        raise NotFoundError(f"{uri!r} is not a gno:// URI of a fact", details={"uri": uri}) from exc
    row = docs.doc_by_path(store, coll, rel)
    rec = materialize(store, [row.id]).get(row.id) if row is not None else None
    if row is None or rec is None:
        raise NotFoundError(
            f"{uri} is not a fact of a memory collection (or it breaks the fact contract: `gno audit`)",
            code=ErrorCode.NOT_FOUND,
            details={"uri": uri},
        )
    chain = [rec]
    seen = {rec.uri}
    while chain[0].supersedes:  # back to the first fact
        prev_uri = chain[0].supersedes[0]
        pc, pr = parse_uri(prev_uri)
        prow = docs.doc_by_path(store, pc, pr)
        prev = materialize(store, [prow.id]).get(prow.id) if prow is not None else None
        if prev is None or prev.uri in seen:
            break
        chain.insert(0, prev)
        seen.add(prev.uri)
    while True:  # forward to the current one (a race left two successors: the earlier one counts)
        nexts = []
        for s_uri in mstore.successors_of(store, chain[-1].uri):
            sc, sr = parse_uri(s_uri)
            srow = docs.doc_by_path(store, sc, sr)
            succ = materialize(store, [srow.id]).get(srow.id) if srow is not None else None
            if succ is not None and succ.uri not in seen:
                nexts.append(succ)
        if not nexts:
            break
        nexts.sort(key=lambda r: (_start(r.valid_from, r.created_at), r.uri))
        chain.append(nexts[0])
        seen.add(nexts[0].uri)
    entries = []
    for i, r in enumerate(chain):
        nxt = chain[i + 1] if i + 1 < len(chain) else None
        entries.append(
            HistoryEntry(
                record=r,
                current_from=_start(r.valid_from, r.created_at),
                superseded_by=nxt.uri if nxt else None,
                superseded_at=_start(nxt.valid_from, nxt.created_at) if nxt else None,
            )
        )
    return MemoryHistoryResult(uri=rec.uri, current=chain[-1].uri, chain=entries)


def _start(valid_from: str | None, created_at: str) -> str:
    return parse_instant(valid_from) or parse_instant(created_at) or created_at
