"""`context verify`: is each evidence item of a Capsule still what the files say?

Each item is re-read at its exact lines from the current index: `unchanged` (same passage hash),
`stale` (the lines changed), or `missing` (the document is gone or too short). The capsule's own
id is recomputed as well, so a hand-modified Capsule is reported as `integrity: modified`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gno.errors import ValidationError, not_a
from gno.evidence.canonical import capsule_id, sha256_hex
from gno.models import Capsule, ContextVerifyResult, EvidenceCheck
from gno.refs import parse_uri
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.index import IndexReader

_ORDER = {"unchanged": 0, "stale": 1, "missing": 2}


def parse_capsule(obj: Any) -> Capsule:
    if isinstance(obj, Capsule):
        return obj
    try:
        return Capsule.model_validate(obj)
    except Exception as exc:
        raise not_a("a Context Capsule", "the Capsule JSON a context build returns, unmodified", exc) from exc


def verify_capsule(index: IndexReader, obj: Any) -> ContextVerifyResult:
    cap = parse_capsule(obj)
    intact = capsule_id(cap.dump()) == cap.capsule_id
    items: list[EvidenceCheck] = []
    for ev in cap.evidence:
        status, reason = "unchanged", None
        try:
            coll, rel = parse_uri(ev.uri)
            row = docs.doc_by_path(index.store, coll, rel)
        except ValidationError:
            row = None
        if row is None or not row.active:
            status, reason = "missing", "document no longer indexed"
        else:
            text = docs.content_of(index.store, row.mirror_hash) or ""
            lines = text.split("\n")
            if ev.end_line > len(lines):
                status, reason = "missing", "the cited lines no longer exist"
            elif sha256_hex("\n".join(lines[ev.start_line - 1 : ev.end_line])) != ev.passage_hash:
                status, reason = "stale", "the cited lines changed"
            elif row.source_hash != ev.source_hash:
                reason = "document changed elsewhere; cited lines identical"
        items.append(EvidenceCheck.take(ev, status=status, reason=reason))
    counts = {k: sum(1 for i in items if i.status == k) for k in ("unchanged", "stale", "missing")}
    worst = max((i.status for i in items), key=lambda s: _ORDER[s], default="unchanged")
    return ContextVerifyResult(
        capsule_id=cap.capsule_id,
        status=worst,
        integrity="intact" if intact else "modified",
        counts=counts,
        items=items,
    )
