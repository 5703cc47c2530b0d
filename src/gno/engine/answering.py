"""The engine's evidence: Context Capsules, the Knowledge Delta and verified `ask`.

Each composes `gno.evidence` over this engine, which serves as the index those functions read and
as the hybrid query they rank with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Unpack

from gno.engine.reading import Reading

if TYPE_CHECKING:
    # Imported where used: pydantic (config, models), YAML, filelock, pathlib, dataclasses and
    # the sync machinery each cost more than a whole `gno search`, which needs none of them.

    from gno.evidence.ask import AskOptions
    from gno.evidence.capsule import CapsuleRequest
    from gno.models import AskResult, Capsule, ChangesResult, ContextVerifyResult, DiffResult, ImpactResult


class Answering(Reading):
    """`gno context build | verify`, `changes`, `diff`, `impact`, `ask`."""

    def context_build(self, req: CapsuleRequest) -> Capsule:
        from gno.evidence.capsule import build_capsule

        return build_capsule(self, req)

    def context_verify(self, capsule: Any) -> ContextVerifyResult:
        from gno.evidence.verify import verify_capsule

        return verify_capsule(self, capsule)

    def changes(self, *, since: str | None = None, collection: str | None = None, limit: int = 100) -> ChangesResult:
        from gno.evidence.delta import changes

        return changes(self, since=since, collection=collection, limit=limit)

    def diff(self, ref: str, change: str | None = None) -> DiffResult:
        from gno.evidence.delta import diff

        return diff(self, ref, change)

    def impact(self, ref: str, *, max_depth: int = 3, max_nodes: int = 100, max_edges: int = 250) -> ImpactResult:
        from gno.evidence.delta import impact

        return impact(self, ref, max_depth=max_depth, max_nodes=max_nodes, max_edges=max_edges)

    def ask(self, question: str, **options: Unpack[AskOptions]) -> AskResult:
        from gno.evidence.ask import ask

        return ask(self, question, **options)
