"""Which surfaces each error code of the one table reaches: the reviewed coverage table.

Every `ErrorCode` has a row. A row lists the surfaces a contract case drives the code through,
and for every other surface the one-line reason it cannot produce the code there.
`test_code_table.py` fails when a code has no row, a surface is neither driven nor exempt, or the
cases drive a different set of (code, surface) pairs than the table says.

Surfaces: the local engine's four (CLI; MCP through the MCP SDK's client; REST through the app;
the Python SDK in-process and over real HTTP) and the team memory service's two faces
(`gno service`: REST `/v1/memory/*` and its MCP tools).

Print the table and the figure: `.venv/bin/python tests/surfaces/code_table.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gno.errors import ErrorCode as E

LOCAL = ("cli", "mcp", "rest", "sdk_local", "sdk_remote")
SERVICE = ("service_rest", "service_mcp")
ALL = (*LOCAL, *SERVICE)

# -- exemption reasons (one line each) -------------------------------------------------------------
SERVICE_NONE = "a code of the local engine (collections, documents, its index): the team service has none"
SERVICE_ONLY = "a team-service refusal: the local surfaces have no keys, tenants, quotas or workspaces"
SERVICE_VALIDATION = "the team service answers bad input with INVALID_ARGUMENT (its clients' code)"
CLI_ONLY_ADMIN = "collections are added by `gno collection add` only (no capability on MCP/REST/SDK)"
DAEMON_CLI = "the resident owner is started and stopped by the CLI only"
SERVE_CLI = "binding a port is `gno serve`'s own start-up (a CLI command)"
HTTP_ONLY = "a check of the HTTP transport; this surface has no HTTP request of its own"
SDK_SENDS_JSON = "the SDK always sends `Content-Type: application/json`"
SDK_ROUTE_METHOD = "the SDK calls each capability with its route's own method"
SDK_NO_ORIGIN = "the SDK sends no Origin header (browsers do)"
SDK_NAMES_HOST = "the SDK sends the Host of the URL it connects to, which the server allows"
MCP_NO_TOKEN = "the local MCP client here is in-memory/stdio: a token guards the HTTP transport (REST row)"
MCP_IDENTITY = "MCP identity comes from the connection (client name, session), never blank"
MCP_WRITE_GATE_ONLY = "the write gate (--enable-write) exists on MCP only"
NO_EDIT = "only REST and the SDK edit a note (update_doc); the CLI and MCP have no edit command"
DECISION_CHOICE = "`--decision` is a click.Choice(add|supersede): a bad value is a usage error (VALIDATION)"
EXTRA_LOCAL = "optional extras are those of the local engine; the team service's are required by `gno service`"
IDEMPOTENCY_HTTP = "idempotency keys are the X-Idempotency-Key header; MCP tools take none"
SERVICE_MCP_HTTP = (
    "a check of the HTTP transport: the service's MCP face is driven in memory here (its /mcp route sits "
    "behind the same middleware: tests/service/test_cli.py)"
)


@dataclass(frozen=True)
class Row:
    covered: tuple[str, ...]
    exempt: dict[str, str] = field(default_factory=dict)


def row(covered: str, *groups: tuple[tuple[str, ...] | str, str]) -> Row:
    """`covered` is a space-separated list of surfaces; each group is (surfaces, reason)."""
    exempt: dict[str, str] = {}
    for surfaces, reason in groups:
        for s in surfaces.split() if isinstance(surfaces, str) else surfaces:
            exempt[s] = reason
    return Row(tuple(covered.split()), exempt)


_L = " ".join(LOCAL)
_S = " ".join(SERVICE)
_NOT_CLI = "mcp rest sdk_local sdk_remote"
LOCAL_ROW = row(_L, (SERVICE, SERVICE_NONE))
EVERYWHERE = row(f"{_L} {_S}")
ADMIN_ROW = row("cli", (_NOT_CLI, CLI_ONLY_ADMIN), (SERVICE, SERVICE_NONE))
DAEMON_ROW = row("cli", (_NOT_CLI, DAEMON_CLI), (SERVICE, SERVICE_NONE))
SERVICE_ROW = row(_S, (LOCAL, SERVICE_ONLY))

#: THE coverage table: code → surfaces driven, and why not elsewhere
TABLE: dict[E, Row] = {
    E.VALIDATION: row(_L, (SERVICE, SERVICE_VALIDATION)),
    E.INVALID_QUERY: LOCAL_ROW,
    E.INVALID_REF: LOCAL_ROW,
    E.NOT_FOUND: EVERYWHERE,
    E.NOT_INITIALIZED: LOCAL_ROW,
    E.CONFIG_INVALID: LOCAL_ROW,
    E.COLLECTION_NOT_FOUND: LOCAL_ROW,
    E.COLLECTION_EXISTS: LOCAL_ROW,
    E.COLLECTION_OVERLAP: ADMIN_ROW,
    E.PRUNE_REQUIRED: LOCAL_ROW,
    E.PATH_NOT_FOUND: ADMIN_ROW,
    E.LOCKED: LOCAL_ROW,
    E.RUNTIME: EVERYWHERE,
    E.NOT_RUNNING: DAEMON_ROW,
    E.EXTRA_MISSING: row(_L, (SERVICE, EXTRA_LOCAL)),
    E.ALREADY_RUNNING: DAEMON_ROW,
    E.ADDRESS_IN_USE: row("cli", (_NOT_CLI, SERVE_CLI), (SERVICE, SERVE_CLI)),
    E.CONTENT_TYPE_REQUIRED: row(
        "rest service_rest",
        ("cli mcp sdk_local", HTTP_ONLY),
        ("sdk_remote", SDK_SENDS_JSON),
        ("service_mcp", SERVICE_MCP_HTTP),
    ),
    E.METHOD_NOT_ALLOWED: row(
        "rest service_rest",
        ("cli mcp sdk_local", HTTP_ONLY),
        ("sdk_remote", SDK_ROUTE_METHOD),
        ("service_mcp", SERVICE_MCP_HTTP),
    ),
    E.VECTORS_UNAVAILABLE: LOCAL_ROW,
    E.VECTORS_STALE: LOCAL_ROW,
    E.CURSOR_EXPIRED: LOCAL_ROW,
    E.CONTEXT_SCOPE_INVALID: LOCAL_ROW,
    E.CONTEXT_TEXT_INVALID: LOCAL_ROW,
    E.CONTEXT_NOT_FOUND: LOCAL_ROW,
    E.EGRESS_DENIED: LOCAL_ROW,
    E.WRITE_DISABLED: row("mcp", ("cli rest sdk_local sdk_remote", MCP_WRITE_GATE_ONLY), (SERVICE, SERVICE_NONE)),
    E.UNAUTHORIZED: row(f"rest sdk_remote {_S}", ("cli sdk_local", HTTP_ONLY), ("mcp", MCP_NO_TOKEN)),
    E.CSRF_VIOLATION: row(
        "rest service_rest",
        ("cli mcp sdk_local", HTTP_ONLY),
        ("sdk_remote", SDK_NO_ORIGIN),
        ("service_mcp", SERVICE_MCP_HTTP),
    ),
    E.HOST_NOT_ALLOWED: row(
        "rest service_rest",
        ("cli mcp sdk_local", HTTP_ONLY),
        ("sdk_remote", SDK_NAMES_HOST),
        ("service_mcp", SERVICE_MCP_HTTP),
    ),
    E.CONFLICT: row("rest sdk_local sdk_remote", ("cli mcp", NO_EDIT), (SERVICE, SERVICE_NONE)),
    E.DUPLICATE: LOCAL_ROW,
    E.CAPTURE_SYNC_FAILED: LOCAL_ROW,
    E.TAG_INVALID: LOCAL_ROW,
    E.MEMORY_TEXT_REQUIRED: LOCAL_ROW,
    E.MEMORY_TEXT_TOO_LARGE: LOCAL_ROW,
    E.MEMORY_QUERY_REQUIRED: LOCAL_ROW,
    E.MEMORY_BUDGET_INVALID: LOCAL_ROW,
    E.MEMORY_COLLECTION_REQUIRED: LOCAL_ROW,
    E.MEMORY_COLLECTION_NOT_FOUND: LOCAL_ROW,
    E.MEMORY_COLLECTION_UNMANAGED: LOCAL_ROW,
    E.MEMORY_SCOPES_REQUIRED: LOCAL_ROW,
    E.MEMORY_SCOPES_INVALID: LOCAL_ROW,
    E.MEMORY_IDENTITY_REQUIRED: row("cli rest sdk_local sdk_remote", ("mcp", MCP_IDENTITY), (SERVICE, SERVICE_NONE)),
    E.MEMORY_DECISION_INVALID: row("mcp rest sdk_local sdk_remote", ("cli", DECISION_CHOICE), (SERVICE, SERVICE_NONE)),
    E.MEMORY_PREDECESSOR_REQUIRED: LOCAL_ROW,
    E.MEMORY_PREDECESSOR_NOT_FOUND: LOCAL_ROW,
    E.MEMORY_PREDECESSOR_HASH_MISMATCH: LOCAL_ROW,
    E.MEMORY_SUPERSEDE_CONFLICT: LOCAL_ROW,
    E.MEMORY_SUPERSEDE_PROJECTION_FAILED: LOCAL_ROW,
    E.MEMORY_FENCED_REPLAY: LOCAL_ROW,
    E.MEMORY_FENCED_DERIVED: LOCAL_ROW,
    E.MEMORY_WRITE_LEASE_BUSY: LOCAL_ROW,
    E.MEMORY_SYNC_FAILED: LOCAL_ROW,
    E.MEMORY_QUERY_FAILED: LOCAL_ROW,
    E.REQUEST_ID_INVALID: LOCAL_ROW,
    E.REQUEST_ID_CONFLICT: LOCAL_ROW,
    E.REQUEST_EXPIRED: LOCAL_ROW,
    E.REQUEST_PENDING: LOCAL_ROW,
    E.REQUEST_RECOVERY_CONFLICT: LOCAL_ROW,
    E.REQUEST_CAPACITY_EXHAUSTED: LOCAL_ROW,
    E.REQUEST_LEDGER_UNAVAILABLE: LOCAL_ROW,
    E.INVALID_ARGUMENT: SERVICE_ROW,
    E.WORKSPACE_FORBIDDEN: SERVICE_ROW,
    E.QUOTA_EXCEEDED: SERVICE_ROW,
    E.ACCOUNT_SUSPENDED: SERVICE_ROW,
    E.ACCOUNT_READ_ONLY: SERVICE_ROW,
    E.IDEMPOTENCY_CONFLICT: row("service_rest", (LOCAL, SERVICE_ONLY), ("service_mcp", IDEMPOTENCY_HTTP)),
    E.WORKSPACE_DELETED: SERVICE_ROW,
    E.GUARD_REJECTED: SERVICE_ROW,
    E.RATE_LIMITED: SERVICE_ROW,
}


def pairs() -> set[tuple[E, str]]:
    """Every (code, surface) the table says a case drives."""
    return {(code, s) for code, r in TABLE.items() for s in r.covered}


def main() -> None:
    width = max(len(c) for c in E)
    print(f"{'code':<{width}}  " + " ".join(f"{s:<12}" for s in ALL))
    for code in E:
        r = TABLE.get(code)
        cells = ["?" if r is None else ("yes" if s in r.covered else "exempt") for s in ALL]
        print(f"{code:<{width}}  " + " ".join(f"{c:<12}" for c in cells))
    reached = [c for c in E if c in TABLE and TABLE[c].covered]
    applicable = sum(len(r.covered) for r in TABLE.values())
    print(f"\n{len(reached)} of {len(E)} codes covered; {applicable} (code, surface) pairs driven")
    for code in E:
        if code in TABLE and not TABLE[code].covered:
            print(f"not driven: {code}: {set(TABLE[code].exempt.values())}")


if __name__ == "__main__":
    main()
