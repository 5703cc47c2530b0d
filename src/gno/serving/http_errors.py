"""Starlette's own HTTP errors (no such route, wrong method) as codes of the one error table.

Routing answers before any gno code runs; without this its `{"detail": …}` body and bare status
would leak past the error envelope. 404 is NOT_FOUND, 405 METHOD_NOT_ALLOWED (with the `Allow`
header Starlette computed); anything else is the server's validation code with that code's
status, so a code and its status always agree with the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gno.errors import ErrorCode, GnoError, make_error


def http_exception_error(
    status: int, detail: Any, headers: Mapping[str, str] | None, fallback: ErrorCode = ErrorCode.VALIDATION
) -> GnoError:
    if status == 404:
        return make_error(ErrorCode.NOT_FOUND, str(detail), {})
    if status == 405:
        allow = (headers or {}).get("Allow", "")
        return make_error(
            ErrorCode.METHOD_NOT_ALLOWED,
            f"method not allowed on this route; use {allow}" if allow else "method not allowed on this route",
            {"allow": [m.strip() for m in allow.split(",") if m.strip()]},
        )
    return make_error(fallback, str(detail), {})
