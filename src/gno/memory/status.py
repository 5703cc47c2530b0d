"""The `Memory:` section of `gno status` and the findings of `gno audit`."""

from __future__ import annotations

from collections.abc import Sequence

from gno.config import CollectionConfig
from gno.models import MemoryDiagnostic, MemoryStatus
from gno.store import memory as mstore
from gno.store.db import Store


def memory_status(store: Store, managed: Sequence[CollectionConfig]) -> MemoryStatus | None:
    if not managed:
        return None
    counts = mstore.memory_counts(store, [c.name for c in managed])
    return MemoryStatus(
        collections=[c.name for c in managed],
        facts=counts["facts"],
        current=counts["current"],
        superseded=counts["superseded"],
        invalid=counts["invalid"],
        diagnostics=[MemoryDiagnostic.model_validate(d) for d in counts["diagnostics"]],
    )
