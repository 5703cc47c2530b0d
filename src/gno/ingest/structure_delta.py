"""Structural delta between two versions of a document: headings, links, typed edges, dates.

Recorded in the change journal for updates, renames and reactivations, so an agent can see what
changed in a note's structure without diffing bodies (which the journal never holds). A create
has no delta: everything in it is new, and the document itself says what that is.
"""

from __future__ import annotations

import json
from typing import Any

from gno.store import documents as docs
from gno.store.doc_batch import DocWrite

MAX_ITEMS = 50
MAX_JSON_CHARS = 16384


def structure_delta(
    old: docs.DocRow,
    old_links: list[dict[str, Any]],
    old_edges: list[tuple[str, str]],
    new: DocWrite,
) -> dict[str, Any]:
    """Structural delta between two versions: headings, links, typed edges, dates (bounded)."""

    cut = False

    def diff(a: set[str], b: set[str]) -> dict[str, list[str]]:
        nonlocal cut
        added, removed = sorted(b - a), sorted(a - b)
        cut = cut or len(added) > MAX_ITEMS or len(removed) > MAX_ITEMS
        return {"added": added[:MAX_ITEMS], "removed": removed[:MAX_ITEMS]}

    old_h = {h["text"] for h in json.loads(old.headings_json)}
    new_h = {h["text"] for h in new.headings}
    old_l = {f"{link['link_type']}:{link['target_ref']}" for link in old_links}
    new_l = {f"{lt}:{t}" for lt, t, *_ in new.links}
    old_e = {f"{e}:{t}" for e, t in old_edges}
    new_e = {f"{e}:{t}" for e, t in new.edges}
    old_dates = dict(json.loads(old.dates_json))
    new_dates = dict(new.dates)
    changed = sorted(k for k in old_dates.keys() & new_dates.keys() if old_dates[k] != new_dates[k])
    old_d = {f"{k}={v}" for k, v in old_dates.items() if k not in changed}
    new_d = {f"{k}={v}" for k, v in new_dates.items() if k not in changed}
    out: dict[str, Any] = {
        "headings": diff(old_h, new_h),
        "links": diff(old_l, new_l),
        "typedEdges": diff(old_e, new_e),
        "dates": {**diff(old_d, new_d),
                  "changed": [{"field": k, "from": old_dates[k], "to": new_dates[k]} for k in changed]},
        "truncated": cut,
    }
    if len(json.dumps(out)) > MAX_JSON_CHARS:
        out = {k: {"added": [], "removed": []} for k in ("headings", "links", "typedEdges", "dates")}
        out["truncated"] = True
    return out
