"""Rung 4: Context Capsules — budgeted, hash-cited evidence for one goal, with declared gaps.

Build: hybrid retrieval for the goal → passages of the candidate documents → duplicates
collapsed → selection in retrieval order (each document's passages best-first), a passage that
adds a goal facet not yet covered before one that adds none, each tentative addition kept only if
the *entire* canonical payload still fits the budget (bytes and tokens, `usedBytes`/`usedTokens`
solved by fixed-point iteration). Omissions carry their reason
(`duplicate, overlap, global_budget, redundant_coverage, document_share_cap,
filtered_by_scope, invalid_coordinates`). Facets of the goal that no evidence covers are
declared as `coverage.gaps`. A passage that ends with a question carries its reply, the paragraph right
after it, and a reply carries that question: in notes, FAQs and transcripts the value usually sits in
a reply that shares no word with the goal ("Nate: What's the name of your team?" / "Joanna: The
Minnesota Wolves!"), so it would never be selected on its own facets, and a reply is read with its
question (`extract.asked_before`). A command page works the same way: a one-line caption ending in a
colon carries the command below it, and the command its caption (`passages.captions`), since the flag
asked for stands only in the command and the question's words only in the caption. The pair is selected
as one unit (its facets, its bytes; budget and document share measured on all, fewer of them when all do
not fit), each passage its own evidence item with exact lines and hash. Deterministic: the same index and
request give a byte-identical Capsule (no clocks; `observedAt` is when the index saw the document).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from gno.errors import ErrorCode, NotFoundError, ValidationError
from gno.evidence.budget import Meter, fits, measure
from gno.evidence.canonical import capsule_id, evidence_id, sha256_hex, token_counter
from gno.evidence.capsule_payload import base_payload
from gno.evidence.passages import Passage, captions, covered, ends_with_question, facets_of, split_passages
from gno.hints import hint_configs, matching
from gno.index import IndexReader
from gno.models import Capsule
from gno.store import documents as docs

if TYPE_CHECKING:
    from gno.retrieve.hybrid import Depth, HybridQuery
    from gno.retrieve.semantic import Semantic
    from gno.settings import Settings

DOC_SHARE = (3, 5)
MAX_OMISSION_ITEMS = 50
MAX_EVIDENCE = 20


class CapsuleSource(IndexReader, Protocol):
    """What a Capsule is built from: the index and its config, hybrid retrieval as `gno query` runs
    it, the vector side (whose state the Capsule reports) and the settings (the index name it scopes)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def semantic(self) -> Semantic: ...

    @property
    def query(self) -> HybridQuery: ...


@dataclass
class CapsuleRequest:
    goal: str
    budget_tokens: int
    budget_bytes: int | None = None
    query: str | None = None
    collections: tuple[str, ...] = ()
    uri_prefix: str | None = None
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    depth: Depth = "balanced"
    graph: bool = True
    limit: int = MAX_EVIDENCE


@dataclass
class _Cand:
    rank: int
    doc: docs.DocRow
    start: int
    end: int
    text: str
    heading: str | None
    facets: list[str]
    phash: str
    sources: list[str]
    # the paragraph this passage replies to (it ends with a question) and the one replying to it
    asked: _Cand | None = None
    reply: _Cand | None = None

    def companions(self) -> list[_Cand]:
        """The paragraphs selected together with this one, when they fit (see `_select`)."""
        return [c for c in (self.asked, self.reply) if c is not None]


def _mtime_iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def build_capsule(source: CapsuleSource, req: CapsuleRequest) -> Capsule:
    if not req.goal or not req.goal.strip():
        raise ValidationError("context build needs a goal")
    if req.budget_tokens < 64 or req.budget_tokens > 1_000_000:
        raise ValidationError("`budget` must be between 64 and 1,000,000 tokens")
    budget_bytes = req.budget_bytes or req.budget_tokens * 4
    counter = token_counter()
    query = (req.query or req.goal).strip()
    snapshot_before = str(docs.latest_change_id(source.store))
    coll = req.collections[0] if len(req.collections) == 1 else None
    if len(req.collections) > 1:
        raise ValidationError("one collection at a time in `collections` (or none for all)")
    res = source.query(
        query,
        collection=coll,
        limit=max(req.limit, 10),
        tags_any=req.tags_any,
        tags_all=req.tags_all,
        depth=req.depth,
        graph=req.graph,
        candidate_limit=80 if req.depth == "thorough" else 40,
        snippets=False,  # the passages come from the documents themselves (`_candidates`)
    )
    facets = facets_of(req.goal)
    cands, omitted = _candidates(source, res.results, facets, req)
    meter = Meter(counter)
    selected, more = _select(source, cands, facets, req, budget_bytes, meter)
    # a passage omitted on its own (no facet, a duplicate) may be in after all, as a question's reply
    chosen = {(c.doc.uri, c.start, c.end) for c in selected}
    omitted = [o for o in omitted + more if (o["uri"], o.get("startLine"), o.get("endLine")) not in chosen]
    vec_on = res.mode == "hybrid"
    base = base_payload(source, req, query, facets, res.mode, vec_on, budget_bytes, counter, snapshot_before)
    payload = _finish(base, selected, omitted, facets, meter)
    if not payload["evidence"] and any(o["reason"] == "global_budget" for o in omitted):
        empty = _finish(base, [], [], facets, meter)["budget"]
        raise ValidationError(
            f"`budget` {req.budget_tokens} is too small for any evidence: the Capsule's own metadata takes "
            f"{empty['usedTokens']} tokens / {empty['usedBytes']} bytes; raise `budget`",
            details={"requestedTokens": req.budget_tokens, "metadataTokens": empty["usedTokens"]},
        )
    if not payload["evidence"]:
        raise NotFoundError(
            f"no evidence found for {req.goal!r}; broaden the goal or check the collection",
            code=ErrorCode.NOT_FOUND,
            details={"facets": facets},
        )
    return Capsule.model_validate(payload)


def _candidates(
    index: IndexReader, hits: list[Any], facets: list[str], req: CapsuleRequest
) -> tuple[list[_Cand], list[dict[str, Any]]]:
    rows = {r.uri: r for r in (docs.doc_by_path(index.store, h.collection, h.rel_path) for h in hits) if r}
    contents = docs.contents_of(index.store, (r.mirror_hash for r in rows.values()))
    out: list[_Cand] = []
    omitted: list[dict[str, Any]] = []
    seen: set[str] = set()

    def facets_in(p: Passage) -> list[str]:
        return covered(p.text + " " + (p.heading or ""), facets)

    for doc_rank, h in enumerate(hits, 1):
        row = rows.get(h.uri)
        if row is None:
            continue
        if req.uri_prefix and not row.uri.startswith(req.uri_prefix):
            omitted.append({"reason": "filtered_by_scope", "uri": row.uri})
            continue
        text = contents.get(row.mirror_hash, "")
        lines = text.split("\n")
        scored = []
        valid: dict[int, Passage] = {}
        prev_of: dict[int, Passage] = {}
        for p in split_passages(text, row.body_start_line):
            if p.start_line < 1 or p.end_line > len(lines) or p.start_line > p.end_line:
                omitted.append(
                    {"reason": "invalid_coordinates", "uri": row.uri, "startLine": p.start_line, "endLine": p.end_line}
                )
                continue
            fac = facets_in(p)
            scored.append((len(fac), p, fac))
            valid[p.start_line] = p
            prev_of[p.end_line] = p
        # a document contributes its passages best-first; documents keep their retrieval order
        scored.sort(key=lambda x: (-x[0], x[1].start_line))
        n_in_doc = 0
        for _n, p, fac in scored[:8]:
            ph = sha256_hex(p.text)
            if ph in seen:
                omitted.append(
                    {
                        "reason": "duplicate",
                        "uri": row.uri,
                        "startLine": p.start_line,
                        "endLine": p.end_line,
                        "passageHash": ph,
                    }
                )
                continue
            seen.add(ph)
            cand = _of(p, doc_rank * 1000 + n_in_doc, row, fac, list(h.sources or ["bm25"]))
            # the reply: the next paragraph, one blank line below (as `extract.asked_before` pairs them)
            # (or the command a caption introduces: `passages.captions`)
            nxt = valid.get(p.end_line + 2)
            if nxt is not None and (ends_with_question(p.text) or captions(p.text, nxt.text)):
                cand.reply = _of(nxt, 0, row, facets_in(nxt), cand.sources)
            # and the question this passage replies to (or the caption of this command), should it be
            # the one that states the goal's words
            prev = prev_of.get(p.start_line - 2)
            if prev is not None and (ends_with_question(prev.text) or captions(prev.text, p.text)):
                cand.asked = _of(prev, 0, row, facets_in(prev), cand.sources)
            out.append(cand)
            n_in_doc += 1
    out.sort(key=lambda c: c.rank)
    for i, c in enumerate(out, 1):
        c.rank = i
    # a reply keeps its own rank when it was a candidate too, else ranks after all candidates;
    # either way the ranks of selected evidence stay unique (a passage is selected once at most)
    own = {(c.doc.id, c.start): c.rank for c in out}
    extra = len(out)
    for c in out:
        for r in c.companions():
            if (r.doc.id, r.start) in own:
                r.rank = own[(r.doc.id, r.start)]
            else:
                extra += 1
                r.rank = extra
    return out, omitted


def _of(p: Passage, rank: int, row: docs.DocRow, fac: list[str], sources: list[str]) -> _Cand:
    """A candidate for a passage: its exact lines, its text's hash (what `context verify` re-checks)."""
    return _Cand(rank, row, p.start_line, p.end_line, p.text, p.heading, fac, sha256_hex(p.text), sources)


def _evidence(c: _Cand, sel_rank: int, policy: str) -> dict[str, Any]:
    d = c.doc
    item: dict[str, Any] = {
        "evidenceId": "",  # first in the item; hashed from the fields below
        "uri": d.uri,
        "docid": d.docid,
        "collection": d.collection,
        "title": d.title,
        "startLine": c.start,
        "endLine": c.end,
        "text": c.text,
        "sourceHash": d.source_hash,
        "mirrorHash": d.mirror_hash,
        "passageHash": c.phash,
        "modifiedAt": _mtime_iso(d.source_mtime_ns),
        # observed = the source's modification time as the index saw it: stable across index rebuilds
        "observedAt": _mtime_iso(d.source_mtime_ns),
        "retrievalRank": c.rank,
        "selectionRank": sel_rank,
        "retrievalSources": sorted(c.sources),
        "facets": c.facets,
        "trust": "untrusted",
        "egress": policy,
    }
    item["evidenceId"] = evidence_id(item)
    if c.heading:
        item["heading"] = c.heading
    return item


def _select(
    source: CapsuleSource, cands: list[_Cand], facets: list[str], req: CapsuleRequest, budget_bytes: int, meter: Meter
) -> tuple[list[_Cand], list[dict[str, Any]]]:
    """Greedy selection; the budget check itself happens on the whole payload in `_fits`."""
    selected: list[_Cand] = []
    omitted: list[dict[str, Any]] = []
    covered_f: set[str] = set()
    pool = list(cands)
    docs_in_pool = len({c.doc.id for c in pool})
    share_cap = budget_bytes * DOC_SHARE[0] // DOC_SHARE[1]
    used_by_doc: Counter[int] = Counter()
    policy = {c.name: c.egress_policy for c in source.config.collections}
    query = req.query or req.goal
    fits_base = base_payload(source, req, query, facets, "hybrid", True, budget_bytes, meter.counter, "0")
    built: dict[tuple[int, int], dict[str, Any]] = {}  # (candidate, selection rank) → its evidence item

    def item(c: _Cand, rank: int) -> dict[str, Any]:
        """The same object each trial, so the meter serialises it once."""
        key = (id(c), rank)
        if key not in built:
            built[key] = _evidence(c, rank, policy.get(c.doc.collection, "local_only"))
        return built[key]

    def omit(c: _Cand, reason: str) -> None:
        omitted.append(
            {"reason": reason, "uri": c.doc.uri, "startLine": c.start, "endLine": c.end, "passageHash": c.phash}
        )

    def overlaps(c: _Cand) -> bool:
        return any(s.doc.id == c.doc.id and not (c.end < s.start or c.start > s.end) for s in selected)

    def unit(c: _Cand) -> list[_Cand]:
        """The candidate and those of its companions (in file order) not in yet, within the evidence limit."""
        out = [c]
        for x in c.companions():
            if not overlaps(x) and len(selected) + len(out) < req.limit:
                out.append(x)
        return sorted(out, key=lambda x: x.start)

    def size(u: list[_Cand]) -> int:
        return sum(len(c.text.encode()) for c in u)

    def facets_of_unit(u: list[_Cand]) -> set[str]:
        return {f for c in u for f in c.facets}

    while pool and len(selected) < req.limit:
        eligible: list[_Cand] = []
        for c in pool:
            if overlaps(c):
                omit(c, "overlap")
            elif facets and not c.facets:
                omit(c, "redundant_coverage")
            elif docs_in_pool > 1 and used_by_doc[c.doc.id] + len(c.text.encode()) > share_cap:
                omit(c, "document_share_cap")
            else:
                eligible.append(c)
        if not eligible:
            break

        done = frozenset(covered_f)
        units = {id(c): unit(c) for c in eligible}
        # a unit (a passage and its companions) that adds a goal facet not yet covered comes first, in
        # retrieval order: under a small budget the best-ranked evidence is kept and comes first.
        # Ranking uncovered facets per byte instead let one-line passages that mention a word of the
        # goal crowd it out (an item's ids, hashes and dates weigh some 700 bytes whatever its text,
        # so a short passage is not much cheaper than a long one). Once every facet is covered, the
        # passages that state most of the goal, then rank
        adds = {id(c): bool(facets_of_unit(units[id(c)]) - done) for c in eligible}
        eligible.sort(key=lambda c: (not adds[id(c)], c.rank if adds[id(c)] else -len(c.facets), c.rank))
        best = eligible[0]
        pool = [c for c in eligible if c is not best]
        # with its companions, else with one of them (its question first), else alone when they do not
        # fit (budget or document share): never less than selection without companions would take
        whole = units[id(best)]
        tries = [whole]
        if len(whole) > 2:
            tries += [[x for x in whole if x is best or x is k] for k in (best.asked, best.reply)]
        if len(whole) > 1:
            tries.append([best])
        for add in tries:
            if len(add) > 1 and docs_in_pool > 1 and used_by_doc[best.doc.id] + size(add) > share_cap:
                continue
            trial = selected + add
            items = [item(c, i) for i, c in enumerate(trial, 1)]
            if fits(fits_base, items, budget_bytes, req.budget_tokens, meter):
                selected.extend(add)
                covered_f |= facets_of_unit(add)
                used_by_doc[best.doc.id] += size(add)
                if len(add) > 1:  # a companion may be a candidate of its own: it is in now
                    pool = [c for c in pool if not any(c.doc.id == x.doc.id and c.start == x.start for x in add)]
                break
        else:
            omit(best, "global_budget")
    for c in pool:
        omit(c, "global_budget" if len(selected) >= req.limit else "redundant_coverage")
    return selected, omitted


def _finish(
    base: dict[str, Any], selected: list[_Cand], omitted: list[dict[str, Any]], facets: list[str], meter: Meter
) -> dict[str, Any]:
    payload = _seal(base, selected, omitted, facets, meter)
    if not meter.whole and meter.measure(payload) != Meter(meter.counter, whole=True).measure(payload):
        payload = _seal(base, selected, omitted, facets, Meter(meter.counter, whole=True))
    return payload


def _seal(
    base: dict[str, Any], selected: list[_Cand], omitted: list[dict[str, Any]], facets: list[str], meter: Meter
) -> dict[str, Any]:
    counter = meter.counter
    policy = {e["collection"]: e["policy"] for e in base["egressLineage"]["sources"]}
    payload = {**base, "budget": dict(base["budget"])}
    payload["evidence"] = [
        _evidence(c, i, policy.get(c.doc.collection, "local_only")) for i, c in enumerate(selected, 1)
    ]
    if hints := hint_configs(base["guidance"].get("configuredContexts", [])):
        for item, c in zip(payload["evidence"], selected, strict=True):
            if ids := [h.context_id for h in matching(hints, c.doc.collection, c.doc.rel_path)]:
                item["contextIds"] = ids
    cov = sorted({f for c in selected for f in c.facets}, key=facets.index)
    unresolved = [f for f in facets if f not in cov]
    payload["coverage"] = {
        "complete": not unresolved,
        "requestedFacets": facets,
        "coveredFacets": cov,
        "unresolvedFacets": unresolved,
        "gaps": [{"facet": f, "reason": "no_evidence_found"} for f in unresolved],
    }
    counts = Counter(o["reason"] for o in omitted)
    items = sorted(omitted, key=lambda o: (o["reason"], o.get("uri", ""), o.get("startLine", 0)))
    payload["omissions"] = {
        "total": len(omitted),
        "items": items[:MAX_OMISSION_ITEMS],
        "reasonCounts": dict(sorted(counts.items())),
        "truncated": len(omitted) > MAX_OMISSION_ITEMS,
    }
    warnings = []
    if unresolved:
        warnings.append({"code": "incomplete_coverage"})
    if len(omitted) > MAX_OMISSION_ITEMS:
        warnings.append({"code": "omissions_truncated"})
    if counter.estimator != "active_tokenizer":
        warnings.append({"code": "token_estimate_used"})
    payload["warnings"] = warnings
    payload["truncated"] = counts.get("global_budget", 0) > 0
    # seal (real id, measured usage) and trim omission detail, then evidence, until it fits
    while True:
        payload["capsuleId"] = capsule_id(payload)
        b, t = measure(payload, meter)
        if b <= payload["budget"]["requestedBytes"] and t <= payload["budget"]["requestedTokens"]:
            break
        if payload["omissions"]["items"]:
            payload["omissions"]["items"] = payload["omissions"]["items"][: len(payload["omissions"]["items"]) // 2]
            payload["omissions"]["truncated"] = True
        elif payload["evidence"]:
            payload["evidence"] = payload["evidence"][:-1]
            payload["truncated"] = True
        else:
            break
    return payload
