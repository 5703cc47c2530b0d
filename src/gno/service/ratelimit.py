"""Per-minute call limits: `MCP rate limit exceeded` (per access key, MCP calls) and
`project call limit exceeded` (per project, every surface).

Why in memory and fixed windows: a limit exists to stop a runaway agent loop within seconds, not
to meter usage exactly, and keeping the counters out of the database keeps reads lock-free. The
consequence, documented for operators: with several service processes behind one PostgreSQL
database each process counts its own calls, so the effective limit is N × the configured one.
A refused call does not count.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

from gno.errors import ErrorCode
from gno.service import error_texts as E
from gno.service.error_texts import refuse
from gno.service.service_settings import Limits

Channel = Literal["http", "mcp", "local"]
WINDOW_S = 60.0


class RateLimiter:
    """Fixed one-minute windows per (kind, id); thread-safe."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._windows: dict[tuple[str, str], tuple[int, int]] = {}

    def _used(self, kind: str, ident: str, window: int) -> int:
        start, count = self._windows.get((kind, ident), (window, 0))
        return count if start == window else 0

    def check(self, *, key_id: str, project_id: str, channel: Channel) -> None:
        """Count one call, or refuse it with the seed's text (MCP limit first, then project)."""
        window = int(self._clock() // WINDOW_S)
        with self._lock:
            if len(self._windows) > 100_000:
                self._windows = {k: v for k, v in self._windows.items() if v[0] == window}
            if channel == "mcp" and self._used("mcp", key_id, window) >= self.limits.mcp_calls_per_minute:
                raise refuse(ErrorCode.RATE_LIMITED, E.MCP_RATE_LIMIT)
            if self._used("project", project_id, window) >= self.limits.project_calls_per_minute:
                raise refuse(ErrorCode.RATE_LIMITED, E.PROJECT_CALL_LIMIT)
            if channel == "mcp":
                self._windows[("mcp", key_id)] = (window, self._used("mcp", key_id, window) + 1)
            self._windows[("project", project_id)] = (window, self._used("project", project_id, window) + 1)
