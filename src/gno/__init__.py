"""gno: a local-first knowledge engine and agent memory over folders of markdown.

Public API: `Engine` (in-process facade), the error tree (`GnoError` and subclasses,
`ErrorCode`) and the output models in `gno.models`. Everything loads lazily, on first use.
"""

from __future__ import annotations

from gno import version as _version

TYPE_CHECKING = False  # typing itself is not imported: `gno --version` needs nothing at all
if TYPE_CHECKING:
    from typing import Any

    from gno.engine import Engine
    from gno.errors import (
        AuthError,
        BusyError,
        ConflictError,
        ErrorCode,
        GnoError,
        NotFoundError,
        RuntimeFailure,
        ValidationError,
    )
    from gno.sdk.client import Client

__version__ = _version.__version__

__all__ = [
    "AuthError",
    "BusyError",
    "Client",
    "ConflictError",
    "Engine",
    "ErrorCode",
    "GnoError",
    "NotFoundError",
    "RuntimeFailure",
    "ValidationError",
    "__version__",
]


_ERRORS = {
    "AuthError",
    "BusyError",
    "ConflictError",
    "ErrorCode",
    "GnoError",
    "NotFoundError",
    "RuntimeFailure",
    "ValidationError",
}


def __getattr__(name: str) -> Any:
    if name in _ERRORS:
        from gno import errors

        return getattr(errors, name)
    if name == "Client":
        from gno.sdk.client import Client

        return Client
    if name == "Engine":
        from gno.engine import Engine

        return Engine
    raise AttributeError(f"module 'gno' has no attribute {name!r}")
