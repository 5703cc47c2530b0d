"""gno: a local-first knowledge engine and agent memory over folders of markdown.

Public API: `Engine` (in-process facade), the error tree (`GnoError` and subclasses,
`ErrorCode`) and the output models in `gno.models`. Heavy modules load lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gno.errors import (
    BusyError,
    ConflictError,
    ErrorCode,
    GnoError,
    NotFoundError,
    RuntimeFailure,
    ValidationError,
)

if TYPE_CHECKING:
    from gno.engine import Engine
    from gno.sdk.client import Client

__version__ = "0.1.0"

__all__ = [
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


def __getattr__(name: str) -> Any:
    if name == "Client":
        from gno.sdk.client import Client

        return Client
    if name == "Engine":
        from gno.engine import Engine

        return Engine
    raise AttributeError(f"module 'gno' has no attribute {name!r}")
