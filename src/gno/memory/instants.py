"""UTC instants of the memory contract: `createdAt`, `validFrom` and `--as-of` (see `gno.memory.timeline`)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

TYPE_CHECKING = False  # not typing's: a cold `gno recall --as-of` imports neither typing nor the error table
if TYPE_CHECKING:
    from typing import Any


def format_instant(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_instant(value: Any, *, end_of_day: bool = False) -> str | None:
    """An ISO date or date-time (a datetime, from YAML) as a UTC instant string; None when unparseable.

    A naive time is taken as UTC; a bare date is its first instant, or with `end_of_day` its last.
    """
    if isinstance(value, datetime):
        t = value if value.tzinfo else value.replace(tzinfo=UTC)
        return format_instant(t)
    if isinstance(value, date):
        day = datetime.combine(value, time.min, tzinfo=UTC)
        return format_instant(day + timedelta(days=1, milliseconds=-1) if end_of_day else day)
    if not isinstance(value, str) or not value.strip():
        return None
    raw = value.strip()
    try:
        if len(raw) == 10:
            return parse_instant(date.fromisoformat(raw), end_of_day=end_of_day)
        return parse_instant(datetime.fromisoformat(raw.replace("Z", "+00:00")))
    except ValueError:
        return None


def require_instant(value: Any, field: str, *, end_of_day: bool = False) -> str:
    """`parse_instant`, or VALIDATION naming the field and the accepted spellings."""
    t = parse_instant(value, end_of_day=end_of_day)
    if t is None:
        from gno.errors import ValidationError

        raise ValidationError(
            f"{field} must be an ISO date or date-time (2026-03-02, 2026-03-02T14:30:00Z); got {str(value)[:60]!r}",
            details={"field": field},
        )
    return t


def start_of(meta: dict[str, Any]) -> str | None:
    """When a fact starts: its event time, else its record time (None: neither parses)."""
    return parse_instant(meta.get("validFrom")) or parse_instant(meta.get("createdAt"))
