"""Recall receipts and the context fence.

Every recall returns a content-free receipt: `{caller, session, issuedAt, memoryIds,
spanHashes, digest}` with `digest = sha256(compact JSON of the other fields in that order)`.
`remember` refuses a text whose hash is on a presented receipt (MEMORY_FENCED_REPLAY) and a
submission that declares a `gno://` origin (MEMORY_FENCED_DERIVED). Receipts are
surface-independent: one issued over MCP fences the CLI and the reverse. The fence is exact
span plus declared origin; a paraphrase without lineage is stored as an original fact.
"""

from __future__ import annotations

import hashlib
import json

from gno.memory_records import Issued

TYPE_CHECKING = False  # not typing's: a cold recall issues receipts without typing, pydantic or the error table
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gno.models.memory_results import Receipt


def receipt_digest(
    caller: str, session: str, issued_at: str, memory_ids: Sequence[str], span_hashes: Sequence[str]
) -> str:
    payload = {
        "caller": caller,
        "session": session,
        "issuedAt": issued_at,
        "memoryIds": list(memory_ids),
        "spanHashes": list(span_hashes),
    }
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def make_receipt(
    caller: str, session: str, issued_at: str, memory_ids: Sequence[str], content_hashes: Sequence[str]
) -> Issued:
    spans = sorted(set(content_hashes))
    return Issued(
        caller=caller,
        session=session,
        issued_at=issued_at,
        memory_ids=list(memory_ids),
        span_hashes=spans,
        digest=receipt_digest(caller, session, issued_at, memory_ids, spans),
    )


def parse_receipt(obj: Any) -> Receipt:
    """A receipt object, or a whole saved recall output that carries one."""
    from gno.errors import ValidationError, not_a
    from gno.models.memory_results import Receipt

    if isinstance(obj, Receipt):
        return obj
    if isinstance(obj, dict) and "receipt" in obj and isinstance(obj["receipt"], dict):
        obj = obj["receipt"]
    if not isinstance(obj, dict):
        raise ValidationError("receipt must be a recall receipt object (or a saved `gno recall --json` output)")
    try:
        r = Receipt.model_validate(obj)
    except Exception as exc:
        expected = "the `receipt` object a recall returned, or the whole saved recall result"
        raise not_a("a recall receipt", expected, exc, details={"field": "receipt"}) from exc
    want = receipt_digest(r.caller, r.session, r.issued_at, r.memory_ids, r.span_hashes)
    if want != r.digest:
        raise ValidationError(
            "recall receipt digest does not match its fields; pass the receipt exactly as recall returned it",
            details={"field": "receipt"},
        )
    return r


def check_fence(chash: str, receipt: Receipt | None, derived_from: Sequence[str]) -> None:
    """A text recall returned (on the presented receipt), or declared derived from gno output, is not a new fact."""
    if receipt is not None and chash in receipt.span_hashes:
        from gno.errors import ErrorCode, ValidationError

        raise ValidationError(
            "this text is a span recall returned (it is on the presented receipt): recalled facts are "
            "context, not new facts",
            code=ErrorCode.MEMORY_FENCED_REPLAY,
            details={"contentHash": chash, "receiptDigest": receipt.digest},
        )
    for origin in derived_from:
        if origin.strip().startswith("gno://"):
            from gno.errors import ErrorCode, ValidationError

            raise ValidationError(
                f"the submission declares a gno:// origin ({origin.strip()}): text derived from GNO output "
                "is not a new fact",
                code=ErrorCode.MEMORY_FENCED_DERIVED,
                details={"derivedFrom": origin.strip()},
            )
