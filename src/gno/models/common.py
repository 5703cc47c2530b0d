"""Shared by every result: the model base (camelCase on the wire), egress lineage, request receipts."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from gno import egress


class GnoModel(BaseModel):
    # defer_build: validators are built on first use, so a CLI call pays only for the models it touches
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    @classmethod
    def take(cls, source: object, **given: Any) -> Self:
        """This result with each field read from `source`'s attribute of the same name (a row, a
        record of the core), but for those `given`; a field `source` lacks keeps its default."""
        taken = {n: getattr(source, n) for n in cls.model_fields if n not in given and hasattr(source, n)}
        return cls(**taken, **given)


class EgressSource(GnoModel, egress.Source):
    pass


class EgressLineage(GnoModel, egress.Lineage):
    """Where derived output may travel: the strictest policy of its source collections."""

    sources: list[EgressSource]


class RequestInfo(GnoModel):
    """The request ID a write ran under: `replayed` when an earlier attempt had already written."""

    request_id: str
    status: str  # committed
    replayed: bool
    committed_at: str


class HealthResult(GnoModel):
    ok: bool
    version: str
