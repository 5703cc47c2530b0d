"""Retry-safe writes: a request ID makes a capture, a remember or a note edit happen at most once.

A writer that names a request ID runs this protocol under the index's write lease:

1. the ledger is asked about the ID. Committed with the same intent: the first result is
   replayed (`request.replayed: true`) and nothing is written. Another intent under the same ID
   is REQUEST_ID_CONFLICT; an outcome past its retention is REQUEST_EXPIRED.
2. Pending (an earlier attempt died between recording its plan and committing): the planned
   file decides. It holds the planned bytes: the write landed, so it is indexed and committed now
   and its result replayed. It is absent (or, for an edit, still the old bytes): the attempt
   never wrote, the row is dropped and the write runs afresh. Anything else means someone else
   changed the file meanwhile: REQUEST_RECOVERY_CONFLICT, nothing is touched.
3. Otherwise the plan (collection, path, sha256 of the bytes about to be written) is recorded,
   durably, before the file is touched; then the file is written and indexed; then the result is
   committed. A `kill -9` between any two steps leaves a state step 2 resolves exactly.

The intent is a digest of what the write asks for (never the caller or session, which a retry
from another process may not share). A retry that finds the lease held while its ID is pending
is REQUEST_PENDING (the first attempt is still writing). Outcomes are kept 30 days, then become
tombstones (the ID stays refused as expired); the ledger holds at most 100,000 rows, the oldest
tombstones making room, and refuses a new ID with REQUEST_CAPACITY_EXHAUSTED only when every row
is still a live outcome.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from gno.errors import BusyError, ErrorCode, RuntimeFailure, ValidationError, make_error
from gno.models import GnoModel
from gno.store.requests import LedgerDb, LedgerRow

REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
RETENTION = timedelta(days=30)
MAX_ROWS = 100_000

Operation = Literal["capture", "remember", "document.update", "document.tags"]


class RequestPointer(GnoModel):
    uri: str
    docid: str
    content_hash: str | None = None
    source_hash: str | None = None


class RequestStatusResult(GnoModel):
    request_id: str
    status: Literal["committed", "pending", "expired", "not_found"]
    operation: str | None = None
    result: RequestPointer | None = None
    created_at: str | None = None
    committed_at: str | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_request_id(request_id: Any) -> str:
    """The ID as given, or REQUEST_ID_INVALID (1–128 of A–Z a–z 0–9 . _ : -, starting alphanumeric)."""
    if not isinstance(request_id, str) or not REQUEST_ID_RE.match(request_id):
        raise ValidationError(
            f"invalid request ID {str(request_id)[:140]!r}: 1-128 characters of letters, digits and . _ : -, "
            "starting with a letter or digit",
            code=ErrorCode.REQUEST_ID_INVALID,
            details={"requestId": str(request_id)[:140]},
        )
    return request_id


def intent_digest(operation: str, fields: dict[str, Any]) -> str:
    """sha256 of what the write asks for, as canonical JSON."""
    raw = json.dumps({"operation": operation, **fields}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def file_state(path: Path, sha256: str, before: str | None = None) -> Literal["landed", "absent"]:
    """Did a planned write reach `path`? `before`: the hash an edit replaces (still there = not landed)."""
    try:
        current = hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        if before is None:
            return "absent"
        current = ""
    except OSError as exc:
        raise RuntimeFailure(f"cannot read {path} to settle an interrupted request: {exc}") from exc
    if current == sha256:
        return "landed"
    if before is not None and current == before:
        return "absent"
    raise make_error(
        ErrorCode.REQUEST_RECOVERY_CONFLICT,
        f"an interrupted write of this request planned {path}, which now holds other bytes; the request "
        "cannot be settled safely: look at the file, then retry with a new request ID",
        {"absPath": str(path), "plannedSha256": sha256},
    )


class Ledger:
    """The request ledger of one index (see the module docstring for the protocol)."""

    def __init__(self, path: str | Path, *, retention: timedelta = RETENTION, max_rows: int = MAX_ROWS) -> None:
        self.db = LedgerDb(path)
        self.retention = retention
        self.max_rows = max_rows

    def status(self, request_id: str) -> RequestStatusResult:
        rid = check_request_id(request_id)
        row = self.db.get(rid)
        if row is None:
            return RequestStatusResult(request_id=rid, status="not_found")
        status = row.status
        if status == "committed" and row.committed_at and row.committed_at < _iso(_now() - self.retention):
            status = "expired"
        pointer = RequestPointer.model_validate(row.pointer) if row.pointer and status == "committed" else None
        return RequestStatusResult(
            request_id=rid,
            status=status,  # type: ignore[arg-type]
            operation=row.operation,
            result=pointer,
            created_at=row.created_at,
            committed_at=row.committed_at,
        )

    def track(self, request_id: Any, operation: Operation, intent: dict[str, Any]) -> Tracked:
        rid = check_request_id(request_id)
        coll = intent.get("collection")
        # a collection renamed since the first attempt: that attempt's intent named an earlier name
        earlier = self.db.former_names(coll) if isinstance(coll, str) else []
        also = tuple(intent_digest(operation, {**intent, "collection": n}) for n in earlier)
        return Tracked(self, rid, operation, intent_digest(operation, intent), also)

    def _make_room(self) -> None:
        now = _now()
        self.db.expire_before(_iso(now - self.retention))
        over = self.db.count() - self.max_rows + 1
        if over > 0 and self.db.evict_tombstones(over) < over:
            raise make_error(
                ErrorCode.REQUEST_CAPACITY_EXHAUSTED,
                f"the request ledger holds {self.max_rows} live outcomes (the last 30 days); retry without "
                "--request-id, or later",
                {"maxRows": self.max_rows},
            )


def with_request(result: dict[str, Any], request_id: str, committed_at: str, replayed: bool) -> dict[str, Any]:
    info = {"requestId": request_id, "status": "committed", "replayed": replayed, "committedAt": committed_at}
    return {**result, "request": info}


class Tracked:
    """One write under one request ID: the writer calls these around its own steps."""

    def __init__(
        self, ledger: Ledger, request_id: str, operation: str, intent: str, also: tuple[str, ...] = ()
    ) -> None:
        self.ledger, self.request_id, self.operation, self.intent = ledger, request_id, operation, intent
        self.also = also  # the same intent under a collection's earlier names

    def _row(self) -> LedgerRow | None:
        row = self.ledger.db.get(self.request_id)
        if row is None:
            return None
        if row.operation != self.operation or (row.intent != self.intent and row.intent not in self.also):
            raise ValidationError(
                f"request ID {self.request_id!r} was already used for another {row.operation} write; a retry must "
                "repeat the same request, a new write needs a new ID",
                code=ErrorCode.REQUEST_ID_CONFLICT,
                details={"requestId": self.request_id, "operation": row.operation},
            )
        expired = row.committed_at is not None and row.committed_at < _iso(_now() - self.ledger.retention)
        if row.status == "expired" or (row.status == "committed" and expired):
            raise ValidationError(
                f"request ID {self.request_id!r} was committed {row.committed_at} and its outcome is past the "
                "30-day retention; check the collection, then use a new ID",
                code=ErrorCode.REQUEST_EXPIRED,
                details={"requestId": self.request_id, "committedAt": row.committed_at},
            )
        return row

    def replay(self) -> dict[str, Any] | None:
        """The first result, marked replayed, when the ID is committed (None: not yet)."""
        row = self._row()
        if row is None or row.status != "committed" or row.result is None or row.committed_at is None:
            return None
        return with_request(row.result, self.request_id, row.committed_at, True)

    def interrupted_plan(self) -> dict[str, Any] | None:
        """Under the lease: the plan of an earlier attempt that died before committing (None: none)."""
        row = self._row()
        return row.plan if row is not None and row.status == "pending" and row.plan is not None else None

    def plan(self, plan: dict[str, Any] | None) -> None:
        """Record (durably) what is about to be written; None: an outcome that writes no file."""
        if self.ledger.db.get(self.request_id) is None:
            self.ledger._make_room()
        self.ledger.db.put_pending(self.request_id, self.operation, self.intent, plan, _iso(_now()))

    def forget(self) -> None:
        """The interrupted attempt never wrote: drop its row (this attempt records its own plan)."""
        self.ledger.db.delete(self.request_id)

    def commit(self, result: GnoModel, pointer: RequestPointer, *, replayed: bool = False) -> dict[str, Any]:
        """Record the outcome; the result as the caller gets it (with `request`)."""
        body = {k: v for k, v in result.dump().items() if k != "request"}
        at = _iso(_now())
        if self.ledger.db.get(self.request_id) is None:
            self.plan(None)
        self.ledger.db.commit(self.request_id, body, pointer.dump(), at)
        return with_request(body, self.request_id, at, replayed)

    @contextmanager
    def lease(self, lease: AbstractContextManager[None]) -> Iterator[None]:
        """`lease`, except that a busy lease while this ID is pending is REQUEST_PENDING."""
        try:
            lease.__enter__()
        except BusyError as exc:
            row = self.ledger.db.get(self.request_id)
            if row is not None and row.status == "pending":
                raise make_error(
                    ErrorCode.REQUEST_PENDING,
                    f"request {self.request_id!r} is still being written by another attempt; check it with "
                    f"`gno request-status {self.request_id}` and retry",
                    {"requestId": self.request_id},
                ) from exc
            raise
        try:
            yield
        except BaseException as exc:
            if not lease.__exit__(type(exc), exc, exc.__traceback__):
                raise
        else:
            lease.__exit__(None, None, None)


def maybe_lease(tracked: Tracked | None, lease: AbstractContextManager[None]) -> AbstractContextManager[None]:
    return lease if tracked is None else tracked.lease(lease)


__all__ = [
    "Ledger",
    "RequestPointer",
    "RequestStatusResult",
    "Tracked",
    "check_request_id",
    "file_state",
    "intent_digest",
    "maybe_lease",
]
