"""The engine's memory: remember, recall, a fact's history and the memory audit.

Whether the vector leg joins is `gno.memory.vector_leg`'s choice; the rest is `gno.memory`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gno.engine.lifecycle import Lifecycle

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.

    from gno.memory.recall import RecallRequest
    from gno.memory.remember import RememberRequest
    from gno.models.memory_results import AuditResult, MemoryHistoryResult, RecallResult, RememberResult


class Remembering(Lifecycle):
    """`gno remember`, `recall`, `memory history`, `audit`."""

    def remember(self, req: RememberRequest, *, semantic: bool = True) -> RememberResult:
        """Propose/add/supersede a fact; candidates are ranked by cosine when the memory is embedded."""
        from gno.memory.remember import remember
        from gno.memory.vector_leg import remember_embedder

        embedder, reason = remember_embedder(self, req.collection, semantic)
        return remember(self, req, embedder, reason, key_dir=self.settings.data_dir)

    def recall(self, req: RecallRequest, *, semantic: bool = True) -> RecallResult:
        """Recall current facts; the vector leg joins when the memory collection is embedded."""
        from gno.memory.recall import recall
        from gno.memory.vector_leg import recall_leg

        leg, reason = recall_leg(self, req.collection, semantic)
        return recall(self, req, leg, reason)

    def memory_history(self, uri: str) -> MemoryHistoryResult:
        from gno.memory.timeline import history

        return history(self, uri)

    def audit(self, collection: str | None = None, max_findings: int = 100) -> AuditResult:
        from gno.memory.audit import audit_memory

        managed = (
            [self.collection(collection)] if collection else [c for c in self.config.collections if c.memory_managed]
        )
        return audit_memory(self.store, managed, max_findings)
