"""The service face's error texts and their HTTP statuses: one table, read by every surface.

Why a table of its own: seed 003 fixes the *texts* clients see (`content must not be empty`,
`409 Conflict: idempotency key was used with different input`, `[MMW Notice]: …`) and its HTTP
surface answers `{"error": "<text>"}` instead of gno's `{"error": {code, message, details}}`
envelope. A :class:`ServiceError` is still a :class:`~gno.errors.GnoError` (so the CLI renders it
with an exit code from gno's table), and additionally carries a :class:`ServiceCode` whose row
below gives the HTTP status. HTTP and MCP translate it exactly once (`http.py`, `mcp_tools.py`);
nobody recovers a code from a message.

Status choices (the seed names texts, not statuses):

    400 INVALID_ARGUMENT      every parameter check of the seed, `invalid X-Idempotency-Key`
    401 UNAUTHORIZED          missing, unknown or revoked access key
    403 WORKSPACE_FORBIDDEN   `403 Forbidden: workspace access denied for project`
    403 QUOTA_EXCEEDED        plan and technical record limits (a quota, not a rate)
    403 ACCOUNT_SUSPENDED     `[MMW Notice]: …` for a suspended account (reads and writes)
    404 NOT_FOUND             `memory not found` (also for another project's ids: no existence leak)
    409 IDEMPOTENCY_CONFLICT  same idempotency key, different input
    410 WORKSPACE_DELETED     `workspace '…' was deleted and cannot be reused`
    422 GUARD_REJECTED        `Memory rejected by Security Guard: <rule>`
    423 ACCOUNT_READ_ONLY     `[MMW Notice]: …` for an account in its read-only grace period (writes)
    429 RATE_LIMITED          `MCP rate limit exceeded`, `project call limit exceeded`
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from gno.errors import ErrorCode, GnoError

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


class ServiceCode(StrEnum):
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    UNAUTHORIZED = "UNAUTHORIZED"
    WORKSPACE_FORBIDDEN = "WORKSPACE_FORBIDDEN"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    ACCOUNT_SUSPENDED = "ACCOUNT_SUSPENDED"
    NOT_FOUND = "NOT_FOUND"
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
    WORKSPACE_DELETED = "WORKSPACE_DELETED"
    GUARD_REJECTED = "GUARD_REJECTED"
    ACCOUNT_READ_ONLY = "ACCOUNT_READ_ONLY"
    RATE_LIMITED = "RATE_LIMITED"


class _Row(NamedTuple):
    http_status: int
    gno_code: ErrorCode  # what the CLI's exit code and gno's envelope use


#: THE service table: code → HTTP status and the gno error code it maps to.
SERVICE_TABLE: dict[ServiceCode, _Row] = {
    ServiceCode.INVALID_ARGUMENT: _Row(400, ErrorCode.VALIDATION),
    ServiceCode.UNAUTHORIZED: _Row(401, ErrorCode.UNAUTHORIZED),
    ServiceCode.WORKSPACE_FORBIDDEN: _Row(403, ErrorCode.WRITE_DISABLED),
    ServiceCode.QUOTA_EXCEEDED: _Row(403, ErrorCode.WRITE_DISABLED),
    ServiceCode.ACCOUNT_SUSPENDED: _Row(403, ErrorCode.WRITE_DISABLED),
    ServiceCode.NOT_FOUND: _Row(404, ErrorCode.NOT_FOUND),
    ServiceCode.IDEMPOTENCY_CONFLICT: _Row(409, ErrorCode.CONFLICT),
    ServiceCode.WORKSPACE_DELETED: _Row(410, ErrorCode.CONFLICT),
    ServiceCode.GUARD_REJECTED: _Row(422, ErrorCode.VALIDATION),
    ServiceCode.ACCOUNT_READ_ONLY: _Row(423, ErrorCode.WRITE_DISABLED),
    ServiceCode.RATE_LIMITED: _Row(429, ErrorCode.LOCKED),
}


class ServiceError(GnoError):
    """A refusal of the service face: the seed's text plus the code that picks the status."""

    def __init__(self, service_code: ServiceCode, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message, code=SERVICE_TABLE[service_code].gno_code, details=details)
        self.service_code = service_code

    @property
    def http_status(self) -> int:
        return SERVICE_TABLE[self.service_code].http_status

    def service_body(self) -> dict[str, str]:
        """The HTTP body: `{"error": "<the seed's text>", "code": "<ServiceCode>"}`."""
        return {"error": self.message, "code": str(self.service_code)}


def invalid(message: str) -> ServiceError:
    return ServiceError(ServiceCode.INVALID_ARGUMENT, message)
