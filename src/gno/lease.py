"""The cross-process write lease: one writer per index at a time, readers never blocked.

Every write (sync, embed, remember, capture, edit) runs under this lease, so a CLI `gno
remember` and an MCP `gno_remember` serialise on the same file lock. It is an flock, released
by the kernel if the holder dies. Callers that cannot get it within the wait window get a
BUSY error (exit 4 / HTTP 409) naming `--lock-wait`. Calls that name no wait (REST, MCP, the
SDK) wait `GNO_LOCK_WAIT` (a duration, default 120 s): a server can answer busy fast instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from gno.errors import BusyError, ErrorCode, ValidationError

DEFAULT_LOCK_WAIT_S = 120.0


def parse_duration(text: str | float | int | None, default: float = DEFAULT_LOCK_WAIT_S) -> float:
    """`120`, `120s`, `2m`, `500ms` → seconds."""
    if text is None:
        return default
    if isinstance(text, int | float):
        return float(text)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", text)
    if not m:
        raise ValidationError(f"invalid duration {text!r}: use e.g. 120, 120s, 2m, 500ms")
    n = float(m.group(1))
    unit = m.group(2) or "s"
    return n * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]


def default_wait(env: Mapping[str, str]) -> float:
    """The wait of a call that names none: `GNO_LOCK_WAIT` from the settings' environment, else 120 s."""
    return parse_duration(env.get("GNO_LOCK_WAIT", "").strip() or None)


@contextmanager
def write_lease(
    path: Path, wait_s: float = DEFAULT_LOCK_WAIT_S, busy_code: ErrorCode = ErrorCode.LOCKED
) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path), is_singleton=False)
    try:
        lock.acquire(timeout=max(wait_s, 0.0), poll_interval=0.02)
    except Timeout as exc:
        raise BusyError(
            f"another gno process holds the write lease on this index ({path}); waited "
            f"{wait_s:g}s. Retry, or raise --lock-wait",
            code=busy_code,
            details={"lease": str(path), "waitSeconds": wait_s},
        ) from exc
    try:
        yield
    finally:
        lock.release()
