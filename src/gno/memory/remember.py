"""`remember`: propose a fact, then add or supersede it on the caller's explicit decision.

Algorithm: validate → fence → candidates (BM25 pool of 16 over
current facts in the same scopes, inside the query; cosine ≥ 0.83 when an embedder is given,
else token Jaccard ≥ 0.5) → `existing` (same normalised text, nothing written) | `candidates`
(no decision, nothing written) | under the write lease: re-check, verify the predecessor
(exists, current, same collection, hash matches, not yet superseded), exclusive-create the
fact file, path-scoped lexical sync, check the `supersedes` edge projected. With a request ID
an add or supersede happens at most once however often it is retried (`gno.ledger`). GNO never
adjudicates a likely match with a model: embeddings only rank candidates.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gno.errors import ErrorCode, NotFoundError, RuntimeFailure, ValidationError, make_error
from gno.fsio import exclusive_create
from gno.index import sync_written
from gno.ledger import RequestPointer, file_state, maybe_lease
from gno.memory.inputs import materialize, require_identity, require_text, resolve_collection
from gno.memory.instants import require_instant
from gno.memory.limits import content_hash, normalize_text, validate_scopes
from gno.memory.propose import candidates, propose
from gno.memory.receipts import check_fence, parse_receipt
from gno.memory.records import (
    HASH_RE,
    fact_rel_path,
    record_id_for,
    serialize_fact,
)
from gno.models.memory_results import Matching, MemoryRecord, RememberResult, SyncStatus
from gno.refs import parse_uri
from gno.store import documents as docs
from gno.store import memory as mstore
from gno.wire import fields

if TYPE_CHECKING:
    from pathlib import Path

    from gno.embed.base import Embedder
    from gno.index import IndexWriter
    from gno.ledger import Tracked
    from gno.store.db import Store


@dataclass
class RememberRequest:
    text: Any
    scopes: Any
    caller: str | None
    session: str | None
    collection: str | None = None
    decision: str | None = None
    predecessor_uri: str | None = None
    predecessor_hash: str | None = None
    receipt: Any = None
    derived_from: Sequence[str] = field(default_factory=list)
    source: str | None = None
    lock_wait: float | None = None
    request_id: str | None = None
    valid_from: str | None = None


def _now() -> str:
    from gno.clock import now_iso

    return now_iso()


def _verify_predecessor(store: Store, coll: str, uri: str, phash: str) -> None:
    try:
        pcoll, prel = parse_uri(uri.strip())
    except ValidationError as exc:
        raise NotFoundError(
            f"predecessor {uri!r} is not a gno:// URI of a fact",
            code=ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND,
            details={"predecessorUri": uri},
        ) from exc
    row = docs.doc_by_path(store, pcoll, prel) if pcoll == coll else None
    rec = mstore.records_for(store, [row.id]).get(row.id) if row else None
    if row is None or not row.active or rec is None or not rec["valid"]:
        raise NotFoundError(
            f"predecessor {uri} is not a current fact in collection {coll!r}; recall again",
            code=ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND,
            details={"predecessorUri": uri, "collection": coll},
        )
    if rec["contentHash"] != phash.strip().lower():
        raise ValidationError(
            f"predecessor {uri} changed since it was recalled (hash mismatch); recall again and decide",
            code=ErrorCode.MEMORY_PREDECESSOR_HASH_MISMATCH,
            details={"predecessorUri": uri, "expected": phash, "actual": rec["contentHash"]},
        )
    succ = mstore.successors_of(store, row.uri)
    if succ:
        raise make_error(
            ErrorCode.MEMORY_SUPERSEDE_CONFLICT,
            f"predecessor {uri} was already superseded by {succ[0]}; recall again and decide against the "
            "new current fact",
            {"predecessorUri": uri, "successor": succ[0]},
        )


def remember(index: IndexWriter, req: RememberRequest, embedder: Embedder | None = None,
             semantic_unavailable: str = "no embedding model available", *, key_dir: Path) -> RememberResult:
    """`key_dir` holds the guard's marker key (the data directory), read only when the guard is on."""
    caller, session = require_identity(req.caller, req.session)
    text = require_text(req.text)
    coll = resolve_collection(index.config, req.collection)
    scopes = validate_scopes(req.scopes)
    decision = req.decision.strip().lower() if isinstance(req.decision, str) and req.decision.strip() else None
    if decision not in (None, "add", "supersede"):
        raise ValidationError(
            f"decision must be add or supersede (got {req.decision!r})",
            code=ErrorCode.MEMORY_DECISION_INVALID,
        )
    chash = content_hash(text)
    if req.valid_from is not None:
        req.valid_from = require_instant(req.valid_from, "validFrom")
    receipt = parse_receipt(req.receipt) if req.receipt is not None else None
    check_fence(chash, receipt, [str(x) for x in req.derived_from or []])
    if decision == "supersede" and not (req.predecessor_uri and req.predecessor_hash):
        raise ValidationError(
            "supersede needs the predecessor's URI (`predecessorUri`) and its contentHash (`predecessorHash`)",
            code=ErrorCode.MEMORY_PREDECESSOR_REQUIRED,
        )
    if decision == "supersede" and not HASH_RE.match(str(req.predecessor_hash).strip().lower()):
        raise ValidationError(
            f"`predecessorHash` {req.predecessor_hash!r} is not a contentHash (64 hex characters, as a recall "
            "returns it)",
            details={"field": "predecessorHash", "predecessorHash": req.predecessor_hash},
        )
    tracked = _tracked(index, req, coll.name, text, scopes, decision)
    if tracked is not None and (done := tracked.replay()) is not None:
        return RememberResult.model_validate(done)
    if index.config.memory_guard:
        from gno.guard import MemoryGuard
        from gno.guard.marker_key import install_key

        guard = MemoryGuard(marker_key=install_key(key_dir))
        guarded = guard.check({"text": text, "source": req.source})
        if guarded.rejected:
            raise ValidationError(
                guarded.message or "Memory rejected by Security Guard",
                details=guarded.details(),
            )
        text = guarded.fields["text"] or text
        req.source = guarded.fields.get("source")
        chash = content_hash(text)
    prop = propose(candidates(index.store, coll.name, scopes, text, chash, embedder, semantic_unavailable))
    if decision is None or (prop.outcome == "existing" and decision != "supersede" and tracked is None):
        return RememberResult.model_validate(fields(prop))
    matching = Matching.model_validate(fields(prop.matching))
    with maybe_lease(tracked, index.lease(req.lock_wait, ErrorCode.MEMORY_WRITE_LEASE_BUSY)):
        if tracked is not None:
            if (done := tracked.replay()) is not None:
                return RememberResult.model_validate(done)
            plan = tracked.interrupted_plan()
            if plan is not None:
                coll_cfg = index.config.require(coll.name)
                if file_state(coll_cfg.root / plan["relPath"], plan["sha256"]) == "landed":
                    result = _finish(
                        index, coll.name, plan["relPath"], plan["supersedes"], Matching.model_validate(plan["matching"])
                    )
                    return _committed(tracked, result, replayed=True)
                tracked.forget()
        if decision == "add":
            again, _ = candidates(index.store, coll.name, scopes, text, chash, None, semantic_unavailable)
            dup = next((c for c in again if c.match == "exact"), None)
            if dup is not None:
                record = MemoryRecord.model_validate(fields(dup.record))
                existing = RememberResult(outcome="existing", record=record, matching=matching)
                return existing if tracked is None else _committed(tracked, existing)
        else:
            assert req.predecessor_uri and req.predecessor_hash
            _verify_predecessor(index.store, coll.name, req.predecessor_uri, req.predecessor_hash)
        result = _write(index, coll.name, text, chash, scopes, caller, session, req, decision, matching, tracked)
        return result if tracked is None else _committed(tracked, result)


def _tracked(
    index: IndexWriter, req: RememberRequest, coll: str, text: str, scopes: list[str], decision: str | None
) -> Tracked | None:
    """The request ID's tracker (None: no ID); an ID needs a decision (a proposal writes nothing)."""
    if req.request_id is None:
        return None
    if decision is None:
        raise ValidationError(
            "a request ID names a write: give --add or --supersede with it (a proposal writes nothing)",
            code=ErrorCode.REQUEST_ID_INVALID,
            details={"requestId": str(req.request_id)[:140]},
        )
    intent = {
        "collection": coll,
        "text": normalize_text(text),
        "scopes": scopes,
        "decision": decision,
        "predecessorUri": (req.predecessor_uri or "").strip() or None,
        "predecessorHash": (req.predecessor_hash or "").strip().lower() or None,
        "source": req.source,
        "validFrom": req.valid_from,
    }
    return index.requests.track(req.request_id, "remember", intent)


def _committed(tracked: Tracked, result: RememberResult, *, replayed: bool = False) -> RememberResult:
    assert result.record is not None
    rec = result.record
    pointer = RequestPointer(uri=rec.uri, docid=rec.docid, content_hash=rec.content_hash)
    return RememberResult.model_validate(tracked.commit(result, pointer, replayed=replayed))


def _write(
    index: IndexWriter,
    coll_name: str,
    text: str,
    chash: str,
    scopes: list[str],
    caller: str,
    session: str,
    req: RememberRequest,
    decision: str,
    matching: Matching,
    tracked: Tracked | None = None,
) -> RememberResult:
    coll = index.config.require(coll_name)
    created = _now()
    rid = record_id_for(chash, created, caller, session)
    rel = fact_rel_path(rid, created)
    supersedes = [req.predecessor_uri.strip()] if decision == "supersede" and req.predecessor_uri else []
    if supersedes:
        pc, pr = parse_uri(supersedes[0])
        supersedes = [docs.doc_by_path(index.store, pc, pr).uri]  # type: ignore[union-attr]
    body = serialize_fact(
        text=text,
        record_id=rid,
        scopes=scopes,
        caller=caller,
        session=session,
        created_at=created,
        chash=chash,
        source=req.source,
        supersedes=supersedes,
        valid_from=req.valid_from,
    ).encode("utf-8")
    path = coll.root / rel
    if tracked is not None:
        plan = {"relPath": rel, "sha256": hashlib.sha256(body).hexdigest(), "supersedes": supersedes}
        tracked.plan({**plan, "matching": matching.dump()})
    try:
        exclusive_create(path, body)
    except FileExistsError as exc:
        raise RuntimeFailure(f"fact file {path} already exists", code=ErrorCode.MEMORY_SYNC_FAILED) from exc
    except OSError as exc:
        raise RuntimeFailure(
            f"cannot write fact file {path}: {exc}",
            code=ErrorCode.MEMORY_SYNC_FAILED,
            details={"absPath": str(path)},
        ) from exc
    return _finish(index, coll_name, rel, supersedes, matching)


def _finish(index: IndexWriter, coll_name: str, rel: str, supersedes: list[str], matching: Matching) -> RememberResult:
    """Index the fact file just written (the caller holds the lease) and check what it supersedes."""
    coll = index.config.require(coll_name)
    path = coll.root / rel
    sync_written(index, coll, rel, "fact written to", ErrorCode.MEMORY_SYNC_FAILED)
    row = docs.doc_by_path(index.store, coll.name, rel)
    rec = materialize(index.store, [row.id]).get(row.id) if row else None
    if rec is None:
        raise RuntimeFailure(
            f"fact written to {path} but it is not retrievable yet; run `gno update`",
            code=ErrorCode.MEMORY_SYNC_FAILED,
            details={"absPath": str(path)},
        )
    if supersedes and rec.uri not in mstore.successors_of(index.store, supersedes[0]):
        raise RuntimeFailure(
            f"successor {rec.uri} written but its supersedes edge is not projected; run `gno update`",
            code=ErrorCode.MEMORY_SUPERSEDE_PROJECTION_FAILED,
            details={"absPath": str(path)},
        )
    return RememberResult(
        outcome="superseded" if supersedes else "added",
        record=rec,
        matching=matching,
        abs_path=os.fspath(path),
        sync=SyncStatus(status="completed"),
    )
