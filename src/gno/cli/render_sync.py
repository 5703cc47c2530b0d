"""The text of an update's result: one line per collection, then the detached ones and the time.

Shared by the click command and the cold path (`gno.cli.cold_update`), which hand it the engine's
result model and the sync's own records respectively: both carry the same counters by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def sync_lines(collections: Sequence[Any], detached: Sequence[str], duration_ms: float, *, pruned: bool) -> list[str]:
    lines = [
        f"{c.name}: {c.scanned} files · {c.added} added · {c.updated} updated · {c.renamed} renamed · "
        f"{c.inactivated} removed · {c.reactivated} restored · {c.unchanged} unchanged"
        + (f" · {c.errors} errors (see gno status)" if c.errors else "")
        + (f" · {c.warnings} warnings (see gno status)" if c.warnings else "")
        for c in collections
    ]
    lines += [
        f"{name}: no longer in the config; its documents left search (rows and vectors kept until `gno update --prune`)"
        for name in detached
    ]
    if not collections:
        lines.append("No collections configured: gno collection add <folder> --name <name>")
    lines.append(f"Done in {duration_ms / 1000:.2f}s" + (" (pruned)" if pruned else ""))
    return lines
