"""Parameter checks with the seed's texts, in the seed's order.

Why a module of its own: the order is part of the contract (a call with two problems reports the
first one of the seed's error table), so it is written down once, here, as straight-line code.
`remember` runs, in this order (→ `api.py` for the steps that need the database):

     1 content exceeds maximum allowed length        (> 100,000 characters; any other text field
                                                     over 4,096 characters: `<field> exceeds …`)
     2 content must not be empty                     (empty or whitespace only)
     2b MCP rate limit exceeded / project call limit exceeded             (api; step 13 moved up)
     3 Memory rejected by Security Guard: <rule>     (poisoning, any text field; secrets are redacted)
     4 workspace and scope must not be empty
     5 confidence must be between 0 and 1
     6 source_id is required when source_hash is provided
     7 derived_from accepts at most 50 memory ids
     8 derived_from contains unknown memory ids      (api: missing, forgotten or another project's)
     9 invalid X-Idempotency-Key                     (api)
    10 409 Conflict: idempotency key was used …      (api; a matching retry replays here)
    11 project memory limit exceeded                 (api)
    12 maximum number of memories exceeded for workspace / … for tenant   (api)
    13 (the rate limits: checked at 2b)
    14 workspace '…' was deleted and cannot be reused                     (api)
    15 403 Forbidden: workspace access denied for project                 (api)
    16 (organisations are not modelled: no membership check)
    17 [MMW Notice]: …                                                    (api)

The size caps and the rate limits come before the guard on purpose: the guard is the one step
whose cost grows with the text, so a flood of large or refused calls must be stopped before it.
"""

from __future__ import annotations

import math

from gno.service import error_texts as E
from gno.service.error_texts import invalid
from gno.service.models import ForgetParams, RememberParams, SearchParams, ValidateParams

MAX_CONTENT = 100_000
MAX_FIELD = 4096
CAPPED_FIELDS = ("workspace", "scope", "source", "source_id", "source_hash", "source_revision", "fact_key")
MAX_DERIVED = 50
MAX_QUERY = 10_000
MAX_LIMIT = 50


def _blank(value: str | None) -> bool:
    return value is None or not value.strip()


def check_content(p: RememberParams) -> None:
    """Steps 1-2."""
    if len(p.content) > MAX_CONTENT:
        raise invalid(E.CONTENT_TOO_LONG)
    for name in CAPPED_FIELDS:
        value = getattr(p, name)
        if value is not None and len(value) > MAX_FIELD:
            raise invalid(f"{name} exceeds maximum allowed length")
    if _blank(p.content):
        raise invalid(E.CONTENT_EMPTY)


def check_fields(p: RememberParams) -> list[str]:
    """Steps 4-7; returns `derived_from` deduplicated and sorted."""
    if _blank(p.workspace) or _blank(p.scope):
        raise invalid(E.WORKSPACE_SCOPE_EMPTY)
    if not (math.isfinite(p.confidence) and 0.0 <= p.confidence <= 1.0):
        raise invalid(E.CONFIDENCE_RANGE)
    if p.source_hash is not None and _blank(p.source_id):
        raise invalid(E.SOURCE_HASH_NEEDS_ID)
    if len(p.derived_from or []) > MAX_DERIVED:  # as sent: 51 ids are too many even if some repeat
        raise invalid(E.DERIVED_TOO_MANY)
    return sorted(set(p.derived_from or []))


def check_search(p: SearchParams) -> None:
    if len(p.query) > MAX_QUERY:
        raise invalid(E.QUERY_TOO_LONG)
    if _blank(p.query):
        raise invalid(E.QUERY_EMPTY)
    if _blank(p.workspace) or (p.scope is not None and _blank(p.scope)):
        raise invalid(E.WORKSPACE_SCOPE_EMPTY)
    if not 1 <= p.limit <= MAX_LIMIT:
        raise invalid(E.LIMIT_RANGE)


def check_forget(p: ForgetParams) -> None:
    if _blank(p.memory_id) and _blank(p.source_id):
        raise invalid(E.FORGET_TARGET_REQUIRED)
    if not _blank(p.memory_id) and not _blank(p.source_id):
        raise invalid(E.FORGET_TARGET_BOTH)
    if p.workspace is not None and _blank(p.workspace):
        raise invalid(E.WORKSPACE_SCOPE_EMPTY)


def check_validate(p: ValidateParams) -> None:
    if _blank(p.source_id) or _blank(p.current_source_hash):
        raise invalid(E.VALIDATE_SOURCE_REQUIRED)
    if p.workspace is not None and _blank(p.workspace):
        raise invalid(E.WORKSPACE_SCOPE_EMPTY)
