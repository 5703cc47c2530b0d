"""Safe retries: `X-Idempotency-Key` makes a repeated `remember` return the first response.

Why it works under concurrency and restarts: the key is claimed *inside the write transaction that
creates the record*, by inserting its row into `idempotency` whose primary key is (access key,
project, workspace, idempotency key). The first request inserts the row and, at the end of the same
transaction, stores its response; a concurrent twin either waits for the writer lock (SQLite) or
for the project advisory lock and then the unique index (PostgreSQL), finds the committed row and
replays it. A failed request rolls back its claim, so errors are never replayed. Rows live in the
database, so a restarted server still knows every key.

"The same parameters" means the same canonical JSON of the operation's parameters with defaults
applied (omitting `workspace` equals sending `"default"`), hashed with sha256 — the raw text,
which may hold secrets, is never stored.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from gno.errors import ErrorCode
from gno.service import error_texts as E
from gno.service.backend import Tx, utcnow
from gno.service.error_texts import refuse
from gno.service.tenancy import Principal

_VALID = re.compile(r"[\x20-\x7e]{1,256}")


def check_key(raw: str | None) -> str | None:
    """None when no header was sent; the key when it is 1-256 printable ASCII characters."""
    if raw is None:
        return None
    if not _VALID.fullmatch(raw):
        raise refuse(ErrorCode.INVALID_ARGUMENT, E.IDEMPOTENCY_KEY_INVALID)
    return raw


def request_hash(operation: str, params: dict[str, Any]) -> str:
    canonical = json.dumps({"op": operation, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def claim(tx: Tx, p: Principal, workspace: str, key: str, req_hash: str) -> dict[str, Any] | None:
    """Claim `key` for this request, or return the response to replay (409 on other input)."""
    inserted = tx.execute(
        "INSERT INTO idempotency (key_id, project_id, workspace, idem_key, request_hash, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING idem_key",
        (p.key_id, p.project_id, workspace, key, req_hash, utcnow()),
    )
    if inserted:
        return None
    rows = tx.execute(
        "SELECT request_hash, response FROM idempotency WHERE key_id = ? AND project_id = ? AND workspace = ? "
        "AND idem_key = ?",
        (p.key_id, p.project_id, workspace, key),
    )
    stored_hash, response = rows[0]
    if stored_hash != req_hash:
        raise refuse(ErrorCode.IDEMPOTENCY_CONFLICT, E.IDEMPOTENCY_CONFLICT)
    if response is None:  # pragma: no cover - a claim is only visible once its transaction committed
        raise RuntimeError("idempotency record without a response")
    replay: dict[str, Any] = json.loads(response)
    return replay


def complete(tx: Tx, p: Principal, workspace: str, key: str, response: dict[str, Any]) -> None:
    tx.execute(
        "UPDATE idempotency SET response = ? WHERE key_id = ? AND project_id = ? AND workspace = ? AND idem_key = ?",
        (json.dumps(response, ensure_ascii=False), p.key_id, p.project_id, workspace, key),
    )
