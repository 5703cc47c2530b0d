"""The change journal as plain data: a page of `gno changes`, and one event as `diff` reports it.

The engine (through `gno.evidence.delta`) and a cold `gno changes` (`gno.cli.cold_read`) compose
`read_changes`; its records declare the fields of `gno.models.ChangesResult` and its parts, which
derive from them, so they dump as the model dumps itself. Cursors are opaque (`c<id>`); a cursor
older than the journal's retention (`gno.store.documents.JOURNAL_RETENTION` events) is reported
as expired with the earliest and latest cursors.
"""

from __future__ import annotations

from gno.tuples import Record

TYPE_CHECKING = False  # not typing's: a cold `gno changes` imports neither typing nor pydantic
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from gno.store.db import Store


class ChangeEvent(Record):
    id: str
    kind: str  # create | update | rename | inactivate | reactivate
    collection: str
    observed_at: str
    previous: dict[str, Any] | None = None
    current: dict[str, Any] | None = None
    structure_delta: dict[str, Any] | None = None


class ChangePage(Record):
    next_cursor: str | None = None
    earliest_cursor: str | None = None
    latest_cursor: str | None = None
    cursor_expired: bool = False
    truncated: bool = False


class Changes(Record):
    """A page of the journal (`gno.models.ChangesResult` as plain data)."""

    schema_version: str
    changes: Sequence[ChangeEvent]
    page: ChangePage


def encode_cursor(change_id: int) -> str:
    return f"c{change_id}"


def _invalid(message: str) -> Exception:
    from gno.errors import ValidationError

    return ValidationError(message)


def decode_cursor(cursor: str) -> int:
    if not cursor.startswith("c") or not cursor[1:].isdigit():
        raise _invalid(f"invalid cursor {cursor!r}: cursors look like c123 (from a previous page)")
    return int(cursor[1:])


def event(row: dict[str, Any]) -> ChangeEvent:
    """One journal row as the event every surface reports."""
    import json

    return ChangeEvent(
        id=encode_cursor(int(row["id"])),
        kind=row["kind"],
        collection=row["collection"],
        observed_at=row["observed_at"],
        previous=json.loads(row["previous_json"]) if row["previous_json"] else None,
        current=json.loads(row["current_json"]) if row["current_json"] else None,
        structure_delta=json.loads(row["delta_json"]) if row["delta_json"] else None,
    )


def read_changes(
    store: Store,
    collection_of: Callable[[str], str],
    *,
    since: str | None = None,
    collection: str | None = None,
    limit: int = 100,
) -> Changes:
    """A page of the journal after a cursor or since an ISO time, of one collection (`collection_of`
    gives its configured name) or all."""
    from gno.store import documents as docs

    if not 1 <= limit <= 1000:
        raise _invalid("`limit` must be between 1 and 1000")
    earliest, latest = docs.change_bounds(store)
    after = 0
    since_iso: str | None = None
    if since:
        if since.startswith("c") and since[1:].isdigit():
            after = decode_cursor(since)
            if earliest and after < earliest - 1:
                from gno.errors import ErrorCode, make_error

                raise make_error(
                    ErrorCode.CURSOR_EXPIRED,
                    "cursor expired: the journal no longer holds it",
                    {
                        "error": "cursor_expired",
                        "earliestCursor": encode_cursor(earliest),
                        "latestCursor": encode_cursor(latest),
                    },
                )
        else:
            from datetime import datetime

            try:
                datetime.fromisoformat(since.replace("Z", "+00:00"))
            except ValueError:
                raise _invalid(
                    f"invalid `since` {since!r}: an ISO date/time (2026-11-30, 2026-11-30T09:00:00Z) or a cursor (c123)"
                ) from None
            since_iso = since
    coll = collection_of(collection) if collection else None
    rows = [
        r
        for r in docs.changes(store, after, 10**9 if (coll or since_iso) else limit + 1)
        if (coll is None or r["collection"] == coll) and (since_iso is None or r["observed_at"] >= since_iso)
    ]
    page = rows[:limit]
    nxt = encode_cursor(int(page[-1]["id"])) if page else (encode_cursor(after) if after else None)
    return Changes(
        schema_version="1.0",
        changes=[event(r) for r in page],
        page=ChangePage(
            next_cursor=nxt,
            earliest_cursor=encode_cursor(earliest) if earliest else None,
            latest_cursor=encode_cursor(latest) if latest else None,
            cursor_expired=False,
            truncated=len(rows) > limit,
        ),
    )
