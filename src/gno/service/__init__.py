"""The team memory service: gno's second face, multi-tenant, over HTTP and MCP.

    tenants (accounts) → projects → workspaces → records

Layers, outside in (each module's docstring says why it is shaped the way it is):

    http.py, mcp_tools.py     surfaces: `POST /v1/memory/<op>` and MCP tools at `/mcp`, bearer keys,
                              both generated from operations.py
    operations.py             the service's capability table: each operation's request and result model
    compose.py                composition root: `--database URL` → backend, embedder, app, uvicorn
    api.py                    `MemoryService`: remember · search · forget · validate_memory
    validation.py             the contract's checks, texts and order
    tenancy.py                keys (sha256), workspaces, account states
    idempotency.py            `X-Idempotency-Key` claims inside the write transaction
    ratelimit.py              per-minute call limits
    archivist.py              background relations (`graph_relations`), re-computable
    retrieval.py              lexical + vector search fused with RRF
    record_sql.py             record SQL: versions, conflicts, forget journal, staleness
    backend.py                the storage contract; backend_sqlite.py (default), backend_postgres.py
    error_texts.py, models.py, service_settings.py

The local gno memory contract (`gno remember`/`recall`) is separate and unchanged.
"""

from __future__ import annotations

from gno.service.models import (
    ForgetParams,
    ForgetResult,
    RememberParams,
    RememberResult,
    SearchParams,
    SearchResult,
    ValidateParams,
    ValidateResult,
)

__all__ = [
    "ForgetParams",
    "ForgetResult",
    "RememberParams",
    "RememberResult",
    "SearchParams",
    "SearchResult",
    "ValidateParams",
    "ValidateResult",
]
