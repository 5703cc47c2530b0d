"""The service face's error texts.

The service's contract fixes the *texts* clients see (`content must not be empty`, `409 Conflict:
idempotency key was used with different input`, `[MMW Notice]: …`); they travel as the message of
gno's one envelope `{"error": {code, message, details}}` on HTTP and as MCP structured content. The
codes, their HTTP statuses and CLI exit codes are rows of gno's one error table (`gno.errors`):
INVALID_ARGUMENT 400, UNAUTHORIZED 401, WORKSPACE_FORBIDDEN / QUOTA_EXCEEDED / ACCOUNT_SUSPENDED
403, NOT_FOUND 404 (also for another project's ids: no existence leak), IDEMPOTENCY_CONFLICT 409,
WORKSPACE_DELETED 410, GUARD_REJECTED 422, ACCOUNT_READ_ONLY 423 (writes in the grace period),
RATE_LIMITED 429. This module holds the texts; it is not a second table."""

from __future__ import annotations

from typing import Any

from gno.errors import ErrorCode, GnoError, make_error

# -- the seed's texts (binding) ------------------------------------------------------------------
CONTENT_TOO_LONG = "content exceeds maximum allowed length"
CONTENT_EMPTY = "content must not be empty"
WORKSPACE_SCOPE_EMPTY = "workspace and scope must not be empty"
CONFIDENCE_RANGE = "confidence must be between 0 and 1"
SOURCE_HASH_NEEDS_ID = "source_id is required when source_hash is provided"
DERIVED_TOO_MANY = "derived_from accepts at most 50 memory ids"
DERIVED_UNKNOWN = "derived_from contains unknown memory ids"
IDEMPOTENCY_KEY_INVALID = "invalid X-Idempotency-Key"
IDEMPOTENCY_CONFLICT = "409 Conflict: idempotency key was used with different input"
PROJECT_MEMORY_LIMIT = "project memory limit exceeded"
WORKSPACE_MEMORY_LIMIT = "maximum number of memories exceeded for workspace"
TENANT_MEMORY_LIMIT = "maximum number of memories exceeded for tenant"
MCP_RATE_LIMIT = "MCP rate limit exceeded"
PROJECT_CALL_LIMIT = "project call limit exceeded"
WORKSPACE_FORBIDDEN = "403 Forbidden: workspace access denied for project"
NOTICE_READ_ONLY = "[MMW Notice]: the account is in its grace period and read-only: renew the subscription to write"
NOTICE_SUSPENDED = "[MMW Notice]: the account is suspended: contact the account owner"

# -- texts of the other operations, in the seed's style (the seed documents only remember) -------
QUERY_EMPTY = "query must not be empty"
QUERY_TOO_LONG = "query exceeds maximum allowed length"
LIMIT_RANGE = "limit must be between 1 and 50"
FORGET_TARGET_REQUIRED = "memory_id or source_id is required"
FORGET_TARGET_BOTH = "provide memory_id or source_id, not both"
MEMORY_NOT_FOUND = "memory not found"
VALIDATE_SOURCE_REQUIRED = "source_id and current_source_hash must not be empty"
UNAUTHORIZED = "401 Unauthorized: missing, unknown or revoked access key"


def workspace_deleted(name: str) -> str:
    return f"workspace '{name}' was deleted and cannot be reused"


def refuse(code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> GnoError:
    """A refusal of the service face: one of the texts above under a code of gno's one table."""
    return make_error(code, message, details)


def invalid(message: str) -> GnoError:
    return refuse(ErrorCode.INVALID_ARGUMENT, message)
