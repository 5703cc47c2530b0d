"""Tools of later rungs (query, context, changes, …), registered when their engine methods exist.

Kept apart from `server.py` so each rung adds its tools here without touching the core set.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp_types import CallToolResult

from gno.engine import Engine
from gno.models import GnoModel

CallFn = Callable[..., Awaitable[CallToolResult]]


def register_extra_tools(srv: Any, engine: Engine, call: CallFn) -> None:
    """Register the tools of later rungs on `srv` (no-op until those rungs land)."""
    _ = (srv, engine, call, GnoModel)
