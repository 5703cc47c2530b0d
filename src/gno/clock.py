"""The one timestamp format gno writes: UTC, ISO 8601, milliseconds, `Z` (`2026-05-01T09:30:00.123Z`)."""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
