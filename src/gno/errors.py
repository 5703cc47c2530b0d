"""The one error table of gno, and the exception tree every surface translates.

Every failure that can reach a user is a `GnoError` carrying an `ErrorCode`. The table below
is the single place that says what a code means on each surface: the CLI exit code and the
HTTP status. Surfaces translate an error exactly once (CLI → exit code + JSON envelope,
REST → status + JSON body, MCP → `isError` result with the same body, SDK → re-raised as the
same class). Nobody recovers a code by parsing a message.

Exit codes: 0 success (zero results included), 1 validation, 2 runtime, 3 not running,
4 busy.

    GnoError
     ├── ValidationError        exit 1   (bad input, bad config, unknown things)
     ├── NotFoundError          exit 1   (HTTP 404)
     ├── ConflictError          exit 1/4 (HTTP 409)
     ├── BusyError              exit 4   (write lease, supersede race)
     ├── AuthError              exit 1   (HTTP 401/403/421: token, origin, host, write gate)
     └── RuntimeFailure         exit 2   (I/O, database, sync)

The class *is* the kind: every code's table row names its kind, and an error of that code is
raised as that kind's class (`make_error`), so `except BusyError` catches every busy code on
every surface, the remote SDK's included.
"""

from __future__ import annotations

from enum import StrEnum

from gno.tuples import NamedTuple

TYPE_CHECKING = False  # not typing's: see gno.tuples
if TYPE_CHECKING:
    from typing import Any


class Mapping(NamedTuple):
    exit_code: int
    http_status: int
    kind: str  # VALIDATION | NOT_FOUND | CONFLICT | BUSY | RUNTIME | AUTH


class ErrorCode(StrEnum):
    # generic
    VALIDATION = "VALIDATION"
    INVALID_QUERY = "INVALID_QUERY"
    INVALID_REF = "INVALID_REF"
    NOT_FOUND = "NOT_FOUND"
    NOT_INITIALIZED = "NOT_INITIALIZED"
    CONFIG_INVALID = "CONFIG_INVALID"
    COLLECTION_NOT_FOUND = "COLLECTION_NOT_FOUND"
    COLLECTION_EXISTS = "COLLECTION_EXISTS"
    COLLECTION_OVERLAP = "COLLECTION_OVERLAP"
    PRUNE_REQUIRED = "PRUNE_REQUIRED"
    PATH_NOT_FOUND = "PATH_NOT_FOUND"
    LOCKED = "LOCKED"
    RUNTIME = "RUNTIME"
    NOT_RUNNING = "NOT_RUNNING"
    EXTRA_MISSING = "EXTRA_MISSING"  # an optional feature whose pip extra is not installed
    ALREADY_RUNNING = "ALREADY_RUNNING"
    ADDRESS_IN_USE = "ADDRESS_IN_USE"
    CONTENT_TYPE_REQUIRED = "CONTENT_TYPE_REQUIRED"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    # vectors
    VECTORS_UNAVAILABLE = "VECTORS_UNAVAILABLE"
    VECTORS_STALE = "VECTORS_STALE"
    # knowledge delta
    CURSOR_EXPIRED = "CURSOR_EXPIRED"
    EGRESS_DENIED = "EGRESS_DENIED"
    # context hints
    CONTEXT_SCOPE_INVALID = "CONTEXT_SCOPE_INVALID"
    CONTEXT_TEXT_INVALID = "CONTEXT_TEXT_INVALID"
    CONTEXT_NOT_FOUND = "CONTEXT_NOT_FOUND"
    # surfaces
    WRITE_DISABLED = "WRITE_DISABLED"
    UNAUTHORIZED = "UNAUTHORIZED"
    CSRF_VIOLATION = "CSRF_VIOLATION"
    HOST_NOT_ALLOWED = "HOST_NOT_ALLOWED"
    # writes (capture / edit)
    CONFLICT = "CONFLICT"
    DUPLICATE = "DUPLICATE"
    CAPTURE_SYNC_FAILED = "CAPTURE_SYNC_FAILED"
    TAG_INVALID = "TAG_INVALID"
    # memory contract
    MEMORY_TEXT_REQUIRED = "MEMORY_TEXT_REQUIRED"
    MEMORY_TEXT_TOO_LARGE = "MEMORY_TEXT_TOO_LARGE"
    MEMORY_QUERY_REQUIRED = "MEMORY_QUERY_REQUIRED"
    MEMORY_BUDGET_INVALID = "MEMORY_BUDGET_INVALID"
    MEMORY_COLLECTION_REQUIRED = "MEMORY_COLLECTION_REQUIRED"
    MEMORY_COLLECTION_NOT_FOUND = "MEMORY_COLLECTION_NOT_FOUND"
    MEMORY_COLLECTION_UNMANAGED = "MEMORY_COLLECTION_UNMANAGED"
    MEMORY_SCOPES_REQUIRED = "MEMORY_SCOPES_REQUIRED"
    MEMORY_SCOPES_INVALID = "MEMORY_SCOPES_INVALID"
    MEMORY_IDENTITY_REQUIRED = "MEMORY_IDENTITY_REQUIRED"
    MEMORY_DECISION_INVALID = "MEMORY_DECISION_INVALID"
    MEMORY_PREDECESSOR_REQUIRED = "MEMORY_PREDECESSOR_REQUIRED"
    MEMORY_PREDECESSOR_NOT_FOUND = "MEMORY_PREDECESSOR_NOT_FOUND"
    MEMORY_PREDECESSOR_HASH_MISMATCH = "MEMORY_PREDECESSOR_HASH_MISMATCH"
    MEMORY_SUPERSEDE_CONFLICT = "MEMORY_SUPERSEDE_CONFLICT"
    MEMORY_SUPERSEDE_PROJECTION_FAILED = "MEMORY_SUPERSEDE_PROJECTION_FAILED"
    MEMORY_FENCED_REPLAY = "MEMORY_FENCED_REPLAY"
    MEMORY_FENCED_DERIVED = "MEMORY_FENCED_DERIVED"
    MEMORY_WRITE_LEASE_BUSY = "MEMORY_WRITE_LEASE_BUSY"
    MEMORY_SYNC_FAILED = "MEMORY_SYNC_FAILED"
    MEMORY_QUERY_FAILED = "MEMORY_QUERY_FAILED"
    # retry-safe writes (request IDs)
    REQUEST_ID_INVALID = "REQUEST_ID_INVALID"
    REQUEST_ID_CONFLICT = "REQUEST_ID_CONFLICT"
    REQUEST_EXPIRED = "REQUEST_EXPIRED"
    REQUEST_PENDING = "REQUEST_PENDING"
    REQUEST_RECOVERY_CONFLICT = "REQUEST_RECOVERY_CONFLICT"
    REQUEST_CAPACITY_EXHAUSTED = "REQUEST_CAPACITY_EXHAUSTED"
    REQUEST_LEDGER_UNAVAILABLE = "REQUEST_LEDGER_UNAVAILABLE"
    # team memory service (`gno service`); its HTTP face renders these with the seed's texts
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    WORKSPACE_FORBIDDEN = "WORKSPACE_FORBIDDEN"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    ACCOUNT_SUSPENDED = "ACCOUNT_SUSPENDED"
    ACCOUNT_READ_ONLY = "ACCOUNT_READ_ONLY"
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
    WORKSPACE_DELETED = "WORKSPACE_DELETED"
    GUARD_REJECTED = "GUARD_REJECTED"
    RATE_LIMITED = "RATE_LIMITED"


_V = Mapping(1, 400, "VALIDATION")
_NF = Mapping(1, 404, "NOT_FOUND")

#: THE table: code → (CLI exit code, HTTP status, SDK kind). Nothing else defines these.
ERROR_TABLE: dict[ErrorCode, Mapping] = {
    ErrorCode.VALIDATION: _V,
    ErrorCode.INVALID_QUERY: _V,
    ErrorCode.INVALID_REF: _V,
    ErrorCode.NOT_FOUND: _NF,
    ErrorCode.NOT_INITIALIZED: _V,
    ErrorCode.CONFIG_INVALID: _V,
    ErrorCode.COLLECTION_NOT_FOUND: _NF,
    ErrorCode.COLLECTION_EXISTS: Mapping(1, 409, "CONFLICT"),
    ErrorCode.COLLECTION_OVERLAP: Mapping(1, 409, "CONFLICT"),
    ErrorCode.PRUNE_REQUIRED: Mapping(1, 409, "CONFLICT"),
    ErrorCode.PATH_NOT_FOUND: _V,
    ErrorCode.LOCKED: Mapping(4, 409, "BUSY"),
    ErrorCode.RUNTIME: Mapping(2, 500, "RUNTIME"),
    ErrorCode.NOT_RUNNING: Mapping(3, 503, "RUNTIME"),
    ErrorCode.EXTRA_MISSING: Mapping(2, 501, "RUNTIME"),
    ErrorCode.ALREADY_RUNNING: Mapping(4, 409, "BUSY"),
    ErrorCode.ADDRESS_IN_USE: Mapping(4, 409, "BUSY"),
    ErrorCode.CONTENT_TYPE_REQUIRED: Mapping(1, 415, "VALIDATION"),
    ErrorCode.METHOD_NOT_ALLOWED: Mapping(1, 405, "VALIDATION"),
    ErrorCode.VECTORS_UNAVAILABLE: Mapping(2, 503, "RUNTIME"),
    ErrorCode.VECTORS_STALE: Mapping(1, 409, "CONFLICT"),
    ErrorCode.CURSOR_EXPIRED: Mapping(2, 410, "RUNTIME"),
    ErrorCode.EGRESS_DENIED: Mapping(1, 403, "AUTH"),
    ErrorCode.CONTEXT_SCOPE_INVALID: _V,
    ErrorCode.CONTEXT_TEXT_INVALID: _V,
    ErrorCode.CONTEXT_NOT_FOUND: _NF,
    ErrorCode.WRITE_DISABLED: Mapping(1, 403, "AUTH"),
    ErrorCode.UNAUTHORIZED: Mapping(1, 401, "AUTH"),
    ErrorCode.CSRF_VIOLATION: Mapping(1, 403, "AUTH"),
    ErrorCode.HOST_NOT_ALLOWED: Mapping(1, 421, "AUTH"),
    ErrorCode.CONFLICT: Mapping(1, 409, "CONFLICT"),
    ErrorCode.DUPLICATE: Mapping(1, 409, "CONFLICT"),
    ErrorCode.CAPTURE_SYNC_FAILED: Mapping(2, 500, "RUNTIME"),
    ErrorCode.TAG_INVALID: _V,
    ErrorCode.MEMORY_TEXT_REQUIRED: _V,
    ErrorCode.MEMORY_TEXT_TOO_LARGE: _V,
    ErrorCode.MEMORY_QUERY_REQUIRED: _V,
    ErrorCode.MEMORY_BUDGET_INVALID: _V,
    ErrorCode.MEMORY_COLLECTION_REQUIRED: _V,
    ErrorCode.MEMORY_COLLECTION_NOT_FOUND: _NF,
    ErrorCode.MEMORY_COLLECTION_UNMANAGED: _V,
    ErrorCode.MEMORY_SCOPES_REQUIRED: _V,
    ErrorCode.MEMORY_SCOPES_INVALID: _V,
    ErrorCode.MEMORY_IDENTITY_REQUIRED: _V,
    ErrorCode.MEMORY_DECISION_INVALID: _V,
    ErrorCode.MEMORY_PREDECESSOR_REQUIRED: _V,
    ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND: _NF,
    ErrorCode.MEMORY_PREDECESSOR_HASH_MISMATCH: Mapping(1, 409, "VALIDATION"),
    ErrorCode.MEMORY_SUPERSEDE_CONFLICT: Mapping(4, 409, "BUSY"),
    ErrorCode.MEMORY_SUPERSEDE_PROJECTION_FAILED: Mapping(2, 500, "RUNTIME"),
    ErrorCode.MEMORY_FENCED_REPLAY: _V,
    ErrorCode.MEMORY_FENCED_DERIVED: _V,
    ErrorCode.MEMORY_WRITE_LEASE_BUSY: Mapping(4, 409, "BUSY"),
    ErrorCode.MEMORY_SYNC_FAILED: Mapping(2, 500, "RUNTIME"),
    ErrorCode.MEMORY_QUERY_FAILED: Mapping(2, 500, "RUNTIME"),
    ErrorCode.REQUEST_ID_INVALID: _V,
    ErrorCode.REQUEST_ID_CONFLICT: Mapping(1, 409, "VALIDATION"),
    ErrorCode.REQUEST_EXPIRED: Mapping(1, 410, "VALIDATION"),
    ErrorCode.REQUEST_PENDING: Mapping(4, 409, "BUSY"),
    ErrorCode.REQUEST_RECOVERY_CONFLICT: Mapping(2, 409, "RUNTIME"),
    ErrorCode.REQUEST_CAPACITY_EXHAUSTED: Mapping(2, 507, "RUNTIME"),
    ErrorCode.REQUEST_LEDGER_UNAVAILABLE: Mapping(2, 503, "RUNTIME"),
    ErrorCode.INVALID_ARGUMENT: _V,
    ErrorCode.WORKSPACE_FORBIDDEN: Mapping(1, 403, "AUTH"),
    ErrorCode.QUOTA_EXCEEDED: Mapping(1, 403, "AUTH"),
    ErrorCode.ACCOUNT_SUSPENDED: Mapping(1, 403, "AUTH"),
    ErrorCode.ACCOUNT_READ_ONLY: Mapping(1, 423, "AUTH"),
    ErrorCode.IDEMPOTENCY_CONFLICT: Mapping(1, 409, "CONFLICT"),
    ErrorCode.WORKSPACE_DELETED: Mapping(1, 410, "CONFLICT"),
    ErrorCode.GUARD_REJECTED: Mapping(1, 422, "VALIDATION"),
    ErrorCode.RATE_LIMITED: Mapping(4, 429, "BUSY"),
}


#: what each code means, in one sentence that names the fix where there is one (docs/errors.md is
#: generated from this and the table above; a test holds that every code has one)
ERROR_MEANINGS: dict[ErrorCode, str] = {
    ErrorCode.VALIDATION: "Bad input.",
    ErrorCode.INVALID_QUERY: "A query with nothing searchable (e.g. only `-negations`).",
    ErrorCode.INVALID_REF: "A ref that is not `#docid`, `gno://…` or `coll/path`.",
    ErrorCode.NOT_FOUND: "No indexed document for a ref.",
    ErrorCode.NOT_INITIALIZED: "No config yet: run `gno init`.",
    ErrorCode.CONFIG_INVALID: "Malformed `index.yml` (file and line in the message).",
    ErrorCode.COLLECTION_NOT_FOUND: "Unknown collection.",
    ErrorCode.COLLECTION_EXISTS: "A collection with that name exists.",
    ErrorCode.COLLECTION_OVERLAP: (
        "The folder is inside (or holds) another collection's folder: its files would be indexed twice "
        "(a memory collection inside an ordinary one is the exception: the outer one excludes it)."
    ),
    ErrorCode.PRUNE_REQUIRED: (
        "The config lists no collections while the index holds documents; `update --prune` empties it."
    ),
    ErrorCode.PATH_NOT_FOUND: "The folder does not exist.",
    ErrorCode.LOCKED: "Another writer holds the write lease (raise `--lock-wait`).",
    ErrorCode.RUNTIME: "Unexpected I/O or database failure.",
    ErrorCode.NOT_RUNNING: (
        "A server that should be running is not (`gno daemon --status/--stop` with no resident owner)."
    ),
    ErrorCode.ALREADY_RUNNING: (
        "Another `gno daemon` or `gno serve` already owns this data directory (stop it with `--stop`)."
    ),
    ErrorCode.ADDRESS_IN_USE: (
        "`gno serve` / `gno service serve`: the port is taken (stop the other server or pick another "
        "`--port`; `--port 0` picks a free one)."
    ),
    ErrorCode.CONTENT_TYPE_REQUIRED: "A REST request body without `Content-Type: application/json`.",
    ErrorCode.METHOD_NOT_ALLOWED: (
        "An HTTP method a route does not take (`GET /api/search`); the `Allow` header lists the right "
        "ones."
    ),
    ErrorCode.VECTORS_UNAVAILABLE: "No embedding model or no vectors yet (lexical mode; run `gno embed`).",
    ErrorCode.EXTRA_MISSING: (
        "The feature needs a pip extra that is not installed; the message names `pip install 'gno[…]'`."
    ),
    ErrorCode.VECTORS_STALE: "Vectors belong to another model: run `gno embed`.",
    ErrorCode.CURSOR_EXPIRED: "A `changes` cursor older than the journal's retention.",
    ErrorCode.EGRESS_DENIED: (
        "Evidence would travel beyond its collections' `egressPolicy` (e.g. to a remote generator)."
    ),
    ErrorCode.CONTEXT_SCOPE_INVALID: (
        "A context hint scope that is not `/`, `NAME:` or `gno://NAME/path` (or names no collection "
        "on `context add`)."
    ),
    ErrorCode.CONTEXT_TEXT_INVALID: "A context hint text that is empty or over 2000 characters.",
    ErrorCode.CONTEXT_NOT_FOUND: "`context rm`: no hint on that scope (with that text); `gno context list` shows them.",
    ErrorCode.WRITE_DISABLED: "A write tool on a read-only MCP server.",
    ErrorCode.UNAUTHORIZED: "Missing or wrong bearer token.",
    ErrorCode.CSRF_VIOLATION: "State-changing request from a foreign origin.",
    ErrorCode.HOST_NOT_ALLOWED: "`Host` header not on the server's allowlist (add it with `--allowed-host`).",
    ErrorCode.CONFLICT: "The file changed since it was read (edit).",
    ErrorCode.DUPLICATE: "Capture target exists (`--collision-policy error`).",
    ErrorCode.CAPTURE_SYNC_FAILED: "Capture written but the index sync failed.",
    ErrorCode.TAG_INVALID: (
        "A tag that is not lowercase letters, digits, `-`, `.`, `/`, `_` starting with a letter or digit "
        "(`gno tags add`/`rm`)."
    ),
    ErrorCode.MEMORY_TEXT_REQUIRED: "Empty fact text.",
    ErrorCode.MEMORY_TEXT_TOO_LARGE: "Fact over 4096 bytes: use `gno capture`.",
    ErrorCode.MEMORY_QUERY_REQUIRED: "Empty recall query.",
    ErrorCode.MEMORY_BUDGET_INVALID: "`maxFacts`/`maxTokens` not a positive integer.",
    ErrorCode.MEMORY_COLLECTION_REQUIRED: "No memory collection named and not exactly one configured.",
    ErrorCode.MEMORY_COLLECTION_NOT_FOUND: "Unknown memory collection.",
    ErrorCode.MEMORY_COLLECTION_UNMANAGED: "The collection is not `memoryManaged: true`.",
    ErrorCode.MEMORY_SCOPES_REQUIRED: "No scope given.",
    ErrorCode.MEMORY_SCOPES_INVALID: "More than 8 scopes or a malformed scope.",
    ErrorCode.MEMORY_IDENTITY_REQUIRED: "Caller or session missing.",
    ErrorCode.MEMORY_DECISION_INVALID: "Decision other than add/supersede.",
    ErrorCode.MEMORY_PREDECESSOR_REQUIRED: "Supersede without URI and hash.",
    ErrorCode.MEMORY_PREDECESSOR_NOT_FOUND: "Predecessor is not a current fact in the collection.",
    ErrorCode.MEMORY_PREDECESSOR_HASH_MISMATCH: "Predecessor changed since it was recalled.",
    ErrorCode.MEMORY_SUPERSEDE_CONFLICT: "Predecessor already superseded.",
    ErrorCode.MEMORY_SUPERSEDE_PROJECTION_FAILED: "Successor written, edge not projected: run `gno update`.",
    ErrorCode.MEMORY_FENCED_REPLAY: "Text is a span from the presented recall receipt.",
    ErrorCode.MEMORY_FENCED_DERIVED: "Submission declares a `gno://` origin.",
    ErrorCode.MEMORY_WRITE_LEASE_BUSY: "Write lease not obtained in the wait window.",
    ErrorCode.MEMORY_SYNC_FAILED: "Fact written, index sync failed: run `gno update`.",
    ErrorCode.MEMORY_QUERY_FAILED: "Recall retrieval failed.",
    ErrorCode.REQUEST_ID_INVALID: (
        "A request ID that is not 1-128 of letters, digits, `. _ : -` (or given to a remember that decides nothing)."
    ),
    ErrorCode.REQUEST_ID_CONFLICT: "The request ID was already used for a different write: a new write needs a new ID.",
    ErrorCode.REQUEST_EXPIRED: "The request ID's outcome is past its 30-day retention.",
    ErrorCode.REQUEST_PENDING: (
        "Another attempt of this request is still writing: retry, or check `gno request-status`."
    ),
    ErrorCode.REQUEST_RECOVERY_CONFLICT: (
        "An interrupted attempt's planned file now holds other bytes; nothing was touched."
    ),
    ErrorCode.REQUEST_CAPACITY_EXHAUSTED: (
        "The request ledger holds 100,000 live outcomes; retry later or without an ID."
    ),
    ErrorCode.REQUEST_LEDGER_UNAVAILABLE: "The request ledger file cannot be used (named in the message).",
    ErrorCode.INVALID_ARGUMENT: "Team service: a parameter check failed (the message is the service's text).",
    ErrorCode.WORKSPACE_FORBIDDEN: "Team service: the key's project may not use that workspace.",
    ErrorCode.QUOTA_EXCEEDED: "Team service: a plan or technical record limit is reached.",
    ErrorCode.ACCOUNT_SUSPENDED: "Team service: the account is suspended.",
    ErrorCode.ACCOUNT_READ_ONLY: "Team service: the account is read-only (grace period); writes refused.",
    ErrorCode.IDEMPOTENCY_CONFLICT: "Team service: an idempotency key reused with different input.",
    ErrorCode.WORKSPACE_DELETED: "Team service: the workspace was deleted and cannot be reused.",
    ErrorCode.GUARD_REJECTED: "Team service: the Memory Guard rejected the record.",
    ErrorCode.RATE_LIMITED: "Team service: a per-minute call limit is reached.",
}


class GnoError(Exception):
    """Base of every gno error: a stable code, a message that names the fix, details."""

    default_code: ErrorCode = ErrorCode.RUNTIME

    def __init__(self, message: str, *, code: ErrorCode | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code or self.default_code
        self.message = message
        self.details: dict[str, Any] = details or {}

    @property
    def exit_code(self) -> int:
        return ERROR_TABLE[self.code].exit_code

    @property
    def http_status(self) -> int:
        return ERROR_TABLE[self.code].http_status

    def to_body(self) -> dict[str, Any]:
        """The one error envelope: `{"error": {"code", "message", "details"}}`."""
        return {"error": {"code": str(self.code), "message": self.message, "details": self.details}}


class ValidationError(GnoError):
    default_code = ErrorCode.VALIDATION


class NotFoundError(GnoError):
    default_code = ErrorCode.NOT_FOUND


class ConflictError(GnoError):
    default_code = ErrorCode.CONFLICT


class BusyError(GnoError):
    default_code = ErrorCode.LOCKED


class AuthError(GnoError):
    default_code = ErrorCode.UNAUTHORIZED


class RuntimeFailure(GnoError):
    default_code = ErrorCode.RUNTIME


_KIND_CLASS: dict[str, type[GnoError]] = {
    "VALIDATION": ValidationError,
    "NOT_FOUND": NotFoundError,
    "CONFLICT": ConflictError,
    "BUSY": BusyError,
    "RUNTIME": RuntimeFailure,
    "AUTH": AuthError,
}


def error_class_for(code: ErrorCode) -> type[GnoError]:
    """The exception class a code is raised as: its kind's (used by the SDK's remote client)."""
    return _KIND_CLASS[ERROR_TABLE[code].kind]


def make_error(code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> GnoError:
    """Build the right subclass for a code (so `except BusyError` works on every surface)."""
    return error_class_for(code)(message, code=code, details=details)


def unknown_collection(name: str, known: list[str]) -> NotFoundError:
    """COLLECTION_NOT_FOUND naming the configured collections and how to add one."""
    return NotFoundError(
        f"no collection named {name!r} (configured: {', '.join(known) or 'none'}); add it with `gno collection add`",
        code=ErrorCode.COLLECTION_NOT_FOUND,
        details={"collection": name},
    )


def from_body(body: dict[str, Any]) -> GnoError:
    """Rebuild an error from its JSON envelope (remote SDK). Unknown codes become RUNTIME."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return RuntimeFailure(f"malformed error envelope: {str(err if err is not None else body)[:200]}")
    raw = str(err.get("code", "RUNTIME"))
    try:
        code = ErrorCode(raw)
    except ValueError:
        code = ErrorCode.RUNTIME
    details = err.get("details")
    return make_error(code, str(err.get("message", raw)), details if isinstance(details, dict) else {})


def one_line(text: str) -> str:
    """An error message as one line: surfaces print one line per error, never a dump."""
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _pydantic_errors(exc: Exception) -> list[dict[str, Any]] | None:
    """`[{loc, msg}, …]` of a pydantic ValidationError (duck-typed: no pydantic import), else None."""
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ not in ("ValidationError", "RequestValidationError") or not callable(errors):
        return None
    try:
        raw = errors()
        return [
            {
                "loc": [str(p) for p in e.get("loc", ()) if p != "body"],
                "msg": str(e.get("msg", "invalid value")).removeprefix("Value error, "),
            }
            for e in raw
        ]
    except Exception:  # noqa: BLE001 - not pydantic's shape after all
        return None


def _validation_problem(exc: Exception) -> str | None:
    """`field: message` of a pydantic ValidationError's first error."""
    errors = _pydantic_errors(exc)
    if not errors:
        return None
    loc = ".".join(errors[0]["loc"])
    return f"{loc}: {errors[0]['msg']}" if loc else errors[0]["msg"]


def invalid_request(exc: Exception, code: ErrorCode = ErrorCode.VALIDATION) -> GnoError:
    """The one translation of a request that failed its model (REST body, query string, MCP tool
    arguments, SDK call): `invalid request: field: problem`, with the first 20 problems in details."""
    errors = _pydantic_errors(exc) or [{"loc": [], "msg": one_line(str(exc)) or "invalid request"}]
    where = ".".join(errors[0]["loc"]) or "body"
    return make_error(code, f"invalid request: {where}: {errors[0]['msg']}", {"errors": errors[:20]})


def not_a(what: str, expected: str, exc: Exception, *, details: dict[str, Any] | None = None) -> ValidationError:
    """A file or object that is not the kind it should be, as one line: what it should be and its
    first problem (`field: message`), never pydantic's dump of every error with its URLs."""
    problem = _validation_problem(exc) or one_line(str(exc))
    errors = getattr(exc, "error_count", None)
    count = errors() if callable(errors) else 1
    more = f" (and {count - 1} more)" if count > 1 else ""
    return ValidationError(f"not {what}: {problem}{more}; expected {expected}", details=details)


def from_exception(exc: Exception) -> GnoError:
    """Translate an exception that escaped the engine: a one-line message, never a traceback.

    A pydantic validation error is bad input (VALIDATION, exit 1) and reads as `field: problem`;
    anything else is an unexpected failure (RUNTIME) named by its type.
    """
    if isinstance(exc, GnoError):
        return exc
    problem = _validation_problem(exc)
    if problem is not None:
        return ValidationError(f"invalid input: {problem}")
    return RuntimeFailure(one_line(f"{type(exc).__name__}: {exc}") or type(exc).__name__)
